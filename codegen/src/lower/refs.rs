//! How often each component schema is referenced across the document. A component that
//! only one tagged-union branch references is emitted once, without the tag (the enum
//! carries it), instead of twice (see `union.rs`); this count is the proof that no
//! other place of the API uses the component as it is.

use std::collections::HashMap;

use spec_model::model::{
    AdditionalProperties, MediaType, OpenApi, Parameter, RequestBody, Response, Schema,
};

/// Component schema key to the number of `$ref`s to it anywhere the generator reads
/// (schemas, parameters, bodies and responses, in components and paths); a
/// discriminator's `mapping` names a branch already referenced and is not counted.
pub(super) fn schema_ref_counts(spec: &OpenApi) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    let c = &spec.components;
    for s in c.schemas.values() {
        schema(s, &mut counts);
    }
    for p in c.parameters.values() {
        parameter(p, &mut counts);
    }
    for b in c.request_bodies.values() {
        body(b, &mut counts);
    }
    for r in c.responses.values() {
        response(r, &mut counts);
    }
    for item in spec.paths.values() {
        for p in &item.parameters {
            parameter(p, &mut counts);
        }
        for (_, op) in item.operations() {
            for p in &op.parameters {
                parameter(p, &mut counts);
            }
            if let Some(b) = &op.request_body {
                body(b, &mut counts);
            }
            for r in op.responses.values() {
                response(r, &mut counts);
            }
        }
    }
    counts
}

fn schema(s: &Schema, counts: &mut HashMap<String, usize>) {
    if let Some(key) = s
        .reference
        .as_deref()
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
    {
        let key = key.replace("~1", "/").replace("~0", "~");
        *counts.entry(key).or_default() += 1;
    }
    for p in s.properties.values() {
        schema(p, counts);
    }
    if let Some(items) = &s.items {
        schema(items, counts);
    }
    if let Some(AdditionalProperties::Schema(values)) = &s.additional_properties {
        schema(values, counts);
    }
    for part in s.all_of.iter().chain(&s.one_of).chain(&s.any_of) {
        schema(part, counts);
    }
}

fn parameter(p: &Parameter, counts: &mut HashMap<String, usize>) {
    if let Some(s) = &p.schema {
        schema(s, counts);
    }
}

fn media(content: &indexmap::IndexMap<String, MediaType>, counts: &mut HashMap<String, usize>) {
    for mt in content.values() {
        if let Some(s) = &mt.schema {
            schema(s, counts);
        }
    }
}

fn body(b: &RequestBody, counts: &mut HashMap<String, usize>) {
    media(&b.content, counts);
}

fn response(r: &Response, counts: &mut HashMap<String, usize>) {
    media(&r.content, counts);
}
