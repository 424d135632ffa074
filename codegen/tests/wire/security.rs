//! What each security scheme puts on the wire, read off a loopback socket: the right
//! header, query parameter or cookie goes to each operation, nothing to an operation that
//! does not declare the scheme, alternatives pick the first complete one, combinations
//! send all, and neither `Debug` nor an error shows a secret. Copied into the crate
//! generated from `tests/specs/security.yaml` by `tests/compile.rs`.
use std::io::{Read, Write};

use gen_security::client::Client;

/// One request as the server saw it.
#[derive(Debug)]
struct Seen {
    /// `GET /path?query HTTP/1.1`.
    line: String,
    /// Header names (lower case) and values, in order.
    headers: Vec<(String, String)>,
}

impl Seen {
    /// The values of header `name`.
    fn header(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// Every credential-carrying part of the request: `Authorization`, `X-API-Key`,
    /// `Cookie` and the query.
    fn credentials(&self) -> (Vec<&str>, Vec<&str>, Vec<&str>, &str) {
        let target = self.line.split(' ').nth(1).unwrap_or_default();
        let query = target.split_once('?').map_or("", |(_, q)| q);
        (
            self.header("authorization"),
            self.header("x-api-key"),
            self.header("cookie"),
            query,
        )
    }
}

/// Answers `n` connections with 204 and returns each request's line and headers.
fn serve(n: usize) -> (String, std::thread::JoinHandle<Vec<Seen>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        (0..n)
            .map(|_| {
                let (mut s, _) = listener.accept().unwrap();
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    let len = s.read(&mut buf).unwrap();
                    assert!(len > 0, "connection closed before the end of the head");
                    head.extend_from_slice(&buf[..len]);
                }
                s.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
                    .unwrap();
                let head = String::from_utf8(head).unwrap();
                let mut lines = head.split("\r\n");
                let line = lines.next().unwrap_or_default().to_owned();
                let headers = lines
                    .filter_map(|l| l.split_once(": "))
                    .map(|(n, v)| (n.to_ascii_lowercase(), v.to_owned()))
                    .collect();
                Seen { line, headers }
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

const NONE: (Vec<&str>, Vec<&str>, Vec<&str>, &str) = (Vec::new(), Vec::new(), Vec::new(), "");

/// `alice:open sesame` in Base64 (RFC 7617).
const BASIC: &str = "Basic YWxpY2U6b3BlbiBzZXNhbWU=";

fn with_every_credential(base: String) -> Client {
    let client = Client::new(base).unwrap();
    client.set_bearer_auth("b-token").unwrap();
    client.set_basic_auth("alice", "open sesame").unwrap();
    client.set_header_key("h-key").unwrap();
    client.set_query_key("q&key");
    client.set_cookie_key("c-key").unwrap();
    client.set_oauth("o-token").unwrap();
    client.set_oidc("i-token").unwrap();
    client
}

#[test]
fn each_operation_gets_exactly_the_credentials_it_declares() {
    let (base, server) = serve(12);
    let client = with_every_credential(base);
    runtime().block_on(async {
        client.get_global().await.unwrap();
        client.get_public().await.unwrap();
        client.get_basic().await.unwrap();
        client.get_header_key().await.unwrap();
        client.get_query_key(2).await.unwrap();
        client.get_cookie_key(Some("dark")).await.unwrap();
        client.get_oauth().await.unwrap();
        client.get_oidc().await.unwrap();
        client.get_combined().await.unwrap();
        client.get_optional().await.unwrap();
        client.get_mtls().await.unwrap();
        client.get_digest_or_key().await.unwrap();
    });
    let seen = server.join().unwrap();
    let got: Vec<_> = seen.iter().map(Seen::credentials).collect();
    let expected = [
        // The document's requirement applies where the operation names none.
        (vec!["Bearer b-token"], vec![], vec![], ""),
        // `security: []`: nothing, although every credential is set.
        NONE,
        (vec![BASIC], vec![], vec![], ""),
        (vec![], vec!["h-key"], vec![], ""),
        // The key is added after the operation's own query, encoded.
        (vec![], vec![], vec![], "page=2&api_key=q%26key"),
        // One `Cookie` header for the parameter and the key.
        (vec![], vec![], vec!["theme=dark; session=c-key"], ""),
        (vec!["Bearer o-token"], vec![], vec![], ""),
        (vec!["Bearer i-token"], vec![], vec![], ""),
        // A combination sends every scheme of the requirement.
        (vec![], vec!["h-key"], vec![], "api_key=q%26key"),
        (vec![], vec!["h-key"], vec![], ""),
        // Mutual TLS is the transport's: no header.
        NONE,
        // The digest alternative is left out; the query key remains.
        (vec![], vec![], vec![], "api_key=q%26key"),
    ];
    for (i, (got, expected)) in got.iter().zip(expected.iter()).enumerate() {
        assert_eq!(got, expected, "request {i}: {}", seen[i].line);
    }
    assert_eq!(got.len(), expected.len());
}

#[test]
fn nothing_is_sent_before_credentials_are_set() {
    let (base, server) = serve(5);
    let client = Client::new(base).unwrap();
    runtime().block_on(async {
        client.get_global().await.unwrap();
        client.get_basic().await.unwrap();
        client.get_query_key(1).await.unwrap();
        client.get_alternatives().await.unwrap();
        client.get_optional().await.unwrap();
    });
    for seen in server.join().unwrap() {
        let (auth, key, cookie, query) = seen.credentials();
        assert!(auth.is_empty() && key.is_empty() && cookie.is_empty(), "{seen:?}");
        assert!(!query.contains("api_key"), "{seen:?}");
    }
}

#[test]
fn alternatives_send_the_first_complete_one_in_spec_order() {
    let (base, server) = serve(4);
    let client = with_every_credential(base);
    runtime().block_on(async {
        // headerKey, then basicAuth, then bearerAuth.
        client.get_alternatives().await.unwrap();
        client.clear_header_key();
        client.get_alternatives().await.unwrap();
        client.clear_basic_auth();
        client.get_alternatives().await.unwrap();
        client.clear_bearer_auth();
        client.get_alternatives().await.unwrap();
    });
    let got: Vec<_> = server
        .join()
        .unwrap()
        .iter()
        .map(|s| {
            let (auth, key, cookie, query) = s.credentials();
            (
                auth.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
                key.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
                cookie.len(),
                query.to_owned(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (vec![], vec!["h-key".to_owned()], 0, String::new()),
            (vec![BASIC.to_owned()], vec![], 0, String::new()),
            (vec!["Bearer b-token".to_owned()], vec![], 0, String::new()),
            (vec![], vec![], 0, String::new()),
        ]
    );
}

#[test]
fn an_incomplete_combination_sends_nothing() {
    let (base, server) = serve(1);
    let client = with_every_credential(base);
    client.clear_query_key();
    assert!(client.has_header_key() && !client.has_query_key());
    runtime().block_on(async { client.get_combined().await.unwrap() });
    let seen = server.join().unwrap();
    assert_eq!(seen[0].credentials(), NONE, "{:?}", seen[0]);
}

#[test]
fn clones_share_credentials_and_replacements_apply_to_later_calls() {
    let (base, server) = serve(3);
    let client = Client::new(base).unwrap();
    client.set_header_key("first").unwrap();
    let clone = client.clone();
    // Replaced through the original, cleared through the clone: both see each change.
    client.set_header_key("second").unwrap();
    runtime().block_on(async {
        clone.get_header_key().await.unwrap();
        client.get_header_key().await.unwrap();
        clone.clear_header_key();
        client.get_header_key().await.unwrap();
    });
    let keys: Vec<Vec<String>> = server
        .join()
        .unwrap()
        .iter()
        .map(|s| s.header("x-api-key").iter().map(|v| v.to_string()).collect())
        .collect();
    assert_eq!(
        keys,
        [vec!["second".to_owned()], vec!["second".to_owned()], vec![]]
    );
}

#[test]
fn debug_and_errors_never_show_a_secret() {
    let client = with_every_credential("http://127.0.0.1:9".to_owned());
    let shown = format!("{client:?} {:?}", client.clone());
    for secret in [
        "b-token",
        "alice",
        "open sesame",
        "YWxpY2U6b3BlbiBzZXNhbWU",
        "h-key",
        "q&key",
        "c-key",
        "o-token",
        "i-token",
    ] {
        assert!(!shown.contains(secret), "{secret} in {shown}");
    }
    assert_eq!(shown.matches("<redacted>").count(), 14, "{shown}");
    client.clear_oidc();
    assert!(format!("{client:?}").contains("oidc: \"<none>\""));

    let errors = [
        client.set_header_key("bad\nkey-secret").unwrap_err(),
        client.set_bearer_auth("bad\rtoken-secret").unwrap_err(),
        client.set_basic_auth("ali:ce-secret", "pw").unwrap_err(),
        client.set_cookie_key("semi;colon-secret").unwrap_err(),
    ];
    for error in &errors {
        let text = format!("{error} {error:?}");
        assert!(!text.contains("secret"), "{text}");
    }
    assert_eq!(errors[0].scheme(), "headerKey");
    assert_eq!(errors[3].scheme(), "cookieKey");
    // A refused credential leaves the one set before in place.
    assert!(client.has_header_key() && client.has_cookie_key());
}

/// Accepts one connection, reads the request's head and closes without answering.
fn close_without_answer() -> (String, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut head = Vec::new();
        let mut buf = [0u8; 4096];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let len = s.read(&mut buf).unwrap();
            if len == 0 {
                break;
            }
            head.extend_from_slice(&buf[..len]);
        }
    });
    (base, handle)
}

#[test]
fn a_failed_call_never_shows_the_query_key() {
    // Refused: bind, learn the port, close.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let refused = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let (closing, server) = close_without_answer();
    for base in [refused, closing] {
        let client = Client::new(base).unwrap();
        client.set_query_key("q&key-secret");
        let err = runtime().block_on(client.get_query_key(2)).unwrap_err();
        assert!(matches!(err, gen_security::Error::Transport(_)), "{err:?}");
        let shown = format!("{err} {err:?}");
        for secret in ["secret", "q&key", "q%26key"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        // Path and parameter names stay; the values do not.
        assert!(shown.contains("/query-key?page=REDACTED&api_key=REDACTED"), "{shown}");
    }
    server.join().unwrap();
}
