//! The output of `--quiet`: the run header, one line per failing (operation, check) pair,
//! and the verdict (the notes that explain the exit code, then the totals line). A quiet
//! run is read by a person skimming a CI log or by a script: its length must not grow with
//! the answers' bodies or with how many cases fail, so the details (bodies, repro lines,
//! tables) are left to `--json`/`--html`/`--junit`.
//!
//! The bound: at most [`MAX_FAILURE_LINES`] failure lines, each at most
//! [`MAX_LINE_CHARS`] characters; more pairs are counted in one closing line. Pairs come
//! in the order their first failure was reported, so the first line is the run's first
//! failure. A note's indented list (the reasons a run is incomplete, one per operation on
//! a large spec) keeps its first [`MAX_NOTE_ITEMS`] items and counts the rest; a note's
//! own lines (a `NOT REMOVED` record, each one the user must remove by hand) are never
//! left out.

use std::collections::BTreeMap;

use crate::outcome::{CheckResult, Verdict};

/// Most failure lines a quiet run prints; the rest are counted in one line.
pub const MAX_FAILURE_LINES: usize = 40;
/// Most characters of one failure line or note item (a longer one is cut with `…`).
pub const MAX_LINE_CHARS: usize = 200;
/// Most items of one note's indented list; the rest are counted in one line.
pub const MAX_NOTE_ITEMS: usize = 10;

/// The quiet output: `header` (the run header's text), the failure lines of `results`,
/// `notes` (what explains the exit code) and `totals` (the last line).
pub fn render(
    header: &str,
    results: &[CheckResult],
    strict: bool,
    notes: &str,
    totals: &str,
) -> String {
    let mut out = String::from(header);
    let lines = failure_lines(results, strict);
    if !lines.is_empty() {
        out.push_str("\nFailures (one line per operation and check; details in --json/--html):\n");
        for l in &lines {
            out.push_str(l);
            out.push('\n');
        }
    }
    out.push_str(&bounded_notes(notes));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(totals.trim_start_matches('\n'));
    out
}

/// One line per (operation, check) pair with a failure under `strict`: its level, the
/// first failing case and its message's first line, and how many results failed; capped
/// at [`MAX_FAILURE_LINES`] with a closing count of the rest.
pub fn failure_lines(results: &[CheckResult], strict: bool) -> Vec<String> {
    // (operation, check) → (first failure, how many), in the order first seen.
    let mut order: Vec<(&str, String)> = Vec::new();
    let mut pairs: BTreeMap<(&str, String), (&CheckResult, usize)> = BTreeMap::new();
    for r in results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed && super::label_for(r, strict) == "FAIL")
    {
        let key = (r.operation.as_str(), r.check.to_string());
        match pairs.get_mut(&key) {
            Some((_, n)) => *n += 1,
            None => {
                order.push(key.clone());
                pairs.insert(key, (r, 1));
            }
        }
    }
    let mut lines: Vec<String> = order
        .iter()
        .take(MAX_FAILURE_LINES)
        .map(|key| {
            let (r, n) = pairs[key];
            let message = r.message.lines().next().unwrap_or("");
            let more = if n > 1 {
                format!(" ({n} failures)")
            } else {
                String::new()
            };
            cut(&format!(
                "FAIL [{}] {} :: {}: {message}{more}",
                r.level.as_str(),
                r.case,
                r.check
            ))
        })
        .collect();
    if order.len() > MAX_FAILURE_LINES {
        lines.push(format!(
            "… and {} more failing operation/check pair(s): see --json/--html",
            order.len() - MAX_FAILURE_LINES
        ));
    }
    lines
}

/// `notes` with each indented list cut to [`MAX_NOTE_ITEMS`] items of at most
/// [`MAX_LINE_CHARS`] characters; the notes' own lines are kept whole.
fn bounded_notes(notes: &str) -> String {
    let mut out = String::new();
    let mut items = 0;
    let mut left_out = 0;
    let flush = |out: &mut String, left_out: &mut usize| {
        if *left_out > 0 {
            out.push_str(&format!("  … and {left_out} more: see --json/--html\n"));
            *left_out = 0;
        }
    };
    for line in notes.split_inclusive('\n') {
        if line.starts_with("  ") {
            items += 1;
            if items > MAX_NOTE_ITEMS {
                left_out += 1;
                continue;
            }
        } else {
            flush(&mut out, &mut left_out);
            items = 0;
        }
        if line.starts_with("  ") {
            out.push_str(&cut(line.trim_end_matches('\n')));
            out.push('\n');
        } else {
            out.push_str(line);
        }
    }
    flush(&mut out, &mut left_out);
    out
}

