//! Following `$ref`s: the one resolver of the workspace.
//!
//! The generator, the harness and the spec diff all follow a parameter's, a body's, an
//! answer's, an answer header's or a schema's `$ref` through [`follow`] (typed) or [`follow_value`] (the
//! untyped tree, for the JSON Schemas and examples read by pointer), so what a reference
//! names, and when it names nothing, is decided once. A chain of references is followed to
//! its end; a chain that comes back to a reference it passed is a [`RefError::Cycle`], not
//! a loop, and the check needs no depth limit because a document has finitely many
//! references.
//!
//! Only local references (`#/...`) are read: a spec split over several files is made one
//! by [`crate::bundle`] first. The pointer is a URI fragment, so it is percent-decoded
//! before its `~1`/`~0` escapes are read (RFC 6901, section 6).

use std::fmt;

use indexmap::IndexMap;
use serde_json::Value;

use crate::model::{
    AdditionalProperties, Components, Header, OpenApi, Parameter, PathItem, RequestBody, Response,
    Schema,
};
use crate::{Located, push_pointer};

/// Why a `$ref` could not be followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefError {
    /// The reference is not of a form the resolver reads for this kind of node.
    Unsupported {
        /// The reference as written.
        reference: String,
        /// What is read instead, to say in the message.
        expected: String,
    },
    /// The reference names a node the document does not have.
    Dangling {
        /// The reference as written.
        reference: String,
        /// What was looked for: `schema of `components.schemas``, or `node` for a pointer
        /// outside the components.
        what: String,
    },
    /// The chain of references comes back to this one.
    Cycle {
        /// The reference met twice.
        reference: String,
    },
}

impl RefError {
    /// The error at the `$ref` of the node at `holder`.
    #[must_use]
    pub fn at(&self, holder: &str) -> Located {
        Located::new(push_pointer(holder, "$ref"), self.to_string())
    }

    /// Whether the reference names something that is not there (as opposed to a form the
    /// resolver does not read, or a cycle).
    #[must_use]
    pub fn is_dangling(&self) -> bool {
        matches!(self, Self::Dangling { .. })
    }
}

impl fmt::Display for RefError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unsupported {
                reference,
                expected,
            } => write!(f, "unsupported $ref `{reference}`: expected {expected}"),
            Self::Dangling { reference, what } => {
                write!(f, "$ref `{reference}` points at no {what}")
            }
            Self::Cycle { reference } => write!(
                f,
                "$ref `{reference}` leads back to itself: the references form a cycle"
            ),
        }
    }
}

impl std::error::Error for RefError {}

/// What a pointer outside `components/<section>/<name>` names, for one kind of node.
#[derive(Debug)]
pub enum Elsewhere<'s, T> {
    /// The pointer is not of a form this kind of node is read at.
    Unread,
    /// It is, but the document has nothing there.
    Missing,
    /// The node there.
    Found(&'s T),
}

impl<'s, T> From<Option<&'s T>> for Elsewhere<'s, T> {
    fn from(node: Option<&'s T>) -> Self {
        node.map_or(Self::Missing, Self::Found)
    }
}

/// A node of the typed model a `$ref` can name: its section of `components` and the
/// other places a reference may point at.
pub trait Component: Sized {
    /// The section of `components` (`schemas`, `parameters`, ...).
    const SECTION: &'static str;
    /// What one is called in a message (`schema`, `request body`, ...).
    const WHAT: &'static str;

    /// The node's own `$ref`, if it is one.
    fn reference(&self) -> Option<&str>;

    /// The named nodes of this kind.
    fn section(components: &Components) -> &IndexMap<String, Self>;

    /// The node at a pointer outside `components/<section>/<name>` (its decoded tokens),
    /// where specs are seen to point: another operation's body or parameter, a property
    /// of a component schema.
    fn elsewhere<'s>(_spec: &'s OpenApi, _tokens: &[String]) -> Elsewhere<'s, Self> {
        Elsewhere::Unread
    }

    /// The forms read besides `#/components/<section>/<name>`, to say in a message.
    const ELSEWHERE: &'static str = "";
}

