//! The application: the generated router serving the spec's operations through
//! [`Reference`], and the layers around it: request logging, bodies read in time, the
//! house's `errorText` shape for every refusal (unknown paths and undeclared methods with
//! the spec's status and `Allow`), the seeded wire faults when switched on, and the
//! panic guard.

use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tower_http::catch_panic::CatchPanicLayer;

use crate::api::Reference;
use crate::error::ApiError;
use crate::handlers::oauth;
use crate::state::AppState;
use crate::{unread_body, wire_faults};

/// The server's path prefix (the spec's `servers` URL ends in it).
const BASE: &str = "/v1";

/// Builds the application: the generated router of the spec's operations under
/// [`BASE`], the authorization step beside it, and the layers that give every answer
/// the house's shape.
pub(crate) fn router(state: Arc<AppState>) -> Router {
    let api =
        trading_api::server::router_with(Reference(Arc::clone(&state)), crate::request::max_body())
            .fallback(not_found);
    let mut app = Router::new()
        .nest(BASE, api)
        .route(
            "/oauth/authorize",
            get(oauth::authorize).with_state(Arc::clone(&state)),
        )
        .fallback(not_found);
    if wire_faults::any(&state) {
        app = app.layer(middleware::from_fn_with_state(
            Arc::clone(&state),
            wire_faults::play,
        ));
    }
    app.layer(middleware::from_fn(house_shape))
        .layer(middleware::from_fn_with_state(state, read_in_time))
        .layer(middleware::from_fn(unread_body::close_when_unread))
        .layer(middleware::from_fn(log_and_complete))
        .layer(CatchPanicLayer::custom(panic_response))
}

async fn not_found(request: Request) -> Response {
    ApiError::UnknownPath(format!(
        "no operation at {}",
        crate::request::excerpt(request.uri().path())
    ))
    .into_response()
}

/// Reads a request's body to its end before anything else sees it: at most the spec's
/// `x-max-body` (413 beyond), within the read timeout (408 beyond: a client that stalls
/// mid-body must not hold a connection forever).
async fn read_in_time(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    use axum::body::HttpBody;
    if request.body().is_end_stream() {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    match crate::request::read_body(&parts.headers, body, state.read_timeout).await {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Err(e) => e.into_response(),
    }
}

/// The house's answers: a problem the generated router (or an implementation method)
/// answers in RFC 9457's shape is written as the spec's `ErrorResponse` (`errorText`),
/// a `401` carries `WWW-Authenticate`, a method the path does not take answers the
/// spec's `x-undeclared-method`, and token answers are never cached.
async fn house_shape(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let token_path = request.uri().path() == "/v1/auth/oauthtoken";
    let response = next.run(request).await;
    let problem = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/problem+json"));
    let mut response = if response.status() == StatusCode::METHOD_NOT_ALLOWED && problem {
        with_error_body(response, &method)
    } else if problem {
        as_error_response(response).await
    } else {
        response
    };
    if response.status() == StatusCode::UNAUTHORIZED {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    if token_path {
        response = oauth::no_store(response);
    }
    response
}

/// A problem-details answer with its `detail` as the `errorText`, status kept.
async fn as_error_response(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let detail = axum::body::to_bytes(body, 1 << 20)
        .await
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v.get("detail")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| "the request cannot be answered".to_owned());
    let body = trading_api::models::ErrorResponse { error_text: detail };
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    let text = serde_json::to_string(&body).unwrap_or_default();
    Response::from_parts(parts, Body::from(text))
}

/// One line per request: method, path (never the query, which may carry a code or a
/// state), status and latency; headers and bodies, where tokens live, are not logged.
async fn log_and_complete(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    tracing::info!(
        %method,
        path = %path,
        status = response.status().as_u16(),
        latency_us = started.elapsed().as_micros() as u64,
        "request"
    );
    response
}

fn with_error_body(response: Response, method: &Method) -> Response {
    let contract = crate::contract::contract();
    let (mut parts, _) = response.into_parts();
    parts.status = StatusCode::from_u16(contract.undeclared_method_status).unwrap_or(parts.status);
    if !contract.undeclared_method_allow {
        parts.headers.remove(header::ALLOW);
    }
    let see = if contract.undeclared_method_allow {
        "; see the Allow header"
    } else {
        ""
    };
    let body = serde_json::json!({
        "errorText": format!("method {method} is not allowed on this path{see}")
    });
    parts.headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body.to_string()))
}

/// The last line of defence: a panic must not take the connection down silently. No
/// handler is written to panic; answering 500 here is a bug report, and the tests
/// assert no request ever gets one.
fn panic_response(_payload: Box<dyn Any + Send + 'static>) -> Response {
    tracing::error!("a handler panicked");
    ApiError::Internal("internal error".into()).into_response()
}
