//! Real state from the target: the ids (and names) its own answers hold, for the path
//! parameters the spec gives no example of. A read of one flow needs a flow that exists;
//! a made-up id only ever gets a 404, which says nothing about the operation. So after
//! each pass of the run every 2xx JSON answer is mined for records, and an operation that
//! was skipped for want of a path value is planned again with values from them, by the
//! rules of [`crate::identity`] (collections, own fields, pointed-at collections, scope).
//!
//! The records of an answer are the answer itself when it is an object, the objects of a
//! top-level array, and an object or the objects of an array under any key of a
//! top-level object (an envelope: `{"data": {...}}`, `{"items": [...], "count": 2}`,
//! `{"widgets": [...], "total_entries": 2}`); an
//! `ids` array of scalars beside them gives one record `{"id": …}` per value. The value
//! must fit the parameter's schema type. Two more sources name records directly: a
//! `Location` header, matched against the spec's path templates (`/v1/widgets/7/parts/3`
//! is part `3` of widget `7`), and the spec's OpenAPI `links`, whose runtime expressions
//! (`$response.body#/id`, `$request.path.widget_id`, `$response.header.Location`) are
//! read off the answer they belong to and give the linked operation its parameters
//! before any inference does. Only the run's own answers are read; nothing is sent for
//! this.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::exchange::Exchange;
use crate::identity::{
    collection, decoded, is_generic, member_of, names_thing, own_fields, owner, path_values,
    pointed, scope_of,
};
use crate::spec::{Operation, Param, Spec};

/// Most records kept from one answer: enough to find an id, not a copy of the target.
const RECORDS_PER_ANSWER: usize = 50;

/// One record an answer held, with the path values of the request that got it.
#[derive(Debug, Clone, PartialEq)]
struct Record {
    fields: Map<String, Value>,
    /// The request's path values by the collection each names a member of (parts listed
    /// by `GET /widgets/7/parts`: `{"widgets": "7"}`).
    scope: BTreeMap<String, String>,
}

/// Records the target's answers held, by collection (`flows`, `work_pools/queues`).
#[derive(Debug, Default, Clone)]
pub struct Pool {
    records: BTreeMap<String, Vec<Record>>,
    /// Parameter values the spec's links gave, by the operation linked to.
    linked: BTreeMap<String, Vec<Map<String, Value>>>,
    /// Body fields the target refused a create for lacking, by operation (see
    /// [`crate::refusal`]).
    required: BTreeMap<String, Vec<Vec<String>>>,
}

