//! Real history on a public spec: GitHub's REST description from the corpus
//! (`codegen/tests/corpus/api.github.com.json`) against a copy edited the way GitHub's
//! REST changelog describes the breaking changes of API version 2026-03-10 that this
//! document can show (no older or newer copy of it is in the repository):
//!
//! - "Remove the deprecated `rate` property from the rate limit endpoint" (`GET
//!   /rate_limit`; `resources.core` has the same figures);
//! - "Remove the deprecated `permission` property from the request when creating a team"
//!   (`POST /orgs/{org}/teams`).
//!
//! The other entries of that version (submodules reported as `type: submodule` by the
//! contents API, the `pre_receive_hook_id` path parameter of GitHub Enterprise Server
//! becoming a string) touch nothing this document types: the contents answer's `type` is
//! a free string, and the pre-receive hook operations are not in api.github.com.

use serde_json::Value;
use spec_diff::Options;
use spec_diff::rules::{Kind, Semver};

fn github() -> (String, Value) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../codegen/tests/corpus/api.github.com.json"
    );
    let text = std::fs::read_to_string(path).expect("the corpus's GitHub description");
    let value = serde_json::from_str(&text).expect("JSON");
    (text, value)
}

/// The 2026-03-10 changes applied to the document.
fn version_2026_03_10(mut spec: Value) -> Value {
    let overview = &mut spec["components"]["schemas"]["rate-limit-overview"];
    overview["properties"]
        .as_object_mut()
        .expect("properties")
        .remove("rate")
        .expect("`rate` is there to remove");
    overview["required"] = serde_json::json!(["resources"]);
    let team = &mut spec["paths"]["/orgs/{org}/teams"]["post"]["requestBody"]["content"]["application/json"]
        ["schema"]["properties"];
    team.as_object_mut()
        .expect("properties")
        .remove("permission")
        .expect("`permission` is there to remove");
    spec
}

#[test]
fn github_rest_2026_03_10_changes() {
    let (text, value) = github();
    let old = spec_model::Source {
        name: "api.github.com.json".into(),
        text,
    };
    let new = spec_model::Source {
        name: "api.github.com.2026-03-10.json".into(),
        text: serde_json::to_string(&version_2026_03_10(value)).expect("JSON"),
    };
    let report = spec_diff::diff(&old, &new, &Options::default()).expect("both read");
    let wire: Vec<(&str, &str)> = report
        .findings
        .iter()
        .filter(|f| f.kind == Kind::Wire)
        .map(|f| (f.rule, f.pointer.as_str()))
        .collect();
    assert_eq!(
        wire,
        [
            (
                "request-property-removed",
                "/paths/~1orgs~1{org}~1teams/post/requestBody/content/application~1json/schema/properties/permission"
            ),
            (
                "response-required-property-removed",
                "/components/schemas/rate-limit-overview/properties/rate"
            ),
        ]
    );
    let rate = report
        .findings
        .iter()
        .find(|f| f.rule == "response-required-property-removed")
        .expect("rate");
    assert_eq!(rate.operations, ["GET /rate_limit"]);
    assert_eq!(rate.subject.as_deref(), Some("rate-limit-overview"));
    // Both fields leave the generated models: a major change of the crate.
    assert_eq!(report.rust.bump, Some(Semver::Major));
    let removed: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.rule == "rust-field-removed")
        .map(|f| f.pointer.as_str())
        .collect();
    assert!(
        removed
            .iter()
            .any(|p| p.ends_with("RateLimitOverview::rate")),
        "{removed:?}"
    );
    assert!(
        removed.iter().any(|p| p.ends_with("::permission")),
        "{removed:?}"
    );
    // The document's info.version (1.1.4) did not move: the breaking change is flagged.
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.rule == "api-version-not-bumped")
    );
}
