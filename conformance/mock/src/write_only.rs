//! What an answer must not carry: `writeOnly` values. OpenAPI says a write-only property
//! is not sent in a response. The value generator leaves out a property that is
//! write-only itself, but not one whose value only a write-only branch of its
//! `anyOf`/`oneOf` takes (`anyOf: [{type: string, writeOnly: true}, {type: "null"}]`),
//! and a record kept by stateful mode holds what the request sent, passwords included.
//! Such a property is removed where the schema does not require it, else set to `null`
//! where a branch that is not write-only takes `null`.

use schema_values::Generator;
use serde_json::Value;

use crate::coerce::{items_of, resolve};

/// How deep nested objects and arrays are walked.
const DEPTH: usize = 16;

/// `value` without the write-only values its `schema` marks.
pub(crate) fn scrub(g: &Generator<'static>, doc: &Value, schema: &Value, value: &mut Value) {
    walk(g, doc, schema, value, DEPTH);
}

/// The schema and its `allOf` parts, resolved.
fn parts<'a>(doc: &'a Value, schema: &'a Value, out: &mut Vec<&'a Value>, depth: usize) {
    let s = resolve(doc, schema);
    out.push(s);
    if depth == 0 {
        return;
    }
    for p in s
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        parts(doc, p, out, depth - 1);
    }
}

fn write_only(doc: &Value, schema: &Value) -> bool {
    let mut ps = Vec::new();
    parts(doc, schema, &mut ps, 4);
    ps.iter()
        .any(|p| p.get("writeOnly").and_then(Value::as_bool) == Some(true))
}

/// The branches of `schema`'s `anyOf`/`oneOf`.
fn branches<'a>(doc: &'a Value, schema: &'a Value) -> Vec<&'a Value> {
    let s = resolve(doc, schema);
    ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| s.get(*k).and_then(Value::as_array))
        .flatten()
        .collect()
}

fn walk(g: &Generator<'static>, doc: &Value, schema: &Value, value: &mut Value, depth: usize) {
    if depth == 0 {
        return;
    }
    match value {
        Value::Object(map) => {
            let mut ps = Vec::new();
            parts(doc, schema, &mut ps, 4);
            let required = |k: &str| {
                ps.iter().any(|p| {
                    p.get("required")
                        .and_then(Value::as_array)
                        .is_some_and(|r| r.iter().any(|n| n == k))
                })
            };
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                let Some(prop) = ps
                    .iter()
                    .find_map(|p| p.get("properties").and_then(|m| m.get(&k)))
                else {
                    continue;
                };
                let v = map.get_mut(&k).expect("a key of the map");
                let branches = branches(doc, prop);
                let taken: Vec<&&Value> = branches
                    .iter()
                    .filter(|b| g.validate(b, v).is_ok())
                    .collect();
                let only_write_only = !taken.is_empty() && taken.iter().all(|b| write_only(doc, b));
                if write_only(doc, prop) || only_write_only {
                    let null_ok = branches
                        .iter()
                        .any(|b| !write_only(doc, b) && g.validate(b, &Value::Null).is_ok());
                    if !required(&k) {
                        map.remove(&k);
                    } else if null_ok {
                        *v = Value::Null;
                    }
                    continue;
                }
                walk(g, doc, prop, v, depth - 1);
            }
        }
        Value::Array(items) => {
            if let Some(item) = items_of(doc, schema) {
                for v in items {
                    walk(g, doc, item, v, depth - 1);
                }
            }
        }
        _ => {}
    }
}
