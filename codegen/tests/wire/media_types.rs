//! Added to the crate generated from `tests/specs/media_types.yaml`: what each body
//! encoding puts on the wire and how each kind of answer comes back, over a loopback
//! socket.

use std::io::{BufRead, BufReader, Read, Write};

/// One request as received: the head (request line and headers, lower-cased names) and
/// the body.
struct Seen {
    line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Serves one connection per answer, in order, and returns what each request was.
fn serve(
    answers: Vec<(u16, &'static str, Vec<u8>)>,
) -> (String, std::thread::JoinHandle<Vec<Seen>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        answers
            .into_iter()
            .map(|(status, content_type, body)| {
                let (stream, _) = listener.accept().unwrap();
                let mut reader = BufReader::new(stream);
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let mut headers = Vec::new();
                loop {
                    let mut h = String::new();
                    reader.read_line(&mut h).unwrap();
                    let h = h.trim_end();
                    if h.is_empty() {
                        break;
                    }
                    let (n, v) = h.split_once(':').unwrap();
                    headers.push((n.to_ascii_lowercase(), v.trim().to_owned()));
                }
                let length: usize = headers
                    .iter()
                    .find(|(n, _)| n == "content-length")
                    .map_or(0, |(_, v)| v.parse().unwrap());
                let mut seen_body = vec![0; length];
                reader.read_exact(&mut seen_body).unwrap();
                let mut stream = reader.into_inner();
                let mut head = format!("HTTP/1.1 {status} X\r\nconnection: close\r\ncontent-length: {}\r\n", body.len());
                if !content_type.is_empty() {
                    head.push_str(&format!("content-type: {content_type}\r\n"));
                }
                head.push_str("\r\n");
                stream.write_all(head.as_bytes()).unwrap();
                stream.write_all(&body).unwrap();
                Seen {
                    line: line.trim_end().to_owned(),
                    headers,
                    body: seen_body,
                }
            })
            .collect()
    });
    (base, handle)
}

#[test]
fn each_encoding_sends_its_content_type_and_bytes() {
    let note = br#"{"text":"hi"}"#.to_vec();
    let (base, server) = serve(vec![
        (201, "application/json", note.clone()),
        (201, "application/json", note.clone()),
        (201, "application/json", note.clone()),
        (201, "application/json", note.clone()),
        (204, "", Vec::new()),
        (202, "", Vec::new()),
    ]);
    let client = gen_media_types::Client::new(base).unwrap();
    let body = gen_media_types::models::Note::new("a&b").with_tags(vec![String::from("x")]);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        assert_eq!(client.put_note(&body).await.unwrap().text, "hi");
        client.put_note_merge_patch_json(&body).await.unwrap();
        client.put_note_text("plain text").await.unwrap();
        client.put_note_markdown(String::from("# title")).await.unwrap();
        client.upload_blob("a b", vec![0xff_u8, 0, 0xfe]).await.unwrap();
        let accepted = client.send_anything(None).await.unwrap();
        assert_eq!(accepted.status(), reqwest::StatusCode::ACCEPTED);
        assert_eq!(accepted.into_inner(), gen_media_types::client::SendAnythingResponse::Accepted);
    });
    let seen = server.join().unwrap();
    assert_eq!(seen[0].header("content-type"), Some("application/json"));
    assert_eq!(seen[0].body, br#"{"text":"a&b","tags":["x"]}"#);
    assert_eq!(seen[1].header("content-type"), Some("application/merge-patch+json"));
    assert_eq!(seen[1].body, br#"{"text":"a&b","tags":["x"]}"#);
    assert_eq!(seen[2].header("content-type"), Some("text/plain"));
    assert_eq!(seen[2].body, b"plain text");
    assert_eq!(seen[3].header("content-type"), Some("text/markdown"));
    assert_eq!(seen[3].body, b"# title");
    assert_eq!(seen[4].line, "PUT /blobs/a%20b HTTP/1.1");
    assert_eq!(seen[4].header("content-type"), Some("application/octet-stream"));
    assert_eq!(seen[4].body, [0xff, 0, 0xfe]);
    assert_eq!(seen[5].line, "POST /anything HTTP/1.1");
    assert_eq!(seen[5].header("content-type"), None);
    assert!(seen[5].body.is_empty());
}

#[test]
fn answers_come_back_as_json_text_exact_bytes_or_a_stream() {
    // Not UTF-8: a lossy conversion would change these bytes.
    let blob = vec![0xff_u8, 0xfe, 0x00, 0x80];
    let (base, server) = serve(vec![
        (200, "application/octet-stream", blob.clone()),
        (404, "text/plain", b"no such blob".to_vec()),
        (200, "text/plain; charset=utf-8", "caf\u{e9}".as_bytes().to_vec()),
        (200, "application/octet-stream", blob.clone()),
        (200, "application/json", br#"{"text":"any"}"#.to_vec()),
        (200, "application/octet-stream", vec![7; 64]),
    ]);
    let mut client = gen_media_types::Client::new(base).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        assert_eq!(client.download_blob("b").await.unwrap().into_inner(), blob);
        match client.download_blob("b").await {
            Err(gen_media_types::Error::Response {
                status,
                error: gen_media_types::client::DownloadBlobError::NotFound(text),
                ..
            }) => assert_eq!((status.as_u16(), text.as_str()), (404, "no such blob")),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            client.read_log(Some("a b;c"), Some(&[1, 2])).await.unwrap().into_inner(),
            "caf\u{e9}"
        );
        let mut response = client.download_blob_stream("b").await.unwrap();
        let mut streamed = Vec::new();
        while let Some(chunk) = response.chunk().await.unwrap() {
            streamed.extend_from_slice(&chunk);
        }
        assert_eq!(streamed, blob);
        match client.send_anything(Some(reqwest::Body::from("x"))).await.unwrap().into_inner() {
            gen_media_types::client::SendAnythingResponse::Ok(note) => assert_eq!(note.text, "any"),
            other => panic!("{other:?}"),
        }
        client.set_max_response_bytes(63);
        assert!(matches!(
            client.download_blob("b").await,
            Err(gen_media_types::Error::BodyTooLarge { status: reqwest::StatusCode::OK, limit: 63, .. })
        ));
    });
    let seen = server.join().unwrap();
    assert_eq!(seen[2].header("cookie"), Some("session=a%20b%3Bc; ids=1,2"));
    // `Accept` lists every media type the operation's answers may have.
    assert_eq!(seen[0].header("accept"), Some("application/octet-stream, text/plain"));
    assert_eq!(seen[0].header("cookie"), None);
}

