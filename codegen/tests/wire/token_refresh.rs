//! The refreshing token sources of `tests/specs/token_refresh.yaml` on the wire: each
//! renews through its own token operation with the grant fields and wire names its
//! `x-token-refresh` declares, and the token it gets is what the secured operation sends.
//! Copied into the crate generated from that spec by `tests/compile.rs`.
use std::io::{Read, Write};
use std::sync::Arc;

use gen_token_refresh::client::Client;
use gen_token_refresh::{OauthRefreshingToken, OidcRefreshingToken, TokenSource};

/// One request as the server saw it.
#[derive(Debug)]
struct Seen {
    /// `POST /path HTTP/1.1`.
    line: String,
    /// The `Authorization` header, when sent.
    authorization: Option<String>,
    /// The body, as JSON (`null` when empty).
    body: serde_json::Value,
}

/// Answers `n` connections: a token operation with `answer`, anything else with 204.
fn serve(n: usize, answer: &'static str) -> (String, std::thread::JoinHandle<Vec<Seen>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        (0..n)
            .map(|_| {
                let (mut s, _) = listener.accept().unwrap();
                let mut data = Vec::new();
                let mut buf = [0u8; 4096];
                let end = loop {
                    if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
                        break end + 4;
                    }
                    let len = s.read(&mut buf).unwrap();
                    assert!(len > 0, "connection closed before the end of the head");
                    data.extend_from_slice(&buf[..len]);
                };
                let head = String::from_utf8(data[..end].to_vec()).unwrap();
                let header = |name: &str| {
                    head.split("\r\n")
                        .filter_map(|l| l.split_once(": "))
                        .find(|(n, _)| n.eq_ignore_ascii_case(name))
                        .map(|(_, v)| v.to_owned())
                };
                let length: usize = header("content-length").map_or(0, |v| v.parse().unwrap());
                while data.len() < end + length {
                    let len = s.read(&mut buf).unwrap();
                    assert!(len > 0, "connection closed before the end of the body");
                    data.extend_from_slice(&buf[..len]);
                }
                let body = &data[end..end + length];
                let line = head.split("\r\n").next().unwrap_or_default().to_owned();
                if line.starts_with("POST") {
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                        answer.len()
                    );
                    s.write_all(reply.as_bytes()).unwrap();
                } else {
                    s.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
                        .unwrap();
                }
                Seen {
                    line,
                    authorization: header("authorization"),
                    body: if body.is_empty() {
                        serde_json::Value::Null
                    } else {
                        serde_json::from_slice(body).unwrap()
                    },
                }
            })
            .collect()
    });
    (base, handle)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn the_oauth_source_renews_with_the_declared_grant_and_keeps_the_token_for_its_lifetime() {
    let (base, server) = serve(
        3,
        r#"{"access_token": "o-1", "refresh_token": "r-1", "expires_in": 3600}"#,
    );
    let client = Client::new(base).unwrap();
    let source = Arc::new(OauthRefreshingToken::new(&client, "r-0").with_field("client_id", "c"));
    client.set_oauth_source(source.clone());
    runtime().block_on(async {
        client.list_orders().await.unwrap();
        client.list_orders().await.unwrap();
    });
    let seen = server.join().unwrap();
    assert_eq!(seen[0].line, "POST /oauth/token HTTP/1.1");
    assert_eq!(
        seen[0].body,
        serde_json::json!({"grant_type": "refresh_token", "refresh_token": "r-0", "client_id": "c"})
    );
    assert_eq!(
        seen[0].authorization, None,
        "the token operation is `security: []`"
    );
    for request in &seen[1..] {
        assert_eq!(request.line, "GET /orders HTTP/1.1");
        assert_eq!(request.authorization.as_deref(), Some("Bearer o-1"));
    }
    assert!(!format!("{source:?}").contains("r-1"));
}

#[test]
fn the_oidc_source_uses_its_own_wire_names_and_renews_only_when_refused() {
    let (base, server) = serve(4, r#"{"session": "s-1"}"#);
    let client = Client::new(base).unwrap();
    let source = Arc::new(OidcRefreshingToken::new(&client, "n-0"));
    client.set_oidc_source(source.clone());
    runtime().block_on(async {
        client.list_orders().await.unwrap();
        // No lifetime field: the token is kept until the server refuses it.
        source.invalidate("s-1").await;
        client.list_orders().await.unwrap();
    });
    let seen = server.join().unwrap();
    let lines: Vec<&str> = seen.iter().map(|s| s.line.as_str()).collect();
    assert_eq!(
        lines,
        [
            "POST /oidc/renew HTTP/1.1",
            "GET /orders HTTP/1.1",
            "POST /oidc/renew HTTP/1.1",
            "GET /orders HTTP/1.1",
        ]
    );
    assert_eq!(
        seen[0].body,
        serde_json::json!({"kind": "renewal", "scope": "orders", "renewal": "n-0"})
    );
    // The answer rotated no renewal token: the same one is sent again.
    assert_eq!(seen[2].body["renewal"], "n-0");
    assert_eq!(seen[1].authorization.as_deref(), Some("Bearer s-1"));
}