impl Pool {
    /// Mines every 2xx JSON answer of `exchanges` that went to an operation's own path.
    pub fn mine<'a>(spec: &Spec, exchanges: impl IntoIterator<Item = &'a Exchange>) -> Pool {
        let mut pool = Pool::default();
        for e in exchanges {
            pool.learn_refusal(spec, e);
            // A chain's resource may be deleted by the chain itself: its id would name
            // nothing by the time a later pass sends it.
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
            let scope = scope_of(&op.path, &e.path);
            for fields in records_in(&e.response).into_iter().take(RECORDS_PER_ANSWER) {
                pool.add(
                    &key,
                    Record {
                        fields,
                        scope: scope.clone(),
                    },
                );
            }
            if let Some((key, record)) = e.location.as_deref().and_then(|l| located(spec, l)) {
                pool.add(&key, record);
            }
            pool.follow_links(spec, op, e);
        }
        pool
    }

    /// Learns from a create meant to be valid (a positive or example case, a chain's
    /// create) that the target refused with a 400 or 422 naming body fields it lacked.
    fn learn_refusal(&mut self, spec: &Spec, e: &Exchange) {
        let meant_valid = e.case.contains("/positive")
            || e.case.contains("/example/")
            || (e.case.contains("/chain/") && e.step == 0);
        if !matches!(e.status, Some(400 | 422)) || !meant_valid {
            return;
        }
        let Some(op) = spec.operation(&e.operation) else {
            return;
        };
        if op.effect != crate::effect::Effect::Create || !e.method.eq_ignore_ascii_case(&op.method)
        {
            return;
        }
        // Only a field of an object the request sent, and missing from it: a path into
        // what the request did not send (a branch of a union the target tried) says
        // nothing sure of what it wants.
        let Some((_, sent)) = e.body.as_ref() else {
            return;
        };
        for path in crate::refusal::missing_fields(&e.response) {
            let Some((last, parents)) = path.split_last() else {
                continue;
            };
            let parent = parents.iter().try_fold(sent, |v, k| v.get(k));
            let absent = parent.is_some_and(|p| p.is_object() && p.get(last).is_none());
            let known = self.required.entry(op.id.clone()).or_default();
            if absent && !known.contains(&path) {
                known.push(path);
            }
        }
    }

    /// The body fields the target refused `op` for lacking, each as its path.
    pub fn required_by_target(&self, op: &str) -> &[Vec<String>] {
        self.required.get(op).map_or(&[], Vec::as_slice)
    }

    fn add(&mut self, collection: &str, r: Record) {
        let records = self.records.entry(collection.to_string()).or_default();
        if !records.contains(&r) {
            records.push(r);
        }
    }

    /// The values the links of the answer's declared response give their operations.
    fn follow_links(&mut self, spec: &Spec, op: &Operation, e: &Exchange) {
        let Some(status) = e.status else { return };
        let Some(declared) = op.response(status) else {
            return;
        };
        for link in &declared.links {
            let Some(target) = spec.link_target(link) else {
                continue;
            };
            let values: Map<String, Value> = link
                .parameters
                .iter()
                .filter_map(|(name, expr)| Some((name.clone(), evaluated(op, e, expr)?)))
                .collect();
            let known = self.linked.entry(target.id.clone()).or_default();
            if !values.is_empty() && !known.contains(&values) {
                known.push(values);
            }
        }
    }

    /// Whether nothing was mined.
    pub fn is_empty(&self) -> bool {
        self.records.values().all(Vec::is_empty)
            && self.linked.is_empty()
            && self.required.is_empty()
    }

    /// Values for the path parameters `wanted` of `op`, from the mined records, or none.
    /// `held` are the other path values of the request that name a record (given by the
    /// spec or the user). With one path parameter any record that gives it will do; with
    /// more, the values must name one resource together: the innermost wanted
    /// parameter's record gives every other value from its scope or its own fields, and
    /// agrees with every held one.
    pub fn path_values(
        &self,
        op: &Operation,
        wanted: &[&Param],
        held: &[(&Param, Value)],
    ) -> Vec<(String, Value)> {
        let Some(inner) = wanted
            .iter()
            .max_by_key(|p| op.path.find(&format!("{{{}}}", p.name)))
        else {
            return Vec::new();
        };
        if let Some(values) = self.linked_values(op, wanted, held) {
            return values;
        }
        let candidates = self.candidates(op, inner);
        if wanted.len() == 1 && held.is_empty() {
            return candidates
                .into_iter()
                .next()
                .map(|(_, v)| vec![(inner.name.clone(), v)])
                .unwrap_or_default();
        }
        'record: for (record, value) in candidates {
            let mut out = vec![(inner.name.clone(), value)];
            for q in wanted.iter().filter(|q| q.name != inner.name) {
                match vouched(op, record, q) {
                    Some(v) => out.push((q.name.clone(), v)),
                    None => continue 'record,
                }
            }
            for (q, v) in held {
                if vouched(op, record, q).is_none_or(|w| text(&w) != text(v)) {
                    continue 'record;
                }
            }
            return out;
        }
        Vec::new()
    }

    /// Values a link gave `op` for every wanted parameter, agreeing with the held ones.
    fn linked_values(
        &self,
        op: &Operation,
        wanted: &[&Param],
        held: &[(&Param, Value)],
    ) -> Option<Vec<(String, Value)>> {
        self.linked.get(&op.id)?.iter().find_map(|values| {
            let agrees = held
                .iter()
                .all(|(q, v)| values.get(&q.name).is_none_or(|w| text(w) == text(v)));
            let out: Vec<(String, Value)> = wanted
                .iter()
                .map(|p| {
                    let v = values.get(&p.name)?;
                    let v = match v {
                        Value::String(s) => typed(s, &p.schema),
                        other => other.clone(),
                    };
                    fits(&v, &p.schema).then(|| (p.name.clone(), v))
                })
                .collect::<Option<_>>()?;
            agrees.then_some(out)
        })
    }

    /// The records that can give path parameter `p` of `op`, each with the value, most
    /// telling first: its owner's records by their own fields, then records of the
    /// collection its name points at, then (for a name that is not generic) any record
    /// with a field of that name.
    fn candidates(&self, op: &Operation, p: &Param) -> Vec<(&Record, Value)> {
        let owner = owner(&op.path, &p.name).unwrap_or_default();
        let fits = |v: &Value| fits(v, &p.schema);
        let mut out: Vec<(&Record, Value)> = Vec::new();
        for r in self.records.get(&owner).into_iter().flatten() {
            if let Some(v) = own_fields(&p.name, &owner)
                .iter()
                .find_map(|f| scalar(r, f).filter(fits))
            {
                out.push((r, v));
            }
        }
        if let Some((thing, field)) = pointed(&p.name) {
            for (key, records) in &self.records {
                if *key == owner || !names_thing(key, &thing) {
                    continue;
                }
                for r in records {
                    if let Some(v) = scalar(r, &p.name).or_else(|| scalar(r, field)).filter(fits) {
                        out.push((r, v));
                    }
                }
            }
        }
        if !is_generic(&p.name) {
            for (key, records) in &self.records {
                if *key == owner {
                    continue;
                }
                for r in records {
                    if let Some(v) = scalar(r, &p.name).filter(fits) {
                        out.push((r, v));
                    }
                }
            }
        }
        out
    }

    /// A value for a reference named `name` (`flow_id`: the `id` of a record of `flows`;
    /// `work_pool_name`: a work pool's `name`; else a field of that very name in any
    /// record, as a flow run's `flow_id`) that fits `schema`. Never for a generic name
    /// (`id`, `name`, …), which every collection has.
    pub fn value_named(&self, name: &str, schema: &Value) -> Option<Value> {
        let fits = |v: &Value| fits(v, schema);
        if let Some((thing, field)) = pointed(name) {
            for (key, records) in &self.records {
                if names_thing(key, &thing)
                    && let Some(v) = records.iter().find_map(|r| scalar(r, field).filter(fits))
                {
                    return Some(v);
                }
            }
        }
        if is_generic(name) {
            return None;
        }
        self.records
            .values()
            .flatten()
            .find_map(|r| scalar(r, name).filter(fits))
    }

    /// Points a generated body's references at records the target holds: each top-level
    /// `…_id` field takes a mined value where one fits, and an optional one with none is
    /// left out (a made-up id names nothing, and the target's 404 or 409 for it would say
    /// nothing about the operation). Returns whether a mined value went in.
    pub fn fill_references(&self, body: &mut Map<String, Value>, schema: &Value) -> bool {
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
}

