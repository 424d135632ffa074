//! The answers of `--stateful` mode: a create keeps what it was sent, reads and lists
//! answer what was kept, updates merge into it, deletes remove it (the inference rules
//! are in [`crate::records`]). A request the store has no part in is answered as in
//! stateless mode (`None` here).

use http::{HeaderMap, Method};
use percent_encoding::percent_decode_str;
use serde_json::Value;

use crate::answer::{Reply, Source, declared, rejection, success};
use crate::api::Api;
use crate::coerce::{resolve, scalar, types_of};
use crate::operations::Op;
use crate::records::{Name, Role, Store, key_field, list_slot, merge};

/// One request as the store sees it.
pub(crate) struct Request<'r> {
    pub op: &'r Op,
    pub role: &'r Role,
    /// The request's path (the server's base path removed), `/` trimmed at the end.
    pub path: &'r str,
    /// Path parameter texts, percent-encoded.
    pub params: &'r [(String, String)],
    pub headers: &'r HeaderMap,
    /// The parsed JSON body, `Null` when there is none.
    pub body: &'r Value,
}

/// The answer the store gives, `None` when it has no part in this request.
pub(crate) fn answer(api: &Api, store: &Store, r: &Request<'_>) -> Option<Reply> {
    match (r.role, &r.op.method) {
        (Role::Collection { member }, &Method::POST) => Some(create(api, store, r, *member)),
        (Role::Collection { .. }, &Method::GET) => list(api, store, r),
        (role @ Role::Member { .. }, m) => member(api, store, r, role, m),
        _ => None,
    }
}

/// A value generated afresh for the success response of `op`, `Null` when it has none.
fn fresh(api: &Api, op: &Op, status: u16) -> Value {
    let schema = op
        .response(status)
        .and_then(|resp| resp.media.iter().find_map(|m| m.schema.as_ref()));
    let Some(s) = schema else {
        return Value::Null;
    };
    let g = api.dynamic();
    let node = g.schema_at(&s.pointer).unwrap_or(s.value);
    g.generate_at(node, &s.pointer, api.fresh_seed())
        .unwrap_or(Value::Null)
}

fn create(api: &Api, store: &Store, r: &Request<'_>, member: usize) -> Reply {
    let status = success(r.op);
    let param = api.templates[member]
        .last_param()
        .unwrap_or_default()
        .to_owned();
    let mut record = merge(fresh(api, r.op, status), r.body);
    if let Some(key) = key_field(&record, &param) {
        fit_key(api, member, &param, &key, &mut record);
    }
    let reply = declared(api, r.op, status, r.headers, Source::Static, Some(&record));
    // What is kept is what was answered (fitted to the schema), with any field of the
    // request the answer's schema left out.
    let answered: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
    let kept = merge(r.body.clone(), &answered);
    if let Some(key) = key_field(&kept, &param) {
        let key_text = spec_model::encode::scalar_text(&kept[&key]);
        store.put(r.path, key_text, kept);
    }
    reply
}

/// Makes the record's key one the member path's parameter takes: a key its own schema
/// rejects (a fractional `number` for an `integer` parameter) is generated again from the
/// parameter's schema.
fn fit_key(api: &Api, member: usize, param: &str, key: &str, record: &mut Value) {
    let schema = api.ops[member]
        .iter()
        .flat_map(|o| o.params.iter())
        .find(|p| p.name == param)
        .and_then(|p| p.schema.as_ref());
    let Some(schema) = schema else {
        return;
    };
    let text = spec_model::encode::scalar_text(&record[key]);
    let as_sent = scalar(&text, &types_of(api.doc, schema.value));
    if api.requests.validate(schema.value, &as_sent).is_ok() {
        return;
    }
    if let Ok(v) = api
        .requests
        .generate_at(schema.value, &schema.pointer, api.fresh_seed())
    {
        record[key] = v;
    }
}

