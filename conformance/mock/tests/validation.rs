//! Requests that break their operation: each kind of violation is refused with the
//! operation's declared 400 or 422 (a body from its schema where it declares one),
//! else with RFC 9457 problem details listing each error and where it is. Valid inputs
//! in every style are taken; no input makes a 5xx.

mod common;

use common::{get, json, mock, send};
use serde_json::json;

const UUID: &str = "1b4e28ba-2fa1-11d2-883f-0016d3cca427";

async fn item(app: &axum::Router, uri: &str, request_id: &str, cookie: &str) -> common::Answer {
    send(
        app,
        "GET",
        uri,
        &[("x-request-id", request_id), ("cookie", cookie)],
        "",
    )
    .await
}

#[tokio::test]
async fn parameters_in_every_location_are_decoded_and_taken() {
    let app = mock("validation.yaml").router();
    let a = item(
        &app,
        "/items/5?limit=100&tags=a,b%2Cc,d",
        UUID,
        "other=1; session=abc",
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.text);
    let search = get(
        &app,
        "/search?q=x&filter[size]=3&filter[color]=red&ids=1&ids=2&pipes=1|2",
    )
    .await;
    assert_eq!(search.status, 200, "{}", search.text);
    assert_eq!(get(&app, "/label/.1.2").await.status, 204);
    let huge = get(&app, "/search?q=x&big=10493103835212146985768899837952").await;
    assert_eq!(huge.status, 200, "an integer beyond 64 bits: {}", huge.text);
    let null = item(&app, "/items/5?limit=null", UUID, "session=abc").await;
    assert_eq!(null.status, 200, "a nullable integer's null: {}", null.text);
}

#[tokio::test]
async fn each_broken_parameter_gets_the_declared_400_with_its_own_body() {
    let app = mock("validation.yaml").router();
    for (uri, request_id, cookie) in [
        ("/items/0", UUID, "session=abc"), // path below its minimum
        ("/items/x", UUID, "session=abc"), // path not an integer
        ("/items/5?limit=101", UUID, "session=abc"), // query over its maximum
        ("/items/5?limit=7.0", UUID, "session=abc"), // a number's text, not an integer's
        ("/items/5?limit=", UUID, "session=abc"), // no integer at all
        ("/items/5?limit=1&limit=2", UUID, "session=abc"), // a scalar sent twice
        ("/items/5?tags=a,b,c", UUID, "session=abc"), // `b` is no item: `b,c` is one
        ("/items/5", "not-a-uuid", "session=abc"), // header format
        ("/items/5", UUID, "session=ab"),  // cookie too short
        ("/items/5", UUID, "other=abc"),   // required cookie missing
    ] {
        let a = item(&app, uri, request_id, cookie).await;
        assert_eq!(a.status, 400, "{uri} {request_id} {cookie}: {}", a.text);
        assert_eq!(a.json(), json!({"error": "invalid"}), "the declared body");
    }
    let no_header = send(&app, "GET", "/items/5", &[("cookie", "session=abc")], "").await;
    assert_eq!(no_header.status, 400);
}

#[tokio::test]
async fn a_broken_body_gets_the_declared_422() {
    let app = mock("validation.yaml").router();
    let ok = json(
        &app,
        "POST",
        "/items",
        &json!({"name": "abcde", "count": 1}),
    )
    .await;
    assert_eq!(ok.status, 201, "{}", ok.text);
    for body in [json!({"name": "abcdef"}), json!({"count": 1}), json!([1])] {
        let a = json(&app, "POST", "/items", &body).await;
        assert_eq!(a.status, 422, "{body}");
        assert_eq!(
            a.header("content-type"),
            Some("application/problem+json"),
            "no declared body"
        );
    }
    let truncated = send(
        &app,
        "POST",
        "/items",
        &[("content-type", "application/json")],
        "{\"name\":",
    )
    .await;
    assert_eq!(truncated.status, 422);
    let missing = send(
        &app,
        "POST",
        "/items",
        &[("content-type", "application/json")],
        "",
    )
    .await;
    assert_eq!(missing.status, 422);
}

