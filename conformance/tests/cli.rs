//! The command line and the reports: exit codes, determinism, JUnit/JSON files,
//! record/replay, and snapshots of the summary and the JSON report's structure against
//! the clean reference server with a fixed seed.

#![cfg(feature = "embedded")]

mod common;

use std::process::Command;

use conformance::{Args, execute};
use serde_json::Value;

fn args() -> Args {
    let mut a = common::embedded_args();
    a.seed = 42;
    a
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_conformance"));
    c.env_remove("CONFORMANCE_TOKEN")
        .env_remove("CONFORMANCE_BASE_URL");
    c
}

/// Replaces the OS-chosen port so snapshots are stable.
fn scrub(text: &str, base_url: &str) -> String {
    let text = text.replace(base_url.trim_end_matches("/v1"), "http://127.0.0.1:PORT");
    // The spec's digest changes with every edit of the spec; its place is what counts.
    let text = match text.find("(sha256 ") {
        Some(i) => {
            let end = text[i..].find(')').map_or(text.len(), |e| i + e);
            format!("{}(sha256 DIGEST{}", &text[..i], &text[end..])
        }
        None => text,
    };
    // Latencies differ from run to run; that each operation's line has them is what counts.
    text.lines()
        .map(|l| match l.find("   p50 ") {
            Some(i) => format!("{}   p50 N ms, p95 N ms, max N ms", &l[..i]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Leaves of a JSON value replaced by their type; arrays reduced to their first item.
fn shape(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), shape(x))).collect()),
        Value::Array(a) => Value::Array(a.iter().take(1).map(shape).collect()),
        Value::String(_) => Value::String("string".into()),
        Value::Number(_) => Value::String("number".into()),
        Value::Bool(_) => Value::String("bool".into()),
        Value::Null => Value::String("null".into()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn same_seed_same_cases_and_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = args();
    // The snapshot shows what a user sees by default: the server on a loopback port.
    a.in_process = false;
    a.json = Some(dir.path().join("r.json"));
    a.junit = Some(dir.path().join("r.xml"));
    a.record = Some(dir.path().join("rec.json"));
    let one = execute(&a, Default::default()).await.unwrap();
    let two = execute(&args(), Default::default()).await.unwrap();
    let ids = |o: &conformance::Outcome| {
        o.results
            .iter()
            .map(|r| format!("{} {} {:?}", r.case, r.check, r.verdict))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids(&one),
        ids(&two),
        "same seed, same target: same cases in the same order"
    );
    assert_eq!(one.exit_code, 0);
    let last = one.summary.lines().last().unwrap();
    let t = one.totals(false);
    assert_eq!(
        last,
        format!(
            "{} passed, {} failed, {} skipped",
            t.passed, t.failed, t.skipped
        )
    );
    insta::assert_snapshot!("clean_summary", scrub(&one.summary, &one.base_url));

    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(json["results"].as_array().unwrap().len(), one.results.len());
    let mut s = shape(&json);
    s["totals"] = json["totals"].clone();
    insta::assert_snapshot!(
        "json_report_shape",
        serde_json::to_string_pretty(&s).unwrap()
    );

    let xml = std::fs::read_to_string(dir.path().join("r.xml")).unwrap();
    assert!(xml.contains("<testsuites") && xml.contains("updateContactInfoName"));
    let record = std::fs::read_to_string(dir.path().join("rec.json")).unwrap();
    assert!(record.contains("\"auth\": \"token\""));
    assert!(
        !record.contains("demo-secret"),
        "the client secret leaked into the record"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_reports_where_two_targets_differ() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.json");
    let mut a = args();
    a.operation = vec!["getCategoryPositionLimit".into()];
    a.record = Some(rec.clone());
    execute(&a, Default::default()).await.unwrap();
    // Same implementation: no difference.
    let mut b = args();
    b.replay = Some(rec.clone());
    let same = execute(&b, Default::default()).await.unwrap();
    assert_eq!(same.exit_code, 0, "{}", same.summary);
    assert!(same.totals(false).passed > 0);
    // An implementation that returns another record for `item` differs.
    let faulty = reference_server::Config {
        faults: vec!["item-wrong-id".parse().unwrap()],
        ..Default::default()
    };
    let diff = execute(&b, faulty).await.unwrap();
    assert_eq!(diff.exit_code, 1);
    assert!(
        diff.results
            .iter()
            .any(|r| r.check == "replay_consistency" && r.message.contains("body differs")),
        "{}",
        diff.summary
    );
}

#[test]
fn bad_contract_file_is_exit_2_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.yaml"),
        "cases:\n  - id: x\n    level: must\n    steps:\n      - operationId: findExchangeScopes\n        params: { name: [A] }\n        expect: success\n",
    )
    .unwrap();
    let out = bin()
        .args(["--quiet", "--contracts"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.yaml:6") && err.contains("no parameter name"),
        "{err}"
    );
}

#[test]
fn usage_and_config_errors_are_exit_2() {
    assert_eq!(
        bin().arg("--no-such-flag").output().unwrap().status.code(),
        Some(2)
    );
    assert_eq!(
        bin()
            .args(["--operation", "nope"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        bin()
            .args(["--timeout", "-1"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        bin()
            .args(["--spec", "/nonexistent.yaml"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn the_binary_stops_on_a_rejected_token_and_never_prints_it() {
    let out = bin()
        .args([
            "--quiet",
            "--token",
            "super-secret-token-value",
            "--operation",
            "suggestRiskCategories",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The fresh reference server never issued this token: the pre-flight step finds it
    // rejected on discovery's secured read and stops with a configuration error, instead
    // of failing every secured case.
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("pre-flight"), "{stderr}");
    assert!(stderr.contains("rejects the token"), "{stderr}");
    assert!(!stdout.contains("super-secret-token-value"));
    assert!(!stderr.contains("super-secret-token-value"));
}

#[test]
fn list_checks_prints_the_registry() {
    let out = bin().arg("--list-checks").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    insta::assert_snapshot!("list_checks", String::from_utf8_lossy(&out.stdout));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_check_in_a_contract_file_is_exit_2_naming_file_and_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("contracts");
    for e in std::fs::read_dir(&root).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "yaml") {
            let text = std::fs::read_to_string(&p).unwrap();
            // A typo in one case's check name (declared as `finds_matching`).
            let text = text.replacen("check: finds_matching", "check: finds_matchng", 1);
            std::fs::write(dir.path().join(p.file_name().unwrap()), text).unwrap();
        }
    }
    let out = bin()
        .arg("--contracts")
        .arg(dir.path())
        .arg("--list-checks")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("30-scopes.yaml:"), "{err}");
    assert!(err.contains("unknown check `finds_matchng`"), "{err}");
    // The same file is refused by a run too, before anything is sent.
    let mut a = args();
    a.contracts = Some(dir.path().to_path_buf());
    let e = match execute(&a, Default::default()).await {
        Ok(_) => panic!("a contract file with an unknown check ran"),
        Err(e) => e,
    };
    assert!(
        matches!(e, conformance::HarnessError::Contract { ref file, .. } if file.ends_with("30-scopes.yaml")),
        "{e}"
    );
    assert!(e.to_string().contains("finds_matchng"), "{e}");
}