impl Component for Schema {
    const SECTION: &'static str = "schemas";
    const WHAT: &'static str = "schema";
    const ELSEWHERE: &'static str = " or a pointer to a schema anywhere one sits (inside a \
         component schema, an operation's or a component's parameter, request body or \
         response, a component header)";

    fn reference(&self) -> Option<&str> {
        self.reference.as_deref()
    }

    fn section(components: &Components) -> &IndexMap<String, Self> {
        &components.schemas
    }

    fn elsewhere<'s>(spec: &'s OpenApi, tokens: &[String]) -> Elsewhere<'s, Self> {
        match tokens {
            [components, section, name, rest @ ..]
                if components == "components" && section == Self::SECTION && !rest.is_empty() =>
            {
                inside(spec.components.schemas.get(name), rest).into()
            }
            _ => match schema_holder(spec, tokens) {
                Some((schema, rest)) => inside(schema, rest).into(),
                None => Elsewhere::Unread,
            },
        }
    }
}

/// The schema a pointer outside `components/schemas` starts from, and the rest of the
/// pointer inside it: the `schema` of a media type (a request body's or a response's, in
/// an operation or in `components`) or of a parameter. `None` for a pointer of no such
/// form; `Some((None, _))` when it has that form but the document has no node there (or
/// reaches it only through a `$ref`, which a pointer does not follow).
fn schema_holder<'s, 't>(
    spec: &'s OpenApi,
    tokens: &'t [String],
) -> Option<(Option<&'s Schema>, &'t [String])> {
    let media = |content: Option<&'s IndexMap<String, crate::model::MediaType>>,
                 media: &str,
                 schema: &str| {
        (schema == "schema").then(|| content.and_then(|c| c.get(media)?.schema.as_ref()))
    };
    let parameter = |list: Option<&'s Vec<Parameter>>, i: &str| {
        list.and_then(|l| l.get(i.parse::<usize>().ok()?)?.schema.as_ref())
    };
    let (schema, rest) = match tokens {
        [
            paths,
            path,
            method,
            responses,
            status,
            content,
            m,
            schema,
            rest @ ..,
        ] if paths == "paths" && responses == "responses" && content == "content" => {
            let response = operation(spec, path, method).and_then(|op| op.responses.get(status));
            (media(response.map(|r| &r.content), m, schema)?, rest)
        }
        [paths, path, method, body, content, m, schema, rest @ ..]
            if paths == "paths" && body == "requestBody" && content == "content" =>
        {
            let body = operation(spec, path, method).and_then(|op| op.request_body.as_ref());
            (media(body.map(|b| &b.content), m, schema)?, rest)
        }
        [paths, path, parameters, i, schema, rest @ ..]
            if paths == "paths" && parameters == "parameters" && schema == "schema" =>
        {
            let list = spec.paths.get(path).map(|item| &item.parameters);
            (parameter(list, i), rest)
        }
        [paths, path, method, parameters, i, schema, rest @ ..]
            if paths == "paths" && parameters == "parameters" && schema == "schema" =>
        {
            let list = operation(spec, path, method).map(|op| &op.parameters);
            (parameter(list, i), rest)
        }
        [components, section, name, content, m, schema, rest @ ..]
            if components == "components" && content == "content" =>
        {
            let content = match section.as_str() {
                "responses" => spec.components.responses.get(name).map(|r| &r.content),
                "requestBodies" => spec.components.request_bodies.get(name).map(|b| &b.content),
                _ => return None,
            };
            (media(content, m, schema)?, rest)
        }
        [components, section, name, schema, rest @ ..]
            if components == "components" && section == "parameters" && schema == "schema" =>
        {
            let p = spec.components.parameters.get(name);
            (p.and_then(|p| p.schema.as_ref()), rest)
        }
        [components, section, name, schema, rest @ ..]
            if components == "components" && section == "headers" && schema == "schema" =>
        {
            let h = spec.components.headers.get(name);
            (h.and_then(|h| h.schema.as_ref()), rest)
        }
        _ => return None,
    };
    Some((schema, rest))
}

