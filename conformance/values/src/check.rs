//! Validation with the `jsonschema` crate, formats asserted, against schemas translated to
//! what the document means ([`crate::dialect`]). The translated document is registered
//! once; each schema checked is compiled once and kept.

use std::collections::HashMap;
use std::sync::Arc;

use jsonschema::{Draft, Registry, Validator};
use serde_json::Value;

use crate::Direction;
use crate::dialect::{DOC_URI, Dialect, to_json_schema, translate_document};

/// One failed keyword of a validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The JSON Schema keyword that rejected the value (`type`, `required`, ...).
    pub keyword: String,
    /// JSON pointer, in the value, of the rejected part.
    pub instance_path: String,
    /// The validator's message.
    pub message: String,
}

pub(crate) struct Checker {
    doc: Value,
    dialect: Dialect,
    direction: Direction,
    registry: Result<Registry<'static>, String>,
    cache: HashMap<String, Result<Arc<Validator>, String>>,
}

impl Checker {
    pub fn new(doc: &Value, dialect: Dialect, direction: Direction) -> Checker {
        let translated = translate_document(doc, dialect, direction);
        let registry = Registry::new()
            .add(DOC_URI, Draft::Draft202012.create_resource(translated))
            .and_then(|b| b.prepare())
            .map_err(|e| format!("the document cannot be registered for validation: {e}"));
        Checker {
            doc: doc.clone(),
            dialect,
            direction,
            registry,
            cache: HashMap::new(),
        }
    }

    /// The compiled validator of `schema`, cached under `key` (its pointer in the document)
    /// or, for a schema from elsewhere, under its text.
    pub fn validator(
        &mut self,
        schema: &Value,
        key: Option<&str>,
    ) -> Result<Arc<Validator>, String> {
        let key = key.map_or_else(|| format!("text:{schema}"), |k| format!("ptr:{k}"));
        if let Some(v) = self.cache.get(&key) {
            return v.clone();
        }
        let built = match &self.registry {
            Err(e) => Err(e.clone()),
            Ok(registry) => {
                let translated = to_json_schema(schema, &self.doc, self.dialect, self.direction);
                jsonschema::draft202012::options()
                    .should_validate_formats(true)
                    .with_registry(registry)
                    .build(&translated)
                    .map(Arc::new)
                    .map_err(|e| format!("the schema does not compile for validation: {e}"))
            }
        };
        self.cache.insert(key, built.clone());
        built
    }

    /// `Ok` when `value` is valid for `schema`, else the first error.
    pub fn validate(
        &mut self,
        schema: &Value,
        key: Option<&str>,
        value: &Value,
    ) -> Result<(), String> {
        let v = self.validator(schema, key)?;
        first_error(&v, value)
    }

    /// Whether `value` is valid (`None` when the schema cannot be compiled).
    pub fn is_valid(&mut self, schema: &Value, key: Option<&str>, value: &Value) -> Option<bool> {
        self.validator(schema, key).ok().map(|v| v.is_valid(value))
    }

    /// Every failed keyword, with those inside `oneOf`/`anyOf` branches, flattened.
    pub fn failures(
        &mut self,
        schema: &Value,
        key: Option<&str>,
        value: &Value,
    ) -> Result<Vec<Failure>, String> {
        let v = self.validator(schema, key)?;
        Ok(all_failures(&v, value))
    }

    /// The schema node of the first failed keyword: its pointer in the document, or, with a
    /// leading `+`, its pointer relative to `schema`.
    pub fn failing_node(
        &mut self,
        schema: &Value,
        key: Option<&str>,
        value: &Value,
    ) -> Option<(String, String)> {
        let v = self.validator(schema, key).ok()?;
        let e = v.iter_errors(value).next()?;
        // In the document when the keyword sits behind a `$ref` (its absolute location
        // is in the registered document), else relative to the schema compiled.
        let absolute = e
            .absolute_keyword_location()
            .map(|u| u.as_str().to_string())
            .filter(|u| u.starts_with(DOC_URI))
            .and_then(|u| {
                u.split_once('#')
                    .map(|(_, p)| crate::flat::percent_decode(p))
            });
        let (in_doc, keyword) = match absolute {
            Some(p) => (true, p),
            None => (false, e.schema_path().to_string()),
        };
        let node = keyword
            .rsplit_once('/')
            .map_or(String::new(), |(n, _)| n.to_string());
        let node = if in_doc { node } else { format!("+{node}") };
        Some((node, format!("{}: {e}", e.instance_path())))
    }
}

/// `Ok` when `value` is valid for `v`, else the first error with where it is.
pub(crate) fn first_error(v: &Validator, value: &Value) -> Result<(), String> {
    match v.iter_errors(value).next() {
        None => Ok(()),
        Some(e) => {
            let path = e.instance_path().to_string();
            Err(format!(
                "{}: {e}",
                if path.is_empty() { "/" } else { &path }
            ))
        }
    }
}

/// Every failed keyword of `value` under `v`, those inside `oneOf`/`anyOf` included.
pub(crate) fn all_failures(v: &Validator, value: &Value) -> Vec<Failure> {
    let mut out = Vec::new();
    for e in v.iter_errors(value) {
        collect(&e, &mut out);
    }
    out
}

fn collect(e: &jsonschema::ValidationError<'_>, out: &mut Vec<Failure>) {
    use jsonschema::error::ValidationErrorKind as K;
    out.push(Failure {
        keyword: e.kind().keyword().to_string(),
        instance_path: e.instance_path().to_string(),
        message: e.to_string(),
    });
    match e.kind() {
        K::AnyOf { context } | K::OneOfNotValid { context } | K::OneOfMultipleValid { context } => {
            for branch in context {
                for inner in branch {
                    collect(inner, out);
                }
            }
        }
        K::PropertyNames { error } => collect(error, out),
        _ => {}
    }
}
