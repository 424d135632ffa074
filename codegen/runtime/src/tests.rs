//! Unit tests of the runtime, run where it is written (`cargo test -p codegen-runtime`);
//! the generated crates' own tests and the corpus compile test see it in use.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;

use crate::encode::{
    dot_segment, encode_path_segment, label_style, matrix_style, object_pairs, object_style,
    push_joined_query, push_object_query,
};
use crate::error::{Answer, Error, RetryPolicy};
use crate::penalty::{PenaltyShape, with_ticket};

fn answer(status: u16, body: &str) -> Answer {
    Answer {
        status: StatusCode::from_u16(status).unwrap(),
        headers: HeaderMap::new(),
        body: body.as_bytes().to_vec(),
    }
}

#[test]
fn path_segments_keep_only_unreserved_characters() {
    assert_eq!(encode_path_segment("a-b.c_d~e"), "a-b.c_d~e");
    assert_eq!(encode_path_segment("a/b?c#d e"), "a%2Fb%3Fc%23d%20e");
    assert_eq!(encode_path_segment("é%"), "%C3%A9%25");
}

#[test]
fn dot_segments_are_found() {
    assert_eq!(dot_segment("/a/./b"), Some(2));
    assert_eq!(dot_segment("/a/../b"), Some(2));
    assert_eq!(dot_segment("/a/.b/c"), None);
}

#[test]
fn label_and_matrix_styles_follow_rfc_6570() {
    let items = ["a".to_owned(), "b".to_owned()];
    assert_eq!(label_style(&items, false), ".a,b");
    assert_eq!(label_style(&items, true), ".a.b");
    assert_eq!(label_style(&[], true), "");
    assert_eq!(matrix_style("x", &items, false), ";x=a,b");
    assert_eq!(matrix_style("x", &items, true), ";x=a;x=b");
    assert_eq!(matrix_style("x", &[String::new()], false), ";x");
}

#[test]
fn objects_expand_to_pairs() {
    let value = serde_json::json!({"a": "x y", "b": [1, 2], "c": null, "d": {"e": true}});
    assert_eq!(
        object_pairs(&value),
        [
            ("a".to_owned(), "x y".to_owned()),
            ("b".to_owned(), "1".to_owned()),
            ("b".to_owned(), "2".to_owned()),
            ("d".to_owned(), "{\"e\":true}".to_owned()),
        ]
    );
    let flat = serde_json::json!({"a": "x y", "b": 2});
    assert_eq!(object_style("", "o", &flat, false, true), "a,x%20y,b,2");
    assert_eq!(object_style(".", "o", &flat, true, true), ".a=x%20y.b=2");
    assert_eq!(object_style(";", "o", &flat, false, false), ";o=a,x y,b,2");
    let mut url = "/p".to_owned();
    push_object_query(&mut url, Some("f"), &flat);
    push_joined_query(
        &mut url,
        "l",
        ["1".to_owned(), "a b".to_owned()].into_iter(),
        "|",
    );
    assert_eq!(url, "/p?f[a]=x%20y&f[b]=2&l=1|a%20b");
}

