//! Response validation with the `jsonschema` crate, against each schema as its OpenAPI
//! version means it: the document is translated to plain JSON Schema 2020-12 by the value
//! generator's dialect module (`schema_values::dialect`), so that an OpenAPI 3.0
//! `nullable: true` admits `null`, a boolean `exclusiveMinimum` bounds its `minimum`,
//! siblings of a `$ref` are ignored, `int32`/`int64` carry their ranges, and a `writeOnly`
//! property is not required in an answer. Judged by plain JSON Schema, a 3.0 answer with a
//! `null` where the spec allows one would fail as the target's fault.
//!
//! The translated document is registered once, when the first answer needs it, and a
//! schema is compiled when an answer first needs it, once for every response that declares
//! the same schema: compiling all of a large spec's schemas up front took seconds before
//! the first request was sent.

use std::collections::HashMap;
use std::sync::OnceLock;

use jsonschema::{Draft, Registry};
use schema_values::Direction;
use schema_values::dialect::{DOC_URI, Dialect, to_json_schema, translate_document};
use serde_json::Value;

use crate::error::HarnessError;
use crate::spec::Spec;

/// Response schemas keyed by (operation, status, media type), each compiled on first use.
pub struct Validators {
    /// The spec's document, as written.
    doc: Value,
    /// Its OpenAPI version, as far as schemas are concerned.
    dialect: Dialect,
    /// The document translated for answers, registered for `$ref`s; built on first use.
    registry: OnceLock<Result<Registry<'static>, String>>,
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
            doc: spec.doc.clone(),
            dialect: Dialect::of(&spec.doc),
            registry: OnceLock::new(),
            keys,
            schemas,
        })
    }

    /// The translated document, registered (once) so that every `$ref` resolves in it.
    fn registry(&self) -> &Result<Registry<'static>, String> {
        self.registry.get_or_init(|| {
            let translated = translate_document(&self.doc, self.dialect, Direction::Response);
            Registry::new()
                .add(DOC_URI, Draft::Draft202012.create_resource(translated))
                .and_then(|b| b.prepare())
                .map_err(|e| e.to_string())
        })
    }

    /// The validator of one schema, compiled now if no answer needed it before.
    fn validator(&self, index: usize) -> &Result<jsonschema::Validator, String> {
        let lazy = &self.schemas[index];
        lazy.compiled.get_or_init(|| {
            let built = self
                .registry()
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|registry| {
                    let root =
                        to_json_schema(&lazy.schema, &self.doc, self.dialect, Direction::Response);
                    // Formats are asserted, as Schemathesis does: an answer whose
                    // `date-time` is no date, or whose `oneOf` branches differ only by
                    // format, is judged by what the spec says rather than by its shape.
                    jsonschema::draft202012::options()
                        .should_validate_formats(true)
                        .with_registry(registry)
                        .build(&root)
                        .map_err(|e| e.to_string())
                });
            // Said once, when first needed: the spec's fault, so no answer fails for it,
            // and no answer passes it either.
            if let Err(e) = &built {
                eprintln!(
                    "warning: the response schema of {} does not compile ({e}); answers are \
                     not checked against it",
                    lazy.first
                );
            }
            built
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
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

    #[test]
    fn an_openapi_3_0_schema_is_judged_as_3_0_means_it() {
        let spec = Spec::parse(
            r##"
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /things:
    get:
      operationId: list
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: array
                items: {$ref: "#/components/schemas/Thing"}
components:
  schemas:
    Thing:
      type: object
      required: [id, note]
      properties:
        id: {type: integer, format: int32, minimum: 0, exclusiveMinimum: true}
        note: {type: string, nullable: true}
        name: {type: string}
"##,
        )
        .unwrap();
        let v = Validators::compile(&spec).unwrap();
        let check = |body: Value| {
            v.validate("list", "200", "application/json", &body)
                .unwrap()
        };
        // `nullable: true` admits null in 3.0; plain JSON Schema would not.
        assert_eq!(check(json!([{"id": 1, "note": null}])), Ok(()));
        // Without it, null is still wrong.
        assert!(check(json!([{"id": 1, "note": "x", "name": null}])).is_err());
        // The boolean exclusiveMinimum of 3.0 makes 0 out of range.
        assert!(check(json!([{"id": 0, "note": "x"}])).is_err());
        // int32's range.
        assert!(check(json!([{"id": 2147483648i64, "note": "x"}])).is_err());
    }
}
