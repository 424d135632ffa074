//! How often each component schema is referenced across the document. A component that
//! only one tagged-union branch references is emitted once, without the tag (the enum
//! carries it), instead of twice (see `union.rs`); this count is the proof that no
//! other place of the API uses the component as it is. And the references that point at
//! nothing, all found before lowering so that one run reports every one.

use std::collections::HashMap;

use crate::error::{Located, push_pointer};
use crate::warning::{Warning, WarningKind};

use spec_model::model::{
    AdditionalProperties, Header, MediaType, OpenApi, Operation, Parameter, PathItem, RequestBody,
    Response, Schema,
};
use spec_model::refs::{self, Component};

/// Component schema key to the number of `$ref`s to it anywhere the generator reads
/// (schemas, parameters and their `content`, bodies, responses and their headers, in
/// components and paths); a
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
    for h in c.headers.values() {
        header(h, &mut counts);
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
        .and_then(refs::component_name::<Schema>)
    {
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
    for part in s
        .all_of
        .iter()
        .chain(&s.one_of)
        .chain(&s.any_of)
        .chain(&s.prefix_items)
    {
        schema(part, counts);
    }
}

fn parameter(p: &Parameter, counts: &mut HashMap<String, usize>) {
    if let Some(s) = &p.schema {
        schema(s, counts);
    }
    if let Some(content) = p.content.as_ref().and_then(media_types) {
        media(&content, counts);
    }
}

/// A parameter's `content` (which the spec model keeps as JSON) as media types, when it
/// reads as such.
fn media_types(content: &serde_json::Value) -> Option<indexmap::IndexMap<String, MediaType>> {
    serde_json::from_value(content.clone()).ok()
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
    for h in r.headers.values() {
        header(h, counts);
    }
}

fn header(h: &Header, counts: &mut HashMap<String, usize>) {
    if let Some(s) = &h.schema {
        schema(s, counts);
    }
    if let Some(content) = h.content.as_ref().and_then(media_types) {
        media(&content, counts);
    }
}

/// Every `$ref` that names nothing (a missing component, or a pointer of a form
/// [`refs::lookup`] reads to a node the document does not have), at the pointer of its `$ref` (components first, then paths): all of them, so one run
/// names every one (a spec with four stops at the first otherwise, and its author fixes
/// them one run at a time).
pub(super) fn dangling(spec: &OpenApi) -> Vec<Located> {
    let mut walk = Dangling {
        spec,
        found: Vec::new(),
    };
    let c = &spec.components;
    for (key, s) in &c.schemas {
        walk.schema(s, &push_pointer("/components/schemas", key));
    }
    for (key, p) in &c.parameters {
        walk.parameter(p, &push_pointer("/components/parameters", key));
    }
    for (key, b) in &c.request_bodies {
        walk.body(b, &push_pointer("/components/requestBodies", key));
    }
    for (key, r) in &c.responses {
        walk.response(r, &push_pointer("/components/responses", key));
    }
    for (key, h) in &c.headers {
        walk.header(h, &push_pointer("/components/headers", key));
    }
    for (path, item) in &spec.paths {
        let item_ptr = push_pointer("/paths", path);
        for (i, p) in item.parameters.iter().enumerate() {
            walk.parameter(p, &format!("{item_ptr}/parameters/{i}"));
        }
        for (method, op) in item.operations() {
            let op_ptr = push_pointer(&item_ptr, method);
            for (i, p) in op.parameters.iter().enumerate() {
                walk.parameter(p, &format!("{op_ptr}/parameters/{i}"));
            }
            if let Some(b) = &op.request_body {
                walk.body(b, &push_pointer(&op_ptr, "requestBody"));
            }
            for (status, r) in &op.responses {
                walk.response(
                    r,
                    &push_pointer(&push_pointer(&op_ptr, "responses"), status),
                );
            }
        }
    }
    walk.found
}

/// The walk of [`dangling`].
struct Dangling<'a> {
    spec: &'a OpenApi,
    found: Vec<Located>,
}

