//! Content negotiation on the wire: copied into the crate generated from
//! `tests/specs/negotiation.yaml` by `tests/compile.rs`. A loopback server answers each
//! request in the media type its `Accept` names, as a negotiating server does, and says
//! back what the request asked for.
use std::io::{Read, Write};
use std::sync::mpsc;

use gen_negotiation::{Client, Error};

/// Serves one connection per `(status, body for each Accept)` entry, in order: the
/// answer is the body listed for the request's exact `Accept` (in that media type),
/// else the first one. Sends back each request's `Accept`.
#[allow(clippy::type_complexity)]
fn serve(
    answers: Vec<(u16, Vec<(&'static str, &'static [u8])>)>,
) -> (String, mpsc::Receiver<String>, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (accepts, received) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        for (status, bodies) in answers {
            let (mut s, _) = listener.accept().unwrap();
            let mut head = Vec::new();
            let mut buf = [0u8; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                let len = s.read(&mut buf).unwrap();
                assert!(len > 0, "connection closed before the end of the head");
                head.extend_from_slice(&buf[..len]);
            }
            let head = String::from_utf8_lossy(&head).into_owned();
            let accept = head
                .lines()
                .find_map(|l| l.strip_prefix("accept: "))
                .unwrap_or("")
                .to_owned();
            let (media, body) = bodies
                .iter()
                .find(|(media, _)| *media == accept)
                .unwrap_or(&bodies[0]);
            accepts.send(accept).unwrap();
            let head = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: {media}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            s.write_all(head.as_bytes()).unwrap();
            s.write_all(body).unwrap();
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

const REPORT: &[u8] = br#"{"title":"q3"}"#;
const PDF: &[u8] = b"%PDF-1.7\n\xe2\xe3\xcf\xd3\n";

/// JSON from the main method, the exact bytes of a PDF from its twin, each asking only
/// for its own media type.
#[test]
fn a_binary_media_type_has_a_bytes_twin() {
    let bodies = vec![("application/json", REPORT), ("application/pdf", PDF)];
    let (base, accepts, server) = serve(vec![(200, bodies.clone()), (200, bodies)]);
    let client = Client::new(base).unwrap();
    runtime().block_on(async {
        assert_eq!(client.get_report().await.unwrap().title, "q3");
        assert_eq!(client.get_report_bytes().await.unwrap().into_inner(), PDF);
    });
    assert_eq!(accepts.recv().unwrap(), "application/json");
    assert_eq!(accepts.recv().unwrap(), "application/pdf");
    server.join().unwrap();
}

/// The values of an `accept` parameter that no response lists are choices all the same:
/// each has a twin that sends it and returns the text.
#[test]
fn accept_values_the_responses_do_not_list_get_twins() {
    let bodies = vec![
        ("application/json", br#"[{"title":"a"}]"#.as_slice()),
        ("text/csv", b"title\na\n".as_slice()),
        ("text/tab-separated-values", b"title\ta\n".as_slice()),
    ];
    let (base, accepts, server) = serve(vec![
        (200, bodies.clone()),
        (200, bodies.clone()),
        (200, bodies),
    ]);
    let client = Client::new(base).unwrap();
    runtime().block_on(async {
        assert_eq!(client.export().await.unwrap()[0].title, "a");
        assert_eq!(&*client.export_csv().await.unwrap(), "title\na\n");
        assert_eq!(
            &*client.export_tab_separated_values().await.unwrap(),
            "title\ta\n"
        );
    });
    for expected in ["application/json", "text/csv", "text/tab-separated-values"] {
        assert_eq!(accepts.recv().unwrap(), expected);
    }
    server.join().unwrap();
}

/// A twin's error answers are the operation's documented errors, decoded as usual; a
/// text answer that is not UTF-8 is `Error::Decode`, never a lossy string.
#[test]
fn a_twin_decodes_documented_errors_and_refuses_lossy_text() {
    let (base, _accepts, server) = serve(vec![
        (404, vec![("application/json", br#"{"detail":"gone"}"#.as_slice())]),
        (200, vec![("text/plain", b"\xff\xfe".as_slice())]),
    ]);
    let client = Client::new(base).unwrap();
    runtime().block_on(async {
        match client.get_source_text().await.unwrap_err() {
            Error::Response { status, error, .. } => {
                assert_eq!(status.as_u16(), 404);
                match error {
                    gen_negotiation::client::GetSourceError::NotFound(problem) => {
                        assert_eq!(problem.detail.as_deref(), Some("gone"));
                    }
                    other => panic!("expected NotFound, got {other:?}"),
                }
            }
            other => panic!("expected the documented 404, got {other:?}"),
        }
        let err = client.get_source_text().await.unwrap_err();
        assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    });
    server.join().unwrap();
}
