//! The OAuth flow end to end (DECISIONS rows 10-14): authorize -> exchange -> call ->
//! refresh -> old tokens rejected, both body encodings, and every refusal.

mod common;

use std::time::Duration;

use common::{raw, start, token_request};
use reference_server::RunningServer;
use trading_api::Client;
use trading_api::client::ExchangeTokenError;
use trading_api::models::{OAuthToken, OAuthTokenResponse};

const VERIFIER: &str = "dBjftJeZ4CVP-mJ92K9x5uXS6MclkmTzqFD63ds0ArI";
// base64url(sha256(VERIFIER)), computed independently with Python's hashlib.
const CHALLENGE: &str = "-g-uO6FcKkMqjKNKk3Z4ahLqGmvoiGZxqam9immlzzM";

/// Runs the authorization step; returns the redirect's query pairs.
async fn authorize(server: &RunningServer, extra: &[(&str, &str)]) -> (u16, Vec<(String, String)>) {
    let demo = server.demo_client();
    let mut query = vec![
        ("response_type", "code"),
        ("client_id", demo.client_id.as_str()),
        ("redirect_uri", demo.redirect_uri.as_str()),
        ("state", "st4te"),
    ];
    query.retain(|(k, _)| !extra.iter().any(|(e, _)| e == k));
    query.extend_from_slice(extra);
    let resp = raw()
        .get(format!("{}/oauth/authorize", server.origin()))
        .query(&query)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let location = resp
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    if status == 302 {
        assert!(
            location.starts_with(&format!("{}?", demo.redirect_uri)),
            "{location}"
        );
    }
    let pairs = location
        .split_once('?')
        .map(|(_, q)| url_pairs(q))
        .unwrap_or_default();
    (status, pairs)
}

fn url_pairs(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.replace("%20", " ").replace('+', " ")))
        .collect()
}

fn param<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

async fn code(server: &RunningServer) -> String {
    let (status, pairs) = authorize(
        server,
        &[
            ("code_challenge", CHALLENGE),
            ("code_challenge_method", "S256"),
        ],
    )
    .await;
    assert_eq!(status, 302);
    assert_eq!(param(&pairs, "state"), Some("st4te"));
    param(&pairs, "code").unwrap().to_string()
}

fn code_request(server: &RunningServer, code: &str) -> OAuthToken {
    let demo = server.demo_client();
    OAuthToken::authorization_code(code, demo.client_id, demo.client_secret, demo.redirect_uri)
        .with_code_verifier(VERIFIER)
}

/// The same request without its PKCE verifier (the builders only add fields).
fn without_verifier(mut request: OAuthToken) -> OAuthToken {
    request.code_verifier = None;
    request
}

fn assert_success(r: &OAuthTokenResponse) {
    assert_eq!(r.error.as_deref(), Some(""));
    assert_eq!(r.error_description.as_deref(), Some(""));
    assert_eq!(r.token_type.as_deref(), Some("Bearer"));
    assert_eq!(r.expires_in, Some(5400));
    assert_eq!(r.refresh_token_expires_in, Some(5400));
    assert!(r.access_token.as_deref().is_some_and(|t| t.len() >= 43));
    assert!(r.refresh_token.as_deref().is_some_and(|t| t.len() >= 43));
    assert!(
        r.id_token
            .as_deref()
            .is_some_and(|t| t.split('.').count() == 3)
    );
}

async fn refused(client: &Client, req: &OAuthToken) -> OAuthTokenResponse {
    match client.exchange_token(req).await {
        Err(trading_api::Error::Response {
            error: ExchangeTokenError::BadRequest(r),
            ..
        }) => {
            assert!(r.access_token.is_none());
            assert!(!r.error_description.as_deref().unwrap_or("").is_empty());
            r
        }
        other => panic!("expected a 400, got {other:?}"),
    }
}

