//! What a `multipart/form-data` body puts on the wire: the server below reads the whole
//! request, splits it at the boundary and checks each part's name, file name, content
//! type and bytes. Copied into the crate generated from `tests/specs/multipart.yaml` by
//! `tests/compile.rs`.
use std::io::{Read, Write};

use gen_multipart::client::{FilePart, PutAvatarForm, UploadForm};
use gen_multipart::models::{Kind, Meta};

/// One part as received.
#[derive(Debug, PartialEq)]
struct Part {
    name: String,
    file_name: Option<String>,
    content_type: Option<String>,
    bytes: Vec<u8>,
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Reads one request: its head (lower-cased) and body (by length or chunked).
fn read_request(s: &mut std::net::TcpStream) -> (String, Vec<u8>) {
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        if let Some(end) = find(&raw, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
            let body = &raw[end + 4..];
            let length = head.lines().find_map(|l| {
                l.strip_prefix("content-length: ").map(|v| v.trim().parse::<usize>().unwrap())
            });
            match length {
                Some(n) if body.len() >= n => return (head, body[..n].to_vec()),
                None if body.ends_with(b"0\r\n\r\n") => return (head, dechunk(body)),
                _ => {}
            }
        }
        let len = s.read(&mut buf).unwrap();
        assert!(len > 0, "connection closed before the end of the request");
        raw.extend_from_slice(&buf[..len]);
    }
}

/// The payload of a chunked body.
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = find(body, b"\r\n").unwrap();
        let size = usize::from_str_radix(std::str::from_utf8(&body[..line_end]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[line_end + 2..line_end + 2 + size]);
        body = &body[line_end + 2 + size + 2..];
    }
}

/// The parts of a multipart body with `boundary`.
fn parts(body: &[u8], boundary: &str) -> Vec<Part> {
    let delimiter = format!("--{boundary}");
    let mut out = Vec::new();
    let mut rest = &body[find(body, delimiter.as_bytes()).unwrap() + delimiter.len()..];
    while !rest.starts_with(b"--") {
        rest = &rest[2..]; // CRLF after the delimiter
        let head_end = find(rest, b"\r\n\r\n").unwrap();
        let head = String::from_utf8(rest[..head_end].to_vec()).unwrap();
        let content = &rest[head_end + 4..];
        let next = find(content, format!("\r\n{delimiter}").as_bytes()).unwrap();
        let mut part = Part {
            name: String::new(),
            file_name: None,
            content_type: None,
            bytes: content[..next].to_vec(),
        };
        for line in head.lines() {
            let (name, value) = line.split_once(": ").unwrap();
            match name.to_ascii_lowercase().as_str() {
                "content-disposition" => {
                    for attr in value.split("; ").skip(1) {
                        let (k, v) = attr.split_once('=').unwrap();
                        let v = v.trim_matches('"').to_owned();
                        match k {
                            "name" => part.name = v,
                            "filename" => part.file_name = Some(v),
                            other => panic!("unexpected attribute {other}"),
                        }
                    }
                }
                "content-type" => part.content_type = Some(value.to_owned()),
                other => panic!("unexpected part header {other}"),
            }
        }
        out.push(part);
        rest = &content[next + 2 + delimiter.len()..];
    }
    out
}

/// Answers `n` requests with 204 and returns each one's parts.
fn serve(n: usize) -> (String, std::thread::JoinHandle<Vec<Vec<Part>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        (0..n)
            .map(|_| {
                let (mut s, _) = listener.accept().unwrap();
                let (head, body) = read_request(&mut s);
                s.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n").unwrap();
                let boundary = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-type: multipart/form-data; boundary="))
                    .expect("a multipart content type with its boundary")
                    .to_owned();
                parts(&body, &boundary)
            })
            .collect()
    });
    (base, handle)
}

fn text(name: &str, value: &str) -> Part {
    Part {
        name: name.to_owned(),
        file_name: None,
        content_type: None,
        bytes: value.as_bytes().to_vec(),
    }
}

#[test]
fn every_kind_of_property_becomes_its_part() {
    let (base, server) = serve(3);
    let client = gen_multipart::Client::new(base).unwrap();
    // Not UTF-8: a file part carries bytes, not text.
    let png = vec![0x89, b'P', b'N', b'G', 0xff, 0x00];
    let form = UploadForm {
        title: "Holiday".to_owned(),
        count: Some(3),
        public: Some(true),
        kind: Some(Kind::Scan),
        tags: vec!["a".to_owned(), "b c".to_owned()],
        file: FilePart::new(png.clone()).file_name("a.png").content_type("image/png"),
        attachments: vec![FilePart::new(*b"x"), FilePart::new(*b"y").file_name("y.txt")],
        meta: Some(Meta { source: Some("cam".to_owned()) }),
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        client.upload(form.clone()).await.unwrap();
        // Optional parts left out send nothing.
        client
            .upload(UploadForm {
                count: None,
                public: None,
                kind: None,
                tags: Vec::new(),
                attachments: Vec::new(),
                meta: None,
                ..form
            })
            .await
            .unwrap();
        client
            .put_avatar_multipart(Some(PutAvatarForm { image: Some(FilePart::new(png.clone())) }))
            .await
            .unwrap();
    });
    let seen = server.join().unwrap();
    let file = Part {
        name: "file".to_owned(),
        file_name: Some("a.png".to_owned()),
        content_type: Some("image/png".to_owned()),
        bytes: png.clone(),
    };
    assert_eq!(
        seen[0],
        [
            text("title", "Holiday"),
            text("count", "3"),
            text("public", "true"),
            text("kind", "scan"),
            text("tags", "a"),
            text("tags", "b c"),
            Part { name: "file".to_owned(), ..file },
            text("attachments", "x"),
            Part { file_name: Some("y.txt".to_owned()), ..text("attachments", "y") },
            Part {
                content_type: Some("application/json".to_owned()),
                ..text("meta", r#"{"source":"cam"}"#)
            },
        ]
    );
    assert_eq!(seen[1].len(), 2, "{:?}", seen[1]);
    assert_eq!(seen[1][0], text("title", "Holiday"));
    assert_eq!(seen[2], [Part { name: "image".to_owned(), bytes: png, ..text("", "") }]);
}

#[test]
fn an_invalid_content_type_is_an_error_before_sending() {
    let client = gen_multipart::Client::new("http://127.0.0.1:9").unwrap();
    let form = UploadForm {
        title: "t".to_owned(),
        count: None,
        public: None,
        kind: None,
        tags: Vec::new(),
        file: FilePart::new(*b"x").content_type("not a mime type"),
        attachments: Vec::new(),
        meta: None,
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let result = rt.block_on(client.upload(form));
    assert!(matches!(result, Err(gen_multipart::Error::Transport(_))), "{result:?}");
}
