//! A mistyped field, decoded strictly (the default): copied into the crate generated from
//! `tests/specs/lenient_scalars.yaml` by `tests/compile.rs`. The server sends one id as an
//! integer where the spec declares a string.
use std::io::{Read, Write};

use gen_lenient_scalars::{Client, Error};

/// Answers one connection with `200` and `body`.
fn serve(body: &'static str) -> (String, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut head = Vec::new();
        let mut buf = [0u8; 4096];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let len = s.read(&mut buf).unwrap();
            assert!(len > 0, "connection closed before the end of the head");
            head.extend_from_slice(&buf[..len]);
        }
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        s.write_all(answer.as_bytes()).unwrap();
    });
    (base, handle)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

const MISTYPED: &str = r#"{"items":[{"id":"a1","name":"first"},{"id":"a2","name":"second"},{"id":7,"name":"third"}]}"#;

/// One integer id among strings: `Error::Decode` names `items[2].id`, keeps the body,
/// and Display says where.
#[test]
fn a_mistyped_field_is_named_and_the_body_kept() {
    let (base, server) = serve(MISTYPED);
    let client = Client::new(base).unwrap();
    let err = runtime().block_on(client.list_things()).unwrap_err();
    match &err {
        Error::Decode { status, path, source, body, .. } => {
            assert_eq!(*status, 200);
            assert_eq!(path, "items[2].id");
            assert!(source.is_data(), "{source}");
            assert_eq!(body.as_slice(), MISTYPED.as_bytes());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(err.body(), Some(MISTYPED.as_bytes()));
    assert!(err.excerpt(40).unwrap().starts_with(r#"{"items":[{"id":"a1""#));
    let shown = err.to_string();
    assert!(shown.starts_with("status 200 OK: body does not decode at `items[2].id`"), "{shown}");
    server.join().unwrap();
}

/// Strict is the default: `null` where a defaulted integer is declared fails too.
#[test]
fn null_in_a_defaulted_field_is_refused_by_default() {
    let (base, server) = serve(r#"{"items":[{"id":"a1","name":"n","limit":null}]}"#);
    let client = Client::new(base).unwrap();
    let err = runtime().block_on(client.list_things()).unwrap_err();
    assert!(matches!(&err, Error::Decode { path, .. } if path == "items[0].limit"), "{err:?}");
    server.join().unwrap();
}
