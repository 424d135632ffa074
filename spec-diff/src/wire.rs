//! What changed on the wire, read from the two typed spec models: operations, parameters,
//! bodies, responses, security, and the schemas of what clients send and read.
//!
//! A schema is judged by direction: in a request a tightened limit or a removed enum value
//! refuses what existing clients send; in an answer a new enum value, a new branch or a
//! wider type may be what existing clients cannot read. A component schema reached by
//! many operations is compared once per direction and its findings list every operation.
//!
//! The keywords the spec model does not read (`pattern`, `exclusiveMinimum`/
//! `exclusiveMaximum`, `multipleOf`, `uniqueItems`, `minProperties`/`maxProperties`) are
//! read from the raw JSON of the same schema node: the pointer of every schema compared
//! is its place in the document, so both trees answer for the same node.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;
use spec_model::model::{
    AdditionalProperties, MediaType, OpenApi, Operation, Parameter, Schema, SchemaType,
};
use spec_model::push_pointer;
use spec_model::refs::{self, Component};

use crate::finding::Findings;
use crate::shape::{self, Shape};

/// Compares the wire contract of two specs; `old_raw` and `new_raw` are the same documents
/// as JSON trees, for the keywords the model leaves out. Returns the pairs of differently
/// named component schemas compared as one (renames: `X` met where `X-Input` now is).
pub fn diff(
    old: &OpenApi,
    new: &OpenApi,
    old_raw: &Value,
    new_raw: &Value,
    findings: &mut Findings,
) -> BTreeSet<(String, String)> {
    // Webhooks are read here, not by the spec model (the generator emits nothing for
    // them): OpenAPI 3.1's `webhooks`, and `x-webhooks` where 3.0 documents keep them.
    let hooks = (webhooks(old_raw), webhooks(new_raw));
    let mut d = Differ {
        old,
        new,
        old_raw,
        new_raw,
        findings,
        cache: HashMap::new(),
        op: None,
        old_at: String::new(),
    };
    d.operations();
    d.webhooks(&hooks.0, &hooks.1);
    d.security_schemes();
    d.cache
        .into_keys()
        .filter(|(_, a, b)| a != b)
        .map(|(_, a, b)| (a, b))
        .collect()
}

/// A document's webhooks: the keyword each sits under, its name, and its path item.
type Hooks = Vec<(&'static str, String, spec_model::model::PathItem)>;

fn webhooks(raw: &Value) -> Hooks {
    let mut out = Vec::new();
    for keyword in ["webhooks", "x-webhooks"] {
        let Some(map) = raw.get(keyword).and_then(Value::as_object) else {
            continue;
        };
        for (name, item) in map {
            // A webhook the model cannot read is left out rather than guessed at.
            if let Ok(item) = serde_json::from_value(item.clone()) {
                out.push((keyword, name.clone(), item));
            }
        }
    }
    out
}

/// Which way a value travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Dir {
    /// Sent by clients (parameters, request bodies).
    Request,
    /// Read by clients (response bodies).
    Response,
}

impl Dir {
    fn pick(self, request: &'static str, response: &'static str) -> &'static str {
        match self {
            Dir::Request => request,
            Dir::Response => response,
        }
    }
}

struct Differ<'a, 'f> {
    old: &'a OpenApi,
    new: &'a OpenApi,
    old_raw: &'a Value,
    new_raw: &'a Value,
    findings: &'f mut Findings,
    /// Findings of each pair of component schemas already compared in a direction.
    cache: HashMap<(Dir, String, String), Vec<usize>>,
    /// The operation being compared (`GET /pets`).
    op: Option<String>,
    /// The node of the old document the next findings are judged at (whether the old
    /// crate's type there reads what the new spec allows).
    old_at: String,
}

/// A path with its parameter names blanked, so `/pets/{id}` and `/pets/{petId}` match.
fn normalized(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut depth = 0;
    for c in path.chars() {
        match c {
            '{' => {
                depth += 1;
                out.push_str("{}");
            }
            '}' => depth -= 1,
            _ if depth > 0 => {}
            _ => out.push(c),
        }
    }
    out
}

type Ops<'a> = Vec<(String, &'a str, &'a str, &'a Operation)>;

fn operations_of(spec: &OpenApi) -> Ops<'_> {
    let mut out = Vec::new();
    for (path, item) in &spec.paths {
        for (method, op) in item.operations() {
            out.push((
                format!("{method} {}", normalized(path)),
                path.as_str(),
                method,
                op,
            ));
        }
    }
    out
}

fn label(method: &str, path: &str) -> String {
    format!("{} {path}", method.to_uppercase())
}

fn op_pointer(path: &str, method: &str) -> String {
    push_pointer(&push_pointer("/paths", path), method)
}