#[tokio::test]
async fn problem_details_list_each_error_with_its_location() {
    let app = mock("validation.yaml").router();
    let a = get(&app, "/search?ids=one&filter[size]=big").await;
    assert_eq!(a.status, 400);
    assert_eq!(a.header("content-type"), Some("application/problem+json"));
    insta::assert_yaml_snapshot!(a.json());
}

#[tokio::test]
async fn a_form_body_is_read_by_its_schema() {
    let app = mock("validation.yaml").router();
    let form = [("content-type", "application/x-www-form-urlencoded")];
    assert_eq!(
        send(&app, "POST", "/form", &form, "age=30").await.status,
        204
    );
    assert_eq!(
        send(&app, "POST", "/form", &form, "age=-1").await.status,
        400
    );
    assert_eq!(
        send(&app, "POST", "/form", &form, "age=old").await.status,
        400
    );
}

/// A `multipart/form-data` body: each part read as its property declares (a text part
/// as its type, repeated parts as a list, a JSON part parsed, a file as its bytes' text)
/// and the whole judged against the schema.
#[tokio::test]
async fn a_multipart_body_is_read_part_by_part_and_judged() {
    let app = mock("validation.yaml").router();
    let form = [("content-type", "multipart/form-data; boundary=B")];
    let part = |name: &str, value: &str| {
        format!("--B\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
    };
    let file = |value: &str| {
        format!(
            "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.bin\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n{value}\r\n"
        )
    };
    let body = |parts: &[String]| format!("{}--B--\r\n", parts.concat());
    let valid = [
        part("title", "ok"),
        part("count", "2"),
        part("tags", "a"),
        part("tags", "b"),
        part("meta", r#"{"source": "cam"}"#),
        file("bytes"),
    ];
    let a = send(&app, "POST", "/upload", &form, &body(&valid)).await;
    assert_eq!(a.status, 204, "{}", a.text);
    let broken = [
        ("a required text part missing", body(&[file("x")])),
        ("a required file missing", body(&[part("title", "ok")])),
        (
            "maxLength of a text part",
            body(&[part("title", &"x".repeat(11)), file("x")]),
        ),
        (
            "an integer part that is not one",
            body(&[part("title", "ok"), part("count", "two"), file("x")]),
        ),
        (
            "minimum",
            body(&[part("title", "ok"), part("count", "0"), file("x")]),
        ),
        (
            "maxItems of repeated parts",
            body(&[
                part("title", "ok"),
                part("tags", "a"),
                part("tags", "b"),
                part("tags", "c"),
                file("x"),
            ]),
        ),
        (
            "maxLength of a file",
            body(&[part("title", "ok"), file(&"z".repeat(17))]),
        ),
        (
            "required inside a JSON part",
            body(&[part("title", "ok"), part("meta", "{}"), file("x")]),
        ),
        (
            "a JSON part that is not JSON",
            body(&[part("title", "ok"), part("meta", "{source"), file("x")]),
        ),
        ("cut off before the closing boundary", valid[..2].concat()),
    ];
    for (what, body) in broken {
        let a = send(&app, "POST", "/upload", &form, &body).await;
        assert_eq!(a.status, 400, "{what}: {}", a.text);
    }
    let no_boundary = [("content-type", "multipart/form-data")];
    let a = send(&app, "POST", "/upload", &no_boundary, &body(&valid)).await;
    assert_eq!(a.status, 400, "no boundary: {}", a.text);
}

#[tokio::test]
async fn an_undeclared_media_type_is_415_and_a_body_over_the_limit_413() {
    let app = mock("validation.yaml").router();
    let text = [("content-type", "text/plain")];
    let a = send(&app, "POST", "/form", &text, "age=1").await;
    assert_eq!(a.status, 415, "{}", a.text);
    assert_eq!(a.header("content-type"), Some("application/problem+json"));
    // An operation that declares how it refuses input refuses with that.
    assert_eq!(send(&app, "POST", "/items", &text, "x").await.status, 422);
    let small = mock("validation.yaml").body_limit(16).router();
    let form = [("content-type", "application/x-www-form-urlencoded")];
    let big = send(&small, "POST", "/form", &form, "age=1234567890123456789").await;
    assert_eq!(big.status, 413, "{}", big.text);
    assert_eq!(big.header("content-type"), Some("application/problem+json"));
    let items = json(
        &small,
        "POST",
        "/items",
        &json!({"name": "abcde", "count": 123456789}),
    )
    .await;
    assert_eq!(items.status, 422);
}

#[tokio::test]
async fn malformed_input_never_makes_a_server_error() {
    let app = mock("validation.yaml").router();
    for (method, uri, ct, body) in [
        ("GET", "/items/%FF%FE?limit=%ZZ", "", ""),
        ("POST", "/items", "application/json", "\u{0}\u{1}"),
        (
            "POST",
            "/items",
            "application/json; charset=latin1",
            "{\"name\": 1e999}",
        ),
        (
            "POST",
            "/form",
            "application/x-www-form-urlencoded",
            "%%%=&&==",
        ),
        ("GET", "/search?filter[=1&filter]]=2&ids=1.5", "", ""),
        ("GET", "/label/....", "", ""),
        ("POST", "/items", "nonsense", "x"),
    ] {
        let headers: Vec<(&str, &str)> = match ct {
            "" => vec![("cookie", "session"), ("x-request-id", "%%% not a uuid")],
            ct => vec![("content-type", ct)],
        };
        let a = send(&app, method, uri, &headers, body).await;
        assert!(
            (400..500).contains(&a.status),
            "{method} {uri} {body:?}: {} {}",
            a.status,
            a.text
        );
    }
}

/// A text body is the text of its schema's scalar: `49` is the integer a
/// `text/plain` body of `type: integer` holds, as a parameter's text would be.
#[tokio::test]
async fn a_text_body_is_read_as_the_scalar_its_schema_takes() {
    let doc = json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/counts": {"post": {"operationId": "addCount",
            "requestBody": {"required": true, "content": {"text/plain": {"schema":
                {"type": "integer", "minimum": 0}}}},
            "responses": {"204": {"description": "counted"}}}},
          "/notes": {"post": {"operationId": "addNote",
            "requestBody": {"required": true, "content": {"text/plain": {"schema":
                {"type": "string", "maxLength": 3}}}},
            "responses": {"204": {"description": "kept"}}}}}});
    let app = spec_mock::Mock::from_document(doc).unwrap().router();
    let text = [("content-type", "text/plain")];
    assert_eq!(send(&app, "POST", "/counts", &text, "49").await.status, 204);
    for refused in ["-1", "forty-nine"] {
        let a = send(&app, "POST", "/counts", &text, refused).await;
        assert_eq!(a.status, 400, "{refused}: {}", a.text);
    }
    // A string schema keeps the text as it is: digits are a string there.
    assert_eq!(send(&app, "POST", "/notes", &text, "123").await.status, 204);
    assert_eq!(
        send(&app, "POST", "/notes", &text, "1234").await.status,
        400
    );
}

