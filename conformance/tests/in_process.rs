//! The harness as a library against an axum app in the test's own process: no socket, no
//! port. A handler that breaks its spec fails the run with the check's words and a curl
//! line; the same app fixed passes.

mod notes_app;

use conformance::Suite;
use conformance::outcome::Verdict;
use notes_app::{SPEC, app};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_handler_fails_with_the_checks_words_and_the_fixed_app_passes() {
    let (broken, _) = app(true);
    let out = Suite::spec_text("notes.yaml", SPEC)
        .allow_writes()
        .run_service(broken)
        .await
        .expect("the run completes");
    assert_eq!(out.exit_code, 1, "{}", out.summary);
    let failed: Vec<(&str, &str)> = out
        .results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(|r| (r.operation.as_str(), r.check.as_str()))
        .collect();
    assert!(
        failed.contains(&("create_note", "response_schema_conformance")),
        "{failed:#?}"
    );
    let panic = std::panic::catch_unwind(|| out.assert_conforms()).expect_err("it panics");
    let text = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(text.contains("FAIL [MUST]"), "{text}");
    assert!(
        text.contains("an app in this process, no socket (requests as http://in-process/api)"),
        "{text}"
    );
    assert!(text.contains("response_schema_conformance"), "{text}");
    assert!(
        text.contains("curl -sS -X POST 'http://in-process/api/notes'"),
        "the curl line names the request: {text}"
    );

    // The app is the test's own: the run may delete what it finds there too.
    let (fixed, state) = app(false);
    let out = Suite::spec_text("notes.yaml", SPEC)
        .allow_destructive()
        .run_service(fixed)
        .await
        .expect("the run completes");
    out.assert_conforms();
    // Every operation was reached, in process, and what the run made it removed.
    for op in ["list_notes", "create_note", "read_note", "delete_note"] {
        assert!(
            out.exchanges
                .iter()
                .any(|x| x.operation == op && x.status.is_some_and(|s| (200..300).contains(&s))),
            "{op} never answered 2xx\n{}",
            out.summary
        );
    }
    assert!(
        state.lock().unwrap().notes.is_empty(),
        "the run's notes are removed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_allow_writes_nothing_that_writes_reaches_the_app() {
    let (fixed, state) = app(false);
    let out = Suite::spec_text("notes.yaml", SPEC)
        .run_service(fixed)
        .await
        .expect("the run completes");
    assert!(
        out.exchanges
            .iter()
            .all(|x| x.method == "GET" || x.status.is_none_or(|s| s >= 400)),
        "{}",
        out.summary
    );
    assert_eq!(state.lock().unwrap().next, 0, "no note was made");
}

#[test]
fn one_test_per_operation_and_a_filter_runs_one() {
    use libtest_mimic::{Arguments, run};
    let suite = Suite::spec_text("notes.yaml", SPEC).allow_destructive();
    let (fixed, _) = app(false);
    let trials = suite.trials(fixed).expect("the spec reads");
    let names: Vec<&str> = trials.iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "list_notes",
            "create_note",
            "read_note",
            "delete_note",
            conformance::WHOLE_RUN
        ]
    );
    let one = Arguments {
        filter: Some("read_note".into()),
        exact: true,
        test_threads: Some(1),
        ..Arguments::default()
    };
    let c = run(&one, trials);
    assert_eq!((c.num_passed, c.num_failed, c.num_filtered_out), (1, 0, 4));

    // The broken app fails the tests of the operations whose answers show the bug (a
    // create's answer, a read of what it made), and not those whose answers cannot (a
    // delete answers 204, and nothing is left to the whole run). The list's own test is
    // not asserted: its read may come before any create, and an empty list is no bug.
    let verdict = |name: &str| {
        let (broken, _) = app(true);
        let only = Arguments {
            filter: Some(name.into()),
            exact: true,
            test_threads: Some(1),
            ..Arguments::default()
        };
        let c = run(&only, suite.trials(broken).expect("the spec reads"));
        (c.num_passed, c.num_failed)
    };
    assert_eq!(verdict("create_note"), (0, 1));
    assert_eq!(verdict("read_note"), (0, 1));
    assert_eq!(verdict("delete_note"), (1, 0));
    assert_eq!(verdict(conformance::WHOLE_RUN), (1, 0));
}

/// What a run judged, without the parts that differ between transports (timings, the
/// origin in curl lines).
fn verdicts(out: &conformance::Outcome) -> Vec<(String, String, String, String)> {
    let mut v: Vec<_> = out
        .results
        .iter()
        .map(|r| {
            (
                r.case.clone(),
                r.check.to_string(),
                format!("{:?}", r.verdict),
                r.message.replace(&out.base_url, "BASE"),
            )
        })
        .collect();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_server_in_process_gives_the_loopback_runs_verdicts() {
    let served = Suite::builtin()
        .run_embedded(Default::default(), false)
        .await
        .expect("the loopback run completes");
    let in_process = Suite::builtin()
        .run_embedded(Default::default(), true)
        .await
        .expect("the in-process run completes");
    assert!(in_process.base_url.starts_with("http://in-process"));
    assert!(
        in_process
            .summary
            .contains("embedded reference server in this process, no socket"),
        "the header says where the server runs: {}",
        in_process.summary
    );
    assert_eq!(served.exit_code, 0, "{}", served.summary);
    assert_eq!(in_process.exit_code, 0, "{}", in_process.summary);
    let (a, b) = (verdicts(&served), verdicts(&in_process));
    let only_served: Vec<_> = a.iter().filter(|x| !b.contains(x)).collect();
    let only_in_process: Vec<_> = b.iter().filter(|x| !a.contains(x)).collect();
    assert!(
        only_served.is_empty() && only_in_process.is_empty(),
        "over loopback only: {only_served:#?}\nin process only: {only_in_process:#?}"
    );
    assert_eq!(served.totals(false).passed, in_process.totals(false).passed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_that_serves_its_own_spec_is_tested_against_it() {
    let (notes, _) = app(false);
    let served = notes.route(
        "/openapi.yaml",
        axum::routing::get(|| async { ([("content-type", "application/yaml")], SPEC) }),
    );
    let out = Suite::spec_url("http://in-process/openapi.yaml")
        .allow_destructive()
        .run_service(served)
        .await
        .expect("the spec is fetched from the app and the run completes");
    out.assert_conforms();
    assert!(out.summary.contains("Notes 1.0"), "{}", out.summary);
    assert_eq!(out.base_url, "http://in-process/api");
}
