//! The operations of a document, read once from its JSON tree into what a request is
//! judged and answered by: parameters with their encodings, the request body's media
//! types, the responses with their headers, media types and examples, and the security
//! requirements. Every `$ref` is followed by `spec_model::refs`, the workspace's one
//! resolver; schemas stay as nodes of the document with their pointers, so that
//! validation and generation see them exactly as written.

use std::sync::OnceLock;

use bytes::Bytes;
use http::Method;
use schema_values::{Compiled, Generator};
use serde_json::Value;
use spec_model::encode::{Location, Style};
use spec_model::push_pointer;
use spec_model::refs::follow_value;

/// A schema node and where it sits in the document.
#[derive(Debug, Clone)]
pub(crate) struct Schema {
    /// The node as written (possibly a `$ref`).
    pub value: &'static Value,
    /// Its JSON pointer.
    pub pointer: String,
    /// Its validator for requests, compiled when a request first needs it and kept:
    /// looking it up again through the generator costs every request the schema's text.
    request_check: OnceLock<Result<Compiled, String>>,
}

impl Schema {
    /// The schema compiled by `requests`, the mock's one generator for requests
    /// (`Api::requests`); the first call's generator is the one kept.
    pub fn request_check(&self, requests: &Generator<'static>) -> Result<&Compiled, &str> {
        self.request_check
            .get_or_init(|| requests.compile(self.value))
            .as_ref()
            .map_err(String::as_str)
    }
}

/// One parameter, with the encoding OpenAPI assumes where the spec names none.
#[derive(Debug)]
pub(crate) struct Param {
    pub name: String,
    pub location: Location,
    pub style: Style,
    pub explode: bool,
    pub required: bool,
    pub schema: Option<Schema>,
    /// Described by `content` (a JSON text) instead of `schema`.
    pub json_content: bool,
    /// How its texts are read (`crate::reading::reading`).
    pub reading: crate::reading::Reading,
}

/// One media type of a body, with its examples.
#[derive(Debug)]
pub(crate) struct Media {
    pub mime: String,
    pub schema: Option<Schema>,
    /// The media type's `example`.
    pub example: Option<&'static Value>,
    /// The media type's named `examples`, each's `value`.
    pub examples: Vec<(String, &'static Value)>,
    /// As a response's media type, the body it answers when nothing in the request
    /// chooses another (`crate::answer`'s static answer), made on first use and kept:
    /// it depends on the declaration alone, and making it checks examples against the
    /// schema and walks it for write-only values.
    pub static_body: OnceLock<Result<Option<Bytes>, String>>,
}

/// A request body.
#[derive(Debug)]
pub(crate) struct Body {
    pub required: bool,
    pub media: Vec<Media>,
}

/// A declared response header.
#[derive(Debug)]
pub(crate) struct Header {
    pub name: String,
    pub required: bool,
    pub schema: Option<Schema>,
}

/// A declared response: `200`, `4XX` or `default`.
#[derive(Debug)]
pub(crate) struct Resp {
    pub status: String,
    pub headers: Vec<Header>,
    pub media: Vec<Media>,
    /// The values of its required headers in a static answer (seed 0), made on first
    /// use and kept, as `static_body` is.
    pub static_headers: OnceLock<Vec<(String, String)>>,
}

impl Resp {
    /// Whether this declaration covers `code`: exactly, by its class (`4XX`), or as
    /// `default`.
    pub fn covers(&self, code: u16) -> bool {
        let s = self.status.to_ascii_uppercase();
        s == code.to_string()
            || (s.len() == 3 && s.ends_with("XX") && s.as_bytes()[0] == b'0' + (code / 100) as u8)
            || s == "DEFAULT"
    }

    /// The exact status it names, if it names one.
    pub fn exact(&self) -> Option<u16> {
        self.status.parse().ok()
    }
}

/// One credential a security requirement asks for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Credential {
    /// `Authorization: Bearer …` (`http` bearer, `oauth2`, `openIdConnect`).
    Bearer,
    /// `Authorization: <scheme> …` for another `http` scheme (`basic`, `digest`).
    Http(String),
    /// An API key in a header, query parameter or cookie.
    ApiKey(Location, String),
    /// A credential the request cannot show (`mutualTLS`, an unknown type): not checked.
    Unchecked,
}

/// One operation.
#[derive(Debug)]
pub(crate) struct Op {
    pub method: Method,
    /// `operationId`, else `METHOD path`.
    pub id: String,
    pub params: Vec<Param>,
    pub body: Option<Body>,
    pub responses: Vec<Resp>,
    /// Alternatives, each a set of credentials all required; empty: no security.
    pub security: Vec<Vec<Credential>>,
}

