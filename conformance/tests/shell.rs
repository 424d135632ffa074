//! Shell manners and a spec from a URL: the harness as a command in a pipeline and on a
//! spec a running application serves. A reader that closes stdout early ends the
//! printing, not the run; `--quiet` stays a bounded number of lines however many cases
//! fail; an answer body that is not text is never shown raw; and `--spec` takes an
//! http(s) URL (fetched with the token, the base URL taken from the spec's `servers`) or
//! `-` for stdin. Each target is an in-process stub on 127.0.0.1:0 or the embedded
//! reference server.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use conformance::{Args, execute};
use serde_json::Value;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_conformance"));
    c.env_remove("CONFORMANCE_TOKEN")
        .env_remove("CONFORMANCE_BASE_URL");
    c
}

/// Serves `app` on a loopback port the OS chooses; gives `http://127.0.0.1:PORT`.
async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.ok();
    });
    format!("http://{addr}")
}

/// Arguments of a run of `spec` (written to `dir`) against `base`, on the spec alone.
fn args_for(dir: &std::path::Path, spec: &str, base: &str) -> Args {
    let file = dir.join("spec.yaml");
    std::fs::write(&file, spec).unwrap();
    let contracts = dir.join("no-contracts");
    std::fs::create_dir_all(&contracts).unwrap();
    let mut a = common::embedded_args();
    a.spec = Some(file);
    a.contracts = Some(contracts);
    a.base_url = Some(base.to_string());
    a.allow_incomplete = true;
    a
}

fn json_file(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

// ---------------------------------------------------------------------------------------
// A closed stdout.

/// `conformance … | head -3`: the reader takes three lines and closes the pipe. The run
/// goes on to its end, writes its report and exits as its verdict says (as a run read to
/// the end does), without a panic.
#[test]
fn a_closed_stdout_ends_the_printing_not_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = |json: &std::path::Path, close_after: Option<usize>| {
        let mut child = bin()
            .args([
                "--operation",
                "listCategoryPositionLimits,suggestRiskCategories",
                "--json",
            ])
            .arg(json)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let mut read = Vec::new();
        match close_after {
            Some(n) => {
                for _ in 0..n {
                    read.push(lines.next().unwrap().unwrap());
                }
                // Dropping the reader closes the pipe's only read end.
                drop(lines);
            }
            None => read.extend(lines.map_while(Result::ok)),
        }
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            read,
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let full_json = dir.path().join("full.json");
    let (full_code, full_lines, _) = run(&full_json, None);
    assert!(full_lines.len() > 10, "{full_lines:?}");
    let cut_json = dir.path().join("cut.json");
    let (cut_code, cut_lines, stderr) = run(&cut_json, Some(3));
    assert_eq!(cut_lines.len(), 3);
    assert_eq!(cut_lines[0], full_lines[0], "the same header");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(cut_code, full_code, "{stderr}");
    let (full, cut) = (json_file(&full_json), json_file(&cut_json));
    assert_eq!(cut["state"], "finished");
    assert_eq!(cut["exit_code"], full["exit_code"]);
    assert_eq!(cut["totals"], full["totals"]);
    assert_eq!(
        cut["results"].as_array().map(Vec::len),
        full["results"].as_array().map(Vec::len)
    );
}

// ---------------------------------------------------------------------------------------
// `--quiet` is bounded.

/// A spec of `n` operations, `GET /opK` each, declaring only a 200.
fn many_operations(n: usize) -> String {
    let mut spec =
        String::from("openapi: 3.1.0\ninfo: {title: Many operations, version: \"1\"}\npaths:\n");
    for k in 0..n {
        spec.push_str(&format!(
            "  /op{k:03}:\n    get:\n      operationId: op{k:03}\n      responses:\n        \"200\":\n          description: ok\n          content: {{application/json: {{schema: {{type: object}}}}}}\n"
        ));
    }
    spec
}

/// A target that fails everything: 500 to every request.
async fn always_500() -> String {
    let app = Router::new().fallback(|| async {
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            [("content-type", "application/json")],
            r#"{"detail":"it broke"}"#,
        )
    });
    serve(app).await
}

