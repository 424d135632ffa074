//! `chrono` and `uuid` types for string formats, copied into the crate generated from
//! `tests/specs/string_formats.yaml` by `tests/compile.rs`: values decode into their
//! types and encode back to the text they came as; parameters go on the wire as their
//! formats write them.
use std::io::{Read, Write};

use gen_string_formats::Client;
use gen_string_formats::models::{Run, RunRef};

const ID: &str = "3fa85f64-5717-4562-b3fc-2c963f66afa6";

#[test]
fn formats_decode_into_their_types_and_round_trip() {
    let value = serde_json::json!({
        "id": ID,
        "created": "2026-11-26T05:00:00+02:00",
        "day": "2026-11-26",
        "ended": null,
        "parents": [ID],
        "at": "05:00:00",
        "mail": "a@example.com"
    });
    let run: Run = serde_json::from_value(value.clone()).unwrap();
    let id: uuid::Uuid = run.id;
    assert_eq!(id.to_string(), ID);
    // The offset is kept as sent.
    let created: chrono::DateTime<chrono::FixedOffset> = run.created;
    assert_eq!(created.offset().local_minus_utc(), 2 * 3600);
    assert_eq!(run.day, Some(chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap()));
    assert_eq!(run.ended, Some(None));
    assert_eq!(run.at.as_deref(), Some("05:00:00"));
    assert_eq!(serde_json::to_value(&run).unwrap(), value);
}

/// A value the format does not describe is a decode error naming the field, not a
/// value made up: a date-time without its offset is not RFC 3339 (a server that sends
/// them needs `--string-formats`).
#[test]
fn a_value_outside_the_format_is_refused() {
    for (field, bad) in [
        ("created", "2026-11-26T05:00:00"),
        ("id", "not-a-uuid"),
    ] {
        let mut value = serde_json::json!({"id": ID, "created": "2026-11-26T05:00:00Z"});
        value[field] = serde_json::Value::from(bad);
        assert!(serde_json::from_value::<Run>(value).is_err(), "{field}: {bad}");
    }
}

#[test]
fn parameters_are_written_as_their_formats_say() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut head = Vec::new();
        let mut buf = [0u8; 4096];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let len = s.read(&mut buf).unwrap();
            assert!(len > 0);
            head.extend_from_slice(&buf[..len]);
        }
        let body = format!(r#"{{"id":"{ID}","created":"2026-11-26T03:00:00Z"}}"#);
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        s.write_all(answer.as_bytes()).unwrap();
        String::from_utf8_lossy(&head).lines().next().unwrap().to_owned()
    });
    let client = Client::new(base).unwrap();
    let id: uuid::Uuid = ID.parse().unwrap();
    let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap();
    let run = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(client.read_run(&id, Some("2026-11-26T00:00:00Z"), Some(&day)))
        .unwrap();
    assert_eq!(run.id, id);
    assert_eq!(
        server.join().unwrap(),
        format!("GET /runs/{ID}?since=2026-11-26T00%3A00%3A00Z&day=2026-11-26 HTTP/1.1")
    );
}

/// A union of a plain string and a UUID: a UUID is the `Id` branch though `Name` is
/// listed first, any other text the `Name`; both encode back as they came.
#[test]
fn a_uuid_branch_is_tried_before_a_plain_string() {
    let id: RunRef = serde_json::from_value(serde_json::json!(ID)).unwrap();
    assert_eq!(id, RunRef::Id(ID.parse().unwrap()));
    assert_eq!(serde_json::to_value(&id).unwrap(), serde_json::json!(ID));
    let name: RunRef = serde_json::from_value(serde_json::json!("nightly")).unwrap();
    assert_eq!(name, RunRef::Name("nightly".to_owned()));
}
