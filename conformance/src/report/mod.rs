//! Reports of a run: the terminal (progress, failures as they happen, a summary), JUnit XML,
//! JSON and HTML. All are printed from the same sorted results.

mod html;
mod json;
mod junit;
pub mod terminal;

use std::fmt::Write as _;

use crate::cli::Args;
use crate::error::HarnessError;
use crate::outcome::{CheckResult, Verdict};
use crate::runner::Exchange;

/// Writes the report files the command line asks for (`--junit`, `--json`, `--html`,
/// `--record`);
/// `run` is the run header (target as a report may show it, secrets redacted).
pub fn write_files(
    args: &Args,
    run: &crate::header::RunHeader,
    exit_code: u8,
    results: &[CheckResult],
    exchanges: &[Exchange],
) -> Result<(), HarnessError> {
    if let Some(p) = &args.junit {
        let xml = junit::render(results, args.strict)?;
        write(p, &xml)?;
    }
    if args.json.is_some() || args.html.is_some() {
        let doc = json::JsonReport::new(run, args.strict, exit_code, results);
        if let Some(p) = &args.json {
            write(p, &json::render(&doc))?;
        }
        if let Some(p) = &args.html {
            write(p, &html::render(&doc))?;
        }
    }
    if let Some(p) = &args.record {
        write(
            p,
            &serde_json::to_string_pretty(exchanges).unwrap_or_default(),
        )?;
    }
    Ok(())
}

fn write(path: &std::path::Path, text: &str) -> Result<(), HarnessError> {
    std::fs::write(path, text).map_err(|source| HarnessError::Write {
        path: path.to_path_buf(),
        source,
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

/// `FAIL`, `WARN`, `SKIP` or `PASS`.
pub fn label(r: &CheckResult) -> &'static str {
    match r.verdict {
        Verdict::Passed => "PASS",
        Verdict::Skipped => "SKIP",
        Verdict::Known => "KNOWN",
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
