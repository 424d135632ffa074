//! The harness and Schemathesis on the same real application, Prefect server 3.9.1 (188
//! operations), in one run: what each finds (operations answering a 5xx, operations
//! answering a status their spec does not declare), how much of the API each reaches
//! (operations that answered a 2xx), wall time and requests per second, each as a ratio of
//! the harness's to Schemathesis's. Each tool gets a fresh server (SQLite in a temp dir)
//! and the spec the server serves; the harness may write (`--allow-writes`, what it
//! creates it removes), Schemathesis runs its default phases and checks with
//! `--max-examples 20`, the budget of the issue's comparison.
//!
//! Run through xtask, which installs Prefect and Schemathesis into `target/tools/`:
//!
//! ```sh
//! cargo xtask bench prefect [--max-examples N] [--st-max-examples N]
//! ```
//!
//! Both tools' answers are read back from their own records (the harness's `--record`,
//! Schemathesis's HAR report) and judged here by one rule, so the counts compare: a
//! request belongs to the operation whose method and path template match it.

#[allow(
    dead_code,
    reason = "the tests' Prefect support; the bench uses part of it"
)]
#[path = "../tests/prefect_support/mod.rs"]
mod prefect_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use prefect_support::{Prefect, run_harness};
use serde_json::Value;

/// Longest a Schemathesis run may take before the bench gives up on it.
const ST_TIMEOUT: Duration = Duration::from_secs(1800);

/// One answered request: method, path (no query), status.
type Answered = (String, String, u16);

/// What one tool's run found and reached.
struct Tally {
    wall: Duration,
    requests: usize,
    reached: BTreeSet<String>,
    server_errors: BTreeSet<String>,
    /// Operations with a 5xx other than 503: Prefect answers 503 "Service Unavailable"
    /// when its SQLite database is locked (by its own services or a long bulk delete), so
    /// a 503 says how busy the server was, a 500 that a request crashed it.
    crashes: BTreeSet<String>,
    undeclared: BTreeSet<String>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str, default: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
            .unwrap_or_else(|| default.to_string())
    };
    let max_examples = value("--max-examples", "4");
    let st_max_examples = value("--st-max-examples", "20");
    match run(&max_examples, &st_max_examples) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench prefect: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(max_examples: &str, st_max_examples: &str) -> Result<(), String> {
    let st = PathBuf::from(
        std::env::var_os("SCHEMATHESIS_BIN")
            .ok_or("SCHEMATHESIS_BIN is not set: run `cargo xtask bench prefect`")?,
    );
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;

    let dir = scratch.path().join("harness");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let prefect = Prefect::start(&dir);
    let started = Instant::now();
    let run = run_harness(
        &prefect,
        &dir,
        &["--allow-writes", "--max-examples", max_examples],
    );
    let harness_wall = started.elapsed();
    drop(prefect);
    let spec = run.spec.clone();
    let exchanges: Vec<Answered> = run
        .record
        .iter()
        .filter_map(|x| {
            Some((
                x["method"].as_str()?.to_string(),
                x["path"].as_str()?.split('?').next()?.to_string(),
                u16::try_from(x["status"].as_u64()?).ok()?,
            ))
        })
        .collect();
    let harness = tally(&spec, harness_wall, run.record.len(), &exchanges);

    let dir = scratch.path().join("schemathesis");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let prefect = Prefect::start(&dir);
    let spec_path = dir.join("openapi.json");
    std::fs::write(
        &spec_path,
        serde_json::to_vec(&spec).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let har = dir.join("schemathesis.har");
    let (st_wall, st_exchanges, st_requests) =
        schemathesis(&st, &spec_path, &prefect.api, st_max_examples, &har)?;
    drop(prefect);
    let theirs = tally(&spec, st_wall, st_requests, &st_exchanges);

    print_table(&harness, &theirs, max_examples, st_max_examples);
    Ok(())
}

/// Runs Schemathesis and reads its HAR report back: (wall time, (method, path, status) of
/// each answered request, requests sent).
fn schemathesis(
    st: &Path,
    spec: &Path,
    api: &str,
    max_examples: &str,
    har: &Path,
) -> Result<(Duration, Vec<Answered>, usize), String> {
    let mut cmd = Command::new(st);
    cmd.arg("run")
        .arg(spec)
        .args(["--url", api, "--max-examples", max_examples, "--seed", "1"])
        .args(["--report", "har", "--report-har-path"])
        .arg(har)
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start Schemathesis: {e}"))?;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() > ST_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("Schemathesis did not finish within 30 minutes".into());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(200)),
            Err(e) => return Err(format!("cannot wait for Schemathesis: {e}")),
        }
    }
    let wall = started.elapsed();
    let text = std::fs::read_to_string(har)
        .map_err(|e| format!("Schemathesis wrote no HAR file ({e})"))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| format!("bad HAR file: {e}"))?;
    let entries = doc
        .pointer("/log/entries")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let prefix = url_path(api);
    let exchanges = entries
        .iter()
        .filter_map(|e| {
            let method = e.pointer("/request/method")?.as_str()?.to_string();
            let path = url_path(e.pointer("/request/url")?.as_str()?);
            let path = path.strip_prefix(&prefix).unwrap_or(&path).to_string();
            let status = u16::try_from(e.pointer("/response/status")?.as_u64()?).ok()?;
            (status > 0).then_some((method, path, status))
        })
        .collect();
    Ok((wall, exchanges, entries.len()))
}