/// The schema at `rest` (decoded tokens) inside `schema` (`schema` itself for no tokens).
fn inside<'s>(schema: Option<&'s Schema>, rest: &[String]) -> Option<&'s Schema> {
    let mut schema = schema?;
    let mut rest = rest;
    while let [key, tail @ ..] = rest {
        let (next, tail) = match (key.as_str(), tail) {
            ("properties", [name, tail @ ..]) => (schema.properties.get(name)?, tail),
            ("items", tail) => (schema.items.as_deref()?, tail),
            ("additionalProperties", tail) => match &schema.additional_properties {
                Some(AdditionalProperties::Schema(s)) => (&**s, tail),
                _ => return None,
            },
            (list @ ("allOf" | "oneOf" | "anyOf" | "prefixItems"), [i, tail @ ..]) => {
                let list = match list {
                    "allOf" => &schema.all_of,
                    "oneOf" => &schema.one_of,
                    "anyOf" => &schema.any_of,
                    _ => &schema.prefix_items,
                };
                (list.get(i.parse::<usize>().ok()?)?, tail)
            }
            _ => return None,
        };
        schema = next;
        rest = tail;
    }
    Some(schema)
}

impl Component for Parameter {
    const SECTION: &'static str = "parameters";
    const WHAT: &'static str = "parameter";
    const ELSEWHERE: &'static str = " or `#/paths/<path>[/<method>]/parameters/<index>`";

    fn reference(&self) -> Option<&str> {
        self.reference.as_deref()
    }

    fn section(components: &Components) -> &IndexMap<String, Self> {
        &components.parameters
    }

    fn elsewhere<'s>(spec: &'s OpenApi, tokens: &[String]) -> Elsewhere<'s, Self> {
        let index = |list: Option<&'s Vec<Parameter>>, i: &str| {
            list.and_then(|l| l.get(i.parse::<usize>().ok()?)).into()
        };
        match tokens {
            [paths, path, parameters, i] if paths == "paths" && parameters == "parameters" => {
                index(spec.paths.get(path).map(|item| &item.parameters), i)
            }
            [paths, path, method, parameters, i]
                if paths == "paths" && parameters == "parameters" =>
            {
                index(operation(spec, path, method).map(|op| &op.parameters), i)
            }
            _ => Elsewhere::Unread,
        }
    }
}

impl Component for Header {
    const SECTION: &'static str = "headers";
    const WHAT: &'static str = "header";
    const ELSEWHERE: &'static str = " or `#/paths/<path>/<method>/responses/<status>/headers/<name>` \
         or `#/components/responses/<name>/headers/<name>`";

    fn reference(&self) -> Option<&str> {
        self.reference.as_deref()
    }

    fn section(components: &Components) -> &IndexMap<String, Self> {
        &components.headers
    }

    fn elsewhere<'s>(spec: &'s OpenApi, tokens: &[String]) -> Elsewhere<'s, Self> {
        match tokens {
            [paths, path, method, responses, status, headers, name]
                if paths == "paths" && responses == "responses" && headers == "headers" =>
            {
                operation(spec, path, method)
                    .and_then(|op| op.responses.get(status))
                    .and_then(|r| r.headers.get(name))
                    .into()
            }
            [components, responses, response, headers, name]
                if components == "components"
                    && responses == "responses"
                    && headers == "headers" =>
            {
                spec.components
                    .responses
                    .get(response)
                    .and_then(|r| r.headers.get(name))
                    .into()
            }
            _ => Elsewhere::Unread,
        }
    }
}

impl Component for RequestBody {
    const SECTION: &'static str = "requestBodies";
    const WHAT: &'static str = "request body";
    const ELSEWHERE: &'static str = " or `#/paths/<path>/<method>/requestBody`";

