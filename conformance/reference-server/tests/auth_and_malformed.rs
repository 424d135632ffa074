//! DECISIONS rows 1/1b (401 on every secured operation for a missing, malformed,
//! unknown or expired token) and 2, 20-22 (malformed requests: 400, 404, 405 with
//! Allow, 413, 415, each with an errorText body and never a 5xx).

mod common;

use std::time::Duration;

use common::{assert_error, raw, start};
use reference_server::ACCESS_TOKEN_LIFETIME;

const SECURED_GETS: [&str; 4] = [
    "categoryPositionLimit/deps?masterid=1",
    "categoryPositionLimit/item?id=11",
    "marketDataSubscriptionExchangeScope/finds?names=CME",
    "riskCategory/suggest?t=equit&l=5",
];
const UPDATE: &str = "contactInfo/updatecontactinfoname";
const BODY: &str = r#"{"firstName":"A","lastName":"B","country":"C","phone":"D"}"#;

async fn send(
    url: &str,
    post: bool,
    authorization: Option<&str>,
) -> (u16, reqwest::header::HeaderMap, serde_json::Value) {
    let mut req = if post {
        raw()
            .post(url)
            .header("content-type", "application/json")
            .body(BODY)
    } else {
        raw().get(url)
    };
    if let Some(a) = authorization {
        req = req.header("authorization", a);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp.json().await.unwrap_or(serde_json::Value::Null);
    (status, headers, body)
}

#[tokio::test]
async fn every_secured_operation_rejects_bad_tokens_with_401() {
    let (server, _client) = start().await;
    let base = server.base_url();
    let good = server.issue_token();
    let unknown = "A".repeat(43);
    let cases: [Option<String>; 6] = [
        None,
        Some(format!("Basic {good}")),
        Some("Bearer".to_string()),
        Some(format!("Bearer {good} extra")),
        Some(format!("Bearer {unknown}")),
        Some(format!("Bearer {}", &good[..42])),
    ];
    let targets: Vec<(String, bool)> = SECURED_GETS
        .iter()
        .map(|p| (format!("{base}/{p}"), false))
        .chain([(format!("{base}/{UPDATE}"), true)])
        .collect();
    for (url, post) in &targets {
        for auth in &cases {
            let (status, headers, body) = send(url, *post, auth.as_deref()).await;
            assert_eq!(status, 401, "{url} with {auth:?}");
            assert_eq!(body, serde_json::json!({"errorText": "Access is denied"}));
            assert_eq!(headers.get("www-authenticate").unwrap(), "Bearer");
        }
        let (status, _, _) = send(url, *post, Some(&format!("bearer {good}"))).await;
        assert_eq!(status, 200, "{url}: the scheme is case-insensitive");
    }
    // The record was not changed by any rejected update.
    assert_eq!(
        server.contact_record(common::DEMO_USER).unwrap().first_name,
        "A"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn tokens_expire_after_expires_in_seconds() {
    let (server, _client) = start().await;
    let token = server.issue_token();
    let url = format!("{}/{}", server.base_url(), SECURED_GETS[0]);
    let auth = format!("Bearer {token}");
    assert_eq!(send(&url, false, Some(&auth)).await.0, 200);
    server.advance_clock(Duration::from_secs(ACCESS_TOKEN_LIFETIME - 10));
    assert_eq!(send(&url, false, Some(&auth)).await.0, 200);
    server.advance_clock(Duration::from_secs(10));
    assert_eq!(send(&url, false, Some(&auth)).await.0, 401);
    server.shutdown().await;
}

#[tokio::test]
async fn unknown_paths_are_404_and_wrong_methods_405_with_allow() {
    let (server, _client) = start().await;
    let token = server.issue_token();
    let base = server.base_url();
    for path in [
        format!("{base}/nope"),
        format!("{}/", server.origin()),
        format!("{base}/riskCategory/suggest/extra"),
    ] {
        let resp = raw().get(&path).bearer_auth(&token).send().await.unwrap();
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = resp.json().await.unwrap();
        assert_error(status, &headers, &body, 404);
    }
    let cases = [
        ("DELETE", SECURED_GETS[0], "GET,HEAD"),
        ("PUT", SECURED_GETS[3], "GET,HEAD"),
        ("OPTIONS", SECURED_GETS[1], "GET,HEAD"),
        ("TRACE", SECURED_GETS[2], "GET,HEAD"),
        ("GET", UPDATE, "POST"),
        ("PATCH", "auth/oauthtoken", "POST"),
        ("TRACE", "auth/oauthtoken", "POST"),
    ];
    for (method, path, allow) in cases {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let resp = raw()
            .request(method.clone(), format!("{base}/{path}"))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = resp.json().await.unwrap();
        assert_error(status, &headers, &body, 405);
        let got = headers
            .get("allow")
            .unwrap()
            .to_str()
            .unwrap()
            .replace(' ', "");
        assert_eq!(got, allow, "{method} {path}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn bodies_wrong_type_too_large_or_unparsable_are_refused() {
    let (server, _client) = start().await;
    let token = server.issue_token();
    let base = server.base_url();
    for path in [UPDATE, "auth/oauthtoken"] {
        let url = format!("{base}/{path}");
        // Wrong and missing content type: 415.
        for ct in [Some("text/plain"), Some("application/xml"), None] {
            let mut req = raw().post(&url).bearer_auth(&token).body(BODY);
            if let Some(ct) = ct {
                req = req.header("content-type", ct);
            }
            let resp = req.send().await.unwrap();
            let (status, headers) = (resp.status().as_u16(), resp.headers().clone());
            assert_error(status, &headers, &resp.json().await.unwrap(), 415);
        }
        // Over 64 KiB: 413, with and without a Content-Length.
        let big = format!(
            r#"{{"firstName":"{}"}}"#,
            "x".repeat(reference_server::max_body())
        );
        let resp = raw()
            .post(&url)
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .body(big.clone())
            .send()
            .await
            .unwrap();
        let (status, headers) = (resp.status().as_u16(), resp.headers().clone());
        assert_error(status, &headers, &resp.json().await.unwrap(), 413);
        let head = chunked_post(
            &server.local_addr(),
            &format!("/v1/{path}"),
            &token,
            big.as_bytes(),
        )
        .await;
        assert!(head.starts_with("HTTP/1.1 413"), "{head}");
    }
    // Unparsable JSON, a missing field and a mistyped field: 400 for the update ...
    for body in [
        "{",
        "[]",
        r#"{"firstName":"A","lastName":"B","country":"C"}"#,
        r#"{"firstName":1,"lastName":"B","country":"C","phone":"D"}"#,
        "",
    ] {
        let (status, json) =
            common::post_json(&format!("{base}/{UPDATE}"), Some(&token), body).await;
        assert_eq!(status, 400, "{body}");
        assert!(!json["errorText"].as_str().unwrap().is_empty());
    }
    // ... and a 400 OAuthTokenResponse with invalid_request for the token exchange.
    for body in ["{", "{}", r#"{"grant_type":5}"#] {
        let (status, json) =
            common::post_json(&format!("{base}/auth/oauthtoken"), None, body).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(json["error"], "invalid_request", "{body}");
        assert!(json.get("access_token").is_none());
    }
    server.shutdown().await;
}

/// Sends a body chunked, without Content-Length, so the limit applies while reading;
/// returns the status line.
async fn chunked_post(addr: &std::net::SocketAddr, path: &str, token: &str, body: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    for chunk in body.chunks(8192) {
        // The server may answer and close before the whole body is sent.
        if stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .await
            .is_err()
            || stream.write_all(chunk).await.is_err()
            || stream.write_all(b"\r\n").await.is_err()
        {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;
    let mut buf = vec![0u8; 1024];
    let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf))
        .await
        .unwrap()
        .unwrap();
    String::from_utf8_lossy(&buf[..n])
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

/// An answer given before the request body was read says `Connection: close`, so a
/// pooling client never sends its next request down a connection hyper is closing; a
/// body that was read keeps the connection alive.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unread_bodies_close_the_connection_and_pooled_clients_never_lose_a_request() {
    let (server, _client) = start().await;
    let token = server.issue_token();
    let base = server.base_url();
    let pooled = raw();
    let big = format!(
        r#"{{"firstName":"{}"}}"#,
        "x".repeat(reference_server::max_body())
    );
    for round in 0..200 {
        let resp = pooled
            .post(format!("{base}/{UPDATE}"))
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .body(big.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 413, "round {round}");
        assert_eq!(resp.headers()["connection"], "close", "round {round}");
        let resp = pooled
            .get(format!("{base}/{}", SECURED_GETS[0]))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap_or_else(|e| panic!("round {round}: the request after a 413 was lost: {e:?}"));
        assert_eq!(resp.status(), 200, "round {round}");
    }
    let resp = pooled
        .post(format!("{base}/{UPDATE}"))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body(BODY)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(
        resp.headers()
            .get("connection")
            .is_none_or(|v| v != "close")
    );
    server.shutdown().await;
}

/// Requests hyper refuses before routing (a request line or header block over its
/// limits, bytes that are not HTTP) get hyper's own 4xx, with no body: no handler runs,
/// so there is no `errorText` to give (README, "Serving"). What matters is that they are
/// 4xx and never a 5xx or a hang.
#[tokio::test]
async fn requests_refused_before_routing_are_4xx() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (server, _client) = start().await;
    let addr = server.local_addr();
    let long_query = format!(
        "GET /v1/riskCategory/suggest?t={}&l=1 HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(70_000)
    );
    let big_header = format!(
        "GET /v1/riskCategory/suggest?t=a&l=1 HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(500_000)
    );
    let not_utf8 = b"GET /v1/riskCategory/suggest?t=\xff&l=1 HTTP/1.1\r\nHost: x\r\n\r\n".to_vec();
    for (what, bytes, want) in [
        ("a 70 KB request line", long_query.into_bytes(), 414),
        ("a 500 KB header", big_header.into_bytes(), 431),
        ("a raw 0xFF byte in the query", not_utf8, 400),
    ] {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        // The server may answer and close before all of it is written.
        let _ = stream.write_all(&bytes).await;
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
            .await
            .unwrap_or_else(|_| panic!("{what}: no answer within 10 s"))
            .ok();
        let head = String::from_utf8_lossy(&answer);
        let status: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{what}: not an HTTP answer: {head:?}"));
        assert_eq!(status, want, "{what}");
    }
    server.shutdown().await;
}

/// A client that sends half a request does not hold its connection: headers that do not
/// end within the read timeout close it, and a body that stops short gets 408 with an
/// `errorText` body.
#[tokio::test]
async fn half_sent_requests_are_cut_off_at_the_read_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (server, _client) = common::start_with(reference_server::Config {
        read_timeout: Duration::from_millis(300),
        ..Default::default()
    })
    .await;
    let token = server.issue_token();
    let addr = server.local_addr();
    let read_all = |mut stream: tokio::net::TcpStream| async move {
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
            .await
            .expect("the server let a half-sent request hold the connection")
            .ok();
        String::from_utf8_lossy(&answer).into_owned()
    };

    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /v1/riskCategory/suggest?t=e&l=1 HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let answer = read_all(stream).await;
    assert!(!answer.contains("200 OK"), "{answer}");

    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /v1/{UPDATE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"fi"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let answer = read_all(stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("errorText"), "{answer}");
    assert!(!answer.contains(&token));
    server.shutdown().await;
}
