//! What the mock answers: the status, the body and the headers, from the spec alone.
//!
//! - **Status**: the one `Prefer: code=` names when the operation declares it (exactly,
//!   by class or as `default`), else the lowest declared 2xx; without one, 200 where
//!   `2XX` or `default` is declared, else the lowest declared status.
//! - **Media type**: the first declared one the `Accept` header takes, else the first
//!   declared JSON one, else the first declared.
//! - **Body**: the named example of `Prefer: example=`; with `Prefer: dynamic=true` a
//!   value generated from the schema on a copy of the document without examples; else the
//!   media type's `example`, its first named `examples` entry, the schema's own example
//!   (through `schema_values::Generator`, which takes one where it validates), else a
//!   value generated from the schema with a fixed seed, so the same request gets the same
//!   answer. An example that does not validate against its schema is passed over: the
//!   mock answers what its spec says, not what the spec's prose got wrong. That answer,
//!   with its headers, depends on the declaration alone, so it is made the first time a
//!   request needs it and its bytes are sent again after.
//! - **Headers**: each header the response declares `required`, with a generated value.

use bytes::Bytes;
use http::HeaderMap;
use schema_values::Generator;
use serde_json::Value;

use crate::api::Api;
use crate::operations::{Media, Op, Resp};
use crate::problem;
use crate::validate::{Violation, is_json};

/// An answer ready to be sent.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub content_type: Option<String>,
    /// Shared, not copied, where the answer was made before.
    pub body: Bytes,
}

impl Reply {
    /// A problem-details answer.
    pub fn problem(status: u16, detail: &str, errors: &[Violation]) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            content_type: Some(problem::MEDIA.to_owned()),
            body: serde_json::to_vec(&problem::body(status, detail, errors))
                .unwrap_or_default()
                .into(),
        }
    }
}

/// Where a body's value comes from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source<'p> {
    /// Examples first, then generation with a fixed seed.
    Static,
    /// The named example.
    Example(&'p str),
    /// Generated from the schema alone with this seed.
    Dynamic(u64),
}

/// The status a request gets when nothing else decides: the lowest declared 2xx.
pub(crate) fn success(op: &Op) -> u16 {
    let exact = op
        .responses
        .iter()
        .filter_map(Resp::exact)
        .filter(|c| (200..300).contains(c))
        .min();
    exact.unwrap_or_else(|| {
        let any = op.responses.iter().filter_map(Resp::exact).min();
        let class_or_default = op
            .responses
            .iter()
            .any(|r| r.status.eq_ignore_ascii_case("2XX") || r.status == "default");
        match (class_or_default, any) {
            (true, _) | (false, None) => 200,
            (false, Some(c)) => c,
        }
    })
}

/// The declared media type to answer in.
fn media<'o>(resp: &'o Resp, headers: &HeaderMap) -> Option<&'o Media> {
    let accept: Vec<String> = headers
        .get_all(http::header::ACCEPT)
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
        .filter(|r| !r.is_empty() && r != "*/*")
        .collect();
    let takes = |m: &Media| {
        let m = m.mime.to_ascii_lowercase();
        accept.iter().any(|r| match r.strip_suffix("/*") {
            Some(kind) => m.starts_with(&format!("{kind}/")),
            None => *r == m,
        })
    };
    resp.media
        .iter()
        .find(|m| takes(m))
        .or_else(|| resp.media.iter().find(|m| is_json(&m.mime)))
        .or_else(|| resp.media.first())
}

/// The value of a body of `media`: `Err` when a named example does not exist or no
/// value can be made; `Ok(None)` for a media type with neither schema nor example.
pub(crate) fn value(api: &Api, media: &Media, source: Source<'_>) -> Result<Option<Value>, String> {
    if let Source::Example(name) = source {
        let found = media
            .examples
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| (*v).clone());
        return found
            .map(Some)
            .ok_or_else(|| format!("the response declares no example named `{name}`"));
    }
    let Some(schema) = &media.schema else {
        let first = media
            .example
            .or_else(|| media.examples.first().map(|(_, v)| *v));
        return Ok(first.cloned());
    };
    if let Source::Dynamic(seed) = source {
        let g = api.dynamic();
        let node = g.schema_at(&schema.pointer).unwrap_or(schema.value);
        return g
            .generate_at(node, &schema.pointer, seed)
            .map(Some)
            .map_err(|e| e.to_string());
    }
    let g = &api.responses;
    let examples = media
        .example
        .into_iter()
        .chain(media.examples.iter().map(|(_, v)| *v));
    for ex in examples {
        if g.validate(schema.value, ex).is_ok() {
            return Ok(Some(ex.clone()));
        }
    }
    g.generate_at(schema.value, &schema.pointer, 0)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// The type an answer declared under `media` is sent as: a range (`*/*`, `text/*`) names
/// no type a response can carry, so the one its body is written in (plain text for
/// `text/*`; bytes for a `format: binary` string; else JSON); a concrete type as it is.
fn sent_type<'m>(doc: &Value, media: &'m Media) -> &'m str {
    let binary = media.schema.as_ref().is_some_and(|s| {
        let s = crate::coerce::resolve(doc, s.value);
        s.get("type").and_then(Value::as_str) == Some("string")
            && s.get("format").and_then(Value::as_str) == Some("binary")
    });
    match media.mime.split(';').next().unwrap_or("").trim() {
        "*/*" | "application/*" if binary => "application/octet-stream",
        "*/*" | "application/*" => "application/json",
        "text/*" => "text/plain",
        _ => &media.mime,
    }
}