    fn reference(&self) -> Option<&str> {
        self.reference.as_deref()
    }

    fn section(components: &Components) -> &IndexMap<String, Self> {
        &components.request_bodies
    }

    fn elsewhere<'s>(spec: &'s OpenApi, tokens: &[String]) -> Elsewhere<'s, Self> {
        match tokens {
            [paths, path, method, body] if paths == "paths" && body == "requestBody" => {
                operation(spec, path, method)
                    .and_then(|op| op.request_body.as_ref())
                    .into()
            }
            _ => Elsewhere::Unread,
        }
    }
}

impl Component for Response {
    const SECTION: &'static str = "responses";
    const WHAT: &'static str = "response";
    const ELSEWHERE: &'static str = " or `#/paths/<path>/<method>/responses/<status>`";

    fn reference(&self) -> Option<&str> {
        self.reference.as_deref()
    }

    fn section(components: &Components) -> &IndexMap<String, Self> {
        &components.responses
    }

    fn elsewhere<'s>(spec: &'s OpenApi, tokens: &[String]) -> Elsewhere<'s, Self> {
        match tokens {
            [paths, path, method, responses, status]
                if paths == "paths" && responses == "responses" =>
            {
                operation(spec, path, method)
                    .and_then(|op| op.responses.get(status))
                    .into()
            }
            _ => Elsewhere::Unread,
        }
    }
}

fn operation<'s>(
    spec: &'s OpenApi,
    path: &str,
    method: &str,
) -> Option<&'s crate::model::Operation> {
    spec.paths
        .get(path)?
        .operations()
        .into_iter()
        .find(|(m, _)| *m == method)
        .map(|(_, op)| op)
}

/// Where a reference led: the node, its pointer, and the component it is (`None` for a
/// node reached by a pointer outside `components/<section>/<name>`).
#[derive(Debug)]
pub struct Target<'s, T> {
    /// The node named.
    pub node: &'s T,
    /// Its JSON pointer in the document.
    pub pointer: String,
    /// Its key in `components/<section>`, when it is a component.
    pub name: Option<&'s str>,
}

impl<'s, T> Target<'s, T> {
    /// The node and its pointer, for a caller that does not need the component's name.
    #[must_use]
    pub fn into_parts(self) -> (&'s T, String) {
        (self.node, self.pointer)
    }
}

/// The key in `components/<section>` a reference of the form
/// `#/components/<section>/<name>` names, decoded; `None` for any other reference. The
/// component is not looked up: for a walk that counts or matches names.
#[must_use]
pub fn component_name<T: Component>(reference: &str) -> Option<String> {
    if let Some(name) = plain_component::<T>(reference) {
        return Some(name.to_owned());
    }
    match <[String; 3]>::try_from(tokens(reference)?) {
        Ok([components, section, name]) if components == "components" && section == T::SECTION => {
            Some(name)
        }
        _ => None,
    }
}

/// The node one reference names, without following the target's own `$ref`.
///
/// # Errors
/// [`RefError::Unsupported`] for a reference that is not local or not of a form this kind
/// of node is read at, [`RefError::Dangling`] when the document has no such node.
pub fn lookup<'s, T: Component>(
    spec: &'s OpenApi,
    reference: &str,
) -> Result<Target<'s, T>, RefError> {
    let unsupported = || RefError::Unsupported {
        reference: reference.to_owned(),
        expected: if reference.contains("://") {
            URL_LEFT.to_owned()
        } else {
            format!("`#/components/{}/<name>`{}", T::SECTION, T::ELSEWHERE)
        },
    };
    if let Some(name) = plain_component::<T>(reference) {
        return T::section(&spec.components)
            .get_key_value(name)
            .map(|(name, node)| Target {
                node,
                pointer: ["/components/", T::SECTION, "/", name].concat(),
                name: Some(name.as_str()),
            })
            .ok_or_else(|| RefError::Dangling {
                reference: reference.to_owned(),
                what: format!("{} of `components.{}`", T::WHAT, T::SECTION),
            });
    }
    let tokens = tokens(reference).ok_or_else(unsupported)?;
    if let [components, section, name] = tokens.as_slice()
        && components == "components"
        && section == T::SECTION
    {
        return T::section(&spec.components)
            .get_key_value(name)
            .map(|(name, node)| Target {
                node,
                pointer: push_pointer(&format!("/components/{}", T::SECTION), name),
                name: Some(name.as_str()),
            })
            .ok_or_else(|| RefError::Dangling {
                reference: reference.to_owned(),
                what: format!("{} of `components.{}`", T::WHAT, T::SECTION),
            });
    }
    match T::elsewhere(spec, &tokens) {
        Elsewhere::Found(node) => Ok(Target {
            node,
            pointer: pointer(&tokens),
            name: None,
        }),
        Elsewhere::Missing => Err(RefError::Dangling {
            reference: reference.to_owned(),
            what: T::WHAT.to_owned(),
        }),
        Elsewhere::Unread => Err(unsupported()),
    }
}

