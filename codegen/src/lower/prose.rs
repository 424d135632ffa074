//! Prose that is not a string (`title`, `summary`, `description`) on `info` and on every
//! schema of the document: each is a warning at its pointer and is left out of the
//! documentation, since documentation is all it would have given. Paths, operations,
//! parameters, bodies and responses check their own prose where they are lowered.

use super::Lowerer;
use crate::error::push_pointer;
use crate::warning::WarningKind;
use indexmap::IndexMap;
use spec_model::model::{AdditionalProperties, MediaType, Parameter, Schema, Text};

/// What a non-string prose field gives.
const NOT_A_STRING: &str = "not a string; left out of the documentation";

impl Lowerer<'_> {
    /// Warns of every non-string prose field of `info` and of every schema.
    pub(super) fn check_prose(&mut self) {
        let spec = self.spec;
        let info = &spec.info;
        for (field, value) in [
            ("title", &info.title),
            ("summary", &info.summary),
            ("description", &info.description),
        ] {
            self.prose(value.as_ref(), &push_pointer("/info", field));
        }
        let c = &spec.components;
        for (key, s) in &c.schemas {
            self.schema_prose(s, &push_pointer("/components/schemas", key));
        }
        for (key, p) in &c.parameters {
            self.parameter_prose(p, &push_pointer("/components/parameters", key));
        }
        for (key, b) in &c.request_bodies {
            self.content_prose(&b.content, &push_pointer("/components/requestBodies", key));
        }
        for (key, r) in &c.responses {
            self.content_prose(&r.content, &push_pointer("/components/responses", key));
        }
        for (path, item) in &spec.paths {
            let item_ptr = push_pointer("/paths", path);
            for (i, p) in item.parameters.iter().enumerate() {
                self.parameter_prose(p, &format!("{item_ptr}/parameters/{i}"));
            }
            for (method, op) in item.operations() {
                let op_ptr = push_pointer(&item_ptr, method);
                for (i, p) in op.parameters.iter().enumerate() {
                    self.parameter_prose(p, &format!("{op_ptr}/parameters/{i}"));
                }
                if let Some(b) = &op.request_body {
                    self.content_prose(&b.content, &push_pointer(&op_ptr, "requestBody"));
                }
                for (status, r) in &op.responses {
                    let r_ptr = push_pointer(&push_pointer(&op_ptr, "responses"), status);
                    self.content_prose(&r.content, &r_ptr);
                }
            }
        }
    }

    fn prose(&mut self, value: Option<&Text>, pointer: &str) {
        if let Some(Text::NotAString(_)) = value {
            self.warn(WarningKind::Prose, pointer, NOT_A_STRING);
        }
    }

    fn parameter_prose(&mut self, p: &Parameter, ptr: &str) {
        if let Some(s) = &p.schema {
            self.schema_prose(s, &push_pointer(ptr, "schema"));
        }
    }

    fn content_prose(&mut self, content: &IndexMap<String, MediaType>, ptr: &str) {
        let content_ptr = push_pointer(ptr, "content");
        for (media, m) in content {
            if let Some(s) = &m.schema {
                self.schema_prose(
                    s,
                    &push_pointer(&push_pointer(&content_ptr, media), "schema"),
                );
            }
        }
    }

    fn schema_prose(&mut self, s: &Schema, ptr: &str) {
        self.prose(s.title.as_ref(), &push_pointer(ptr, "title"));
        self.prose(s.description.as_ref(), &push_pointer(ptr, "description"));
        for (name, p) in &s.properties {
            self.schema_prose(p, &push_pointer(&push_pointer(ptr, "properties"), name));
        }
        if let Some(items) = &s.items {
            self.schema_prose(items, &push_pointer(ptr, "items"));
        }
        if let Some(AdditionalProperties::Schema(extra)) = &s.additional_properties {
            self.schema_prose(extra, &push_pointer(ptr, "additionalProperties"));
        }
        for (key, list) in [
            ("allOf", &s.all_of),
            ("oneOf", &s.one_of),
            ("anyOf", &s.any_of),
        ] {
            for (i, b) in list.iter().enumerate() {
                self.schema_prose(b, &format!("{ptr}/{key}/{i}"));
            }
        }
    }
}
