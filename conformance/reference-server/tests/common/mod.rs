//! Shared helpers of the reference server's integration tests: a server on a port the
//! OS picks, the generated client holding a ready token, and a raw reqwest client for
//! the malformed requests the generated client refuses to send.
#![allow(dead_code)]

use std::time::Duration;

use reference_server::{Config, Fault, RunningServer, spawn};
use trading_api::Client;
use trading_api::models::{OAuthToken, UpdateContactInfoName};

/// The demo client's user (the one `issue_token` speaks for).
pub const DEMO_USER: i64 = 1;

/// A clean server and a client with a token.
pub async fn start() -> (RunningServer, Client) {
    start_with(Config::default()).await
}

/// A server with seeded faults and a client with a token.
pub async fn start_faulty(faults: &[Fault]) -> (RunningServer, Client) {
    start_with(Config {
        faults: faults.to_vec(),
        ..Config::default()
    })
    .await
}

pub async fn start_with(config: Config) -> (RunningServer, Client) {
    let server = spawn(config).await.expect("server starts");
    let client = Client::with_client(server.base_url(), raw());
    client.set_bearer_token(&server.issue_token()).unwrap();
    (server, client)
}

/// A reqwest client that does not follow redirects and gives up after 10 s.
pub fn raw() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

pub fn names(first: &str, last: &str) -> UpdateContactInfoName {
    UpdateContactInfoName::builder()
        .first_name(first)
        .last_name(last)
        .country("FR")
        .phone("+33 1 23 45 67 89")
        .build()
}

pub fn token_request(grant_type: &str) -> OAuthToken {
    OAuthToken::new(grant_type)
}

/// A raw JSON POST with a bearer token; returns status and body.
pub async fn post_json(url: &str, token: Option<&str>, body: &str) -> (u16, serde_json::Value) {
    let mut req = raw()
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
    )
}

/// A raw GET; returns status, headers and body.
pub async fn get(
    url: &str,
    token: Option<&str>,
) -> (u16, reqwest::header::HeaderMap, serde_json::Value) {
    let mut req = raw().get(url);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let text = resp.text().await.unwrap();
    (
        status,
        headers,
        serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
    )
}

/// Asserts an error answer: the status, a JSON content type and a non-empty errorText.
pub fn assert_error(
    status: u16,
    headers: &reqwest::header::HeaderMap,
    body: &serde_json::Value,
    want: u16,
) {
    assert_eq!(status, want, "body: {body}");
    let ct = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    assert!(ct.starts_with("application/json"), "content type {ct}");
    let text = body["errorText"].as_str().unwrap_or("");
    assert!(!text.is_empty(), "errorText missing in {body}");
}

/// Runs the authorization step (without PKCE) at `origin` for a client and returns the
/// code the redirect carries.
pub async fn authorization_code(origin: &str, client_id: &str, redirect_uri: &str) -> String {
    let resp = raw()
        .get(format!("{origin}/oauth/authorize"))
        .query(&[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", redirect_uri),
            ("state", "s"),
        ])
        .send()
        .await
        .unwrap();
    let location = resp.headers()["location"].to_str().unwrap().to_string();
    location
        .split("code=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap()
        .to_string()
}
