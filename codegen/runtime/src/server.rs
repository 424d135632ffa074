//! The server runtime: what a generated `server.rs` calls to read a request the way its
//! spec lays it out, judge it against the spec's schemas and answer the protocol's own
//! errors. Nothing here knows an API; the generated handlers pass each parameter's name,
//! place, style and schema pointer.
//!
//! **Judging.** Every parameter and body is read into JSON first (a query value `5` as the
//! number its schema declares, a form body as an object), then judged by the `jsonschema`
//! crate against the spec's schema, formats asserted, and only then decoded into its Rust
//! type. So every keyword the spec writes (`enum`, `const`, `pattern`, `format`,
//! `additionalProperties: false`, `oneOf`, ...) is enforced, including those a lenient
//! model (one that keeps unknown enum values, as the client's do) would let through.
//! The document the schemas live in is the spec itself, translated once by the generator
//! to JSON Schema 2020-12 (OpenAPI 3.0's `nullable`, boolean `exclusiveMinimum`, integer
//! formats' ranges, `readOnly` properties not required in requests).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

/// The media type of a problem-details answer (RFC 9457).
pub const PROBLEM_MEDIA: &str = "application/problem+json";

/// An error answer in RFC 9457 problem details: what the generated router sends for a
/// request it refuses before the implementation sees it (validation, 404, 405, 413,
/// 415), and what an implementation returns for an answer its spec does not declare
/// (`Err(Problem)`: a 500, a 501 of an operation not implemented yet).
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The status sent.
    pub status: StatusCode,
    /// A human-readable explanation of this occurrence (`detail`).
    pub detail: String,
    /// Each way the request broke its operation, for a validation failure (`errors`).
    pub errors: Vec<Violation>,
}

impl Problem {
    /// A problem with `status` and `detail`.
    pub fn new(status: StatusCode, detail: impl Into<String>) -> Problem {
        Problem {
            status,
            detail: detail.into(),
            errors: Vec::new(),
        }
    }

    /// 501 for an operation the implementation has not written yet: the trait's default.
    pub fn not_implemented(operation: &str) -> Problem {
        Problem::new(
            StatusCode::NOT_IMPLEMENTED,
            format!("the operation `{operation}` is not implemented by this server"),
        )
    }

    /// 500 for a failure of the implementation's own (a store that is down).
    pub fn internal(detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::INTERNAL_SERVER_ERROR, detail)
    }

    /// The problem's JSON body: `type`, `title` (the status's reason), `status`,
    /// `detail`, and `errors` when there are any.
    pub fn body(&self) -> Value {
        let mut out = json!({
            "type": "about:blank",
            "title": self.status.canonical_reason().unwrap_or("Error"),
            "status": self.status.as_u16(),
            "detail": self.detail,
        });
        if !self.errors.is_empty() {
            out["errors"] = self.errors.iter().map(Violation::to_json).collect();
        }
        out
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.status, self.detail)
    }
}

impl std::error::Error for Problem {}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let body = self.body().to_string();
        let mut response = Response::new(Body::from(body));
        *response.status_mut() = self.status;
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(PROBLEM_MEDIA),
        );
        response
    }
}

/// One way a request breaks its operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// `path`, `query`, `header`, `cookie` or `body`.
    pub location: &'static str,
    /// The parameter's wire name; `None` for the body.
    pub name: Option<String>,
    /// JSON pointer, in the value, of the part at fault (`""`: the whole value).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl Violation {
    fn to_json(&self) -> Value {
        json!({"in": self.location, "name": self.name, "pointer": self.pointer, "message": self.message})
    }
}

/// Where a parameter is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// A path segment.
    Path,
    /// The query string.
    Query,
    /// A header.
    Header,
    /// A cookie.
    Cookie,
}

impl Location {
    /// The word problem details use (`in`).
    pub fn word(self) -> &'static str {
        match self {
            Location::Path => "path",
            Location::Query => "query",
            Location::Header => "header",
            Location::Cookie => "cookie",
        }
    }
}

/// How a parameter's value is laid out (OpenAPI's `style` and `explode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `simple` path and header values, `form` query and cookie values: a scalar as it is,
    /// a list comma-joined, or, for an exploded `form` query list, the name repeated.
    Plain,
    /// A query list joined by this separator (`spaceDelimited`, `pipeDelimited`, `form`
    /// unexploded).
    Joined(char),
    /// `label` (`.a,b`, exploded `.a.b`).
    Label {
        /// `explode`.
        explode: bool,
    },
    /// `matrix` (`;x=a,b`, exploded `;x=a;x=b`).
    Matrix {
        /// `explode`.
        explode: bool,
    },
    /// An object query parameter in `form` style: exploded, each property a pair of its
    /// own; not, one value of alternating keys and values.
    ObjectForm {
        /// `explode`.
        explode: bool,
    },
    /// An object query parameter in `deepObject` style (`id[role]=admin`).
    DeepObject,
    /// A list query parameter as `name[]=a&name[]=b`.
    DeepList,
    /// A query parameter whose value is JSON text (`content: application/json`).
    JsonText,
    /// An object path or header parameter, its properties as RFC 6570 pairs after the
    /// style's lead (`""`, `.` or `;`), `k,v,k,v` or, exploded, `k=v` separated.
    ObjectPairs {
        /// `""` (simple), `"."` (label) or `";"` (matrix).
        lead: &'static str,
        /// `explode`.
        explode: bool,
    },
}

/// One declared parameter, as the generated handler describes it.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Wire name.
    pub name: &'static str,
    /// Where it is sent.
    pub location: Location,
    /// How its value is laid out.
    pub style: Style,
    /// Pointer of its schema in the document (`None`: any string).
    pub schema: Option<&'static str>,
    /// Whether it must be present.
    pub required: bool,
}

/// The spec's schemas, translated to JSON Schema 2020-12, with a validator compiled for
/// each schema the first time it judges a value and kept.
pub struct Schemas {
    document: Value,
    registry: Result<jsonschema::Registry<'static>, String>,
    validators: RwLock<HashMap<&'static str, Option<Arc<jsonschema::Validator>>>>,
}

impl std::fmt::Debug for Schemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schemas").finish_non_exhaustive()
    }
}

/// The URI the document is registered under.
const DOCUMENT_URI: &str = "urn:openapi:document";

/// What a JSON pointer must have percent-encoded to stand in a URI fragment (RFC 3986:
/// a fragment takes `pchar`, `/` and `?`).
const FRAGMENT: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

impl Schemas {
    /// The schemas of the document text the generator wrote. A document that cannot be
    /// read or registered judges nothing (every value passes), since the generator wrote
    /// it from a spec it read: that is a generator bug, not a reason to refuse requests.
    pub fn new(text: &str) -> Schemas {
        let document: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let registry = jsonschema::Registry::new()
            .add(
                DOCUMENT_URI,
                jsonschema::Draft::Draft202012.create_resource(document.clone()),
            )
            .and_then(|b| b.prepare())
            .map_err(|e| e.to_string());
        Schemas {
            document,
            registry,
            validators: RwLock::new(HashMap::new()),
        }
    }

    /// The schema node at `pointer`, with `$ref`s to the document followed.
    fn node(&self, pointer: &str) -> Option<&Value> {
        self.resolve(self.document.pointer(pointer)?, 0)
    }

