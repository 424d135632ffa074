//! Real state from the target: the ids (and names) its own answers hold, for the path
//! parameters the spec gives no example of. A read of one flow needs a flow that exists;
//! a made-up id only ever gets a 404, which says nothing about the operation. So after the
//! run's first pass every 2xx JSON answer is mined for records, and an operation that was
//! skipped for want of a path value is planned again with a value from a record of the
//! same collection.
//!
//! A record belongs to the collection its answering operation names: the literal segments
//! of its path, parameters left out, a trailing question verb (`/flows/filter`,
//! `/flows/count`) dropped: `POST /flows/filter` and `GET /flows/{id}` both answer records
//! of `/flows`. A path parameter `{id}` of `/flows/{id}` takes the `id` of a record of
//! `/flows`; `{name}` its `name`; `{flow_id}` the `id` of a record of a collection whose
//! last segment is `flows` or `flow`, else a `flow_id` field of any record. The value must
//! fit the parameter's schema type. Only the run's own answers are read; nothing is sent
//! for this.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::exchange::Exchange;
use crate::spec::{Location, Operation, Param, Spec};

/// Segments that end a path as a question about its collection rather than a member.
const QUESTION_SEGMENTS: &[&str] = &[
    "filter", "paginate", "count", "search", "list", "query", "find", "history",
];

/// Most records kept from one answer: enough to find an id, not a copy of the target.
const RECORDS_PER_ANSWER: usize = 50;

/// Records the target's answers held, by collection (`flows`, `work_pools/queues`).
#[derive(Debug, Default, Clone)]
pub struct Pool {
    records: BTreeMap<String, Vec<serde_json::Map<String, Value>>>,
}

impl Pool {
    /// Mines every 2xx JSON answer of `exchanges` that went to an operation's own path.
    pub fn mine(spec: &Spec, exchanges: &[Exchange]) -> Pool {
        let mut pool = Pool::default();
        for e in exchanges {
            // A chain's resource may be deleted by the chain itself: its id would name
            // nothing by the time a second pass sends it.
            if !e.status.is_some_and(|s| (200..300).contains(&s)) || e.case.contains("/chain/") {
                continue;
            }
            let Some(op) = spec.operation(&e.operation) else {
                continue;
            };
            if !e.method.eq_ignore_ascii_case(&op.method) {
                continue;
            }
            let key = collection(&op.path);
            if key.is_empty() {
                continue;
            }
            let records = pool.records.entry(key).or_default();
            for r in records_in(&e.response).into_iter().take(RECORDS_PER_ANSWER) {
                if !records.contains(&r) {
                    records.push(r);
                }
            }
        }
        pool
    }

    /// Whether nothing was mined.
    pub fn is_empty(&self) -> bool {
        self.records.values().all(Vec::is_empty)
    }

    /// A value for path parameter `param` of `op` from the mined records, if one fits.
    pub fn value_for(&self, op: &Operation, param: &Param) -> Option<Value> {
        if param.location != Location::Path {
            return None;
        }
        let (prefix, _) = op.path.split_once(&format!("{{{}}}", param.name))?;
        let owner = collection(prefix);
        let name = param.name.as_str();
        let fits = |v: &Value| fits(v, &param.schema);
        // `{id}` or `{name}` of the collection the path names before it.
        if let Some(v) = self.field_of(&owner, name).filter(fits) {
            return Some(v);
        }
        self.value_named(name, &param.schema)
    }

