//! A real release history of an application no one here wrote: the OpenAPI documents
//! Prefect server 3.1.0 and 3.9.1 serve at `/api/openapi.json` (FastAPI and Pydantic
//! write them; provenance in `tests/history/README.md`). Every ERR and WARN the diff
//! reports on the wire is pinned below with why it is right, each checked by hand
//! against the two documents; the INFO findings are held by their counts.
//!
//! The history is hard in the ways real ones are: Pydantic wraps optional fields as
//! `anyOf: [X, {type: null}]`, reorders and grows unions, splits models into `X-Input`/
//! `X-Output`, and 3.1.0's Pydantic wrote some limits as `min_items`/`max_items` (not JSON
//! Schema keywords, so no client could see them) where 3.9.1 writes `minItems`/`maxItems`.

use std::collections::BTreeMap;
use std::path::Path;

use spec_diff::finding::Ours;
use spec_diff::rules::{Kind, Level};
use spec_diff::{Options, Report, render};

fn history(file: &str) -> spec_model::Source {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/history")
        .join(file);
    spec_model::Source {
        name: format!("tests/history/{file}"),
        text: std::fs::read_to_string(&path).expect("the Prefect fixtures"),
    }
}

fn report() -> Report {
    spec_diff::diff(
        &history("prefect-3.1.0-openapi.json"),
        &history("prefect-3.9.1-openapi.json"),
        &Options::default(),
    )
    .expect("both documents read")
}

const S: &str = "/components/schemas/";