/// `line` cut to [`MAX_LINE_CHARS`] characters.
fn cut(line: &str) -> String {
    if line.chars().count() <= MAX_LINE_CHARS {
        return line.to_string();
    }
    let mut s: String = line.chars().take(MAX_LINE_CHARS - 1).collect();
    s.push('…');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{Check, CheckId};
    use crate::spec::Level;

    fn failed(op: &str, check: Check, level: Level, message: &str) -> CheckResult {
        CheckResult {
            case_index: 0,
            step: 0,
            case: format!("{op}/positive"),
            operation: op.into(),
            check: CheckId::Builtin(check),
            level,
            verdict: Verdict::Failed,
            message: message.into(),
            expected: String::new(),
            got: None,
            curl: None,
            missing_input: false,
            elapsed: None,
        }
    }

    #[test]
    fn one_line_per_operation_and_check_capped_with_a_count_of_the_rest() {
        let mut results = Vec::new();
        for i in 0..(MAX_FAILURE_LINES + 5) {
            let op = format!("op{i:03}");
            // Three failures of one pair are one line.
            for _ in 0..3 {
                results.push(failed(
                    &op,
                    Check::NotAServerError,
                    Level::Must,
                    &format!("server error 500\nbody: {}", "x".repeat(1000)),
                ));
            }
        }
        let lines = failure_lines(&results, false);
        assert_eq!(lines.len(), MAX_FAILURE_LINES + 1, "{lines:#?}");
        assert_eq!(
            lines[0],
            "FAIL [MUST] op000/positive :: not_a_server_error: server error 500 (3 failures)"
        );
        assert_eq!(
            lines[MAX_FAILURE_LINES],
            "… and 5 more failing operation/check pair(s): see --json/--html"
        );
        assert!(lines.iter().all(|l| l.chars().count() <= MAX_LINE_CHARS));
    }

    #[test]
    fn warnings_are_failures_only_under_strict() {
        let results = vec![failed(
            "slow",
            Check::ResponseTime,
            Level::Should,
            "took 900 ms",
        )];
        assert!(failure_lines(&results, false).is_empty());
        assert_eq!(failure_lines(&results, true).len(), 1);
    }

    #[test]
    fn a_notes_list_keeps_its_first_items_and_its_own_lines_all() {
        let mut notes = String::from("\nINCOMPLETE: 30 MUST check(s) could not run:\n");
        for i in 0..30 {
            notes.push_str(&format!(
                "    1 × missing input: op{i} needs a path value\n"
            ));
        }
        for i in 0..12 {
            notes.push_str(&format!("NOT REMOVED: record {i} of create_thing\n"));
        }
        let text = bounded_notes(&notes);
        assert_eq!(
            text.matches("missing input").count(),
            MAX_NOTE_ITEMS,
            "{text}"
        );
        assert!(
            text.contains("  … and 20 more: see --json/--html\n"),
            "{text}"
        );
        assert_eq!(text.matches("NOT REMOVED").count(), 12, "{text}");
        assert!(text.starts_with("\nINCOMPLETE: 30"), "{text}");
    }

    #[test]
    fn the_header_comes_first_and_the_totals_line_last() {
        let results = vec![failed("a", Check::NotAServerError, Level::Must, "boom")];
        let text = render(
            "conformance run\n  target: x\n",
            &results,
            false,
            "\ncoverage: 0 of 1\n",
            "\n0 passed, 1 failed, 0 skipped",
        );
        assert!(text.starts_with("conformance run\n"), "{text}");
        assert!(text.ends_with("\n0 passed, 1 failed, 0 skipped"), "{text}");
        assert!(text.contains("FAIL [MUST] a/positive :: not_a_server_error: boom\n"));
        assert!(text.contains("coverage: 0 of 1"));
    }
}
