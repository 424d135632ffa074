//! What real FastAPI applications need of their clients (issue 19), on the wire: copied
//! into the crate generated from `tests/specs/fastapi_mini.yaml` by `tests/compile.rs`.
//! Each call goes to a loopback server that records the request head and answers what a
//! FastAPI server answered.
use std::io::{Read, Write};
use std::sync::mpsc;

use gen_fastapi_mini::Client;

/// Answers one connection per `(status line, JSON body)`, in order, and sends each
/// request's head (request line and headers) back through the channel.
fn serve(
    answers: Vec<(&'static str, &'static str)>,
) -> (String, mpsc::Receiver<String>, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (heads, received) = mpsc::channel();
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
            heads.send(String::from_utf8_lossy(&head).into_owned()).unwrap();
            let answer = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            s.write_all(answer.as_bytes()).unwrap();
        }
    });
    (base, received, handle)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Parameters whose schema has no `type` (`{title: Dag Id}`, as Pydantic writes a `str`)
/// are strings: the operation exists and sends them as text.
#[test]
fn untyped_parameters_are_sent_as_strings() {
    let (base, heads, server) = serve(vec![("200 OK", r#"{"dag_run_id":"r1"}"#)]);
    let client = Client::new(base).unwrap();
    runtime().block_on(async {
        let run = client
            .trigger("etl daily", Some("by hand"), Some("nightly"))
            .await
            .unwrap();
        assert_eq!(run["dag_run_id"], "r1");
    });
    let head = heads.recv().unwrap();
    assert!(
        head.starts_with("POST /dags/etl%20daily/dagRuns?note=by+hand HTTP/1.1\r\n"),
        "{head}"
    );
    assert!(head.contains("\r\nx-run-label: nightly\r\n"), "{head}");
    server.join().unwrap();
}

/// A path parameter the template does not contain is no argument: the call sends the
/// template's own.
#[test]
fn a_stray_path_parameter_is_not_an_argument() {
    let (base, heads, server) = serve(vec![("200 OK", r#"{"name":"a/b"}"#)]);
    let client = Client::new(base).unwrap();
    runtime().block_on(async {
        let tag = client.get_tag("a/b").await.unwrap();
        assert_eq!(tag.name, "a/b");
    });
    let head = heads.recv().unwrap();
    assert!(head.starts_with("GET /tags/a%2Fb HTTP/1.1\r\n"), "{head}");
    server.join().unwrap();
}
