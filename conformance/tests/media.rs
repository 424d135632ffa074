//! Bodies and parameters besides JSON and the query string, on a spec nobody here wrote
//! the values for: a form, a multipart upload and a text body are made from their schemas
//! and sent in the media type each operation declares, and a required cookie goes in the
//! `Cookie` header. The stub answers 201 only to a request it can read as declared, so a
//! body sent in the wrong shape would show as a 400 in the record.

use std::process::Command;

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::Value;

const SPEC: &str = r##"
openapi: 3.1.0
info: {title: media, version: "1"}
paths:
  /form:
    post:
      operationId: submit_form
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              required: [name, count]
              properties:
                name: {type: string, minLength: 1, maxLength: 12, pattern: "^[a-z]+$"}
                count: {type: integer, minimum: 1, maximum: 9}
      responses:
        "201": {description: stored}
        "400": {description: unreadable}
  /upload:
    post:
      operationId: upload
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema:
              type: object
              required: [file, label]
              properties:
                file: {type: string, format: binary}
                label: {type: string, enum: [draft, final]}
      responses:
        "201": {description: stored}
        "400": {description: unreadable}
  /note:
    post:
      operationId: post_note
      parameters:
        - {name: session, in: cookie, required: true, schema: {type: string, pattern: "^[a-z0-9]{4,8}$"}}
      requestBody:
        required: true
        content:
          text/plain:
            schema: {type: string, minLength: 1, maxLength: 40}
      responses:
        "201": {description: stored}
        "400": {description: unreadable}
"##;

fn form(headers: &HeaderMap, body: &str) -> Response {
    let form = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c == "application/x-www-form-urlencoded");
    let fields: Vec<(String, String)> = form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect();
    let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let ok =
        form && get("name").is_some_and(|n| {
            (1..=12).contains(&n.len()) && n.bytes().all(|b| b.is_ascii_lowercase())
        }) && get("count")
            .and_then(|c| c.parse::<u8>().ok())
            .is_some_and(|c| (1..=9).contains(&c));
    status(ok)
}

fn upload(headers: &HeaderMap, body: &str) -> Response {
    let Some(boundary) = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .and_then(|c| c.strip_prefix("multipart/form-data; boundary="))
    else {
        return status(false);
    };
    let named = |n: &str| format!("Content-Disposition: form-data; name=\"{n}\"\r\n\r\n");
    let label = body
        .split(&named("label"))
        .nth(1)
        .and_then(|rest| rest.split("\r\n").next());
    let ok = body.ends_with(&format!("--{boundary}--\r\n"))
        && body.contains(&named("file"))
        && matches!(label, Some("draft" | "final"));
    status(ok)
}

fn note(headers: &HeaderMap, body: &str) -> Response {
    let text = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("text/plain"));
    let session = headers
        .get("cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|c| c.split("; ").find_map(|kv| kv.strip_prefix("session=")))
        .is_some_and(|s| (4..=8).contains(&s.len()));
    status(text && session && !body.is_empty() && body.chars().count() <= 40)
}

fn status(ok: bool) -> Response {
    if ok {
        StatusCode::CREATED.into_response()
    } else {
        StatusCode::BAD_REQUEST.into_response()
    }
}

async fn serve() -> String {
    let app = Router::new()
        .route(
            "/form",
            post(|h: HeaderMap, b: String| async move { form(&h, &b) }),
        )
        .route(
            "/upload",
            post(|h: HeaderMap, b: String| async move { upload(&h, &b) }),
        )
        .route(
            "/note",
            post(|h: HeaderMap, b: String| async move { note(&h, &b) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn form_multipart_text_and_cookie_go_as_their_spec_declares() {
    let base = serve().await;
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("media.yaml");
    std::fs::write(&spec, SPEC).unwrap();
    let record = dir.path().join("record.json");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_conformance"));
    cmd.arg("--spec")
        .arg(&spec)
        .args([
            "--base-url",
            &base,
            "--timeout",
            "5",
            "--allow-writes",
            // The stub's 201 answers name no record: each is listed NOT REMOVED, which
            // leaves the run incomplete; what is judged here is how the requests went.
            "--allow-incomplete",
            "--quiet",
        ])
        .arg("--record")
        .arg(&record);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let exchanges: Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let exchanges = exchanges.as_array().unwrap();
    for case in [
        "submit_form/positive",
        "upload/positive",
        "post_note/positive",
    ] {
        let x = exchanges
            .iter()
            .find(|x| x["case"] == case)
            .unwrap_or_else(|| panic!("{case} was not sent:\n{stdout}"));
        assert_eq!(x["status"], 201, "{case}: {x:#}");
    }
    // The generated examples go the same way.
    let examples: Vec<&Value> = exchanges
        .iter()
        .filter(|x| x["case"].as_str().is_some_and(|c| c.contains("/example/")))
        .collect();
    assert!(!examples.is_empty(), "{stdout}");
    for x in examples {
        assert_eq!(x["status"], 201, "{x:#}");
    }
    // Replayed, the record's requests go as they went: the cookie too (without it the
    // stub answers 400, and the replay would report the difference).
    let report = dir.path().join("replay.json");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_conformance"));
    cmd.arg("--spec")
        .arg(&spec)
        .args(["--base-url", &base, "--timeout", "5", "--quiet"])
        .arg("--replay")
        .arg(&record)
        .arg("--json")
        .arg(&report);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    for case in [
        "submit_form/positive",
        "upload/positive",
        "post_note/positive",
    ] {
        let replayed: Vec<&Value> = report["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["case"] == case)
            .collect();
        assert!(
            !replayed.is_empty() && replayed.iter().all(|r| r["verdict"] == "passed"),
            "{case}: {replayed:#?}\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
