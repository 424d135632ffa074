//! Boolean schemas (`true`, `false`), which JSON Schema 2020-12, and so OpenAPI 3.1,
//! allows wherever a schema sits: `true` accepts anything, `false` nothing. The typed
//! model holds schemas as objects, so a 3.1 document that has some is read through a
//! copy where each is the object that means the same to a reader of its values: `true`
//! is `{}`, a property whose schema is `false` (it can never be present) is no property,
//! and any other `false` is `{"not": {}}`. `additionalProperties: false`, which the model
//! reads as a flag, is left as it is. The document itself (which the harness validates
//! with) is not changed.

use serde_json::{Value, json};

/// Keywords whose value is a map of schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is a schema (a boolean one included).
const SCHEMA_VALUES: &[&str] = &[
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
];
/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Rewrites every boolean schema of a whole document; returns how many it rewrote.
pub fn rewrite(document: &mut Value) -> usize {
    let mut count = 0;
    walk(document, &mut count);
    count
}

/// Looks for schemas below a node that is not one: under `schema` keys and in
/// `components.schemas`; examples and extensions are data and are left alone.
fn walk(node: &mut Value, count: &mut usize) {
    match node {
        Value::Object(object) => {
            for (key, child) in object.iter_mut() {
                if matches!(key.as_str(), "example" | "examples" | "default")
                    || key.starts_with("x-")
                {
                    continue;
                }
                if key == "schema" {
                    schema(child, count);
                } else if key == "schemas" {
                    if let Value::Object(schemas) = child {
                        schemas.values_mut().for_each(|s| schema(s, count));
                    }
                } else {
                    walk(child, count);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| walk(i, count)),
        _ => {}
    }
}

/// Rewrites a schema and every schema inside it.
fn schema(node: &mut Value, count: &mut usize) {
    let object = match node {
        Value::Bool(accepts) => {
            *count += 1;
            *node = if *accepts {
                json!({})
            } else {
                json!({"not": {}})
            };
            return;
        }
        Value::Object(object) => object,
        _ => return,
    };
    for key in SCHEMA_MAPS {
        if let Some(Value::Object(map)) = object.get_mut(*key) {
            if *key == "properties" {
                let before = map.len();
                map.retain(|_, s| *s != Value::Bool(false));
                *count += before - map.len();
            }
            map.values_mut().for_each(|s| schema(s, count));
        }
    }
    for key in SCHEMA_VALUES {
        if let Some(child) = object.get_mut(*key) {
            schema(child, count);
        }
    }
    for key in SCHEMA_LISTS {
        if let Some(Value::Array(list)) = object.get_mut(*key) {
            list.iter_mut().for_each(|s| schema(s, count));
        }
    }
    if let Some(extra @ Value::Object(_)) = object.get_mut("additionalProperties") {
        schema(extra, count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boolean_schemas_become_the_objects_that_mean_the_same() {
        let mut doc = json!({
            "openapi": "3.1.0",
            "components": {"schemas": {
                "Any": true,
                "Never": false,
                "Connection": {"type": "object", "additionalProperties": false, "properties": {
                    "id": {"type": "string"},
                    "additionalProperties": false,
                    "tags": {"type": "array", "items": true},
                    "either": {"anyOf": [{"type": "string"}, false]}
                }}
            }},
            "paths": {"/a": {"get": {"responses": {"200": {"description": "ok",
                "content": {"application/json": {"schema": true, "example": false}}}}}}}
        });
        assert_eq!(rewrite(&mut doc), 6);
        let schemas = &doc["components"]["schemas"];
        assert_eq!(schemas["Any"], json!({}));
        assert_eq!(schemas["Never"], json!({"not": {}}));
        let connection = &schemas["Connection"];
        assert_eq!(connection["additionalProperties"], false, "the flag stays");
        assert!(
            connection["properties"]
                .get("additionalProperties")
                .is_none()
        );
        assert_eq!(connection["properties"]["tags"]["items"], json!({}));
        assert_eq!(
            connection["properties"]["either"]["anyOf"][1],
            json!({"not": {}})
        );
        let media = &doc["paths"]["/a"]["get"]["responses"]["200"]["content"]["application/json"];
        assert_eq!(media["schema"], json!({}));
        assert_eq!(media["example"], false, "examples are data");
    }
}