/// A value as the bytes of `mime`: JSON text, or a string as it is for text and binary.
pub(crate) fn encode(mime: &str, value: &Value) -> Vec<u8> {
    match value {
        Value::String(s) if !is_json(mime) => s.clone().into_bytes(),
        other => serde_json::to_vec(other).unwrap_or_default(),
    }
}

/// Values for the headers `resp` declares required.
fn headers(g: &Generator<'static>, resp: &Resp, seed: u64) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for h in resp.headers.iter().filter(|h| h.required) {
        let value = match &h.schema {
            Some(s) => g.generate_at(s.value, &s.pointer, seed).ok(),
            None => Some(Value::String(String::new())),
        };
        let text = match value {
            Some(Value::Array(items)) => items
                .iter()
                .map(spec_model::encode::scalar_text)
                .collect::<Vec<_>>()
                .join(","),
            Some(v) => spec_model::encode::scalar_text(&v),
            None => continue,
        };
        out.push((h.name.clone(), text));
    }
    out
}

/// The answer `op` declares for `status` (which it must declare), its body from
/// `source`, or from `record` when one is given and fits the schema.
pub(crate) fn declared(
    api: &Api,
    op: &Op,
    status: u16,
    request: &HeaderMap,
    source: Source<'_>,
    record: Option<&Value>,
) -> Reply {
    let Some(resp) = op.response(status) else {
        // An operation that declares no response at all: the status, nothing more.
        return Reply {
            status,
            headers: Vec::new(),
            content_type: None,
            body: Bytes::new(),
        };
    };
    // The static answer depends on the declaration alone (and the media type `Accept`
    // chose), so it is made once per declaration and sent again as made.
    let fixed = matches!(source, Source::Static) && record.is_none();
    let headers = match (fixed, source) {
        (true, _) => static_headers(api, resp).clone(),
        (false, Source::Dynamic(seed)) => headers(&api.responses, resp, seed),
        (false, _) => headers(&api.responses, resp, 0),
    };
    let mut reply = Reply {
        status,
        headers,
        content_type: None,
        body: Bytes::new(),
    };
    // A 1xx, 204 or 304 has no content (RFC 9110 §15.2, §15.3.5, §15.4.5), whatever
    // media its declaration lists.
    let bodiless = status < 200 || status == 204 || status == 304;
    let Some(media) = media(resp, request).filter(|_| !bodiless) else {
        return reply;
    };
    let made = match fixed {
        true => media
            .static_body
            .get_or_init(|| body(api, media, source, None))
            .clone(),
        false => body(api, media, source, record),
    };
    let made = match made {
        Ok(b) => b,
        Err(e) if matches!(source, Source::Example(_)) => return Reply::problem(404, &e, &[]),
        Err(e) => return Reply::problem(500, &format!("the mock cannot answer: {e}"), &[]),
    };
    reply.content_type = Some(sent_type(api.doc, media).to_owned());
    if let Some(b) = made {
        reply.body = b;
    }
    reply
}

/// The values of `resp`'s required headers in a static answer, made once.
fn static_headers<'r>(api: &Api, resp: &'r Resp) -> &'r Vec<(String, String)> {
    resp.static_headers
        .get_or_init(|| headers(&api.responses, resp, 0))
}

/// The encoded body of `media` from `source` (or `record`, where it fits the schema):
/// `Ok(None)` for no body, `Err` when no value can be made.
fn body(
    api: &Api,
    media: &Media,
    source: Source<'_>,
    record: Option<&Value>,
) -> Result<Option<Bytes>, String> {
    let value = value(api, media, source)?;
    let mut value = match (record, &media.schema) {
        (Some(r), Some(s)) => Some(crate::records::fit(
            &api.responses,
            s,
            value.unwrap_or(Value::Null),
            r,
        )),
        _ => value,
    };
    // An example asked for by name is sent as written; anything else without what the
    // schema marks write-only.
    if let (Some(v), Some(s), false) = (
        &mut value,
        &media.schema,
        matches!(source, Source::Example(_)),
    ) {
        crate::write_only::scrub(&api.responses, api.doc, s.value, v);
    }
    Ok(value.map(|v| Bytes::from(encode(sent_type(api.doc, media), &v))))
}

/// The answer to a request refused with `code`: the operation's own declaration of it
/// where it has one; else, for input the operation cannot take, its declared 400 or 422;
/// else problem details with `code`. A declared answer's body is generated from its
/// schema; where it declares none, the problem details are its body.
pub(crate) fn rejection(
    api: &Api,
    op: Option<&Op>,
    code: u16,
    request: &HeaderMap,
    detail: &str,
    errors: &[Violation],
) -> Reply {
    let Some(op) = op else {
        return Reply::problem(code, detail, errors);
    };
    let input = matches!(code, 400 | 413 | 415 | 422);
    let own = op.response(code).map(|_| code);
    let fallback = || {
        input
            .then(|| {
                [400, 422]
                    .into_iter()
                    .find(|c| op.responses.iter().any(|r| r.exact() == Some(*c)))
            })
            .flatten()
    };
    let Some(status) = own.or_else(fallback) else {
        return Reply::problem(code, detail, errors);
    };
    let resp = op.response(status).expect("declared");
    if resp
        .media
        .iter()
        .any(|m| m.schema.is_some() || m.example.is_some())
    {
        return declared(api, op, status, request, Source::Static, None);
    }
    let mut reply = Reply::problem(status, detail, errors);
    reply.headers = static_headers(api, resp).clone();
    // Problem details are JSON: where the declaration names a JSON type (with no schema
    // or example to fill), the answer carries that type rather than one it does not list.
    if !resp.media.iter().any(|m| m.mime == problem::MEDIA)
        && let Some(m) = resp.media.iter().find(|m| is_json(&m.mime))
    {
        reply.content_type = Some(m.mime.clone());
    }
    reply
}