/// A run where every one of 276 operations fails: the quiet output is the header, at most
/// 40 failure lines and a count of the rest, and the verdict — and it still names the
/// failures.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiet_output_is_bounded_however_many_operations_fail() {
    let base = always_500().await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args_for(dir.path(), &many_operations(276), &base);
    a.max_examples = 0;
    let o = execute(&a, Default::default()).await.unwrap();
    assert_eq!(o.exit_code, 1);
    let quiet = o.quiet_summary.expect("a quiet run has its quiet text");
    let lines: Vec<&str> = quiet.lines().collect();
    eprintln!(
        "quiet output: {} lines, {} bytes (the full summary: {} lines, {} bytes)",
        lines.len(),
        quiet.len(),
        o.summary.lines().count(),
        o.summary.len()
    );
    assert!(lines.len() < 100, "{quiet}");
    assert!(lines[0].starts_with("conformance run"), "{quiet}");
    let fails = lines.iter().filter(|l| l.starts_with("FAIL [")).count();
    assert!((1..=40).contains(&fails), "{quiet}");
    assert!(
        quiet.contains("FAIL [MUST] op000/") && quiet.contains("not_a_server_error"),
        "{quiet}"
    );
    assert!(
        quiet.contains("more failing operation/check pair(s): see --json/--html"),
        "{quiet}"
    );
    assert!(lines.last().unwrap().contains(" failed, "), "{quiet}");
    // No body, no repro line.
    assert!(
        !quiet.contains("it broke") && !quiet.contains("curl "),
        "{quiet}"
    );
}

// ---------------------------------------------------------------------------------------
// Binary bodies.

const ZIP_SPEC: &str = r##"
openapi: 3.1.0
info: {title: Exports, version: "1"}
paths:
  /export:
    get:
      operationId: export
      responses:
        "200":
          description: an archive
          content: {application/zip: {schema: {type: string, format: binary}}}
"##;

/// A zip's first bytes, NULs and bytes that are not UTF-8 included.
fn zip_bytes() -> Vec<u8> {
    let mut b = b"PK\x03\x04\x14\x00\x00\x00\x08\x00".to_vec();
    b.extend([0xff, 0xfe, 0x00, 0x1b, 0x5b, 0x32, 0x4a, 0x00]);
    b.extend(std::iter::repeat_n(0u8, 100));
    b
}

