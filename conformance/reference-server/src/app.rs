//! The router and the layers around it: request logging, the answers to unknown paths and
//! undeclared methods (status and `Allow` from the spec) with an `errorText` body, and the
//! panic guard.

use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tower_http::catch_panic::CatchPanicLayer;

use crate::error::ApiError;
use crate::handlers::{contact, lookups, oauth};
use crate::state::AppState;
use crate::unread_body;

/// Builds the application.
pub(crate) fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/v1/auth/oauthtoken", post(oauth::exchange_token))
        .route(
            "/v1/contactInfo/updatecontactinfoname",
            post(contact::update_contact_info_name),
        )
        .route("/v1/categoryPositionLimit/deps", get(lookups::deps))
        .route("/v1/categoryPositionLimit/item", get(lookups::item))
        .route(
            "/v1/marketDataSubscriptionExchangeScope/finds",
            get(lookups::finds),
        )
        .route("/v1/riskCategory/suggest", get(lookups::suggest))
        .route("/oauth/authorize", get(oauth::authorize))
        .fallback(not_found)
        .with_state(state)
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

/// One line per request: method, path (never the query, which may carry a code or a
/// state), status and latency; headers and bodies, where tokens live, are not logged.
/// Also turns axum's own 405 (known path, unrouted method; `Allow` is set by the router)
/// into the spec's `x-undeclared-method` answer, with the `errorText` body every other
/// error has.
async fn log_and_complete(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let mut response = next.run(request).await;
    if response.status() == StatusCode::METHOD_NOT_ALLOWED {
        response = with_error_body(response, &method);
    }
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