impl Dangling<'_> {
    /// Notes `node`'s own `$ref` (`node` is at `ptr`) if it names nothing. References
    /// of a form the resolver does not read are left to the lowering, which says what it
    /// supports.
    fn check<T: Component>(&mut self, node: &T, ptr: &str) {
        let Some(reference) = node.reference() else {
            return;
        };
        if let Err(e) = refs::lookup::<T>(self.spec, reference)
            && e.is_dangling()
        {
            self.found.push(e.at(ptr));
        }
    }

    fn schema(&mut self, s: &Schema, ptr: &str) {
        self.check(s, ptr);
        for (name, p) in &s.properties {
            self.schema(p, &push_pointer(&push_pointer(ptr, "properties"), name));
        }
        if let Some(items) = &s.items {
            self.schema(items, &push_pointer(ptr, "items"));
        }
        if let Some(AdditionalProperties::Schema(values)) = &s.additional_properties {
            self.schema(values, &push_pointer(ptr, "additionalProperties"));
        }
        for (key, list) in [
            ("allOf", &s.all_of),
            ("oneOf", &s.one_of),
            ("anyOf", &s.any_of),
            ("prefixItems", &s.prefix_items),
        ] {
            for (i, part) in list.iter().enumerate() {
                self.schema(part, &format!("{ptr}/{key}/{i}"));
            }
        }
    }

    fn parameter(&mut self, p: &Parameter, ptr: &str) {
        self.check(p, ptr);
        if let Some(s) = &p.schema {
            self.schema(s, &push_pointer(ptr, "schema"));
        }
        // A parameter's `content` is kept as it came (the lowering says what it cannot
        // read); read here as a body's media types so its schemas are checked too.
        if let Some(content) = p.content.as_ref().and_then(media_types) {
            self.media(&content, ptr);
        }
    }

    fn media(&mut self, content: &indexmap::IndexMap<String, MediaType>, ptr: &str) {
        for (media, mt) in content {
            if let Some(s) = &mt.schema {
                self.schema(
                    s,
                    &push_pointer(
                        &push_pointer(&push_pointer(ptr, "content"), media),
                        "schema",
                    ),
                );
            }
        }
    }

    fn body(&mut self, b: &RequestBody, ptr: &str) {
        self.check(b, ptr);
        self.media(&b.content, ptr);
    }

    fn response(&mut self, r: &Response, ptr: &str) {
        self.check(r, ptr);
        self.media(&r.content, ptr);
        let headers = push_pointer(ptr, "headers");
        for (name, h) in &r.headers {
            self.header(h, &push_pointer(&headers, name));
        }
    }

    /// A response header: its own `$ref` (to `components.headers`, as a parameter's is
    /// to `components.parameters`), its schema and its `content`.
    fn header(&mut self, h: &Header, ptr: &str) {
        self.check(h, ptr);
        if let Some(s) = &h.schema {
            self.schema(s, &push_pointer(ptr, "schema"));
        }
        if let Some(content) = h.content.as_ref().and_then(media_types) {
            self.media(&content, ptr);
        }
    }
}

