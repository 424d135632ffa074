//! What a schema means in its OpenAPI version, written out as plain JSON Schema 2020-12 so
//! that the `jsonschema` crate judges values as the document intends.
//!
//! OpenAPI 3.0 differs from JSON Schema where it matters for values: `nullable: true` adds
//! `null` to the declared `type` (OpenAPI 3.0.3 gives it effect only there; beside no
//! `type` but a combinator, as in `{nullable: true, allOf: [{$ref}]}`, it admits null too,
//! as this project's client generator and Schemathesis read it);
//! a schema whose `enum` lists only `null` means null, whatever `type` it names (3.0 has
//! no `null` type: dropshot writes Rust's `()` as `{type: string, enum: [null]}`, and the
//! generator reads it as `()` too); `exclusiveMinimum`/`exclusiveMaximum` are booleans modifying `minimum`/`maximum`; and
//! siblings of `$ref` are ignored. Both versions give `int32`/`int64` their ranges, which
//! JSON Schema itself ignores. `readOnly` properties are not required in requests and
//! `writeOnly` ones not in responses (OpenAPI 3.0's rule, applied to 3.1 documents too).

use serde_json::{Map, Value, json};

use crate::Direction;

/// Keywords that say something of a node without constraining its value.
const ANNOTATIONS: &[&str] = &[
    "default",
    "description",
    "title",
    "example",
    "examples",
    "readOnly",
    "writeOnly",
    "deprecated",
];

/// Whether a node's value is decided by other schemas (a combinator; a 3.0 `$ref` with
/// siblings never reaches here, its siblings being ignored).
fn composes(node: &Map<String, Value>) -> bool {
    ["$ref", "allOf", "oneOf", "anyOf"]
        .iter()
        .any(|k| node.contains_key(*k))
}

/// The base URI under which the translated document is registered for validation; a
/// document-local `$ref` (`#/...`) is rewritten to it.
pub const DOC_URI: &str = "urn:schema-values:document";

/// The OpenAPI version of a document, as far as schemas are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// OpenAPI 3.0.x (and Swagger 2.0, whose schemas read the same way here).
    OpenApi30,
    /// OpenAPI 3.1.x: schemas are JSON Schema 2020-12.
    OpenApi31,
}

impl Dialect {
    /// The dialect named by the document's `openapi` field; 3.1 unless it says 3.0 (or is
    /// a Swagger 2.0 document).
    pub fn of(doc: &Value) -> Dialect {
        match doc.get("openapi").and_then(Value::as_str) {
            Some(v) if v.starts_with("3.0") => Dialect::OpenApi30,
            None if doc.get("swagger").is_some() => Dialect::OpenApi30,
            _ => Dialect::OpenApi31,
        }
    }
}

/// Keywords whose value is one schema.
const ONE_SCHEMA: &[&str] = &[
    "additionalProperties",
    "items",
    "additionalItems",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "unevaluatedItems",
];
/// Keywords whose value is an array of schemas.
const SCHEMA_LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to schemas.
const SCHEMA_MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// `schema` as JSON Schema 2020-12 meaning what it means in `dialect` for `direction`, with
/// document-local references pointing into the registered document ([`DOC_URI`]).
pub fn to_json_schema(
    schema: &Value,
    doc: &Value,
    dialect: Dialect,
    direction: Direction,
) -> Value {
    Translator {
        doc,
        dialect,
        direction,
    }
    .schema(schema)
}