#[test]
fn a_penalty_answer_is_an_error_and_its_ticket_goes_back() {
    let shape = PenaltyShape {
        ticket: "p-ticket",
        wait: "p-time",
        captcha: Some("p-captcha"),
        resend: "p-ticket",
    };
    let penalty = answer(200, r#"{"p-ticket":"t 1","p-time":2}"#).unless_penalty::<()>(&shape);
    let Err(error @ Error::Penalty { .. }) = penalty else {
        panic!("not a penalty");
    };
    assert_eq!(error.retry_after(), Some(Duration::from_secs(2)));
    assert!(error.is_retryable());
    let captcha = answer(200, r#"{"p-captcha":true}"#).unless_penalty::<()>(&shape);
    assert!(matches!(captcha, Err(Error::LoginRequired { .. })));
    assert!(
        answer(200, r#"{"id":1}"#)
            .unless_penalty::<()>(&shape)
            .is_ok()
    );

    let client = reqwest::Client::new();
    let mut form = client
        .post("http://localhost/")
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .body("a=1")
        .build()
        .unwrap();
    assert!(with_ticket(&mut form, "p-ticket", "t 1&"));
    let sent = form.body().and_then(reqwest::Body::as_bytes).unwrap();
    assert_eq!(sent, b"a=1&p-ticket=t%201%26");
    let mut json = client
        .post("http://localhost/")
        .body("{\"a\":1}")
        .build()
        .unwrap();
    assert!(with_ticket(&mut json, "p-ticket", "t"));
    let sent = json.body().and_then(reqwest::Body::as_bytes).unwrap();
    assert_eq!(sent, br#"{"a":1,"p-ticket":"t"}"#);
}

#[test]
fn retries_follow_the_method_and_the_status() {
    let policy = RetryPolicy::default();
    let busy = answer(503, "").unexpected::<()>();
    assert!(policy.delay(&busy, true, 1, Duration::ZERO).is_some());
    assert!(policy.delay(&busy, false, 1, Duration::ZERO).is_none());
    assert!(policy.delay(&busy, true, 4, Duration::ZERO).is_none());
    let limited = answer(429, "").unexpected::<()>();
    assert!(policy.delay(&limited, false, 1, Duration::ZERO).is_some());
    let documented = answer(400, "{}").documented(crate::error::json::<serde_json::Value>, |_| ());
    assert!(policy.delay(&documented, true, 1, Duration::ZERO).is_none());
}

#[test]
fn errors_show_no_body_and_excerpts_are_cut() {
    let error = answer(418, "secret body").unexpected::<()>();
    assert_eq!(
        error.to_string(),
        "undocumented status 418 I'm a teapot (11 bytes of body)"
    );
    assert!(!format!("{error:?}").contains("secret"));
    assert_eq!(error.excerpt(6).as_deref(), Some("secret…"));
    let undecodable = answer(200, "not json").success::<serde_json::Value, ()>(crate::error::json);
    let error = undecodable.unwrap_err();
    assert!(error.to_string().contains("not JSON at line 1"), "{error}");
}

#[test]
fn only_takes_any_success_and_text_must_be_utf8() {
    let created = answer(201, "hi")
        .only::<String, ()>(crate::error::text)
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    assert_eq!(created.into_inner(), "hi");
    let error = Answer {
        body: vec![b'a', 0xFF],
        ..answer(200, "")
    }
    .only::<String, ()>(crate::error::text)
    .unwrap_err();
    let source = std::error::Error::source(&error).unwrap().to_string();
    assert!(source.contains("offset 1"), "{source}");
}

/// `Error::Decode` names the field that does not fit, keeps the body, and says where
/// without quoting it.
#[test]
fn a_decode_error_names_the_path_of_the_field() {
    #[derive(Debug, serde::Deserialize)]
    struct Item {
        #[allow(dead_code)]
        id: String,
    }
    #[derive(Debug, serde::Deserialize)]
    struct Page {
        #[allow(dead_code)]
        items: Vec<Item>,
    }
    let body = r#"{"items": [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": 7}]}"#;
    let err: Error<()> = match answer(200, body).success(crate::error::json::<Page>) {
        Err(err) => err,
        Ok(page) => panic!("decoded {:?}", page.body()),
    };
    let Error::Decode { path, source, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(path, "items[3].id");
    assert!(source.is_data(), "{source}");
    assert_eq!(err.body(), Some(body.as_bytes()));
    let shown = err.to_string();
    assert!(shown.contains("status 200 OK"), "{shown}");
    assert!(shown.contains("at `items[3].id`"), "{shown}");
    assert!(
        shown.contains(&format!("{} bytes of body", body.len())),
        "{shown}"
    );
    assert!(format!("{err:?}").contains("items[3].id"));
    // Text that stops being JSON inside a key's value: the key is body text, never shown.
    let err: Error<()> = answer(200, r#"{"items": [], "secret-token": "#)
        .success(crate::error::json::<Page>)
        .unwrap_err();
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains("secret"), "{shown}");
    assert!(
        matches!(&err, Error::Decode { path, .. } if path == "."),
        "{err:?}"
    );
    // Not JSON at all: the root.
    let err: Error<()> = answer(200, "<html>")
        .success(crate::error::json::<Page>)
        .unwrap_err();
    assert!(
        matches!(&err, Error::Decode { path, .. } if path == "."),
        "{err:?}"
    );
    // Cut short: the root, with the line and column where the text ends.
    let err: Error<()> = answer(200, "{\"items\": [")
        .success(crate::error::json::<Page>)
        .unwrap_err();
    assert!(
        matches!(&err, Error::Decode { path, source, .. } if path == "." && source.column() == 11),
        "{err:?}"
    );
    // Trailing text after the value is refused, as `serde_json::from_slice` does.
    let err: Error<()> = answer(200, "{\"items\": []} x")
        .success(crate::error::json::<Page>)
        .unwrap_err();
    assert!(matches!(&err, Error::Decode { .. }), "{err:?}");
}

/// The tolerant readers: what loses nothing is read, anything else fails as strict
/// decoding would.
#[test]
fn lenient_scalars_read_only_what_loses_nothing() {
    #[derive(Debug, serde::Deserialize)]
    struct T {
        #[serde(deserialize_with = "crate::error::lenient")]
        s: String,
        #[serde(default, deserialize_with = "crate::error::lenient_option")]
        i: Option<i32>,
        #[serde(default, deserialize_with = "crate::error::lenient_option")]
        x: Option<f64>,
        #[serde(default = "ten", deserialize_with = "read_n")]
        n: i64,
        #[serde(default = "ten", deserialize_with = "read_m")]
        m: i64,
    }
    fn ten() -> i64 {
        10
    }
    fn read_n<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        crate::error::lenient_or(d, ten)
    }
    fn read_m<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        crate::error::null_or(d, ten)
    }
    let t: T =
        serde_json::from_str(r#"{"s": 42, "i": "-7", "x": "2.5", "n": null, "m": null}"#).unwrap();
    assert_eq!(
        (t.s.as_str(), t.i, t.x, t.n, t.m),
        ("42", Some(-7), Some(2.5), 10, 10)
    );
    let t: T = serde_json::from_str(r#"{"s": 1e3, "i": null, "n": "3"}"#).unwrap();
    assert_eq!((t.s.as_str(), t.i, t.x, t.n), ("1000.0", None, None, 3));
    for bad in [
        r#"{"s": null}"#,
        r#"{"s": true}"#,
        r#"{"s": "a", "i": "3000000000"}"#,
        r#"{"s": "a", "i": " 3"}"#,
        r#"{"s": "a", "x": "1e999"}"#,
        r#"{"s": "a", "m": "3"}"#,
    ] {
        assert!(serde_json::from_str::<T>(bad).is_err(), "{bad}");
    }
}
