//! The report as text for a terminal, Markdown for a pull-request comment, or JSON; and
//! the rules table. Text and Markdown group findings by level (ERR first), then by the
//! operation (or schema, or Rust item) they are about.

use std::fmt::Write;

use crate::finding::Ours;
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
        (Kind::Wire, _) => {
            let ours = match f.ours {
                Ours::Unaffected => return f.wire.describe().to_owned(),
                Ours::ReadsThrough => "the old spec's generated clients read through it",
                Ours::Breaks => "the generated clients too",
                Ours::NotJudged => "not judged for the generated clients",
            };
            format!("{}; {ours}", f.wire.describe())
        }
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
    if let Some(why) = &report.rust.unjudged {
        return format!("not judged ({why})");
    }
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

/// Operations named after a finding's first in the text report before the rest are
/// counted (`--verbose` names them all): one change of a schema forty operations share
/// is one finding, not a line of forty names.
const ALSO_IN: usize = 5;
/// The longest line of the text report; a longer one is wrapped (`--verbose` keeps every
/// line whole).
const TEXT_WIDTH: usize = 200;
/// The most characters of the Markdown report: a pull-request comment takes 65,536 on
/// GitHub, and the rest of the comment needs room.
const MARKDOWN_LIMIT: usize = 60_000;

/// The report for a terminal: lines wrapped at 200 characters, and a finding's other
/// operations named up to five; [`text_with`] `verbose` names them all, lines unwrapped.
pub fn text(report: &Report) -> String {
    text_with(report, false)
}

/// `line` wrapped at spaces into lines of at most [`TEXT_WIDTH`] characters, each after
/// the first indented four more than it (a word longer than that is broken where it
/// must be): nothing is cut.
fn wrap(line: &str) -> Vec<String> {
    if line.chars().count() <= TEXT_WIDTH {
        return vec![line.to_owned()];
    }
    let indent = line.len() - line.trim_start().len();
    let more = " ".repeat(indent + 4);
    let mut lines = Vec::new();
    let mut current = line[..indent].to_owned();
    for word in line.trim_start().split(' ') {
        let fresh = current.trim().is_empty();
        let extra = if fresh { 0 } else { 1 };
        if !fresh && current.chars().count() + extra + word.chars().count() > TEXT_WIDTH {
            lines.push(std::mem::replace(&mut current, more.clone()));
        }
        if !current.trim().is_empty() {
            current.push(' ');
        }
        current.push_str(word);
        while current.chars().count() > TEXT_WIDTH {
            let head: String = current.chars().take(TEXT_WIDTH).collect();
            let tail: String = current.chars().skip(TEXT_WIDTH).collect();
            lines.push(head);
            current = format!("{more}{tail}");
        }
    }
    lines.push(current);
    lines
}

