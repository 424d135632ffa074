//! Results of checks, the one shape every report is printed from.

use serde::Serialize;

use crate::exchange::Exchange;
use crate::registry::CheckId;
use crate::spec::Level;

/// The verdict of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The answer met the expectation.
    Passed,
    /// It did not (a MUST failure fails the run; a SHOULD failure warns).
    Failed,
    /// It could not be judged; `message` says why.
    Skipped,
    /// It failed, as an entry of `--known-failures` says it will; `message` names the
    /// entry's ticket and reason. It does not fail the run.
    Known,
    /// The check judged nothing in this run: the spec or the run gives it nothing to judge
    /// (`message` says what). Listed once per check, under no case, so every registered
    /// check is accounted for.
    #[serde(rename = "not_applicable")]
    NotApplicable,
}

/// What came back, bounded for reports.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct Got {
    /// Status, when an answer came.
    pub status: Option<u16>,
    /// Headers that matter for judging (content type, allow, retry-after, …).
    pub headers: Vec<(String, String)>,
    /// The start of the body, secrets redacted.
    pub body: String,
    /// Transport failure, when no answer came.
    pub error: Option<String>,
}

/// One check of one step of one case.
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    /// Position of the case in the run (results are sorted by it).
    pub case_index: usize,
    /// Step within the case.
    pub step: usize,
    /// The case id.
    pub case: String,
    /// The operation reported under.
    pub operation: String,
    /// The check it reports under.
    pub check: CheckId,
    /// Level of the expectation judged.
    pub level: Level,
    /// The verdict.
    pub verdict: Verdict,
    /// Why it failed or was skipped; empty on a pass.
    pub message: String,
    /// What was expected.
    pub expected: String,
    /// What came back.
    pub got: Option<Got>,
    /// A curl line reproducing the request, token as `$TOKEN`.
    pub curl: Option<String>,
    /// Skipped because an input the run was not given is missing (a credential, or a
    /// fixture discovery could not find), or a `NOT REMOVED` record the run has nothing
    /// to remove by: a MUST check skipped so leaves the run incomplete.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missing_input: bool,
    /// The latency of the request judged (sending to the last body byte), when one was
    /// answered. Not serialised here: reports that show times say so themselves, and a
    /// result compared across runs stays the same.
    #[serde(skip)]
    pub elapsed: Option<std::time::Duration>,
}

impl CheckResult {
    /// Whether this result fails the run.
    pub fn is_failure(&self, strict: bool) -> bool {
        self.verdict == Verdict::Failed && (self.level == Level::Must || strict)
    }

    /// Whether this result is a SHOULD breach reported as a warning.
    pub fn is_warning(&self, strict: bool) -> bool {
        self.verdict == Verdict::Failed && self.level == Level::Should && !strict
    }

    /// The verdict as the reports count it: `passed`, `failed` (fails the run), `warning`
    /// (a SHOULD breach outside `--strict`) or `skipped`; the same split as [`Totals::of`].
    pub fn reported_verdict(&self, strict: bool) -> ReportedVerdict {
        match self.verdict {
            Verdict::Passed => ReportedVerdict::Passed,
            Verdict::Skipped => ReportedVerdict::Skipped,
            Verdict::Known => ReportedVerdict::Known,
            Verdict::NotApplicable => ReportedVerdict::NotApplicable,
            Verdict::Failed if self.is_failure(strict) => ReportedVerdict::Failed,
            Verdict::Failed => ReportedVerdict::Warning,
        }
    }
}

/// A result's verdict as the reports show and count it (see
/// [`CheckResult::reported_verdict`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReportedVerdict {
    /// The answer met the expectation.
    Passed,
    /// A breach that fails the run.
    Failed,
    /// A SHOULD breach that does not fail the run (it would under `--strict`).
    Warning,
    /// It could not be judged.
    Skipped,
    /// A failure listed in `--known-failures`.
    Known,
    /// A check with nothing to judge in this run.
    #[serde(rename = "not_applicable")]
    NotApplicable,
}