    fn resolve<'a>(&'a self, schema: &'a Value, depth: usize) -> Option<&'a Value> {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) if depth < 32 => {
                let target = r.strip_prefix('#')?;
                self.resolve(self.document.pointer(&percent_decode(target))?, depth + 1)
            }
            Some(_) => None,
            None => Some(schema),
        }
    }

    fn validator(&self, pointer: &'static str) -> Option<Arc<jsonschema::Validator>> {
        if let Some(v) = self.validators.read().ok()?.get(pointer) {
            return v.clone();
        }
        let built = self.registry.as_ref().ok().and_then(|registry| {
            // A pointer holds characters a URI fragment may not (`{id}` of a path
            // template): percent-encoded, as the resolver decodes them.
            let fragment = percent_encoding::utf8_percent_encode(pointer, FRAGMENT);
            let schema = json!({ "$ref": format!("{DOCUMENT_URI}#{fragment}") });
            jsonschema::draft202012::options()
                .should_validate_formats(true)
                .with_registry(registry)
                .build(&schema)
                .ok()
                .map(Arc::new)
        });
        self.validators.write().ok()?.insert(pointer, built.clone());
        built
    }

    /// Every failure of `value` against the schema at `pointer`.
    pub fn judge(
        &self,
        pointer: &'static str,
        value: &Value,
        location: Location,
        name: Option<&str>,
        out: &mut Vec<Violation>,
    ) {
        let Some(v) = self.validator(pointer) else {
            return;
        };
        for e in v.iter_errors(value) {
            out.push(Violation {
                location: location.word(),
                name: name.map(str::to_owned),
                pointer: e.instance_path().to_string(),
                message: e.to_string(),
            });
        }
    }

    /// The body judged, for a body that is not a parameter.
    pub fn judge_body(&self, pointer: &'static str, value: &Value, out: &mut Vec<Violation>) {
        let Some(v) = self.validator(pointer) else {
            return;
        };
        for e in v.iter_errors(value) {
            out.push(Violation {
                location: "body",
                name: None,
                pointer: e.instance_path().to_string(),
                message: e.to_string(),
            });
        }
    }

    /// What kind of JSON value the schema at `pointer` holds, to read text as.
    fn kind(&self, schema: Option<&Value>, depth: usize) -> Kind {
        let Some(schema) = schema.and_then(|s| self.resolve(s, 0)) else {
            return Kind::String;
        };
        if depth > 16 {
            return Kind::String;
        }
        let named = |t: &str| match t {
            "integer" => Some(Kind::Integer),
            "number" => Some(Kind::Number),
            "boolean" => Some(Kind::Boolean),
            "string" => Some(Kind::String),
            "array" => Some(Kind::Array),
            "object" => Some(Kind::Object),
            _ => None,
        };
        match schema.get("type") {
            Some(Value::String(t)) => {
                if let Some(k) = named(t) {
                    return k;
                }
            }
            Some(Value::Array(types)) => {
                if let Some(k) = types.iter().filter_map(Value::as_str).find_map(named) {
                    return k;
                }
            }
            _ => {}
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(parts)) = schema.get(key) {
                for part in parts {
                    let k = self.kind(Some(part), depth + 1);
                    if k != Kind::String || part.get("type").is_some() {
                        return k;
                    }
                }
            }
        }
        let value = schema
            .get("const")
            .or_else(|| schema.get("enum").and_then(|e| e.get(0)));
        match value {
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Kind::Integer,
            Some(Value::Number(_)) => Kind::Number,
            Some(Value::Bool(_)) => Kind::Boolean,
            _ if schema.get("properties").is_some() => Kind::Object,
            _ if schema.get("items").is_some() => Kind::Array,
            _ => Kind::String,
        }
    }

    /// The schema of the items of the array schema `schema`.
    fn items<'a>(&'a self, schema: Option<&'a Value>) -> Option<&'a Value> {
        let s = self.resolve(schema?, 0)?;
        if let Some(items) = s.get("items") {
            return Some(items);
        }
        ["allOf", "anyOf", "oneOf"].iter().find_map(|k| {
            s.get(*k)?
                .as_array()?
                .iter()
                .find_map(|part| self.items(Some(part)))
        })
    }

    /// The schema of property `name` of the object schema `schema`.
    fn property<'a>(&'a self, schema: Option<&'a Value>, name: &str) -> Option<&'a Value> {
        let s = self.resolve(schema?, 0)?;
        if let Some(p) = s.get("properties").and_then(|p| p.get(name)) {
            return Some(p);
        }
        let parts = ["allOf", "anyOf", "oneOf"]
            .iter()
            .filter_map(|k| s.get(*k)?.as_array())
            .flatten();
        for part in parts {
            if let Some(p) = self.property(Some(part), name) {
                return Some(p);
            }
        }
        s.get("additionalProperties").filter(|a| a.is_object())
    }

    /// The names of the properties `schema` declares.
    fn property_names<'a>(&'a self, schema: Option<&'a Value>) -> Vec<&'a str> {
        let Some(s) = schema.and_then(|s| self.resolve(s, 0)) else {
            return Vec::new();
        };
        let mut out: Vec<&str> = s
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        for k in ["allOf", "anyOf", "oneOf"] {
            for part in s.get(k).and_then(Value::as_array).into_iter().flatten() {
                out.extend(self.property_names(Some(part)));
            }
        }
        out
    }

    /// `text` as the JSON value the schema declares: a number, a boolean, or the text
    /// itself when it is not one (the schema's judgement then names what is wrong).
    fn scalar(&self, schema: Option<&Value>, text: &str) -> Value {
        match self.kind(schema, 0) {
            Kind::Integer => text
                .parse::<i64>()
                .map(Value::from)
                .or_else(|_| text.parse::<u64>().map(Value::from))
                .unwrap_or_else(|_| Value::String(text.to_owned())),
            Kind::Number => text
                .parse::<f64>()
                .ok()
                .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
                .map(|n| match text.parse::<i64>() {
                    Ok(i) => Value::from(i),
                    Err(_) => n,
                })
                .unwrap_or_else(|| Value::String(text.to_owned())),
            Kind::Boolean => match text {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => Value::String(text.to_owned()),
            },
            _ => Value::String(text.to_owned()),
        }
    }

    /// Items (texts) as the array the schema declares.
    fn list(&self, schema: Option<&Value>, items: &[String]) -> Value {
        let item = self.items(schema);
        Value::Array(items.iter().map(|t| self.scalar(item, t)).collect())
    }

    /// Pairs as the object the schema declares, repeated names gathered where the
    /// property is a list.
    fn object(&self, schema: Option<&Value>, pairs: Vec<(String, String)>) -> Value {
        let mut out = Map::new();
        for (k, v) in pairs {
            let prop = self.property(schema, &k);
            if self.kind(prop, 0) == Kind::Array {
                let item = self.items(prop);
                let entry = out.entry(k).or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(items) = entry {
                    items.push(self.scalar(item, &v));
                }
            } else {
                out.insert(k, self.scalar(prop, &v));
            }
        }
        Value::Object(out)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
}

