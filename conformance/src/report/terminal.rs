//! The terminal report: a progress bar while cases run, one line per failure as it
//! happens, then every failure in detail, one line per operation (counts and latency; the
//! table per operation and check with `--verbose`), and the final
//! `N passed, N failed, N skipped` line.
//!
//! Quiet on pass: a clean run's output is the header, the bar and one line per operation,
//! so the line that matters is not lost under a table. Whatever fails is printed in full,
//! except that one undeclared status on several operations is one finding naming them
//! ([`super::groups`]). Checks with nothing to judge are listed once, with the reason.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use indicatif::{ProgressBar, ProgressStyle};

use std::collections::BTreeSet;
use std::sync::Mutex;

use super::groups::{self, Group};
use super::timings::Latency;
use crate::outcome::{CheckResult, Totals, Verdict};
use crate::registry::Check;

/// Live progress on stderr (hidden when stderr is not a terminal).
pub struct Progress {
    bar: ProgressBar,
    strict: bool,
    quiet: bool,
    /// Undeclared statuses already printed: later answers with one are grouped in the
    /// summary instead of printed again.
    undeclared: Mutex<BTreeSet<u16>>,
}

impl Progress {
    /// A bar over `cases` cases.
    pub fn new(cases: usize, strict: bool, quiet: bool) -> Progress {
        let bar = if quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(cases as u64)
        };
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} cases {msg}",
        ) {
            bar.set_style(style);
        }
        Progress {
            bar,
            strict,
            quiet,
            undeclared: Mutex::new(BTreeSet::new()),
        }
    }

    /// Reports a finished case: advances the bar and prints one line per failure.
    pub fn case_done(&self, results: &[CheckResult]) {
        self.bar.inc(1);
        self.report(results);
    }

    /// Prints one line per failure (discovery's results go through here too).
    pub fn report(&self, results: &[CheckResult]) {
        if self.quiet {
            return;
        }
        for r in results.iter().filter(|r| r.verdict == Verdict::Failed) {
            let mut line = format!(
                "{} [{}] {} :: {}: {}",
                super::label_for(r, self.strict),
                r.level.as_str(),
                r.case,
                r.check,
                r.message
            );
            if r.check == Check::StatusCodeConformance
                && let Some(status) = r.got.as_ref().and_then(|g| g.status)
                && let Ok(mut seen) = self.undeclared.lock()
            {
                if !seen.insert(status) {
                    continue;
                }
                line.push_str(&format!(
                    " (further undeclared {status} answers are grouped in the summary)"
                ));
            }
            self.bar.suspend(|| crate::out::line(&line));
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The end-of-run text: details of failures and warnings, one line per operation (the
/// table per operation and check when `verbose`) and the totals line (always the last).
pub fn render(
    results: &[CheckResult],
    latency: &BTreeMap<String, Latency>,
    strict: bool,
    verbose: bool,
) -> String {
    let mut s = String::new();
    let groups = groups::groups(results, strict);
    let failed: Vec<(usize, &CheckResult)> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.verdict == Verdict::Failed)
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(s, "\nFailures and warnings:\n");
        for (i, r) in &failed {
            let text = match groups::group_of(&groups, r, strict) {
                Some(g) if g.first == *i => group_details(g, &results[g.example]),
                Some(_) => continue,
                None => super::details(r),
            };
            let _ = writeln!(
                s,
                "{}",
                text.replacen(super::label(r), super::label_for(r, strict), 1)
            );
        }
    }
    if verbose {
        table(&mut s, results, strict);
    }
    per_operation(&mut s, results, latency, strict);
    let total = Totals::of(results, strict);
    if verbose {
        notes(&mut s, results);
    } else if total.skipped > 0 {
        let _ = writeln!(
            s,
            "\n{} check(s) skipped: --verbose lists why",
            total.skipped
        );
    }
    if total.warnings > 0 {
        let _ = writeln!(
            s,
            "\n{} warning(s): SHOULD-level breaches (they fail the run under --strict)",
            total.warnings
        );
    }
    not_applicable(&mut s, results);
    let known: Vec<&CheckResult> = results
        .iter()
        .filter(|r| r.verdict == Verdict::Known)
        .collect();
    if !known.is_empty() {
        let _ = writeln!(
            s,
            "\nKnown failures (--known-failures; they do not fail the run):"
        );
        for r in known {
            let _ = writeln!(s, "  {} :: {}: {}", r.case, r.check, r.message);
        }
    }
    let _ = write!(
        s,
        "\n{} passed, {} failed, {} skipped",
        total.passed, total.failed, total.skipped
    );
    if total.known > 0 {
        let _ = write!(s, ", {} known", total.known);
    }
    s
}

/// One block for a departure several operations (or cases) show: what is wrong once, the
/// operations, and the answer and reproduction of its smallest request standing for all.
fn group_details(g: &Group, first: &CheckResult) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} [{}] {} :: {}",
        super::label(first),
        g.level.as_str(),
        g.summary,
        g.check
    );
    let _ = writeln!(s, "  expected: a status each operation declares");
    let _ = writeln!(
        s,
        "  problem:  {} answer(s) with status {}, which none of these operations declares",
        g.results, g.status
    );
    let _ = writeln!(
        s,
        "  operations: {}",
        groups::wrap_list(&g.operations, 88, "              ")
    );
    let first_details = super::details(first);
    let mut lines = first_details.lines();
    let _ = lines.next();
    let _ = writeln!(s, "  smallest: {}", first.case);
    for line in lines.filter(|l| {
        l.starts_with("  got:") || l.starts_with("  body:") || l.starts_with("  repro:")
    }) {
        let _ = writeln!(s, "{line}");
    }
    s
}

