//! Response validation with the `jsonschema` crate. Each response schema is compiled with
//! the spec's `components` beside it so that `#/components/...` references resolve, and
//! with explicit integer ranges for `int32`/`int64`, which JSON Schema itself ignores.
//!
//! A schema is compiled when an answer first needs it, and once for every response that
//! declares the same schema: compiling all of a large spec's schemas up front (each with
//! the whole `components` beside it) took seconds before the first request was sent.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::error::HarnessError;
use crate::spec::Spec;

/// Response schemas keyed by (operation, status, media type), each compiled on first use.
pub struct Validators {
    /// The spec's `components`, integer ranges added, beside every compiled schema.
    components: Value,
    /// (operation, status, media type) → index into `schemas`.
    keys: HashMap<(String, String, String), usize>,
    /// Distinct schemas, each compiled at most once.
    schemas: Vec<Lazy>,
}

/// One distinct schema and its validator once built (or why it cannot be).
struct Lazy {
    /// The first response declaring it, as `operation status media-type`.
    first: String,
    schema: Value,
    compiled: OnceLock<Result<jsonschema::Validator, String>>,
}

impl Validators {
    /// Gathers every response schema of the spec; none is compiled yet, so nothing can
    /// fail here (the `Result` is kept for callers that compiled eagerly before).
    pub fn compile(spec: &Spec) -> Result<Validators, HarnessError> {
        let mut components = spec.doc.get("components").cloned().unwrap_or(json!({}));
        inject_integer_ranges(&mut components);
        let mut keys = HashMap::new();
        let mut schemas = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        for op in &spec.operations {
            for resp in &op.responses {
                for (mime, schema) in &resp.content {
                    let Some(schema) = schema else { continue };
                    let index = *seen.entry(schema.to_string()).or_insert_with(|| {
                        schemas.push(Lazy {
                            first: format!("{} {} {mime}", op.id, resp.status),
                            schema: schema.clone(),
                            compiled: OnceLock::new(),
                        });
                        schemas.len() - 1
                    });
                    keys.insert((op.id.clone(), resp.status.clone(), mime.clone()), index);
                }
            }
        }
        Ok(Validators {
            components,
            keys,
            schemas,
        })
    }

    /// The validator of one schema, compiled now if no answer needed it before.
    fn validator(&self, index: usize) -> &Result<jsonschema::Validator, String> {
        let lazy = &self.schemas[index];
        lazy.compiled.get_or_init(|| {
            let mut root = lazy.schema.clone();
            inject_integer_ranges(&mut root);
            // A boolean schema (`true`: anything) needs no components, and has no room.
            if let Value::Object(map) = &mut root {
                map.insert("components".into(), self.components.clone());
            }
            jsonschema::draft202012::options()
                .build(&root)
                .map_err(|e| {
                    // Said once, when first needed: the spec's fault, so no answer fails
                    // for it, and no answer passes it either.
                    eprintln!(
                        "warning: the response schema of {} does not compile ({e}); answers \
                         are not checked against it",
                        lazy.first
                    );
                    e.to_string()
                })
        })
    }

    /// Validates a body; `None` when no schema is declared for that response and type, or
    /// when the declared one cannot be compiled.
    /// Errors are listed by instance path, at most five, so reports stay bounded.
    pub fn validate(
        &self,
        op: &str,
        status: &str,
        mime: &str,
        body: &Value,
    ) -> Option<Result<(), String>> {
        let index = *self
            .keys
            .get(&(op.to_string(), status.to_string(), mime.to_string()))?;
        // A schema the validator cannot compile (an unsupported `pattern`, a keyword of
        // the wrong type) checks nothing: the answer is not judged by it.
        let v = self.validator(index).as_ref().ok()?;
        let errors: Vec<String> = v
            .iter_errors(body)
            .take(5)
            .map(|e| {
                let path = e.instance_path().to_string();
                format!("{}: {e}", if path.is_empty() { "/" } else { &path })
            })
            .collect();
        Some(if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("; "))
        })
    }
}