fn list(api: &Api, store: &Store, r: &Request<'_>) -> Option<Reply> {
    let status = success(r.op);
    let resp = r.op.response(status)?;
    let schema = resp.media.iter().find_map(|m| m.schema.as_ref())?;
    let slot = list_slot(api.doc, schema.value)?;
    let mut reply = declared(api, r.op, status, r.headers, Source::Static, None);
    let generated: Value = serde_json::from_slice(&reply.body).ok()?;
    let records = Value::Array(store.list(r.path));
    let mut body = match slot {
        None => records,
        Some(name) => merge(generated, &serde_json::json!({ name: records })),
    };
    crate::write_only::scrub(&api.responses, api.doc, schema.value, &mut body);
    // Kept records answered only where the answer's schema takes them.
    if api.responses.validate(schema.value, &body).is_ok() {
        reply.body = serde_json::to_vec(&body).unwrap_or_default().into();
    }
    Some(reply)
}

/// The concrete collection path `depth` segments up from `path`.
fn collection_of(path: &str, depth: usize) -> &str {
    let mut c = path;
    for _ in 0..depth {
        c = c.rsplit_once('/').map_or("", |(p, _)| p);
    }
    c.trim_end_matches('/')
}

fn member(
    api: &Api,
    store: &Store,
    r: &Request<'_>,
    role: &Role,
    method: &Method,
) -> Option<Reply> {
    let Role::Member { param, by } = role else {
        return None;
    };
    let raw = r.params.iter().find(|(n, _)| n == param)?.1.as_str();
    let key = percent_decode_str(raw).decode_utf8_lossy().into_owned();
    let collection = collection_of(r.path, role.depth());
    let name = match by {
        Some(field) => Name::Field(field, &key),
        None => Name::Key { param, key: &key },
    };
    let status = success(r.op);
    let kept = store.get(collection, name);
    if kept.is_none() && *method != Method::PUT {
        // Read or updated after a delete: gone, whatever the spec declares. Never kept,
        // or deleted again (DELETE is idempotent, RFC 9110 §9.2.2): a 404 only where the
        // operation declares one, else the stateless answer.
        let declares_404 = r.op.response(404).is_some();
        let gone = store.is_gone(collection, name) && *method != Method::DELETE;
        if !gone && !declares_404 {
            return None;
        }
        let detail = format!("no record `{key}` is kept at {collection}");
        return Some(rejection(api, Some(r.op), 404, r.headers, &detail, &[]));
    }
    match (method.clone(), kept) {
        (Method::GET, Some((_, rec))) => Some(declared(
            api,
            r.op,
            status,
            r.headers,
            Source::Static,
            Some(&rec),
        )),
        (Method::DELETE, Some((k, _))) => {
            store.remove(collection, &k);
            Some(declared(api, r.op, status, r.headers, Source::Static, None))
        }
        (Method::PATCH, Some((k, rec))) => {
            let rec = merge(rec, r.body);
            store.put(collection, k, rec.clone());
            Some(declared(
                api,
                r.op,
                status,
                r.headers,
                Source::Static,
                Some(&rec),
            ))
        }
        (Method::PUT, None) if by.is_some() => None,
        (Method::PUT, kept) => {
            let (k, base) = kept.unwrap_or_else(|| (key.clone(), fresh(api, r.op, status)));
            let mut rec = merge(base, r.body);
            let field = by
                .clone()
                .or_else(|| key_field(&rec, param))
                .unwrap_or_else(|| param.to_owned());
            if rec.is_object() {
                let path_schema =
                    r.op.params
                        .iter()
                        .find(|p| p.name == *param)
                        .and_then(|p| p.schema.as_ref());
                let types = path_schema
                    .map(|s| types_of(api.doc, resolve(api.doc, s.value)))
                    .unwrap_or_default();
                rec[&field] = scalar(&key, &types);
            }
            store.put(collection, k, rec.clone());
            Some(declared(
                api,
                r.op,
                status,
                r.headers,
                Source::Static,
                Some(&rec),
            ))
        }
        _ => None,
    }
}