/// Every wire ERR and WARN: (level, rule, pointer below `/components/schemas/` or
/// `/paths/`, what the old crate does with it, why the finding is right).
#[rustfmt::skip]
const PINNED: &[(&str, &str, &str, Ours, &str)] = &[
    ("ERR", "request-type-changed", "FlowRunPolicy/properties/pause_keys/anyOf/0/items", Ours::Breaks,
     "items were `{}` (any value) and are `string`: a client sending [1] is now refused"),
    ("WARN", "request-property-removed", "Body_flow_run_history_flow_runs_history_post/properties/history_interval", Ours::Breaks,
     "the required `history_interval` is gone from the body (renamed `history_interval_seconds`)"),
    ("ERR", "new-required-request-property", "Body_flow_run_history_flow_runs_history_post/properties/history_interval_seconds", Ours::Breaks,
     "`history_interval_seconds` is new and listed in `required`: old requests lack it"),
    ("ERR", "response-became-nullable", "Graph/properties/start_time", Ours::Breaks,
     "required `string (date-time)` became `anyOf: [date-time, null]`; the old crate's field is a plain DateTime"),
    ("ERR", "response-became-nullable", "GraphArtifact/properties/type", Ours::Breaks,
     "required `string` became `anyOf: [string, null]`; the old field is a plain String"),
    ("WARN", "response-one-of-branch-added", "TaskRunPolicy/properties/retry_delay/anyOf/1", Ours::ReadsThrough,
     "`[integer, array, null]` became `[integer, number, array, array, null]`: `number` is new (the old union's fallback keeps it)"),
    ("WARN", "response-one-of-branch-added", "TaskRunPolicy/properties/retry_delay/anyOf/3", Ours::ReadsThrough,
     "the second array branch holds numbers where the old one held integers"),
    ("WARN", "response-one-of-branch-added", "TaskRun/properties/task_inputs/additionalProperties/items/anyOf/1", Ours::ReadsThrough,
     "`FlowRunResult` joined the task input union"),
    ("WARN", "request-property-removed", "Body_task_run_history_task_runs_history_post/properties/history_interval", Ours::Breaks,
     "as for flow runs: `history_interval` gone"),
    ("ERR", "new-required-request-property", "Body_task_run_history_task_runs_history_post/properties/history_interval_seconds", Ours::Breaks,
     "as for flow runs: `history_interval_seconds` required"),
    ("ERR", "api-removed-without-deprecation", "/paths/~1flow_run_notification_policies~1/post", Ours::Breaks,
     "the notification-policy operations are gone from 3.9.1 and none was deprecated in 3.1.0"),
    ("ERR", "api-removed-without-deprecation", "/paths/~1flow_run_notification_policies~1{id}/get", Ours::Breaks, "as above"),
    ("ERR", "api-removed-without-deprecation", "/paths/~1flow_run_notification_policies~1{id}/delete", Ours::Breaks, "as above"),
    ("ERR", "api-removed-without-deprecation", "/paths/~1flow_run_notification_policies~1{id}/patch", Ours::Breaks, "as above"),
    ("ERR", "api-removed-without-deprecation", "/paths/~1flow_run_notification_policies~1filter/post", Ours::Breaks, "as above"),
    ("ERR", "request-exclusive-minimum-increased", "IntervalSchedule-Input/properties/interval/anyOf/0", Ours::Breaks,
     "`IntervalSchedule` became `IntervalSchedule-Input` (paired as a rename): `interval` was `number`, its number branch now has `exclusiveMinimum: 0`"),
    ("ERR", "request-min-items-increased", "Body_bulk_increment_active_slots_v2_concurrency_limits_increment_post/properties/names", Ours::Breaks,
     "`minItems: 1` is new (3.1.0 wrote `min_items`, which no JSON Schema reader knows)"),
    ("ERR", "request-min-items-increased", "Body_bulk_decrement_active_slots_v2_concurrency_limits_decrement_post/properties/names", Ours::Breaks,
     "as above"),
    ("ERR", "request-pattern-added", "BlockDocumentCreate/properties/name/anyOf/0", Ours::Breaks,
     "the name's string branch gained `pattern: ^[^/%&><]+$`"),
    ("ERR", "response-became-nullable", "WorkerResponse/properties/last_heartbeat_time", Ours::ReadsThrough,
     "optional `string (date-time)` became `anyOf: [date-time, null]`: a break for clients typed on the old schema; the old crate's field is an Option"),
    ("WARN", "request-property-removed", "Body_read_work_queue_runs_work_queues__id__get_runs_post/properties/agent_id", Ours::Breaks,
     "the optional `agent_id` is gone from the body"),
    ("ERR", "request-minimum-increased", "EventTrigger-Input/properties/within", Ours::Breaks,
     "`within` was `number` and is `anyOf: [number, string (duration)]` with `minimum: 0` beside it"),
    ("WARN", "response-one-of-branch-added", "EventTrigger-Output/properties/match_related/anyOf/2", Ours::Breaks,
     "a list of specifications may now come where one `ResourceSpecification` did; the old crate's type cannot hold a list (the inline copy of `ResourceSpecification` in branch 1 is no new branch)"),
    ("WARN", "response-one-of-branch-added", "Automation/properties/actions/items/anyOf/5", Ours::ReadsThrough,
     "`DeleteFlowRun` joined the action union (the old union's fallback keeps it)"),
    ("WARN", "response-one-of-branch-added", "Automation/properties/actions_on_trigger/items/anyOf/5", Ours::ReadsThrough, "as above"),
    ("WARN", "response-one-of-branch-added", "Automation/properties/actions_on_resolve/items/anyOf/5", Ours::ReadsThrough, "as above"),
    ("ERR", "request-max-items-decreased", "Body_count_deployments_by_flow_ui_flows_count_deployments_post/properties/flow_ids", Ours::Breaks,
     "`maxItems: 200` is new (3.1.0 wrote `max_items`)"),
    ("ERR", "request-max-items-decreased", "Body_next_runs_by_flow_ui_flows_next_runs_post/properties/flow_ids", Ours::Breaks, "as above"),
    ("ERR", "request-max-items-decreased", "Body_count_task_runs_by_flow_run_ui_flow_runs_count_task_runs_post/properties/flow_run_ids", Ours::Breaks, "as above"),
    ("WARN", "request-property-removed", "Body_validate_obj_ui_schemas_validate_post/properties/json_schema", Ours::Breaks,
     "the required `json_schema` is gone (renamed `schema`)"),
    ("ERR", "new-required-request-property", "Body_validate_obj_ui_schemas_validate_post/properties/schema", Ours::Breaks,
     "`schema` is new and required"),
    ("ERR", "api-removed-without-deprecation", "/paths/~1admin~1database~1clear/post", Ours::Breaks,
     "the database admin operations are gone (3.9.1 has `/admin/storage` instead), none deprecated before"),
    ("ERR", "api-removed-without-deprecation", "/paths/~1admin~1database~1drop/post", Ours::Breaks, "as above"),
    ("ERR", "api-removed-without-deprecation", "/paths/~1admin~1database~1create/post", Ours::Breaks, "as above"),
];

