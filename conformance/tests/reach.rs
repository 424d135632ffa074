//! A target that is not there, one that goes away mid-run, and a run without credentials
//! on a spec that requires them: each is said once, with the exit code the process
//! returns, instead of a cascade of failures blamed on the target. In-process stubs on
//! 127.0.0.1:0 (axum, or a raw socket where the stub must stop listening), and the real
//! binary where the process's exit code and its stderr are the point.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use conformance::outcome::Verdict;
use conformance::{Args, execute};
use tokio::io::AsyncWriteExt;

/// Three reads and nothing secured.
const OPEN: &str = r#"
openapi: 3.1.0
info: {title: Open service, version: "1"}
paths:
  /a:
    get:
      operationId: read_a
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array}}}}
  /b:
    get:
      operationId: read_b
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array}}}}
  /c:
    get:
      operationId: read_c
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array}}}}
"#;

/// A service whose reads require a bearer token or an API key, beside one public read.
const SECURED: &str = r#"
openapi: 3.1.0
info: {title: Secured service, version: "1"}
security: [{bearer: []}, {key: []}]
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    key: {type: apiKey, in: header, name: X-Key}
paths:
  /health:
    get:
      operationId: health
      security: []
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array}}}}
  /items:
    get:
      operationId: list_items
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array}}}}
        "401": {description: no credentials}
  /orders:
    get:
      operationId: list_orders
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array}}}}
        "401": {description: no credentials}
"#;

/// Arguments of a quiet run of `spec` against `base`, with no contract files and no
/// credentials.
fn args(dir: &std::path::Path, spec: &str, base: &str) -> Args {
    let file = dir.join("spec.yaml");
    std::fs::write(&file, spec).unwrap();
    let contracts = dir.join("no-contracts");
    std::fs::create_dir_all(&contracts).unwrap();
    let mut a = common::embedded_args();
    a.spec = Some(file);
    a.contracts = Some(contracts);
    a.base_url = Some(base.to_string());
    a
}

/// A loopback port where nothing listens.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Every request the stub saw: method, path, and whether it carried `Authorization`.
type Log = Arc<Mutex<Vec<(String, String, bool)>>>;

/// A stub answering `200 []` to every request with a valid bearer token or none needed,
/// `401` to a secured path without one; it logs every request.
async fn secured_stub() -> (String, Log) {
    let log: Log = Arc::default();
    let seen = log.clone();
    let app = Router::new().fallback(move |method: Method, uri: Uri, headers: HeaderMap| {
        let seen = seen.clone();
        async move {
            let auth = headers.get("authorization").and_then(|v| v.to_str().ok());
            seen.lock()
                .unwrap()
                .push((method.to_string(), uri.path().to_string(), auth.is_some()));
            let open = uri.path().ends_with("/health") || uri.path() == "/api/";
            if open || auth == Some("Bearer good") {
                (StatusCode::OK, [("content-type", "application/json")], "[]").into_response()
            } else {
                Response::builder()
                    .status(StatusCode::UNAUTHORIZED)
                    .body(axum::body::Body::empty())
                    .unwrap()
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.ok();
    });
    (format!("http://{addr}/api"), log)
}

#[test]
fn a_port_where_nothing_listens_is_exit_2_in_one_line_within_2_s() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.yaml");
    std::fs::write(&spec, OPEN).unwrap();
    let port = closed_port();
    let url = format!("http://qa:hunter2@127.0.0.1:{port}/api");
    let started = Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"))
        .env_remove("CONFORMANCE_TOKEN")
        .env_remove("CONFORMANCE_BASE_URL")
        .args(["--spec", spec.to_str().unwrap(), "--base-url", &url])
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("127.0.0.1:{port}/api")),
        "{stderr}"
    );
    assert!(
        !stderr.contains("hunter2"),
        "the URL's password is shown: {stderr}"
    );
    assert!(stderr.contains("connection refused"), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing was run");
}