/// Follows `item`'s `$ref`s (it sits at `at`) to a node that is not a reference: that
/// node, its pointer, and the last component passed through (the name a generator gives
/// the type). An item that is not a reference is its own target, at `at`.
///
/// # Errors
/// The first reference of the chain that cannot be followed, located at the `$ref` that
/// holds it.
pub fn follow<'s, T: Component>(
    spec: &'s OpenApi,
    item: &'s T,
    at: &str,
) -> Result<Target<'s, T>, Located> {
    let mut current = Target {
        node: item,
        pointer: at.to_owned(),
        name: None,
    };
    let mut seen: Vec<&str> = Vec::new();
    while let Some(reference) = current.node.reference() {
        if seen.contains(&reference) {
            return Err(RefError::Cycle {
                reference: reference.to_owned(),
            }
            .at(&current.pointer));
        }
        seen.push(reference);
        let next = lookup::<T>(spec, reference).map_err(|e| e.at(&current.pointer))?;
        current = Target {
            name: next.name.or(current.name),
            ..next
        };
    }
    Ok(current)
}

/// What a `$ref` to a URL should have been, once the bundler (which reads URLs only when
/// asked) has left it.
const URL_LEFT: &str = "a local pointer or a file; a URL is read only when asked (`--url-refs`)";

/// The node one reference names in an untyped tree, with its pointer, without following
/// the target's own `$ref`. Any local pointer is read.
///
/// # Errors
/// [`RefError::Unsupported`] for a reference that is not local, [`RefError::Dangling`]
/// when the document has nothing at the pointer.
pub fn lookup_value<'a>(doc: &'a Value, reference: &str) -> Result<(&'a Value, String), RefError> {
    let tokens = tokens(reference).ok_or_else(|| RefError::Unsupported {
        reference: reference.to_owned(),
        expected: if reference.contains("://") {
            URL_LEFT
        } else {
            "a local reference (`#/...`)"
        }
        .to_owned(),
    })?;
    let ptr = pointer(&tokens);
    let node = doc.pointer(&ptr).ok_or_else(|| RefError::Dangling {
        reference: reference.to_owned(),
        what: "node of the document".to_owned(),
    })?;
    Ok((node, ptr))
}

/// Follows the `$ref`s at the top of an untyped node (`node` of `doc`, at `at`) to one
/// that is not a reference, with its pointer.
///
/// # Errors
/// As [`follow`]: a reference that is not local, names nothing, or comes back.
pub fn follow_value<'a>(
    doc: &'a Value,
    node: &'a Value,
    at: &str,
) -> Result<(&'a Value, String), Located> {
    let mut current = (node, at.to_owned());
    let mut seen: Vec<&str> = Vec::new();
    while let Some(reference) = current.0.get("$ref").and_then(Value::as_str) {
        if seen.contains(&reference) {
            return Err(RefError::Cycle {
                reference: reference.to_owned(),
            }
            .at(&current.1));
        }
        seen.push(reference);
        current = lookup_value(doc, reference).map_err(|e| e.at(&current.1))?;
    }
    Ok(current)
}