impl Op {
    /// The declaration that answers `code`: an exact one before its class before `default`.
    pub fn response(&self, code: u16) -> Option<&Resp> {
        let exact = self.responses.iter().find(|r| r.exact() == Some(code));
        let class = || {
            self.responses
                .iter()
                .find(|r| r.exact().is_none() && r.covers(code) && r.status != "default")
        };
        let default = || self.responses.iter().find(|r| r.status == "default");
        exact.or_else(class).or_else(default)
    }
}

/// The methods OpenAPI names, as keys of a path item.
pub(crate) const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Reads the operations of the path item at `pointer`; `doc` lives as long as the mock.
pub(crate) fn read_path_item(
    doc: &'static Value,
    item: &'static Value,
    pointer: &str,
) -> Result<Vec<Op>, (String, String)> {
    let (item, pointer) = follow(doc, item, pointer)?;
    let shared = item.get("parameters");
    let mut ops = Vec::new();
    for method in METHODS {
        let Some(op) = item.get(*method) else {
            continue;
        };
        let at = push_pointer(&pointer, method);
        let params = read_params(doc, shared, &push_pointer(&pointer, "parameters"), op, &at)?;
        let body = match op.get("requestBody") {
            Some(b) => Some(read_body(doc, b, &push_pointer(&at, "requestBody"))?),
            None => None,
        };
        let mut responses = Vec::new();
        if let Some(map) = op.get("responses").and_then(Value::as_object) {
            let base = push_pointer(&at, "responses");
            for (status, r) in map {
                if status.starts_with("x-") {
                    continue;
                }
                responses.push(read_response(doc, status, r, &push_pointer(&base, status))?);
            }
        }
        let security = op
            .get("security")
            .or_else(|| doc.get("security"))
            .map(|s| read_security(doc, s))
            .unwrap_or_default();
        let id = op
            .get("operationId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{} {}", method.to_uppercase(), pointer));
        ops.push(Op {
            method: Method::from_bytes(method.to_uppercase().as_bytes()).expect("a method name"),
            id,
            params,
            body,
            responses,
            security,
        });
    }
    Ok(ops)
}

/// Follows `$ref`s, turning the resolver's error into (pointer, message).
fn follow(
    doc: &'static Value,
    node: &'static Value,
    at: &str,
) -> Result<(&'static Value, String), (String, String)> {
    follow_value(doc, node, at).map_err(|l| (l.pointer, l.message))
}

/// Path-item parameters overridden by the operation's of the same name and location.
fn read_params(
    doc: &'static Value,
    shared: Option<&'static Value>,
    shared_at: &str,
    op: &'static Value,
    op_at: &str,
) -> Result<Vec<Param>, (String, String)> {
    let mut out: Vec<Param> = Vec::new();
    let lists = [
        (shared, shared_at.to_owned()),
        (op.get("parameters"), push_pointer(op_at, "parameters")),
    ];
    for (list, at) in lists {
        let Some(list) = list.and_then(Value::as_array) else {
            continue;
        };
        for (i, p) in list.iter().enumerate() {
            let Some(param) = read_param(doc, p, &push_pointer(&at, &i.to_string()))? else {
                continue;
            };
            out.retain(|q| !(q.name == param.name && q.location == param.location));
            out.push(param);
        }
    }
    Ok(out)
}

/// One parameter; `None` for an `Accept` or `Content-Type` header parameter, which the
/// request's own negotiation carries. A declared `Authorization` header parameter is
/// kept (OpenAPI says to ignore it): its author asked for the header, and a request
/// without it is refused.
fn read_param(
    doc: &'static Value,
    p: &'static Value,
    at: &str,
) -> Result<Option<Param>, (String, String)> {
    let (p, at) = follow(doc, p, at)?;
    let name = p.get("name").and_then(Value::as_str).unwrap_or_default();
    let location = match p.get("in").and_then(Value::as_str) {
        Some("query") => Location::Query,
        Some("header") => Location::Header,
        Some("path") => Location::Path,
        Some("cookie") => Location::Cookie,
        other => {
            return Err((
                push_pointer(&at, "in"),
                format!("parameter location {other:?} is none of query, header, path, cookie"),
            ));
        }
    };
    if location == Location::Header
        && ["accept", "content-type"].contains(&name.to_ascii_lowercase().as_str())
    {
        return Ok(None);
    }
    let style = p
        .get("style")
        .and_then(Value::as_str)
        .and_then(Style::parse)
        .unwrap_or_else(|| Style::default_for(location));
    let explode = p
        .get("explode")
        .and_then(Value::as_bool)
        .unwrap_or_else(|| style.default_explode());
    let (schema, json_content) = match (p.get("schema"), p.get("content")) {
        (Some(s), _) => (Some(schema(s, push_pointer(&at, "schema"))), false),
        (None, Some(Value::Object(c))) => match c.iter().next() {
            Some((mime, m)) => {
                let at = push_pointer(&push_pointer(&at, "content"), mime);
                let s = m
                    .get("schema")
                    .map(|s| schema(s, push_pointer(&at, "schema")));
                (s, true)
            }
            None => (None, false),
        },
        _ => (None, false),
    };
    let mut param = Param {
        name: name.to_owned(),
        location,
        style,
        explode,
        required: location == Location::Path
            || p.get("required").and_then(Value::as_bool).unwrap_or(false),
        schema,
        json_content,
        reading: Default::default(),
    };
    param.reading = crate::reading::reading(
        doc,
        param.schema.as_ref().map(|s| s.value),
        param.json_content,
    );
    Ok(Some(param))
}