/// A request as the generated handler reads it: its parts, the query decoded, the path's
/// parameter texts, and the body's bytes; with the violations found so far.
#[derive(Debug)]
pub struct Incoming {
    /// The request's headers.
    pub headers: HeaderMap,
    query: Vec<(String, String)>,
    path: Vec<(&'static str, String)>,
    /// The body, read whole.
    pub body: Bytes,
    /// What is wrong with the request so far.
    pub violations: Vec<Violation>,
}

/// How a request was refused before its parameters were read.
#[derive(Debug)]
pub enum Refusal {
    /// Its path does not fit the operation's template: 404.
    NotFound,
    /// Its body is larger than the limit: 413.
    TooLarge,
    /// Its body could not be read.
    Unreadable(String),
}

impl Refusal {
    /// The refusal's problem-details answer.
    pub fn problem(&self) -> Problem {
        match self {
            Refusal::NotFound => Problem::new(StatusCode::NOT_FOUND, "no operation at this path"),
            Refusal::TooLarge => Problem::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the request body is larger than this server accepts",
            ),
            Refusal::Unreadable(e) => Problem::new(
                StatusCode::BAD_REQUEST,
                format!("the request body cannot be read: {e}"),
            ),
        }
    }
}

/// One piece of a path template segment.
#[derive(Debug, Clone, Copy)]
pub enum Piece {
    /// Literal text.
    Literal(&'static str),
    /// A parameter, by wire name.
    Param(&'static str),
}

/// The parameter texts of `path` (still percent-encoded) under `template` (its segments,
/// each a list of pieces), `None` when it does not fit. Within a segment a parameter
/// takes the text up to the next literal piece.
pub fn match_path(template: &[&[Piece]], path: &str) -> Option<Vec<(&'static str, String)>> {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    if segments.len() != template.len() {
        return None;
    }
    let mut out = Vec::new();
    for (pieces, segment) in template.iter().zip(segments) {
        let mut rest = segment;
        for (i, piece) in pieces.iter().enumerate() {
            match piece {
                Piece::Literal(l) => rest = rest.strip_prefix(l)?,
                Piece::Param(name) => {
                    let end = match pieces.get(i + 1) {
                        Some(Piece::Literal(next)) => rest.find(next)?,
                        _ => rest.len(),
                    };
                    out.push((*name, rest[..end].to_owned()));
                    rest = &rest[end..];
                }
            }
        }
        if !rest.is_empty() {
            return None;
        }
    }
    Some(out)
}

impl Incoming {
    /// Reads `request`: its path under `template`, its query, and its body (at most
    /// `limit` bytes).
    pub async fn read(
        request: axum::extract::Request,
        template: &[&[Piece]],
        limit: usize,
    ) -> Result<Incoming, Refusal> {
        let (parts, body) = request.into_parts();
        let path = match_path(template, parts.uri.path()).ok_or(Refusal::NotFound)?;
        let query = parts
            .uri
            .query()
            .map(|q| {
                form_urlencoded::parse(q.as_bytes())
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        let declared = parts
            .headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > limit as u64) {
            return Err(Refusal::TooLarge);
        }
        let body = axum::body::to_bytes(body, limit).await.map_err(|e| {
            let text = e.to_string();
            let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
            while let Some(s) = source {
                if s.is::<http_body_util::LengthLimitError>() {
                    return Refusal::TooLarge;
                }
                source = s.source();
            }
            Refusal::Unreadable(text)
        })?;
        Ok(Incoming {
            headers: parts.headers,
            query,
            path,
            body,
            violations: Vec::new(),
        })
    }

    fn query_values(&self, name: &str) -> Vec<&str> {
        self.query
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    fn header_text(&self, name: &str) -> Option<String> {
        let values: Vec<&str> = self
            .headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        (!values.is_empty()).then(|| values.join(","))
    }

    /// The value of cookie `name`.
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| percent_decode(v))
    }

    /// The value of query parameter `name` (the first, when repeated).
    pub fn query(&self, name: &str) -> Option<&str> {
        self.query_values(name).first().copied()
    }

    /// The header `name` as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)?.to_str().ok()
    }

    /// The parameter's value as JSON, judged against its schema (violations kept); when
    /// it is absent, its schema's `default`, else `None` (a violation when required).
    pub fn param(&mut self, schemas: &Schemas, p: &Param) -> Option<Value> {
        let schema = p.schema.and_then(|ptr| schemas.node(ptr));
        let value = self.raw(schemas, p, schema);
        let Some(value) = value else {
            if p.required {
                self.violations.push(Violation {
                    location: p.location.word(),
                    name: Some(p.name.to_owned()),
                    pointer: String::new(),
                    message: format!(
                        "the required {} parameter `{}` is missing",
                        p.location.word(),
                        p.name
                    ),
                });
                return None;
            }
            // An absent parameter with a `default` has that value, as the spec says the
            // server assumes; not judged: a request that did not send it broke nothing.
            return schema.and_then(|s| s.get("default")).cloned();
        };
        if let Some(ptr) = p.schema {
            schemas.judge(ptr, &value, p.location, Some(p.name), &mut self.violations);
        }
        Some(value)
    }

