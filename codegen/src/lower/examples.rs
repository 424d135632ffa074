//! Examples checked against their schema, and the keys a 3.0 `$ref` makes void: both are
//! mistakes in a spec that do not stop a correct client, so each is a warning at its node.
//!
//! The check is structural (JSON type, `enum`/`const`, required and closed properties,
//! items, lengths and bounds, `allOf`/`oneOf`/`anyOf`), not a full JSON Schema validator:
//! the `jsonschema` crate would add a large dependency tree to the generator (and to
//! `xtask`, which links it) for a warning, and OpenAPI 3.0 schemas are not JSON Schema
//! (`nullable`) and would need rewriting before it could read them. `pattern` and
//! `format` are not checked.

use serde_json::Value;

use super::Lowerer;
use super::schema::type_names;
use crate::error::push_pointer;
use crate::warning::WarningKind;
use spec_model::model::{AdditionalProperties, Schema};

/// How deep the check follows nested schemas and `$ref`s (a cycle stops here, silently).
const MAX_DEPTH: usize = 32;

impl Lowerer<'_> {
    /// Warns about what a schema node gets wrong without stopping generation: an
    /// `example`/`examples` value that does not fit it, and keys beside a `$ref` in a
    /// 3.0 document.
    pub(super) fn inspect(&mut self, s: &Schema, ptr: &str) {
        self.ref_siblings(s, ptr);
        if let Some(example) = &s.example
            && let Some(why) = self.misfit(s, example, 0)
        {
            self.warn(
                WarningKind::ExampleMismatch,
                push_pointer(ptr, "example"),
                format!("the `example` does not match its schema: {why}"),
            );
        }
        if let Some(Value::Array(examples)) = &s.examples {
            for (i, example) in examples.iter().enumerate() {
                if let Some(why) = self.misfit(s, example, 0) {
                    self.warn(
                        WarningKind::ExampleMismatch,
                        format!("{ptr}/examples/{i}"),
                        format!("this example does not match its schema: {why}"),
                    );
                }
            }
        }
    }

    /// OpenAPI 3.0 says keys beside `$ref` are ignored (3.1 applies them). The generator
    /// ignores those that would change the type, and applies `nullable`, `readOnly`,
    /// `writeOnly` and `default`, which is what an author who writes them means; both
    /// are reported. Documentation keys (`description`, `title`) are used as the
    /// field's rustdoc and are not reported.
    fn ref_siblings(&mut self, s: &Schema, ptr: &str) {
        if s.reference.is_none()
            || !self
                .spec
                .openapi
                .as_deref()
                .is_some_and(|v| v.starts_with("3.0"))
        {
            return;
        }
        let ignored: Vec<&str> = [
            ("type", s.kind.is_some()),
            ("format", s.format.is_some()),
            ("properties", !s.properties.is_empty()),
            ("required", !s.required.is_empty()),
            ("items", s.items.is_some()),
            ("additionalProperties", s.additional_properties.is_some()),
            ("enum", s.enumeration.is_some()),
            ("const", s.constant.is_some()),
            ("allOf", !s.all_of.is_empty()),
            ("oneOf", !s.one_of.is_empty()),
            ("anyOf", !s.any_of.is_empty()),
            ("maxLength", s.max_length.is_some()),
            ("minLength", s.min_length.is_some()),
            ("minimum", s.minimum.is_some()),
            ("maximum", s.maximum.is_some()),
            ("minItems", s.min_items.is_some()),
            ("maxItems", s.max_items.is_some()),
            ("discriminator", s.discriminator.is_some()),
        ]
        .into_iter()
        .filter_map(|(key, set)| set.then_some(key))
        .collect();
        let applied: Vec<&str> = [
            ("nullable", s.nullable),
            ("readOnly", s.read_only),
            ("writeOnly", s.write_only),
            ("default", s.default.is_some()),
        ]
        .into_iter()
        .filter_map(|(key, set)| set.then_some(key))
        .collect();
        let list = |keys: &[&str]| {
            keys.iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !ignored.is_empty() {
            self.warn(
                WarningKind::RefSiblings,
                ptr,
                format!(
                    "OpenAPI 3.0 ignores keys beside `$ref`, and so does the generator: {} \
                     have no effect",
                    list(&ignored)
                ),
            );
        }
        if !applied.is_empty() {
            self.warn(
                WarningKind::RefSiblings,
                ptr,
                format!(
                    "OpenAPI 3.0 ignores keys beside `$ref`, but the generator applies {} \
                     (as 3.1 does)",
                    list(&applied)
                ),
            );
        }
    }

    /// Why `value` does not fit schema `s`, or `None` when it fits (as far as this
    /// structural check sees).
    fn misfit(&self, s: &Schema, value: &Value, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return None;
        }
        if let Some(r) = &s.reference {
            let (target, _) = self.resolve(r, "").ok()?;
            return self.misfit(target, value, depth + 1);
        }
        if let Some(values) = &s.enumeration
            && !values.contains(value)
        {
            return Some(format!("`{value}` is not one of the `enum` values"));
        }
        if let Some(c) = &s.constant
            && c != value
        {
            return Some(format!("`{value}` is not the `const` value `{c}`"));
        }
        let (names, had_null) = type_names(s);
        if value.is_null() {
            let allowed = names.is_empty() || had_null || s.nullable;
            return (!allowed).then(|| "`null` where the schema does not allow it".to_owned());
        }
        if !names.is_empty() && !names.iter().any(|t| is_of_type(value, t)) {
            return Some(format!(
                "{} where the schema says `{}`",
                json_type(value),
                names.join("`, `")
            ));
        }
        for part in &s.all_of {
            if let Some(why) = self.misfit(part, value, depth + 1) {
                return Some(why);
            }
        }
        for (key, branches) in [("oneOf", &s.one_of), ("anyOf", &s.any_of)] {
            if !branches.is_empty()
                && branches
                    .iter()
                    .all(|b| self.misfit(b, value, depth + 1).is_some())
            {
                return Some(format!("`{value}` matches none of the `{key}` branches"));
            }
        }
        match value {
            Value::Object(map) => {
                for name in &s.required {
                    if !map.contains_key(name) {
                        return Some(format!("the required property `{name}` is missing"));
                    }
                }
                for (name, v) in map {
                    let why = match (s.properties.get(name), &s.additional_properties) {
                        (Some(prop), _) => self.misfit(prop, v, depth + 1),
                        (None, Some(AdditionalProperties::Flag(false))) if s.all_of.is_empty() => {
                            Some("a property the schema does not allow".to_owned())
                        }
                        (None, Some(AdditionalProperties::Schema(extra))) => {
                            self.misfit(extra, v, depth + 1)
                        }
                        _ => None,
                    };
                    if let Some(why) = why {
                        return Some(format!("at `{name}`: {why}"));
                    }
                }
                None
            }
            Value::Array(items) => {
                if s.min_items.is_some_and(|n| (items.len() as u64) < n)
                    || s.max_items.is_some_and(|n| (items.len() as u64) > n)
                {
                    return Some(format!(
                        "{} items, outside `minItems`/`maxItems`",
                        items.len()
                    ));
                }
                let item_schema = s.items.as_deref()?;
                items.iter().enumerate().find_map(|(i, item)| {
                    self.misfit(item_schema, item, depth + 1)
                        .map(|why| format!("item {i}: {why}"))
                })
            }
            Value::String(text) => {
                let len = text.chars().count() as u64;
                (s.max_length.is_some_and(|n| len > n) || s.min_length.is_some_and(|n| len < n))
                    .then(|| format!("{len} characters, outside `minLength`/`maxLength`"))
            }
            Value::Number(n) => {
                let x = n.as_f64()?;
                (s.minimum.is_some_and(|m| x < m) || s.maximum.is_some_and(|m| x > m))
                    .then(|| format!("`{n}` is outside `minimum`/`maximum`"))
            }
            _ => None,
        }
    }
}

/// Whether `value` is of JSON Schema type `t`.
fn is_of_type(value: &Value, t: &str) -> bool {
    match (t, value) {
        ("string", Value::String(_))
        | ("boolean", Value::Bool(_))
        | ("object", Value::Object(_))
        | ("array", Value::Array(_))
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|x| x.fract() == 0.0)
        }
        _ => false,
    }
}

/// The JSON type of a value, for messages.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "`null`",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