impl<'a> Differ<'a, '_> {
    fn add(&mut self, rule: &'static str, subject: Option<&str>, pointer: &str, message: String) {
        let op = self.op.clone();
        let i = self
            .findings
            .add(rule, op.as_deref(), subject, pointer, message);
        self.findings.old_at(i, &self.old_at);
    }

    fn operations(&mut self) {
        let old_ops = operations_of(self.old);
        let new_ops = operations_of(self.new);
        let new_keys: HashMap<&str, usize> = new_ops
            .iter()
            .enumerate()
            .map(|(i, (k, ..))| (k.as_str(), i))
            .collect();
        let old_keys: BTreeSet<&str> = old_ops.iter().map(|(k, ..)| k.as_str()).collect();
        for (key, path, method, op) in &old_ops {
            let Some(&i) = new_keys.get(key.as_str()) else {
                self.op = Some(label(method, path));
                let (rule, how) = if op.deprecated {
                    ("api-removed-after-deprecation", "deprecated operation")
                } else {
                    ("api-removed-without-deprecation", "operation")
                };
                let message = format!("{how} {} was removed", label(method, path));
                self.add(rule, None, &op_pointer(path, method), message);
                continue;
            };
            let (_, new_path, _, new_op) = new_ops[i];
            self.op = Some(label(method, new_path));
            self.operation(path, new_path, method, op, new_op);
        }
        for (key, path, method, _) in &new_ops {
            if !old_keys.contains(key.as_str()) {
                self.op = Some(label(method, path));
                let message = format!("operation {} was added", label(method, path));
                self.add("api-added", None, &op_pointer(path, method), message);
            }
        }
        self.op = None;
    }

    /// Webhooks: requests the API's server sends to its clients. Their payloads are what
    /// clients read (compared as answers are); a webhook added or removed changes what
    /// arrives, not what a client must accept, so only the payloads of the ones kept are
    /// compared, media type by media type.
    fn webhooks(&mut self, old: &'a Hooks, new: &'a Hooks) {
        for (keyword, name, a) in old {
            let Some((new_keyword, _, b)) = new.iter().find(|(_, n, _)| n == name) else {
                continue;
            };
            for (method, oa) in a.operations() {
                let Some((_, ob)) = b.operations().into_iter().find(|(m, _)| *m == method) else {
                    continue;
                };
                self.op = Some(format!("WEBHOOK {name}"));
                let at = |keyword: &str| {
                    push_pointer(
                        &push_pointer(&push_pointer(&format!("/{keyword}"), name), method),
                        "requestBody",
                    )
                };
                let (old_at, new_at) = (at(keyword), at(new_keyword));
                self.old_at = old_at.clone();
                let (Some(ba), Some(bb)) = (&oa.request_body, &ob.request_body) else {
                    continue;
                };
                let (ba, pa) = followed(self.old, ba, &old_at).into_parts();
                let (bb, pb) = followed(self.new, bb, &new_at).into_parts();
                for (media, ma) in &ba.content {
                    let (Some(mb), Some(sa)) = (bb.content.get(media), &ma.schema) else {
                        continue;
                    };
                    let Some(sb) = &mb.schema else {
                        continue;
                    };
                    let media_at = |p: &str| {
                        push_pointer(&push_pointer(&push_pointer(p, "content"), media), "schema")
                    };
                    self.schema(Dir::Response, sa, sb, &media_at(&pa), &media_at(&pb), None);
                }
            }
        }
        self.op = None;
    }

    fn operation(
        &mut self,
        old_path: &str,
        new_path: &str,
        method: &str,
        old: &'a Operation,
        new: &'a Operation,
    ) {
        let pointer = op_pointer(new_path, method);
        self.old_at = op_pointer(old_path, method);
        if new.deprecated && !old.deprecated {
            self.add(
                "api-deprecated",
                None,
                &pointer,
                "the operation is deprecated".into(),
            );
        }
        if old.operation_id != new.operation_id {
            let message = format!(
                "operationId {} became {}",
                shown(old.operation_id.as_deref()),
                shown(new.operation_id.as_deref())
            );
            self.add(
                "api-operation-id-changed",
                None,
                &push_pointer(&pointer, "operationId"),
                message,
            );
        }
        self.security(old, new, &pointer);
        self.parameters(old_path, new_path, method, old, new);
        self.request_body(old, new, &pointer);
        self.responses(old, new, &pointer);
    }

    fn security(&mut self, old: &Operation, new: &Operation, pointer: &str) {
        let alternatives = |spec: &OpenApi, op: &Operation| -> BTreeSet<BTreeSet<String>> {
            match op.security.as_ref().or(spec.security.as_ref()) {
                None => [BTreeSet::new()].into(),
                Some(list) if list.is_empty() => [BTreeSet::new()].into(),
                Some(list) => list.iter().map(|r| r.keys().cloned().collect()).collect(),
            }
        };
        let before = alternatives(self.old, old);
        let after = alternatives(self.new, new);
        let at = push_pointer(pointer, "security");
        let anonymous = BTreeSet::new();
        if before.contains(&anonymous) && !after.contains(&anonymous) {
            let message = format!("the operation now requires credentials ({})", names(&after));
            self.add("api-security-added", None, &at, message);
        }
        for alt in before.difference(&after).filter(|a| !a.is_empty()) {
            let message = format!("credentials [{}] are no longer accepted", join(alt));
            self.add("api-security-alternative-removed", None, &at, message);
        }
        for alt in after.difference(&before).filter(|a| !a.is_empty()) {
            if before.contains(&anonymous) && !after.contains(&anonymous) {
                continue;
            }
            let message = format!("credentials [{}] are accepted too", join(alt));
            self.add("api-security-alternative-added", None, &at, message);
        }
    }

    fn security_schemes(&mut self) {
        for (name, old) in &self.old.components.security_schemes {
            let Some(new) = self.new.components.security_schemes.get(name) else {
                continue;
            };
            let shape = |s: &spec_model::model::SecurityScheme| {
                (
                    s.kind.clone(),
                    s.scheme.as_deref().map(str::to_ascii_lowercase),
                    s.location.clone(),
                    s.name.clone(),
                )
            };
            if shape(old) != shape(new) {
                let pointer = push_pointer("/components/securitySchemes", name);
                let message = format!(
                    "security scheme `{name}` was {:?} and is {:?} (type, scheme, in, name)",
                    shape(old),
                    shape(new)
                );
                self.add("security-scheme-changed", None, &pointer, message);
            }
        }
    }

    fn parameters(
        &mut self,
        old_path: &str,
        new_path: &str,
        method: &str,
        old: &'a Operation,
        new: &'a Operation,
    ) {
        let before = effective_parameters(self.old, old_path, method, old);
        let after = effective_parameters(self.new, new_path, method, new);
        for (key, (p, ptr)) in &before {
            let Some((q, qptr)) = after.get(key) else {
                let message = format!("{} parameter `{}` was removed", key.0, key.1);
                self.add("request-parameter-removed", None, ptr, message);
                continue;
            };
            let what = format!("{} parameter `{}`", key.0, key.1);
            match (p.required, q.required) {
                (false, true) => {
                    self.add(
                        "request-parameter-became-required",
                        None,
                        qptr,
                        format!("{what} became required"),
                    );
                }
                (true, false) => {
                    self.add(
                        "request-parameter-became-optional",
                        None,
                        qptr,
                        format!("{what} became optional"),
                    );
                }
                _ => {}
            }
            if encoding(p) != encoding(q) {
                let message = format!(
                    "{what} is written with style {:?} instead of {:?} (style, explode)",
                    encoding(q),
                    encoding(p)
                );
                self.add("request-parameter-encoding-changed", None, qptr, message);
            }
            if let (Some(a), Some(b)) = (&p.schema, &q.schema) {
                self.schema(
                    Dir::Request,
                    a,
                    b,
                    &push_pointer(ptr, "schema"),
                    &push_pointer(qptr, "schema"),
                    None,
                );
            }
        }
        for (key, (q, qptr)) in &after {
            if before.contains_key(key) {
                continue;
            }
            let (rule, how) = if q.required {
                ("new-required-request-parameter", "required")
            } else {
                ("new-optional-request-parameter", "optional")
            };
            let message = format!("{how} {} parameter `{}` was added", key.0, key.1);
            self.add(rule, None, qptr, message);
        }
    }

    fn request_body(&mut self, old: &'a Operation, new: &'a Operation, pointer: &str) {
        let at = push_pointer(pointer, "requestBody");
        let before = old
            .request_body
            .as_ref()
            .map(|b| followed(self.old, b, &at).into_parts());
        let after = new
            .request_body
            .as_ref()
            .map(|b| followed(self.new, b, &at).into_parts());
        match (before, after) {
            (None, None) => {}
            (None, Some((b, ptr))) => {
                if b.required {
                    let message = "a required request body was added".into();
                    self.add("new-required-request-body", None, &ptr, message);
                } else {
                    let message = "an optional request body was added".into();
                    self.add("new-optional-request-body", None, &ptr, message);
                }
            }
            (Some((_, ptr)), None) => {
                let message = "the request body was removed".into();
                self.add("request-body-removed", None, &ptr, message);
            }
            (Some((a, aptr)), Some((b, bptr))) => {
                if b.required && !a.required {
                    let message = "the request body became required".into();
                    self.add("request-body-became-required", None, &bptr, message);
                }
                self.content(
                    Dir::Request,
                    &a.content,
                    &b.content,
                    &aptr,
                    &bptr,
                    "request-body-media-type-removed",
                    "request-body-media-type-added",
                );
            }
        }
    }

    fn responses(&mut self, old: &'a Operation, new: &'a Operation, pointer: &str) {
        let at = push_pointer(pointer, "responses");
        for (status, a) in &old.responses {
            let aptr = push_pointer(&at, status);
            let Some(b) = new.responses.get(status) else {
                let success = status.starts_with('2');
                let rule = if success {
                    "response-success-status-removed"
                } else {
                    "response-non-success-status-removed"
                };
                self.add(rule, None, &aptr, format!("status {status} was removed"));
                continue;
            };
            let (a, aptr) = followed(self.old, a, &aptr).into_parts();
            let (b, bptr) = followed(self.new, b, &push_pointer(&at, status)).into_parts();
            self.content(
                Dir::Response,
                &a.content,
                &b.content,
                &aptr,
                &bptr,
                "response-media-type-removed",
                "response-media-type-added",
            );
        }
        for status in new.responses.keys() {
            if !old.responses.contains_key(status) {
                let message = format!("status {status} was added");
                self.add(
                    "response-status-added",
                    None,
                    &push_pointer(&at, status),
                    message,
                );
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn content(
        &mut self,
        dir: Dir,
        old: &'a indexmap::IndexMap<String, MediaType>,
        new: &'a indexmap::IndexMap<String, MediaType>,
        old_ptr: &str,
        new_ptr: &str,
        removed: &'static str,
        added: &'static str,
    ) {
        let old_at = push_pointer(old_ptr, "content");
        let new_at = push_pointer(new_ptr, "content");
        for (media, a) in old {
            let Some(b) = new.get(media) else {
                let message = format!("media type {media} was removed");
                self.add(removed, None, &push_pointer(&old_at, media), message);
                continue;
            };
            if let (Some(sa), Some(sb)) = (&a.schema, &b.schema) {
                let pa = push_pointer(&push_pointer(&old_at, media), "schema");
                let pb = push_pointer(&push_pointer(&new_at, media), "schema");
                self.schema(dir, sa, sb, &pa, &pb, None);
            }
        }
        for media in new.keys() {
            if !old.contains_key(media) {
                let message = format!("media type {media} was added");
                self.add(added, None, &push_pointer(&new_at, media), message);
            }
        }
    }

    /// Compares two schemas in a direction; returns the findings made (also those of
    /// components compared before), so a component's result can be cached.
    fn schema(
        &mut self,
        dir: Dir,
        old: &'a Schema,
        new: &'a Schema,
        old_ptr: &str,
        new_ptr: &str,
        component: Option<&str>,
    ) -> Vec<usize> {
        // Findings about nullability are judged at the node that admits null (the
        // property), the others at the schema the references and wrappers lead to.
        let caller = std::mem::replace(&mut self.old_at, old_ptr.to_owned());
        let made = self.schema_at(dir, (old, new), (old_ptr, new_ptr), component);
        self.old_at = caller;
        made
    }

    fn schema_at(
        &mut self,
        dir: Dir,
        (old, new): (&'a Schema, &'a Schema),
        (old_ptr, new_ptr): (&str, &str),
        component: Option<&str>,
    ) -> Vec<usize> {
        let outer_new_ptr = new_ptr;
        let End {
            node: old,
            pointer: old_ptr,
            name: old_comp,
            null: old_null,
        } = End::of(self.old, old, old_ptr);
        let End {
            node: new,
            pointer: new_ptr,
            name: new_comp,
            null: new_null,
        } = End::of(self.new, new, new_ptr);
        // Findings are about the component they sit in: where a union meets a single
        // schema (a branch set shrunk to one), the branches sit in the union's component.
        let union_side = match (
            shape::union(self.old, old).is_some(),
            shape::union(self.new, new).is_some(),
        ) {
            (true, false) => Some(old_comp.clone().or(component.map(str::to_owned))),
            (false, true) => Some(new_comp.clone().or(component.map(str::to_owned))),
            _ => None,
        };
        let subject = union_side.unwrap_or_else(|| new_comp.clone().or(old_comp.clone()));
        let mut made = Vec::new();
        let shown = subject.clone().or(component.map(str::to_owned));
        self.null_change(
            dir,
            (old_null, new_null),
            outer_new_ptr,
            shown.as_deref(),
            &mut made,
        );
        self.old_at = old_ptr.clone();
        if let (Some(a), Some(b)) = (&old_comp, &new_comp) {
            let key = (dir, a.clone(), b.clone());
            if let Some(done) = self.cache.get(&key).cloned() {
                let op = self.op.clone();
                for &i in &done {
                    self.findings.touch(i, op.as_deref());
                }
                made.extend(done);
                return made;
            }
            // In progress: a cycle back to this pair adds nothing.
            self.cache.insert(key.clone(), Vec::new());
            let body = self.schema_body(dir, old, new, &old_ptr, &new_ptr, subject.as_deref());
            self.cache.insert(key, body.clone());
            made.extend(body);
            return made;
        }
        made.extend(self.schema_body(dir, old, new, &old_ptr, &new_ptr, shown.as_deref()));
        made
    }

    /// Null allowed where it was not (an answer old clients may not read), or no longer
    /// allowed (a request refused); allowing it in a request is a widening.
    fn null_change(
        &mut self,
        dir: Dir,
        (old, new): (bool, bool),
        new_ptr: &str,
        subject: Option<&str>,
        made: &mut Vec<usize>,
    ) {
        let (rule, message) = match (old, new, dir) {
            (true, false, Dir::Request) => {
                ("request-nullable-removed", "null is no longer allowed")
            }
            (false, true, Dir::Response) => {
                ("response-became-nullable", "the value may now be null")
            }
            (false, true, Dir::Request) => ("request-type-widened", "null is now allowed too"),
            _ => return,
        };
        self.note(made, subject, rule, new_ptr, message.into());
    }

    /// What changed between two schemas met at the same place, and then within them.
    fn schema_body(
        &mut self,
        dir: Dir,
        old: &'a Schema,
        new: &'a Schema,
        old_ptr: &str,
        new_ptr: &str,
        subject: Option<&str>,
    ) -> Vec<usize> {
        let at = Met {
            dir,
            old,
            new,
            old_ptr,
            new_ptr,
            subject,
        };
        let mut made = Vec::new();
        if self.any_value(&at, &mut made) {
            return made;
        }
        let old_union = shape::union(self.old, old);
        let new_union = shape::union(self.new, new);
        let enumerations = shape::enumeration(self.old, old).is_some()
            && shape::enumeration(self.new, new).is_some();
        if enumerations && (old_union.is_some() || new_union.is_some()) {
            // `enum: [a, b]` written as `oneOf: [{const: a}, {const: b}]`: the values
            // are what is compared.
            self.enum_values(&at, &mut made);
            return made;
        }
        if old_union.is_some() || new_union.is_some() {
            let keyword = new_union
                .as_ref()
                .or(old_union.as_ref())
                .map_or("anyOf", |u| u.keyword);
            let side = |u: Option<shape::Union<'a>>, s: &'a Schema, ptr: &str| match u {
                Some(u) => u
                    .branches
                    .iter()
                    .map(|(i, b)| {
                        (
                            push_pointer(&push_pointer(ptr, u.keyword), &i.to_string()),
                            *b,
                        )
                    })
                    .collect(),
                None => vec![(ptr.to_owned(), s)],
            };
            let a = side(old_union, old, old_ptr);
            let b = side(new_union, new, new_ptr);
            made.extend(self.branches(dir, keyword, a, b, subject));
            return made;
        }
        self.types(&at, &mut made);
        self.enum_values(&at, &mut made);
        let raw = (self.old_raw.pointer(old_ptr), self.new_raw.pointer(new_ptr));
        for (rule, message) in limits(dir, old, new, raw) {
            self.note(&mut made, subject, rule, new_ptr, message);
        }
        self.properties(&at, &mut made);
        self.nested(&at, &mut made);
        made
    }

    /// A schema that accepts any value on one side only: in a request, typing it refuses
    /// what was sent; in an answer, untyping it may bring what clients cannot read.
    /// Returns whether that was the case (nothing more to compare).
    fn any_value(&mut self, at: &Met<'_, 'a>, made: &mut Vec<usize>) -> bool {
        let (old_any, new_any) = (shape::any(at.old), shape::any(at.new));
        if old_any == new_any {
            return false;
        }
        let describe = |spec, raw, s, ptr| Shape::of(spec, raw, s, ptr).describe();
        let before = describe(self.old, self.old_raw, at.old, at.old_ptr);
        let after = describe(self.new, self.new_raw, at.new, at.new_ptr);
        let message = format!("{before} became {after}");
        let rule = match (at.dir, new_any) {
            (Dir::Request, false) => Some("request-type-changed"),
            (Dir::Request, true) => Some("request-type-widened"),
            (Dir::Response, true) => Some("response-type-changed"),
            (Dir::Response, false) => None,
        };
        if let Some(rule) = rule {
            self.note(made, at.subject, rule, at.new_ptr, message);
        }
        true
    }

    /// Types and formats.
    fn types(&mut self, at: &Met<'_, 'a>, made: &mut Vec<usize>) {
        let Met {
            dir,
            old,
            new,
            new_ptr,
            subject,
            ..
        } = *at;
        let (ta, tb) = (shape::types(old), shape::types(new));
        if let (Some(ta), Some(tb)) = (&ta, &tb) {
            let fa = old.format.as_deref();
            let fb = new.format.as_deref();
            let what = format!("{}{} became {}{}", join(ta), fmt(fa), join(tb), fmt(fb));
            if (ta, fa) != (tb, fb) {
                match dir {
                    Dir::Request if accepts(tb, fb, ta, fa) => {
                        self.note(made, subject, "request-type-widened", new_ptr, what)
                    }
                    Dir::Request => self.note(made, subject, "request-type-changed", new_ptr, what),
                    Dir::Response if !accepts(ta, fa, tb, fb) => {
                        self.note(made, subject, "response-type-changed", new_ptr, what)
                    }
                    Dir::Response => {}
                }
            }
        }
    }

    /// Enumerations (`const` is an enumeration of one): values removed or added, an
    /// enumeration set on a request or dropped from a response.
    fn enum_values(&mut self, at: &Met<'_, 'a>, made: &mut Vec<usize>) {
        let Met {
            dir,
            old,
            new,
            new_ptr,
            subject,
            ..
        } = *at;
        let (a, b) = (
            shape::enumeration(self.old, old),
            shape::enumeration(self.new, new),
        );
        match (a, b) {
            (Some(a), Some(b)) => {
                let removed: Vec<&Value> = a.iter().filter(|v| !b.contains(v)).collect();
                let added: Vec<&Value> = b.iter().filter(|v| !a.contains(v)).collect();
                if !removed.is_empty() {
                    let rule =
                        dir.pick("request-enum-value-removed", "response-enum-value-removed");
                    self.note(
                        made,
                        subject,
                        rule,
                        new_ptr,
                        format!("enum values removed: {}", list(&removed)),
                    );
                }
                if !added.is_empty() {
                    let rule = dir.pick("request-enum-value-added", "response-enum-value-added");
                    self.note(
                        made,
                        subject,
                        rule,
                        new_ptr,
                        format!("enum values added: {}", list(&added)),
                    );
                }
            }
            (None, Some(b)) if dir == Dir::Request => {
                let b: Vec<&Value> = b.iter().collect();
                let message = format!("an enum was set: only {} may be sent", list(&b));
                self.note(
                    made,
                    subject,
                    "request-enum-value-removed",
                    new_ptr,
                    message,
                );
            }
            (Some(_), None) if dir == Dir::Response => {
                let message = "the enum was dropped: any value may come".into();
                self.note(made, subject, "response-enum-value-added", new_ptr, message);
            }
            _ => {}
        }
    }

    /// Properties removed, added or made (not) required, then each kept one compared; a
    /// property the direction never carries (read-only in a request, write-only in a
    /// response) is not a change.
    fn properties(&mut self, at: &Met<'_, 'a>, made: &mut Vec<usize>) {
        let Met {
            dir,
            old,
            new,
            old_ptr,
            new_ptr,
            subject,
        } = *at;
        let skip = |s: &Schema| match dir {
            Dir::Request => s.read_only,
            Dir::Response => s.write_only,
        };
        let (before, after) = (
            shape::object(self.old, old, old_ptr),
            shape::object(self.new, new, new_ptr),
        );
        for (name, (a, pa)) in &before.properties {
            let was_required = before.required.contains(name);
            let Some((b, pb)) = after.properties.get(name) else {
                if skip(a) {
                    continue;
                }
                let rule = match (dir, was_required) {
                    (Dir::Request, _) => "request-property-removed",
                    (Dir::Response, true) => "response-required-property-removed",
                    (Dir::Response, false) => "response-optional-property-removed",
                };
                let node = std::mem::replace(&mut self.old_at, pa.clone());
                self.note(
                    made,
                    subject,
                    rule,
                    pa,
                    format!("property `{name}` was removed"),
                );
                self.old_at = node;
                continue;
            };
            let is_required = after.required.contains(name);
            if !skip(b) {
                match (dir, was_required, is_required) {
                    (Dir::Request, false, true) => self.note(
                        made,
                        subject,
                        "request-property-became-required",
                        pb,
                        format!("property `{name}` became required"),
                    ),
                    (Dir::Response, true, false) => self.note(
                        made,
                        subject,
                        "response-property-became-optional",
                        pb,
                        format!("property `{name}` became optional"),
                    ),
                    _ => {}
                }
            }
            made.extend(self.schema(dir, a, b, pa, pb, subject));
        }
        for (name, (b, pb)) in &after.properties {
            if before.properties.contains_key(name) || skip(b) {
                continue;
            }
            let rule = match (dir, after.required.contains(name)) {
                (Dir::Request, true) => "new-required-request-property",
                (Dir::Request, false) => "new-optional-request-property",
                (Dir::Response, _) => "response-property-added",
            };
            self.note(
                made,
                subject,
                rule,
                pb,
                format!("property `{name}` was added"),
            );
        }
        // Required names without a property schema on either side.
        if dir == Dir::Request {
            for name in &after.required {
                if !before.required.contains(name)
                    && !before.properties.contains_key(name)
                    && !after.properties.contains_key(name)
                {
                    let message = format!("property `{name}` became required");
                    let rule = "request-property-became-required";
                    self.note(made, subject, rule, new_ptr, message);
                }
            }
        }
    }

    /// The schemas within: items, map values, `allOf` parts (by position) and the
    /// `oneOf`/`anyOf` branches.
    fn nested(&mut self, at: &Met<'_, 'a>, made: &mut Vec<usize>) {
        let Met {
            dir,
            old,
            new,
            old_ptr,
            new_ptr,
            subject,
        } = *at;
        if let (Some(a), Some(b)) = (&old.items, &new.items) {
            let (pa, pb) = (
                push_pointer(old_ptr, "items"),
                push_pointer(new_ptr, "items"),
            );
            made.extend(self.schema(dir, a, b, &pa, &pb, subject));
        }
        if let (Some(AdditionalProperties::Schema(a)), Some(AdditionalProperties::Schema(b))) =
            (&old.additional_properties, &new.additional_properties)
        {
            let pa = push_pointer(old_ptr, "additionalProperties");
            let pb = push_pointer(new_ptr, "additionalProperties");
            made.extend(self.schema(dir, a, b, &pa, &pb, subject));
        }
        // `allOf` parts by position, those of properties aside: they are compared in
        // the merged object.
        for (i, (a, b)) in old.all_of.iter().zip(&new.all_of).enumerate() {
            if shape::has_properties(self.old, a) || shape::has_properties(self.new, b) {
                continue;
            }
            let pa = push_pointer(&push_pointer(old_ptr, "allOf"), &i.to_string());
            let pb = push_pointer(&push_pointer(new_ptr, "allOf"), &i.to_string());
            made.extend(self.schema(dir, a, b, &pa, &pb, subject));
        }
        for keyword in ["oneOf", "anyOf"] {
            let (a, b) = if keyword == "oneOf" {
                (&old.one_of, &new.one_of)
            } else {
                (&old.any_of, &new.any_of)
            };
            let listed = |list: &'a [Schema], ptr: &str| -> Vec<(String, &'a Schema)> {
                let at = push_pointer(ptr, keyword);
                list.iter()
                    .enumerate()
                    .map(|(i, s)| (push_pointer(&at, &i.to_string()), s))
                    .collect()
            };
            // Branches that only list required properties (`anyOf: [{required: [a]},
            // {required: [b]}]` beside `properties`) say which sets must be present.
            let only = |spec, list: &[Schema]| {
                !list.is_empty() && list.iter().all(|b| shape::constraint_only(spec, b))
            };
            if only(self.old, a) || only(self.new, b) {
                if dir == Dir::Request {
                    self.required_sets(at, keyword, made);
                }
                continue;
            }
            let (mut a, mut b) = (listed(a, old_ptr), listed(b, new_ptr));
            // A typed schema on one side and branches on the other (`type: number`
            // became `anyOf: [number, string]` beside a `minimum`): the typed one is the
            // branch the others grew from.
            match (a.is_empty(), b.is_empty()) {
                (true, false) if shape::types(old).is_some() => a.push((old_ptr.to_owned(), old)),
                (false, true) if shape::types(new).is_some() => b.push((new_ptr.to_owned(), new)),
                _ => {}
            }
            made.extend(self.branches(dir, keyword, a, b, subject));
        }
    }

    /// Sets of properties a request must carry (one of them), before and after: a body
    /// that met one of the old sets is still sent as it was, so the change refuses it
    /// unless one of the new sets is within that old set.
    fn required_sets(&mut self, at: &Met<'_, 'a>, keyword: &str, made: &mut Vec<usize>) {
        let sets = |spec, s: &'a Schema, ptr: &str| -> Vec<BTreeSet<String>> {
            let base = shape::object(spec, s, ptr).required;
            let list = if keyword == "oneOf" {
                &s.one_of
            } else {
                &s.any_of
            };
            let branches: Vec<BTreeSet<String>> = list
                .iter()
                .filter(|b| shape::constraint_only(spec, b))
                .map(|b| {
                    let node = refs::follow(spec, b, "").map(|t| t.node).unwrap_or(b);
                    base.iter().chain(&node.required).cloned().collect()
                })
                .collect();
            if branches.is_empty() {
                vec![base]
            } else {
                branches
            }
        };
        let before = sets(self.old, at.old, at.old_ptr);
        let after = sets(self.new, at.new, at.new_ptr);
        for old_set in &before {
            if after.iter().any(|new_set| new_set.is_subset(old_set)) {
                continue;
            }
            let shown: Vec<String> = after.iter().map(|s| format!("[{}]", join(s))).collect();
            let message = format!(
                "a body with only [{}] is refused: one of {} is required",
                join(old_set),
                shown.join(", ")
            );
            let pointer = push_pointer(at.new_ptr, keyword);
            self.note(
                made,
                at.subject,
                "request-property-became-required",
                &pointer,
                message,
            );
        }
    }

    fn note(
        &mut self,
        made: &mut Vec<usize>,
        subject: Option<&str>,
        rule: &'static str,
        pointer: &str,
        message: String,
    ) {
        let op = self.op.clone();
        let i = self
            .findings
            .add(rule, op.as_deref(), subject, pointer, message);
        self.findings.old_at(i, &self.old_at);
        made.push(i);
    }

    /// `oneOf`/`anyOf` branches (each with its pointer), paired by what they accept:
    /// the pairs compared, the old ones left removed, the new ones left added.
    fn branches(
        &mut self,
        dir: Dir,
        keyword: &str,
        old: Vec<(String, &'a Schema)>,
        new: Vec<(String, &'a Schema)>,
        subject: Option<&str>,
    ) -> Vec<usize> {
        let mut made = Vec::new();
        if old.is_empty() && new.is_empty() {
            return made;
        }
        let shapes = |spec, raw, list: &[(String, &Schema)]| -> Vec<Shape> {
            list.iter()
                .map(|(ptr, s)| Shape::of(spec, raw, s, ptr))
                .collect()
        };
        let old_shapes = shapes(self.old, self.old_raw, &old);
        let new_shapes = shapes(self.new, self.new_raw, &new);
        let (pairs, removed, added) = shape::pair(&old_shapes, &new_shapes);
        for (i, j) in pairs {
            let ((pa, a), (pb, b)) = (&old[i], &new[j]);
            made.extend(self.schema(dir, a, b, pa, pb, subject));
        }
        // A branch that repeats one of the other side (a component and its inline copy)
        // neither adds nor takes away a value.
        let removed = removed
            .into_iter()
            .filter(|&i| !new_shapes.iter().any(|b| old_shapes[i].same(b)));
        let added: Vec<usize> = added
            .into_iter()
            .filter(|&j| !old_shapes.iter().any(|a| new_shapes[j].same(a)))
            .collect();
        for i in removed {
            let rule = dir.pick(
                "request-one-of-branch-removed",
                "response-one-of-branch-removed",
            );
            let message = format!("{keyword} branch {} was removed", old_shapes[i].describe());
            self.note(&mut made, subject, rule, &old[i].0, message);
        }
        for j in added {
            let rule = dir.pick(
                "request-one-of-branch-added",
                "response-one-of-branch-added",
            );
            let message = format!("{keyword} branch {} was added", new_shapes[j].describe());
            self.note(&mut made, subject, rule, &new[j].0, message);
        }
        made
    }
}

/// A limit keyword: name, old and new value, whether a larger value is tighter, and the
/// request rule of tightening it.
type Limit = (&'static str, Option<f64>, Option<f64>, bool, &'static str);

/// Length, range, item, property-count, `multipleOf`, `uniqueItems`, `additionalProperties`
/// and `pattern` limits that changed, as findings of the direction. `raw` is the JSON of
/// the two schema nodes.
fn limits(
    dir: Dir,
    old: &Schema,
    new: &Schema,
    raw: (Option<&Value>, Option<&Value>),
) -> Vec<(&'static str, String)> {
    let len = |v: Option<u64>| v.map(|v| v as f64);
    let number = |node: Option<&Value>, keyword: &str| node?.get(keyword)?.as_f64();
    let (ra, rb) = raw;
    // (keyword, old, new, whether a larger value is tighter, request rule).
    #[rustfmt::skip]
    let checks: [Limit; 6] = [
        ("maxLength", len(old.max_length), len(new.max_length), false, "request-max-length-decreased"),
        ("minLength", len(old.min_length), len(new.min_length), true, "request-min-length-increased"),
        ("maxItems", len(old.max_items), len(new.max_items), false, "request-max-items-decreased"),
        ("minItems", len(old.min_items), len(new.min_items), true, "request-min-items-increased"),
        ("maxProperties", number(ra, "maxProperties"), number(rb, "maxProperties"), false, "request-max-properties-decreased"),
        ("minProperties", number(ra, "minProperties"), number(rb, "minProperties"), true, "request-min-properties-increased"),
    ];
    let mut out = Vec::new();
    let mut judge = |tighter: bool, rule: &'static str, message: String| match (dir, tighter) {
        (Dir::Request, true) => out.push((rule, message)),
        (Dir::Request, false) => out.push(("request-limits-relaxed", message)),
        (Dir::Response, false) => out.push(("response-limits-widened", message)),
        (Dir::Response, true) => {}
    };
    for (keyword, a, b, larger_is_tighter, tightened) in checks {
        let tighter = match (a, b) {
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(x), Some(y)) if x == y => continue,
            (Some(x), Some(y)) => (y > x) == larger_is_tighter,
            (None, None) => continue,
        };
        judge(
            tighter,
            tightened,
            format!("{keyword} {} became {}", num(a), num(b)),
        );
    }
    // The range, with 3.0's boolean and 3.1's numeric exclusive bounds read alike.
    for upper in [true, false] {
        let (a, b) = (bound(old, ra, upper), bound(new, rb, upper));
        let tighter = match (a, b) {
            (None, None) => continue,
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(x), Some(y)) if x == y => continue,
            (Some(x), Some(y)) if x.value == y.value => y.exclusive,
            (Some(x), Some(y)) => (y.value < x.value) == upper,
        };
        let rule = match (upper, b.is_some_and(|b| b.exclusive)) {
            (true, false) => "request-maximum-decreased",
            (true, true) => "request-exclusive-maximum-decreased",
            (false, false) => "request-minimum-increased",
            (false, true) => "request-exclusive-minimum-increased",
        };
        let message = format!("{} became {}", Bound::show(a, upper), Bound::show(b, upper));
        judge(tighter, rule, message);
    }
    // multipleOf: the new one admits every value the old one did only when the old is a
    // whole multiple of it.
    let (a, b) = (number(ra, "multipleOf"), number(rb, "multipleOf"));
    let tighter = match (a, b) {
        (None, Some(_)) => Some(true),
        (Some(_), None) => Some(false),
        (Some(x), Some(y)) if x != y && y != 0.0 => {
            let ratio = x / y;
            Some((ratio - ratio.round()).abs() > 1e-9)
        }
        _ => None,
    };
    if let Some(tighter) = tighter {
        let message = format!("multipleOf {} became {}", num(a), num(b));
        judge(tighter, "request-multiple-of-changed", message);
    }
    // uniqueItems.
    let flag = |node: Option<&Value>| {
        node.and_then(|n| n.get("uniqueItems"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    if flag(ra) != flag(rb) {
        let message = format!("uniqueItems {} became {}", flag(ra), flag(rb));
        judge(flag(rb), "request-unique-items-set", message);
    }
    // additionalProperties: false refuses the properties a schema does not name; absent,
    // `true` or a schema admits them (a schema's own changes are compared as a schema).
    let closed = |node: Option<&Value>| {
        node.and_then(|n| n.get("additionalProperties"))
            .and_then(Value::as_bool)
            == Some(false)
    };
    if closed(ra) != closed(rb) {
        let shown = |c: bool| if c { "false" } else { "allowed" };
        let message = format!(
            "additionalProperties {} became {}",
            shown(closed(ra)),
            shown(closed(rb))
        );
        judge(
            closed(rb),
            "request-additional-properties-restricted",
            message,
        );
    }
    // pattern: set is tighter, dropped is looser; a changed pattern may refuse values the
    // old one accepted (whether it does is not worked out), and may admit others.
    let text = |node: Option<&Value>| node?.get("pattern")?.as_str().map(str::to_owned);
    let (a, b) = (text(ra), text(rb));
    if a != b {
        let shown =
            |p: &Option<String>| p.as_ref().map_or("unset".to_owned(), |p| format!("`{p}`"));
        let message = format!("pattern {} became {}", shown(&a), shown(&b));
        match (&a, &b) {
            (None, Some(_)) => judge(true, "request-pattern-added", message),
            (Some(_), None) => judge(false, "request-pattern-added", message),
            (Some(pa), Some(pb)) => match dir {
                Dir::Request => {
                    let (na, nb) = (ra.unwrap_or(&Value::Null), rb.unwrap_or(&Value::Null));
                    match crate::probe::refused_by_new_pattern(na, nb, pa, pb) {
                        Ok(Some(value)) => out.push((
                            "request-pattern-changed",
                            format!("{message}: {value:?} matched before and is refused now"),
                        )),
                        Ok(None) => out.push((
                            "request-pattern-rewritten",
                            format!(
                                "{message}: none of the strings generated from the old \
                                 pattern is refused (evidence, not proof)"
                            ),
                        )),
                        // No string could be made from the old pattern: nothing is known.
                        Err(_) => out.push(("request-pattern-changed", message)),
                    }
                }
                Dir::Response => out.push(("response-limits-widened", message)),
            },
            _ => {}
        }
    }
    out
}

/// One end of a numeric range.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bound {
    value: f64,
    exclusive: bool,
}

impl Bound {
    fn show(b: Option<Bound>, upper: bool) -> String {
        let Some(b) = b else {
            return "unset".to_owned();
        };
        let keyword = match (upper, b.exclusive) {
            (true, false) => "maximum",
            (true, true) => "exclusiveMaximum",
            (false, false) => "minimum",
            (false, true) => "exclusiveMinimum",
        };
        format!("{keyword} {}", b.value)
    }
}

/// The upper (or lower) bound of a schema: `maximum` from the model, made exclusive by
/// 3.0's `exclusiveMaximum: true`, or 3.1's numeric `exclusiveMaximum` when it is the
/// tighter of the two.
fn bound(s: &Schema, raw: Option<&Value>, upper: bool) -> Option<Bound> {
    let (inclusive, keyword) = if upper {
        (s.maximum, "exclusiveMaximum")
    } else {
        (s.minimum, "exclusiveMinimum")
    };
    let exclusive = raw.and_then(|r| r.get(keyword));
    let flagged = exclusive.and_then(Value::as_bool).unwrap_or(false);
    let a = inclusive.map(|value| Bound {
        value,
        exclusive: flagged,
    });
    let b = exclusive.and_then(Value::as_f64).map(|value| Bound {
        value,
        exclusive: true,
    });
    match (a, b) {
        (Some(a), Some(b)) => {
            let b_tighter = if upper {
                b.value <= a.value
            } else {
                b.value >= a.value
            };
            Some(if b_tighter { b } else { a })
        }
        (a, b) => a.or(b),
    }
}

fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "unset".to_owned(), |v| v.to_string())
}

