//! `conformance merge`: the JSON reports of the shards of one run (`--shard I/N`, one CI
//! job each) joined into the report of the whole run, as if one process had run them: the
//! results in shard order, the totals, groups and coverage over all of them, a check left
//! "not applicable" only when no shard judged it, and the exit code the whole run would
//! have. The reports are refused when they do not belong together: another spec or seed,
//! an operation run by two shards.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::coverage::{Coverage, OperationCoverage};
use crate::error::HarnessError;
use crate::header::RunHeader;
use crate::outcome::{CheckResult, Got, ReportedVerdict, Totals, Verdict};
use crate::registry::{Check, CheckId};
use crate::report::{self, RunState, timings::Latency};
use crate::spec::Level;

/// Arguments of `conformance merge`.
#[derive(clap::Args, Clone, Debug)]
pub struct MergeArgs {
    /// The shards' JSON reports (`--json` of each `--shard I/N` run).
    #[arg(required = true, value_name = "REPORT")]
    pub reports: Vec<PathBuf>,
    /// Where to write the merged JSON report.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Where to write JUnit XML of the merged run.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Where to write the HTML report of the merged run.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// One shard's report as read back.
struct Shard {
    path: PathBuf,
    header: RunHeader,
    strict: bool,
    state: RunState,
    exit_code: Option<u8>,
    results: Vec<CheckResult>,
    latency: BTreeMap<String, Latency>,
    coverage: Coverage,
}

/// Merges the reports, writes the files asked for, and returns the terminal summary and
/// the merged run's exit code.
pub fn merge(args: &MergeArgs) -> Result<(String, u8), HarnessError> {
    let shards = args
        .reports
        .iter()
        .map(|p| read(p))
        .collect::<Result<Vec<_>, _>>()?;
    let first = &shards[0];
    check_shards(&shards)?;
    let mut owner: BTreeMap<&str, &Path> = BTreeMap::new();
    for s in &shards {
        if s.header.spec.digest != first.header.spec.digest || s.header.seed != first.header.seed {
            return Err(config(format!(
                "{} is a run of another spec or seed ({} seed {}) than {} ({} seed {}): shards of one run share both",
                s.path.display(),
                s.header.spec.digest,
                s.header.seed,
                first.path.display(),
                first.header.spec.digest,
                first.header.seed
            )));
        }
        if s.strict != first.strict {
            return Err(config(format!(
                "{} and {} differ in --strict",
                s.path.display(),
                first.path.display()
            )));
        }
        for o in s.coverage.per_operation.iter().filter(|o| o.requests > 0) {
            if let Some(other) = owner.insert(&o.operation, &s.path) {
                return Err(config(format!(
                    "operation {} was run by {} and by {}: shards of one run split the operations",
                    o.operation,
                    other.display(),
                    s.path.display()
                )));
            }
        }
    }
    let strict = first.strict;
    let state = shards
        .iter()
        .map(|s| s.state)
        .find(|s| *s != RunState::Finished)
        .unwrap_or(RunState::Finished);
    let coverage = joined_coverage(&shards);
    let mut results = joined_results(&shards);
    // `--min-coverage` is judged again on the whole run's coverage: each shard judged
    // only its share.
    let min = results
        .iter()
        .filter(|r| r.check == Check::MinCoverage)
        .find_map(|r| minimum_of(&r.expected));
    results.retain(|r| r.check != Check::MinCoverage);
    if let Some(min) = min {
        results.push(if state == RunState::Finished {
            crate::coverage::verdict(&coverage, min)
        } else {
            crate::coverage::not_judged(min, state.explain())
        });
    }
    let latency: BTreeMap<String, Latency> =
        shards.iter().flat_map(|s| s.latency.clone()).collect();
    let totals = Totals::of(&results, strict);
    let codes: BTreeSet<u8> = shards.iter().filter_map(|s| s.exit_code).collect();
    let exit_code = if codes.contains(&2) {
        2
    } else if totals.failed > 0 {
        1
    } else if state != RunState::Finished
        || codes.contains(&3)
        || shards.iter().any(|s| s.exit_code.is_none())
    {
        3
    } else {
        0
    };
    let mut header = first.header.clone();
    header.selection = format!(
        "{} shards merged ({})",
        shards.len(),
        shards
            .iter()
            .map(|s| s.header.selection.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    );
    if let Some(p) = &args.junit {
        let xml = report::render_junit(&results, strict, state, &coverage)?;
        report::write(p, &xml)?;
    }
    if args.json.is_some() || args.html.is_some() {
        let mut doc = report::json_report(
            &header,
            strict,
            (state, Some(exit_code)),
            &results,
            coverage.clone(),
        );
        doc.latency = latency.clone();
        if let Some(p) = &args.json {
            report::write(p, &report::render_json(&doc))?;
        }
        if let Some(p) = &args.html {
            report::write(p, &report::render_html(&doc))?;
        }
    }
    let mut summary = format!("{}\n", header.render());
    summary.push_str(&report::terminal::render(&results, &latency, strict, false));
    let totals_line = summary.rfind('\n').map_or(0, |i| i + 1);
    summary.insert_str(totals_line, &format!("\ncoverage: {}\n", coverage.line()));
    Ok((summary, exit_code))
}

/// `I/N` of a shard's selection line (`--shard 2/3 (63 of 188 operations) …`), and that
/// line without it.
fn shard_of(selection: &str) -> Option<((usize, usize), String)> {
    let at = selection.find("--shard ")?;
    let rest = &selection[at + "--shard ".len()..];
    let (spec, _) = rest.split_once(' ').unwrap_or((rest, ""));
    let (i, n) = spec.split_once('/')?;
    let end = rest
        .find(')')
        .map_or(selection.len(), |e| at + "--shard ".len() + e + 1);
    let others = format!("{}{}", &selection[..at], &selection[end..]);
    Some((
        (i.parse().ok()?, n.parse().ok()?),
        others.trim().to_string(),
    ))
}

/// The reports are the shards of one run: each names its shard, together they are
/// shards 1 to N once each, against one target with one selection.
fn check_shards(shards: &[Shard]) -> Result<(), HarnessError> {
    let mut seen = BTreeSet::new();
    let mut count = None;
    let mut others = None;
    for s in shards {
        let ((i, n), rest) = shard_of(&s.header.selection).ok_or_else(|| {
            config(format!(
                "{} is not the report of a shard (its selection is {:?}; run with --shard I/N)",
                s.path.display(),
                s.header.selection
            ))
        })?;
        if *count.get_or_insert(n) != n {
            return Err(config(format!(
                "{} is shard {i} of {n}, the others are of {}",
                s.path.display(),
                count.unwrap_or(n)
            )));
        }
        if !seen.insert(i) {
            return Err(config(format!(
                "shard {i}/{n} is given twice ({}): its operations would count twice",
                s.path.display()
            )));
        }
        // Each embedded run has its own reference server, on its own port.
        let same_target = if s.header.embedded {
            shards[0].header.embedded
        } else {
            s.header.target == shards[0].header.target
        };
        if *others.get_or_insert_with(|| rest.clone()) != rest || !same_target {
            return Err(config(format!(
                "{} ran against {} with selection {:?}; {} against {} with {:?}: shards of one run share both",
                s.path.display(),
                s.header.target,
                rest,
                shards[0].path.display(),
                shards[0].header.target,
                others.clone().unwrap_or_default()
            )));
        }
    }
    let n = count.unwrap_or(0);
    let missing: Vec<String> = (1..=n)
        .filter(|i| !seen.contains(i))
        .map(|i| format!("{i}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(config(format!(
            "shard(s) {} missing: the merge would not be the whole run",
            missing.join(", ")
        )));
    }
    Ok(())
}

