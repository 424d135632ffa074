//! Errors: [`ServerError`] for start-up (bad data or state file, port in use), and
//! [`ApiError`], the one type every handler returns on failure, which turns into the
//! status and `errorText` body DECISIONS names for it.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use trading_api::models::ErrorResponse;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The data file does not parse or breaks a rule; `origin` names the file and the
    /// message carries serde_yaml's line and column.
    #[error("data file {origin}: {message}")]
    Data {
        /// The file (or "embedded ...").
        origin: String,
        /// What is wrong, and where.
        message: String,
    },
    /// The state file cannot be read, parsed or written.
    #[error("state file {path}: {message}")]
    State {
        /// The state file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The listening socket cannot be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// The OS error.
        source: std::io::Error,
    },
}

/// A request the server refuses, with the status DECISIONS names.
#[derive(Debug)]
pub enum ApiError {
    /// 400: malformed request (decision 2).
    BadRequest(String),
    /// 401: missing, malformed, unknown or expired token (decision 1b).
    Unauthorized,
    /// A path the spec does not declare: the spec's `x-unknown-path` status.
    UnknownPath(String),
    /// 413: body over the spec's `x-max-body`.
    PayloadTooLarge,
    /// 408: the body did not arrive within the server's read timeout.
    RequestTimeout(std::time::Duration),
    /// 500: only ever produced by a seeded fault or the panic guard.
    Internal(String),
}

impl ApiError {
    fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized => {
                StatusCode::from_u16(crate::contract::contract().unauthorized_status)
                    .unwrap_or(StatusCode::UNAUTHORIZED)
            }
            ApiError::UnknownPath(_) => {
                StatusCode::from_u16(crate::contract::contract().unknown_path_status)
                    .unwrap_or(StatusCode::NOT_FOUND)
            }
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::RequestTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn text(&self) -> String {
        match self {
            ApiError::Unauthorized => crate::contract::contract().unauthorized_text.clone(),
            ApiError::PayloadTooLarge => {
                format!(
                    "request body is larger than {} bytes",
                    crate::contract::contract().max_body
                )
            }
            ApiError::RequestTimeout(limit) => format!(
                "the request body did not arrive within {:.1} s",
                limit.as_secs_f64()
            ),
            ApiError::BadRequest(t) | ApiError::UnknownPath(t) | ApiError::Internal(t) => t.clone(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let unauthorized = matches!(self, ApiError::Unauthorized);
        let body = ErrorResponse {
            error_text: self.text(),
        };
        let mut response = (status, Json(body)).into_response();
        if unauthorized {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}
