//! The focused spec pairs of `tests/pairs/<rule>/` (written by `make_pairs.py`): each
//! shows the rule it is named after, and the three outputs of every pair are snapshots.

use std::path::{Path, PathBuf};

use spec_diff::rules::{Kind, Level, RULES};
use spec_diff::{FailOn, Ignore, Options, Report, render};

fn pairs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pairs")
}

fn source(dir: &Path, file: &str) -> spec_model::Source {
    spec_model::Source {
        name: file.to_owned(),
        text: std::fs::read_to_string(dir.join(file)).expect("pair file"),
    }
}

fn run(name: &str, options: &Options) -> Report {
    let dir = pairs_dir().join(name);
    spec_diff::diff(
        &source(&dir, "old.yaml"),
        &source(&dir, "new.yaml"),
        options,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(pairs_dir())
        .expect("tests/pairs")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn every_rule_has_a_pair_that_shows_it() {
    let names = names();
    let mut missing = Vec::new();
    let mut silent = Vec::new();
    for rule in RULES {
        if !names.iter().any(|n| n == rule.name) {
            missing.push(rule.name);
            continue;
        }
        let report = run(rule.name, &Options::default());
        if !report.findings.iter().any(|f| f.rule == rule.name) {
            let found: Vec<&str> = report.findings.iter().map(|f| f.rule).collect();
            silent.push(format!("{} found {found:?}", rule.name));
        }
    }
    assert!(missing.is_empty(), "rules without a pair: {missing:?}");
    assert!(
        silent.is_empty(),
        "pairs that do not show their rule:\n{}",
        silent.join("\n")
    );
}

#[test]
fn every_pair_in_three_formats() {
    for name in names() {
        let report = run(&name, &Options::default());
        let all = format!(
            "{}\n----- markdown -----\n{}\n----- json -----\n{}\n",
            render::text(&report),
            render::markdown(&report),
            render::json(&report)
        );
        insta::assert_snapshot!(name.clone(), all);
    }
}

#[test]
fn a_major_version_bump_silences_the_version_rule() {
    let report = run("api-version-bumped", &Options::default());
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.rule == "api-removed-without-deprecation")
    );
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.rule == "api-version-not-bumped")
    );
}

#[test]
fn the_same_api_in_3_0_and_3_1_has_no_wire_change() {
    let report = run("openapi-3.0-to-3.1", &Options::default());
    assert_eq!(report.old.openapi, "3.0.3");
    assert_eq!(report.new.openapi, "3.1.0");
    let wire: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.kind == Kind::Wire)
        .collect();
    assert!(wire.is_empty(), "{wire:?}");
}

#[test]
fn fail_on_selects_by_kind() {
    // A removed operation: a wire ERR and a major change of the crate.
    let report = run("api-removed-without-deprecation", &Options::default());
    assert!(!report.failing(FailOn::Wire).is_empty());
    assert!(!report.failing(FailOn::Major).is_empty());
    assert!(!report.failing(FailOn::Minor).is_empty());
    assert!(report.failing(FailOn::Decision).is_empty());
    // A tightened request maxLength: a wire ERR, no signature changes.
    let report = run("request-max-length-decreased", &Options::default());
    assert!(!report.failing(FailOn::Wire).is_empty());
    assert!(
        report.failing(FailOn::Major).is_empty(),
        "{:?}",
        report.failing(FailOn::Major)
    );
    // A new optional query parameter: compatible on the wire, major in Rust.
    let report = run("new-optional-request-parameter", &Options::default());
    assert!(report.failing(FailOn::Wire).is_empty());
    assert!(!report.failing(FailOn::Major).is_empty());
    // A loosened decision.
    let report = run("decision-level-loosened", &Options::default());
    assert!(!report.failing(FailOn::Decision).is_empty());
    assert!(report.failing(FailOn::Wire).is_empty());
    // A changed decision row trips it; a rule added does not.
    let report = run("decision-changed", &Options::default());
    assert!(!report.failing(FailOn::Decision).is_empty());
    let report = run("project-rule-added", &Options::default());
    assert!(report.failing(FailOn::Decision).is_empty());
}

#[test]
fn ignored_changes_are_listed_but_do_not_fail() {
    let ignore = Ignore::parse(
        "- rule: api-removed-without-deprecation\n  operation: GET /pets/{id}\n  reason: moved to v2, ticket API-7\n\
         - rule: rust-item-removed\n  reason: the crate's major bump is planned\n\
         - rule: request-enum-value-removed\n  reason: stale entry\n",
    )
    .expect("ignore file");
    let options = Options {
        ignore,
        ..Options::default()
    };
    let report = run("api-removed-without-deprecation", &options);
    assert!(report.failing(FailOn::Wire).is_empty());
    let accepted = report
        .findings
        .iter()
        .find(|f| f.rule == "api-removed-without-deprecation")
        .expect("still listed");
    assert_eq!(
        accepted.ignored.as_deref(),
        Some("moved to v2, ticket API-7")
    );
    // Ignored, the breaking change no longer asks for a major version.
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.rule == "api-version-not-bumped")
    );
    assert_eq!(report.unused_ignores.len(), 1);
    assert_eq!(report.unused_ignores[0].rule, "request-enum-value-removed");
    let text = render::text(&report);
    assert!(text.contains("IGNORED"), "{text}");
    assert!(text.contains("STALE"), "{text}");
}