/// The whole document with every schema in it translated (component schemas, and every
/// `schema` of a parameter, header or media type), for registration under [`DOC_URI`].
pub fn translate_document(doc: &Value, dialect: Dialect, direction: Direction) -> Value {
    let t = Translator {
        doc,
        dialect,
        direction,
    };
    let mut out = doc.clone();
    if let Some(schemas) = out
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for s in schemas.values_mut() {
            *s = t.schema(s);
        }
    }
    if let Some(defs) = out.get_mut("definitions").and_then(Value::as_object_mut) {
        for s in defs.values_mut() {
            *s = t.schema(s);
        }
    }
    for key in ["paths", "webhooks"] {
        if let Some(v) = out.get_mut(key) {
            t.schema_fields(v);
        }
    }
    if let Some(Value::Object(c)) = out.get_mut("components") {
        for (k, v) in c.iter_mut() {
            if k != "schemas" {
                t.schema_fields(v);
            }
        }
    }
    out
}

/// Whether a property's schema is `readOnly` (`writeOnly` when `flag` says so), on itself,
/// beside or behind its `$ref`, or in an `allOf` part.
pub(crate) fn has_flag(schema: &Value, doc: &Value, flag: &str, depth: usize) -> bool {
    if depth > 8 {
        return false;
    }
    let Some(map) = schema.as_object() else {
        return false;
    };
    if map.get(flag) == Some(&Value::Bool(true)) {
        return true;
    }
    if let Some(target) = map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|p| doc.pointer(p))
        && has_flag(target, doc, flag, depth + 1)
    {
        return true;
    }
    map.get("allOf")
        .and_then(Value::as_array)
        .is_some_and(|parts| parts.iter().any(|p| has_flag(p, doc, flag, depth + 1)))
}

/// The flag a direction leaves out.
pub(crate) fn hidden_flag(direction: Direction) -> &'static str {
    match direction {
        Direction::Request => "readOnly",
        Direction::Response => "writeOnly",
    }
}

struct Translator<'a> {
    doc: &'a Value,
    dialect: Dialect,
    direction: Direction,
}

