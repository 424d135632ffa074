//! The harness against a spec with path, path-level, header and `form`/no-explode query
//! parameters (`tests/params/focused.yaml`), served by a small axum stub on 127.0.0.1:0.
//!
//! The faithful stub passes; each faulty variant (ignores the path segment, the header,
//! or the comma-joined list) fails the run with the rule meant to catch it.

use std::collections::HashMap;
use std::path::PathBuf;

use axum::Json;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use conformance::outcome::Verdict;
use conformance::{Args, execute};
use serde_json::json;

const TOKEN: &str = "stub-token-0123456789";

/// How the stub misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    None,
    /// Answers item 1 whatever the path says.
    IgnoresPath,
    /// Answers tenant `default` whatever the header says.
    IgnoresHeader,
    /// Takes `kinds=red,blue` as one kind.
    NoCommaList,
}

fn error(status: StatusCode, text: &str) -> Response {
    (status, Json(json!({ "errorText": text }))).into_response()
}

fn authorized(headers: &HeaderMap) -> bool {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == format!("Bearer {TOKEN}"))
}

async fn get_item(
    State(fault): State<Fault>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    if !authorized(&headers) {
        return error(StatusCode::UNAUTHORIZED, "denied");
    }
    let Ok(id) = id.parse::<i64>() else {
        return error(StatusCode::BAD_REQUEST, "itemId is not an integer");
    };
    let Some(tenant) = headers.get("x-tenant").and_then(|v| v.to_str().ok()) else {
        return error(StatusCode::BAD_REQUEST, "missing header X-Tenant");
    };
    let id = if fault == Fault::IgnoresPath { 1 } else { id };
    let tenant = if fault == Fault::IgnoresHeader {
        "default"
    } else {
        tenant
    };
    Json(json!({ "id": id, "tenant": tenant })).into_response()
}

async fn list_tags(
    State(fault): State<Fault>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    if !authorized(&headers) {
        return error(StatusCode::UNAUTHORIZED, "denied");
    }
    let Ok(id) = id.parse::<i64>() else {
        return error(StatusCode::BAD_REQUEST, "itemId is not an integer");
    };
    let Some(kinds) = query.get("kinds").filter(|k| !k.is_empty()) else {
        return error(StatusCode::BAD_REQUEST, "missing query parameter kinds");
    };
    let kinds: Vec<&str> = if fault == Fault::NoCommaList {
        vec![kinds.as_str()]
    } else {
        kinds.split(',').collect()
    };
    let tags: Vec<_> = kinds
        .iter()
        .map(|k| json!({ "itemId": id, "kind": k }))
        .collect();
    Json(json!(tags)).into_response()
}

/// Serves the stub and returns its base URL.
async fn serve(fault: Fault) -> String {
    let app = Router::new()
        .route("/v1/items/{itemId}", get(get_item))
        .route("/v1/items/{itemId}/tags", get(list_tags))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such path") })
        .with_state(fault);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/v1")
}

/// A quiet run of the focused spec (no contract files) against `base_url`.
fn args(base_url: String, contracts: &std::path::Path) -> Args {
    let mut a = Args::defaults();
    a.base_url = Some(base_url);
    a.token = Some(TOKEN.into());
    a.spec = Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/params/focused.yaml"));
    a.contracts = Some(contracts.to_path_buf());
    a.quiet = true;
    a
}

async fn run(fault: Fault) -> conformance::Outcome {
    let contracts = tempfile::tempdir().expect("temp dir");
    let base = serve(fault).await;
    execute(&args(base, contracts.path()), Default::default())
        .await
        .expect("run completes")
}

fn failures(out: &conformance::Outcome) -> Vec<String> {
    out.results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(|r| format!("{} {} {}", r.case, r.check, r.message))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faithful_stub_passes() {
    let out = run(Fault::None).await;
    assert_eq!(failures(&out), Vec::<String>::new());
    assert_eq!(out.exit_code, 0);
    let judged: Vec<&str> = out
        .results
        .iter()
        .filter(|r| r.verdict == Verdict::Passed)
        .map(|r| r.check.as_str())
        .collect();
    for check in [
        "field_equals_param",
        "items_field_equals_param",
        "items_field_in_param",
        "negative_data_rejection",
        "ignored_auth",
    ] {
        assert!(judged.contains(&check), "{check} never passed: {judged:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_faulty_stub_fails_with_its_rule() {
    for (fault, check) in [
        (Fault::IgnoresPath, "field_equals_param"),
        (Fault::IgnoresHeader, "field_equals_param"),
        (Fault::NoCommaList, "items_field_in_param"),
    ] {
        let out = run(fault).await;
        assert_eq!(out.exit_code, 1, "{fault:?} passed");
        let failed = failures(&out);
        assert!(
            failed.iter().any(|f| f.contains(check)),
            "{fault:?} not caught by {check}: {failed:#?}"
        );
    }
}