fn shown(v: Option<&str>) -> String {
    v.map_or_else(|| "(none)".to_owned(), |v| format!("`{v}`"))
}

fn fmt(f: Option<&str>) -> String {
    f.map(|f| format!(" ({f})")).unwrap_or_default()
}

fn join(set: &BTreeSet<String>) -> String {
    set.iter().cloned().collect::<Vec<_>>().join(", ")
}

fn names(alts: &BTreeSet<BTreeSet<String>>) -> String {
    alts.iter()
        .map(|a| format!("[{}]", join(a)))
        .collect::<Vec<_>>()
        .join(" or ")
}

fn list(values: &[&Value]) -> String {
    values
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn nullable(s: &Schema) -> bool {
    s.nullable
        || matches!(&s.kind, Some(SchemaType::Many(ts)) if ts.iter().any(|t| t == "null"))
        || matches!(&s.kind, Some(SchemaType::One(t)) if t == "null")
}

/// Whether a value of types `wide`/format `wf` accepts everything of `narrow`/`nf`.
fn accepts(
    wide: &BTreeSet<String>,
    wf: Option<&str>,
    narrow: &BTreeSet<String>,
    nf: Option<&str>,
) -> bool {
    let types_ok = narrow
        .iter()
        .all(|t| wide.contains(t) || (t == "integer" && wide.contains("number")));
    // int64 and double hold every integer and number a JSON parser reads, so they
    // narrow nothing in practice; float or double take the integers of `integer`.
    let only_integers = narrow.iter().all(|t| t == "integer");
    let format_ok = match (wf, nf) {
        (None, _) => true,
        (Some(a), Some(b)) if a == b => true,
        (Some("int64"), Some("int32") | None) | (Some("double"), Some("float") | None) => true,
        (Some("float" | "double"), _) if only_integers => true,
        _ => false,
    };
    types_ok && format_ok
}

/// Parameters in force for an operation (path-level ones unless the operation overrides
/// them), by location and name, each with the pointer of the node that defines it.
fn effective_parameters<'s>(
    spec: &'s OpenApi,
    path: &str,
    method: &str,
    op: &'s Operation,
) -> indexmap::IndexMap<(String, String), (&'s Parameter, String)> {
    let mut out = indexmap::IndexMap::new();
    let item_ptr = push_pointer("/paths", path);
    let item = &spec.paths[path];
    let levels = [
        (&item.parameters, push_pointer(&item_ptr, "parameters")),
        (
            &op.parameters,
            push_pointer(&push_pointer(&item_ptr, method), "parameters"),
        ),
    ];
    for (params, base) in levels {
        for (i, p) in params.iter().enumerate() {
            let refs::Target {
                node: p,
                pointer: ptr,
                ..
            } = followed(spec, p, &push_pointer(&base, &i.to_string()));
            let key = (
                p.location.clone().unwrap_or_default(),
                p.name.clone().unwrap_or_default(),
            );
            out.insert(key, (p, ptr));
        }
    }
    out
}

