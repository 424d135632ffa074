//! Every decision lives in the spec, none in the harness's code: changing a level in
//! `spec/openapi.yaml` changes the verdict, and no decision row is named in code (only in
//! comments, which may cite where a behaviour comes from).

mod common;

use std::path::{Path, PathBuf};

use conformance::execute;
use conformance::outcome::Verdict;
use reference_server::{Config, Fault};

const SPEC: &str = include_str!("../../spec/openapi.yaml");

/// The `token_type` rule of the token exchange, at SHOULD in the spec.
const SHOULD_RULE: &str = "fields: { token_type: Bearer }\n          level: should";

#[cfg(feature = "embedded")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_level_changed_in_the_spec_changes_the_verdict() {
    assert!(
        SPEC.contains(SHOULD_RULE),
        "the spec's token_type rule moved"
    );
    let fault: Fault = "token-type-wrong".parse().expect("the fault exists");
    let dir = tempfile::tempdir().expect("temp dir");
    let mut verdicts = Vec::new();
    for (name, text) in [
        ("should.yaml", SPEC.to_string()),
        (
            "must.yaml",
            SPEC.replace(SHOULD_RULE, &SHOULD_RULE.replace("should", "must")),
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write spec");
        let mut a = common::embedded_args();
        a.spec = Some(path);
        let config = Config {
            faults: vec![fault],
            ..Config::default()
        };
        let out = execute(&a, config).await.expect("run completes");
        let levels: Vec<_> = out
            .results
            .iter()
            .filter(|r| r.verdict == Verdict::Failed && r.check == "fields_equal")
            .map(|r| r.level)
            .collect();
        assert!(!levels.is_empty(), "{name}: the fault was not caught");
        verdicts.push((out.exit_code, levels[0]));
    }
    use conformance::spec::Level;
    assert_eq!(verdicts, [(0, Level::Should), (1, Level::Must)]);
}

/// Code lines (comments removed) of every source file under `dir`.
fn code_lines(dir: &Path, out: &mut Vec<(PathBuf, usize, String)>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            code_lines(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("read source");
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                out.push((path.clone(), i + 1, code.to_string()));
            }
        }
    }
}

#[test]
fn no_decision_row_is_named_in_code() {
    let mut lines = Vec::new();
    code_lines(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut lines,
    );
    assert!(lines.len() > 1000, "the sources were not found");
    let names_a_row = |code: &str| {
        let lower = code.to_ascii_lowercase();
        ["row ", "decisions", "decision "].iter().any(|w| {
            lower.match_indices(w).any(|(i, m)| {
                lower[i + m.len()..]
                    .trim_start_matches(['#', ' '])
                    .starts_with(|c: char| c.is_ascii_digit())
            })
        }) || lower
            .match_indices('#')
            .any(|(i, _)| lower[i + 1..].starts_with(|c: char| c.is_ascii_digit()))
    };
    // The detector itself catches the spellings it is meant to.
    for spelled in ["Level::Should // x", "let r = 6; // ok"] {
        assert!(
            !names_a_row(spelled.split("//").next().unwrap()),
            "{spelled}"
        );
    }
    for spelled in ["\"row 6\"", "DECISIONS row 20", "(decision 18)", "issue #6"] {
        assert!(names_a_row(spelled), "{spelled}");
    }
    let hits: Vec<String> = lines
        .iter()
        .filter(|(_, _, code)| names_a_row(code))
        .map(|(p, n, code)| format!("{}:{n}: {}", p.display(), code.trim()))
        .collect();
    assert!(hits.is_empty(), "decision rows named in code: {hits:#?}");
}
