//! The seeded bugs that break the wire rather than the behaviour: a request the spec
//! refuses taken anyway, an answer the spec does not allow sent anyway. The generated
//! router lets neither through (it judges every request, and an answer is one of its
//! typed responses), so these faults sit around it, as a layer that is only there when
//! one of them is switched on.

use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::fault::Fault;
use crate::request::Query;
use crate::state::AppState;

const DEPS: &str = "/v1/categoryPositionLimit/deps";
const ITEM: &str = "/v1/categoryPositionLimit/item";
const CONTACT: &str = "/v1/contactInfo/updatecontactinfoname";

/// The faults this layer plays.
const FAULTS: &[Fault] = &[
    Fault::MissingParamAccepted,
    Fault::UnreadableIdAccepted,
    Fault::NumbersCoercedToText,
    Fault::EnumMisspelled,
    Fault::RequiredFieldDropped,
    Fault::DeepEnumMisspelled,
    Fault::DeepRequiredFieldDropped,
    Fault::WrongContentType,
];

/// Whether the layer is needed at all: the clean server runs without it.
pub(crate) fn any(state: &AppState) -> bool {
    FAULTS.iter().any(|f| state.has(*f))
}

/// Middleware: the request side, then the answer side, of the switched-on faults.
pub(crate) async fn play(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_owned();
    if path == DEPS
        && request.method() == Method::GET
        && let Some(answer) = loose_deps(&state, &request)
    {
        return answer;
    }
    let request = if path == CONTACT && state.has(Fault::NumbersCoercedToText) {
        numbers_as_text(request).await
    } else {
        request
    };
    let response = next.run(request).await;
    if (path != DEPS && path != ITEM) || !response.status().is_success() {
        return response;
    }
    let mut response = if rewrites_limits(&state) {
        rewrite_limits(&state, response).await
    } else {
        response
    };
    if path == DEPS && state.has(Fault::WrongContentType) {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    response
}

/// `deps` answering `[]` to an authenticated request whose `masterid` is missing or
/// unreadable, as a lax server does.
fn loose_deps(state: &AppState, request: &Request) -> Option<Response> {
    let query = Query::parse(request.uri().query());
    let values = query.all("masterid");
    let loose = match values.as_slice() {
        [] => state.has(Fault::MissingParamAccepted),
        [one] => state.has(Fault::UnreadableIdAccepted) && one.parse::<i64>().is_err(),
        _ => false,
    };
    (loose && state.authenticate(request.headers()).is_ok())
        .then(|| Json(Vec::<Value>::new()).into_response())
}

/// The contact update's body with each top-level number replaced by its text, as a
/// lenient server reads it (a body that is not a JSON object passes as it came).
async fn numbers_as_text(request: Request) -> Request {
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, crate::request::max_body()).await else {
        return Request::from_parts(parts, Body::empty());
    };
    let rewritten = match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(mut map)) => {
            for v in map.values_mut() {
                if let Value::Number(n) = v {
                    *v = Value::String(n.to_string());
                }
            }
            serde_json::to_vec(&map).ok()
        }
        _ => None,
    };
    let mut parts = parts;
    parts.headers.remove(header::CONTENT_LENGTH);
    Request::from_parts(
        parts,
        Body::from(rewritten.unwrap_or_else(|| bytes.to_vec())),
    )
}

/// Whether a fault rewrites limits on the wire.
fn rewrites_limits(state: &AppState) -> bool {
    state.has(Fault::EnumMisspelled)
        || state.has(Fault::RequiredFieldDropped)
        || state.has(Fault::DeepEnumMisspelled)
        || state.has(Fault::DeepRequiredFieldDropped)
}

/// A `deps` or `item` answer with every position limit in it spoilt as the faults say.
async fn rewrite_limits(state: &AppState, response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    match &mut value {
        Value::Array(items) => items.iter_mut().for_each(|l| spoil(state, l)),
        limit => spoil(state, limit),
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(value.to_string()))
}

/// Whether the limit with `id` is the record `from_end` places before the end of the
/// data set: the deep records the `deep-…` faults spoil, far from the first one
/// discovery reads.
fn is_deep(state: &AppState, id: Option<i64>, from_end: usize) -> bool {
    let limits = &state.data.position_limits;
    limits
        .len()
        .checked_sub(from_end + 1)
        .and_then(|i| limits.get(i))
        .is_some_and(|deep| deep.id == id)
}

/// A limit as sent on the wire, with the enum and required-field faults applied.
fn spoil(state: &AppState, limit: &mut Value) {
    let Value::Object(map) = limit else { return };
    let id = map.get("id").and_then(Value::as_i64);
    let misspelled = state.has(Fault::EnumMisspelled)
        || (state.has(Fault::DeepEnumMisspelled) && is_deep(state, id, 0));
    if misspelled && let Some(Value::String(s)) = map.get_mut("totalBy") {
        *s = s.to_lowercase();
    }
    if state.has(Fault::RequiredFieldDropped)
        || (state.has(Fault::DeepRequiredFieldDropped) && is_deep(state, id, 1))
    {
        map.remove("active");
    }
}