#[tokio::test]
async fn authorize_exchange_call_refresh_and_revoke() {
    let (server, _) = start().await;
    let client = Client::with_client(server.base_url(), raw());
    let code = code(&server).await;
    let issued = client
        .exchange_token(&code_request(&server, &code))
        .await
        .unwrap();
    assert_success(&issued);

    // The code is single-use.
    let again = refused(&client, &code_request(&server, &code)).await;
    assert_eq!(again.error.as_deref(), Some("invalid_grant"));

    // The token works.
    client
        .set_bearer_token(issued.access_token.as_deref().unwrap())
        .unwrap();
    assert_eq!(
        client
            .suggest_risk_categories("energy", 5)
            .await
            .unwrap()
            .len(),
        2
    );

    // Refresh rotates: new pair works, old access and old refresh token do not.
    let demo = server.demo_client();
    let refresh = OAuthToken::refresh_token(
        issued
            .refresh_token
            .clone()
            .expect("a refresh token was issued"),
        &demo.client_id,
        &demo.client_secret,
    );
    let renewed = client.exchange_token(&refresh).await.unwrap();
    assert_success(&renewed);
    assert_ne!(renewed.access_token, issued.access_token);
    let err = client
        .suggest_risk_categories("energy", 5)
        .await
        .unwrap_err();
    assert_eq!(err.status().map(|s| s.as_u16()), Some(401));
    let replay = refused(&client, &refresh).await;
    assert_eq!(replay.error.as_deref(), Some("invalid_grant"));
    client
        .set_bearer_token(renewed.access_token.as_deref().unwrap())
        .unwrap();
    assert!(client.list_category_position_limits(1).await.is_ok());

    // The renewed token belongs to the same user: the update changes user 1's record.
    client
        .update_contact_info_name(&common::names("Augusta", "King"))
        .await
        .unwrap();
    assert_eq!(server.contact_record(1).unwrap().first_name, "Augusta");
    server.shutdown().await;
}