    fn raw(&mut self, schemas: &Schemas, p: &Param, schema: Option<&Value>) -> Option<Value> {
        let array = schemas.kind(schema, 0) == Kind::Array;
        let split = |text: &str, sep: char| -> Vec<String> {
            if text.is_empty() {
                Vec::new()
            } else {
                text.split(sep).map(percent_decode).collect()
            }
        };
        let pairs_of = |items: Vec<String>| -> Vec<(String, String)> {
            items
                .chunks(2)
                .map(|c| (c[0].clone(), c.get(1).cloned().unwrap_or_default()))
                .collect()
        };
        match (p.location, p.style) {
            (location, Style::JsonText) => {
                let text = match location {
                    Location::Query => self.query(p.name)?.to_owned(),
                    Location::Path => {
                        percent_decode(&self.path.iter().find(|(n, _)| *n == p.name)?.1)
                    }
                    Location::Header => self.header_text(p.name)?,
                    Location::Cookie => self.cookie(p.name)?,
                };
                match serde_json::from_str(&text) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        self.violations.push(Violation {
                            location: location.word(),
                            name: Some(p.name.to_owned()),
                            pointer: String::new(),
                            message: format!("the value is not JSON: {e}"),
                        });
                        None
                    }
                }
            }
            (Location::Query, Style::DeepObject) => {
                let prefix = format!("{}[", p.name);
                let pairs: Vec<(String, String)> = self
                    .query
                    .iter()
                    .filter_map(|(k, v)| {
                        let key = k.strip_prefix(&prefix)?.strip_suffix(']')?;
                        Some((key.to_owned(), v.clone()))
                    })
                    .collect();
                (!pairs.is_empty()).then(|| schemas.object(schema, pairs))
            }
            (Location::Query, Style::DeepList) => {
                let key = format!("{}[]", p.name);
                let values: Vec<String> = self
                    .query
                    .iter()
                    .filter(|(k, _)| *k == key || k == p.name)
                    .map(|(_, v)| v.clone())
                    .collect();
                (!values.is_empty()).then(|| schemas.list(schema, &values))
            }
            (Location::Query, Style::ObjectForm { explode: true }) => {
                let names = schemas.property_names(schema);
                let pairs: Vec<(String, String)> = self
                    .query
                    .iter()
                    .filter(|(k, _)| names.contains(&k.as_str()))
                    .cloned()
                    .collect();
                (!pairs.is_empty()).then(|| schemas.object(schema, pairs))
            }
            (Location::Query, Style::ObjectForm { explode: false }) => {
                let text = self.query(p.name)?;
                let items: Vec<String> = text.split(',').map(str::to_owned).collect();
                Some(schemas.object(schema, pairs_of(items)))
            }
            (Location::Query, Style::Joined(sep)) => {
                let text = self.query(p.name)?;
                let items: Vec<String> = if text.is_empty() {
                    Vec::new()
                } else {
                    text.split(sep).map(str::to_owned).collect()
                };
                Some(schemas.list(schema, &items))
            }
            (Location::Query, _) => {
                let values: Vec<String> = self
                    .query_values(p.name)
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                match values.as_slice() {
                    [] => None,
                    _ if array => Some(schemas.list(schema, &values)),
                    [one] => Some(schemas.scalar(schema, one)),
                    _ => {
                        self.violations.push(Violation {
                            location: "query",
                            name: Some(p.name.to_owned()),
                            pointer: String::new(),
                            message: format!("`{}` is given more than once", p.name),
                        });
                        None
                    }
                }
            }
            (Location::Path, style) => {
                let raw = self
                    .path
                    .iter()
                    .find(|(n, _)| *n == p.name)
                    .map(|(_, v)| v.clone())?;
                Some(self.styled(schemas, schema, &raw, style, p.name, array, true))
            }
            (Location::Header, style) => {
                let raw = self.header_text(p.name)?;
                Some(self.styled(schemas, schema, &raw, style, p.name, array, false))
            }
            (Location::Cookie, _) => {
                let raw = self.cookie(p.name)?;
                Some(if array {
                    schemas.list(schema, &split(&raw, ','))
                } else {
                    schemas.scalar(schema, &raw)
                })
            }
        }
    }

    /// A path or header value in `style`: `encoded` says whether its items are still
    /// percent-encoded (a path's are).
    #[allow(clippy::too_many_arguments)]
    fn styled(
        &self,
        schemas: &Schemas,
        schema: Option<&Value>,
        raw: &str,
        style: Style,
        name: &str,
        array: bool,
        encoded: bool,
    ) -> Value {
        let decode = |t: &str| {
            if encoded {
                percent_decode(t)
            } else {
                t.trim().to_owned()
            }
        };
        let items = |text: &str, seps: &[char]| -> Vec<String> {
            if text.is_empty() {
                Vec::new()
            } else {
                text.split(|c| seps.contains(&c)).map(decode).collect()
            }
        };
        let matrix_prefix = format!(";{name}=");
        match style {
            Style::Label { explode } => {
                let body = raw.strip_prefix('.').unwrap_or(raw);
                if array {
                    schemas.list(schema, &items(body, if explode { &['.'] } else { &[','] }))
                } else {
                    schemas.scalar(schema, &decode(body))
                }
            }
            Style::Matrix { explode } => {
                if array && explode {
                    let values: Vec<String> = raw
                        .split(';')
                        .filter(|s| !s.is_empty())
                        .map(|s| decode(s.split_once('=').map_or("", |(_, v)| v)))
                        .collect();
                    schemas.list(schema, &values)
                } else {
                    let body = raw
                        .strip_prefix(&matrix_prefix)
                        .or_else(|| raw.strip_prefix(&format!(";{name}")))
                        .unwrap_or(raw);
                    if array {
                        schemas.list(schema, &items(body, &[',']))
                    } else {
                        schemas.scalar(schema, &decode(body))
                    }
                }
            }
            Style::ObjectPairs { lead, explode } => {
                let body = match lead {
                    ";" if !explode => raw.strip_prefix(&matrix_prefix).unwrap_or(raw),
                    "" => raw,
                    l => raw.strip_prefix(l).unwrap_or(raw),
                };
                let pairs: Vec<(String, String)> = if explode {
                    let sep = match lead {
                        "" => ',',
                        l => l.chars().next().unwrap_or(','),
                    };
                    body.split(sep)
                        .filter(|s| !s.is_empty())
                        .map(|kv| {
                            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                            (decode(k), decode(v))
                        })
                        .collect()
                } else {
                    let all = items(body, &[',']);
                    all.chunks(2)
                        .map(|c| (c[0].clone(), c.get(1).cloned().unwrap_or_default()))
                        .collect()
                };
                schemas.object(schema, pairs)
            }
            _ if array => schemas.list(schema, &items(raw, &[','])),
            _ => schemas.scalar(schema, &decode(raw)),
        }
    }

    /// The body's media type without parameters, lower-cased.
    pub fn media_type(&self) -> Option<String> {
        let value = self.headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
        let essence = value.split(';').next()?.trim().to_ascii_lowercase();
        (!essence.is_empty()).then_some(essence)
    }

    /// Which of the declared media types (`accepted`, as the spec spells them) the body
    /// is sent in, by index; `Ok(None)` when there is no body (a violation when one is
    /// required: an empty body is no body); the 415 to answer when the media type is
    /// missing or not one of them.
    pub fn body_media(
        &mut self,
        accepted: &[&str],
        required: bool,
    ) -> Result<Option<usize>, Problem> {
        if self.body.is_empty() {
            if required {
                self.body_violation("the required request body is missing".to_owned());
            }
            return Ok(None);
        }
        let sent = self.media_type();
        let found = sent.as_deref().and_then(|m| {
            accepted.iter().position(|a| {
                let a = a
                    .split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase();
                a == m
                    || a == "*/*"
                    || a.strip_suffix("/*")
                        .is_some_and(|kind| m.starts_with(&format!("{kind}/")))
            })
        });
        match (found, sent) {
            (Some(i), _) => Ok(Some(i)),
            (None, Some(m)) => Err(Problem::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "Content-Type `{m}` is not one this operation takes; send {}",
                    accepted.join(" or ")
                ),
            )),
            (None, None) => Err(Problem::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("Content-Type is missing; send {}", accepted.join(" or ")),
            )),
        }
    }

    /// The body read as JSON and judged against the schema at `schema`; `None` when it
    /// is not JSON (a violation).
    pub fn json_body(&mut self, schemas: &Schemas, schema: Option<&'static str>) -> Option<Value> {
        match serde_json::from_slice::<Value>(&self.body) {
            Ok(value) => {
                if let Some(ptr) = schema {
                    schemas.judge_body(ptr, &value, &mut self.violations);
                }
                Some(value)
            }
            Err(e) => {
                self.body_violation(format!("the body is not JSON: {e}"));
                None
            }
        }
    }

    /// The body read as a URL-encoded form into the object its schema declares, judged.
    pub fn form_body(&mut self, schemas: &Schemas, schema: Option<&'static str>) -> Option<Value> {
        let pairs: Vec<(String, String)> = form_urlencoded::parse(&self.body)
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let node = schema.and_then(|ptr| schemas.node(ptr));
        let value = schemas.object(node, pairs);
        if let Some(ptr) = schema {
            schemas.judge_body(ptr, &value, &mut self.violations);
        }
        Some(value)
    }

    /// The body as text, judged against its schema as the scalar the schema takes (a
    /// `text/plain` body of `type: integer` is judged as the number its text is, as a
    /// parameter's text is); `None` when it is not UTF-8 (a violation).
    pub fn text_body(&mut self, schemas: &Schemas, schema: Option<&'static str>) -> Option<Value> {
        match std::str::from_utf8(&self.body) {
            Ok(text) => {
                if let Some(ptr) = schema {
                    let judged = schemas.scalar(schemas.node(ptr), text);
                    schemas.judge_body(ptr, &judged, &mut self.violations);
                }
                Some(Value::String(text.to_owned()))
            }
            Err(_) => {
                self.body_violation("the text body is not UTF-8".to_owned());
                None
            }
        }
    }

    fn body_violation(&mut self, message: String) {
        self.violations.push(Violation {
            location: "body",
            name: None,
            pointer: String::new(),
            message,
        });
    }

    /// `value` decoded into `T`; a value the schemas let through but the type cannot
    /// hold is a violation too (it names the field).
    pub fn decode<T: serde::de::DeserializeOwned>(
        &mut self,
        value: Option<Value>,
        location: &'static str,
        name: Option<&str>,
    ) -> Option<T> {
        let value = value?;
        match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(v) => Some(v),
            Err(e) => {
                let pointer = e.path().iter().map(|s| format!("/{s}")).collect::<String>();
                self.violations.push(Violation {
                    location,
                    name: name.map(str::to_owned),
                    pointer,
                    message: e.into_inner().to_string(),
                });
                None
            }
        }
    }

    /// The token of `Authorization: Bearer <token>`.
    pub fn bearer(&self) -> Option<Secret> {
        let value = self.header("authorization")?;
        let (scheme, token) = value.split_once(' ')?;
        let token = token.trim();
        (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty())
            .then(|| Secret(token.to_owned()))
    }

    /// The user and password of `Authorization: Basic <base64(user:password)>`.
    pub fn basic(&self) -> Option<Basic> {
        let value = self.header("authorization")?;
        let (scheme, encoded) = value.split_once(' ')?;
        if !scheme.eq_ignore_ascii_case("basic") {
            return None;
        }
        let decoded = String::from_utf8(base64_decode(encoded.trim())?).ok()?;
        let (user, password) = decoded.split_once(':')?;
        Some(Basic {
            user: user.to_owned(),
            password: Secret(password.to_owned()),
        })
    }

    /// The whole value of a credential in `location` under `name` (an API key).
    pub fn key(&self, location: Location, name: &str) -> Option<Secret> {
        let value = match location {
            Location::Header => self.header(name).map(str::to_owned),
            Location::Query => self.query(name).map(str::to_owned),
            Location::Cookie => self.cookie(name),
            Location::Path => None,
        }?;
        Some(Secret(value))
    }
}