fn schema(value: &'static Value, pointer: String) -> Schema {
    Schema {
        value,
        pointer,
        request_check: OnceLock::new(),
    }
}

fn read_body(doc: &'static Value, b: &'static Value, at: &str) -> Result<Body, (String, String)> {
    let (b, at) = follow(doc, b, at)?;
    Ok(Body {
        required: b.get("required").and_then(Value::as_bool).unwrap_or(false),
        media: read_content(doc, b.get("content"), &push_pointer(&at, "content"))?,
    })
}

/// The media types of a `content` map, with examples resolved to their values.
fn read_content(
    doc: &'static Value,
    content: Option<&'static Value>,
    at: &str,
) -> Result<Vec<Media>, (String, String)> {
    let mut out = Vec::new();
    for (mime, m) in content.and_then(Value::as_object).into_iter().flatten() {
        let at = push_pointer(at, mime);
        let mut examples = Vec::new();
        for (name, ex) in m
            .get("examples")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let ex_at = push_pointer(&push_pointer(&at, "examples"), name);
            let (ex, _) = follow(doc, ex, &ex_at)?;
            if let Some(v) = ex.get("value") {
                examples.push((name.clone(), v));
            }
        }
        out.push(Media {
            mime: mime.clone(),
            schema: m
                .get("schema")
                .map(|s| schema(s, push_pointer(&at, "schema"))),
            example: m.get("example"),
            examples,
            static_body: OnceLock::new(),
        });
    }
    Ok(out)
}

fn read_response(
    doc: &'static Value,
    status: &str,
    r: &'static Value,
    at: &str,
) -> Result<Resp, (String, String)> {
    let (r, at) = follow(doc, r, at)?;
    let mut headers = Vec::new();
    for (name, h) in r
        .get("headers")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if name.eq_ignore_ascii_case("content-type") {
            continue;
        }
        let h_at = push_pointer(&push_pointer(&at, "headers"), name);
        let (h, h_at) = follow(doc, h, &h_at)?;
        headers.push(Header {
            name: name.clone(),
            required: h.get("required").and_then(Value::as_bool).unwrap_or(false),
            schema: h
                .get("schema")
                .map(|s| schema(s, push_pointer(&h_at, "schema"))),
        });
    }
    Ok(Resp {
        status: status.to_owned(),
        headers,
        media: read_content(doc, r.get("content"), &push_pointer(&at, "content"))?,
        static_headers: OnceLock::new(),
    })
}

/// Security requirements as alternatives of credential sets; a scheme the document does
/// not define is left unchecked rather than refusing every request.
fn read_security(doc: &Value, security: &Value) -> Vec<Vec<Credential>> {
    let schemes = doc.pointer("/components/securitySchemes");
    let mut out = Vec::new();
    for requirement in security.as_array().into_iter().flatten() {
        let mut set = Vec::new();
        for name in requirement
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k)
        {
            let scheme = schemes
                .and_then(|s| s.get(name))
                .and_then(|s| follow_value(doc, s, "").ok())
                .map(|(s, _)| s);
            set.push(scheme.map_or(Credential::Unchecked, credential));
        }
        out.push(set);
    }
    out
}

fn credential(scheme: &Value) -> Credential {
    let text = |k: &str| scheme.get(k).and_then(Value::as_str).unwrap_or_default();
    match text("type") {
        "http" if text("scheme").eq_ignore_ascii_case("bearer") => Credential::Bearer,
        "http" => Credential::Http(text("scheme").to_ascii_lowercase()),
        "oauth2" | "openIdConnect" => Credential::Bearer,
        "apiKey" => match text("in") {
            "header" => Credential::ApiKey(Location::Header, text("name").to_owned()),
            "query" => Credential::ApiKey(Location::Query, text("name").to_owned()),
            "cookie" => Credential::ApiKey(Location::Cookie, text("name").to_owned()),
            _ => Credential::Unchecked,
        },
        _ => Credential::Unchecked,
    }
}
