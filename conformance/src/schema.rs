//! Response validation with the `jsonschema` crate. Each response schema is compiled with
//! the spec's `components` beside it so that `#/components/...` references resolve, and
//! with explicit integer ranges for `int32`/`int64`, which JSON Schema itself ignores.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::error::HarnessError;
use crate::spec::Spec;

/// Compiled validators keyed by (operationId, status, media type).
pub struct Validators {
    compiled: HashMap<(String, String, String), jsonschema::Validator>,
}

impl Validators {
    /// Compiles every response schema of the spec.
    pub fn compile(spec: &Spec) -> Result<Validators, HarnessError> {
        let mut components = spec.doc.get("components").cloned().unwrap_or(json!({}));
        inject_integer_ranges(&mut components);
        let mut compiled = HashMap::new();
        for op in &spec.operations {
            for resp in &op.responses {
                for (mime, schema) in &resp.content {
                    let Some(schema) = schema else { continue };
                    let mut root = schema.clone();
                    inject_integer_ranges(&mut root);
                    let Value::Object(map) = &mut root else {
                        return Err(HarnessError::Schema {
                            operation: op.id.clone(),
                            status: resp.status.clone(),
                            problem: "is not an object".into(),
                        });
                    };
                    map.insert("components".into(), components.clone());
                    let validator =
                        jsonschema::draft202012::options()
                            .build(&root)
                            .map_err(|e| HarnessError::Schema {
                                operation: op.id.clone(),
                                status: resp.status.clone(),
                                problem: format!("does not compile: {e}"),
                            })?;
                    compiled.insert(
                        (op.id.clone(), resp.status.clone(), mime.clone()),
                        validator,
                    );
                }
            }
        }
        Ok(Validators { compiled })
    }

    /// Validates a body; `None` when no schema is declared for that response and type.
    /// Errors are listed by instance path, at most five, so reports stay bounded.
    pub fn validate(
        &self,
        op: &str,
        status: &str,
        mime: &str,
        body: &Value,
    ) -> Option<Result<(), String>> {
        let v = self
            .compiled
            .get(&(op.to_string(), status.to_string(), mime.to_string()))?;
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
}