/// Counts over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Passed checks.
    pub passed: usize,
    /// Failures that fail the run.
    pub failed: usize,
    /// SHOULD breaches not counted as failures.
    pub warnings: usize,
    /// Checks that could not be judged.
    pub skipped: usize,
    /// Failures listed in `--known-failures`.
    pub known: usize,
    /// Checks with nothing to judge in this run, one per check.
    pub not_applicable: usize,
}

impl Totals {
    /// Counts a list of results.
    pub fn of(results: &[CheckResult], strict: bool) -> Totals {
        let mut t = Totals::default();
        for r in results {
            match r.reported_verdict(strict) {
                ReportedVerdict::Passed => t.passed += 1,
                ReportedVerdict::Skipped => t.skipped += 1,
                ReportedVerdict::Failed => t.failed += 1,
                ReportedVerdict::Warning => t.warnings += 1,
                ReportedVerdict::Known => t.known += 1,
                ReportedVerdict::NotApplicable => t.not_applicable += 1,
            }
        }
        t
    }
}

/// The MUST checks that could not run for want of a credential or fixture, or found records
/// the run cannot remove: any makes the run incomplete (exit 3 unless `--allow-incomplete`).
pub fn incomplete(results: &[CheckResult]) -> impl Iterator<Item = &CheckResult> {
    results
        .iter()
        .filter(|r| r.missing_input && r.verdict == Verdict::Skipped && r.level == Level::Must)
}

/// How far the run got when a report was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// Every case ran; the report is the run's.
    Finished,
    /// Written while cases still run: a run killed now (a CI timeout) leaves this.
    InProgress,
    /// SIGINT or SIGTERM stopped the run; the report holds the results so far.
    Interrupted,
    /// The target went away during the run (a request and a probe of the base URL both
    /// found nothing there); the report holds the results so far.
    Unreachable,
}

impl RunState {
    /// Why a report of this state is not the whole run.
    pub fn explain(self) -> &'static str {
        match self {
            RunState::Finished => "the run finished",
            RunState::InProgress => {
                "the run had not finished when this report was written (still running, or killed): the results are those so far"
            }
            RunState::Interrupted => {
                "the run was interrupted (SIGINT or SIGTERM) before every case ran: the results are those so far"
            }
            RunState::Unreachable => {
                "TARGET UNREACHABLE: the target went away during the run and nothing more was sent: the results are those so far"
            }
        }
    }

    /// The name of the JUnit test case that marks a run that did not finish.
    pub fn test_name(self) -> &'static str {
        match self {
            RunState::Finished => "run finished",
            RunState::InProgress => "run not finished",
            RunState::Interrupted => "run interrupted",
            RunState::Unreachable => "run stopped: target unreachable",
        }
    }
}

/// What a run produced.
pub struct Outcome {
    /// 0 no failure, 1 a failure, 3 incomplete ([`EXIT_INCOMPLETE`]); errors are 2.
    pub exit_code: u8,
    /// Every result in case order.
    pub results: Vec<CheckResult>,
    /// Every exchange in case order.
    pub exchanges: Vec<Exchange>,
    /// The target's base URL.
    pub base_url: String,
    /// The end-of-run terminal text (ends with `N passed, N failed, N skipped`).
    pub summary: String,
    /// What `--quiet` prints instead of [`Outcome::summary`]: the header, one line per
    /// failing (operation, check) pair and the verdict (`report::quiet`'s bound).
    pub quiet_summary: Option<String>,
}

impl Outcome {
    /// Counts of the results.
    pub fn totals(&self, strict: bool) -> Totals {
        Totals::of(&self.results, strict)
    }
}

/// The exit code of a run in which MUST checks could not run for want of a credential or
/// fixture, or that SIGINT/SIGTERM stopped (and nothing failed so far): neither green nor
/// red, so CI does not pass it by mistake. Not the shell's 130 for an interrupt: the
/// reports were written, marked interrupted, and a failure seen before the signal still
/// gives 1.
pub const EXIT_INCOMPLETE: u8 = 3;
