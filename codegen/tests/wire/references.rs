//! A request body reached through `#/paths/~1pets/post/requestBody` is sent like the body
//! it names, and a parameter named twice in a path fills both places (encoded). Copied
//! into the crate generated from `tests/specs/references.yaml` by `tests/compile.rs`.
use std::io::{Read, Write};

use gen_references::client::Client;
use gen_references::models::Pet;

/// Answers `n` connections with 204 and returns each request's line and body.
fn serve(n: usize) -> (String, std::thread::JoinHandle<Vec<(String, String)>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        (0..n)
            .map(|_| {
                let (mut s, _) = listener.accept().unwrap();
                let mut raw = Vec::new();
                let mut buf = [0u8; 4096];
                // Read the head, then as many body bytes as `content-length` says.
                loop {
                    let len = s.read(&mut buf).unwrap();
                    assert!(len > 0, "connection closed early");
                    raw.extend_from_slice(&buf[..len]);
                    let text = String::from_utf8_lossy(&raw).into_owned();
                    if let Some((head, body)) = text.split_once("\r\n\r\n") {
                        let length = head
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase()
                                    .strip_prefix("content-length: ")
                                    .map(|v| v.trim().parse::<usize>().unwrap())
                            })
                            .unwrap_or(0);
                        if body.len() >= length {
                            break;
                        }
                    }
                }
                s.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
                    .unwrap();
                let text = String::from_utf8(raw).unwrap();
                let (head, body) = text.split_once("\r\n\r\n").unwrap();
                (head.lines().next().unwrap().to_owned(), body.to_owned())
            })
            .collect()
    });
    (base, handle)
}

#[test]
fn a_body_shared_through_another_path_and_a_repeated_path_parameter() {
    let (base, server) = serve(3);
    let client = Client::new(base).unwrap();
    let pet = Pet::new("Rex");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        client.add_pet(&pet).await.unwrap();
        client.add_shelter_pet("north/1", &pet).await.unwrap();
        client.get_mirror("a b").await.unwrap();
    });
    let seen = server.join().unwrap();
    assert_eq!(seen[0], ("POST /pets HTTP/1.1".to_owned(), r#"{"name":"Rex"}"#.to_owned()));
    assert_eq!(
        seen[1],
        (
            "POST /shelters/north%2F1/pets HTTP/1.1".to_owned(),
            r#"{"name":"Rex"}"#.to_owned()
        )
    );
    assert_eq!(seen[2].0, "GET /mirror/a%20b/of/a%20b HTTP/1.1");
}

/// Schemas reached by a `$ref` into another operation's answer (and into a component
/// response, a component schema's property, a component parameter) are those schemas:
/// the notification's `about` is the announcement's own type, under both names.
#[test]
fn a_schema_named_by_a_ref_into_another_answer_is_that_answer() {
    use gen_references::models::{
        GetAnnouncementKind, GetAnnouncementOkBody, GetNotificationOkBody,
        GetNotificationOkBodyAbout,
    };
    let n: GetNotificationOkBody = serde_json::from_str(
        r#"{"created":"2026-11-29","about":{"time":"09:00","text":"hello"},"pet_name":"Rex"}"#,
    )
    .unwrap();
    let about: GetNotificationOkBodyAbout = n.about;
    let same: GetAnnouncementOkBody = about;
    assert_eq!((same.time.as_str(), same.text.as_str()), ("09:00", "hello"));
    assert_eq!(n.created, "2026-11-29");
    assert_eq!(n.pet_name.as_deref(), Some("Rex"));
    assert_eq!(GetAnnouncementKind::Alert.to_string(), "alert");
}
