//! Proof that the harness has teeth: the clean reference server passes with no failure
//! and no warning, and every seeded fault fails the run with the check meant to catch it.

#![cfg(feature = "embedded")]

mod common;

use std::time::Duration;

use conformance::outcome::Verdict;
use conformance::{Args, execute};
use reference_server::{Config, Fault};

/// The check that must catch each fault, and whether it is a SHOULD (needs --strict).
fn catcher(f: Fault) -> (&'static str, bool) {
    match f.name() {
        "auth-not-enforced" | "unknown-token-accepted" => ("ignored_auth", false),
        "limit-ignored" => ("max_items_param", false),
        "combined-rule-off-by-one" | "bytes-counted" => ("combined_length", false),
        "deps-leaks-other-category" => ("items_field_equals_param", false),
        "enum-misspelled"
        | "required-field-dropped"
        | "deep-enum-misspelled"
        | "deep-required-field-dropped" => ("response_schema_conformance", false),
        "update-clobbers-address" => ("preserves_other_fields", false),
        "server-error-on-unknown-id" | "stall" => ("not_a_server_error", false),
        "error-on-success" => ("fields_equal", false),
        "only-first-name" => ("finds_matching", false),
        "update-keeps-old-names" => ("echoes_request", false),
        "suggest-case-sensitive" => ("suggest_matching", true),
        "wrong-content-type" => ("content_type_conformance", false),
        "item-wrong-id" => ("field_equals_param", false),
        "missing-param-accepted" => ("negative_data_rejection", false),
        "token-type-wrong" => ("fields_equal", true),
        "contact-refuses-old-name" => ("state_restored", false),
        "numbers-coerced-to-text" => ("negative_data_rejection", true),
        "unreadable-id-accepted" => ("negative_data_rejection", false),
        other => panic!("fault {other} has no expected check here: add it"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clean_server_passes_with_no_failure_and_no_warning() {
    let a = Args {
        strict: true,
        ..common::embedded_args()
    };
    let out = execute(&a, Config::default()).await.expect("run completes");
    let bad: Vec<String> = out
        .results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(|r| format!("{} {} {}", r.case, r.check, r.message))
        .collect();
    assert!(
        bad.is_empty(),
        "failures against the clean server: {bad:#?}"
    );
    assert_eq!(out.exit_code, 0);
    assert!(out.totals(true).passed > 300);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fault_fails_the_run_with_its_check() {
    assert!(Fault::ALL.len() >= 15);
    // Four runs at a time: enough to use both cores without starving any run's timeouts.
    let permits = std::sync::Arc::new(tokio::sync::Semaphore::new(4));
    let mut tasks = tokio::task::JoinSet::new();
    for &fault in Fault::ALL {
        let (check, should) = catcher(fault);
        let permits = permits.clone();
        tasks.spawn(async move {
            let _permit = permits.acquire_owned().await.expect("semaphore");
            // The stall fault needs a short timeout to stay fast; the others a generous one.
            let timeout = Duration::from_secs(if fault.name() == "stall" { 1 } else { 5 });
            let a = Args {
                strict: should,
                timeout,
                ..common::embedded_args()
            };
            let config = Config {
                faults: vec![fault],
                ..Config::default()
            };
            let out = execute(&a, config).await.expect("run completes");
            let failing: Vec<&str> = out
                .results
                .iter()
                .filter(|r| r.is_failure(should))
                .map(|r| r.check.as_str())
                .collect();
            let ok = out.exit_code == 1 && failing.contains(&check);
            (
                fault,
                check,
                ok,
                format!("exit {} failures {:?}", out.exit_code, failing),
            )
        });
    }
    let mut missed = Vec::new();
    while let Some(done) = tasks.join_next().await {
        let (fault, check, ok, detail) = done.expect("task");
        if !ok {
            missed.push(format!("{fault}: expected {check}; {detail}"));
        }
    }
    assert!(missed.is_empty(), "faults not caught: {missed:#?}");
}

/// The deep faults sit in records the first category's limits never show: only the data
/// sweep reads them. With its request budget at zero the run cannot see them (and says it
/// did not read them); with the default budget it catches both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_data_sweep_reaches_the_deep_faults() {
    for fault in [Fault::DeepEnumMisspelled, Fault::DeepRequiredFieldDropped] {
        let config = || Config {
            faults: vec![fault],
            ..Config::default()
        };
        let blind = execute(
            &Args {
                max_requests: 0,
                ..common::embedded_args()
            },
            config(),
        )
        .await
        .expect("run completes");
        assert_eq!(blind.exit_code, 0, "{fault}: caught without the sweep?");
        // The reason is on the skipped sweep (the summary lists reasons under --verbose).
        assert!(
            blind.results.iter().any(|r| r.verdict == Verdict::Skipped
                && r.message.contains("the --max-requests budget is spent")),
            "{}",
            blind.summary
        );
        let swept = execute(&common::embedded_args(), config())
            .await
            .expect("run completes");
        assert_eq!(swept.exit_code, 1, "{fault}: not caught by the sweep");
        assert!(swept.results.iter().any(|r| r.verdict == Verdict::Failed
            && r.check == "response_schema_conformance"
            && r.case.starts_with("discover/sweep-")));
    }
}

/// The spec's `x-mistyped-input` splits a mistyped input by whether a lenient server can
/// read it: a number accepted where a string is declared is a SHOULD breach (a warning,
/// exit 0), an unreadable `masterid` accepted is a MUST failure (exit 1).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_coerced_value_warns_and_an_unreadable_one_fails() {
    use conformance::spec::Level;
    for (fault, case, level, exit) in [
        (
            Fault::NumbersCoercedToText,
            "updateContactInfoName/coercible-field/firstName",
            Level::Should,
            0,
        ),
        (
            Fault::UnreadableIdAccepted,
            "listCategoryPositionLimits/mistyped-param/masterid",
            Level::Must,
            1,
        ),
    ] {
        let config = Config {
            faults: vec![fault],
            ..Config::default()
        };
        let out = execute(&common::embedded_args(), config)
            .await
            .expect("run completes");
        let failed: Vec<(&str, Level)> = out
            .results
            .iter()
            .filter(|r| r.verdict == Verdict::Failed)
            .map(|r| (r.case.as_str(), r.level))
            .collect();
        assert!(
            failed.iter().any(|(c, l)| c.ends_with(case) && *l == level),
            "{fault}: {failed:?}"
        );
        assert!(
            failed.iter().all(|(_, l)| *l == level),
            "{fault}: only {level:?} breaches: {failed:?}"
        );
        assert_eq!(out.exit_code, exit, "{fault}: {}", out.summary);
    }
}
