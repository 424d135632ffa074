//! A request judged against its operation: every declared parameter (present when
//! required, its decoded value valid for its schema) and the body (present when
//! required, parsed as its media type, valid for its schema). Values are judged by the
//! request generator's validators (`schema_values::Generator::compile`, each schema's
//! compiled once and kept), the validators the harness and the value generator use, so a 3.0 `nullable` or a `readOnly` property means here what it
//! means there.

use schema_values::Generator;
use serde_json::Value;
use spec_model::encode::Location;

use crate::coerce::object;
use crate::operations::{Media, Op, Schema};
use crate::params::{Wire, query_pairs, read};

/// One way a request breaks its operation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Violation {
    /// `path`, `query`, `header`, `cookie` or `body`.
    pub location: &'static str,
    /// The parameter's name; `None` for the body.
    pub name: Option<String>,
    /// JSON pointer, in the value, of the part at fault (`""`: the whole value).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

fn location_name(l: Location) -> &'static str {
    match l {
        Location::Path => "path",
        Location::Query => "query",
        Location::Header => "header",
        Location::Cookie => "cookie",
    }
}

/// The parameters' violations.
pub(crate) fn parameters(
    g: &Generator<'static>,
    doc: &Value,
    op: &Op,
    wire: &Wire<'_>,
) -> Vec<Violation> {
    let mut out = Vec::new();
    for p in &op.params {
        let location = location_name(p.location);
        let Some(value) = read(doc, p, wire) else {
            if p.required {
                out.push(Violation {
                    location,
                    name: Some(p.name.clone()),
                    pointer: String::new(),
                    message: format!("the required {location} parameter `{}` is missing", p.name),
                });
            }
            continue;
        };
        if let Some(schema) = &p.schema {
            out.extend(judge(g, schema, &value, location, Some(&p.name)));
        }
    }
    out
}

fn judge(
    g: &Generator<'static>,
    schema: &Schema,
    value: &Value,
    location: &'static str,
    name: Option<&str>,
) -> Vec<Violation> {
    match schema.request_check(g) {
        Ok(check) => check
            .failures(value)
            .into_iter()
            .map(|f| Violation {
                location,
                name: name.map(str::to_owned),
                pointer: f.instance_path,
                message: f.message,
            })
            .collect(),
        // A schema the validator cannot compile judges nothing: the mock is no stricter
        // than its spec can be read.
        Err(_) => Vec::new(),
    }
}

/// Whether a media type is read as JSON (`application/json`, `…+json`).
pub(crate) fn is_json(mime: &str) -> bool {
    let m = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    m == "application/json" || m.ends_with("+json") || m == "text/json"
}

/// The body read as `media` says ([`parse_body`]), a `multipart/form-data` one too
/// ([`crate::multipart`]: `content_type` is the request's, whose boundary cuts it).
pub(crate) async fn read_body(
    doc: &Value,
    media: &Media,
    content_type: &str,
    bytes: &bytes::Bytes,
) -> Option<Result<Value, Violation>> {
    if media.mime.eq_ignore_ascii_case("multipart/form-data") {
        let schema = media.schema.as_ref().map_or(&Value::Null, |s| s.value);
        let read = crate::multipart::read(doc, schema, content_type, bytes.clone()).await;
        return Some(read.map_err(|message| Violation {
            location: "body",
            name: None,
            pointer: String::new(),
            message,
        }));
    }
    parse_body(doc, media, bytes)
}

/// The body read as `media` says (`Err`: it cannot be read), `None` for a media type
/// whose bytes are not judged (binary, a multipart type other than `form-data`).
fn parse_body(doc: &Value, media: &Media, bytes: &[u8]) -> Option<Result<Value, Violation>> {
    let mime = media.mime.to_ascii_lowercase();
    let violation = |message: String| Violation {
        location: "body",
        name: None,
        pointer: String::new(),
        message,
    };
    if is_json(&mime) || mime == "*/*" && serde_json::from_slice::<Value>(bytes).is_ok() {
        return Some(
            serde_json::from_slice(bytes)
                .map_err(|e| violation(format!("the body is not JSON: {e}"))),
        );
    }
    if mime.starts_with("application/x-www-form-urlencoded") {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return Some(Err(violation("the form body is not UTF-8".to_owned())));
        };
        let pairs = query_pairs(text)
            .into_iter()
            .map(|(k, v)| {
                (
                    k,
                    percent_encoding::percent_decode_str(&v.replace('+', " "))
                        .decode_utf8_lossy()
                        .into_owned(),
                )
            })
            .collect();
        let schema = media.schema.as_ref().map_or(&Value::Null, |s| s.value);
        return Some(Ok(object(doc, schema, pairs)));
    }
    if mime.starts_with("text/") {
        // The text of a scalar: a number or a boolean where the schema takes one (as a
        // parameter's text is read), else the string.
        let schema = media.schema.as_ref().map_or(&Value::Null, |s| s.value);
        let types = crate::coerce::types_of(doc, schema);
        return Some(match std::str::from_utf8(bytes) {
            Ok(t) => Ok(crate::coerce::scalar(t, &types)),
            Err(_) => Err(violation("the text body is not UTF-8".to_owned())),
        });
    }
    None
}

/// Whether no bytes sent as `sent` (the request's `Content-Type`, which a declared type
/// or range took) are a value of it: under a binary or text type they are its empty value (a zero-length file, an empty
/// text), which the schema then judges; under JSON or a form they are no body.
pub(crate) fn empty_is_a_value(sent: &str) -> bool {
    let mime = sent
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    !is_json(&mime)
        && !mime.starts_with("application/x-www-form-urlencoded")
        && !mime.starts_with("multipart/")
}

/// The body's violations: missing when required, unreadable, or invalid for its schema
/// (`parsed`: the body as [`read_body`] read it; `empty_is_value`: no bytes are the empty
/// value of the type the request named, see [`empty_is_a_value`]).
pub(crate) fn body(
    g: &Generator<'static>,
    op: &Op,
    media: Option<&Media>,
    (bytes, empty_is_value): (&[u8], bool),
    parsed: Option<&Result<Value, Violation>>,
) -> Vec<Violation> {
    let Some(decl) = &op.body else {
        return Vec::new();
    };
    if bytes.is_empty() && !empty_is_value {
        return match decl.required {
            true => vec![Violation {
                location: "body",
                name: None,
                pointer: String::new(),
                message: "the required request body is missing".to_owned(),
            }],
            false => Vec::new(),
        };
    }
    let Some(media) = media else {
        return Vec::new();
    };
    match parsed {
        None => Vec::new(),
        Some(Err(v)) => vec![v.clone()],
        Some(Ok(value)) => match &media.schema {
            Some(s) => judge(g, s, value, "body", None),
            None => Vec::new(),
        },
    }
}