/// The report for a terminal; `verbose`: every operation of every finding, and lines as
/// long as they are.
pub fn text_with(report: &Report, verbose: bool) -> String {
    let mut body = String::new();
    let out = &mut body;
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
                let others = f.operations.get(1..).unwrap_or_default();
                if others.len() > ALSO_IN && !verbose {
                    let _ = writeln!(
                        out,
                        "        also in {} and {} more operations (--verbose names them)",
                        others[..ALSO_IN].join(", "),
                        others.len() - ALSO_IN
                    );
                } else if !others.is_empty() {
                    let _ = writeln!(out, "        also in {}", others.join(", "));
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
    if verbose {
        return body;
    }
    body.lines().flat_map(wrap).map(|l| l + "\n").collect()
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The report as Markdown for a pull-request comment: the summary first, then a table per
/// level; past 60,000 characters the rows that do not fit are counted, not shown, and the
/// report says so.
pub fn markdown(report: &Report) -> String {
    // Room kept for the closing lines (what was cut, the ignored findings' summary).
    let budget = MARKDOWN_LIMIT - 1_000;
    let mut cut = 0;
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
    // Rows of every level, then the ones that fit: the wire, decision and version rows
    // first (what a reviewer decides on), the Rust rows in the room left.
    let levels = [Level::Err, Level::Warn, Level::Info];
    let rows: Vec<Vec<(bool, String)>> = levels
        .iter()
        .map(|&level| {
            grouped(report, level)
                .into_iter()
                .flat_map(|(key, list)| list.into_iter().map(move |f| (key.clone(), f)))
                .map(|(key, f)| {
                    let row = format!(
                        "| {} `{}` | {} | `{}` | {} | {} |\n",
                        cell(&key),
                        cell(&f.pointer),
                        kind(f.kind),
                        f.rule,
                        cell(&f.message),
                        cell(&impact(f))
                    );
                    (f.kind == Kind::Rust, row)
                })
                .collect()
        })
        .collect();
    // Each level's block costs its heading and table head besides its rows.
    let mut room = budget.saturating_sub(out.len() + 400 * levels.len());
    let mut shown: Vec<Vec<bool>> = rows.iter().map(|r| vec![false; r.len()]).collect();
    for rust in [false, true] {
        for (l, level_rows) in rows.iter().enumerate() {
            for (i, (is_rust, row)) in level_rows.iter().enumerate() {
                if *is_rust != rust {
                    continue;
                }
                if row.len() <= room {
                    room -= row.len();
                    shown[l][i] = true;
                } else {
                    cut += 1;
                }
            }
        }
    }
    for (l, level) in levels.iter().enumerate() {
        if rows[l].is_empty() {
            continue;
        }
        // Breaking changes open, the rest folded: the summary above says how many.
        let open = if *level == Level::Err { " open" } else { "" };
        let _ = writeln!(
            out,
            "\n<details{open}><summary><b>{}</b> ({} finding(s))</summary>\n",
            level.as_str(),
            rows[l].len()
        );
        let _ = writeln!(out, "| Where | Kind | Rule | Change | Impact |");
        let _ = writeln!(out, "|---|---|---|---|---|");
        for (i, (_, row)) in rows[l].iter().enumerate() {
            if shown[l][i] {
                out.push_str(row);
            }
        }
        let _ = writeln!(out, "\n</details>");
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
            let row = format!(
                "| `{}` | `{}` | {} |\n",
                f.rule,
                cell(&f.pointer),
                cell(f.ignored.as_deref().unwrap_or_default())
            );
            if out.len() + row.len() > budget {
                cut += 1;
            } else {
                out.push_str(&row);
            }
        }
        let _ = writeln!(out, "\n</details>");
    }
    if cut > 0 {
        let _ = writeln!(
            out,
            "\n**{cut} more finding(s) not shown** (Rust ones first): a pull-request comment holds {MARKDOWN_LIMIT} characters; the text (`--format text --verbose`) and JSON reports have them all."
        );
    }
    if report.findings.is_empty() {
        let _ = writeln!(out, "\nNo changes.");
    }
    out
}

/// The report as GitHub Actions workflow commands: one annotation per wire, decision
/// and version finding (`::error` for ERR, `::warning` for WARN, `::notice` for INFO) on
/// the line of the spec it points at (the new spec's, or the old one's for what was
/// removed), and one notice summing up the Rust crate's verdict, whose findings name
/// items of generated code rather than lines of the spec. `old`/`new` are the two
/// documents as read.
pub fn github(report: &Report, old: &spec_model::Source, new: &spec_model::Source) -> String {
    let tree = |s: &spec_model::Source| spec_model::to_value(s).unwrap_or_default();
    let (old_tree, new_tree) = (tree(old), tree(new));
    let mut out = String::new();
    let levels = [Level::Err, Level::Warn, Level::Info];
    let ordered = levels
        .iter()
        .flat_map(|&level| report.active().filter(move |f| f.level == level));
    for f in ordered {
        if f.kind == Kind::Rust {
            continue;
        }
        let command = match f.level {
            Level::Err => "error",
            Level::Warn => "warning",
            Level::Info => "notice",
        };
        // What was removed is shown where it was: in the old document.
        let (file, text) =
            if new_tree.pointer(&f.pointer).is_none() && old_tree.pointer(&f.pointer).is_some() {
                (&report.old.name, &old.text)
            } else {
                (&report.new.name, &new.text)
            };
        let place = spec_model::line_of(text, &f.pointer).map(|line| (file, line));
        let mut properties = Vec::new();
        if let Some((file, line)) = place {
            properties.push(format!("file={}", property(file)));
            properties.push(format!("line={line}"));
        }
        properties.push(format!("title={}", property(f.rule)));
        let operations = match f.operations.as_slice() {
            [] => String::new(),
            [one] => format!(" ({one})"),
            [one, rest @ ..] => format!(" ({one} and {} more)", rest.len()),
        };
        let message = format!("{}{operations}: {}", f.message, impact(f));
        let _ = writeln!(
            out,
            "::{command} {}::{}",
            properties.join(","),
            escape(&message)
        );
    }
    let rust = report.active().filter(|f| f.kind == Kind::Rust).count();
    let _ = writeln!(
        out,
        "::notice title=generated crate::{}",
        escape(&format!(
            "rust: {} ({rust} finding(s) in the generated crate's public API)",
            rust_line(report)
        ))
    );
    out
}

/// A workflow command's message, with the characters GitHub reads as syntax encoded.
fn escape(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: the message's encoding, and `:` and `,` too.
fn property(s: &str) -> String {
    escape(s).replace(':', "%3A").replace(',', "%2C")
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
