//! The mock as an HTTP service: one handler for every request, in this order (each step
//! may answer): route (404 for an unknown path, 405 with `Allow` for a method the path
//! does not take), body size (413), credentials (401), body media type (415),
//! parameters and body (400/422, see [`crate::answer::rejection`]), `Prefer: code=`, the
//! store (stateful mode), and the operation's success answer. Every exchange is logged
//! when a log is set. No input makes the handler fail: a request it cannot read is a 4xx.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::response::Response;
use http::{HeaderMap, HeaderValue, Method, Request, StatusCode};
use serde_json::Value;

use crate::answer::{Reply, Source, declared, rejection, success};
use crate::api::{Api, authorized};
use crate::log::{Exchange, Log};
use crate::operations::{Media, Op};
use crate::params::{Wire, query_pairs};
use crate::prefer::{Prefer, parse};
use crate::records::{Role, Store};
use crate::routes::{PathParams, find};
use crate::validate::{self, is_json, read_body};

/// Everything a request's handler reads.
pub(crate) struct App {
    pub api: Api,
    pub roles: Vec<Role>,
    /// The records of stateful mode; `None`: stateless.
    pub store: Option<Store>,
    pub log: Option<Log>,
    pub body_limit: usize,
    /// The one bearer token accepted, when set.
    pub token: Option<String>,
}

/// A request's route: the template's index, the path parameters and the path matched.
type Routed<'p> = (usize, PathParams, &'p str);

/// The template and path parameters of `path`: under the server's base path first, then
/// the path as it is.
fn route<'p>(api: &Api, path: &'p str) -> Option<Routed<'p>> {
    let under_base = match api.base.as_str() {
        "" => None,
        base if path == base => Some("/"),
        base => path.strip_prefix(base).filter(|r| r.starts_with('/')),
    };
    if let Some(rest) = under_base
        && let Some((i, params)) = find(&api.templates, rest)
    {
        return Some((i, params, rest));
    }
    find(&api.templates, path).map(|(i, params)| (i, params, path))
}

/// Handles one request.
pub(crate) async fn handle(app: Arc<App>, req: Request<Body>) -> Response {
    let started = Instant::now();
    let (parts, body) = req.into_parts();
    let path = parts.uri.path();
    let query = parts.uri.query();
    let mut operation = None;
    let reply = answer(
        &app,
        &parts.method,
        path,
        query,
        &parts.headers,
        body,
        &mut operation,
    )
    .await;
    if let Some(log) = &app.log {
        log.exchange(
            &Exchange {
                method: parts.method.as_str(),
                path,
                query,
                headers: &parts.headers,
                operation,
                status: reply.status,
                duration: started.elapsed(),
            },
            &app.api.secrets,
        );
    }
    to_response(reply, parts.method == Method::HEAD)
}

