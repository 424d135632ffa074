//! The JSON report: the run's parameters, totals and every result (failures with what came
//! back and a curl line), the same content as the terminal report.

use serde::Serialize;

use crate::outcome::{CheckResult, Totals};

/// The document written by `--json`.
#[derive(Debug, Serialize)]
pub struct JsonReport<'a> {
    /// Format version of this document.
    pub format: u32,
    /// The target's base URL.
    pub target: &'a str,
    /// The seed of generated values.
    pub seed: u64,
    /// Whether SHOULD breaches counted as failures.
    pub strict: bool,
    /// Counts.
    pub totals: Totals,
    /// Exit code of the run.
    pub exit_code: u8,
    /// Every result in case order.
    pub results: &'a [CheckResult],
}

/// Renders the JSON report.
pub fn render(
    target: &str,
    seed: u64,
    strict: bool,
    exit_code: u8,
    results: &[CheckResult],
) -> String {
    let doc = JsonReport {
        format: 1,
        target,
        seed,
        strict,
        totals: Totals::of(results, strict),
        exit_code,
        results,
    };
    serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
