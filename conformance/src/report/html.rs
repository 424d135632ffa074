//! The HTML report: one self-contained file a person opens from a CI artifact. It shows the
//! same document as the JSON report (verdict, run header, every result), grouped per
//! operation, failures first, with filters by level and verdict; above them the undeclared
//! statuses several operations share, and below them the checks with nothing to judge.
//!
//! The page fetches nothing: the style sheet and the filter script are inline, and every
//! value from the target is escaped by `maud`'s templates, so a hostile answer body cannot
//! inject markup into the page.

use std::collections::BTreeMap;

use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::RunState;
use super::json::{JsonReport, JsonResult};
use super::timings::Latency;
use crate::outcome::ReportedVerdict;

/// The most characters of an answer body shown in a row; the JSON report has them all.
const BODY_PREVIEW_CHARS: usize = 600;

/// Renders the report as a standalone HTML page.
pub fn render(report: &JsonReport<'_>) -> String {
    let verdict = run_verdict(report);
    let mut by_operation: BTreeMap<&str, Vec<&JsonResult<'_>>> = BTreeMap::new();
    let mut not_applicable: Vec<&JsonResult<'_>> = Vec::new();
    for r in &report.results {
        if r.verdict == ReportedVerdict::NotApplicable {
            not_applicable.push(r);
        } else {
            by_operation.entry(r.operation).or_default().push(r);
        }
    }
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "Conformance " (verdict) ": " (report.target) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                header #verdict class=(format!("verdict {}", verdict.to_lowercase()))
                    data-exit-code=(report.exit_code.map_or("none".to_string(), |c| c.to_string()))
                    data-state=(state_word(report.state)) {
                    h1 { (verdict) }
                    p #totals {
                        (report.totals.failed) " failed · "
                        (report.totals.warnings) " warnings · "
                        (report.totals.known) " known · "
                        (report.totals.skipped) " skipped · "
                        (report.totals.passed) " passed"
                        @if let Some(code) = report.exit_code { " · exit code " (code) }
                    }
                    @if report.state != RunState::Finished {
                        p #state { (report.state.explain()) }
                    }
                }
                section #run {
                    dl {
                        dt { "Target" } dd #target {
                            (report.target)
                            @if report.run.embedded { " (embedded reference server)" }
                        }
                        dt { "Spec" } dd #spec {
                            (report.run.spec.title) " " (report.run.spec.version)
                            " (sha256 " (report.run.spec.digest) ")"
                        }
                        dt { "Seed" } dd #seed { (report.seed) }
                        dt { "Selection" } dd #selection { (report.run.selection) }
                        dt { "Credentials" } dd #credentials {
                            @if report.run.credentials.is_empty() { "none" }
                            @else { (report.run.credentials.join(", ")) }
                        }
                        @if report.incomplete > 0 {
                            dt { "Incomplete" } dd #incomplete {
                                (report.incomplete) " MUST checks could not run for want of a credential or fixture, or found records the run cannot remove"
                            }
                        }
                        dt { "Strict" } dd #strict {
                            @if report.strict { "yes: SHOULD breaches fail the run" }
                            @else { "no: SHOULD breaches are warnings" }
                        }
                    }
                }
                nav #filters {
                    label {
                        "Level "
                        select #level-filter {
                            option value="" { "all" }
                            option value="MUST" { "MUST" }
                            option value="SHOULD" { "SHOULD" }
                        }
                    }
                    label {
                        "Verdict "
                        select #verdict-filter {
                            option value="problems" selected[report.totals.failed + report.totals.warnings + report.totals.skipped > 0] {
                                "failed, warnings, skipped"
                            }
                            option value="" selected[report.totals.failed + report.totals.warnings + report.totals.skipped == 0] { "all" }
                            option value="failed" { "failed" }
                            option value="warning" { "warning" }
                            option value="known" { "known" }
                            option value="skipped" { "skipped" }
                            option value="passed" { "passed" }
                        }
                    }
                    span #shown {}
                }
                main {
                    @if !report.groups.is_empty() {
                        section #groups {
                            h2 { "Across operations" }
                            ul {
                                @for g in &report.groups {
                                    li class=(format!("group {}", verdict_word(g.verdict))) {
                                        strong { (verdict_word(g.verdict)) " [" (g.level.as_str()) "] " (g.summary) }
                                        " (" code { (g.check) } ", " (g.results) " answers): "
                                        @for (i, op) in g.operations.iter().enumerate() {
                                            @if i > 0 { ", " }
                                            code { (op) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                    (coverage(&report.coverage))
                    @for (op, results) in &by_operation {
                        (operation(op, results, report.latency.get(*op)))
                    }
                    @if !not_applicable.is_empty() {
                        section #not-applicable {
                            h2 { "Not applicable here" }
                            table {
                                thead { tr { th { "Check" } th { "Why it judged nothing" } } }
                                tbody {
                                    @for r in &not_applicable {
                                        tr class="result not_applicable" data-level=(r.level.as_str()) data-verdict="not_applicable" {
                                            td.check { code { (r.check) } }
                                            td.details { (r.message) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                script { (PreEscaped(SCRIPT)) }
            }
        }
    };
    page.into_string()
}

/// `PASSED`, `FAILED`, or `INCOMPLETE` when MUST checks could not run (exit 3, or a
/// run that did not finish).
fn run_verdict(report: &JsonReport<'_>) -> &'static str {
    match report.exit_code {
        Some(0) if report.state == RunState::Finished => "PASSED",
        Some(1) => "FAILED",
        _ => "INCOMPLETE",
    }
}

fn state_word(state: RunState) -> &'static str {
    match state {
        RunState::Finished => "finished",
        RunState::InProgress => "in_progress",
        RunState::Interrupted => "interrupted",
        RunState::Unreachable => "unreachable",
    }
}

/// The coverage table: one row per selected operation, sortable by any column (a click
/// on its heading), operations that never reached a 2xx first.
fn coverage(c: &crate::coverage::Coverage) -> Markup {
    let mut rows: Vec<&crate::coverage::OperationCoverage> = c.per_operation.iter().collect();
    rows.sort_by_key(|o| o.reached_2xx);
    let list = |v: &[String]| v.join(", ");
    html! {
        section #coverage {
            h2 { "Coverage" }
            p #coverage-line { (c.line()) }
            @if !rows.is_empty() {
                table.sortable {
                    thead { tr {
                        th { "Operation" } th { "Method" } th { "Path" }
                        th data-type="number" { "Requests" } th { "2xx" }
                        th { "Declared seen" } th { "Declared never seen" } th { "Undeclared seen" }
                        th { "Parameters and fields sent" } th { "Never sent" }
                    } }
                    tbody {
                        @for o in &rows {
                            tr class=(if o.reached_2xx { "reached" } else { "unreached" }) {
                                td { code { (o.operation) } }
                                td { (o.method) }
                                td { code { (o.path) } }
                                td { (o.requests) }
                                td { @if o.reached_2xx { "yes" } @else { "no" } }
                                td { (list(&o.declared_seen)) }
                                td { (list(&o.declared_unseen)) }
                                td { (o.undeclared_seen.iter().map(u16::to_string).collect::<Vec<_>>().join(", ")) }
                                td { (list(&o.params_exercised)) @if !o.fields_exercised.is_empty() { " · body: " (list(&o.fields_exercised)) } }
                                td { (list(&o.params_unexercised)) @if !o.fields_unexercised.is_empty() { " · body: " (list(&o.fields_unexercised)) } }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// One operation's table: its counts in the heading, then its results, failures first.
fn operation(op: &str, results: &[&JsonResult<'_>], latency: Option<&Latency>) -> Markup {
    let count = |v: ReportedVerdict| results.iter().filter(|r| r.verdict == v).count();
    let mut rows: Vec<&JsonResult<'_>> = results.to_vec();
    // Stable: within a verdict, results keep case order.
    rows.sort_by_key(|r| rank(r.verdict));
    html! {
        section.operation data-operation=(op) {
            h2 {
                code { (op) }
                small {
                    " " (count(ReportedVerdict::Failed)) " failed · "
                    (count(ReportedVerdict::Warning)) " warnings · "
                    (count(ReportedVerdict::Known)) " known · "
                    (count(ReportedVerdict::Skipped)) " skipped · "
                    (count(ReportedVerdict::Passed)) " passed"
                    @if let Some(l) = latency { span.latency { " · " (l.describe()) } }
                }
            }
            table {
                thead { tr { th { "Verdict" } th { "Level" } th { "Case" } th { "Check" } th { "Details" } } }
                tbody {
                    @for r in rows { (row(r)) }
                }
            }
        }
    }
}

fn rank(v: ReportedVerdict) -> u8 {
    match v {
        ReportedVerdict::Failed => 0,
        ReportedVerdict::Warning => 1,
        ReportedVerdict::Known => 2,
        ReportedVerdict::Skipped => 3,
        ReportedVerdict::Passed => 4,
        ReportedVerdict::NotApplicable => 5,
    }
}

fn verdict_word(v: ReportedVerdict) -> &'static str {
    match v {
        ReportedVerdict::Passed => "passed",
        ReportedVerdict::Failed => "failed",
        ReportedVerdict::Warning => "warning",
        ReportedVerdict::Skipped => "skipped",
        ReportedVerdict::Known => "known",
        ReportedVerdict::NotApplicable => "not_applicable",
    }
}

/// One result: a failure or warning shows what was expected, what came back, the start of
/// the body and the curl line that reproduces it.
fn row(r: &JsonResult<'_>) -> Markup {
    let verdict = verdict_word(r.verdict);
    let case = if r.step > 0 {
        format!("{} #{}", r.case, r.step)
    } else {
        r.case.to_owned()
    };
    let problem = matches!(
        r.verdict,
        ReportedVerdict::Failed | ReportedVerdict::Warning
    );
    html! {
        tr class=(format!("result {verdict}")) data-level=(r.level.as_str()) data-verdict=(verdict) {
            td.verdict { (verdict) }
            td.level { (r.level.as_str()) }
            td.case { code { (case) } }
            td.check { code { (r.check) } }
            td.details {
                @if !r.message.is_empty() { p.message { (r.message) } }
                @if problem {
                    dl {
                        @if !r.expected.is_empty() { dt { "expected" } dd.expected { (r.expected) } }
                        @if let Some(got) = r.got {
                            dt { "got" }
                            dd.got {
                                @match (got.status, &got.error) {
                                    (_, Some(e)) => { "no answer: " (e) }
                                    (Some(status), None) => {
                                        "status " (status)
                                        @for (k, v) in &got.headers { br; code { (k) ": " (v) } }
                                    }
                                    (None, None) => { "nothing" }
                                }
                            }
                            @if !got.body.is_empty() {
                                dt { "body" }
                                dd { pre.body { (preview(&got.body)) } }
                            }
                        }
                        @if let Some(curl) = r.curl {
                            dt { "repro" }
                            dd { pre { code.curl { (curl) } } }
                        }
                    }
                }
            }
        }
    }
}

/// The start of a body, cut on a character boundary, with a mark when it was cut.
fn preview(body: &str) -> String {
    match body.char_indices().nth(BODY_PREVIEW_CHARS) {
        Some((cut, _)) => format!("{}… (cut; the JSON report has it all)", &body[..cut]),
        None => body.to_owned(),
    }
}

/// The page's style sheet, inline.
const STYLE: &str = include_str!("html/report.css");

/// Shows the rows the two filters select and hides the operations left empty; marks the
/// page ready so a headless browser test can tell the script ran.
const SCRIPT: &str = include_str!("html/report.js");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{CheckResult, Got, Verdict};
    use crate::spec::Level;

    fn header() -> crate::header::RunHeader {
        crate::header::RunHeader {
            target: "http://127.0.0.1:1/v1".into(),
            embedded: false,
            spec: crate::spec::Identity::default(),
            seed: 7,
            selection: "all operations and checks".into(),
            credentials: vec!["x-api-key header".into()],
            writes: "not sent; --allow-writes to send".into(),
            ..Default::default()
        }
    }

    fn hostile() -> CheckResult {
        CheckResult {
            case_index: 0,
            step: 0,
            case: "op-<b>case</b>".into(),
            operation: "op".into(),
            check: crate::registry::Check::ResponseSchemaConformance.into(),
            level: Level::Must,
            verdict: Verdict::Failed,
            message: "body </td></tr><script>alert(1)</script>".into(),
            expected: "a & b".into(),
            got: Some(Got {
                status: Some(200),
                headers: vec![("content-type".into(), "text/html".into())],
                body: format!("<img src=x onerror=alert(1)>{}", "é".repeat(700)),
                error: None,
            }),
            curl: Some("curl -X GET 'http://127.0.0.1:1/op?a=<x>'".into()),
            missing_input: false,
            elapsed: None,
        }
    }

    #[test]
    fn answers_from_the_target_are_escaped_and_bodies_cut() {
        let results = [hostile()];
        let run = header();
        let doc = JsonReport::new(
            &run,
            false,
            (RunState::Finished, Some(1)),
            &results,
            &[],
            Default::default(),
        );
        let page = render(&doc);
        assert_eq!(
            page.matches("<script>").count(),
            1,
            "only the filter script"
        );
        assert!(!page.contains("<img"));
        assert!(!page.contains("<b>case"));
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("a &amp; b"));
        assert!(page.contains("… (cut; the JSON report has it all)"));
        assert!(!page.contains(&"é".repeat(601)));
    }

    #[test]
    fn verdict_names_an_unfinished_run() {
        let results = [hostile()];
        let run = header();
        let page = render(&JsonReport::new(
            &run,
            false,
            (RunState::Finished, Some(3)),
            &results,
            &[],
            Default::default(),
        ));
        assert!(page.contains("<h1>INCOMPLETE</h1>"));
        // One class attribute per row: a second one would be dropped by the browser.
        assert!(page.contains(r#"<tr class="result failed" data-level="MUST""#));
    }
}