#[test]
fn an_unreadable_spec_is_an_error_not_a_report() {
    let dir = pairs_dir().join("api-added");
    let bad = spec_model::Source {
        name: "bad.yaml".into(),
        text: "openapi: 3.0.3\npaths: [1, 2\n".into(),
    };
    let err = spec_diff::diff(&source(&dir, "old.yaml"), &bad, &Options::default()).unwrap_err();
    assert!(matches!(err, spec_diff::Error::Spec(_)), "{err}");
    assert!(err.to_string().contains("bad.yaml"), "{err}");
}

#[test]
fn levels_sort_errors_first_in_text() {
    let report = run("api-version-not-bumped", &Options::default());
    let text = render::text(&report);
    let err = text.find("\nERR").expect("ERR section");
    let warn = text.find("\nWARN").expect("WARN section");
    assert!(err < warn, "{text}");
    assert!(report.findings.iter().any(|f| f.level == Level::Err));
}

/// A spec of the first `n` (at most `removed_from`) of a list of operations, each
/// answering the shared schema `Thing` whose `size` is `size_type`.
fn many(n: usize, size_type: &str, removed_from: usize) -> spec_model::Source {
    let mut text = String::from("openapi: 3.0.3\ninfo: {title: many, version: '1'}\n");
    text.push_str(if n.min(removed_from) == 0 {
        "paths: {}\n"
    } else {
        "paths:\n"
    });
    for i in 0..n.min(removed_from) {
        text.push_str(&format!(
            "  /things{i}:\n    get:\n      operationId: get_things_{i}\n      parameters:\n        - {{name: filter_with_a_rather_long_name_{i}, in: query, schema: {{type: string}}}}\n      responses:\n        '200': {{description: ok, content: {{application/json: {{schema: {{$ref: '#/components/schemas/Thing'}}}}}}}}\n"
        ));
    }
    text.push_str(&format!(
        "components:\n  schemas:\n    Thing:\n      type: object\n      required: [size]\n      properties:\n        size: {{type: {size_type}}}\n"
    ));
    spec_model::Source {
        name: "many.yaml".into(),
        text,
    }
}

#[test]
fn one_change_of_a_shared_schema_is_one_finding_and_the_text_fits_a_terminal() {
    let report = spec_diff::diff(
        &many(40, "integer", usize::MAX),
        &many(40, "string", usize::MAX),
        &Options::default(),
    )
    .expect("both read");
    let shared: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.operations.len() == 40)
        .collect();
    assert!(!shared.is_empty(), "{:#?}", report.findings);
    let text = render::text(&report);
    assert!(
        text.contains("and 34 more operations (--verbose names them)"),
        "{text}"
    );
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(widest <= 200, "a line of {widest} characters:\n{text}");
    let verbose = render::text_with(&report, true);
    assert!(verbose.contains("GET /things39"), "{verbose}");
    assert!(!verbose.contains("more operations"), "{verbose}");
}

#[test]
fn a_markdown_report_fits_a_pull_request_comment_and_says_what_it_cut() {
    // 1,500 operations removed: one finding each, far beyond one comment.
    let report = spec_diff::diff(
        &many(1_500, "integer", usize::MAX),
        &many(1_500, "integer", 0),
        &Options::default(),
    )
    .expect("both read");
    assert!(report.findings.len() >= 1_500);
    let md = render::markdown(&report);
    assert!(md.len() <= 60_000, "{} characters", md.len());
    assert!(md.starts_with("## API changes"), "the summary comes first");
    assert!(
        md.contains("more finding(s) not shown"),
        "{}",
        &md[md.len() - 400..]
    );
}

#[test]
fn a_spec_the_generator_refuses_still_gets_its_wire_report() {
    // The old spec answers a schema that does not exist: the generator refuses it, the
    // wire can still be compared.
    let side = |schema: &str, extra: &str| spec_model::Source {
        name: format!("{schema}.yaml"),
        text: format!(
            "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths:\n  /pets:\n    get:\n      operationId: list_pets\n      responses:\n        '200': {{description: ok, content: {{application/json: {{schema: {{$ref: '#/components/schemas/{schema}'}}}}}}}}\n{extra}components:\n  schemas:\n    Pet: {{type: object, properties: {{id: {{type: integer}}}}}}\n"
        ),
    };
    let removed = "  /pets/{id}:\n    get:\n      operationId: get_pet\n      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]\n      responses:\n        '200': {description: ok}\n";
    let report = spec_diff::diff(
        &side("Missing", removed),
        &side("Pet", ""),
        &Options::default(),
    )
    .expect("the wire is compared although the old crate cannot be generated");
    let why = report
        .rust
        .unjudged
        .as_deref()
        .expect("the Rust side says why it is not judged");
    assert!(why.contains("Missing.yaml"), "{why}");
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.rule == "api-removed-without-deprecation"),
        "{:#?}",
        report.findings
    );
    assert!(report.findings.iter().all(|f| f.kind != Kind::Rust));
    let text = render::text(&report);
    assert!(text.contains("rust: not judged"), "{text}");
}
