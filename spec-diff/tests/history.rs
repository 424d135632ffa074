//! This project's own spec through its history: `tests/history/` holds
//! `spec/openapi.yaml` as committed at 848f33b (the first whole spec) and at 38b34aa
//! ("every decision in the spec"), copied with `git show REV:spec/openapi.yaml` so the
//! test needs no git history.

use std::path::Path;

use spec_diff::rules::Kind;
use spec_diff::{Options, render};

fn source(path: &Path) -> spec_model::Source {
    spec_model::Source {
        name: path
            .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap())
            .unwrap_or(path)
            .display()
            .to_string(),
        text: std::fs::read_to_string(path).expect("spec file"),
    }
}

fn history(file: &str) -> spec_model::Source {
    source(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/history")
            .join(file),
    )
}

/// The commit that put every decision into the spec: on the wire nothing changed, the
/// decisions arrived as x- rules (each a finding of its own), and the crate gained the
/// business-rejection variants (minor: the error enums are #[non_exhaustive]).
#[test]
fn every_decision_in_the_spec_848f33b_to_38b34aa() {
    let report = spec_diff::diff(
        &history("openapi-848f33b.yaml"),
        &history("openapi-38b34aa.yaml"),
        &Options::default(),
    )
    .expect("both read");
    assert!(!report.findings.iter().any(|f| f.kind == Kind::Wire));
    for pointer in [
        "/x-max-body",
        "/x-non-bmp",
        "/x-server-errors",
        "/x-unknown-path",
    ] {
        assert!(
            report
                .findings
                .iter()
                .any(|f| f.rule == "project-rule-added" && f.pointer == pointer),
            "{pointer}"
        );
    }
    insta::assert_snapshot!(render::text(&report));
}

/// From the first whole spec to the spec as it is now: whatever else changes later, the
/// decisions added since then are found, and the report renders in every format.
#[test]
fn the_first_whole_spec_against_the_spec_now() {
    let now = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.yaml");
    let report = spec_diff::diff(
        &history("openapi-848f33b.yaml"),
        &source(&now),
        &Options::default(),
    )
    .expect("both read");
    for pointer in ["/x-max-body", "/x-mistyped-input", "/x-undeclared-status"] {
        assert!(
            report.findings.iter().any(|f| f.pointer == pointer),
            "{pointer}: {}",
            render::text(&report)
        );
    }
    // The suggest operation's arguments were renamed by x-rust-name: argument names are
    // not part of a signature, so that alone is no major change of the method.
    assert!(!report.findings.iter().any(|f| {
        f.rule == "rust-fn-signature-changed"
            && f.pointer == "client::Client::suggest_risk_categories"
    }));
    assert!(!render::markdown(&report).is_empty());
    assert!(render::json(&report).starts_with('{'));
}