#[tokio::test]
async fn no_bytes_are_the_empty_value_of_a_binary_or_text_type_and_no_body_otherwise() {
    let app = mock("validation.yaml").router();
    let put = |mime: &'static str| {
        let app = app.clone();
        async move {
            let headers: Vec<(&str, &str)> = match mime {
                "" => vec![],
                m => vec![("content-type", m)],
            };
            send(&app, "PUT", "/blob", &headers, "").await.status
        }
    };
    assert_eq!(
        put("application/octet-stream").await,
        204,
        "a zero-length file"
    );
    assert_eq!(
        put("text/plain").await,
        400,
        "an empty text, below its minLength"
    );
    assert_eq!(put("application/json").await, 400, "no JSON value");
    assert_eq!(
        put("").await,
        400,
        "no body at all, though one type is binary"
    );
    let file = send(&app, "PUT", "/file", &[], "").await;
    assert_eq!(file.status, 400, "binary its only type: {}", file.text);
    let file = send(
        &app,
        "PUT",
        "/file",
        &[("content-type", "application/octet-stream")],
        "",
    );
    assert_eq!(file.await.status, 204);
    // Under a declared range, the type sent decides: no bytes of JSON are no body.
    let any = |mime: &'static str| {
        let app = app.clone();
        async move {
            send(&app, "PUT", "/anytype", &[("content-type", mime)], "")
                .await
                .status
        }
    };
    assert_eq!(any("application/json").await, 400);
    assert_eq!(any("application/octet-stream").await, 204);
}
