//! Extension points on the wire: per-call headers (`Client::with_header`) and hooks
//! (`trading_api::Hook`) that change the request before it is sent and observe the
//! status, headers and latency of each answer, against an in-test axum server on
//! 127.0.0.1:0 that records the headers it gets.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use trading_api::{CallInfo, Client, Hook, Received, RetryPolicy};

/// The headers of every request the server got.
type Seen = Arc<Mutex<Vec<HeaderMap>>>;

/// Answers `503` (with `x-request-id: busy`) to the first request, then `200 []` with
/// `x-request-id: ok`, after 20 ms each.
async fn limits(State(seen): State<Seen>, headers: HeaderMap) -> Response {
    let first = {
        let mut seen = seen.lock().unwrap();
        seen.push(headers);
        seen.len() == 1
    };
    tokio::time::sleep(Duration::from_millis(20)).await;
    if first {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [("x-request-id", "busy")],
            "",
        )
            .into_response();
    }
    (
        [("x-request-id", "ok"), ("content-type", "application/json")],
        "[]",
    )
        .into_response()
}

async fn start() -> (Seen, String, tokio::task::JoinHandle<()>) {
    let seen = Seen::default();
    let app = axum::Router::new()
        .route("/v1/categoryPositionLimit/deps", get(limits))
        .with_state(Arc::clone(&seen));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (seen, base_url, task)
}

/// What the hook was told of one answer: attempt, status, `x-request-id`, latency.
type Told = (u32, Option<StatusCode>, Option<String>, Duration);

/// A hook that stamps each attempt with a header and records what it is told.
#[derive(Default)]
struct Stamp {
    before: Mutex<Vec<CallInfo>>,
    after: Mutex<Vec<Told>>,
}

impl Hook for Stamp {
    fn before_send(&self, call: &CallInfo, request: &mut reqwest::Request) {
        self.before.lock().unwrap().push(*call);
        let value = HeaderValue::from_str(&format!("attempt-{}", call.attempt)).unwrap();
        request.headers_mut().insert("x-attempt", value);
    }

    fn after_receive(&self, received: &Received<'_>) {
        let id = received
            .headers
            .and_then(|h| h.get("x-request-id"))
            .map(|v| v.to_str().unwrap().to_owned());
        self.after.lock().unwrap().push((
            received.call.attempt,
            received.status,
            id,
            received.latency,
        ));
    }
}

#[tokio::test]
async fn hooks_change_each_attempt_and_see_status_headers_and_latency() {
    let (seen, base_url, server) = start().await;
    let stamp = Arc::new(Stamp::default());
    let client = Client::builder(base_url)
        .retry_policy(RetryPolicy::default().initial_backoff(Duration::from_millis(1)))
        .hook(stamp.clone())
        .build()
        .unwrap();
    client.list_category_position_limits(1).await.unwrap();

    let sent: Vec<_> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|h| h["x-attempt"].to_str().unwrap().to_owned())
        .collect();
    assert_eq!(sent, ["attempt-1", "attempt-2"], "the 503 was retried");
    let before = stamp.before.lock().unwrap();
    assert_eq!(before[0].operation, "list_category_position_limits");
    assert_eq!(before[0].method, "GET");
    assert_eq!(before[0].path, "/categoryPositionLimit/deps");
    let after = stamp.after.lock().unwrap();
    let seen_by_hook: Vec<_> = after
        .iter()
        .map(|(attempt, status, id, _)| (*attempt, *status, id.as_deref()))
        .collect();
    assert_eq!(
        seen_by_hook,
        [
            (1, Some(StatusCode::SERVICE_UNAVAILABLE), Some("busy")),
            (2, Some(StatusCode::OK), Some("ok")),
        ]
    );
    assert!(
        after
            .iter()
            .all(|(.., latency)| *latency >= Duration::from_millis(20)),
        "{after:?}"
    );
    server.abort();
}

#[tokio::test]
async fn a_failed_attempt_reaches_the_hook_without_an_answer() {
    // A port nothing listens on: bound, then closed.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    let stamp = Arc::new(Stamp::default());
    let mut client = Client::new(base_url).unwrap();
    client.add_hook(stamp.clone());
    let error = client.list_category_position_limits(1).await.unwrap_err();
    assert!(
        matches!(error, trading_api::Error::Transport(_)),
        "{error:?}"
    );
    let after = stamp.after.lock().unwrap();
    assert_eq!(after.len(), 1);
    assert_eq!(
        (after[0].0, after[0].1, after[0].2.as_deref()),
        (1, None, None)
    );
}

#[tokio::test]
async fn a_per_call_header_goes_on_that_call_only() {
    let (seen, base_url, server) = start().await;
    let client = Client::builder(base_url)
        .retry_policy(RetryPolicy::default().initial_backoff(Duration::from_millis(1)))
        .build()
        .unwrap();
    client.set_bearer_token("secret-token").unwrap();
    let key = HeaderName::from_static("idempotency-key");
    let keyed = client.with_header(key.clone(), HeaderValue::from_static("k-42"));
    keyed.list_category_position_limits(1).await.unwrap();
    client.list_category_position_limits(1).await.unwrap();

    let seen = seen.lock().unwrap();
    let keys: Vec<Option<&str>> = seen
        .iter()
        .map(|h| h.get(&key).map(|v| v.to_str().unwrap()))
        .collect();
    // The keyed call's retry carries the key too; the plain client's call does not.
    assert_eq!(keys, [Some("k-42"), Some("k-42"), None]);
    // The clone shares the credentials.
    assert!(
        seen.iter()
            .all(|h| h["authorization"] == "Bearer secret-token")
    );
    // Debug names the extra header, never its value (nor the token).
    let shown = format!("{keyed:?}");
    assert!(shown.contains("idempotency-key"), "{shown}");
    assert!(
        !shown.contains("k-42") && !shown.contains("secret-token"),
        "{shown}"
    );
    server.abort();
}