/// A credential as the request sent it, never shown by `Debug`: the implementation
/// decides whether it is good (the generated code never checks one).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl Secret {
    /// The credential's text.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// Every header a request sent, for what the spec does not declare; it reads as the
/// `HeaderMap` it holds. `Debug` lists the names only: any value may be a credential.
#[derive(Clone, Default, PartialEq)]
pub struct RawHeaders(pub HeaderMap);

impl std::ops::Deref for RawHeaders {
    type Target = HeaderMap;

    fn deref(&self) -> &HeaderMap {
        &self.0
    }
}

impl std::fmt::Debug for RawHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

/// The user and password of HTTP Basic authentication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Basic {
    /// The user name.
    pub user: String,
    /// The password.
    pub password: Secret,
}

/// The text percent-decoded (invalid UTF-8 replaced).
pub fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// Standard base64 (padding optional), for Basic credentials.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for b in text.trim_end_matches('=').bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// The media type to answer in: the first of `declared` the request's `Accept` takes
/// (`*/*`, `type/*` and exact ranges, parameters ignored), else the first declared.
pub fn negotiate<'a>(headers: &HeaderMap, declared: &[&'a str]) -> &'a str {
    let ranges: Vec<String> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|r| {
            r.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|r| !r.is_empty())
        .collect();
    let takes = |m: &str| {
        let m = m.to_ascii_lowercase();
        ranges.iter().any(|r| {
            r == "*/*"
                || *r == m
                || r.strip_suffix("/*")
                    .is_some_and(|kind| m.starts_with(&format!("{kind}/")))
        })
    };
    declared
        .iter()
        .copied()
        .find(|m| takes(m))
        .or_else(|| declared.first().copied())
        .unwrap_or("application/json")
}

/// An answer with a JSON body in `media`.
pub fn json<T: serde::Serialize>(status: StatusCode, media: &str, body: &T) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => with_body(status, media, Bytes::from(bytes)),
        Err(e) => {
            Problem::internal(format!("the answer cannot be written as JSON: {e}")).into_response()
        }
    }
}

/// An answer with `bytes` in `media`.
pub fn with_body(status: StatusCode, media: &str, bytes: Bytes) -> Response {
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    if let Ok(v) = HeaderValue::from_str(media) {
        response.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    response
}

/// An answer with no body.
pub fn empty(status: StatusCode) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

/// Adds a header the answer declares; a value that is not a valid header value is left
/// out rather than sent broken. (The generated answers write their declared headers with
/// [`put_header`], which makes a broken one a 500 problem instead.)
pub fn add_header(response: &mut Response, name: &str, value: &str) {
    if let (Ok(v), Ok(name)) = (
        HeaderValue::from_str(value),
        axum::http::HeaderName::from_bytes(name.as_bytes()),
    ) {
        response.headers_mut().insert(name, v);
    }
}

/// How an answer's header value is written: OpenAPI's `simple` style (the only one it
/// defines for headers), or the JSON text of a header described by `content`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderStyle {
    /// A scalar as its text, a list's items joined by commas, an object's properties as
    /// `key,value,key,value` or, exploded, `key=value,key=value`: as a client writes a
    /// header parameter.
    Simple {
        /// `explode`.
        explode: bool,
    },
    /// The value's JSON text.
    JsonText,
}

/// Puts the header `name` of an answer into `headers`, its `value` written in `style`
/// (see [`header_text`]); a value that writes to nothing (`null`, an optional header left
/// `None`, an object without a set property) puts no header.
///
/// # Errors
/// A 500 problem when `name` is no header name or the value's text cannot stand in a
/// header (a line break, a character outside visible ASCII), and when the value cannot
/// be serialized: an answer is never sent with a header broken or silently missing.
pub fn put_header<T: serde::Serialize + ?Sized>(
    headers: &mut HeaderMap,
    name: &str,
    value: &T,
    style: HeaderStyle,
) -> Result<(), Problem> {
    let broken = |why: String| Problem::internal(format!("the answer's header `{name}` {why}"));
    let value =
        serde_json::to_value(value).map_err(|e| broken(format!("cannot be written: {e}")))?;
    let Some(text) = header_text(&value, style) else {
        return Ok(());
    };
    let name = axum::http::HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| broken("is not a header name".to_owned()))?;
    // `HeaderValue` takes bytes past ASCII (HTTP's obsolete `obs-text`), which a
    // recipient reads as opaque bytes at best: refused as a line break is.
    let ascii = Some(text.as_str()).filter(|t| t.is_ascii());
    let value = ascii
        .and_then(|t| HeaderValue::from_str(t).ok())
        .ok_or_else(|| {
            broken(
                "holds a character a header cannot carry (a line break, or one outside visible \
             ASCII)"
                    .to_owned(),
            )
        })?;
    headers.insert(name, value);
    Ok(())
}

