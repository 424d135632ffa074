//! Fields that are nullable and optional, copied into the crate generated from
//! `tests/specs/explicit_null.yaml` by `tests/compile.rs`: absent, `null` and a value
//! each decode to their own state and encode back to the same JSON, and a request can
//! send an explicit `null` to clear a value.

use std::io::{Read, Write};

use gen_explicit_null::Client;
use gen_explicit_null::models::{Owner, ThingPatch};

#[test]
fn absent_null_and_a_value_are_three_states_that_round_trip() {
    for (value, note) in [
        (serde_json::json!({"name": null}), None),
        (serde_json::json!({"name": "a", "note": null}), Some(None)),
        (
            serde_json::json!({"name": "a", "note": "hi"}),
            Some(Some("hi".to_owned())),
        ),
    ] {
        let thing: ThingPatch = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(thing.note, note, "{value}");
        assert_eq!(serde_json::to_value(&thing).unwrap(), value);
    }
    let thing: ThingPatch =
        serde_json::from_value(serde_json::json!({"name": "a", "owner": null, "count": 3}))
            .unwrap();
    assert_eq!(thing.owner, Some(None));
    assert_eq!(thing.count, Some(Some(3)));
    let thing: ThingPatch =
        serde_json::from_value(serde_json::json!({"name": "a", "owner": {"id": 1}})).unwrap();
    assert_eq!(thing.owner, Some(Some(Owner::new(1))));
    // Required and nullable, or optional and not nullable: one `Option` as before.
    let name: &Option<String> = &thing.name;
    let title: &Option<String> = &thing.title;
    assert_eq!((name.as_deref(), title.as_deref()), (Some("a"), None));
}

#[test]
fn setters_send_a_value_or_an_explicit_null() {
    let thing = ThingPatch::default().with_name("a")
        .with_note_null()
        .with_count(3)
        .with_owner_null()
        .with_flag(true)
        .with_flag_null(false);
    assert_eq!(
        serde_json::to_value(&thing).unwrap(),
        serde_json::json!({
            "name": "a", "note": null, "count": 3, "owner": null, "flag": true, "flag_null": false
        })
    );
    // Unset, nothing is sent.
    assert_eq!(
        serde_json::to_value(ThingPatch::default()).unwrap(),
        serde_json::json!({"name": null})
    );
}

/// The checks apply to a value, not to `null`.
#[test]
fn checks_apply_to_values_only() {
    assert!(ThingPatch::default().with_count(11).validate().is_err());
    assert!(ThingPatch::default().with_note("toolong").validate().is_err());
    assert!(ThingPatch::default().with_count_null().with_note_null().validate().is_ok());
}

/// On the wire: the `null` a PATCH sends to clear a field arrives as `null`.
#[test]
fn a_patch_sends_the_explicit_null() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut request = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let len = s.read(&mut buf).unwrap();
            request.extend_from_slice(&buf[..len]);
            let text = String::from_utf8_lossy(&request);
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length: "))
                    .unwrap()
                    .parse()
                    .unwrap();
                if body.len() >= length {
                    let answer = r#"{"name":"a","note":null}"#;
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                        answer.len()
                    );
                    s.write_all(reply.as_bytes()).unwrap();
                    return body.to_owned();
                }
            }
        }
    });
    let client = Client::new(base).unwrap();
    let stored = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(client.patch_thing("t1", &ThingPatch::default().with_name("a").with_note_null()))
        .unwrap();
    assert_eq!(stored.note, Some(None));
    let sent: serde_json::Value = serde_json::from_str(&server.join().unwrap()).unwrap();
    assert_eq!(sent, serde_json::json!({"name": "a", "note": null}));
}
