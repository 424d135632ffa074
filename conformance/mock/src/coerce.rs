//! Text from a URL, header or form read as the JSON value its schema describes: `7` as a
//! number where the schema takes numbers (`7.0` only where it takes non-integers), `true` as a boolean where it takes booleans,
//! anything else as the string it is. The schema's types are gathered through `$ref`s and
//! the branches of `allOf`/`anyOf`/`oneOf`, so a union of a number and a string reads a
//! number when the text is one; validation then judges the value so read.

use serde_json::{Map, Value};
use spec_model::refs::follow_value;

/// How deep `$ref`s and compositions are followed for types and properties.
const DEPTH: usize = 8;

/// The node behind `schema`'s `$ref`s (itself when there are none or they dangle).
pub(crate) fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    follow_value(doc, schema, "").map_or(schema, |(v, _)| v)
}

/// Every JSON type `schema` may take (`[]`: unconstrained).
pub(crate) fn types_of(doc: &Value, schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    gather_types(doc, schema, DEPTH, &mut out);
    out
}

fn gather_types(doc: &Value, schema: &Value, depth: usize, out: &mut Vec<String>) {
    if depth == 0 {
        return;
    }
    let s = resolve(doc, schema);
    match s.get("type") {
        Some(Value::String(t)) => out.push(t.clone()),
        Some(Value::Array(ts)) => {
            out.extend(ts.iter().filter_map(Value::as_str).map(str::to_owned))
        }
        _ => {}
    }
    if s.get("nullable").and_then(Value::as_bool) == Some(true) {
        out.push("null".to_owned());
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for branch in s.get(key).and_then(Value::as_array).into_iter().flatten() {
            gather_types(doc, branch, depth - 1, out);
        }
    }
    if let Some(values) = s.get("enum").and_then(Value::as_array) {
        out.extend(values.iter().map(|v| json_type(v).to_owned()));
    }
    if let Some(v) = s.get("const") {
        out.push(json_type(v).to_owned());
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Digits, with an optional minus sign: an integer of any size.
fn integer_text(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `text` as the scalar a schema of `types` takes.
pub(crate) fn scalar(text: &str, types: &[String]) -> Value {
    let has = |t: &str| types.iter().any(|x| x == t);
    // An integer's text is digits: `7.0` or `7e0` is a number's text, kept as a string
    // where only integers are taken, so validation refuses it as a server parsing the
    // integer would.
    if (has("integer") || has("number"))
        && let Ok(Value::Number(n)) = serde_json::from_str::<Value>(text.trim())
        && (has("number") || integer_text(text.trim()))
    {
        return Value::Number(n);
    }
    if has("boolean") && (text == "true" || text == "false") {
        return Value::Bool(text == "true");
    }
    // Only `null` reads as null: an empty text is no value of a type that is not a string.
    if has("null") && !has("string") && text == "null" {
        return Value::Null;
    }
    Value::String(text.to_owned())
}

/// The schema of `schema`'s items, through `$ref`s and `allOf`.
pub(crate) fn items_of<'a>(doc: &'a Value, schema: &'a Value) -> Option<&'a Value> {
    let s = resolve(doc, schema);
    s.get("items").or_else(|| {
        s.get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find_map(|b| items_of(doc, b))
    })
}

/// The declared properties of `schema`, through `$ref`s and `allOf`, in order.
pub(crate) fn properties_of<'a>(doc: &'a Value, schema: &'a Value) -> Vec<(&'a str, &'a Value)> {
    let mut out = Vec::new();
    gather_properties(doc, schema, DEPTH, &mut out);
    out
}

fn gather_properties<'a>(
    doc: &'a Value,
    schema: &'a Value,
    depth: usize,
    out: &mut Vec<(&'a str, &'a Value)>,
) {
    if depth == 0 {
        return;
    }
    let s = resolve(doc, schema);
    for (k, v) in s
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if !out.iter().any(|(n, _)| n == k) {
            out.push((k.as_str(), v));
        }
    }
    for b in s
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        gather_properties(doc, b, depth - 1, out);
    }
}

/// `(key, text)` pairs as an object, each value read by its property's schema (several
/// texts under one key: a list, read by the items' schema).
pub(crate) fn object(doc: &Value, schema: &Value, pairs: Vec<(String, String)>) -> Value {
    let props = properties_of(doc, schema);
    let mut map: Map<String, Value> = Map::new();
    for (k, text) in pairs {
        let prop = props.iter().find(|(n, _)| *n == k).map(|(_, s)| *s);
        let takes_list = prop.is_some_and(|p| types_of(doc, p).iter().any(|t| t == "array"));
        let item = match prop {
            Some(p) if takes_list => items_of(doc, p),
            other => other,
        };
        let v = scalar(&text, &item.map(|i| types_of(doc, i)).unwrap_or_default());
        match map.get_mut(&k) {
            Some(Value::Array(list)) if takes_list => list.push(v),
            Some(_) => {}
            None if takes_list => {
                map.insert(k, Value::Array(vec![v]));
            }
            None => {
                map.insert(k, v);
            }
        }
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_becomes_the_type_the_schema_takes() {
        let doc = json!({"components": {"schemas": {"N": {"type": "integer"}}}});
        let ints = types_of(&doc, &json!({"$ref": "#/components/schemas/N"}));
        assert_eq!(scalar("7", &ints), json!(7));
        assert_eq!(scalar("seven", &ints), json!("seven"));
        let union = types_of(
            &doc,
            &json!({"anyOf": [{"type": "boolean"}, {"type": "string"}]}),
        );
        assert_eq!(scalar("true", &union), json!(true));
        assert_eq!(scalar("7", &[]), json!("7"));
    }
}