/// The text of a header's value in `style`, `None` where there is nothing to send:
/// `null`, and an object without a set property (as a client sends no such header).
/// `simple`: a string as it is, a number or boolean as its JSON text, a list's items
/// joined by commas (each item's text: a string as it is, anything else as JSON), an
/// object's properties other than `null` ones as `key,value,…` or, exploded,
/// `key=value,…`, in the order of the JSON map.
pub fn header_text(value: &Value, style: HeaderStyle) -> Option<String> {
    fn scalar(v: &Value) -> String {
        match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    }
    match (value, style) {
        (Value::Null, _) => None,
        (v, HeaderStyle::JsonText) => Some(v.to_string()),
        (Value::Array(items), HeaderStyle::Simple { .. }) => {
            Some(items.iter().map(scalar).collect::<Vec<_>>().join(","))
        }
        (Value::Object(object), HeaderStyle::Simple { explode }) => {
            let pairs: Vec<String> = object
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| {
                    let sep = if explode { "=" } else { "," };
                    format!("{k}{sep}{}", scalar(v))
                })
                .collect();
            (!pairs.is_empty()).then(|| pairs.join(","))
        }
        (v, HeaderStyle::Simple { .. }) => Some(scalar(v)),
    }
}

/// `response` with the headers an answer declares added, when it is that answer (its
/// status is `status`); an answer whose body could not be written is a problem and
/// carries none of them.
pub fn with_headers(status: StatusCode, mut response: Response, headers: HeaderMap) -> Response {
    if response.status() == status {
        response.headers_mut().extend(headers);
    }
    response
}

/// Why a request was refused, with status `status` (the operation's declared 400 or
/// 422): the detail names the first violation, so an error schema with one message
/// field (`errorText`, `message`) still says what is wrong.
pub fn refused(status: StatusCode, violations: Vec<Violation>) -> Problem {
    let detail = match violations.as_slice() {
        [] => "the request does not fit the operation's parameters or body".to_owned(),
        [first, rest @ ..] => {
            let name = first
                .name
                .as_deref()
                .map(|n| format!(" `{n}`"))
                .unwrap_or_default();
            let more = match rest.len() {
                0 => String::new(),
                n => format!(" (and {n} more)"),
            };
            format!(
                "{}{name}{}: {}{more}",
                first.location, first.pointer, first.message
            )
        }
    };
    Problem {
        status,
        detail,
        errors: violations,
    }
}

/// Why a request's judging does not reach the implementation.
#[derive(Debug)]
pub enum Unserved {
    /// Refused against the spec: the problem, and the answer the spec gives it (which
    /// the implementation may reshape, see the server's `Api::refused`).
    Refused(Problem, Response),
    /// Answered already: a fault of the router itself, not of the request.
    Answered(Response),
}

/// A refused request's answer: in the body of the schema at `schema` where the
/// operation declares one and the violations fit it (see [`fill`]), else as problem
/// details.
pub fn refusal(
    schemas: &Schemas,
    media: Option<&str>,
    schema: Option<&'static str>,
    problem: &Problem,
) -> Response {
    if let (Some(media), Some(ptr)) = (media, schema)
        && let Some(body) = fill(schemas, ptr, problem)
    {
        return json(problem.status, media, &body);
    }
    problem.clone().into_response()
}

/// The problem written into the spec's own error schema: an object whose properties are
/// filled by what their names say (`detail`/`message`/`error`... the detail; a list of
/// objects, one item per violation with its `loc`/`msg`/`type`-like fields; `status` or
/// `code` the status), kept only when the result validates against the schema.
pub fn fill(schemas: &Schemas, pointer: &'static str, problem: &Problem) -> Option<Value> {
    let schema = schemas.node(pointer)?;
    let value = fill_object(schemas, Some(schema), problem, 0)?;
    let mut out = Vec::new();
    schemas.judge_body(pointer, &value, &mut out);
    out.is_empty().then_some(value)
}

fn fill_object(
    schemas: &Schemas,
    schema: Option<&Value>,
    problem: &Problem,
    depth: usize,
) -> Option<Value> {
    if depth > 4 || schemas.kind(schema, 0) != Kind::Object {
        return None;
    }
    let mut out = Map::new();
    for name in schemas.property_names(schema) {
        let prop = schemas.property(schema, name);
        let lower = name.to_ascii_lowercase();
        let value = match schemas.kind(prop, 0) {
            Kind::String if is_message(&lower) => Some(Value::String(problem.detail.clone())),
            Kind::String if lower == "title" => Some(Value::String(
                problem
                    .status
                    .canonical_reason()
                    .unwrap_or("Error")
                    .to_owned(),
            )),
            Kind::String if lower == "type" => Some(Value::String("about:blank".to_owned())),
            Kind::Integer if matches!(lower.as_str(), "status" | "code" | "status_code") => {
                Some(Value::from(problem.status.as_u16()))
            }
            Kind::Array => {
                let item = schemas.items(prop);
                if schemas.kind(item, 0) == Kind::Object {
                    Some(Value::Array(
                        problem
                            .errors
                            .iter()
                            .filter_map(|v| violation_item(schemas, item, v))
                            .collect(),
                    ))
                } else if schemas.kind(item, 0) == Kind::String {
                    Some(Value::Array(
                        problem
                            .errors
                            .iter()
                            .map(|v| Value::String(v.message.clone()))
                            .collect(),
                    ))
                } else {
                    None
                }
            }
            _ => None,
        };
        if let Some(v) = value {
            out.insert(name.to_owned(), v);
        }
    }
    Some(Value::Object(out))
}

fn is_message(name: &str) -> bool {
    matches!(
        name,
        "detail"
            | "message"
            | "msg"
            | "error"
            | "errortext"
            | "error_description"
            | "description"
            | "reason"
    )
}

/// One violation as an item of the spec's error list.
fn violation_item(schemas: &Schemas, item: Option<&Value>, v: &Violation) -> Option<Value> {
    let mut out = Map::new();
    let mut location: Vec<Value> = vec![Value::String(v.location.to_owned())];
    if let Some(name) = &v.name {
        location.push(Value::String(name.clone()));
    }
    location.extend(
        v.pointer
            .split('/')
            .skip(1)
            .map(|s| Value::String(s.replace("~1", "/").replace("~0", "~"))),
    );
    for name in schemas.property_names(item) {
        let prop = schemas.property(item, name);
        let lower = name.to_ascii_lowercase();
        let kind = schemas.kind(prop, 0);
        let value = match (lower.as_str(), kind) {
            ("loc" | "location" | "path", Kind::Array) => Some(Value::Array(location.clone())),
            ("loc" | "location" | "path" | "field" | "pointer", Kind::String) => {
                Some(Value::String(format!(
                    "{}{}",
                    v.name.as_deref().unwrap_or(v.location),
                    v.pointer
                )))
            }
            ("type" | "code" | "kind", Kind::String) => Some(Value::String("invalid".to_owned())),
            (n, Kind::String) if is_message(n) => Some(Value::String(v.message.clone())),
            ("in", Kind::String) => Some(Value::String(v.location.to_owned())),
            ("name", Kind::String) => v.name.clone().map(Value::String),
            _ => None,
        };
        if let Some(value) = value {
            out.insert(name.to_owned(), value);
        }
    }
    Some(Value::Object(out))
}

/// The layer behind the generated router: a method the path does not take gets its 405
/// (axum sets `Allow`) as problem details, and an unknown path its 404. A panic behind it
/// (in the implementation, most likely) answers a 500 in problem details rather than
/// dropping the connection without a word; the server goes on serving.
pub async fn protocol(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let method = request.method().clone();
    let Ok(response) = CatchUnwind(std::pin::pin!(next.run(request))).await else {
        return Problem::internal("the implementation panicked while answering").into_response();
    };
    if response.status() == StatusCode::METHOD_NOT_ALLOWED
        && response.headers().get(header::CONTENT_TYPE).is_none()
    {
        let (mut parts, _) = response.into_parts();
        let see = if parts.headers.contains_key(header::ALLOW) {
            "; see the Allow header"
        } else {
            ""
        };
        let body = Problem::new(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("method {method} is not allowed on this path{see}"),
        )
        .body()
        .to_string();
        parts.headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(PROBLEM_MEDIA),
        );
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, Body::from(body));
    }
    response
}

