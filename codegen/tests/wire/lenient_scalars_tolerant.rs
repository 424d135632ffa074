//! Tolerant decoding: copied into the crate generated from
//! `tests/specs/lenient_scalars.yaml` with `--tolerant` (`Options::tolerant`) by
//! `tests/compile.rs`. The server sends what real servers get wrong: integer ids where
//! the spec declares strings (alone and in lists), numbers as text, `null` in defaulted
//! fields.
use std::io::{Read, Write};

use gen_lenient_scalars_tolerant::models::Thing;
use gen_lenient_scalars_tolerant::{Client, Error};

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

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn thing(json: &str) -> Result<Thing, serde_json::Error> {
    serde_json::from_str(json)
}

/// The answer the strict crate refuses (`tests/wire/lenient_scalars.rs`) decodes: the
/// integer id is its decimal text.
#[test]
fn integer_ids_where_strings_are_declared_decode() {
    let (base, server) = serve(
        r#"{"items":[{"id":"a1","name":"first"},{"id":"a2","name":"second"},{"id":7,"name":"third","parent_id":12}]}"#,
    );
    let client = Client::new(base).unwrap();
    let page = runtime().block_on(client.list_things()).unwrap();
    let ids: Vec<&str> = page.items.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["a1", "a2", "7"]);
    assert_eq!(page.items[2].parent_id.as_deref(), Some("12"));
    server.join().unwrap();
}

#[test]
fn each_mismatch_that_loses_nothing_is_read() {
    let t = thing(
        r#"{"id":1.5,"name":"n","count":"12","ratio":"0.25","limit":null,"label":null}"#,
    )
    .unwrap();
    assert_eq!(t.id, "1.5");
    assert_eq!(t.count, Some(12));
    assert_eq!(t.ratio, Some(0.25));
    // `null` in a defaulted field is the default, as an absent one is.
    assert_eq!(t.limit, 10);
    assert_eq!(t.label, "none");
    // `null` in an optional field is `None`; absent ones too.
    let t = thing(r#"{"id":"x","name":"n","count":null,"ratio":null}"#).unwrap();
    assert_eq!((t.count, t.ratio, t.parent_id), (None, None, None));
    assert_eq!(t.limit, 10);
    // A number is still a number, a string still a string.
    let t = thing(r#"{"id":"x","name":"n","count":3,"ratio":2,"limit":"5"}"#).unwrap();
    assert_eq!((t.count, t.ratio, t.limit), (Some(3), Some(2.0), 5));
    // Encoding writes the declared types.
    let back = serde_json::to_value(&t).unwrap();
    assert_eq!(back["limit"], 5);
    assert_eq!(back["count"], 3);
}

/// A list of scalars reads each item as a field of its type would; `null` for the
/// whole optional list is `None`.
#[test]
fn lists_of_scalars_read_each_item() {
    let t = thing(r#"{"id":"x","name":"n","tag_ids":[7,"8",1.5],"scores":["3",4]}"#).unwrap();
    assert_eq!(t.tag_ids.as_deref(), Some(&["7".to_owned(), "8".to_owned(), "1.5".to_owned()][..]));
    assert_eq!(t.scores.as_deref(), Some(&[3, 4][..]));
    let t = thing(r#"{"id":"x","name":"n","tag_ids":null}"#).unwrap();
    assert_eq!((t.tag_ids, t.scores), (None, None));
    let back = serde_json::to_value(thing(r#"{"id":"x","name":"n","scores":["3"]}"#).unwrap()).unwrap();
    assert_eq!(back["scores"], serde_json::json!([3]));
}

/// What would lose data, or guess, still fails, naming the field.
#[test]
fn mismatches_that_would_lose_data_still_fail() {
    for (json, field) in [
        (r#"{"id":"x","name":"n","count":"012"}"#, "count"),
        (r#"{"id":"x","name":"n","count":"1.0"}"#, "count"),
        (r#"{"id":"x","name":"n","count":"+3"}"#, "count"),
        (r#"{"id":"x","name":"n","count":1.5}"#, "count"),
        (r#"{"id":"x","name":"n","count":"twelve"}"#, "count"),
        (r#"{"id":"x","name":"n","ratio":"NaN"}"#, "ratio"),
        (r#"{"id":"x","name":"n","ratio":"inf"}"#, "ratio"),
        (r#"{"id":true,"name":"n"}"#, "id"),
        (r#"{"id":{"v":1},"name":"n"}"#, "id"),
        (r#"{"id":null,"name":"n"}"#, "id"),
        (r#"{"id":"x","name":"n","done":"true"}"#, "done"),
        (r#"{"id":"x","name":"n","scores":["012"]}"#, "scores[0]"),
        (r#"{"id":"x","name":"n","scores":[1, 2.5]}"#, "scores[1]"),
        (r#"{"id":"x","name":"n","tag_ids":[null]}"#, "tag_ids[0]"),
        (r#"{"id":"x","name":"n","tag_ids":"a"}"#, "tag_ids"),
    ] {
        let err = thing(json).expect_err(json);
        let mut de = serde_json::Deserializer::from_str(json);
        let tracked = serde_path_to_error::deserialize::<_, Thing>(&mut de).expect_err(json);
        assert_eq!(tracked.path().to_string(), field, "{json}: {err}");
    }
    // A missing required field is still missing (the path is the object holding it).
    let err = thing(r#"{"name":"n"}"#).unwrap_err();
    assert!(err.to_string().starts_with("missing field `id`"), "{err}");
}

/// Through the client, a value that cannot be read tolerantly is still `Error::Decode`
/// naming its path.
#[test]
fn a_field_that_cannot_be_read_is_still_named() {
    let (base, server) = serve(r#"{"items":[{"id":"a","name":"n"},{"id":[1],"name":"m"}]}"#);
    let client = Client::new(base).unwrap();
    let err = runtime().block_on(client.list_things()).unwrap_err();
    assert!(matches!(&err, Error::Decode { path, .. } if path == "items[1].id"), "{err:?}");
    server.join().unwrap();
}