    /// A value for a reference named `name` (`flow_id`: the `id` of a record of `flows`;
    /// `work_pool_name`: a work pool's `name`; else a field of that very name in any
    /// record, as a flow run's `flow_id`) that fits `schema`. Never for a bare `id` or
    /// `name`, which every collection has.
    pub fn value_named(&self, name: &str, schema: &Value) -> Option<Value> {
        let fits = |v: &Value| fits(v, schema);
        if let Some((thing, field)) = name.rsplit_once('_') {
            let plural = [thing.to_string(), format!("{thing}s"), format!("{thing}es")];
            for (key, _) in self.records.iter() {
                let last = key.rsplit('/').next().unwrap_or(key);
                if plural.iter().any(|p| p == last)
                    && let Some(v) = self.field_of(key, field).filter(fits)
                {
                    return Some(v);
                }
            }
        }
        if matches!(name, "id" | "name") {
            return None;
        }
        self.records
            .keys()
            .find_map(|k| self.field_of(k, name).filter(fits))
    }

    /// Points a generated body's references at records the target holds: each top-level
    /// `…_id` field takes a mined value where one fits, and an optional one with none is
    /// left out (a made-up id names nothing, and the target's 404 or 409 for it would say
    /// nothing about the operation). Returns whether a mined value went in.
    pub fn fill_references(
        &self,
        body: &mut serde_json::Map<String, Value>,
        schema: &Value,
    ) -> bool {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let properties = schema.get("properties").and_then(Value::as_object);
        let mut mined = false;
        let names: Vec<String> = body
            .keys()
            .filter(|k| k.ends_with("_id") && k.len() > 3)
            .cloned()
            .collect();
        for name in names {
            let prop = properties
                .and_then(|p| p.get(&name))
                .cloned()
                .unwrap_or(Value::Null);
            match self.value_named(&name, &prop) {
                Some(v) => {
                    body.insert(name, v);
                    mined = true;
                }
                None if !required.contains(&name.as_str()) => {
                    body.remove(&name);
                }
                None => {}
            }
        }
        mined
    }

    fn field_of(&self, key: &str, field: &str) -> Option<Value> {
        self.records.get(key)?.iter().find_map(|r| {
            r.get(field)
                .filter(|v| v.is_string() || v.is_number())
                .cloned()
        })
    }
}

/// The collection a path names: its literal segments, parameters left out, a trailing
/// question segment dropped (`/flows/filter` → `flows`).
fn collection(path: &str) -> String {
    let mut segments: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
        .collect();
    if segments
        .last()
        .is_some_and(|s| QUESTION_SEGMENTS.contains(&s.to_ascii_lowercase().as_str()))
    {
        segments.pop();
    }
    segments.join("/")
}

/// The records of an answer: the object itself, the objects of a top-level array, and
/// those of an array field of a top-level object (`{"results": [...]}`).
fn records_in(body: &Value) -> Vec<serde_json::Map<String, Value>> {
    let objects = |v: &Value| -> Vec<serde_json::Map<String, Value>> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i.as_object().cloned())
            .collect()
    };
    match body {
        Value::Array(_) => objects(body),
        Value::Object(map) => {
            let mut out = vec![map.clone()];
            for v in map.values() {
                out.extend(objects(v));
            }
            out
        }
        _ => Vec::new(),
    }
}

