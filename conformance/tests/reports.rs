//! Reports that survive and carry timings: an interrupted run (SIGINT, SIGTERM) of the real
//! binary leaves valid JUnit, JSON and HTML marked as such with the results so far; JUnit
//! is grouped one suite per case with a timed test case per check; `--max-response-time`
//! fails the slow operation's answers and only those; the JSON report has the latency
//! percentiles; a run interrupted after its write cases started still puts the contact
//! record back. Slow targets are stubs (or a delaying proxy in front of the reference
//! server) on 127.0.0.1.

#![cfg(feature = "embedded")]

mod common;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::Uri;
use conformance::{Args, execute};
use quick_junit::{NonSuccessKind, Report, TestCaseStatus};
use serde_json::Value;

/// A target that answers every request `404` with a JSON error, after `delay` for paths
/// containing `slow_path` and at once otherwise.
async fn slow_stub(slow_path: &'static str, delay: Duration) -> SocketAddr {
    let router = Router::new().fallback(move |uri: Uri| async move {
        if uri.path().contains(slow_path) {
            tokio::time::sleep(delay).await;
        }
        (
            axum::http::StatusCode::NOT_FOUND,
            [("content-type", "application/json")],
            r#"{"errorText":"not here"}"#,
        )
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    addr
}

/// A proxy to `upstream` (an origin) that holds each request `delay` before passing it
/// on, except requests whose path contains `fast`: the reference server, slowed down so
/// that a signal can come in the middle of a run.
async fn slow_proxy(upstream: String, fast: &'static str, delay: Duration) -> SocketAddr {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse;
    let http = reqwest::Client::new();
    let router = Router::new().fallback(move |request: axum::extract::Request| {
        let (http, upstream) = (http.clone(), upstream.clone());
        async move {
            let (parts, body) = request.into_parts();
            if !parts.uri.path().contains(fast) {
                tokio::time::sleep(delay).await;
            }
            let body = axum::body::to_bytes(body, usize::MAX)
                .await
                .unwrap_or_default();
            let target = parts.uri.path_and_query().map_or("", |p| p.as_str());
            let mut headers = parts.headers;
            headers.remove(header::HOST);
            let answer = http
                .request(parts.method, format!("{upstream}{target}"))
                .headers(headers)
                .body(body)
                .send()
                .await;
            match answer {
                Ok(answer) => {
                    let status = answer.status();
                    let mut headers = answer.headers().clone();
                    headers.remove(header::TRANSFER_ENCODING);
                    headers.remove(header::CONTENT_LENGTH);
                    let body = answer.bytes().await.unwrap_or_default();
                    (status, headers, body).into_response()
                }
                Err(e) => (StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    addr
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// Waits (at most `limit`) for the child to exit; kills it and fails the test otherwise.
fn wait_bounded(child: &mut Child, limit: Duration) -> i32 {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().expect("exited, not killed by a signal");
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("the harness did not exit within {limit:?} of the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The run is stopped mid-way by SIGINT and by SIGTERM: it exits with 3 (or 1 when a
/// failure was already seen), and the files parse, say the run was interrupted and hold
/// the results so far; while it ran, the files already parsed and said `in_progress`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_run_leaves_valid_reports_marked_interrupted() {
    // Every request of every operation takes 150 ms: the run takes far longer than the
    // moment it is stopped.
    let addr = slow_stub("/", Duration::from_millis(150)).await;
    for signal in ["-INT", "-TERM"] {
        let dir = tempfile::tempdir().unwrap();
        let (json, junit, html) = (
            dir.path().join("r.json"),
            dir.path().join("r.xml"),
            dir.path().join("r.html"),
        );
        let mut child = Command::new(env!("CARGO_BIN_EXE_conformance"))
            .env_remove("CONFORMANCE_TOKEN")
            .env_remove("CONFORMANCE_BASE_URL")
            .args(["--base-url", &format!("http://{addr}/v1")])
            .args(["--token", "tok-not-shown", "--workers", "2", "--quiet"])
            .arg("--json")
            .arg(&json)
            .arg("--junit")
            .arg(&junit)
            .arg("--html")
            .arg(&html)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Wait for a file written mid-run that already holds results.
        let start = Instant::now();
        let in_progress = loop {
            if let Some(doc) = read_json(&json)
                && doc["results"].as_array().is_some_and(|r| !r.is_empty())
            {
                break doc;
            }
            if start.elapsed() > Duration::from_secs(30) {
                let _ = child.kill();
                panic!("no report with results was written within 30 s");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert_eq!(in_progress["state"], "in_progress");
        assert_eq!(in_progress["exit_code"], Value::Null);
        let status = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let code = wait_bounded(&mut child, Duration::from_secs(20));

        let doc = read_json(&json).expect("the JSON report parses");
        assert_eq!(doc["state"], "interrupted", "{signal}");
        let results = doc["results"].as_array().unwrap();
        assert!(!results.is_empty(), "{signal}: the results so far are kept");
        let failed = doc["totals"]["failed"].as_u64().unwrap();
        let expected = if failed > 0 { 1 } else { 3 };
        assert_eq!(code, expected, "{signal}: exit code");
        assert_eq!(doc["exit_code"], expected, "{signal}");

        let xml = std::fs::read_to_string(&junit).unwrap();
        let report = Report::deserialize_from_str(&xml).expect("the JUnit report parses");
        let marker = report
            .test_suites
            .iter()
            .find(|s| s.name.as_str() == "conformance run")
            .expect("a suite says the run did not finish");
        assert!(
            marker
                .properties
                .iter()
                .any(|p| p.name.as_str() == "incomplete" && p.value.as_str() == "true")
        );
        let case = &marker.test_cases[0];
        assert_eq!(case.name.as_str(), "run interrupted");
        assert!(matches!(
            case.status,
            TestCaseStatus::NonSuccess {
                kind: NonSuccessKind::Error,
                ..
            }
        ));
        let checks: usize = report
            .test_suites
            .iter()
            .filter(|s| s.name.as_str() != "conformance run")
            .map(|s| s.test_cases.len())
            .sum();
        assert_eq!(
            checks,
            results.len(),
            "JUnit and JSON hold the same results"
        );

        let page = std::fs::read_to_string(&html).unwrap();
        assert!(page.contains("data-state=\"interrupted\""), "{signal}");
        for text in [&xml, &page, &std::fs::read_to_string(&json).unwrap()] {
            assert!(!text.contains("tok-not-shown"));
        }
        assert!(
            std::fs::read_dir(dir.path()).unwrap().all(|e| !e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".partial")),
            "no temporary file is left behind"
        );
    }
}

/// Times in the JUnit file differ from run to run; the snapshot keeps where they are.
fn redact_times(xml: &str) -> String {
    let mut out = String::new();
    let mut rest = xml;
    while let Some(i) = rest.find(" time=\"") {
        let start = i + " time=\"".len();
        out.push_str(&rest[..start]);
        out.push('T');
        rest = &rest[start..];
        rest = &rest[rest.find('"').unwrap_or(0)..];
    }
    out.push_str(rest);
    out
}

/// One suite per case, its checks inside as test cases with the latency of the request
/// each judged; suites in case order; the same results as the run's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn junit_has_one_suite_per_case_with_its_timed_checks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.xml");
    let mut a: Args = common::embedded_args();
    a.junit = Some(path.clone());
    let out = execute(&a, Default::default()).await.unwrap();
    assert_eq!(out.exit_code, 0, "{}", out.summary);
    let report = Report::deserialize_from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();

    let mut by_case: BTreeMap<&str, usize> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for r in &out.results {
        let n = by_case.entry(r.case.as_str()).or_default();
        if *n == 0 {
            order.push(&r.case);
        }
        *n += 1;
    }
    let (coverage, cases) = report.test_suites.split_last().unwrap();
    assert_eq!(coverage.name.as_str(), "(coverage)");
    assert!(coverage.test_cases.is_empty());
    let reached = coverage
        .properties
        .iter()
        .find(|p| p.name.as_str() == "operations_reached_2xx")
        .map(|p| p.value.as_str().to_string());
    assert_eq!(
        reached.as_deref(),
        Some("6"),
        "every operation reached a 2xx"
    );
    let suites: Vec<&str> = cases.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(suites, order, "one suite per case, in case order");
    let mut timed = 0;
    for s in cases {
        assert_eq!(
            s.test_cases.len(),
            by_case[s.name.as_str()],
            "{}",
            s.name.as_str()
        );
        for t in &s.test_cases {
            assert_eq!(
                t.classname.as_ref().map(|c| c.as_str()),
                Some(s.name.as_str())
            );
            timed += usize::from(t.time.is_some());
        }
        let sum: Duration = s
            .test_cases
            .iter()
            .filter_map(|t| t.time)
            .max()
            .unwrap_or_default();
        assert!(
            s.time.unwrap_or_default() >= sum,
            "{}: a case takes at least its slowest step",
            s.name.as_str()
        );
    }
    // Skipped cases send nothing and have no time; every check of an answer has one.
    let skipped = out
        .results
        .iter()
        .filter(|r| r.verdict == conformance::outcome::Verdict::Skipped)
        .count();
    assert!(
        timed + skipped >= out.results.len(),
        "{timed} timed, {skipped} skipped"
    );

    // A small selection, as a CI UI reads it.
    let mut small = common::embedded_args();
    small.operation = vec!["getCategoryPositionLimit".into()];
    small.check = vec![
        "undeclared_method".into(),
        "not_a_server_error".into(),
        "status_code_conformance".into(),
    ];
    small.junit = Some(dir.path().join("small.xml"));
    let out = execute(&small, Default::default()).await.unwrap();
    assert_eq!(out.exit_code, 0, "{}", out.summary);
    let xml = std::fs::read_to_string(small.junit.unwrap()).unwrap();
    insta::assert_snapshot!("junit_grouped_per_case", redact_times(&xml));
}

/// `--max-response-time`: the answers of the one slow operation breach `response_time`
/// (a SHOULD check: a warning outside `--strict`), every other answer passes it; the
/// JSON report has each operation's percentiles, the slow one's over the delay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_operation_fails_response_time_there_and_only_there() {
    let addr = slow_stub("/riskCategory/suggest", Duration::from_millis(700)).await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = common::embedded_args();
    a.base_url = Some(format!("http://{addr}/v1"));
    a.token = Some("t".into());
    a.workers = 8;
    a.max_response_time = Some(Duration::from_millis(300));
    a.json = Some(dir.path().join("r.json"));
    let out = execute(&a, Default::default()).await.unwrap();
    let timed: Vec<_> = out
        .results
        .iter()
        .filter(|r| r.check.as_str() == "response_time")
        .collect();
    let slow = |op: &str| op == "suggestRiskCategories";
    assert!(timed.iter().any(|r| slow(&r.operation)));
    assert!(timed.iter().any(|r| !slow(&r.operation)));
    for r in &timed {
        let failed = r.verdict == conformance::outcome::Verdict::Failed;
        assert_eq!(
            failed,
            slow(&r.operation),
            "{} {}: {}",
            r.case,
            r.operation,
            r.message
        );
        assert_eq!(r.level, conformance::spec::Level::Should);
        if failed {
            assert_eq!(r.expected, "an answer within 300 ms");
            assert!(r.message.contains("over the 300 ms"), "{}", r.message);
        }
    }
    let doc = read_json(a.json.as_deref().unwrap()).unwrap();
    let latency = &doc["latency"];
    let suggest = &latency["suggestRiskCategories"];
    assert!(suggest["p50_ms"].as_f64().unwrap() >= 700.0, "{latency}");
    assert!(suggest["max_ms"].as_f64().unwrap() >= suggest["p95_ms"].as_f64().unwrap());
    assert!(suggest["p95_ms"].as_f64().unwrap() >= suggest["p50_ms"].as_f64().unwrap());
    for (op, l) in latency.as_object().unwrap() {
        assert!(l["answers"].as_u64().unwrap() > 0, "{op}");
        if !slow(op) {
            assert!(l["p50_ms"].as_f64().unwrap() < 700.0, "{op}: {l}");
        }
    }
    assert!(
        out.summary.contains("suggestRiskCategories") && out.summary.contains("p95 "),
        "{}",
        out.summary
    );
}

/// SIGINT after the run has changed the contact record (its write cases pass the proxy
/// at once, everything else waits): the run stops sending cases, puts the record back
/// with the fixtures' `restore:` values, judges that (`state_restored`), and still says
/// it was interrupted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_run_still_puts_the_contact_record_back() {
    let server = reference_server::spawn(reference_server::Config::default())
        .await
        .unwrap();
    let original = server.contact_record(1).expect("the demo user's record");
    let proxy = slow_proxy(server.origin(), "contactInfo", Duration::from_millis(40)).await;
    let dir = tempfile::tempdir().unwrap();
    let fixtures = dir.path().join("fixtures.yaml");
    std::fs::write(
        &fixtures,
        "allow_writes: true\nscope_names: [CME, CBOT]\nrestore:\n  updateContactInfoName:\n    firstName: Ada\n    lastName: Lovelace\n    country: GB\n    phone: \"+44 20 7946 0958\"\n",
    )
    .unwrap();
    let json = dir.path().join("r.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .env_remove("CONFORMANCE_TOKEN")
        .env_remove("CONFORMANCE_BASE_URL")
        .args(["--base-url", &format!("http://{proxy}/v1")])
        .args([
            "--token",
            &server.issue_token(),
            "--workers",
            "2",
            "--quiet",
        ])
        .arg("--fixtures")
        .arg(&fixtures)
        .arg("--json")
        .arg(&json)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while server.contact_record(1).as_ref() == Some(&original) {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the run ended ({status}) before it changed the record");
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the run did not change the contact record within 60 s");
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = wait_bounded(&mut child, Duration::from_secs(30));

    assert_eq!(
        server.contact_record(1),
        Some(original),
        "record not put back after the signal"
    );
    let doc = read_json(&json).expect("the JSON report parses");
    assert_eq!(doc["state"], "interrupted");
    let failed = doc["totals"]["failed"].as_u64().unwrap();
    assert_eq!(code, if failed > 0 { 1 } else { 3 }, "exit code");
    common::assert_restored_in(&doc);
    server.shutdown().await;
}
