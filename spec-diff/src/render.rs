//! The report as text for a terminal, Markdown for a pull-request comment, or JSON; and
//! the rules table. Text and Markdown group findings by level (ERR first), then by the
//! operation (or schema, or Rust item) they are about.

use std::fmt::Write;

use crate::rules::{Kind, Level, RULES, Wire};
use crate::{Finding, Report};

/// The report as JSON.
pub fn json(report: &Report) -> String {
    serde_json::to_string_pretty(report).expect("a report serializes")
}

fn kind(k: Kind) -> &'static str {
    match k {
        Kind::Wire => "wire",
        Kind::Rust => "rust",
        Kind::Decision => "decision",
        Kind::Version => "version",
    }
}

/// What a finding does, in one line.
fn impact(f: &Finding) -> String {
    match (f.kind, f.rust) {
        (_, Some(semver)) => format!("Rust API: {}", semver.as_str()),
        (Kind::Wire, _) if f.wire == Wire::None => f.wire.describe().to_owned(),
        (Kind::Wire, _) if f.ours_tolerate => {
            format!(
                "{}; the generated clients read through it",
                f.wire.describe()
            )
        }
        (Kind::Wire, _) => format!("{}; the generated clients too", f.wire.describe()),
        (Kind::Decision, _) => "the project's decisions".to_owned(),
        _ => "release".to_owned(),
    }
}

fn group(f: &Finding) -> String {
    f.operations
        .first()
        .cloned()
        .or_else(|| f.subject.clone())
        .unwrap_or_else(|| match f.kind {
            Kind::Rust => "crate".to_owned(),
            _ => "document".to_owned(),
        })
}

/// Active findings of a level, grouped by what they are about, groups in first-seen order.
fn grouped(report: &Report, level: Level) -> Vec<(String, Vec<&Finding>)> {
    let mut groups: Vec<(String, Vec<&Finding>)> = Vec::new();
    for f in report.active().filter(|f| f.level == level) {
        let key = group(f);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(f),
            None => groups.push((key, vec![f])),
        }
    }
    groups
}

fn counts(report: &Report, k: Kind) -> [usize; 3] {
    let mut out = [0; 3];
    for f in report.active().filter(|f| f.kind == k) {
        out[f.level as usize] += 1;
    }
    out
}

fn side(s: &crate::Side) -> String {
    format!(
        "{} (openapi {}, version {})",
        s.name,
        s.openapi,
        s.version.as_deref().unwrap_or("none")
    )
}

fn rust_line(report: &Report) -> String {
    match report.rust.bump {
        None => format!("unchanged, crate stays {}", report.rust.current),
        Some(b) => format!(
            "{}, crate {} -> {}",
            b.as_str(),
            report.rust.current,
            report.rust.next
        ),
    }
}

