//! The harness against the mock of a spec, in process: a mock conforms to its own spec.
//! Prefect's 188 operations, stateless (reads) and stateful (writes and the
//! create → read → update → delete chains), and each real-world spec of the generator's
//! corpus, stateful with writes. What the harness still reports is pinned in
//! [`PINNED`] with the reason; a new failure, or a pinned one that no longer happens,
//! fails the test.

use std::path::{Path, PathBuf};

use conformance::Suite;
use conformance::outcome::{CheckResult, Outcome, Verdict};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// (spec file, check, case) failures that are not the mock's, each with the reason.
const PINNED: &[(&str, &str, &str, &str)] = &[];

/// The bearer token the mock accepts and the suite sends.
const TOKEN: &str = "mock-token";

async fn run(spec: &Path, stateful: bool, writes: bool) -> Outcome {
    let mock = spec_mock::Mock::from_path(spec)
        .expect("the mock reads the spec")
        .stateful(stateful)
        .seed(7)
        .accept_token(TOKEN);
    let mock = match std::env::var("MOCK_DUMP") {
        Ok(dir) => {
            let name = spec.file_name().unwrap().to_string_lossy().into_owned();
            mock.log_to_path(Path::new(&format!("{dir}/{name}.log")))
                .unwrap()
        }
        Err(_) => mock,
    };
    let mut suite = Suite::spec_file(spec).token(TOKEN).seed(1);
    if writes {
        suite = suite.allow_destructive();
    }
    suite
        .run_service(mock.router())
        .await
        .expect("the run completes")
}

/// Fails with every unexpected failure (and every pinned one that did not happen).
fn assert_only_pinned(spec: &Path, out: &Outcome) {
    let name = spec.file_name().unwrap().to_string_lossy().into_owned();
    if let Ok(dir) = std::env::var("MOCK_DUMP") {
        std::fs::write(format!("{dir}/{name}.txt"), &out.summary).unwrap();
    }
    let failed: Vec<&CheckResult> = out
        .results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .collect();
    let pinned = |check: &str, case: &str| {
        PINNED
            .iter()
            .any(|(s, c, k, _)| *s == name && *c == check && *k == case)
    };
    let unexpected: Vec<String> = failed
        .iter()
        .filter(|r| !pinned(r.check.as_str(), &r.case))
        .map(|r| {
            let got = r.got.as_ref().map(|g| {
                let body: String = g.body.chars().take(200).collect();
                format!("{:?} {body}", g.status)
            });
            let curl: String = r
                .curl
                .clone()
                .unwrap_or_default()
                .chars()
                .take(300)
                .collect();
            format!(
                "{} | {} | {} | {got:?} | {curl}",
                r.check, r.case, r.message
            )
        })
        .collect();
    let last = out
        .summary
        .lines()
        .rev()
        .find(|l| l.contains(" passed, "))
        .unwrap_or("");
    eprintln!("{name}: {}", last.trim());
    assert!(
        unexpected.is_empty(),
        "{name}: {} unexpected failures:\n{}\n{}",
        unexpected.len(),
        unexpected.join("\n"),
        out.summary
    );
}

fn prefect() -> PathBuf {
    root().join("conformance/values/tests/specs/prefect-3.9.1-openapi.json")
}

fn corpus(file: &str) -> PathBuf {
    root().join("codegen/tests/corpus").join(file)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefect_stateless_reads() {
    let spec = prefect();
    assert_only_pinned(&spec, &run(&spec, false, false).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefect_stateful_writes_and_chains() {
    let spec = prefect();
    let out = run(&spec, true, true).await;
    assert_only_pinned(&spec, &out);
    // The chains ran: the stateful mock was judged on what it keeps.
    for check in ["ensure_resource_availability", "use_after_free"] {
        let passed = out
            .results
            .iter()
            .filter(|r| r.check.as_str() == check && r.verdict == Verdict::Passed)
            .count();
        assert!(
            passed > 10,
            "{check}: only {passed} passed\n{}",
            out.summary
        );
    }
}

macro_rules! corpus_tests {
    ($($name:ident => $file:literal,)*) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let spec = corpus($file);
            assert_only_pinned(&spec, &run(&spec, true, true).await);
        }
    )*};
}

corpus_tests! {
    corpus_github => "api.github.com.json",
    corpus_buildomat => "buildomat.json",
    corpus_cli_gen => "cli-gen.json",
    corpus_keeper => "keeper.json",
    corpus_kinto => "kinto-26.5.0-api.json",
    corpus_nexus => "nexus.json",
    corpus_param_collision => "param-collision.json",
    corpus_propolis => "propolis-server.json",
    corpus_tradovate => "tradovate-openapi-2026-08-21.json",
    corpus_jupyter => "jupyter-server-2.21.1-api.yaml",
    corpus_param_overrides => "param-overrides.yaml",
}