/// A raw HTTP server that answers `200 []` to its first `answers` requests, one per
/// connection, then stops listening: a target that goes away mid-run.
async fn dying_stub(answers: usize) -> (String, Arc<Mutex<usize>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let served = Arc::new(Mutex::new(0));
    let count = served.clone();
    tokio::spawn(async move {
        for _ in 0..answers {
            let Ok((mut s, _)) = listener.accept().await else {
                return;
            };
            if common::read_request(&mut s).await.is_none() {
                continue;
            }
            *count.lock().unwrap() += 1;
            let _ = s
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n[]")
                .await;
        }
        // The listener is dropped here: every later connection is refused.
    });
    (format!("http://{addr}/api"), served)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_goes_away_stops_the_run_incomplete_without_a_cascade() {
    // The pre-flight probe and two cases are answered; then nothing listens.
    let (base, served) = dying_stub(3).await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(dir.path(), OPEN, &base);
    a.workers = 1;
    a.max_examples = 20;
    let json = dir.path().join("report.json");
    let junit = dir.path().join("report.xml");
    let record = dir.path().join("record.json");
    a.json = Some(json.clone());
    a.junit = Some(junit.clone());
    a.record = Some(record.clone());
    let out = execute(&a, Default::default())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(*served.lock().unwrap(), 3);
    assert_eq!(out.exit_code, 3, "{}", out.summary);
    assert!(
        out.summary.contains("TARGET UNREACHABLE") && out.summary.contains("(exit 3)"),
        "{}",
        out.summary
    );
    assert!(
        out.summary.contains("the last request sent was"),
        "{}",
        out.summary
    );
    let passed = out
        .results
        .iter()
        .filter(|r| r.verdict == Verdict::Passed)
        .count();
    assert!(passed > 0, "the results before the loss are kept");
    assert!(
        out.results.iter().all(|r| !r.is_failure(false)),
        "nothing is blamed on the target:\n{}",
        out.summary
    );
    let about_connection = out
        .results
        .iter()
        .filter(|r| r.message.contains("connection"))
        .count();
    assert!(
        (1..=2).contains(&about_connection),
        "{about_connection} results mention the connection:\n{}",
        out.summary
    );
    // The reports say so too, and the record holds the probes.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["state"], "unreachable");
    assert_eq!(report["exit_code"], 3);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("target unreachable"), "{xml}");
    let recorded: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let cases: Vec<&str> = recorded.iter().filter_map(|e| e["case"].as_str()).collect();
    assert_eq!(cases[0], "preflight/reachable", "{cases:?}");
    assert!(cases.contains(&"preflight/still-reachable"), "{cases:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_credentials_on_a_secured_spec_is_exit_2_naming_the_schemes_with_nothing_sent() {
    let (base, log) = secured_stub().await;
    let dir = tempfile::tempdir().unwrap();
    let err = execute(&args(dir.path(), SECURED, &base), Default::default())
        .await
        .err()
        .expect("no credentials on a secured spec is a configuration error");
    let text = err.to_string();
    assert!(text.contains("no credentials"), "{text}");
    assert!(text.contains("2 of the 3 selected"), "{text}");
    assert!(text.contains("bearer (http bearer)"), "{text}");
    assert!(text.contains("key (apiKey in header X-Key)"), "{text}");
    assert!(
        text.contains("--anonymous") && text.contains("--token"),
        "{text}"
    );
    assert!(log.lock().unwrap().is_empty(), "{:?}", log.lock().unwrap());

    // An API key in a header the spec names is a credential: the run goes on.
    let mut a = args(dir.path(), SECURED, &base);
    a.headers = vec![("x-key".into(), "k".into())];
    a.allow_incomplete = true;
    let ran = execute(&a, Default::default()).await;
    assert!(ran.is_ok(), "{:?}", ran.err().map(|e| e.to_string()));
    // A header that is no credential is not taken for one.
    let mut a = args(dir.path(), SECURED, &base);
    a.headers = vec![("x-tenant".into(), "t".into())];
    assert!(execute(&a, Default::default()).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anonymous_tests_what_needs_none_and_still_sends_ignored_auth() {
    let (base, log) = secured_stub().await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(dir.path(), SECURED, &base);
    a.anonymous = true;
    let out = execute(&a, Default::default())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.exit_code, 0, "{}", out.summary);
    for op in ["list_items", "list_orders"] {
        let na: Vec<_> = out
            .results
            .iter()
            .filter(|r| r.operation == op && r.verdict == Verdict::NotApplicable)
            .collect();
        assert_eq!(na.len(), 1, "once per operation: {na:?}");
        assert!(na[0].message.contains("requires credentials"), "{na:?}");
        assert!(!na[0].missing_input);
        let refused = out.results.iter().any(|r| {
            r.operation == op && r.check.as_str() == "ignored_auth" && r.verdict == Verdict::Passed
        });
        assert!(refused, "ignored_auth still runs on {op}:\n{}", out.summary);
    }
    assert!(
        out.results
            .iter()
            .any(|r| r.operation == "health" && r.verdict == Verdict::Passed),
        "{}",
        out.summary
    );
    assert!(!out.summary.contains("INCOMPLETE"), "{}", out.summary);
    // The secured paths were reached only by ignored_auth's requests.
    let log = log.lock().unwrap();
    assert!(log.iter().any(|(_, p, _)| p.ends_with("/items")), "{log:?}");
}

/// A read whose answer breaks its schema (a failure) beside one whose path parameter has
/// no value (a MUST check that cannot run): the run is failing and incomplete at once.
const FAILING_AND_INCOMPLETE: &str = r#"
openapi: 3.1.0
info: {title: Half service, version: "1"}
paths:
  /a:
    get:
      operationId: read_a
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: object}}}}
  /a/{id}:
    get:
      operationId: read_one
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      # A made-up id would do; a body in this media type the harness cannot make.
      requestBody: {required: true, content: {image/png: {schema: {type: string, format: binary}}}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: object}}}}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_exit_code_a_note_names_is_the_one_the_process_returns() {
    let (base, _log) = secured_stub().await;
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.yaml");
    std::fs::write(&spec, FAILING_AND_INCOMPLETE).unwrap();
    let contracts = dir.path().join("no-contracts");
    std::fs::create_dir_all(&contracts).unwrap();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_conformance"))
            .env_remove("CONFORMANCE_TOKEN")
            .env_remove("CONFORMANCE_BASE_URL")
            .args(["--quiet", "--base-url", &base, "--spec"])
            .arg(&spec)
            .arg("--contracts")
            .arg(&contracts)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("INCOMPLETE"), "{stdout}");
    let named: Vec<&str> = stdout
        .match_indices("(exit ")
        .map(|(i, _)| &stdout[i..i + 7])
        .collect();
    assert!(!named.is_empty(), "{stdout}");
    assert!(named.iter().all(|n| *n == "(exit 1"), "{named:?}\n{stdout}");
}
