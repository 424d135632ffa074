//! JUnit XML (via `quick-junit`): one suite per operation, one test case per check result,
//! so CI systems show the same verdicts as the terminal.

use std::collections::BTreeMap;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::outcome::{CheckResult, ReportedVerdict};

/// Renders the results as JUnit XML.
pub fn render(
    results: &[CheckResult],
    strict: bool,
) -> Result<String, quick_junit::SerializeError> {
    let mut suites: BTreeMap<&str, Vec<&CheckResult>> = BTreeMap::new();
    for r in results {
        suites.entry(r.operation.as_str()).or_default().push(r);
    }
    let mut report = Report::new("conformance");
    // A rule may be judged more than once on one answer (e.g. `fields_equal` per field
    // group): the second and later results of a name get ` [2]`, ` [3]`, … in result order.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (op, rs) in suites {
        let mut suite = TestSuite::new(op);
        for r in rs {
            let status = match r.reported_verdict(strict) {
                ReportedVerdict::Passed => TestCaseStatus::success(),
                ReportedVerdict::Skipped => {
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
                ReportedVerdict::Known => {
                    let mut s = TestCaseStatus::skipped();
                    s.set_message(r.message.clone());
                    s
                }
                // A warning passes; its details go to system-out below.
                ReportedVerdict::Warning => TestCaseStatus::success(),
            };
            let name = if r.step > 0 {
                format!("{} #{} :: {}", r.case, r.step, r.check)
            } else {
                format!("{} :: {}", r.case, r.check)
            };
            let n = seen.entry(name.clone()).or_default();
            *n += 1;
            let name = if *n > 1 {
                format!("{name} [{n}]")
            } else {
                name
            };
            let mut tc = TestCase::new(name, status);
            tc.set_classname(format!("{}.{}", r.operation, r.check));
            if r.is_warning(strict) {
                tc.set_system_out(format!("WARNING (SHOULD): {}", super::details(r)));
            }
            suite.add_test_case(tc);
        }
        report.add_test_suite(suite);
    }
    report.to_string()
}
