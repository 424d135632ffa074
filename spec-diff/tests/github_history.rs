//! A real release history of another generator's document: GitHub's REST description as
//! published in npm `@octokit/openapi` 22.0.0 and 23.0.0 (`generated/api.github.com.json`
//! of each, 13 MB, 811 paths; MIT). Too large to keep in the repository, so the test is
//! ignored in a plain run and `cargo xtask diff --github-history` fetches the two files
//! (into `target/tools/`) and runs it, naming them in `GITHUB_REST_OLD`/`GITHUB_REST_NEW`.
//!
//! Every ERR and WARN the diff reports on the wire is pinned in
//! `tests/history/github-rest-22.0.0-to-23.0.0.json` with why it is right: each was
//! checked by hand against the two documents (`$ref`s resolved, `allOf` parts merged). The
//! history is hard where Prefect's is not: models reached through `allOf: [{$ref: X},
//! {…}]`, enums rewritten as `oneOf` of one-value enums, request bodies whose `oneOf`
//! only lists required-property sets, unions of 30 event types that grow.

use std::collections::BTreeMap;

use serde::Deserialize;
use spec_diff::Options;
use spec_diff::finding::Ours;
use spec_diff::rules::{Kind, Level};

#[derive(Deserialize)]
struct Pinned {
    level: String,
    rule: String,
    pointer: String,
    ours: Ours,
    why: String,
}

fn document(var: &str) -> spec_model::Source {
    let path = std::env::var(var).unwrap_or_else(|_| {
        panic!("{var} names a GitHub REST description (cargo xtask diff --github-history)")
    });
    spec_model::Source {
        name: var.to_owned(),
        text: std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")),
    }
}

#[test]
#[ignore = "needs two GitHub REST descriptions from npm: cargo xtask diff --github-history"]
fn github_rest_22_to_23_every_err_and_warn_is_pinned_and_right() {
    let report = spec_diff::diff(
        &document("GITHUB_REST_OLD"),
        &document("GITHUB_REST_NEW"),
        &Options::default(),
    )
    .expect("both read");
    let pinned: Vec<Pinned> =
        serde_json::from_str(include_str!("history/github-rest-22.0.0-to-23.0.0.json"))
            .expect("the pinned list");
    assert!(pinned.iter().all(|p| !p.why.trim().is_empty()));
    let found: Vec<(&str, &str, &str, Ours)> = report
        .findings
        .iter()
        .filter(|f| f.kind == Kind::Wire && f.level != Level::Info)
        .map(|f| (f.level.as_str(), f.rule, f.pointer.as_str(), f.ours))
        .collect();
    let expected: Vec<(&str, &str, &str, Ours)> = pinned
        .iter()
        .map(|p| {
            (
                p.level.as_str(),
                p.rule.as_str(),
                p.pointer.as_str(),
                p.ours,
            )
        })
        .collect();
    assert_eq!(found, expected);

    let mut info: BTreeMap<&str, usize> = BTreeMap::new();
    for f in report
        .findings
        .iter()
        .filter(|f| f.kind == Kind::Wire && f.level == Level::Info)
    {
        *info.entry(f.rule).or_default() += 1;
    }
    let expected: BTreeMap<&str, usize> = [
        ("api-added", 155),
        ("api-deprecated", 6),
        ("new-optional-request-body", 1),
        ("new-optional-request-parameter", 21),
        ("new-optional-request-property", 93),
        ("request-enum-value-added", 7),
        ("request-limits-relaxed", 9),
        ("request-one-of-branch-added", 6),
        ("request-pattern-rewritten", 1),
        ("request-type-widened", 3),
        ("response-enum-value-removed", 1),
        ("response-media-type-added", 6),
        ("response-property-added", 294),
        ("response-status-added", 33),
    ]
    .into();
    assert_eq!(info, expected);
}
