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
//!
//! And two real releases of a hand-written Swagger 2.0 description: jupyter_server's
//! `api.yaml` from its 1.24.0 wheel (`tests/history/`) and its 2.21.1 wheel (the corpus).

use serde_json::Value;
use spec_diff::Options;
use spec_diff::finding::Ours;
use spec_diff::rules::{Kind, Level, Semver};

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

/// jupyter_server 1.24.0 -> 2.21.1, both Swagger 2.0, read as their OpenAPI 3.0
/// equivalents. Checked by hand against `diff` of the two files: between the releases
/// the API only grew (`GET /api/`, `GET /api/me` with a `permissions` parameter,
/// `GET /api/resolvePath`, a `hash` query parameter on `GET /api/contents/{path}`, `hash`
/// and `hash_algorithm` on the `Contents` model) and descriptions were reworded, so
/// there is no ERR and no WARN on the wire; the crate is major because the contents
/// method gained an optional argument (it is now a request builder).
#[test]
fn jupyter_server_1_24_to_2_21_only_grew() {
    let read = |path: &str, name: &str| spec_model::Source {
        name: name.into(),
        text: std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
            .expect("fixture"),
    };
    let report = spec_diff::diff(
        &read(
            "tests/history/jupyter-server-1.24.0-api.yaml",
            "jupyter-server-1.24.0-api.yaml",
        ),
        &read(
            "../codegen/tests/corpus/jupyter-server-2.21.1-api.yaml",
            "jupyter-server-2.21.1-api.yaml",
        ),
        &Options::default(),
    )
    .expect("both read");
    let wire: Vec<(Level, &str, &str, Ours)> = report
        .findings
        .iter()
        .filter(|f| f.kind == Kind::Wire)
        .map(|f| (f.level, f.rule, f.pointer.as_str(), f.ours))
        .collect();
    let contents = "/components/schemas/Contents/properties";
    assert_eq!(
        wire,
        [
            (
                Level::Info,
                "new-optional-request-parameter",
                "/paths/~1api~1contents~1{path}/get/parameters/3",
                Ours::Unaffected
            ),
            (
                Level::Info,
                "response-property-added",
                &*format!("{contents}/hash"),
                Ours::ReadsThrough
            ),
            (
                Level::Info,
                "response-property-added",
                &*format!("{contents}/hash_algorithm"),
                Ours::ReadsThrough
            ),
            (
                Level::Info,
                "api-added",
                "/paths/~1api~1/get",
                Ours::Unaffected
            ),
            (
                Level::Info,
                "api-added",
                "/paths/~1api~1resolvePath/get",
                Ours::Unaffected
            ),
            (
                Level::Info,
                "api-added",
                "/paths/~1api~1me/get",
                Ours::Unaffected
            ),
        ]
    );
    assert_eq!(report.rust.bump, Some(Semver::Major));
}