/// A future whose panic is caught, as `futures::FutureExt::catch_unwind` does: each poll
/// of the inner future runs under `catch_unwind`. `AssertUnwindSafe` because nothing the
/// inner future held is used again after its panic: it is dropped with this future.
struct CatchUnwind<F>(F);

impl<F: std::future::Future + Unpin> std::future::Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn std::any::Any + Send>>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let inner = &mut self.0;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            std::pin::Pin::new(&mut *inner).poll(cx)
        })) {
            Ok(std::task::Poll::Ready(value)) => std::task::Poll::Ready(Ok(value)),
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Err(payload) => std::task::Poll::Ready(Err(payload)),
        }
    }
}

/// The router's answer to a path no operation has.
pub async fn not_found() -> Response {
    Problem::new(StatusCode::NOT_FOUND, "no operation at this path").into_response()
}

// @if multipart
/// A file part of a `multipart/form-data` body, as it came.
#[derive(Clone, PartialEq, Default)]
pub struct FilePart {
    /// The part's `filename`, when it sent one.
    pub file_name: Option<String>,
    /// The part's own `Content-Type`, when it sent one.
    pub content_type: Option<String>,
    /// The file's bytes.
    pub bytes: Bytes,
}

/// The file's name, type and size, not its bytes: a file may hold anything, and a log
/// line or a test failure would print all of it.
impl std::fmt::Debug for FilePart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilePart")
            .field("file_name", &self.file_name)
            .field("content_type", &self.content_type)
            .field("len", &self.bytes.len())
            .finish()
    }
}

/// Which properties of a multipart body's schema are files and which JSON parts (every
/// other one is a text part), as the generator read them from the spec.
#[derive(Debug, Clone, Copy)]
pub struct FormShape {
    /// `format: binary` properties (or lists of them).
    pub files: &'static [&'static str],
    /// Object properties, sent as JSON parts.
    pub json: &'static [&'static str],
    /// Properties that are lists: one part per item, under one name.
    pub lists: &'static [&'static str],
    /// Properties the schema requires.
    pub required: &'static [&'static str],
}

/// A multipart body read: its text and JSON parts as the object the schema describes,
/// and its file parts in the order they came.
#[derive(Debug, Default)]
pub struct FormParts {
    values: Map<String, Value>,
    files: Vec<(String, FilePart)>,
}

impl FormParts {
    /// The value of the text or JSON part(s) `name` (an array for a list), taken out.
    pub fn value(&mut self, name: &str) -> Option<Value> {
        self.values.remove(name)
    }

    /// The first file part `name`, taken out.
    pub fn file(&mut self, name: &str) -> Option<FilePart> {
        let at = self.files.iter().position(|(n, _)| n == name)?;
        Some(self.files.remove(at).1)
    }

    /// Every file part `name`, taken out, in the order they came.
    pub fn files(&mut self, name: &str) -> Vec<FilePart> {
        let (taken, kept) = std::mem::take(&mut self.files)
            .into_iter()
            .partition(|(n, _)| n == name);
        self.files = kept;
        taken.into_iter().map(|(_, f)| f).collect()
    }
}

impl Incoming {
    /// The body read as `multipart/form-data` (with `multer`, the parser axum's own
    /// `Multipart` uses) and judged against the schema at `schema`: text parts read as
    /// the types their properties declare, as a URL-encoded form's are; JSON parts parsed;
    /// each file part judged as the text of its bytes (so `required`, `maxLength` and
    /// the like apply to it) but kept as bytes. `None`, with a violation, when the body
    /// is not multipart, a part has no name, or a text part is not UTF-8 or a JSON one
    /// not JSON.
    pub async fn multipart_body(
        &mut self,
        schemas: &Schemas,
        schema: Option<&'static str>,
        shape: &FormShape,
    ) -> Option<FormParts> {
        let content_type = self
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let boundary = match multer::parse_boundary(content_type) {
            Ok(boundary) => boundary,
            Err(e) => {
                self.body_violation(format!("the multipart body cannot be read: {e}"));
                return None;
            }
        };
        let body = self.body.clone();
        let stream =
            futures_util::stream::once(async move { Ok::<Bytes, std::convert::Infallible>(body) });
        let mut multipart = multer::Multipart::new(stream, boundary);
        let mut texts = Vec::new();
        let mut json = Vec::new();
        let mut parts = FormParts::default();
        loop {
            let field = match multipart.next_field().await {
                Ok(Some(field)) => field,
                Ok(None) => break,
                Err(e) => {
                    self.body_violation(format!("the multipart body cannot be read: {e}"));
                    return None;
                }
            };
            let Some(name) = field.name().map(str::to_owned) else {
                self.body_violation("a part of the multipart body has no name".to_owned());
                return None;
            };
            let file_name = field.file_name().map(str::to_owned);
            let content_type = field.content_type().map(ToString::to_string);
            let bytes = match field.bytes().await {
                Ok(bytes) => bytes,
                Err(e) => {
                    self.body_violation(format!("the part `{name}` cannot be read: {e}"));
                    return None;
                }
            };
            if shape.files.contains(&name.as_str()) {
                let file = FilePart {
                    file_name,
                    content_type,
                    bytes,
                };
                parts.files.push((name, file));
            } else if shape.json.contains(&name.as_str()) {
                match serde_json::from_slice::<Value>(&bytes) {
                    Ok(value) => json.push((name, value)),
                    Err(e) => {
                        self.body_violation(format!("the part `{name}` is not JSON: {e}"));
                        return None;
                    }
                }
            } else {
                match String::from_utf8(bytes.to_vec()) {
                    Ok(text) => texts.push((name, text)),
                    Err(_) => {
                        self.body_violation(format!("the text part `{name}` is not UTF-8"));
                        return None;
                    }
                }
            }
        }
        let node = schema.and_then(|ptr| schemas.node(ptr));
        let Value::Object(mut values) = schemas.object(node, texts) else {
            unreachable!("`object` builds an object")
        };
        for (name, value) in json {
            put_part(&mut values, shape, name, value);
        }
        // What the schema judges of a file: the text of its bytes.
        let mut judged = values.clone();
        for (name, file) in &parts.files {
            let text = Value::String(String::from_utf8_lossy(&file.bytes).into_owned());
            put_part(&mut judged, shape, name.clone(), text);
        }
        let judged = Value::Object(judged);
        match schema {
            Some(ptr) => schemas.judge_body(ptr, &judged, &mut self.violations),
            // Nothing to judge by: the required parts are still required.
            None => {
                for name in shape.required {
                    if judged.get(*name).is_none() {
                        self.body_violation(format!("the required part `{name}` is missing"));
                    }
                }
            }
        }
        parts.values = values;
        Some(parts)
    }
}

/// A part's value put in the object: gathered into an array for a list property.
fn put_part(values: &mut Map<String, Value>, shape: &FormShape, name: String, value: Value) {
    if shape.lists.contains(&name.as_str()) {
        let entry = values
            .entry(name)
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(items) = entry {
            items.push(value);
        }
    } else {
        values.insert(name, value);
    }
}
// @end

