//! The penalty switch against the generated client: a penalty is waited out and re-sent
//! with its ticket, a `429` is retried after `Retry-After`, a captcha is `LoginRequired`
//! and never retried, and without a retry policy each is an error that says what to do.

mod common;

use std::time::{Duration, Instant};

use common::{names, start_with};
use reference_server::{Config, Penalties};
use trading_api::models::OAuthToken;
use trading_api::{Error, RetryPolicy};

fn penalized(captcha: bool) -> Config {
    Config {
        penalties: Some(Penalties {
            every: 2,
            wait: Duration::from_millis(50),
            captcha,
        }),
        ..Config::default()
    }
}

fn policy() -> RetryPolicy {
    RetryPolicy::default()
        .max_attempts(3)
        .budget(Duration::from_secs(5))
}

/// A refresh request the server refuses with `invalid_grant` once it gets past the
/// switch: enough to tell a served request from a turned-away one.
fn refresh(server: &reference_server::RunningServer) -> OAuthToken {
    let demo = server.demo_client();
    OAuthToken::refresh_token("unknown", demo.client_id, demo.client_secret)
}

#[tokio::test]
async fn a_penalty_is_an_error_with_its_wait_and_then_resent_with_its_ticket() {
    let (server, mut client) = start_with(penalized(false)).await;
    let err = client.exchange_token(&refresh(&server)).await.unwrap_err();
    match &err {
        Error::Penalty {
            wait,
            ticket,
            resend,
            ..
        } => {
            assert_eq!(*wait, Duration::from_millis(50));
            assert!(!ticket.is_empty());
            assert_eq!(*resend, "p-ticket");
        }
        other => panic!("expected a penalty, got {other:?}"),
    }
    assert!(err.is_retryable());
    // With a policy the client waits p-time and re-sends with the ticket: the request
    // reaches the handler, which refuses the unknown refresh token (400, documented).
    client.set_retry_policy(Some(policy()));
    // Request 2 of the path is served; request 3 is turned away, then re-sent.
    let _ = client.exchange_token(&refresh(&server)).await;
    let started = Instant::now();
    let err = client.exchange_token(&refresh(&server)).await.unwrap_err();
    assert!(
        started.elapsed() >= Duration::from_millis(50),
        "waited p-time"
    );
    assert_eq!(
        err.status(),
        Some(reqwest::StatusCode::BAD_REQUEST),
        "{err:?}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_ticket_is_good_for_one_resend_only() {
    let (server, client) = start_with(penalized(false)).await;
    let Err(Error::Penalty { ticket, .. }) = client.exchange_token(&refresh(&server)).await else {
        panic!("the first request is turned away");
    };
    let url = format!("{}/auth/oauthtoken", server.base_url());
    let demo = server.demo_client();
    let body = serde_json::json!({
        "grant_type": "refresh_token", "refresh_token": "unknown",
        "client_id": demo.client_id, "client_secret": demo.client_secret, "p-ticket": ticket,
    });
    let (status, _) = common::post_json(&url, None, &body.to_string()).await;
    assert_eq!(status, 400, "the re-send with the ticket is served");
    // The same ticket again is no re-send: request 2 of the count is served, 3 is not.
    let (status, answer) = common::post_json(&url, None, &body.to_string()).await;
    assert_eq!(status, 400);
    let (status, answer2) = common::post_json(&url, None, &body.to_string()).await;
    assert_eq!(status, 200, "{answer} {answer2}");
    assert!(answer2["p-ticket"].as_str().is_some_and(|t| !t.is_empty()));
    server.shutdown().await;
}

#[tokio::test]
async fn a_429_carries_retry_after_and_is_retried() {
    let (server, mut client) = start_with(penalized(false)).await;
    let err = client.get_category_position_limit(11).await.unwrap_err();
    assert_eq!(err.status(), Some(reqwest::StatusCode::TOO_MANY_REQUESTS));
    assert_eq!(
        err.retry_after(),
        Some(Duration::ZERO),
        "50 ms rounds down to 0 s"
    );
    assert!(err.is_retryable());
    client.set_retry_policy(Some(policy()));
    // Request 2 served, 3 turned away and retried (a GET is safe to send again).
    assert_eq!(
        client.get_category_position_limit(11).await.unwrap().id,
        Some(11)
    );
    assert_eq!(
        client.get_category_position_limit(11).await.unwrap().id,
        Some(11)
    );
    // A POST is retried after a 429 too: the server did not act on it.
    // Request 1 (with the policy on) and request 3 are turned away and retried.
    for _ in 0..3 {
        let updated = client
            .update_contact_info_name(&names("Ada", "Lovelace"))
            .await
            .unwrap();
        assert_eq!(updated.error_text.as_deref(), Some(""));
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_captcha_is_login_required_and_never_retried() {
    let (server, mut client) = start_with(penalized(true)).await;
    client.set_retry_policy(Some(policy()));
    let err = client.exchange_token(&refresh(&server)).await.unwrap_err();
    assert!(matches!(err, Error::LoginRequired { .. }), "{err:?}");
    assert!(!err.is_retryable());
    server.shutdown().await;
}
