//! Date-times without their UTC offset, strict: copied into the crate generated from
//! `tests/specs/date_times.yaml` by `tests/compile.rs`. RFC 3339 date-times decode as
//! before; one without its offset fails naming the field and the value, in the words of
//! the value rather than chrono's "premature end of input".
use std::io::{Read, Write};

use gen_date_times::models::Event;
use gen_date_times::{Client, Error};

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

fn event(json: &str) -> Result<Event, serde_json::Error> {
    serde_json::from_str(json)
}

#[test]
fn rfc3339_date_times_decode_in_every_position() {
    let e = event(
        r#"{"id":"a","changed_on":"2026-11-27T23:19:25.390423+01:00","started_at":null,"ended_at":"2026-11-28T00:00:00Z","seen":["2026-11-27T10:00:00Z"],"reminders":null}"#,
    )
    .unwrap();
    assert_eq!(e.changed_on.to_rfc3339(), "2026-11-27T23:19:25.390423+01:00");
    assert_eq!(e.started_at, None);
    assert_eq!(e.ended_at.unwrap().to_rfc3339(), "2026-11-28T00:00:00+00:00");
    assert_eq!(e.seen.len(), 1);
    assert_eq!(e.reminders, None);
    // Absent optional fields are `None`.
    let e = event(r#"{"id":"a","changed_on":"2026-11-27T23:19:25Z","started_at":"2026-11-27T23:19:25-05:00","seen":[]}"#).unwrap();
    assert_eq!(e.started_at.unwrap().offset().local_minus_utc(), -5 * 3600);
    assert_eq!((e.ended_at, e.reminders.as_ref()), (None, None));
    // Encoding writes RFC 3339 back.
    let back = serde_json::to_value(&e).unwrap();
    assert_eq!(back["changed_on"], "2026-11-27T23:19:25Z");
}

/// The answer of a real server: the field, and the value, named in the error.
#[test]
fn an_offsetless_date_time_fails_naming_field_and_value() {
    let (base, server) = serve(
        r#"{"id":"a","changed_on":"2026-11-27T23:19:25.390423","started_at":null,"seen":[]}"#,
    );
    let client = Client::new(base).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let err = runtime.block_on(client.latest_event()).unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    let shown = err.to_string();
    assert!(
        shown.contains(
            "at `changed_on`: not an RFC 3339 date-time (no UTC offset): `2026-11-27T23:19:25.390423`"
        ),
        "{shown}"
    );
    server.join().unwrap();
}

/// Each position names its own path; a value that is no date-time at all is refused
/// without being quoted (it could be anything).
#[test]
fn every_position_is_checked_and_garbage_is_not_quoted() {
    for (json, path, offsetless) in [
        (r#"{"id":"a","changed_on":"2026-11-27T23:19:25Z","started_at":"2026-11-27 23:19","seen":[]}"#, "started_at", false),
        (r#"{"id":"a","changed_on":"2026-11-27T23:19:25Z","started_at":null,"ended_at":"2026-11-27T23:19:25","seen":[]}"#, "ended_at", true),
        (r#"{"id":"a","changed_on":"2026-11-27T23:19:25Z","started_at":null,"seen":["2026-11-27T23:19:25Z","2026-11-27T23:19:25"]}"#, "seen[1]", true),
        (r#"{"id":"a","changed_on":"2026-11-27T23:19:25Z","started_at":null,"seen":[],"reminders":["tomorrow"]}"#, "reminders[0]", false),
        (r#"{"id":"a","changed_on":"secret-token","started_at":null,"seen":[]}"#, "changed_on", false),
    ] {
        let mut de = serde_json::Deserializer::from_str(json);
        let err = serde_path_to_error::deserialize::<_, Event>(&mut de).expect_err(json);
        assert_eq!(err.path().to_string(), path, "{json}");
        let message = err.inner().to_string();
        assert!(message.starts_with("not an RFC 3339 date-time"), "{json}: {message}");
        assert_eq!(message.contains("(no UTC offset)"), offsetless, "{json}: {message}");
        assert!(!message.contains("secret-token") && !message.contains("tomorrow"), "{message}");
    }
}