#[cfg(test)]
mod tests {
    use super::*;

    /// A pointer through a path template (`/items/{id}`) judges as any other: its braces
    /// must not stop the validator from compiling, which would judge nothing.
    #[test]
    fn a_pointer_through_a_path_template_judges() {
        let doc = json!({"paths": {"/items/{id} x%": {"get": {"parameters": [
            {"name": "id", "in": "path", "schema": {"type": "integer", "minimum": 1}}
        ]}}}});
        let schemas = Schemas::new(&doc.to_string());
        let mut out = Vec::new();
        let ptr = "/paths/~1items~1{id} x%/get/parameters/0/schema";
        schemas.judge(ptr, &json!(0), Location::Path, Some("id"), &mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        out.clear();
        schemas.judge(ptr, &json!(3), Location::Path, Some("id"), &mut out);
        assert!(out.is_empty());
    }

    /// A text body is judged as the scalar its schema takes, and handed on as its text.
    #[test]
    fn a_text_body_is_judged_as_its_schemas_scalar_and_kept_as_text() {
        let doc = json!({"components": {"schemas": {
            "Count": {"type": "integer", "minimum": 0},
            "Note": {"type": "string", "maxLength": 3}}}});
        let schemas = Schemas::new(&doc.to_string());
        let read = |body: &'static str, ptr: &'static str| {
            let mut incoming = Incoming {
                headers: HeaderMap::new(),
                query: Vec::new(),
                path: Vec::new(),
                body: Bytes::from_static(body.as_bytes()),
                violations: Vec::new(),
            };
            let value = incoming.text_body(&schemas, Some(ptr));
            (value, incoming.violations.len())
        };
        let count = "/components/schemas/Count";
        assert_eq!(read("49", count), (Some(json!("49")), 0));
        assert_eq!(read("-1", count).1, 1);
        assert_eq!(read("forty-nine", count).1, 1);
        let note = "/components/schemas/Note";
        assert_eq!(read("123", note), (Some(json!("123")), 0));
        assert_eq!(read("1234", note).1, 1);
    }

    /// The raw headers an implementation receives may hold a credential: `Debug`, which
    /// a log line or a test failure prints, shows their names and never a value.
    #[test]
    fn raw_headers_debug_names_the_headers_and_shows_no_value() {
        let mut map = HeaderMap::new();
        map.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Basic c2VjcmV0"),
        );
        map.insert("x-trace-id", HeaderValue::from_static("trace-7"));
        let raw = RawHeaders(map);
        let shown = format!("{raw:?}");
        assert!(
            shown.contains("authorization") && shown.contains("x-trace-id"),
            "{shown}"
        );
        assert!(
            !shown.contains("c2VjcmV0") && !shown.contains("trace-7"),
            "{shown}"
        );
        assert_eq!(raw.get("x-trace-id").unwrap(), "trace-7");
    }

    // @if multipart
    /// A file part's `Debug`, which a log line or a test failure prints, gives its size and
    /// never its bytes.
    #[test]
    fn a_file_part_debug_shows_its_size_and_not_its_bytes() {
        let file = FilePart {
            file_name: Some("key.pem".to_owned()),
            content_type: None,
            bytes: Bytes::from_static(b"SECRET-KEY"),
        };
        let shown = format!("{file:?}");
        assert!(
            shown.contains("key.pem") && shown.contains("len: 10"),
            "{shown}"
        );
        assert!(
            !shown.contains("SECRET") && !shown.contains("83, 69"),
            "{shown}"
        );
    }

    /// Parts are taken out by name: the first file of a name, then every other one.
    #[test]
    fn form_parts_are_taken_by_name() {
        let file = |b: &'static [u8]| FilePart {
            bytes: Bytes::from_static(b),
            ..FilePart::default()
        };
        let mut parts = FormParts {
            values: Map::from_iter([("title".to_owned(), json!("t"))]),
            files: vec![
                ("a".to_owned(), file(b"1")),
                ("b".to_owned(), file(b"2")),
                ("a".to_owned(), file(b"3")),
            ],
        };
        assert_eq!(parts.value("title"), Some(json!("t")));
        assert_eq!(parts.value("title"), None, "taken once");
        assert_eq!(
            parts.file("a").map(|f| f.bytes),
            Some(Bytes::from_static(b"1"))
        );
        assert_eq!(parts.files("a").len(), 1);
        assert_eq!(parts.files("b")[0].bytes, Bytes::from_static(b"2"));
        assert!(parts.files.is_empty());
    }
    // @end

    #[test]
    fn header_values_are_written_in_simple_style_and_broken_ones_are_a_problem() {
        let simple = HeaderStyle::Simple { explode: false };
        let text = |v: Value, style| header_text(&v, style);
        assert_eq!(text(json!("a b"), simple).as_deref(), Some("a b"));
        assert_eq!(text(json!(42), simple).as_deref(), Some("42"));
        assert_eq!(text(json!(true), simple).as_deref(), Some("true"));
        assert_eq!(
            text(json!(["a", 1, 2.5]), simple).as_deref(),
            Some("a,1,2.5")
        );
        assert_eq!(text(json!(null), simple), None);
        // Keys in the order of the JSON map (alphabetical in a generated crate, whose
        // `serde_json` does not preserve order): here both orders agree.
        let object = json!({"a": "admin", "gone": null, "n": 3});
        assert_eq!(text(object.clone(), simple).as_deref(), Some("a,admin,n,3"));
        let exploded = HeaderStyle::Simple { explode: true };
        assert_eq!(text(object, exploded).as_deref(), Some("a=admin,n=3"));
        assert_eq!(text(json!({"gone": null}), simple), None);
        assert_eq!(
            text(json!({"a": [1]}), HeaderStyle::JsonText).as_deref(),
            Some(r#"{"a":[1]}"#)
        );

        let mut headers = HeaderMap::new();
        put_header(&mut headers, "X-Count", &7_i64, simple).unwrap();
        put_header(&mut headers, "X-None", &None::<String>, simple).unwrap();
        assert_eq!(headers.len(), 1);
        assert_eq!(headers["x-count"], "7");
        for (name, value) in [
            ("X-Bad", "line\nbreak"),
            ("X-Bad", "café"),
            ("bad name", "x"),
        ] {
            let problem = put_header(&mut headers, name, value, simple).unwrap_err();
            assert_eq!(problem.status, StatusCode::INTERNAL_SERVER_ERROR);
            assert!(problem.detail.contains(name), "{}", problem.detail);
        }
        assert_eq!(headers.len(), 1);

        let answer = with_headers(
            StatusCode::CREATED,
            empty(StatusCode::CREATED),
            headers.clone(),
        );
        assert_eq!(answer.headers()["x-count"], "7");
        let failed = Problem::internal("no body").into_response();
        let failed = with_headers(StatusCode::CREATED, failed, headers);
        assert!(failed.headers().get("x-count").is_none());
    }

    #[test]
    fn query_text_becomes_the_declared_type_and_bad_text_stays_text() {
        let schemas = Schemas::new(r#"{"s": {"type": ["integer", "null"]}}"#);
        let node = schemas.node("/s");
        assert_eq!(schemas.scalar(node, "12"), json!(12));
        assert_eq!(schemas.scalar(node, "x"), json!("x"));
    }
}