/// The percentage of a `min_coverage` result's expectation (`… at least 60% …`).
fn minimum_of(expected: &str) -> Option<f64> {
    let (_, rest) = expected.split_once("at least ")?;
    rest.split('%').next()?.trim().parse().ok()
}

fn config(message: String) -> HarnessError {
    HarnessError::Config(message)
}

/// The results of every shard in shard order; a check "not applicable" in one shard but
/// judged in another is not listed as not applicable, and one listed by several shards is
/// listed once.
fn joined_results(shards: &[Shard]) -> Vec<CheckResult> {
    let judged: BTreeSet<&str> = shards
        .iter()
        .flat_map(|s| &s.results)
        .filter(|r| r.verdict != Verdict::NotApplicable)
        .map(|r| r.check.as_str())
        .collect();
    let mut listed = BTreeSet::new();
    let mut out = Vec::new();
    let mut not_applicable = Vec::new();
    for r in shards.iter().flat_map(|s| &s.results) {
        if r.verdict != Verdict::NotApplicable {
            out.push(r.clone());
        } else if !judged.contains(r.check.as_str()) && listed.insert(r.check.as_str().to_string())
        {
            not_applicable.push(r.clone());
        }
    }
    out.extend(not_applicable);
    out
}

/// Every operation's coverage, each from the shard that ran it (or, for one no shard sent
/// a request to, from the first shard that lists it).
fn joined_coverage(shards: &[Shard]) -> Coverage {
    let mut by_op: BTreeMap<String, OperationCoverage> = BTreeMap::new();
    for o in shards.iter().flat_map(|s| &s.coverage.per_operation) {
        match by_op.get(&o.operation) {
            Some(had) if had.requests > 0 || o.requests == 0 => {}
            _ => {
                by_op.insert(o.operation.clone(), o.clone());
            }
        }
    }
    Coverage::of_operations(by_op.into_values().collect())
}