async fn answer<'a>(
    app: &'a App,
    method: &Method,
    path: &str,
    query: Option<&str>,
    headers: &HeaderMap,
    body: Body,
    operation: &mut Option<&'a str>,
) -> Reply {
    let api = &app.api;
    let Some((index, params, rest)) = route(api, path) else {
        return Reply::problem(404, &format!("{} declares no path {path}", api.name), &[]);
    };
    let ops = &api.ops[index];
    let Some(op) = ops.iter().find(|o| o.method == *method) else {
        let allow: Vec<&str> = ops.iter().map(|o| o.method.as_str()).collect();
        let mut reply = Reply::problem(
            405,
            &format!("{} takes {}", api.templates[index].text, allow.join(", ")),
            &[],
        );
        reply.headers.push(("allow".to_owned(), allow.join(", ")));
        return reply;
    };
    *operation = Some(&op.id);
    let bytes = match axum::body::to_bytes(body, app.body_limit).await {
        Ok(b) => b,
        Err(_) => {
            let detail = format!(
                "the request body is over the limit of {} bytes",
                app.body_limit
            );
            return rejection(api, Some(op), 413, headers, &detail, &[]);
        }
    };
    let pairs = query_pairs(query.unwrap_or(""));
    if !authorized(op, headers, &pairs, app.token.as_deref()) {
        return rejection(
            api,
            Some(op),
            401,
            headers,
            "the operation's credentials are missing or not accepted",
            &[],
        );
    }
    let media = match body_media(op, headers, &bytes) {
        Ok(m) => m,
        Err(got) => {
            let detail = format!("{} does not take a body of {got}", op.id);
            return rejection(api, Some(op), 415, headers, &detail, &[]);
        }
    };
    let wire = Wire {
        path: &params,
        query: &pairs,
        headers,
    };
    let content_type = headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    // No bytes and no `Content-Type` are no body, whatever type the operation takes.
    let empty_is_value =
        media.is_some() && !content_type.is_empty() && validate::empty_is_a_value(content_type);
    let parsed = match media {
        Some(m) if !bytes.is_empty() || empty_is_value => {
            read_body(api.doc, m, content_type, &bytes).await
        }
        _ => None,
    };
    let mut violations = validate::parameters(&api.requests, api.doc, op, &wire);
    violations.extend(validate::body(
        &api.requests,
        op,
        media,
        (&bytes, empty_is_value),
        parsed.as_ref(),
    ));
    if !violations.is_empty() {
        return rejection(
            api,
            Some(op),
            400,
            headers,
            "the request does not match the operation",
            &violations,
        );
    }
    let prefer = parse(headers);
    let source = source(api, &prefer);
    if let Some(code) = prefer.code {
        return match op.response(code) {
            Some(_) => declared(api, op, code, headers, source, None),
            None => Reply::problem(404, &format!("{} declares no response {code}", op.id), &[]),
        };
    }
    if let Some(store) = &app.store
        && matches!(source, Source::Static)
    {
        let parsed = parsed.and_then(Result::ok).unwrap_or(Value::Null);
        let request = crate::stateful::Request {
            op,
            role: &app.roles[index],
            path: rest.trim_end_matches('/'),
            params: &params,
            headers,
            body: &parsed,
        };
        if let Some(reply) = crate::stateful::answer(api, store, &request) {
            return reply;
        }
    }
    declared(api, op, success(op), headers, source, None)
}

fn source<'p>(api: &Api, prefer: &'p Prefer) -> Source<'p> {
    match (&prefer.example, prefer.dynamic) {
        (Some(name), _) => Source::Example(name),
        (None, Some(true)) => Source::Dynamic(api.fresh_seed()),
        _ => Source::Static,
    }
}

/// The declared media type of the request's body: `Ok(None)` when there is no body to
/// read (or the operation takes none), `Err(content type)` when it is not one the
/// operation takes. A body without a `Content-Type` is read as the operation's JSON type.
fn body_media<'o>(
    op: &'o Op,
    headers: &HeaderMap,
    bytes: &[u8],
) -> Result<Option<&'o Media>, String> {
    let Some(decl) = &op.body else {
        return Ok(None);
    };
    let sent = headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    let Some(sent) = sent else {
        return Ok(decl
            .media
            .iter()
            .find(|m| is_json(&m.mime))
            .or(decl.media.first()));
    };
    if bytes.is_empty() && decl.media.is_empty() {
        return Ok(None);
    }
    let takes = |m: &&Media| {
        let declared = m
            .mime
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        declared == sent
            || declared == "*/*"
            || declared
                .strip_suffix("/*")
                .is_some_and(|kind| sent.starts_with(&format!("{kind}/")))
    };
    match decl.media.iter().find(takes) {
        Some(m) => Ok(Some(m)),
        None if decl.media.is_empty() => Ok(None),
        None if bytes.is_empty() => Ok(None),
        None => Err(sent),
    }
}

fn to_response(reply: Reply, head: bool) -> Response {
    // What `Response::builder` makes of the same parts, without its per-step `Result`s:
    // a status `http` refuses gives an empty 200, a header it refuses is left out.
    let Ok(status) = StatusCode::from_u16(reply.status) else {
        return Response::new(Body::empty());
    };
    let body = if head {
        Body::empty()
    } else {
        Body::from(reply.body)
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if let Some(ct) = &reply.content_type
        && let Ok(v) = HeaderValue::from_str(ct)
    {
        headers.append(http::header::CONTENT_TYPE, v);
    }
    for (name, value) in &reply.headers {
        if let (Ok(n), Ok(v)) = (
            http::HeaderName::try_from(name.as_str()),
            HeaderValue::from_str(value),
        ) {
            headers.append(n, v);
        }
    }
    response
}