fn full(pointer: &str) -> String {
    if pointer.starts_with('/') {
        pointer.to_owned()
    } else {
        format!("{S}{pointer}")
    }
}

#[test]
fn every_err_and_warn_on_the_wire_is_pinned_and_right() {
    let report = report();
    let found: Vec<(&str, &str, String, Ours)> = report
        .findings
        .iter()
        .filter(|f| f.kind == Kind::Wire && f.level != Level::Info)
        .map(|f| (f.level.as_str(), f.rule, f.pointer.clone(), f.ours))
        .collect();
    let pinned: Vec<(&str, &str, String, Ours)> = PINNED
        .iter()
        .map(|&(level, rule, pointer, ours, _why)| (level, rule, full(pointer), ours))
        .collect();
    assert_eq!(found, pinned);
}

#[test]
fn the_info_findings_hold_their_counts() {
    let report = report();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for f in report
        .findings
        .iter()
        .filter(|f| f.kind == Kind::Wire && f.level == Level::Info)
    {
        *counts.entry(f.rule).or_default() += 1;
    }
    let expected: BTreeMap<&str, usize> = [
        ("api-added", 18),
        ("new-optional-request-body", 1),
        ("new-optional-request-property", 40),
        ("request-enum-value-added", 1),
        ("request-one-of-branch-added", 16),
        ("request-type-widened", 35),
        ("response-property-added", 20),
    ]
    .into();
    assert_eq!(counts, expected);
}

/// Pydantic's optional filters: `{$ref: X}` became `anyOf: [{$ref: X}, {type: null}]`
/// in every filter body. That admits more, so it is a widening, and the filter
/// schemas themselves (unchanged) report nothing removed.
#[test]
fn filters_that_became_nullable_are_widenings() {
    let report = report();
    let body = format!("{S}Body_read_deployments_deployments_filter_post/properties/");
    for filter in [
        "flows",
        "flow_runs",
        "task_runs",
        "deployments",
        "work_pools",
    ] {
        let pointer = format!("{body}{filter}");
        let found: Vec<(&str, &str)> = report
            .findings
            .iter()
            .filter(|f| f.pointer == pointer)
            .map(|f| (f.rule, f.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [("request-type-widened", "null is now allowed too")],
            "{filter}"
        );
    }
    assert_eq!(
        report
            .findings
            .iter()
            .filter(|f| f.rule == "request-property-removed")
            .count(),
        4
    );
}

/// The reports fit where they go: no text line over 200 characters, Markdown under a
/// pull-request comment's limit with every wire finding in it (what was cut is Rust
/// findings, and it says how many), and one GitHub annotation per wire finding.
#[test]
fn the_reports_fit_a_pull_request() {
    let report = report();
    let text = render::text(&report);
    let longest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(longest <= 200, "longest text line: {longest}");
    let markdown = render::markdown(&report);
    assert!(markdown.chars().count() < 60_000, "{}", markdown.len());
    let wire = report
        .findings
        .iter()
        .filter(|f| f.kind == Kind::Wire)
        .count();
    assert_eq!(markdown.matches("| wire |").count(), wire);
    assert!(markdown.contains("<details open><summary><b>ERR</b>"));
    assert!(markdown.contains("more finding(s) not shown** (Rust ones first)"));
    let github = render::github(
        &report,
        &history("prefect-3.1.0-openapi.json"),
        &history("prefect-3.9.1-openapi.json"),
    );
    let annotations: Vec<&str> = github.lines().filter(|l| l.contains("title=")).collect();
    assert_eq!(
        annotations.len(),
        wire + 2,
        "wire, the version warning, the crate"
    );
    assert!(
        annotations[0].starts_with("::error file=tests/history/prefect-3.9.1-openapi.json,line=",),
        "{}",
        annotations[0]
    );
    // The removed operations are found in the old document.
    assert!(github.contains("::error file=tests/history/prefect-3.1.0-openapi.json,line="));
}