/// Replaces every schema `$ref` that points at no component schema by a schema that
/// admits any JSON value (documented as such), and returns one warning per reference at
/// its `$ref` and the pointers of the replaced schemas: what `--dangling-refs-as-any`
/// asks, to go on with a spec whose author has not fixed its references yet. It frees
/// every schema reference `dangling` names, so none is left to refuse the spec: those
/// in schemas, bodies, answers, answer headers and parameters, a parameter's `content`
/// included. References to missing parameters, bodies, responses and headers are left:
/// they stay errors.
pub fn free_dangling_schema_refs(spec: &mut OpenApi) -> (Vec<Warning<Located>>, Vec<String>) {
    let dangling: std::collections::BTreeSet<String> = dangling(spec)
        .into_iter()
        .filter(|d| d.message.contains("`components.schemas`"))
        .map(|d| d.pointer)
        .collect();
    let mut warnings = Vec::new();
    let mut freed = Vec::new();
    // Notes the freed reference (at `ptr`, the schema that held it) and says what the
    // schema now is: its description.
    let mut note = |reference: &str, ptr: &str| {
        warnings.push(Warning {
            kind: WarningKind::DanglingRef,
            problem: Located::new(
                push_pointer(ptr, "$ref"),
                format!(
                    "$ref `{reference}` points at no schema of `components.schemas`; read as \
                     any JSON value (`serde_json::Value`), as `--dangling-refs-as-any` asks"
                ),
            ),
        });
        freed.push(ptr.to_owned());
        format!("Any JSON value: the spec's `$ref` `{reference}` points at nothing.")
    };
    let mut free = |node: Node<'_>, ptr: &str| {
        if !dangling.contains(&push_pointer(ptr, "$ref")) {
            return;
        }
        match node {
            Node::Typed(s) => {
                let reference = s.reference.take().unwrap_or_default();
                *s = Schema {
                    description: Some(spec_model::model::Text::String(note(&reference, ptr))),
                    ..Schema::default()
                };
            }
            Node::Json(v) => {
                let reference = v.get("$ref").and_then(|r| r.as_str()).unwrap_or_default();
                let description = note(reference, ptr);
                *v = serde_json::json!({ "description": description });
            }
        }
    };
    let c = &mut spec.components;
    for (key, s) in c.schemas.iter_mut() {
        walk_schema_mut(s, &push_pointer("/components/schemas", key), &mut free);
    }
    for (key, p) in c.parameters.iter_mut() {
        parameter_mut(p, &push_pointer("/components/parameters", key), &mut free);
    }
    for (key, b) in c.request_bodies.iter_mut() {
        media_mut(
            &mut b.content,
            &push_pointer("/components/requestBodies", key),
            &mut free,
        );
    }
    for (key, r) in c.responses.iter_mut() {
        response_mut(r, &push_pointer("/components/responses", key), &mut free);
    }
    for (key, h) in c.headers.iter_mut() {
        header_mut(h, &push_pointer("/components/headers", key), &mut free);
    }
    for (path, item) in spec.paths.iter_mut() {
        let item_ptr = push_pointer("/paths", path);
        for (i, p) in item.parameters.iter_mut().enumerate() {
            parameter_mut(p, &format!("{item_ptr}/parameters/{i}"), &mut free);
        }
        for (method, op) in operations_mut(item) {
            let op_ptr = push_pointer(&item_ptr, method);
            for (i, p) in op.parameters.iter_mut().enumerate() {
                parameter_mut(p, &format!("{op_ptr}/parameters/{i}"), &mut free);
            }
            if let Some(b) = &mut op.request_body {
                media_mut(
                    &mut b.content,
                    &push_pointer(&op_ptr, "requestBody"),
                    &mut free,
                );
            }
            for (status, r) in op.responses.iter_mut() {
                let r_ptr = push_pointer(&push_pointer(&op_ptr, "responses"), status);
                response_mut(r, &r_ptr, &mut free);
            }
        }
    }
    (warnings, freed)
}

/// The operations of a path item, mutable, with their methods.
fn operations_mut(item: &mut PathItem) -> Vec<(&'static str, &mut Operation)> {
    [
        ("get", &mut item.get),
        ("put", &mut item.put),
        ("post", &mut item.post),
        ("delete", &mut item.delete),
        ("options", &mut item.options),
        ("head", &mut item.head),
        ("patch", &mut item.patch),
        ("trace", &mut item.trace),
    ]
    .into_iter()
    .filter_map(|(m, op)| op.as_mut().map(|op| (m, op)))
    .collect()
}

