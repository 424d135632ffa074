//! Bearer tokens on the wire: credentials shared by every clone of a client, token
//! sources, and the refreshing source the spec's `x-token-refresh` declares, against an
//! in-test axum server on 127.0.0.1:0 that counts refreshes and records the tokens sent.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use trading_api::{Client, Error, RefreshingToken, TokenSource};

/// The refresh token the tests start from.
const FIRST_REFRESH: &str = "refresh-secret-0";

/// What the server shares with the test.
#[derive(Default)]
struct Seen {
    /// Refresh requests answered so far.
    refreshes: AtomicUsize,
    /// The bodies of the refresh requests.
    grants: Mutex<Vec<Value>>,
    /// The `Authorization` header of each secured request (`<none>` when absent).
    authorizations: Mutex<Vec<String>>,
    /// `expires_in` of the next token answers.
    expires_in: AtomicUsize,
    /// When set, the token operation answers `400 invalid_grant`.
    refuse: std::sync::atomic::AtomicBool,
    /// `Authorization` values the secured operation answers `401` to.
    refused: Mutex<Vec<String>>,
    /// How many token requests are answered `429` (with `Retry-After: 0`) before one is
    /// served.
    throttle: AtomicUsize,
}

/// The token operation: answers the refresh grant with `access-N` / `refresh-secret-N`
/// after a short pause, so that concurrent callers overlap with a refresh in flight.
async fn token(State(seen): State<Arc<Seen>>, Json(grant): Json<Value>) -> Response {
    seen.grants.lock().unwrap().push(grant);
    if seen
        .throttle
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
    {
        return (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "0")]).into_response();
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    if seen.refuse.load(Ordering::SeqCst) {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_grant", "error_description": "refresh token expired"})),
        )
            .into_response();
    }
    let n = seen.refreshes.fetch_add(1, Ordering::SeqCst) + 1;
    Json(json!({
        "access_token": format!("access-{n}"),
        "refresh_token": format!("refresh-secret-{n}"),
        "token_type": "Bearer",
        "expires_in": seen.expires_in.load(Ordering::SeqCst),
        "error": "",
        "error_description": "",
    }))
    .into_response()
}

/// A secured operation: records the `Authorization` it got, and refuses (`401`) the ones
/// listed in `refused`.
async fn limits(State(seen): State<Arc<Seen>>, headers: HeaderMap) -> Response {
    let authorization = headers
        .get("authorization")
        .map_or("<none>".to_owned(), |v| v.to_str().unwrap().to_owned());
    seen.authorizations
        .lock()
        .unwrap()
        .push(authorization.clone());
    if seen.refused.lock().unwrap().contains(&authorization) {
        return (
            StatusCode::UNAUTHORIZED,
            [("www-authenticate", r#"Bearer error="invalid_token""#)],
            "",
        )
            .into_response();
    }
    Json(json!([])).into_response()
}

/// A refreshing source holding `access-0` (no lifetime: kept until refused).
fn starting_with_access_0(client: &Client) -> Arc<RefreshingToken> {
    Arc::new(RefreshingToken::new(client, FIRST_REFRESH).with_access_token("access-0", None))
}

/// Makes the secured operation refuse `Bearer <token>`.
fn refuse(seen: &Seen, token: &str) {
    seen.refused.lock().unwrap().push(format!("Bearer {token}"));
}

/// A server on 127.0.0.1:0 issuing tokens valid for `expires_in` seconds, and a client
/// pointed at it.
async fn start(expires_in: usize) -> (Arc<Seen>, Client, tokio::task::JoinHandle<()>) {
    let seen = Arc::new(Seen::default());
    seen.expires_in.store(expires_in, Ordering::SeqCst);
    let app = axum::Router::new()
        .route("/v1/auth/oauthtoken", post(token))
        .route("/v1/categoryPositionLimit/deps", get(limits))
        .with_state(Arc::clone(&seen));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (seen, Client::new(base_url).unwrap(), task)
}

fn refreshing(client: &Client) -> Arc<RefreshingToken> {
    Arc::new(
        RefreshingToken::new(client, FIRST_REFRESH)
            .with_field("client_id", "demo-client")
            .with_field("client_secret", "demo-secret"),
    )
}

fn authorizations(seen: &Seen) -> Vec<String> {
    seen.authorizations.lock().unwrap().clone()
}

#[tokio::test]
async fn fifty_concurrent_calls_share_one_refresh() {
    let (seen, client, server) = start(3600).await;
    client.set_token_source(refreshing(&client));
    let calls: Vec<_> = (0..50)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { client.list_category_position_limits(1).await })
        })
        .collect();
    for call in calls {
        call.await.unwrap().unwrap();
    }
    assert_eq!(
        seen.refreshes.load(Ordering::SeqCst),
        1,
        "one refresh for 50 tasks"
    );
    let sent = authorizations(&seen);
    assert_eq!(sent.len(), 50);
    assert!(sent.iter().all(|a| a == "Bearer access-1"), "{sent:?}");
    // The refresh carried the spec's grant, the refresh token and the caller's fields.
    assert_eq!(
        seen.grants.lock().unwrap().as_slice(),
        [json!({
            "grant_type": "refresh_token",
            "refresh_token": FIRST_REFRESH,
            "client_id": "demo-client",
            "client_secret": "demo-secret",
        })]
    );
    server.abort();
}

