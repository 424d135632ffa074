//! Answers whose status `http` names no constant for (`299`, `499`): a lone success, a
//! success beside such an error (the error variant carries the status it came with), one
//! of two successes (so is its variant), and a success with a business check. Copied into the crate generated from
//! `tests/specs/many_responses.yaml` by `tests/compile.rs`.
use std::io::{Read, Write};

use gen_many_responses::client::{OddCheckedError, OddMixedError, OddTwoResponse};
use gen_many_responses::Error;

/// Answers one connection per `(status line, JSON body)`, in order.
fn serve(answers: Vec<(&'static str, &'static str)>) -> (String, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        for (status, body) in answers {
            let (mut s, _) = listener.accept().unwrap();
            let mut head = Vec::new();
            let mut buf = [0u8; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                let len = s.read(&mut buf).unwrap();
                assert!(len > 0, "connection closed before the end of the head");
                head.extend_from_slice(&buf[..len]);
            }
            let answer = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            s.write_all(answer.as_bytes()).unwrap();
        }
    });
    (base, handle)
}

#[test]
fn statuses_without_a_constant_are_read_as_documented() {
    let (base, server) = serve(vec![
        ("299 Odd", r#"{"id":"a"}"#),
        ("299 Odd", r#"{"id":"b"}"#),
        ("499 Odd", r#"{"title":"no"}"#),
        ("299 Odd", r#"{"id":"e"}"#),
        ("299 Odd", r#"{"id":"c"}"#),
        ("299 Odd", r#"{"id":"d","error":"refused"}"#),
    ]);
    let client = gen_many_responses::Client::new(base).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let only = client.odd_only().await.unwrap();
        assert_eq!(only.status().as_u16(), 299);
        assert_eq!(only.id.as_deref(), Some("a"));

        let mixed = client.odd_mixed().await.unwrap();
        assert_eq!((mixed.status().as_u16(), mixed.id.as_deref()), (299, Some("b")));
        match client.odd_mixed().await {
            Err(Error::Response { status, error, .. }) => {
                assert_eq!(status.as_u16(), 499);
                assert_eq!(error.status().as_u16(), 499);
                match error {
                    OddMixedError::Status499 { status, body } => {
                        assert_eq!(status.as_u16(), 499);
                        assert_eq!(body.title, "no");
                    }
                    other => panic!("expected Status499, got {other:?}"),
                }
            }
            other => panic!("expected the documented 499, got {other:?}"),
        }

        match client.odd_two().await.unwrap().into_inner() {
            OddTwoResponse::Status299 { status, body } => {
                assert_eq!((status.as_u16(), body.id.as_deref()), (299, Some("e")));
            }
            other => panic!("expected Status299, got {other:?}"),
        }

        let checked = client.odd_checked().await.unwrap();
        assert_eq!(checked.id.as_deref(), Some("c"));
        match client.odd_checked().await {
            Err(Error::Business { status, error, .. }) => {
                assert_eq!(status.as_u16(), 299);
                match error {
                    OddCheckedError::Rejected { body, .. } => {
                        assert_eq!(body.error.as_deref(), Some("refused"));
                    }
                    other => panic!("expected Rejected, got {other:?}"),
                }
            }
            other => panic!("expected a business rejection, got {other:?}"),
        }
    });
    server.join().unwrap();
}
