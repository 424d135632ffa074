//! The harness as a CI gate that cannot go green by mistake: a run with no credentials on
//! a spec that requires them is a configuration error (exit 2); a run whose MUST checks
//! could not run for want of a credential is incomplete (exit 3) unless the selection
//! leaves them out or `--allow-incomplete` accepts it; the run header names the target; the
//! selection takes operations, tags and checks, included or excluded.

#![cfg(feature = "embedded")]

mod common;

use conformance::embedded::{Embedded, ServerConfig};
use conformance::outcome::Verdict;
use conformance::{Args, EXIT_INCOMPLETE, HarnessError, execute};

/// A reference server started apart from the run, so the run has no OAuth client and no
/// token: the staging job whose token variable was not set.
async fn staging() -> (Embedded, Args) {
    let server = Embedded::spawn(ServerConfig::default()).await.unwrap();
    let mut a = common::embedded_args();
    a.base_url = Some(server.base_url());
    (server, a)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_token_is_a_configuration_error_and_a_missing_fixture_incomplete_not_green() {
    let (server, a) = staging().await;
    // No credentials at all on a spec whose operations require them: said once, naming
    // the scheme, before anything is sent.
    let err = execute(&a, Default::default())
        .await
        .err()
        .expect("no credentials is a configuration error");
    assert!(matches!(err, HarnessError::Config(_)), "{err}");
    assert!(
        err.to_string().contains("bearerAuth (http bearer)"),
        "{err}"
    );
    // A token but not every fixture: the MUST checks that need one cannot run.
    let a = Args {
        token: Some(server.issue_token()),
        ..a
    };
    let out = execute(&a, Default::default()).await.unwrap();
    assert_eq!(out.exit_code, EXIT_INCOMPLETE, "{}", out.summary);
    assert!(
        out.summary
            .starts_with("conformance run\n  target:      http://127.0.0.1:")
    );
    assert!(
        out.summary.contains("credentials: bearer token (given)"),
        "{}",
        out.summary
    );
    assert!(out.summary.contains("INCOMPLETE: "), "{}", out.summary);
    assert!(out.summary.contains("(exit 3;"), "{}", out.summary);

    let accepted = execute(
        &Args {
            allow_incomplete: true,
            ..a.clone()
        },
        Default::default(),
    )
    .await
    .unwrap();
    assert_eq!(accepted.exit_code, 0);
    assert!(
        accepted
            .summary
            .contains("(accepted by --allow-incomplete)")
    );

    // A selection that leaves out the checks that could not run is a complete run of the
    // rest.
    let mut missing: Vec<String> = out
        .results
        .iter()
        .filter(|r| r.missing_input && r.level == conformance::spec::Level::Must)
        .map(|r| r.check.to_string())
        .collect();
    missing.sort();
    missing.dedup();
    assert!(!missing.is_empty(), "{}", out.summary);
    let rest = execute(
        &Args {
            exclude_check: missing,
            ..a
        },
        Default::default(),
    )
    .await
    .unwrap();
    assert_eq!(rest.exit_code, 0, "{}", rest.summary);
    assert!(!rest.summary.contains("INCOMPLETE"));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_run_names_itself_in_the_header() {
    let out = execute(
        &Args {
            operation: vec!["suggestRiskCategories".into()],
            // The binary's default: the server on a loopback port.
            in_process: false,
            ..common::embedded_args()
        },
        Default::default(),
    )
    .await
    .unwrap();
    assert_eq!(out.exit_code, 0, "{}", out.summary);
    let header: Vec<&str> = out.summary.lines().take(6).collect();
    assert!(
        header[1].contains("embedded reference server at http://127.0.0.1:"),
        "{header:?}"
    );
    assert!(header[1].contains("(no --base-url given)"));
    assert!(header[2].starts_with("  spec:        Trading Platform REST Interface"));
    assert_eq!(
        header[4],
        "  selection:   --operation suggestRiskCategories"
    );
    assert!(header[5].contains("bearer token (obtained through OAuth)"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exclusions_leave_operations_and_checks_out() {
    let out = execute(
        &Args {
            exclude_operation: vec!["updateContactInfoName".into(), "exchangeToken".into()],
            exclude_check: vec!["not_a_server_error".into()],
            ..common::embedded_args()
        },
        Default::default(),
    )
    .await
    .unwrap();
    assert_eq!(out.exit_code, 0, "{}", out.summary);
    assert!(!out.results.is_empty());
    for r in &out.results {
        assert!(
            r.operation != "updateContactInfoName" && r.operation != "exchangeToken",
            "{} ran",
            r.case
        );
        assert_ne!(r.check, "not_a_server_error");
    }
    assert!(out.results.iter().any(|r| r.verdict == Verdict::Passed));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_names_in_the_selection_are_configuration_errors() {
    for (a, why) in [
        (
            Args {
                tag: vec!["Accounts".into()],
                ..common::embedded_args()
            },
            "--tag Accounts: no operation has this tag",
        ),
        (
            Args {
                exclude_operation: vec!["listLimits".into()],
                ..common::embedded_args()
            },
            "--exclude-operation listLimits: no such operation",
        ),
        (
            Args {
                exclude_check: vec!["not_a_check".into()],
                ..common::embedded_args()
            },
            "--exclude-check not_a_check: no such check",
        ),
    ] {
        let err = execute(&a, Default::default()).await.err().unwrap();
        assert!(matches!(err, HarnessError::Config(_)), "{err}");
        assert!(err.to_string().contains(why), "{err}");
    }
}

/// The process exit code itself, as CI sees it, for each of 0, 1, 2 and 3.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_process_exits_0_1_2_or_3() {
    let clean = Embedded::spawn(ServerConfig::default()).await.unwrap();
    let faulty = Embedded::spawn(ServerConfig {
        faults: vec![reference_server::Fault::LimitIgnored],
        ..ServerConfig::default()
    })
    .await
    .unwrap();
    let run = |args: Vec<String>| {
        tokio::task::spawn_blocking(move || {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"))
                .args(&args)
                .arg("--quiet")
                .env_remove("CONFORMANCE_TOKEN")
                .env_remove("CONFORMANCE_AUTH_CODE")
                .env_remove("CONFORMANCE_CLIENT_ID")
                .env_remove("CONFORMANCE_CLIENT_SECRET")
                .env_remove("CONFORMANCE_REDIRECT_URI")
                .output()
                .expect("the binary runs");
            (
                out.status.code(),
                format!(
                    "{:?}\n--- stdout\n{}\n--- stderr\n{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ),
            )
        })
    };
    let against = |s: &Embedded, token: bool| {
        let mut a = vec!["--base-url".to_string(), s.base_url()];
        if token {
            a.extend(["--token".to_string(), s.issue_token()]);
            // No OAuth client for the token-exchange checks: accepted, so that the
            // verdict is the checks'.
            a.push("--allow-incomplete".into());
        }
        a
    };
    let (code, out) = run(against(&clean, true)).await.unwrap();
    assert_eq!(code, Some(0), "clean target: {out}");
    let (code, out) = run(against(&faulty, true)).await.unwrap();
    assert_eq!(code, Some(1), "a MUST failure: {out}");
    let (code, out) = run(vec!["--tag".into(), "Accounts".into()]).await.unwrap();
    assert_eq!(code, Some(2), "a configuration error: {out}");
    let (code, out) = run(against(&clean, false)).await.unwrap();
    assert_eq!(code, Some(2), "no token on a secured spec: {out}");
    let mut incomplete = against(&clean, true);
    incomplete.retain(|a| a != "--allow-incomplete");
    let (code, out) = run(incomplete).await.unwrap();
    assert_eq!(
        code,
        Some(EXIT_INCOMPLETE.into()),
        "a missing fixture: {out}"
    );
    clean.shutdown().await;
    faulty.shutdown().await;
}