/// A target whose export answers a zip with a status it does not declare (so the answer
/// is shown in the failure's details), and 404 elsewhere.
async fn zip_target() -> String {
    let app = Router::new().fallback(|uri: Uri| async move {
        if uri.path() == "/export" {
            (
                StatusCode::IM_A_TEAPOT,
                [("content-type", "application/zip")],
                zip_bytes(),
            )
                .into_response()
        } else {
            StatusCode::NOT_FOUND.into_response()
        }
    });
    serve(app).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_binary_answer_is_shown_as_its_media_type_and_size_never_raw() {
    let base = zip_target().await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args_for(dir.path(), ZIP_SPEC, &base);
    a.quiet = false;
    let files = ["r.json", "r.xml", "r.html", "rec.json"].map(|f| dir.path().join(f));
    a.json = Some(files[0].clone());
    a.junit = Some(files[1].clone());
    a.html = Some(files[2].clone());
    a.record = Some(files[3].clone());
    let o = execute(&a, Default::default()).await.unwrap();
    assert_eq!(o.exit_code, 1, "{}", o.summary);
    let shown = "<application/zip, 118 bytes: 50 4b 03 04 14 00 00 00 08 00 ff fe 00 1b 5b 32 …>";
    assert!(o.summary.contains(shown), "{}", o.summary);
    let mut texts = vec![("summary", o.summary.clone())];
    for f in &files {
        texts.push(("file", std::fs::read_to_string(f).unwrap()));
    }
    for r in &o.results {
        texts.push(("message", r.message.clone()));
        if let Some(g) = &r.got {
            texts.push(("body", g.body.clone()));
        }
    }
    for (what, text) in &texts {
        for raw in ["\0", "\\u0000", "\u{1b}", "\\u001b", "\u{fffd}", "PK\u{3}"] {
            assert!(
                !text.contains(raw),
                "{what} holds raw bytes ({raw:?}): {text}"
            );
        }
    }
    let json = std::fs::read_to_string(&files[0]).unwrap();
    assert!(json.contains(shown), "{json}");
    let record = std::fs::read_to_string(&files[3]).unwrap();
    assert!(record.contains(shown), "{record}");
}

// ---------------------------------------------------------------------------------------
// A spec from a URL, and from stdin.

const SERVED_SPEC: &str = r##"
openapi: 3.1.0
info: {title: Served spec, version: "1"}
servers: [{url: /api}]
security: [{bearer: []}]
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
paths:
  /items:
    get:
      operationId: list_items
      responses:
        "200":
          description: all items
          content: {application/json: {schema: {type: array, items: {type: string}}}}
        "401": {description: no credentials}
"##;

const TOKEN: &str = "served-spec-token-8d1f";

type Log = Arc<Mutex<Vec<(String, String, bool)>>>;

/// A service that serves its spec at `/openapi.json` and its API under `/api`, both only
/// to a caller with the bearer token (401 otherwise); it logs every request (method, path,
/// whether it carried the token).
async fn serving_its_spec() -> (String, Log) {
    let log: Log = Arc::default();
    let seen = log.clone();
    let app = Router::new().fallback(move |method: Method, uri: Uri, headers: HeaderMap| {
        let seen = seen.clone();
        async move {
            let authorised = headers.get("authorization").and_then(|v| v.to_str().ok())
                == Some(&format!("Bearer {TOKEN}"));
            seen.lock()
                .unwrap()
                .push((method.to_string(), uri.path().to_string(), authorised));
            let answer: Response = match (authorised, method.as_str(), uri.path()) {
                (false, _, _) => (StatusCode::UNAUTHORIZED, "{}").into_response(),
                (true, "GET", "/openapi.json") => {
                    ([("content-type", "application/yaml")], SERVED_SPEC).into_response()
                }
                (true, "GET", "/api/items") => {
                    ([("content-type", "application/json")], r#"["a","b"]"#).into_response()
                }
                _ => (StatusCode::NOT_FOUND, "{}").into_response(),
            };
            answer
        }
    });
    (serve(app).await, log)
}

fn url_args(dir: &std::path::Path, spec_url: &str) -> Args {
    let mut a = args_for(dir, "", "unused");
    a.spec = Some(spec_url.into());
    a.base_url = None;
    a
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spec_served_only_with_the_token_is_fetched_and_names_the_target() {
    let (origin, log) = serving_its_spec().await;
    let dir = tempfile::tempdir().unwrap();
    let spec_url = format!("{origin}/openapi.json");
    let mut a = url_args(dir.path(), &spec_url);
    a.token = Some(TOKEN.into());
    a.json = Some(dir.path().join("r.json"));
    a.record = Some(dir.path().join("rec.json"));
    let o = execute(&a, Default::default()).await.unwrap();
    assert_eq!(o.base_url, format!("{origin}/api"), "the spec's `/api`");
    let log = log.lock().unwrap().clone();
    // The record holds every request the server saw, the spec's fetch first.
    let record = json_file(&dir.path().join("rec.json"));
    let record = record.as_array().unwrap();
    assert_eq!(record.len(), log.len(), "{record:?}\n{log:?}");
    assert_eq!(record[0]["path"], spec_url.as_str());
    assert!(record[0]["harness"].is_string());
    assert_eq!(
        log.first(),
        Some(&("GET".to_string(), "/openapi.json".to_string(), true)),
        "{log:?}"
    );
    assert!(
        log.iter()
            .any(|(m, p, t)| m == "GET" && p == "/api/items" && *t),
        "{log:?}"
    );
    assert!(
        o.results
            .iter()
            .any(|r| r.operation == "list_items"
                && r.verdict == conformance::outcome::Verdict::Passed),
        "{}",
        o.summary
    );
    let report = json_file(&dir.path().join("r.json"));
    assert_eq!(report["run"]["spec"]["source"], spec_url.as_str());
    assert!(
        o.summary.contains("(sha256 ") && o.summary.contains(&format!(", from {spec_url}")),
        "{}",
        o.summary
    );
    assert!(!o.summary.contains(TOKEN));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_from_a_spec_url_is_the_plan_from_the_same_spec_as_a_file() {
    let (origin, _) = serving_its_spec().await;
    let dir = tempfile::tempdir().unwrap();
    let mut by_url = url_args(dir.path(), &format!("{origin}/openapi.json"));
    by_url.token = Some(TOKEN.into());
    by_url.dry_run = true;
    let mut by_file = args_for(dir.path(), SERVED_SPEC, &format!("{origin}/api"));
    by_file.token = Some(TOKEN.into());
    by_file.dry_run = true;
    let (u, f) = (
        execute(&by_url, Default::default()).await.unwrap(),
        execute(&by_file, Default::default()).await.unwrap(),
    );
    assert!(
        u.summary.contains("request(s) would be sent"),
        "{}",
        u.summary
    );
    assert_eq!(u.summary, f.summary);

    // `--list-checks` takes the URL too.
    let mut list_url = by_url.clone();
    list_url.dry_run = false;
    let mut list_file = by_file.clone();
    list_file.dry_run = false;
    assert_eq!(
        conformance::list_checks(&list_url).await.unwrap(),
        conformance::list_checks(&list_file).await.unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spec_the_server_refuses_is_a_configuration_error_naming_url_and_status() {
    let (origin, log) = serving_its_spec().await;
    let dir = tempfile::tempdir().unwrap();
    let spec_url = format!("{origin}/openapi.json");
    let err = execute(&url_args(dir.path(), &spec_url), Default::default())
        .await
        .err()
        .expect("a 401 for the spec stops the run");
    let text = err.to_string();
    assert!(
        matches!(err, conformance::HarnessError::Config(_)),
        "a configuration error (exit 2): {text}"
    );
    assert!(text.contains(&spec_url) && text.contains("401"), "{text}");
    assert_eq!(text.lines().count(), 1, "{text}");
    assert_eq!(log.lock().unwrap().len(), 1, "only the spec was asked for");

    // A wrong token is not shown; a password in the URL is not either.
    let mut wrong = url_args(
        dir.path(),
        &spec_url.replace("http://", "http://me:pass-4f2a@"),
    );
    wrong.token = Some("wrong-token-77c1".into());
    let text = execute(&wrong, Default::default())
        .await
        .err()
        .expect("refused")
        .to_string();
    assert!(
        text.contains("401") && text.contains("<redacted>"),
        "{text}"
    );
    assert!(
        !text.contains("wrong-token-77c1") && !text.contains("pass-4f2a"),
        "{text}"
    );

    // Nothing listens: the transport's cause, in one line.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let text = execute(
        &url_args(
            dir.path(),
            &format!("http://127.0.0.1:{closed}/openapi.json"),
        ),
        Default::default(),
    )
    .await
    .err()
    .expect("no server")
    .to_string();
    assert!(
        text.contains(&format!("127.0.0.1:{closed}/openapi.json")) && text.contains("connect"),
        "{text}"
    );
}

/// `--spec -`: the spec on stdin gives the plan the same spec file gives.
#[test]
fn a_spec_on_stdin_gives_the_plan_of_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("spec.yaml");
    std::fs::write(&file, SERVED_SPEC).unwrap();
    let contracts = dir.path().join("none");
    std::fs::create_dir_all(&contracts).unwrap();
    let plan = |spec: &str, stdin: Option<&str>| {
        let mut child = bin()
            .args([
                "--dry-run",
                "--base-url",
                "http://127.0.0.1:9/api",
                "--spec",
                spec,
            ])
            .arg("--contracts")
            .arg(&contracts)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
        drop(input);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let from_stdin = plan("-", Some(SERVED_SPEC));
    let from_file = plan(file.to_str().unwrap(), None);
    assert!(from_stdin.contains("list_items"), "{from_stdin}");
    assert_eq!(from_stdin, from_file);
}