#[tokio::test]
async fn a_token_is_renewed_before_its_lifetime_runs_out_with_the_rotated_refresh_token() {
    // A 2 s lifetime is shorter than twice the default margin: renewed half-way, 1 s
    // after the refresh started (the margin leaves slow machines room before that).
    let (seen, client, server) = start(2).await;
    client.set_token_source(refreshing(&client));
    client.list_category_position_limits(1).await.unwrap();
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(seen.refreshes.load(Ordering::SeqCst), 1, "still fresh");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(seen.refreshes.load(Ordering::SeqCst), 2, "renewed half-way");
    assert_eq!(
        authorizations(&seen),
        ["Bearer access-1", "Bearer access-1", "Bearer access-2"]
    );
    let grants = seen.grants.lock().unwrap();
    assert_eq!(
        grants[1]["refresh_token"], "refresh-secret-1",
        "the rotated one"
    );
    drop(grants);
    server.abort();
}

#[tokio::test]
async fn a_token_given_up_front_is_used_until_refused() {
    let (seen, client, server) = start(3600).await;
    let source =
        Arc::new(RefreshingToken::new(&client, FIRST_REFRESH).with_access_token("access-0", None));
    client.set_token_source(source.clone());
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(seen.refreshes.load(Ordering::SeqCst), 0);
    // A stale refusal (a token already replaced) does not refresh again.
    source.invalidate("access-older").await;
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(seen.refreshes.load(Ordering::SeqCst), 0);
    source.invalidate("access-0").await;
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(seen.refreshes.load(Ordering::SeqCst), 1);
    assert_eq!(
        authorizations(&seen),
        ["Bearer access-0", "Bearer access-0", "Bearer access-1"]
    );
    server.abort();
}

#[tokio::test]
async fn clones_share_credentials_and_refreshed_tokens() {
    let (seen, client, server) = start(3600).await;
    // Cloned before anything is set: still the same credentials.
    let clone = client.clone();
    client.set_bearer_token("fixed-token").unwrap();
    clone.list_category_position_limits(1).await.unwrap();
    assert!(clone.has_bearer_token());

    let source = refreshing(&client);
    clone.set_token_source(source.clone());
    client.list_category_position_limits(1).await.unwrap();
    // A refresh forced through the source is what every clone sends next.
    assert_eq!(source.refresh().await.unwrap(), "access-2");
    clone.list_category_position_limits(1).await.unwrap();
    client.list_category_position_limits(1).await.unwrap();

    // A fixed token set through one clone replaces the source for all.
    clone.set_bearer_token("fixed-again").unwrap();
    client.list_category_position_limits(1).await.unwrap();
    client.clear_bearer_token();
    assert!(!clone.has_bearer_token());
    clone.list_category_position_limits(1).await.unwrap();
    assert_eq!(
        authorizations(&seen),
        [
            "Bearer fixed-token",
            "Bearer access-1",
            "Bearer access-2",
            "Bearer access-2",
            "Bearer fixed-again",
            "<none>",
        ]
    );
    assert_eq!(seen.refreshes.load(Ordering::SeqCst), 2);
    server.abort();
}

#[tokio::test]
async fn a_failed_refresh_is_a_token_error_and_nothing_is_sent() {
    let (seen, client, server) = start(3600).await;
    seen.refuse.store(true, Ordering::SeqCst);
    client.set_token_source(refreshing(&client));
    let error = client.list_category_position_limits(1).await.unwrap_err();
    assert!(matches!(error, Error::Token(_)), "{error:?}");
    assert!(
        authorizations(&seen).is_empty(),
        "nothing sent without a token"
    );
    // The cause stays reachable for error chains.
    let cause = std::error::Error::source(&error).unwrap();
    assert!(std::error::Error::source(cause).is_some());
    for shown in [format!("{error}"), format!("{error:?}")] {
        assert!(!shown.contains(FIRST_REFRESH), "{shown}");
        assert!(!shown.contains("demo-secret"), "{shown}");
    }
    server.abort();
}