/// The path item a `$ref` of one names: another entry of `paths` (`#/paths/~1ip-address`,
/// how specs give one operation two paths), followed through such entries to one that is
/// not a reference; `None` for any other reference, a missing entry or a cycle.
pub fn path_item<'s>(spec: &'s OpenApi, reference: &str) -> Option<(&'s str, &'s PathItem)> {
    let mut reference = reference.to_owned();
    for _ in 0..=spec.paths.len() {
        let tokens = tokens(&reference)?;
        let [paths, path] = tokens.as_slice() else {
            return None;
        };
        if paths != "paths" {
            return None;
        }
        let (path, item) = spec.paths.get_key_value(path)?;
        match &item.reference {
            Some(next) => reference = next.clone(),
            None => return Some((path.as_str(), item)),
        }
    }
    None
}

/// The name in `#/components/<section>/<name>` when it needs no decoding (no `%`, `~`
/// or further `/`): what nearly every reference is. The lowering looks references up
/// thousands of times on a large spec; decoding each one into owned tokens first was a
/// twentieth of the generator's instructions. Anything else is left to [`tokens`].
fn plain_component<T: Component>(reference: &str) -> Option<&str> {
    let name = reference
        .strip_prefix("#/components/")?
        .strip_prefix(T::SECTION)?
        .strip_prefix('/')?;
    (!name.contains(['/', '~', '%'])).then_some(name)
}

