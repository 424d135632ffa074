//! Verdicts on a spec nobody here wrote: OpenAPI 3.1 with no `x-` extension, against an
//! in-process axum stub on a loopback port the OS picks. A 500 fails the run; a 422 to a
//! malformed request passes where the operation declares 400 and 422; one undeclared 404
//! on several operations reads as one finding; a zip answer is bytes, not broken JSON;
//! and every registered check either judged something or is listed once as not
//! applicable, with the reason.

use std::path::Path;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use conformance::TABLE;
use conformance::outcome::{CheckResult, Verdict};
use conformance::spec::Level;
use conformance::{Args, execute};
use serde_json::{Value, json};

/// Four kinds of operation: one that fails with a 500, one taking a JSON body that
/// declares both 400 and 422, three the stub answers 404 (undeclared), and a zip export.
const SPEC: &str = r#"{
  "openapi": "3.1.0",
  "info": {"title": "Someone else's API", "version": "0.1"},
  "paths": {
    "/boom": {"get": {"operationId": "getBoom",
      "responses": {"200": {"description": "ok",
        "content": {"application/json": {"schema": {"type": "object"}}}}}}},
    "/things": {"post": {"operationId": "createThing",
      "requestBody": {"required": true, "content": {"application/json": {
        "schema": {"type": "object", "required": ["name"],
          "properties": {"name": {"type": "string"}}},
        "example": {"name": "first"}}}},
      "responses": {
        "201": {"description": "made",
          "content": {"application/json": {"schema": {"type": "object", "required": ["name"]}}}},
        "400": {"description": "bad request",
          "content": {"application/json": {"schema": {"type": "object"}}}},
        "415": {"description": "not JSON"},
        "422": {"description": "invalid",
          "content": {"application/json": {"schema": {"type": "object", "required": ["detail"]}}}}}}},
    "/gone/one": {"get": {"operationId": "goneOne",
      "responses": {"200": {"description": "ok"}}}},
    "/gone/two": {"get": {"operationId": "goneTwo",
      "responses": {"200": {"description": "ok"}}}},
    "/gone/three": {"get": {"operationId": "goneThree",
      "responses": {"200": {"description": "ok"}}}},
    "/export": {"get": {"operationId": "exportThings",
      "responses": {"200": {"description": "a zip of every thing",
        "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}}}}}
  }
}"#;

/// A FastAPI-like answer to an input it cannot use.
fn invalid(detail: &str) -> Response {
    (
        StatusCode::UNPROCESSABLE_ENTITY,
        Json(json!({ "detail": detail })),
    )
        .into_response()
}

async fn create_thing(headers: HeaderMap, body: Bytes) -> Response {
    let json_body = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !json_body {
        return StatusCode::UNSUPPORTED_MEDIA_TYPE.into_response();
    }
    let Ok(doc) = serde_json::from_slice::<Value>(&body) else {
        return invalid("the body is not JSON");
    };
    match doc.get("name") {
        Some(Value::String(name)) => {
            (StatusCode::CREATED, Json(json!({ "name": name }))).into_response()
        }
        Some(_) => invalid("name must be a string"),
        None => invalid("name is required"),
    }
}

async fn serve() -> String {
    let app = Router::new()
        .route(
            "/api/boom",
            get(|| async {
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "no such function: concat",
                )
            }),
        )
        .route("/api/things", post(create_thing))
        .route(
            "/api/gone/{which}",
            get(|| async {
                (
                    StatusCode::NOT_FOUND,
                    Json(json!({ "detail": "Not Found" })),
                )
            }),
        )
        .route(
            "/api/export",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "application/zip")],
                    b"PK\x03\x04\x14\x00\x00\x00not json at all".to_vec(),
                )
            }),
        )
        .fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                Json(json!({ "detail": "Not Found" })),
            )
        });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/api")
}

/// `--spec FILE --base-url URL` with no contract files, writes allowed (the stub is the
/// test's own), and a JSON report.
fn args(dir: &Path, base_url: String) -> Args {
    let spec = dir.join("their.json");
    std::fs::write(&spec, SPEC).unwrap();
    let contracts = dir.join("contracts");
    std::fs::create_dir_all(&contracts).unwrap();
    let fixtures = dir.join("fixtures.yaml");
    std::fs::write(&fixtures, "allow_writes: true\n").unwrap();
    let mut a = Args::defaults();
    a.base_url = Some(base_url);
    a.token = None;
    a.spec = Some(spec);
    a.contracts = Some(contracts);
    a.fixtures = Some(fixtures);
    a.json = Some(dir.join("report.json"));
    a.quiet = true;
    a
}