#[test]
fn a_text_answer_that_is_not_utf8_is_a_decode_error_not_a_lossy_string() {
    let (base, server) = serve(vec![
        (200, "text/plain", b"ok\xff!".to_vec()),
        (404, "text/plain", b"gone\xc3".to_vec()),
    ]);
    let client = gen_media_types::Client::new(base).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        match client.read_log(None, None).await {
            Err(gen_media_types::Error::Decode { status, source, body, .. }) => {
                assert_eq!(status, 200);
                assert!(source.to_string().contains("offset 2"), "{source}");
                assert_eq!(body, b"ok\xff!", "the error keeps the exact bytes");
            }
            other => panic!("{other:?}"),
        }
        // A documented error answer's text goes through the same decoder; one that is
        // not UTF-8 is still that documented error, `Unreadable`, with the bytes kept.
        match client.download_blob("b").await {
            Err(gen_media_types::Error::Response {
                status,
                error: gen_media_types::client::DownloadBlobError::Unreadable { status: s, path, reason },
                body,
                ..
            }) => {
                assert_eq!((status.as_u16(), s.as_u16()), (404, 404));
                assert_eq!(path, ".");
                assert_eq!(reason, "the text body is not UTF-8 (first bad byte at offset 4)");
                assert_eq!(body, b"gone\xc3");
            }
            other => panic!("{other:?}"),
        }
    });
    server.join().unwrap();
}

#[test]
fn a_multipart_body_whose_parts_the_spec_does_not_name_sends_the_callers_form() {
    let (base, server) = serve(vec![(204, "", Vec::new())]);
    let client = gen_media_types::Client::new(base).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let form = reqwest::multipart::Form::new().text("title", "My recipe");
        client.only_multipart(Some(form)).await.unwrap();
    });
    let seen = server.join().unwrap();
    assert_eq!(seen[0].line, "POST /forms HTTP/1.1");
    let content_type = seen[0].header("content-type").unwrap();
    assert!(content_type.starts_with("multipart/form-data; boundary="), "{content_type}");
    let body = String::from_utf8_lossy(&seen[0].body);
    assert!(
        body.contains("name=\"title\"") && body.contains("My recipe"),
        "{body}"
    );
}
