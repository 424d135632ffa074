//! A spec that reuses an `operationId` (which the generator takes, with a
//! `duplicate-operation-id` warning) is compared like any other: the diff reads its
//! operations by method and path and its crate under the generator's numbered names.

use spec_diff::Options;
use spec_diff::rules::Semver;

const OLD: &str = r##"
openapi: 3.0.3
info: { title: t, version: "1" }
paths:
  /x:
    get: { operationId: getThing, responses: { "204": { description: ok } } }
  /y:
    get: { operationId: getThing, responses: { "204": { description: ok } } }
"##;

fn source(name: &str, text: &str) -> spec_model::Source {
    spec_model::Source {
        name: name.to_owned(),
        text: text.to_owned(),
    }
}

#[test]
fn a_spec_with_a_duplicated_operation_id_is_compared() {
    // Unchanged: nothing to report, though the generator warns about the duplicate.
    let same = spec_diff::diff(
        &source("old.yaml", OLD),
        &source("new.yaml", OLD),
        &Options::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(same.findings.is_empty(), "{:?}", same.findings);
    assert_eq!(same.rust.bump, None);

    // The author fixes the duplicate: the second operation's id and method change, which
    // breaks callers of `get_thing2`.
    let fixed = OLD.replace(
        "/y:\n    get: { operationId: getThing",
        "/y:\n    get: { operationId: getOther",
    );
    assert_ne!(fixed, OLD);
    let report = spec_diff::diff(
        &source("old.yaml", OLD),
        &source("new.yaml", &fixed),
        &Options::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let id_changed: Vec<&Vec<String>> = report
        .findings
        .iter()
        .filter(|f| f.rule == "api-operation-id-changed")
        .map(|f| &f.operations)
        .collect();
    assert_eq!(
        id_changed,
        [&vec!["GET /y".to_owned()]],
        "{:#?}",
        report.findings
    );
    assert_eq!(report.rust.bump, Some(Semver::Major));
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.message.contains("get_thing2")),
        "{:#?}",
        report.findings
    );
}
