//! Reports of a run: the terminal (progress, failures as they happen, a summary), JUnit XML,
//! JSON and HTML. All are printed from the same sorted results.

pub mod html;
pub mod json;
pub mod junit;
pub mod terminal;

use std::fmt::Write as _;

use crate::outcome::{CheckResult, Verdict};

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