/// Adds `minimum`/`maximum` to integer schemas with an `int32`/`int64` format.
fn inject_integer_ranges(v: &mut Value) {
    match v {
        Value::Object(m) => {
            let is_int = m.get("type").and_then(Value::as_str) == Some("integer");
            let range = match m.get("format").and_then(Value::as_str) {
                Some("int32") => Some((i64::from(i32::MIN), i64::from(i32::MAX))),
                Some("int64") => Some((i64::MIN, i64::MAX)),
                _ => None,
            };
            if let (true, Some((lo, hi))) = (is_int, range) {
                m.entry("minimum").or_insert(json!(lo));
                m.entry("maximum").or_insert(json!(hi));
            }
            m.values_mut().for_each(inject_integer_ranges);
        }
        Value::Array(a) => a.iter_mut().for_each(inject_integer_ranges),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn validators() -> Validators {
        let spec = Spec::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.yaml"))
            .unwrap();
        Validators::compile(&spec).unwrap()
    }

    #[test]
    fn checks_refs_enums_required_and_integer_ranges() {
        let v = validators();
        let ok =
            json!([{"active": true, "totalBy": "Contract", "riskCategoryId": 1, "shortLimit": 5}]);
        assert_eq!(
            v.validate("listCategoryPositionLimits", "200", "application/json", &ok),
            Some(Ok(()))
        );
        let bad_enum = json!([{"active": true, "totalBy": "Contracts", "riskCategoryId": 1}]);
        assert!(
            v.validate(
                "listCategoryPositionLimits",
                "200",
                "application/json",
                &bad_enum
            )
            .unwrap()
            .is_err()
        );
        let missing = json!([{"active": true, "riskCategoryId": 1}]);
        assert!(
            v.validate(
                "listCategoryPositionLimits",
                "200",
                "application/json",
                &missing
            )
            .unwrap()
            .is_err()
        );
        let overflow = json!([{"active": true, "totalBy": "Contract", "riskCategoryId": 1, "shortLimit": 2147483648i64}]);
        let err = v
            .validate(
                "listCategoryPositionLimits",
                "200",
                "application/json",
                &overflow,
            )
            .unwrap()
            .unwrap_err();
        assert!(err.contains("shortLimit"), "{err}");
        let err_body = json!({"errorText": 5});
        assert!(
            v.validate(
                "getCategoryPositionLimit",
                "404",
                "application/json",
                &err_body
            )
            .unwrap()
            .is_err()
        );
        assert!(
            v.validate(
                "getCategoryPositionLimit",
                "418",
                "application/json",
                &err_body
            )
            .is_none()
        );
    }

    #[test]
    fn a_schema_shared_by_responses_is_compiled_once_and_only_when_used() {
        let spec = Spec::parse(
            r##"
openapi: 3.0.2
info: { title: t, version: "1" }
paths:
  /a:
    get:
      responses:
        "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/E" } } } }
        "404": { description: no, content: { application/json: { schema: { $ref: "#/components/schemas/E" } } } }
  /b:
    get:
      responses:
        "200": { description: ok, content: { application/json: { schema: { type: string, pattern: "(?<=a)b[" } } } }
components:
  schemas:
    E: { type: object, required: [error], properties: { error: { type: string } } }
"##,
        )
        .unwrap();
        let v = Validators::compile(&spec).unwrap();
        assert_eq!((v.keys.len(), v.schemas.len()), (3, 2));
        assert!(v.schemas.iter().all(|s| s.compiled.get().is_none()));
        assert!(
            v.validate("get_a", "404", "application/json", &json!({}))
                .unwrap()
                .is_err()
        );
        assert!(v.schemas[0].compiled.get().is_some());
        assert_eq!(
            v.validate("get_a", "200", "application/json", &json!({"error": "x"})),
            Some(Ok(()))
        );
        // A pattern the regex engine refuses: the body is not judged by that schema.
        assert_eq!(
            v.validate("get_b", "200", "application/json", &json!("b")),
            None
        );
    }
}
