//! The penalty switch ([`Penalties`]): the server answers as the platform does when it
//! limits a client, so that clients' retry logic meets the real shapes.
//!
//! Every `every`-th request of each `/v1` path (the first included, counted per path) is
//! turned away before its handler runs: an operation with an `x-penalty` in the spec gets
//! that answer (`200`, a fresh ticket, the wait, the captcha flag, field names from the
//! spec), every other one `429 Too Many Requests` with `Retry-After`. A re-send carrying
//! an unused ticket in the spec's `resend` field is served (and the ticket spent), as the
//! platform does. Deterministic, so the tour and tests know which request is refused.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::state::lock;

/// How the server limits clients when the switch is on (`Config::penalties`,
/// `--penalty-every`).
#[derive(Clone, Debug, PartialEq)]
pub struct Penalties {
    /// Turn away every `every`-th request of each path, the first included (1: all but
    /// ticketed re-sends).
    pub every: u32,
    /// The wait asked for: the penalty's wait field in seconds, and `Retry-After` in
    /// whole seconds (rounded down, so a wait under a second is `Retry-After: 0`).
    pub wait: Duration,
    /// Whether penalty answers ask for a captcha (a person must log in): clients must
    /// not retry those.
    pub captcha: bool,
}

impl Default for Penalties {
    /// Every third request, a one-second wait, no captcha.
    fn default() -> Self {
        Penalties {
            every: 3,
            wait: Duration::from_secs(1),
            captcha: false,
        }
    }
}

struct Switch {
    config: Penalties,
    /// Requests seen per path (ticketed re-sends not counted).
    counts: Mutex<HashMap<String, u64>>,
    /// Tickets handed out and not yet used.
    tickets: Mutex<HashSet<String>>,
}

/// The router with the switch in front of it (unchanged when `penalties` is `None`).
pub(crate) fn layer(app: Router, penalties: Option<&Penalties>) -> Router {
    match penalties {
        Some(config) if config.every > 0 => {
            let switch = Arc::new(Switch {
                config: config.clone(),
                counts: Mutex::default(),
                tickets: Mutex::default(),
            });
            app.layer(middleware::from_fn_with_state(switch, screen))
        }
        _ => app,
    }
}

async fn screen(State(switch): State<Arc<Switch>>, request: Request, next: Next) -> Response {
    let Some(path) = request.uri().path().strip_prefix("/v1").map(str::to_owned) else {
        return next.run(request).await;
    };
    let contract = crate::contract::contract();
    let shape = contract
        .penalties
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, shape)| shape);
    let request = match shape {
        Some(shape) => {
            // The body is read here to find a ticket, then handed on unchanged.
            let (parts, body) = request.into_parts();
            let Ok(bytes) = axum::body::to_bytes(body, contract.max_body).await else {
                return ApiError::PayloadTooLarge.into_response();
            };
            if let Some(ticket) = ticket_in(&bytes, &shape.resend)
                && lock(&switch.tickets).remove(&ticket)
            {
                return next
                    .run(Request::from_parts(parts, Body::from(bytes)))
                    .await;
            }
            Request::from_parts(parts, Body::from(bytes))
        }
        None => request,
    };
    let seen = {
        let mut counts = lock(&switch.counts);
        let n = counts.entry(path).or_insert(0);
        *n += 1;
        *n - 1
    };
    if seen % u64::from(switch.config.every) != 0 {
        return next.run(request).await;
    }
    let wait = switch.config.wait;
    match shape {
        Some(shape) => {
            let ticket = crate::secret::random_token();
            lock(&switch.tickets).insert(ticket.clone());
            let mut body = serde_json::Map::new();
            body.insert(shape.ticket.clone(), ticket.into());
            body.insert(shape.wait.clone(), wait.as_secs_f64().into());
            if let Some(captcha) = &shape.captcha {
                body.insert(captcha.clone(), switch.config.captcha.into());
            }
            tracing::info!(wait_s = wait.as_secs_f64(), "penalty answered");
            axum::Json(serde_json::Value::Object(body)).into_response()
        }
        None => {
            tracing::info!(wait_s = wait.as_secs(), "429 answered");
            let mut response = (
                StatusCode::TOO_MANY_REQUESTS,
                axum::Json(serde_json::json!({"errorText": "Too many requests; retry later"})),
            )
                .into_response();
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(wait.as_secs()));
            response
        }
    }
}

/// The ticket a re-send carries in `field`: a JSON object's string field or a form pair.
fn ticket_in(body: &[u8], field: &str) -> Option<String> {
    if let Ok(serde_json::Value::Object(fields)) = serde_json::from_slice(body) {
        return fields.get(field)?.as_str().map(str::to_owned);
    }
    form_urlencoded::parse(body)
        .find(|(k, _)| k == field)
        .map(|(_, v)| v.into_owned())
}