#[tokio::test]
async fn the_form_encoding_is_accepted() {
    let (server, _) = start().await;
    let code = code(&server).await;
    let demo = server.demo_client();
    let resp = raw()
        .post(format!("{}/auth/oauthtoken", server.base_url()))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", demo.redirect_uri.as_str()),
            ("client_id", demo.client_id.as_str()),
            ("client_secret", demo.client_secret.as_str()),
            ("code_verifier", VERIFIER),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers().get("cache-control").unwrap(), "no-store");
    let body: OAuthTokenResponse = resp.json().await.unwrap();
    assert_success(&body);
    // A repeated form parameter is invalid_request (RFC 6749 §3.2).
    let resp = raw()
        .post(format!("{}/auth/oauthtoken", server.base_url()))
        .form(&[
            ("grant_type", "refresh_token"),
            ("grant_type", "refresh_token"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    let body: OAuthTokenResponse = resp.json().await.unwrap();
    assert_eq!(body.error.as_deref(), Some("invalid_request"));
    server.shutdown().await;
}

#[tokio::test]
async fn every_refusal_has_its_rfc_6749_code() {
    let (server, _) = start().await;
    let client = Client::with_client(server.base_url(), raw());
    let demo = server.demo_client();

    let cases: Vec<(OAuthToken, &str)> = vec![
        (token_request("password"), "unsupported_grant_type"),
        (token_request(""), "invalid_request"),
        (token_request("authorization_code"), "invalid_request"),
        (
            token_request("authorization_code").with_code("x"),
            "invalid_request",
        ),
        (
            code_request(&server, &code(&server).await).with_client_secret("wrong"),
            "invalid_client",
        ),
        (
            code_request(&server, &code(&server).await).with_client_id("nobody"),
            "invalid_client",
        ),
        (code_request(&server, "not-a-real-code"), "invalid_grant"),
        (
            code_request(&server, &code(&server).await)
                .with_redirect_uri("http://localhost:3000/callback"),
            "invalid_grant",
        ),
        (
            code_request(&server, &code(&server).await)
                .with_code_verifier(VERIFIER.replace('d', "e")),
            "invalid_grant",
        ),
        (
            without_verifier(code_request(&server, &code(&server).await)),
            "invalid_grant",
        ),
        (
            OAuthToken::refresh_token("unknown", &demo.client_id, &demo.client_secret),
            "invalid_grant",
        ),
    ];
    for (req, want) in &cases {
        let r = refused(&client, req).await;
        assert_eq!(r.error.as_deref(), Some(*want), "{:?}", r.error_description);
    }

    // A code expires after ten minutes.
    let late = code(&server).await;
    server.advance_clock(Duration::from_secs(601));
    let r = refused(&client, &code_request(&server, &late)).await;
    assert_eq!(r.error.as_deref(), Some("invalid_grant"));
    server.shutdown().await;
}

#[tokio::test]
async fn a_code_without_pkce_needs_no_verifier_but_refuses_one() {
    let (server, _) = start().await;
    let client = Client::with_client(server.base_url(), raw());
    let (status, pairs) = authorize(&server, &[]).await;
    assert_eq!(status, 302);
    let code = param(&pairs, "code").unwrap().to_string();
    let ok = client
        .exchange_token(&without_verifier(code_request(&server, &code)))
        .await
        .unwrap();
    assert_success(&ok);
    let (_, pairs) = authorize(&server, &[]).await;
    let code = param(&pairs, "code").unwrap().to_string();
    assert_eq!(
        refused(&client, &code_request(&server, &code))
            .await
            .error
            .as_deref(),
        Some("invalid_grant")
    );
    server.shutdown().await;
}

#[tokio::test]
async fn the_authorization_step_refuses_bad_requests() {
    let (server, _) = start().await;
    let origin = server.origin();
    // Unknown client or unregistered redirect URI: answered here, never redirected.
    for query in [
        "response_type=code&client_id=nobody&redirect_uri=http://127.0.0.1:3000/callback",
        "response_type=code&client_id=demo-client&redirect_uri=http://evil.example/cb",
        "response_type=code&redirect_uri=http://127.0.0.1:3000/callback",
    ] {
        let resp = raw()
            .get(format!("{origin}/oauth/authorize?{query}"))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 400, "{query}");
        assert!(resp.headers().get("location").is_none());
    }
    // The others travel in the redirect, with the state.
    for (extra, want) in [
        (
            vec![("response_type", "token")],
            "unsupported_response_type",
        ),
        (
            vec![
                ("code_challenge", CHALLENGE),
                ("code_challenge_method", "plain"),
            ],
            "invalid_request",
        ),
        (
            vec![
                ("code_challenge", "short"),
                ("code_challenge_method", "S256"),
            ],
            "invalid_request",
        ),
        (vec![("code_challenge_method", "S256")], "invalid_request"),
    ] {
        let (status, pairs) = authorize(&server, &extra).await;
        assert_eq!(status, 302);
        assert_eq!(param(&pairs, "error"), Some(want), "{extra:?}");
        assert_eq!(param(&pairs, "state"), Some("st4te"));
        assert!(param(&pairs, "code").is_none());
    }
    server.shutdown().await;
}

#[tokio::test]
async fn http_basic_client_authentication_is_accepted_but_not_alongside_a_body_secret() {
    let (server, _) = start().await;
    let demo = server.demo_client();
    let url = format!("{}/auth/oauthtoken", server.base_url());
    let exchange = |code: String, secret_in_body: bool, basic_secret: &'static str| {
        let mut body = serde_json::json!({
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": demo.redirect_uri,
            "code_verifier": VERIFIER,
        });
        if secret_in_body {
            body["client_id"] = demo.client_id.clone().into();
            body["client_secret"] = demo.client_secret.clone().into();
        }
        raw()
            .post(&url)
            .basic_auth(&demo.client_id, Some(basic_secret))
            .json(&body)
            .send()
    };
    let ok: OAuthTokenResponse = exchange(code(&server).await, false, "demo-secret")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_success(&ok);
    let resp = exchange(code(&server).await, true, "demo-secret")
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    let body: OAuthTokenResponse = resp.json().await.unwrap();
    assert_eq!(body.error.as_deref(), Some("invalid_request"));
    let body: OAuthTokenResponse = exchange(code(&server).await, false, "wrong")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body.error.as_deref(), Some("invalid_client"));
    server.shutdown().await;
}
