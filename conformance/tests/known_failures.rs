//! `--known-failures` as a CI job uses it: a ticketed failure stops failing the run and is
//! reported as known; once its entry expires the run fails again; an entry that no longer
//! matches a failure is named so it can be removed; a malformed file is a configuration
//! error before anything is sent.

#![cfg(feature = "embedded")]

mod common;

use conformance::outcome::Verdict;
use conformance::{HarnessError, execute};
use reference_server::{Config, Fault};

fn faulty() -> Config {
    Config {
        faults: vec![Fault::EnumMisspelled],
        ..Config::default()
    }
}

async fn run_with(file: &str) -> Result<conformance::Outcome, HarnessError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("known.yaml");
    std::fs::write(&path, file).unwrap();
    let mut a = common::embedded_args();
    a.known_failures = Some(path);
    execute(&a, faulty()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ticketed_failure_is_known_until_its_entry_expires() {
    // Without the file the fault fails the run.
    let plain = execute(&common::embedded_args(), faulty()).await.unwrap();
    assert_eq!(plain.exit_code, 1);

    let accepted = run_with(
        "- check: response_schema_conformance
  reason: totalBy lower-cased by the serializer
  ticket: TRADE-1
  expires: 2999-12-31
- check: echoes_request
  reason: fixed since
  ticket: TRADE-2
",
    )
    .await
    .unwrap();
    assert_eq!(accepted.exit_code, 0, "{}", accepted.summary);
    let known: Vec<_> = accepted
        .results
        .iter()
        .filter(|r| r.verdict == Verdict::Known)
        .collect();
    assert!(!known.is_empty());
    assert!(
        known
            .iter()
            .all(|r| r.check == "response_schema_conformance"
                && r.message.starts_with("known failure TRADE-1:"))
    );
    let last = accepted.summary.lines().last().unwrap();
    assert!(
        last.ends_with(&format!(", {} known", known.len())),
        "{last}"
    );
    assert!(
        accepted
            .summary
            .contains("TRADE-2 (check echoes_request) did not fail in this run"),
        "{}",
        accepted.summary
    );

    let expired = run_with(
        "- check: response_schema_conformance
  reason: totalBy lower-cased by the serializer
  ticket: TRADE-1
  expires: 2001-01-31
",
    )
    .await
    .unwrap();
    assert_eq!(expired.exit_code, 1);
    assert!(
        expired
            .summary
            .contains("TRADE-1 (check response_schema_conformance) expired on 2001-01-31")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_file_is_a_configuration_error() {
    let err = run_with("- reason: r\n  ticket: T\n").await.err().unwrap();
    assert!(matches!(err, HarnessError::Config(_)), "{err}");
    assert!(
        err.to_string()
            .contains("names no check, case or operation"),
        "{err}"
    );
}
