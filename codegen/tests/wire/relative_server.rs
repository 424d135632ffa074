//! A relative `servers` URL on the wire, copied into the crate generated from
//! `tests/specs/relative_server.yaml` by `tests/compile.rs`: `/api` is joined to the base
//! URL given, once, whether or not the base already ends with it.
use std::io::{Read, Write};
use std::sync::mpsc;

use gen_relative_server::Client;

/// Answers `count` connections with one flow and sends back each request line.
fn serve(count: usize) -> (String, mpsc::Receiver<String>, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (lines, received) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        for _ in 0..count {
            let (mut s, _) = listener.accept().unwrap();
            let mut head = Vec::new();
            let mut buf = [0u8; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                let len = s.read(&mut buf).unwrap();
                assert!(len > 0, "connection closed before the end of the head");
                head.extend_from_slice(&buf[..len]);
            }
            let head = String::from_utf8_lossy(&head).into_owned();
            lines.send(head.lines().next().unwrap().to_owned()).unwrap();
            let body = r#"{"id":"f1"}"#;
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            s.write_all(answer.as_bytes()).unwrap();
        }
    });
    (base, received, handle)
}

#[test]
fn the_server_path_is_joined_to_the_base_url_once() {
    let (base, lines, server) = serve(4);
    let bases = [
        base.clone(),
        format!("{base}/"),
        format!("{base}/api"),
        format!("{base}/api/"),
    ];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for given in &bases {
        let client = Client::new(given.as_str()).unwrap();
        assert_eq!(client.base_url(), format!("{base}/api"), "{given}");
        let flow = runtime.block_on(client.read_flow("f1")).unwrap();
        assert_eq!(flow.id, "f1");
        assert_eq!(lines.recv().unwrap(), "GET /api/flows/f1 HTTP/1.1", "{given}");
    }
    server.join().unwrap();
}

/// A proxy's prefix stays before the server's path.
#[test]
fn a_prefix_of_the_base_url_is_kept() {
    let client = Client::new("http://gateway/prefect").unwrap();
    assert_eq!(client.base_url(), "http://gateway/prefect/api");
    assert_eq!(Client::SERVER_PATH, "/api");
}
