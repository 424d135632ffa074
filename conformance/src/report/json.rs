//! The JSON report: the run's parameters, totals and every result (failures with what came
//! back and a curl line), the same content as the terminal report.

use std::collections::BTreeMap;

use serde::Serialize;

use super::RunState;
use super::timings::{self, Latency};
use crate::exchange::Exchange;
use crate::header::RunHeader;

use crate::outcome::{CheckResult, Got, ReportedVerdict, Totals};
use crate::spec::Level;

/// The document written by `--json`.
#[derive(Debug, Serialize)]
pub struct JsonReport<'a> {
    /// Format version of this document.
    pub format: u32,
    /// The target's base URL.
    pub target: &'a str,
    /// Target, spec, seed, selection and credentials present (the run header).
    pub run: &'a RunHeader,
    /// The seed of generated values.
    pub seed: u64,
    /// Whether SHOULD breaches counted as failures.
    pub strict: bool,
    /// Counts.
    pub totals: Totals,
    /// `finished`; `in_progress` in a file written while the run goes on (a run killed
    /// there leaves it so); `interrupted` when SIGINT or SIGTERM stopped it. Only a
    /// `finished` report holds every result.
    pub state: RunState,
    /// Exit code of the run; `null` while it is in progress.
    pub exit_code: Option<u8>,
    /// MUST checks that could not run for want of a credential or fixture, or found
    /// records the run cannot remove; the run is incomplete when there are any.
    pub incomplete: usize,
    /// Latency per operation over the answers it got (absent in a replay, which does not
    /// time its requests).
    pub latency: BTreeMap<String, Latency>,
    /// How much of the spec the run reached: per operation, requests, 2xx reached,
    /// declared statuses seen and not, undeclared statuses seen, parameters and body fields
    /// exercised; with the totals.
    pub coverage: crate::coverage::Coverage,
    /// The same undeclared status on several operations, as one finding each (`undeclared
    /// 404 on 89 operations`, with the operations); the results hold each answer too.
    pub groups: Vec<super::groups::Group>,
    /// Every result in case order; checks with nothing to judge in this run come last,
    /// once each, with verdict `not_applicable` and the reason in `message`.
    pub results: Vec<JsonResult<'a>>,
}

/// One result as the JSON report shows it: a [`CheckResult`] whose `verdict` is the one
/// the totals count it under (`warning` for a SHOULD breach outside `--strict`).
#[derive(Debug, Serialize)]
pub struct JsonResult<'a> {
    /// Position of the case in the run.
    pub case_index: usize,
    /// Step within the case.
    pub step: usize,
    /// The case id.
    pub case: &'a str,
    /// The operation reported under.
    pub operation: &'a str,
    /// The check name.
    pub check: &'a str,
    /// Level of the expectation judged.
    pub level: Level,
    /// `passed`, `failed`, `warning`, `skipped`, `known` or `not_applicable`.
    pub verdict: ReportedVerdict,
    /// Why it failed, warned or was skipped; empty on a pass.
    pub message: &'a str,
    /// What was expected.
    pub expected: &'a str,
    /// What came back.
    pub got: Option<&'a Got>,
    /// A curl line reproducing the request.
    pub curl: Option<&'a str>,
    /// A skip for want of a credential or fixture (a MUST one leaves the run incomplete);
    /// written only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missing_input: bool,
}

impl<'a> JsonResult<'a> {
    /// The JSON view of `r` in a run with `strict`.
    pub fn of(r: &'a CheckResult, strict: bool) -> JsonResult<'a> {
        JsonResult {
            case_index: r.case_index,
            step: r.step,
            case: &r.case,
            operation: &r.operation,
            check: r.check.as_str(),
            level: r.level,
            verdict: r.reported_verdict(strict),
            message: &r.message,
            expected: &r.expected,
            got: r.got.as_ref(),
            curl: r.curl.as_deref(),
            missing_input: r.missing_input,
        }
    }
}

impl<'a> JsonReport<'a> {
    /// The report of a run: its parameters, totals and every result in case order.
    pub fn new(
        run: &'a RunHeader,
        strict: bool,
        (state, exit_code): (RunState, Option<u8>),
        results: &'a [CheckResult],
        exchanges: &[Exchange],
        coverage: crate::coverage::Coverage,
    ) -> JsonReport<'a> {
        JsonReport {
            format: 2,
            target: &run.target,
            run,
            seed: run.seed,
            strict,
            totals: Totals::of(results, strict),
            state,
            exit_code,
            incomplete: crate::outcome::incomplete(results).count(),
            latency: timings::per_operation(exchanges),
            coverage,
            groups: super::groups::groups(results, strict),
            results: results.iter().map(|r| JsonResult::of(r, strict)).collect(),
        }
    }
}

/// Renders the JSON report.
pub fn render(report: &JsonReport<'_>) -> String {
    serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