impl Translator<'_> {
    /// Translates the value of every `schema` key found under `v` (parameters, headers,
    /// media types), leaving everything else as it is.
    fn schema_fields(&self, v: &mut Value) {
        match v {
            Value::Object(m) => {
                for (k, child) in m.iter_mut() {
                    if k == "schema" && (child.is_object() || child.is_boolean()) {
                        *child = self.schema(child);
                    } else if k != "example" && k != "examples" {
                        self.schema_fields(child);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|c| self.schema_fields(c)),
            _ => {}
        }
    }

    fn schema(&self, schema: &Value) -> Value {
        let Some(map) = schema.as_object() else {
            return schema.clone();
        };
        if let Some(r) = map.get("$ref").and_then(Value::as_str) {
            let target = if r.starts_with('#') {
                format!("{DOC_URI}{r}")
            } else {
                r.to_string()
            };
            if self.dialect == Dialect::OpenApi30 {
                // OpenAPI 3.0: "This object cannot be extended with additional properties
                // and any properties added SHALL be ignored."
                return json!({ "$ref": target });
            }
            let mut out = self.keywords(map);
            out.insert("$ref".into(), Value::String(target));
            return Value::Object(out);
        }
        Value::Object(self.keywords(map))
    }

    fn keywords(&self, map: &Map<String, Value>) -> Map<String, Value> {
        let mut out = Map::new();
        for (k, v) in map {
            let t = if ONE_SCHEMA.contains(&k.as_str()) && (v.is_object() || v.is_boolean()) {
                self.schema(v)
            } else if SCHEMA_LIST.contains(&k.as_str()) && v.is_array() {
                Value::Array(
                    v.as_array()
                        .into_iter()
                        .flatten()
                        .map(|s| self.schema(s))
                        .collect(),
                )
            } else if k == "items" && v.is_array() {
                // Draft 4 tuple form, seen in some 3.0 documents.
                Value::Array(
                    v.as_array()
                        .into_iter()
                        .flatten()
                        .map(|s| self.schema(s))
                        .collect(),
                )
            } else if SCHEMA_MAP.contains(&k.as_str()) && v.is_object() {
                Value::Object(
                    v.as_object()
                        .into_iter()
                        .flatten()
                        .map(|(n, s)| (n.clone(), self.schema(s)))
                        .collect(),
                )
            } else {
                v.clone()
            };
            out.insert(k.clone(), t);
        }
        self.bounds(&mut out);
        if self.dialect == Dialect::OpenApi30 {
            let nullable = out.remove("nullable") == Some(Value::Bool(true));
            if nullable && let Some(Value::String(t)) = out.get("type").cloned() {
                out.insert("type".into(), json!([t, "null"]));
            } else if nullable && !out.contains_key("type") && composes(&out) {
                // `nullable` beside a composition and no `type` (`{nullable: true,
                // allOf: [{$ref}]}`, how schemars and others write an optional reference):
                // 3.0.3's text gives it no effect, but its writers send null there, and
                // its readers (this project's client generator: an `Option`;
                // Schemathesis) admit null, so the judges do too. The null branch goes last and the
                // annotations (`default`, …) stay on the node, so a reader taking the
                // first branch's kind or the node's default reads what it read before.
                self.integer_range(&mut out);
                self.required(map, &mut out);
                let mut wrapped = Map::new();
                for key in ANNOTATIONS {
                    if let Some(v) = out.remove(*key) {
                        wrapped.insert((*key).to_owned(), v);
                    }
                }
                wrapped.insert(
                    "anyOf".into(),
                    json!([Value::Object(out), {"type": "null"}]),
                );
                return wrapped;
            }
            if let Some(Value::Array(e)) = out.get("enum")
                && null_only(e)
            {
                out.insert("type".into(), json!("null"));
            }
        }
        self.integer_range(&mut out);
        self.required(map, &mut out);
        out
    }

    /// The boolean `exclusiveMinimum`/`exclusiveMaximum` of 3.0 (also met in 3.1
    /// documents written the old way) as the numeric form.
    fn bounds(&self, out: &mut Map<String, Value>) {
        for (excl, plain) in [
            ("exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "maximum"),
        ] {
            if let Some(Value::Bool(b)) = out.get(excl).cloned() {
                out.remove(excl);
                if b && let Some(limit) = out.remove(plain) {
                    out.insert(excl.into(), limit);
                }
            }
        }
    }

    /// `int32`/`int64` integers get their ranges, beside any declared bounds.
    fn integer_range(&self, out: &mut Map<String, Value>) {
        let integer = match out.get("type") {
            Some(Value::String(t)) => t == "integer",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
            _ => false,
        };
        let range = match out.get("format").and_then(Value::as_str) {
            Some("int32") => json!({"minimum": i32::MIN, "maximum": i32::MAX}),
            Some("int64") => json!({"minimum": i64::MIN, "maximum": i64::MAX}),
            _ => return,
        };
        if integer {
            let all = out.entry("allOf").or_insert_with(|| json!([]));
            if let Value::Array(parts) = all {
                parts.push(range);
            }
        }
    }

    /// A property hidden in this direction is not required.
    fn required(&self, original: &Map<String, Value>, out: &mut Map<String, Value>) {
        let (Some(Value::Array(req)), Some(Value::Object(props))) =
            (original.get("required"), original.get("properties"))
        else {
            return;
        };
        let flag = hidden_flag(self.direction);
        let kept: Vec<Value> = req
            .iter()
            .filter(|name| {
                name.as_str()
                    .and_then(|n| props.get(n))
                    .is_none_or(|p| !has_flag(p, self.doc, flag, 0))
            })
            .cloned()
            .collect();
        out.insert("required".into(), Value::Array(kept));
    }
}

/// Whether an `enum` lists `null` and nothing else.
pub(crate) fn null_only(values: &[Value]) -> bool {
    !values.is_empty() && values.iter().all(Value::is_null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_enum_of_only_null_is_null_in_3_0_and_as_written_in_3_1() {
        let s = json!({"title": "Null", "type": "string", "enum": [null]});
        let doc = json!({"openapi": "3.0.3"});
        let t = to_json_schema(&s, &doc, Dialect::of(&doc), Direction::Response);
        assert_eq!(t["type"], json!("null"));
        // A null beside other values, and any 3.1 schema, keep their `type`.
        let mixed = json!({"type": "string", "enum": ["a", null]});
        let t = to_json_schema(&mixed, &doc, Dialect::of(&doc), Direction::Response);
        assert_eq!(t["type"], json!("string"));
        let doc = json!({"openapi": "3.1.0"});
        let t = to_json_schema(&s, &doc, Dialect::of(&doc), Direction::Response);
        assert_eq!(t["type"], json!("string"));
    }

    #[test]
    fn nullable_beside_a_combinator_admits_null_in_3_0_only() {
        let s = json!({"nullable": true, "allOf": [{"type": "object", "required": ["a"]}]});
        let judge = |version: &str, v: &Value| {
            let doc = json!({"openapi": version});
            let t = to_json_schema(&s, &doc, Dialect::of(&doc), Direction::Request);
            jsonschema::validator_for(&t).unwrap().is_valid(v)
        };
        assert!(judge("3.0.3", &Value::Null));
        assert!(judge("3.0.3", &json!({"a": 1})));
        assert!(!judge("3.0.3", &json!({})));
        assert!(!judge("3.1.0", &Value::Null), "3.1 has no `nullable`");
        let s = json!({"nullable": true, "default": 3, "allOf": [{"type": "integer"}]});
        let doc = json!({"openapi": "3.0.3"});
        let t = to_json_schema(&s, &doc, Dialect::of(&doc), Direction::Request);
        assert_eq!(t["default"], json!(3), "the default stays on the node");
        assert_eq!(
            t["anyOf"][1],
            json!({"type": "null"}),
            "null goes last: {t}"
        );
    }

    #[test]
    fn nullable_and_exclusive_bounds_of_3_0() {
        let doc = json!({"openapi": "3.0.3"});
        let s = json!({"type": "integer", "format": "int32", "nullable": true,
                       "minimum": 0, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false});
        let t = to_json_schema(&s, &doc, Dialect::of(&doc), Direction::Request);
        assert_eq!(
            t,
            json!({"type": ["integer", "null"], "format": "int32", "exclusiveMinimum": 0,
                   "allOf": [{"minimum": i32::MIN, "maximum": i32::MAX}]})
            .as_object()
            .map(|m| {
                let mut m = m.clone();
                m.insert("maximum".into(), json!(9));
                Value::Object(m)
            })
            .unwrap()
        );
    }

    #[test]
    fn ref_siblings_ignored_in_3_0_kept_in_3_1() {
        let s = json!({"$ref": "#/components/schemas/A", "maxLength": 3});
        let d30 = json!({"openapi": "3.0.0"});
        let d31 = json!({"openapi": "3.1.0"});
        assert_eq!(
            to_json_schema(&s, &d30, Dialect::of(&d30), Direction::Request),
            json!({"$ref": format!("{DOC_URI}#/components/schemas/A")})
        );
        assert_eq!(
            to_json_schema(&s, &d31, Dialect::of(&d31), Direction::Request)["maxLength"],
            json!(3)
        );
    }

    #[test]
    fn read_only_is_not_required_in_requests() {
        let doc = json!({"openapi": "3.1.0", "components": {"schemas": {
            "Id": {"type": "string", "readOnly": true}}}});
        let s = json!({"type": "object", "required": ["id", "name", "secret"], "properties": {
            "id": {"$ref": "#/components/schemas/Id"}, "name": {"type": "string"},
            "secret": {"type": "string", "writeOnly": true}}});
        let req = to_json_schema(&s, &doc, Dialect::OpenApi31, Direction::Request);
        assert_eq!(req["required"], json!(["name", "secret"]));
        let resp = to_json_schema(&s, &doc, Dialect::OpenApi31, Direction::Response);
        assert_eq!(resp["required"], json!(["id", "name"]));
    }
}