/// Each check with nothing to judge in this run, once, with the reason.
fn not_applicable(s: &mut String, results: &[CheckResult]) {
    let na: Vec<&CheckResult> = results
        .iter()
        .filter(|r| r.verdict == Verdict::NotApplicable)
        .collect();
    if na.is_empty() {
        return;
    }
    let width = na.iter().map(|r| r.check.as_str().len()).max().unwrap_or(0);
    let _ = writeln!(
        s,
        "\n{} check(s) not applicable here (nothing in this spec or run for them to judge):",
        na.len()
    );
    for r in na {
        let _ = writeln!(s, "  {:width$}  {}", r.check.as_str(), r.message);
    }
}

/// The table per operation and check (`--verbose`).
fn table(s: &mut String, results: &[CheckResult], strict: bool) {
    let mut table: BTreeMap<(&str, &str), Totals> = BTreeMap::new();
    for r in results
        .iter()
        .filter(|r| r.verdict != Verdict::NotApplicable)
    {
        let t = table
            .entry((r.operation.as_str(), r.check.as_str()))
            .or_default();
        *t = add(*t, Totals::of(std::slice::from_ref(r), strict));
    }
    let _ = writeln!(s, "\nSummary by operation and check:\n");
    let _ = writeln!(
        s,
        "  {:<30} {:<30} {:>6} {:>6} {:>6} {:>6}",
        "operation", "check", "passed", "failed", "warned", "skipped"
    );
    let mut last_op = "";
    for ((op, check), t) in &table {
        let shown_op = if *op == last_op { "" } else { op };
        last_op = op;
        let _ = writeln!(
            s,
            "  {:<30} {:<30} {:>6} {:>6} {:>6} {:>6}",
            shown_op, check, t.passed, t.failed, t.warnings, t.skipped
        );
    }
}