/// Whether `v` fits the parameter schema's type (and `uuid` format) as far as a path
/// segment can show it.
fn fits(v: &Value, schema: &Value) -> bool {
    let ty = schema.get("type").and_then(Value::as_str);
    match v {
        Value::String(s) => {
            if s.is_empty() || s.contains('/') {
                return false;
            }
            match ty {
                Some("integer") => s.parse::<i64>().is_ok(),
                Some("number") => s.parse::<f64>().is_ok(),
                _ if schema.get("format").and_then(Value::as_str) == Some("uuid") => {
                    s.len() == 36 && s.chars().filter(|c| *c == '-').count() == 4
                }
                _ => schema
                    .get("enum")
                    .and_then(Value::as_array)
                    .is_none_or(|e| e.contains(v)),
            }
        }
        Value::Number(n) => match ty {
            Some("integer") => n.is_i64() || n.is_u64(),
            Some("number") | Some("string") | None => true,
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SPEC: &str = r#"
openapi: 3.1.0
info: {title: flows, version: "1"}
paths:
  /flows/filter:
    post:
      operationId: read_flows
      responses: {"200": {description: ok}}
  /flows/{id}:
    get:
      operationId: read_flow
      parameters: [{name: id, in: path, required: true, schema: {type: string, format: uuid}}]
      responses: {"200": {description: ok}}
  /runs/paginate:
    post:
      operationId: paginate_runs
      responses: {"200": {description: ok}}
  /flows/{flow_id}/runs:
    get:
      operationId: runs_of_flow
      parameters: [{name: flow_id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /pools/{pool_name}:
    get:
      operationId: read_pool
      parameters: [{name: pool_name, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /counts/{n}:
    get:
      operationId: count_n
      parameters: [{name: n, in: path, required: true, schema: {type: integer}}]
      responses: {"200": {description: ok}}
"#;

    fn answer(op: &str, method: &str, path: &str, status: u16, body: Value) -> Exchange {
        Exchange {
            case: format!("{op}/positive"),
            operation: op.into(),
            step: 0,
            method: method.into(),
            path: path.into(),
            auth: None,
            headers: Vec::new(),
            body: None,
            status: Some(status),
            error: None,
            content_type: Some("application/json".into()),
            response: body,
            resent: 0,
            harness: None,
            case_index: 0,
            elapsed: None,
        }
    }

    const FLOW: &str = "0b6d0a31-2f4a-4c6e-9a47-7b1f0e2d9c11";

    #[test]
    fn ids_come_from_records_of_the_same_collection_and_fit_the_schema() {
        let spec = Spec::parse(SPEC).unwrap();
        let pool = Pool::mine(
            &spec,
            &[
                answer(
                    "read_flows",
                    "POST",
                    "/flows/filter",
                    200,
                    json!([{"id": FLOW, "name": "etl"}]),
                ),
                answer(
                    "paginate_runs",
                    "POST",
                    "/runs/paginate",
                    200,
                    json!({"results": [{"id": "r1", "flow_id": "from-a-run"}], "count": 1}),
                ),
                // Not a success: nothing is mined from it.
                answer(
                    "read_flows",
                    "POST",
                    "/flows/filter",
                    422,
                    json!([{"id": "bad"}]),
                ),
            ],
        );
        let op = |id: &str| spec.operation(id).unwrap();
        let param = |o: &str, p: &str| op(o).param(p).unwrap().clone();
        assert_eq!(
            pool.value_for(op("read_flow"), &param("read_flow", "id")),
            Some(json!(FLOW))
        );
        // `{flow_id}`: the id of a record of `flows`.
        assert_eq!(
            pool.value_for(op("runs_of_flow"), &param("runs_of_flow", "flow_id")),
            Some(json!(FLOW))
        );
        // Nothing of `pools` was seen.
        assert_eq!(
            pool.value_for(op("read_pool"), &param("read_pool", "pool_name")),
            None
        );
        assert_eq!(pool.value_for(op("count_n"), &param("count_n", "n")), None);
    }

    #[test]
    fn a_value_that_does_not_fit_the_schema_is_not_used() {
        let spec = Spec::parse(SPEC).unwrap();
        let pool = Pool::mine(
            &spec,
            &[answer(
                "read_flows",
                "POST",
                "/flows/filter",
                200,
                json!([{"id": "not-a-uuid"}]),
            )],
        );
        let op = spec.operation("read_flow").unwrap();
        assert_eq!(pool.value_for(op, op.param("id").unwrap()), None);
        assert!(!pool.is_empty());
    }

    #[test]
    fn collections_drop_parameters_and_question_segments() {
        assert_eq!(collection("/flows/filter"), "flows");
        assert_eq!(collection("/flows/"), "flows");
        assert_eq!(
            collection("/work_pools/{name}/queues/filter"),
            "work_pools/queues"
        );
        assert_eq!(collection("/flows/{id}"), "flows");
    }
}