/// The record a `Location` header names: its path matched against the spec's path
/// templates that end in a parameter (the last segments of the URL, so a base path or a
/// host before them does not matter; the template with the most literal segments wins),
/// the innermost value a record of that parameter's owner collection, the outer ones its
/// scope.
fn located(spec: &Spec, location: &str) -> Option<(String, Record)> {
    let after_scheme = location.split_once("://").map_or(location, |(_, r)| r);
    let path = match location.contains("://") {
        true => after_scheme.find('/').map_or("", |i| &after_scheme[i..]),
        false => after_scheme,
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let is_param = |s: &str| s.starts_with('{') && s.ends_with('}');
    let (template, tail) = spec
        .operations
        .iter()
        .filter_map(|op| {
            let t: Vec<&str> = op.path.split('/').filter(|s| !s.is_empty()).collect();
            if t.last().is_none_or(|s| !is_param(s)) || t.len() > segments.len() {
                return None;
            }
            let tail = &segments[segments.len() - t.len()..];
            t.iter()
                .zip(tail)
                .all(|(a, b)| is_param(a) || a == b)
                .then(|| {
                    (
                        op.path.as_str(),
                        tail,
                        t.iter().filter(|s| !is_param(s)).count(),
                    )
                })
        })
        .max_by_key(|(_, _, literals)| *literals)
        .filter(|(_, _, literals)| *literals > 0)
        .map(|(t, tail, _)| (t, tail.join("/")))?;
    let inner = template
        .rsplit('/')
        .find(|s| is_param(s))?
        .trim_matches(['{', '}']);
    let key = owner(template, inner)?;
    let mut scope = scope_of(template.trim_start_matches('/'), &tail);
    let value = Value::String(scope.remove(&key)?);
    let fields = own_fields(inner, &key)
        .into_iter()
        .map(|f| (f, value.clone()))
        .collect();
    Some((key, Record { fields, scope }))
}

/// What a link's parameter is for one exchange: a constant as it stands, or the runtime
/// expression's value (`$response.body#/…`, `$response.body`, `$request.path.<name>`,
/// `$request.query.<name>`, `$request.body#/…`, `$response.header.Location`); `None`
/// where the exchange does not hold it.
fn evaluated(op: &Operation, e: &Exchange, expr: &Value) -> Option<Value> {
    let Some(text) = expr.as_str().filter(|t| t.starts_with('$')) else {
        return Some(expr.clone());
    };
    let scalar = |v: &Value| (v.is_string() || v.is_number()).then(|| v.clone());
    let in_body = |body: &Value, rest: &str| match rest.strip_prefix('#') {
        Some(ptr) => body.pointer(ptr).and_then(scalar),
        None if rest.is_empty() => scalar(body),
        None => None,
    };
    if let Some(rest) = text.strip_prefix("$response.body") {
        return in_body(&e.response, rest);
    }
    if let Some(rest) = text.strip_prefix("$request.body") {
        return in_body(&e.body.as_ref()?.1, rest);
    }
    if let Some(name) = text.strip_prefix("$request.path.") {
        return path_values(&op.path, &e.path)
            .remove(name)
            .map(Value::String);
    }
    if let Some(name) = text.strip_prefix("$request.query.") {
        let query = e.path.split_once('?')?.1;
        return query.split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k == name).then(|| Value::String(decoded(v)))
        });
    }
    if let Some(name) = text.strip_prefix("$response.header.") {
        return name
            .eq_ignore_ascii_case("location")
            .then(|| e.location.clone().map(Value::String))
            .flatten();
    }
    None
}