/// A schema the dangling-reference walk may replace: typed, or kept as JSON by the spec
/// model (a parameter's `content`).
enum Node<'a> {
    Typed(&'a mut Schema),
    Json(&'a mut serde_json::Value),
}

/// Calls `f` on a schema and every schema inside it, with each one's pointer.
fn walk_schema_mut(s: &mut Schema, ptr: &str, f: &mut impl FnMut(Node<'_>, &str)) {
    f(Node::Typed(s), ptr);
    for (name, p) in s.properties.iter_mut() {
        walk_schema_mut(p, &push_pointer(&push_pointer(ptr, "properties"), name), f);
    }
    if let Some(items) = &mut s.items {
        walk_schema_mut(items, &push_pointer(ptr, "items"), f);
    }
    if let Some(AdditionalProperties::Schema(values)) = &mut s.additional_properties {
        walk_schema_mut(values, &push_pointer(ptr, "additionalProperties"), f);
    }
    for (key, list) in [
        ("allOf", &mut s.all_of),
        ("oneOf", &mut s.one_of),
        ("anyOf", &mut s.any_of),
        ("prefixItems", &mut s.prefix_items),
    ] {
        for (i, part) in list.iter_mut().enumerate() {
            walk_schema_mut(part, &format!("{ptr}/{key}/{i}"), f);
        }
    }
}

fn parameter_mut(p: &mut Parameter, ptr: &str, f: &mut impl FnMut(Node<'_>, &str)) {
    styled_mut(&mut p.schema, &mut p.content, ptr, f);
}

fn header_mut(h: &mut Header, ptr: &str, f: &mut impl FnMut(Node<'_>, &str)) {
    styled_mut(&mut h.schema, &mut h.content, ptr, f);
}

fn response_mut(r: &mut Response, ptr: &str, f: &mut impl FnMut(Node<'_>, &str)) {
    media_mut(&mut r.content, ptr, f);
    let headers = push_pointer(ptr, "headers");
    for (name, h) in r.headers.iter_mut() {
        header_mut(h, &push_pointer(&headers, name), f);
    }
}

/// The `schema` and the `content` (kept as JSON) of a parameter or a header.
fn styled_mut(
    schema: &mut Option<Schema>,
    content: &mut Option<serde_json::Value>,
    ptr: &str,
    f: &mut impl FnMut(Node<'_>, &str),
) {
    if let Some(s) = schema {
        walk_schema_mut(s, &push_pointer(ptr, "schema"), f);
    }
    let content_ptr = push_pointer(ptr, "content");
    if let Some(content) = content.as_mut().and_then(|c| c.as_object_mut()) {
        for (media, mt) in content.iter_mut() {
            if let Some(s) = mt.get_mut("schema") {
                let at = push_pointer(&push_pointer(&content_ptr, media), "schema");
                walk_json_schema_mut(s, &at, f);
            }
        }
    }
}

/// [`walk_schema_mut`] over a schema kept as JSON, through the same keywords.
fn walk_json_schema_mut(s: &mut serde_json::Value, ptr: &str, f: &mut impl FnMut(Node<'_>, &str)) {
    if !s.is_object() {
        return;
    }
    f(Node::Json(s), ptr);
    let Some(object) = s.as_object_mut() else {
        return;
    };
    for (key, value) in object.iter_mut() {
        match (key.as_str(), value) {
            ("properties", serde_json::Value::Object(props)) => {
                let at = push_pointer(ptr, "properties");
                for (name, p) in props.iter_mut() {
                    walk_json_schema_mut(p, &push_pointer(&at, name), f);
                }
            }
            (key @ ("items" | "additionalProperties"), value) => {
                walk_json_schema_mut(value, &push_pointer(ptr, key), f);
            }
            (
                key @ ("allOf" | "oneOf" | "anyOf" | "prefixItems"),
                serde_json::Value::Array(parts),
            ) => {
                for (i, part) in parts.iter_mut().enumerate() {
                    walk_json_schema_mut(part, &format!("{ptr}/{key}/{i}"), f);
                }
            }
            _ => {}
        }
    }
}

fn media_mut(
    content: &mut indexmap::IndexMap<String, MediaType>,
    ptr: &str,
    f: &mut impl FnMut(Node<'_>, &str),
) {
    for (media, mt) in content.iter_mut() {
        if let Some(s) = &mut mt.schema {
            let at = push_pointer(
                &push_pointer(&push_pointer(ptr, "content"), media),
                "schema",
            );
            walk_schema_mut(s, &at, f);
        }
    }
}