fn of<'a>(results: &'a [CheckResult], case: &str, check: &str) -> Vec<&'a CheckResult> {
    results
        .iter()
        .filter(|r| r.case == case && r.check == check)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_spec_gets_true_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let out = execute(&args(dir.path(), serve().await), Default::default())
        .await
        .expect("the run starts on a spec without x- extensions");
    let results = &out.results;

    // A 500 fails the run, at MUST, though the spec states no x-server-errors.
    assert_eq!(out.exit_code, 1, "{}", out.summary);
    let boom = of(results, "getBoom/positive", "not_a_server_error");
    assert_eq!(boom.len(), 1);
    assert_eq!(
        (boom[0].verdict, boom[0].level),
        (Verdict::Failed, Level::Must)
    );

    // Malformed bodies answered 422 pass where the operation declares 400 and 422.
    let negative: Vec<&CheckResult> = results
        .iter()
        .filter(|r| r.operation == "createThing" && r.check == "negative_data_rejection")
        .collect();
    assert!(
        negative.len() >= 3,
        "missing, mistyped, unparsable: {negative:?}"
    );
    for r in &negative {
        assert_eq!(r.verdict, Verdict::Passed, "{}: {}", r.case, r.message);
        let answered: Vec<Option<u16>> = out
            .exchanges
            .iter()
            .filter(|e| e.case == r.case)
            .map(|e| e.status)
            .collect();
        assert_eq!(answered, [Some(422)], "{}", r.case);
    }
    // …and their undeclared-free 422 passes status_code_conformance too.
    let declared = of(
        results,
        "createThing/missing-field/name",
        "status_code_conformance",
    );
    assert_eq!(declared[0].verdict, Verdict::Passed);

    // One undeclared 404 on three operations: one finding in the terminal, each result
    // kept in the JSON report, with the group on top.
    let undeclared_404: Vec<&CheckResult> = results
        .iter()
        .filter(|r| {
            r.check == "status_code_conformance"
                && r.verdict == Verdict::Failed
                && r.got.as_ref().and_then(|g| g.status) == Some(404)
        })
        .collect();
    assert_eq!(undeclared_404.len(), 3, "{undeclared_404:?}");
    assert_eq!(
        out.summary
            .matches("undeclared 404 on 3 operations")
            .count(),
        1,
        "{}",
        out.summary
    );
    assert!(
        !out.summary.contains("status 404 is not declared"),
        "no block per operation: {}",
        out.summary
    );
    assert!(out.summary.contains("goneOne, goneTwo, goneThree"));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let groups = report["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert_eq!(groups[0]["summary"], "undeclared 404 on 3 operations");
    assert_eq!(
        groups[0]["operations"],
        json!(["goneOne", "goneTwo", "goneThree"])
    );
    let json_404 = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["check"] == "status_code_conformance" && r["got"]["status"] == 404)
        .count();
    assert_eq!(json_404, 3);

    // A zip is bytes: its media type is judged, never "the body is not JSON".
    let zip: Vec<&CheckResult> = results
        .iter()
        .filter(|r| r.operation == "exportThings")
        .collect();
    assert!(
        zip.iter().all(|r| !r.message.contains("not JSON")),
        "{zip:?}"
    );
    assert_eq!(
        of(results, "exportThings/positive", "content_type_conformance")[0].verdict,
        Verdict::Passed
    );

    // Every registered check: run, or listed once as not applicable with the reason.
    for e in TABLE {
        let na = results
            .iter()
            .filter(|r| r.check == e.name && r.verdict == Verdict::NotApplicable)
            .count();
        let ran = results
            .iter()
            .filter(|r| r.check == e.name && r.verdict != Verdict::NotApplicable)
            .count();
        assert!(
            (na == 1 && ran == 0) || (na == 0 && ran > 0),
            "{}: {ran} result(s), {na} not-applicable entries",
            e.name
        );
    }
    for check in [
        "unknown_path",
        "undeclared_method",
        "unsupported_media_type",
    ] {
        assert!(
            results
                .iter()
                .any(|r| r.check == check && r.verdict == Verdict::Passed),
            "{check} runs with its spec-independent default"
        );
    }
    let why = |check: &str| {
        results
            .iter()
            .find(|r| r.check == check && r.verdict == Verdict::NotApplicable)
            .map(|r| r.message.clone())
            .unwrap_or_default()
    };
    assert!(why("payload_too_large").contains("x-max-body"));
    assert!(why("alternate_encodings").contains("x-alternate-encodings"));
    assert!(out.summary.contains("not applicable here"));
}