#[tokio::test]
async fn tokens_never_appear_in_debug() {
    let (_seen, client, server) = start(3600).await;
    let source = refreshing(&client);
    client.set_token_source(source.clone());
    client.list_category_position_limits(1).await.unwrap();
    let clone = client.clone();
    let shown = [
        format!("{source:?}"),
        format!("{client:?}"),
        format!("{clone:?}"),
        format!("{source:#?}"),
    ];
    for shown in &shown {
        for secret in [FIRST_REFRESH, "refresh-secret-1", "access-1", "demo-secret"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
    }
    assert!(shown[0].contains("RefreshingToken"), "{}", shown[0]);
    client.set_bearer_token("fixed-secret").unwrap();
    assert!(!format!("{clone:?}").contains("fixed-secret"));
    server.abort();
}

#[tokio::test]
async fn a_refused_token_is_refreshed_once_and_the_call_sent_again() {
    let (seen, client, server) = start(3600).await;
    refuse(&seen, "access-0");
    client.set_token_source(starting_with_access_0(&client));
    let answer = client.list_category_position_limits(1).await.unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(seen.refreshes.load(Ordering::SeqCst), 1);
    assert_eq!(
        authorizations(&seen),
        ["Bearer access-0", "Bearer access-1"]
    );
    // The new token is kept: the next call sends it at once.
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(seen.refreshes.load(Ordering::SeqCst), 1);
    server.abort();
}

#[tokio::test]
async fn fifty_tasks_refused_together_share_one_refresh() {
    let (seen, client, server) = start(3600).await;
    refuse(&seen, "access-0");
    client.set_token_source(starting_with_access_0(&client));
    // Every task sends the old token before any refusal comes back.
    let start = Arc::new(tokio::sync::Barrier::new(50));
    let calls: Vec<_> = (0..50)
        .map(|_| {
            let client = client.clone();
            let start = Arc::clone(&start);
            tokio::spawn(async move {
                start.wait().await;
                client.list_category_position_limits(1).await
            })
        })
        .collect();
    for call in calls {
        assert_eq!(call.await.unwrap().unwrap().status(), StatusCode::OK);
    }
    assert_eq!(
        seen.refreshes.load(Ordering::SeqCst),
        1,
        "one refresh for 50 refused tasks"
    );
    let sent = authorizations(&seen);
    let old = sent.iter().filter(|a| *a == "Bearer access-0").count();
    let new = sent.iter().filter(|a| *a == "Bearer access-1").count();
    assert_eq!(
        new, 50,
        "each task re-sent once with the new token: {sent:?}"
    );
    assert_eq!(old + new, sent.len(), "{sent:?}");
    server.abort();
}

#[tokio::test]
async fn a_second_refusal_is_returned_with_its_status_and_headers() {
    let (seen, client, server) = start(3600).await;
    refuse(&seen, "access-0");
    refuse(&seen, "access-1");
    client.set_token_source(starting_with_access_0(&client));
    let error = client.list_category_position_limits(1).await.unwrap_err();
    assert_eq!(error.status(), Some(StatusCode::UNAUTHORIZED), "{error:?}");
    assert_eq!(
        error.headers().unwrap()["www-authenticate"],
        r#"Bearer error="invalid_token""#
    );
    assert_eq!(
        seen.refreshes.load(Ordering::SeqCst),
        1,
        "refreshed once only"
    );
    assert_eq!(
        authorizations(&seen),
        ["Bearer access-0", "Bearer access-1"]
    );
    for shown in [format!("{error}"), format!("{error:?}")] {
        assert!(!shown.contains("access-"), "{shown}");
    }
    server.abort();
}

#[tokio::test]
async fn a_refused_static_token_is_returned_without_sending_again() {
    let (seen, client, server) = start(3600).await;
    refuse(&seen, "fixed-token");
    client.set_bearer_token("fixed-token").unwrap();
    let error = client.list_category_position_limits(1).await.unwrap_err();
    assert_eq!(error.status(), Some(StatusCode::UNAUTHORIZED));
    assert_eq!(authorizations(&seen), ["Bearer fixed-token"]);
    assert_eq!(seen.refreshes.load(Ordering::SeqCst), 0);
    server.abort();
}

/// Counts what a hook sees: `(operation, status)` per answer.
#[derive(Default)]
struct Recorder {
    answers: Mutex<Vec<(&'static str, Option<u16>)>>,
}

impl trading_api::Hook for Recorder {
    fn after_receive(&self, received: &trading_api::Received<'_>) {
        self.answers
            .lock()
            .unwrap()
            .push((received.call.operation, received.status.map(|s| s.as_u16())));
    }
}

#[tokio::test]
async fn the_refreshing_source_sends_with_the_callers_hooks_and_retry_policy() {
    let (seen, client, server) = start(3600).await;
    // The first refresh is answered 429: the caller's retry policy sends it again.
    seen.throttle.store(1, Ordering::SeqCst);
    let recorder = Arc::new(Recorder::default());
    let base_url = client.base_url().to_owned();
    let client = Client::builder(base_url)
        .retry_policy(trading_api::RetryPolicy::default().initial_backoff(Duration::from_millis(1)))
        .hook(recorder.clone())
        .build()
        .unwrap();
    client.set_token_source(refreshing(&client));
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(seen.grants.lock().unwrap().len(), 2, "the 429 was retried");
    assert_eq!(seen.refreshes.load(Ordering::SeqCst), 1);
    assert_eq!(
        recorder.answers.lock().unwrap().as_slice(),
        [
            ("exchange_token", Some(429)),
            ("exchange_token", Some(200)),
            ("list_category_position_limits", Some(200)),
        ]
    );
    server.abort();
}