/// The report for a terminal.
pub fn text(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "old: {}", side(&report.old));
    let _ = writeln!(out, "new: {}", side(&report.new));
    let [we, ww, wi] = counts(report, Kind::Wire);
    let [de, dw, di] = counts(report, Kind::Decision);
    let ignored = report.findings.len() - report.active().count();
    let _ = writeln!(
        out,
        "wire: {we} ERR, {ww} WARN, {wi} INFO | rust: {} | decisions: {} | ignored: {ignored}",
        rust_line(report),
        de + dw + di
    );
    for level in [Level::Err, Level::Warn, Level::Info] {
        let groups = grouped(report, level);
        if groups.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{}", level.as_str());
        for (key, list) in groups {
            let _ = writeln!(out, "  {key}");
            for f in list {
                let _ = writeln!(out, "    [{}] {}  {}", kind(f.kind), f.rule, f.pointer);
                let _ = writeln!(out, "        {}", f.message);
                let _ = writeln!(out, "        {}", impact(f));
                if f.operations.len() > 1 {
                    let _ = writeln!(out, "        also in {}", f.operations[1..].join(", "));
                }
            }
        }
    }
    let ignored: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.ignored.is_some())
        .collect();
    if !ignored.is_empty() {
        let _ = writeln!(out, "\nIGNORED (--ignore)");
        for f in ignored {
            let _ = writeln!(
                out,
                "    [{}] {}  {}: {}",
                kind(f.kind),
                f.rule,
                f.pointer,
                f.ignored.as_deref().unwrap_or_default()
            );
        }
    }
    if !report.unused_ignores.is_empty() {
        let _ = writeln!(out, "\nSTALE --ignore entries (they accepted nothing)");
        for e in &report.unused_ignores {
            let _ = writeln!(out, "    {} {}", e.rule, e.pointer.as_deref().unwrap_or(""));
        }
    }
    if report.findings.is_empty() {
        let _ = writeln!(out, "\nno changes");
    }
    out
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The report as Markdown for a pull-request comment.
pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## API changes: `{}` → `{}`\n",
        cell(&report.old.name),
        cell(&report.new.name)
    );
    let [we, ww, wi] = counts(report, Kind::Wire);
    let [de, dw, di] = counts(report, Kind::Decision);
    let _ = writeln!(out, "| | |\n|---|---|");
    let _ = writeln!(
        out,
        "| Spec version | {} → {} |",
        cell(report.old.version.as_deref().unwrap_or("none")),
        cell(report.new.version.as_deref().unwrap_or("none"))
    );
    let _ = writeln!(
        out,
        "| Wire | {we} breaking, {ww} warnings, {wi} compatible |"
    );
    let _ = writeln!(out, "| Rust crate | {} |", rust_line(report));
    let _ = writeln!(out, "| Decisions | {} |", de + dw + di);
    let ignored = report.findings.len() - report.active().count();
    if ignored > 0 {
        let _ = writeln!(out, "| Ignored | {ignored} |");
    }
    for level in [Level::Err, Level::Warn, Level::Info] {
        let groups = grouped(report, level);
        if groups.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n### {}\n", level.as_str());
        let _ = writeln!(out, "| Where | Kind | Rule | Change | Impact |");
        let _ = writeln!(out, "|---|---|---|---|---|");
        for (key, list) in groups {
            for f in list {
                let _ = writeln!(
                    out,
                    "| {} `{}` | {} | `{}` | {} | {} |",
                    cell(&key),
                    cell(&f.pointer),
                    kind(f.kind),
                    f.rule,
                    cell(&f.message),
                    cell(&impact(f))
                );
            }
        }
    }
    let ignored: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.ignored.is_some())
        .collect();
    if !ignored.is_empty() {
        let _ = writeln!(
            out,
            "\n<details><summary>Ignored ({})</summary>\n",
            ignored.len()
        );
        let _ = writeln!(out, "| Rule | Where | Reason |\n|---|---|---|");
        for f in ignored {
            let _ = writeln!(
                out,
                "| `{}` | `{}` | {} |",
                f.rule,
                cell(&f.pointer),
                cell(f.ignored.as_deref().unwrap_or_default())
            );
        }
        let _ = writeln!(out, "\n</details>");
    }
    if report.findings.is_empty() {
        let _ = writeln!(out, "\nNo changes.");
    }
    out
}

/// The rules table (`--list-rules`).
pub fn rules() -> String {
    let mut out = String::new();
    let width = RULES.iter().map(|r| r.name.len()).max().unwrap_or(0);
    for r in RULES {
        let effect = match (r.kind, r.rust) {
            (_, Some(s)) => format!("rust {}", s.as_str()),
            (Kind::Wire, _) if r.wire == Wire::None => "wire: none".to_owned(),
            (Kind::Wire, _) => format!(
                "wire: {}{}",
                match r.wire {
                    Wire::Requests => "requests",
                    _ => "answers",
                },
                if r.ours_tolerate {
                    ", ours tolerate"
                } else {
                    ""
                }
            ),
            (k, _) => kind(k).to_owned(),
        };
        let _ = writeln!(
            out,
            "{:<width$}  {:<4}  {:<28}  {}",
            r.name,
            r.level.as_str(),
            effect,
            r.description
        );
    }
    out
}
