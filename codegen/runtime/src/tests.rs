//! Unit tests of the runtime, run where it is written (`cargo test -p codegen-runtime`);
//! the generated crates' own tests and the corpus compile test see it in use.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;

use crate::encode::{
    dot_segment, encode_path_segment, label_style, matrix_style, object_pairs, object_style,
    push_deep_list, push_joined_query, push_object_query, refuse_dot_segments,
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
fn a_dot_segment_names_the_parameters_that_made_it() {
    let segments: &[(usize, &[&str])] = &[(2, &["org"]), (4, &["a", "b"])];
    assert!(refuse_dot_segments("/orgs/x/projects/y", segments).is_ok());
    let refused = refuse_dot_segments("/orgs/x/projects/..", segments).unwrap_err();
    assert_eq!(refused.fields, ["a", "b"]);
    assert!(matches!(refused.constraint, crate::Constraint::DotSegment));
    assert_eq!(
        refuse_dot_segments("/orgs/../projects/y", segments)
            .unwrap_err()
            .fields,
        ["org"]
    );
    // A literal `..` of the template is not a parameter's doing.
    assert!(refuse_dot_segments("/../x", segments).is_ok());
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
    push_deep_list(
        &mut url,
        "e x",
        ["a[0]".to_owned(), "b".to_owned()].into_iter(),
    );
    assert_eq!(
        url,
        "/p?f[a]=x%20y&f[b]=2&l=1|a%20b&e%20x[]=a%5B0%5D&e%20x[]=b"
    );
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
    let documented =
        answer(400, "{}").documented(crate::error::json::<serde_json::Value>, |_| (), None);
    assert!(policy.delay(&documented, true, 1, Duration::ZERO).is_none());
}

#[test]
fn display_shows_a_short_excerpt_and_debug_no_body() {
    let error = answer(418, "short and\n\tstout").unexpected::<()>();
    assert_eq!(
        error.to_string(),
        "undocumented status 418 I'm a teapot: short and stout"
    );
    assert!(!format!("{error:?}").contains("short"));
    assert_eq!(error.excerpt(5).as_deref(), Some("short…"));
    let long = "x".repeat(500);
    let error = answer(500, &long).unexpected::<()>();
    let shown = error.to_string();
    assert!(
        shown.ends_with(&format!(": {}…", "x".repeat(300))),
        "{shown}"
    );
    let error = answer(502, "").unexpected::<()>();
    assert_eq!(error.to_string(), "undocumented status 502 Bad Gateway");
    assert_eq!(error.redacted_excerpt(10), None);
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

/// What `Display` shows of a body masks what reads as a credential, in JSON and in
/// text, and keeps the server's own order and words otherwise.
#[test]
fn the_excerpt_display_shows_masks_credentials() {
    let shown = |status: u16, body: &str| answer(status, body).unexpected::<()>().to_string();
    // JSON: the value under a credential's name, whatever its depth or case; the
    // server's text and order kept.
    let body = r#"{"z_msg": "bad grant", "Access-Token": "tok-1", "nested": {"client_secret": "cs-2", "user": "ann"}}"#;
    let text = shown(400, body);
    assert!(
        text.ends_with(r#"{"z_msg": "bad grant", "Access-Token": "<redacted>", "nested": {"client_secret": "<redacted>", "user": "ann"}}"#),
        "{text}"
    );
    // An object under a credential's name loses every scalar in it.
    let text = shown(
        400,
        r#"{"credentials": {"user": "u-3", "pin": 1234}, "ok": true}"#,
    );
    assert!(!text.contains("u-3") && !text.contains("1234"), "{text}");
    assert!(text.contains(r#""ok":true"#), "written out again: {text}");
    // FastAPI's 422 echoes the input of the field it refuses.
    let body = r#"{"detail": [{"loc": ["body", "password"], "msg": "String should have at most 8 characters", "input": "hunter2-long"}, {"loc": ["body", "name"], "msg": "Field required", "input": "kept"}]}"#;
    let text = shown(422, body);
    assert!(!text.contains("hunter2"), "{text}");
    assert!(
        text.contains("String should have at most 8 characters"),
        "{text}"
    );
    assert!(text.contains(r#""input": "kept""#), "{text}");
    // A long secret is masked inside the messages that quote it too.
    let text = shown(
        400,
        r#"{"error_description": "code x-12345 was used", "httpAuth": "x-12345"}"#,
    );
    assert!(!text.contains("x-12345"), "{text}");
    assert!(text.contains("code <redacted> was used"), "{text}");
    // The same secret twice (FastAPI's `input` and the request body it echoes): the
    // server's text is kept.
    let body = r#"{"detail": [{"loc": ["body", "password"], "input": "pw-1234"}], "body": {"password": "pw-1234"}}"#;
    assert!(
        shown(422, body).ends_with(r#"{"detail": [{"loc": ["body", "password"], "input": "<redacted>"}], "body": {"password": "<redacted>"}}"#),
        "{}",
        shown(422, body)
    );
    // Shapes: a JWT and an Authorization value, under any name.
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl";
    let text = shown(
        401,
        &format!(r#"{{"seen": "Bearer abc.def", "raw": "{jwt}"}}"#),
    );
    assert!(!text.contains("abc.def") && !text.contains(jwt), "{text}");
    // The same secret escaped two ways: written out again, never shown.
    let text = shown(400, r#"{"token": "ab", "echo": "\u0061b"}"#);
    assert!(!text.contains("ab\""), "{text}");
    // Text: the word after a credential's name, after Bearer, and a JWT.
    let text = shown(
        403,
        &format!("denied: api_key=k-9; Authorization: Bearer t-8 seen {jwt}\npassword 'p-7'"),
    );
    for secret in ["k-9", "t-8", jwt, "p-7"] {
        assert!(!text.contains(secret), "{secret}: {text}");
    }
    assert!(
        text.starts_with("undocumented status 403 Forbidden: denied: api_key=<redacted>"),
        "{text}"
    );
    // Words after a credential's name in a sentence are kept.
    let text = shown(401, "token expired, password too short");
    assert!(
        text.ends_with(": token expired, password too short"),
        "{text}"
    );
    // The spec's own secret fields (`x-secret`): `httpAuth` stands for them here.
    let text = shown(400, r#"{"httpAuth": "h-6"}"#);
    assert!(!text.contains("h-6"), "{text}");
    // A large JSON body is read only so far, and masked as text.
    let large = format!(
        r#"{{"access_token": "at-123", "pad": "{}"}}"#,
        "x".repeat(70_000)
    );
    let text = shown(500, &large);
    assert!(
        text.contains(r#""access_token": "<redacted>""#),
        "{}",
        &text[..80]
    );
    // A body cut short is text: its secret is still masked.
    let text = shown(200, r#"{"items": [], "access_token": "abc123"#);
    assert!(!text.contains("abc123"), "{text}");
}

/// The refresh grant of a spec, faked: every refresh body it is sent is recorded, and
/// it answers with the next of the answers queued. Only
/// `a_refreshing_source_renews_once_and_keeps_the_rotated_refresh_token` uses it.
struct FakeGrant;

/// What [`FakeGrant`] was sent, and what it answers next.
static FAKE_GRANT: std::sync::Mutex<(Vec<serde_json::Value>, Vec<serde_json::Value>)> =
    std::sync::Mutex::new((Vec::new(), Vec::new()));

impl crate::RefreshGrant for FakeGrant {
    const NAME: &'static str = "FakeRefresh";
    const GRANT: &'static [(&'static str, &'static str)] = &[("grant_type", "refresh_token")];
    const REFRESH_TOKEN: &'static str = "refresh_token";
    const ACCESS_TOKEN: &'static str = "access_token";
    const EXPIRES_IN: Option<&'static str> = Some("expires_in");

    fn call(
        _client: &crate::Client,
        body: serde_json::Value,
    ) -> crate::TokenFuture<'_, Result<serde_json::Value, crate::TokenError>> {
        Box::pin(async move {
            // Slow enough that a second caller arrives while the refresh runs.
            tokio::time::sleep(Duration::from_millis(20)).await;
            let mut fake = FAKE_GRANT.lock().unwrap();
            fake.0.push(body);
            if fake.1.is_empty() {
                return Err(crate::TokenError::new("no answer queued"));
            }
            Ok(fake.1.remove(0))
        })
    }
}

/// The generic refresher with a fake grant: the body it sends, when it renews (at
/// first use, not while the token is fresh, after the server refuses the token it
/// holds, once for two waiting callers, on demand, and at the next use once the
/// lifetime is spent), the rotated refresh token, and what it says when an answer has
/// no token.
#[test]
fn a_refreshing_source_renews_once_and_keeps_the_rotated_refresh_token() {
    use crate::TokenSource;
    use serde_json::json;
    let queue = |answers: Vec<serde_json::Value>| {
        let mut fake = FAKE_GRANT.lock().unwrap();
        fake.0.clear();
        fake.1 = answers;
    };
    let sent = || std::mem::take(&mut FAKE_GRANT.lock().unwrap().0);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = crate::Client::new("http://127.0.0.1:9").unwrap();
    let source = crate::RefreshingTokenSource::<FakeGrant>::new(&client, "r-1")
        .with_field("client_id", "c")
        // The spec's grant wins over a caller's field of the same name.
        .with_field("grant_type", "password");
    rt.block_on(async {
        queue(vec![
            json!({"access_token": "a-1", "refresh_token": "r-2", "expires_in": 3600}),
            json!({"access_token": "a-2", "expires_in": "3600"}),
            json!({"access_token": "a-3", "expires_in": 3600}),
        ]);
        // First use: one refresh, with the grant, the caller's field and the token.
        assert_eq!(source.token().await.unwrap().as_deref(), Some("a-1"));
        assert_eq!(
            sent(),
            [json!({"grant_type": "refresh_token", "client_id": "c", "refresh_token": "r-1"})]
        );
        // Fresh: no refresh; told about another token: kept.
        assert_eq!(source.token().await.unwrap().as_deref(), Some("a-1"));
        source.invalidate("some-other-token").await;
        assert_eq!(source.token().await.unwrap().as_deref(), Some("a-1"));
        assert!(sent().is_empty());
        // Refused: renewed with the rotated refresh token, once for two waiting callers.
        source.invalidate("a-1").await;
        let (first, second) = tokio::join!(source.token(), source.token());
        assert_eq!(first.unwrap().as_deref(), Some("a-2"));
        assert_eq!(second.unwrap().as_deref(), Some("a-2"));
        let bodies = sent();
        assert_eq!(bodies.len(), 1, "{bodies:?}");
        assert_eq!(bodies[0]["refresh_token"], "r-2");
        // `refresh()` renews whatever the lifetime.
        assert_eq!(source.refresh().await.unwrap(), "a-3");
        assert_eq!(sent().len(), 1);
    });
    let source = source.with_margin(Duration::from_secs(3600));
    rt.block_on(async {
        queue(vec![
            json!({"access_token": "a-5", "expires_in": 0}),
            json!({"token_type": "bearer"}),
        ]);
        assert_eq!(source.refresh().await.unwrap(), "a-5");
        // Expired on arrival: the next use renews again, and this answer has no token.
        let err = source.token().await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "no bearer token: the token operation's answer has no `access_token`"
        );
        assert_eq!(sent().len(), 2);
    });
    let shown = format!("{source:?}");
    assert!(shown.starts_with("FakeRefresh {"), "{shown}");
    for secret in ["r-1", "r-2", "a-5"] {
        assert!(!shown.contains(secret), "{shown}");
    }
}

/// A documented error status whose body does not fit its schema is still that error,
/// with its status and body: the operation's `Unreadable` variant names where and why.
#[test]
fn a_documented_error_in_another_shape_is_still_that_error() {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Problem {
        message: Option<String>,
    }
    #[derive(Debug, PartialEq)]
    enum OpError {
        BadRequest(Problem),
        Unreadable {
            status: StatusCode,
            path: String,
            reason: String,
        },
    }
    let unreadable: fn(StatusCode, String, String) -> OpError =
        |status, path, reason| OpError::Unreadable {
            status,
            path,
            reason,
        };
    let body = r#"{"message": {"text": "bad"}}"#;
    let err =
        answer(400, body).documented(crate::error::json, OpError::BadRequest, Some(unreadable));
    let Error::Response { status, error, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*status, StatusCode::BAD_REQUEST);
    assert_eq!(
        *error,
        OpError::Unreadable {
            status: StatusCode::BAD_REQUEST,
            path: "message".to_owned(),
            reason: "a value of the wrong type or shape at line 1 column 12".to_owned(),
        }
    );
    assert_eq!(err.body(), Some(body.as_bytes()));
    assert!(err.to_string().ends_with(body), "{err}");
    // In the documented shape: the decoded variant.
    let err = answer(400, r#"{"message": "bad"}"#).documented(
        crate::error::json,
        OpError::BadRequest,
        Some(unreadable),
    );
    assert!(matches!(
        err.documented(),
        Some(OpError::BadRequest(Problem { message: Some(m) })) if m == "bad"
    ));
}