/// One line per operation: its counts and the latency of the answers it got.
fn per_operation(
    s: &mut String,
    results: &[CheckResult],
    latency: &BTreeMap<String, Latency>,
    strict: bool,
) {
    let mut ops: BTreeMap<&str, Totals> = BTreeMap::new();
    for r in results
        .iter()
        .filter(|r| r.verdict != Verdict::NotApplicable)
    {
        let t = ops.entry(r.operation.as_str()).or_default();
        *t = add(*t, Totals::of(std::slice::from_ref(r), strict));
    }
    let _ = writeln!(s, "\nBy operation:\n");
    for (op, t) in &ops {
        let mut counts = format!(
            "{:>4} passed {:>3} failed {:>3} warned {:>3} skipped",
            t.passed, t.failed, t.warnings, t.skipped
        );
        if t.known > 0 {
            let _ = write!(counts, " {:>3} known", t.known);
        }
        let timing = latency
            .get(*op)
            .map_or_else(|| "no answer timed".to_string(), Latency::describe);
        let _ = writeln!(s, "  {op:<28} {counts}   {timing}");
    }
}

/// What `--verbose` adds below the table: the list encodings the target accepts and why
/// checks were skipped.
fn notes(s: &mut String, results: &[CheckResult]) {
    let accepted: Vec<&CheckResult> = results
        .iter()
        .filter(|r| {
            r.check == crate::registry::Check::AlternateEncodings
                && r.verdict == Verdict::Passed
                && r.level == crate::spec::Level::Must
        })
        .collect();
    if !accepted.is_empty() {
        let _ = writeln!(s, "\nList encodings the target accepts:");
        for r in accepted {
            let _ = writeln!(s, "  {}: {}", r.case, r.message);
        }
    }
    let skipped: BTreeMap<&str, usize> = results
        .iter()
        .filter(|r| r.verdict == Verdict::Skipped)
        .fold(BTreeMap::new(), |mut m, r| {
            *m.entry(r.message.as_str()).or_default() += 1;
            m
        });
    if !skipped.is_empty() {
        let _ = writeln!(s, "\nSkipped, by reason:");
        for (why, n) in skipped {
            let _ = writeln!(s, "  {n:>3} × {why}");
        }
    }
}

fn add(a: Totals, b: Totals) -> Totals {
    Totals {
        passed: a.passed + b.passed,
        failed: a.failed + b.failed,
        warnings: a.warnings + b.warnings,
        skipped: a.skipped + b.skipped,
        known: a.known + b.known,
        not_applicable: a.not_applicable + b.not_applicable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Got;
    use crate::registry::CheckId;
    use crate::spec::Level;

    fn result(op: &str, check: Check, verdict: Verdict, status: u16, message: &str) -> CheckResult {
        CheckResult {
            case_index: 0,
            step: 0,
            case: format!("{op}/positive"),
            operation: op.into(),
            check: CheckId::Builtin(check),
            level: Level::Must,
            verdict,
            message: message.into(),
            expected: "one of the declared statuses 200, 422".into(),
            got: Some(Got {
                status: Some(status),
                headers: vec![("content-type".into(), "application/json".into())],
                body: r#"{"detail":"Not Found"}"#.into(),
                error: None,
            }),
            curl: Some(format!("curl -sS 'http://127.0.0.1:4200/api/{op}'")),
            missing_input: false,
            elapsed: None,
        }
    }

    #[test]
    fn one_undeclared_status_on_several_operations_is_one_finding() {
        let mut results = Vec::new();
        for op in ["readFlow", "readFlowRun", "readDeployment", "readVariable"] {
            results.push(result(
                op,
                Check::StatusCodeConformance,
                Verdict::Failed,
                404,
                &format!("status 404 is not declared for {op}"),
            ));
        }
        results.push(result(
            "countEvents",
            Check::NotAServerError,
            Verdict::Failed,
            500,
            "server error 500",
        ));
        results.push(CheckResult {
            case: "(not applicable)".into(),
            operation: String::new(),
            got: None,
            curl: None,
            message: "the spec states no x-max-body (a body limit and the status beyond it)".into(),
            ..result("", Check::PayloadTooLarge, Verdict::NotApplicable, 0, "")
        });
        let text = render(&results, &BTreeMap::new(), false, false);
        insta::assert_snapshot!(text);
    }
}