/// The path of a URL, query left out, percent-encoding kept.
fn url_path(url: &str) -> String {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = after_scheme.find('/').map_or("/", |i| &after_scheme[i..]);
    path.split('?').next().unwrap_or(path).to_string()
}

/// Judges one tool's answers by one rule: per operation (method and path template), whether
/// any answer was a 2xx, a 5xx, or a status the operation does not declare.
fn tally(spec: &Value, wall: Duration, requests: usize, exchanges: &[Answered]) -> Tally {
    let mut ops: Vec<(String, Vec<String>, String, Vec<String>)> = Vec::new();
    for (template, item) in spec["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            let Some(id) = op["operationId"].as_str() else {
                continue;
            };
            let declared = op["responses"]
                .as_object()
                .map(|r| r.keys().cloned().collect())
                .unwrap_or_default();
            let segments = template
                .trim_matches('/')
                .split('/')
                .map(str::to_string)
                .collect();
            ops.push((method.to_uppercase(), segments, id.to_string(), declared));
        }
    }
    let mut t = Tally {
        wall,
        requests,
        reached: BTreeSet::new(),
        server_errors: BTreeSet::new(),
        crashes: BTreeSet::new(),
        undeclared: BTreeSet::new(),
    };
    // The literal template first: `/flows/filter` is not `/flows/{id}`.
    let mut by_literals: BTreeMap<(String, String), String> = BTreeMap::new();
    for (method, path, status) in exchanges {
        let key = (method.clone(), path.clone());
        let id = by_literals.get(&key).cloned().or_else(|| {
            let concrete: Vec<&str> = path.trim_matches('/').split('/').collect();
            let found = ops
                .iter()
                .filter(|(m, segs, _, _)| {
                    m == method
                        && segs.len() == concrete.len()
                        && segs
                            .iter()
                            .zip(&concrete)
                            .all(|(s, c)| s == c || (s.starts_with('{') && s.ends_with('}')))
                })
                .max_by_key(|(_, segs, _, _)| segs.iter().filter(|s| !s.starts_with('{')).count())
                .map(|(_, _, id, _)| id.clone())?;
            by_literals.insert(key, found.clone());
            Some(found)
        });
        let Some(id) = id else { continue };
        let declared = &ops.iter().find(|o| o.2 == id).expect("found above").3;
        if (200..300).contains(status) {
            t.reached.insert(id.clone());
        }
        if *status >= 500 {
            t.server_errors.insert(id.clone());
        }
        if *status >= 500 && *status != 503 {
            t.crashes.insert(id.clone());
        }
        let class = format!("{}XX", status / 100);
        if !declared
            .iter()
            .any(|d| *d == status.to_string() || d.eq_ignore_ascii_case(&class) || d == "default")
        {
            t.undeclared.insert(id);
        }
    }
    t
}

fn print_table(ours: &Tally, theirs: &Tally, max_examples: &str, st_max_examples: &str) {
    let ratio = |a: f64, b: f64| {
        if b > 0.0 {
            format!("{:.2}x", a / b)
        } else {
            "-".into()
        }
    };
    let rps = |t: &Tally| t.requests as f64 / t.wall.as_secs_f64().max(1e-9);
    println!(
        "Prefect 3.9.1, 188 operations; harness --allow-writes --max-examples {max_examples}; Schemathesis --max-examples {st_max_examples} (default phases and checks)"
    );
    println!("| | harness | Schemathesis | harness / Schemathesis |");
    println!("|---|---|---|---|");
    let count = |name: &str, a: usize, b: usize| {
        println!("| {name} | {a} | {b} | {} |", ratio(a as f64, b as f64));
    };
    count(
        "operations that answered a 2xx",
        ours.reached.len(),
        theirs.reached.len(),
    );
    count(
        "operations with a 5xx found",
        ours.server_errors.len(),
        theirs.server_errors.len(),
    );
    count(
        "operations with a crash found (a 5xx other than 503)",
        ours.crashes.len(),
        theirs.crashes.len(),
    );
    count(
        "operations with an undeclared status found",
        ours.undeclared.len(),
        theirs.undeclared.len(),
    );
    count("requests", ours.requests, theirs.requests);
    println!(
        "| wall time | {:.1} s | {:.1} s | {} |",
        ours.wall.as_secs_f64(),
        theirs.wall.as_secs_f64(),
        ratio(ours.wall.as_secs_f64(), theirs.wall.as_secs_f64())
    );
    println!(
        "| requests/s | {:.0} | {:.0} | {} |",
        rps(ours),
        rps(theirs),
        ratio(rps(ours), rps(theirs))
    );
    let only = |a: &BTreeSet<String>, b: &BTreeSet<String>| {
        a.difference(b).cloned().collect::<Vec<_>>().join(", ")
    };
    println!(
        "5xx found only by Schemathesis: {}",
        only(&theirs.server_errors, &ours.server_errors)
    );
    println!(
        "5xx found only by the harness: {}",
        only(&ours.server_errors, &theirs.server_errors)
    );
    println!(
        "crashes found only by Schemathesis: {}",
        only(&theirs.crashes, &ours.crashes)
    );
    println!(
        "crashes found only by the harness: {}",
        only(&ours.crashes, &theirs.crashes)
    );
}