/// A parameter's style and explode, with OpenAPI's defaults filled in.
fn encoding(p: &Parameter) -> (String, bool) {
    let style = p.style.clone().unwrap_or_else(|| {
        match p.location.as_deref() {
            Some("query") | Some("cookie") => "form",
            _ => "simple",
        }
        .to_owned()
    });
    let explode = p.explode.unwrap_or(style == "form");
    (style, explode)
}

/// `item` with its `$ref`s followed by the resolver every crate shares, with its pointer
/// and the last component passed. A reference that cannot be followed (dangling, or a
/// cycle) leaves the item as written: the diff compares what the document says.
fn followed<'s, T: Component>(spec: &'s OpenApi, item: &'s T, ptr: &str) -> refs::Target<'s, T> {
    refs::follow(spec, item, ptr).unwrap_or_else(|_| refs::Target {
        node: item,
        pointer: ptr.to_owned(),
        name: None,
    })
}

/// Where a schema leads once its `$ref`s are followed and its wrappers (`anyOf: [X,
/// null]`, `allOf: [X]`) opened: the schema that says what the value is, its pointer, the
/// last component passed, and whether null is allowed on the way.
struct End<'s> {
    node: &'s Schema,
    pointer: String,
    name: Option<String>,
    null: bool,
}

impl<'s> End<'s> {
    fn of(spec: &'s OpenApi, s: &'s Schema, at: &str) -> End<'s> {
        let mut end = End {
            node: s,
            pointer: at.to_owned(),
            name: None,
            null: false,
        };
        // Each step opens one reference chain and one wrapper; a document whose wrappers
        // come back to themselves stops where it came back.
        for _ in 0..32 {
            let t = followed(spec, end.node, &end.pointer);
            end.node = t.node;
            end.pointer = t.pointer;
            end.name = t.name.map(str::to_owned).or(end.name);
            end.null |= nullable(end.node);
            let Some((keyword, i, null)) = shape::wrapped(spec, end.node) else {
                break;
            };
            end.null |= null;
            end.node = match keyword {
                "allOf" => &end.node.all_of[i],
                "anyOf" => &end.node.any_of[i],
                _ => &end.node.one_of[i],
            };
            end.pointer = push_pointer(&push_pointer(&end.pointer, keyword), &i.to_string());
        }
        if let Some(u) = shape::union(spec, end.node) {
            end.null |= u.null;
        }
        end
    }
}

