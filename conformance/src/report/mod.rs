//! Reports of a run: the terminal (progress, failures as they happen, a summary), JUnit XML,
//! JSON and HTML. All are printed from the same sorted results.

pub mod groups;
mod html;
mod json;
mod junit;
pub mod live;
pub mod quiet;
pub mod terminal;
pub mod timings;

use std::fmt::Write as _;
use std::path::Path;

use crate::error::HarnessError;
use crate::exchange::Exchange;
use crate::outcome::{CheckResult, Verdict};
use crate::run_config::Config;

/// How far the run got (it lives with the results, on the floor below the reports).
pub use crate::outcome::RunState;

/// What the report files show: the run so far or whole.
pub struct Snapshot<'a> {
    /// The run header (target as a report may show it, secrets redacted).
    pub run: &'a crate::header::RunHeader,
    /// How far the run got.
    pub state: RunState,
    /// The exit code, once the run has one.
    pub exit_code: Option<u8>,
    /// Results in case order.
    pub results: &'a [CheckResult],
    /// Exchanges in case order.
    pub exchanges: &'a [Exchange],
    /// What the selected operations declare, for the coverage of the exchanges.
    pub declared: &'a crate::coverage::Declared,
}

/// Writes the report files the command line asks for (`--junit`, `--json`, `--html`,
/// `--record`), each atomically: a reader (or a run killed mid-write) sees the previous
/// file or the new one, never half of one.
pub fn write_files(config: &Config, snap: &Snapshot<'_>) -> Result<(), HarnessError> {
    let coverage = crate::coverage::Coverage::measure(snap.declared, snap.exchanges);
    if let Some(p) = &config.reports.junit {
        let xml = junit::render(
            snap.results,
            snap.exchanges,
            config.strict,
            snap.state,
            &coverage,
        )?;
        write(p, &xml)?;
    }
    if config.reports.json.is_some() || config.reports.html.is_some() {
        let doc = json::JsonReport::new(
            snap.run,
            config.strict,
            (snap.state, snap.exit_code),
            snap.results,
            snap.exchanges,
            coverage,
        );
        if let Some(p) = &config.reports.json {
            write(p, &json::render(&doc))?;
        }
        if let Some(p) = &config.reports.html {
            write(p, &html::render(&doc))?;
        }
    }
    if let Some(p) = &config.reports.record {
        write(
            p,
            &serde_json::to_string_pretty(snap.exchanges).unwrap_or_default(),
        )?;
    }
    Ok(())
}

/// JUnit XML of results read back from reports (no exchanges: no times).
pub fn render_junit(
    results: &[CheckResult],
    strict: bool,
    state: RunState,
    coverage: &crate::coverage::Coverage,
) -> Result<String, HarnessError> {
    Ok(junit::render(results, &[], strict, state, coverage)?)
}

/// The JSON report's document of results read back from reports.
pub fn json_report<'a>(
    run: &'a crate::header::RunHeader,
    strict: bool,
    end: (RunState, Option<u8>),
    results: &'a [CheckResult],
    coverage: crate::coverage::Coverage,
) -> json::JsonReport<'a> {
    json::JsonReport::new(run, strict, end, results, &[], coverage)
}

/// The JSON report's text.
pub fn render_json(doc: &json::JsonReport<'_>) -> String {
    json::render(doc)
}

/// The HTML report's page.
pub fn render_html(doc: &json::JsonReport<'_>) -> String {
    html::render(doc)
}

/// Writes `text` to a temporary file beside `path`, then renames it over `path`.
pub fn write(path: &Path, text: &str) -> Result<(), HarnessError> {
    let failed = |source| HarnessError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".partial");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, text).map_err(failed)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        failed(e)
    })
}

/// The multi-line description of a failed or skipped result: level, check, expectation,
/// what came back and how to reproduce it.
pub fn details(r: &CheckResult) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} [{}] {} :: {}",
        label(r),
        r.level.as_str(),
        r.case,
        r.check
    );
    if !r.expected.is_empty() {
        let _ = writeln!(s, "  expected: {}", r.expected);
    }
    if !r.message.is_empty() {
        let _ = writeln!(s, "  problem:  {}", r.message);
    }
    if let Some(g) = &r.got {
        match (g.status, &g.error) {
            (_, Some(e)) => {
                let _ = writeln!(s, "  got:      no answer ({e})");
            }
            (Some(st), None) => {
                let headers: Vec<String> =
                    g.headers.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                let _ = writeln!(s, "  got:      status {st}; {}", headers.join("; "));
                if !g.body.is_empty() {
                    let _ = writeln!(s, "  body:     {}", g.body);
                }
            }
            (None, None) => {}
        }
    }
    if let Some(c) = &r.curl {
        let _ = writeln!(s, "  repro:    {c}");
    }
    s
}

/// `FAIL`, `WARN`, `SKIP`, `PASS`, `KNOWN` or `N/A`.
pub fn label(r: &CheckResult) -> &'static str {
    match r.verdict {
        Verdict::Passed => "PASS",
        Verdict::Skipped => "SKIP",
        Verdict::Known => "KNOWN",
        Verdict::NotApplicable => "N/A",
        Verdict::Failed if r.level == crate::spec::Level::Should => "WARN",
        Verdict::Failed => "FAIL",
    }
}

/// Like [`label`], but a SHOULD failure under `--strict` is a `FAIL`.
pub fn label_for(r: &CheckResult, strict: bool) -> &'static str {
    match label(r) {
        "WARN" if strict => "FAIL",
        other => other,
    }
}