/// Reads one shard's JSON report back.
fn read(path: &Path) -> Result<Shard, HarnessError> {
    let bad = |why: String| config(format!("{}: {why}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read: {e}")))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    if doc["format"] != 2 {
        return Err(bad(format!(
            "not a conformance JSON report of format 2 (format {})",
            doc["format"]
        )));
    }
    let field = |name: &str| -> Result<Value, HarnessError> {
        doc.get(name)
            .cloned()
            .ok_or_else(|| bad(format!("no `{name}` field")))
    };
    let parse = |name: &str| {
        let v = field(name)?;
        Ok::<Value, HarnessError>(v)
    };
    let header: RunHeader =
        serde_json::from_value(parse("run")?).map_err(|e| bad(format!("run: {e}")))?;
    let coverage: Coverage = serde_json::from_value(parse("coverage")?).map_err(|e| {
        bad(format!(
            "coverage: {e} (a report written before coverage existed cannot be merged)"
        ))
    })?;
    let latency =
        serde_json::from_value(parse("latency")?).map_err(|e| bad(format!("latency: {e}")))?;
    let state = match doc["state"].as_str() {
        Some("finished") => RunState::Finished,
        Some("interrupted") => RunState::Interrupted,
        Some("unreachable") => RunState::Unreachable,
        Some("in_progress") => RunState::InProgress,
        other => return Err(bad(format!("unknown state {other:?}"))),
    };
    let results = doc["results"]
        .as_array()
        .ok_or_else(|| bad("no `results` list".into()))?
        .iter()
        .enumerate()
        .map(|(i, r)| result(r).ok_or_else(|| bad(format!("results[{i}] is not a result"))))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Shard {
        path: path.to_path_buf(),
        header,
        strict: doc["strict"].as_bool().unwrap_or(false),
        state,
        exit_code: doc["exit_code"].as_u64().and_then(|c| u8::try_from(c).ok()),
        results,
        latency,
        coverage,
    })
}

/// A result of a JSON report as the run had it (a `warning` is a SHOULD failure).
fn result(r: &Value) -> Option<CheckResult> {
    let text = |k: &str| r[k].as_str().map(str::to_owned);
    let level = match r["level"].as_str()? {
        "must" | "MUST" => Level::Must,
        "should" | "SHOULD" => Level::Should,
        _ => return None,
    };
    let reported: ReportedVerdict = serde_json::from_value(r["verdict"].clone()).ok()?;
    let verdict = match reported {
        ReportedVerdict::Passed => Verdict::Passed,
        ReportedVerdict::Failed | ReportedVerdict::Warning => Verdict::Failed,
        ReportedVerdict::Skipped => Verdict::Skipped,
        ReportedVerdict::Known => Verdict::Known,
        ReportedVerdict::NotApplicable => Verdict::NotApplicable,
    };
    let name = text("check")?;
    let check = Check::parse(&name)
        .map(CheckId::Builtin)
        .unwrap_or_else(|| CheckId::Declared(name.into()));
    let got: Option<Got> = match &r["got"] {
        Value::Null => None,
        g => Some(serde_json::from_value(g.clone()).ok()?),
    };
    Some(CheckResult {
        case_index: r["case_index"].as_u64()? as usize,
        step: r["step"].as_u64()? as usize,
        case: text("case")?,
        operation: text("operation")?,
        check,
        level,
        verdict,
        message: text("message").unwrap_or_default(),
        expected: text("expected").unwrap_or_default(),
        got,
        curl: text("curl"),
        missing_input: r["missing_input"].as_bool().unwrap_or(false),
        elapsed: None,
    })
}