/// What `record` says path parameter `q` of `op` is: the value its request named the
/// collection `q` belongs to with, else its own field of `q`'s name, fitting `q`'s schema.
fn vouched(op: &Operation, record: &Record, q: &Param) -> Option<Value> {
    let fits = |v: &Value| fits(v, &q.schema);
    member_of(&op.path, &q.name)
        .and_then(|m| record.scope.get(&m))
        .map(|s| typed(s, &q.schema))
        .filter(fits)
        .or_else(|| scalar(record, &q.name).filter(fits))
}

/// A path segment's text as the parameter's schema types it (an integer as a number).
fn typed(text: &str, schema: &Value) -> Value {
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => text
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| Value::String(text.into())),
        _ => Value::String(text.into()),
    }
}

/// A value as a path segment writes it.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A record's field `name` when it is a string or a number.
fn scalar(r: &Record, name: &str) -> Option<Value> {
    r.fields
        .get(name)
        .filter(|v| v.is_string() || v.is_number())
        .cloned()
}

/// The records of an answer: the object itself, the objects of a top-level array, the
/// objects of an array under any key of a top-level object (`{"items": […]}`), an object
/// under a key of one that names nothing itself (an envelope: `{"data": {…}}`), and
/// `{"id": …}` for each scalar of an `ids` array.
fn records_in(body: &Value) -> Vec<Map<String, Value>> {
    let objects = |v: &Value| -> Vec<Map<String, Value>> {
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
            // An object under a key is the record only where the answer is an envelope
            // (it names nothing itself): a record's own nested objects (a document's
            // `block_type`) are not records of its collection.
            let envelope = !["id", "name", "key", "uuid", "slug"]
                .iter()
                .any(|k| map.get(*k).is_some_and(|v| v.is_string() || v.is_number()));
            for v in map.values() {
                match v {
                    Value::Object(inner) if envelope => out.push(inner.clone()),
                    other => out.extend(objects(other)),
                }
            }
            if let Some(Value::Array(ids)) = map.get("ids") {
                out.extend(
                    ids.iter()
                        .filter(|v| v.is_string() || v.is_number())
                        .map(|v| Map::from_iter([("id".to_string(), v.clone())])),
                );
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
            if !string_keywords_hold(s, schema) {
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
            // Sent as its text, which the string keywords judge.
            Some("string") => string_keywords_hold(&n.to_string(), schema),
            Some("number") | None => true,
            _ => false,
        },
        _ => false,
    }
}

/// Whether `text` keeps the parameter's own string keywords (`minLength`, `maxLength`,
/// `pattern`): a field of the same name in another answer may hold another kind of value
/// (an image's free-text `version` for a `{version}` that is a semver).
fn string_keywords_hold(text: &str, schema: &Value) -> bool {
    let length = text.chars().count() as u64;
    let number = |k: &str| schema.get(k).and_then(Value::as_u64);
    !(number("minLength").is_some_and(|n| length < n)
        || number("maxLength").is_some_and(|n| length > n)
        || schema
            .get("pattern")
            .and_then(Value::as_str)
            .is_some_and(|p| !pattern_holds(p, &Value::from(text))))
}

/// Whether string `v` matches the ECMA-262 `pattern` as JSON Schema reads it (the
/// validator's own regex engine). Compiled once per pattern and thread: a run asks the
/// same few parameters' patterns of many records. A pattern that does not compile
/// refuses nothing.
fn pattern_holds(pattern: &str, v: &Value) -> bool {
    thread_local! {
        static COMPILED: std::cell::RefCell<BTreeMap<String, Option<jsonschema::Validator>>> =
            const { std::cell::RefCell::new(BTreeMap::new()) };
    }
    COMPILED.with(|compiled| {
        let mut compiled = compiled.borrow_mut();
        let validator = compiled.entry(pattern.to_string()).or_insert_with(|| {
            jsonschema::validator_for(&serde_json::json!({"pattern": pattern})).ok()
        });
        validator.as_ref().is_none_or(|c| c.is_valid(v))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mined_string_fits_only_where_the_parameters_pattern_and_lengths_take_it() {
        let semver =
            serde_json::json!({"type": "string", "pattern": "^\\d+\\.\\d+\\.\\d+([\\-\\+].+)?$"});
        assert!(fits(&Value::from("1.2.3"), &semver));
        assert!(!fits(&Value::from("jammy 22.04"), &semver));
        let short = serde_json::json!({"type": "string", "minLength": 2, "maxLength": 3});
        assert!(fits(&Value::from("ab"), &short));
        assert!(!fits(&Value::from("a"), &short));
        assert!(!fits(&Value::from("abcd"), &short));
        // A number is sent as its text, which the keywords judge.
        let code = serde_json::json!({"type": "string", "pattern": "^[a-z]+$"});
        assert!(!fits(&Value::from(42), &code));
        assert!(fits(
            &Value::from(42),
            &serde_json::json!({"type": "string"})
        ));
        // A pattern the validator cannot compile refuses nothing.
        let odd = serde_json::json!({"type": "string", "pattern": "(?<"});
        assert!(fits(&Value::from("x"), &odd));
    }
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
            location: None,
            resent: 0,
            harness: None,
            case_index: 0,
            elapsed: None,
        }
    }

    /// The one path value `op` gets for its parameter `name`, nothing else held.
    fn one(pool: &Pool, op: &Operation, name: &str) -> Option<Value> {
        let p = op.param(name).unwrap();
        let got = pool.path_values(op, &[p], &[]);
        got.into_iter().find(|(n, _)| n == name).map(|(_, v)| v)
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
        let value = |o: &str, p: &str| one(&pool, spec.operation(o).unwrap(), p);
        assert_eq!(value("read_flow", "id"), Some(json!(FLOW)));
        // `{flow_id}`: the id of a record of `flows`.
        assert_eq!(value("runs_of_flow", "flow_id"), Some(json!(FLOW)));
        // Nothing of `pools` was seen.
        assert_eq!(value("read_pool", "pool_name"), None);
        assert_eq!(value("count_n", "n"), None);
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
        assert_eq!(one(&pool, spec.operation("read_flow").unwrap(), "id"), None);
        assert!(!pool.is_empty());
    }

    #[test]
    fn a_location_header_names_a_record_by_the_template_it_matches() {
        let spec = Spec::parse(SPEC).unwrap();
        let mut made = answer("read_flows", "POST", "/flows/filter", 201, Value::Null);
        // Behind a base path and a host: the template's segments match the URL's last.
        made.location = Some(format!("http://h:1/api/v2/flows/{FLOW}?x=1"));
        let pool = Pool::mine(&spec, &[made]);
        let value = |o: &str, p: &str| one(&pool, spec.operation(o).unwrap(), p);
        assert_eq!(value("read_flow", "id"), Some(json!(FLOW)));
        assert_eq!(value("runs_of_flow", "flow_id"), Some(json!(FLOW)));
        // A URL no template ending in a parameter matches names nothing.
        let mut other = answer("read_flows", "POST", "/flows/filter", 201, Value::Null);
        other.location = Some("/elsewhere/7".into());
        assert!(Pool::mine(&spec, &[other]).is_empty());
    }

    #[test]
    fn a_refusal_teaches_only_fields_missing_from_an_object_the_create_sent() {
        let spec = Spec::parse(
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /accounts:\n    post:\n      operationId: create_account\n      requestBody: {content: {application/json: {schema: {type: object}}}}\n      responses: {'201': {description: made}}\n",
        )
        .unwrap();
        let mut refused = answer(
            "create_account",
            "POST",
            "/accounts",
            400,
            json!({"details": [
                {"location": "body", "name": "data.id", "description": "data.id in body: Required"},
                {"location": "body", "name": "plan.tier", "description": "Required"}
            ]}),
        );
        refused.body = Some((
            "application/json".into(),
            json!({"data": {"password": "x"}}),
        ));
        let pool = Pool::mine(&spec, &[refused]);
        // `plan` was never sent: what the target wants inside it is a guess.
        assert_eq!(
            pool.required_by_target("create_account"),
            [vec!["data".to_string(), "id".to_string()]]
        );
    }

    #[test]
    fn an_envelope_holds_its_record_and_a_records_own_objects_are_not_records() {
        let wrapped = records_in(&json!({"data": {"id": "b1"}, "permissions": {"write": ["x"]}}));
        assert!(wrapped.iter().any(|r| r.get("id") == Some(&json!("b1"))));
        let document = records_in(&json!({"id": "d1", "name": "doc", "block_type": {"name": "T"}}));
        assert!(!document.iter().any(|r| r.get("name") == Some(&json!("T"))));
        let ids = records_in(&json!({"ids": [3, 4], "result": [{"title": "x"}]}));
        assert!(ids.iter().any(|r| r.get("id") == Some(&json!(4))));
    }
}
