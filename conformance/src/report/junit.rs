//! JUnit XML (via `quick-junit`), grouped so a CI UI shows one line per case with its
//! checks inside.
//!
//! JUnit has no nested test cases, so the case is the `testsuite` and each check of it a
//! `testcase`: GitLab's test report, dorny/test-reporter and Jenkins' JUnit plugin all list
//! suites as the collapsible level (Jenkins by `classname`, set to the case id as well), and
//! a failed check still counts as one failed test, so the totals match the terminal's. The
//! other mapping, one test case per case with its checks as properties or system-out, would
//! hide which check failed behind a single red line and lose the per-check counts. A
//! check's `time` is the latency of the request it judged; a suite's is the sum over the
//! case's requests (every request of a sweep, every step of a sequence).
//!
//! An undeclared status several operations answer with stays one failed test per case:
//! a CI history tracks tests by name across runs, and merging 89 of them into one would
//! hide which operations' tests turned red and make them vanish and reappear as the spec
//! changes. Each such failure's message names its group (`the same undeclared 404 on 89
//! operations`) so the spec defect still reads as one; the JSON report lists the groups.
//! Checks with nothing to judge in this run are one suite, `(not applicable)`, a skipped
//! test per check with the reason.
//!
//! A run that did not finish (interrupted, or still running when the file was last
//! written) adds a suite `conformance run` whose one test case is an error saying so, and
//! the property `incomplete=true`: CI shows the run red and why, with the checks so far.

use std::collections::BTreeMap;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use super::RunState;
use super::timings;
use crate::exchange::Exchange;
use crate::outcome::{CheckResult, ReportedVerdict};

/// Renders the results as JUnit XML.
pub fn render(
    results: &[CheckResult],
    exchanges: &[Exchange],
    strict: bool,
    state: RunState,
    coverage: &crate::coverage::Coverage,
) -> Result<String, quick_junit::SerializeError> {
    let case_times = timings::per_case(exchanges);
    let groups = super::groups::groups(results, strict);
    // Suites in case order (the order of the results), each case once.
    let mut order: Vec<&str> = Vec::new();
    let mut suites: BTreeMap<&str, Vec<&CheckResult>> = BTreeMap::new();
    for r in results {
        // Not-applicable entries share one case name, so they form one suite.
        let checks = suites.entry(r.case.as_str()).or_default();
        if checks.is_empty() {
            order.push(&r.case);
        }
        checks.push(r);
    }
    let mut report = Report::new("conformance");
    for case in order {
        let rs = &suites[case];
        let mut suite = TestSuite::new(case);
        // A rule may be judged more than once on one answer (e.g. `fields_equal` per field
        // group): the second and later results of a name get ` [2]`, ` [3]`, … in order.
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for r in rs {
            let name = if r.step > 0 {
                format!("step {} :: {}", r.step, r.check)
            } else {
                r.check.to_string()
            };
            let n = seen.entry(name.clone()).or_default();
            *n += 1;
            let name = if *n > 1 {
                format!("{name} [{n}]")
            } else {
                name
            };
            let mut status = status_of(r, strict);
            if let Some(g) = super::groups::group_of(&groups, r, strict)
                && r.reported_verdict(strict) == ReportedVerdict::Failed
            {
                status.set_message(format!(
                    "[{}] {} (the same {})",
                    r.level.as_str(),
                    r.message,
                    g.summary
                ));
            }
            let mut tc = TestCase::new(name, status);
            tc.set_classname(case);
            tc.add_property(Property::new("operation", r.operation.as_str()));
            tc.add_property(Property::new("level", r.level.as_str()));
            if let Some(t) = r.elapsed {
                tc.set_time(t);
            }
            if r.is_warning(strict) {
                tc.set_system_out(format!("WARNING (SHOULD): {}", super::details(r)));
            }
            suite.add_test_case(tc);
        }
        if let Some(t) = case_times.get(case) {
            suite.set_time(*t);
        }
        report.add_test_suite(suite);
    }
    // The run's coverage as properties of a suite of its own, `(coverage)`, with no test
    // (a CI can chart them); `--min-coverage`'s verdict is a test of its own case,
    // `coverage`, like any check.
    let mut suite = TestSuite::new("(coverage)");
    for (name, value) in [
        ("operations", coverage.operations.to_string()),
        ("operations_requested", coverage.requested.to_string()),
        ("operations_reached_2xx", coverage.reached_2xx.to_string()),
        ("reached_2xx_percent", format!("{:.1}", coverage.percent())),
        ("declared_statuses", coverage.declared_statuses.to_string()),
        ("declared_statuses_seen", coverage.declared_seen.to_string()),
    ] {
        suite.add_property(Property::new(name, value));
    }
    report.add_test_suite(suite);
    if state != RunState::Finished {
        let mut suite = TestSuite::new("conformance run");
        suite.add_property(Property::new("incomplete", "true"));
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status.set_message(state.explain());
        status.set_type("incomplete");
        let mut tc = TestCase::new(state.test_name(), status);
        tc.set_classname("conformance run");
        suite.add_test_case(tc);
        report.add_test_suite(suite);
    }
    report.to_string()
}

fn status_of(r: &CheckResult, strict: bool) -> TestCaseStatus {
    match r.reported_verdict(strict) {
        ReportedVerdict::Passed => TestCaseStatus::success(),
        ReportedVerdict::Skipped | ReportedVerdict::Known | ReportedVerdict::NotApplicable => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(r.message.clone());
            s
        }
        ReportedVerdict::Failed => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(format!("[{}] {}", r.level.as_str(), r.message));
            s.set_type(r.check.to_string());
            s.set_description(super::details(r));
            s
        }
        // A warning passes; its details go to system-out.
        ReportedVerdict::Warning => TestCaseStatus::success(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{Got, Verdict};
    use crate::registry::Check;
    use crate::spec::Level;

    fn result(op: &str, check: Check, verdict: Verdict, message: &str) -> CheckResult {
        CheckResult {
            case_index: 0,
            step: 0,
            case: format!("{op}/positive"),
            operation: op.into(),
            check: check.into(),
            level: Level::Must,
            verdict,
            message: message.into(),
            expected: String::new(),
            got: Some(Got {
                status: Some(404),
                headers: Vec::new(),
                body: String::new(),
                error: None,
            }),
            curl: None,
            missing_input: false,
            elapsed: None,
        }
    }

    #[test]
    fn grouped_failures_stay_one_test_each_and_name_their_group() {
        let results = vec![
            result(
                "readFlow",
                Check::StatusCodeConformance,
                Verdict::Failed,
                "status 404 is not declared for readFlow",
            ),
            result(
                "readVariable",
                Check::StatusCodeConformance,
                Verdict::Failed,
                "status 404 is not declared for readVariable",
            ),
            CheckResult {
                case: "(not applicable)".into(),
                operation: String::new(),
                got: None,
                ..result(
                    "",
                    Check::PayloadTooLarge,
                    Verdict::NotApplicable,
                    "the spec states no x-max-body",
                )
            },
        ];
        let xml = render(
            &results,
            &[],
            false,
            RunState::Finished,
            &Default::default(),
        )
        .unwrap();
        assert_eq!(
            xml.matches("(the same undeclared 404 on 2 operations)")
                .count(),
            2,
            "{xml}"
        );
        assert_eq!(xml.matches("<failure").count(), 2, "{xml}");
        assert!(
            xml.contains(r#"<testsuite name="(not applicable)""#),
            "{xml}"
        );
        assert!(xml.contains("the spec states no x-max-body"), "{xml}");
    }
}