/// Two schemas met at the same place of the old and the new document, and what their
/// findings are about.
#[derive(Clone, Copy)]
struct Met<'s, 'a> {
    dir: Dir,
    old: &'a Schema,
    new: &'a Schema,
    old_ptr: &'s str,
    new_ptr: &'s str,
    subject: Option<&'s str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(json: Value) -> (Schema, Value) {
        (serde_json::from_value(json.clone()).expect("schema"), json)
    }

    fn found(dir: Dir, old: Value, new: Value) -> Vec<&'static str> {
        let ((a, ra), (b, rb)) = (schema(old), schema(new));
        limits(dir, &a, &b, (Some(&ra), Some(&rb)))
            .into_iter()
            .map(|(rule, _)| rule)
            .collect()
    }

    #[test]
    fn exclusive_bounds_of_3_0_and_3_1_are_the_same_bound() {
        let v30 = serde_json::json!({"type": "integer", "maximum": 50, "exclusiveMaximum": true,
                                     "minimum": 0, "exclusiveMinimum": true});
        let v31 =
            serde_json::json!({"type": "integer", "exclusiveMaximum": 50, "exclusiveMinimum": 0});
        assert!(found(Dir::Request, v30.clone(), v31.clone()).is_empty());
        assert!(found(Dir::Request, v31, v30).is_empty());
    }

    #[test]
    fn a_bound_is_judged_by_value_then_exclusivity() {
        let max = |m: Value| serde_json::json!({"maximum": m});
        let ex = |m: Value| serde_json::json!({"exclusiveMaximum": m});
        // maximum 50 to exclusiveMaximum 50: tighter, named by the exclusive keyword.
        assert_eq!(
            found(Dir::Request, max(50.into()), ex(50.into())),
            ["request-exclusive-maximum-decreased"]
        );
        // exclusiveMaximum 50 to maximum 40: tighter, an inclusive maximum.
        assert_eq!(
            found(Dir::Request, ex(50.into()), max(40.into())),
            ["request-maximum-decreased"]
        );
        // exclusiveMaximum 50 to maximum 50: looser.
        assert_eq!(
            found(Dir::Request, ex(50.into()), max(50.into())),
            ["request-limits-relaxed"]
        );
        // Both keywords in 3.1: the tighter one is the bound.
        let both = serde_json::json!({"maximum": 50, "exclusiveMaximum": 40});
        assert_eq!(found(Dir::Request, ex(40.into()), both), Vec::<&str>::new());
    }

    #[test]
    fn multiple_of_is_tighter_unless_the_old_step_is_a_multiple_of_the_new() {
        let m = |v: f64| serde_json::json!({"multipleOf": v});
        assert_eq!(
            found(Dir::Request, m(10.0), m(5.0)),
            ["request-limits-relaxed"]
        );
        assert_eq!(
            found(Dir::Request, m(5.0), m(10.0)),
            ["request-multiple-of-changed"]
        );
        assert_eq!(
            found(Dir::Request, m(0.5), m(0.2)),
            ["request-multiple-of-changed"]
        );
        assert_eq!(
            found(Dir::Response, m(10.0), m(5.0)),
            ["response-limits-widened"]
        );
        assert!(found(Dir::Response, m(5.0), m(10.0)).is_empty());
    }

    #[test]
    fn a_pattern_dropped_relaxes_and_changed_in_an_answer_widens() {
        let p = |v: &str| serde_json::json!({"type": "string", "pattern": v});
        let none = serde_json::json!({"type": "string"});
        assert_eq!(
            found(Dir::Request, p("^a$"), none.clone()),
            ["request-limits-relaxed"]
        );
        assert_eq!(
            found(Dir::Request, none, p("^a$")),
            ["request-pattern-added"]
        );
        assert_eq!(
            found(Dir::Response, p("^a$"), p("^b$")),
            ["response-limits-widened"]
        );
    }
}