/// The decoded tokens of a local reference, `None` for one that is not local.
fn tokens(reference: &str) -> Option<Vec<String>> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(Vec::new());
    }
    let fragment = fragment.strip_prefix('/')?;
    let decoded = percent_encoding::percent_decode_str(fragment)
        .decode_utf8()
        .ok()?;
    Some(
        decoded
            .split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

/// The JSON pointer of decoded tokens.
fn pointer(tokens: &[String]) -> String {
    tokens
        .iter()
        .fold(String::new(), |p, t| push_pointer(&p, t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1"},
            "paths": {
                "/a/{id}": {
                    "parameters": [{"name": "id", "in": "path", "required": true}],
                    "post": {
                        "parameters": [{"$ref": "#/components/parameters/Alias"}],
                        "requestBody": {"content": {"application/json": {}}},
                        "responses": {"200": {"description": "ok"}}
                    }
                }
            },
            "components": {
                "schemas": {
                    "Pet": {"type": "object", "properties": {"tag": {"type": "string"}}},
                    "Alias": {"$ref": "#/components/schemas/Pet"},
                    "Tag": {"$ref": "#/components/schemas/Pet/properties/tag"},
                    "A/B": {"type": "integer"},
                    "Loop1": {"$ref": "#/components/schemas/Loop2"},
                    "Loop2": {"$ref": "#/components/schemas/Loop1"}
                },
                "parameters": {
                    "Alias": {"$ref": "#/paths/~1a~1%7Bid%7D/parameters/0"}
                },
                "requestBodies": {
                    "Shared": {"$ref": "#/paths/~1a~1{id}/post/requestBody"}
                }
            }
        })
    }

    fn spec() -> OpenApi {
        serde_json::from_value(doc()).unwrap()
    }

    fn schema_ref(r: &str) -> Schema {
        Schema {
            reference: Some(r.to_owned()),
            ..Schema::default()
        }
    }

    #[test]
    fn a_chain_is_followed_to_its_end_keeping_the_last_component() {
        let spec = spec();
        let start = schema_ref("#/components/schemas/Alias");
        let t = follow(&spec, &start, "/x").unwrap();
        assert_eq!(t.pointer, "/components/schemas/Pet");
        assert_eq!(t.name, Some("Pet"));
        assert!(t.node.properties.contains_key("tag"));
    }

    #[test]
    fn escaped_and_percent_encoded_pointers_are_decoded() {
        let spec = spec();
        let start = schema_ref("#/components/schemas/A~1B");
        let t = follow(&spec, &start, "/x").unwrap();
        assert_eq!(t.name, Some("A/B"));
        let p = follow(&spec, &spec.components.parameters["Alias"], "/p").unwrap();
        assert_eq!(p.node.name.as_deref(), Some("id"));
        assert_eq!(p.pointer, "/paths/~1a~1{id}/parameters/0");
        assert_eq!(p.name, None);
    }

    #[test]
    fn pointers_outside_the_components_are_read_where_specs_put_them() {
        let spec = spec();
        let b = follow(&spec, &spec.components.request_bodies["Shared"], "/b").unwrap();
        assert_eq!(b.pointer, "/paths/~1a~1{id}/post/requestBody");
        let tag = follow(&spec, &spec.components.schemas["Tag"], "/t").unwrap();
        assert_eq!(tag.pointer, "/components/schemas/Pet/properties/tag");
        // The name is the last component passed, not the property's.
        assert_eq!(tag.name, None);
    }

    #[test]
    fn a_schema_is_read_wherever_one_sits() {
        let spec: OpenApi = serde_json::from_value(json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1"},
            "paths": {
                "/a": {
                    "parameters": [{"name": "q", "in": "query", "schema": {"type": "integer"}}],
                    "get": {
                        "parameters": [{"name": "k", "in": "query", "schema": {"type": "boolean"}}],
                        "requestBody": {"content": {"application/json": {"schema": {"type": "array", "items": {"type": "number"}}}}},
                        "responses": {"200": {"description": "ok", "content": {"application/json": {
                            "schema": {"type": "object", "properties": {"time": {"type": "string", "format": "date-time"}}}
                        }}}}
                    }
                }
            },
            "components": {
                "parameters": {"P": {"name": "p", "in": "query", "schema": {"type": "string", "enum": ["x"]}}},
                "responses": {"R": {"description": "r", "content": {"text/plain": {"schema": {"type": "string", "maxLength": 3}}}}},
                "requestBodies": {"B": {"content": {"application/json": {"schema": {"type": "object", "required": ["n"]}}}}}
            }
        }))
        .unwrap();
        let at = |r: &str| lookup::<Schema>(&spec, r).map(|t| (t.pointer, t.name));
        let answer = "#/paths/~1a/get/responses/200/content/application~1json/schema";
        assert_eq!(
            at(&format!("{answer}/properties/time")).unwrap().0,
            "/paths/~1a/get/responses/200/content/application~1json/schema/properties/time"
        );
        assert_eq!(at(answer).unwrap().1, None);
        for r in [
            "#/paths/~1a/get/requestBody/content/application~1json/schema/items",
            "#/paths/~1a/parameters/0/schema",
            "#/paths/~1a/get/parameters/0/schema",
            "#/components/parameters/P/schema",
            "#/components/responses/R/content/text~1plain/schema",
            "#/components/requestBodies/B/content/application~1json/schema",
        ] {
            assert!(at(r).is_ok(), "{r}: {:?}", at(r));
        }
        // The right form, nothing there: dangling; another form: not read.
        let missing = "#/paths/~1a/get/responses/404/content/application~1json/schema";
        assert!(lookup::<Schema>(&spec, missing).unwrap_err().is_dangling());
        let elsewhere = lookup::<Schema>(&spec, "#/paths/~1a/get/summary");
        assert!(matches!(elsewhere, Err(RefError::Unsupported { .. })));
    }

    #[test]
    fn a_response_header_is_followed_like_a_parameter() {
        let spec: OpenApi = serde_json::from_value(json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1"},
            "paths": {"/a": {"get": {"responses": {"200": {
                "description": "ok",
                "headers": {
                    "X-Limit": {"$ref": "#/components/headers/Limit"},
                    "X-Again": {"$ref": "#/paths/~1a/get/responses/200/headers/X-Limit"},
                    "X-Gone": {"$ref": "#/components/headers/Gone"}
                }
            }}}}},
            "components": {
                "headers": {"Limit": {"required": true, "schema": {"type": "integer"}}},
                "responses": {"R": {"description": "r", "headers": {
                    "X-Shared": {"$ref": "#/components/responses/R/headers/X-Own"},
                    "X-Own": {"schema": {"type": "string"}}
                }}}
            }
        }))
        .unwrap();
        let headers = &spec.paths["/a"].get.as_ref().unwrap().responses["200"].headers;
        let at = "/paths/~1a/get/responses/200/headers";
        let limit = follow(&spec, &headers["X-Limit"], at).unwrap();
        assert_eq!(limit.pointer, "/components/headers/Limit");
        assert_eq!(limit.name, Some("Limit"));
        assert!(limit.node.required);
        let again = follow(&spec, &headers["X-Again"], at).unwrap();
        assert_eq!(again.pointer, "/components/headers/Limit");
        let shared = &spec.components.responses["R"].headers["X-Shared"];
        let own = follow(&spec, shared, "/x").unwrap();
        assert_eq!(own.pointer, "/components/responses/R/headers/X-Own");
        let gone = lookup::<Header>(&spec, "#/components/headers/Gone").unwrap_err();
        assert!(gone.is_dangling());
        assert_eq!(
            gone.to_string(),
            "$ref `#/components/headers/Gone` points at no header of `components.headers`"
        );
        let schema = lookup::<Schema>(&spec, "#/components/headers/Limit/schema");
        assert!(schema.is_ok(), "{schema:?}");
    }

    #[test]
    fn a_cycle_is_an_error_at_the_reference_met_twice() {
        let spec = spec();
        let e = follow(&spec, &schema_ref("#/components/schemas/Loop1"), "/x").unwrap_err();
        assert_eq!(e.pointer, "/components/schemas/Loop2/$ref");
        assert!(e.message.contains("cycle"), "{}", e.message);
    }

    #[test]
    fn dangling_and_unsupported_references_say_which() {
        let spec = spec();
        assert_eq!(
            component_name::<Schema>("#/components/schemas/A~1B%20C").as_deref(),
            Some("A/B C")
        );
        assert_eq!(
            component_name::<Schema>("#/components/schemas/A/items"),
            None
        );
        assert_eq!(component_name::<Parameter>("#/components/schemas/A"), None);
        let missing = lookup::<Schema>(&spec, "#/components/schemas/Nope").unwrap_err();
        assert!(missing.is_dangling());
        assert_eq!(
            missing.to_string(),
            "$ref `#/components/schemas/Nope` points at no schema of `components.schemas`"
        );
        let inside = lookup::<Schema>(&spec, "#/components/schemas/Pet/properties/nope");
        assert!(inside.unwrap_err().is_dangling());
        let external = lookup::<Parameter>(&spec, "other.yaml#/components/parameters/P");
        assert!(matches!(external, Err(RefError::Unsupported { .. })));
        let wrong_section = lookup::<Response>(&spec, "#/components/schemas/Pet");
        assert!(matches!(wrong_section, Err(RefError::Unsupported { .. })));
        let e = follow(&spec, &schema_ref("#/components/schemas/Nope"), "/at").unwrap_err();
        assert_eq!(e.pointer, "/at/$ref");
    }

    #[test]
    fn an_untyped_tree_is_followed_the_same_way() {
        let doc = doc();
        let node = json!({"$ref": "#/components/schemas/Alias"});
        let (v, at) = follow_value(&doc, &node, "/x").unwrap();
        assert_eq!(at, "/components/schemas/Pet");
        assert_eq!(v["type"], "object");
        let looped = json!({"$ref": "#/components/schemas/Loop1"});
        assert!(
            follow_value(&doc, &looped, "/x")
                .unwrap_err()
                .message
                .contains("cycle")
        );
        let gone = json!({"$ref": "#/nowhere"});
        let e = follow_value(&doc, &gone, "/x").unwrap_err();
        assert_eq!(e.pointer, "/x/$ref");
    }
}
