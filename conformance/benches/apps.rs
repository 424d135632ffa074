//! The harness and Schemathesis on the same real applications, in one run: Prefect server
//! 3.9.1 (FastAPI, OpenAPI 3.1, 188 operations) and Kinto 26.5.0 (Pyramid and Cornice,
//! Swagger 2.0, 44 operations, HTTP basic accounts). Per application: what each finds
//! (operations answering a 5xx, operations answering a status their spec does not
//! declare), how much of the API each reaches (operations requested at all, operations
//! that answered a 2xx), wall time and requests per second, each as a ratio of the
//! harness's to Schemathesis's; and the harness's own measure of reach, the share of the
//! operations whose inputs an example, an answer or the schema can give that it requested
//! (its JSON report's coverage). Each tool gets a fresh server in the same state (SQLite
//! in a temp dir for Prefect; Kinto's memory backend with one admin account, whose
//! credentials both tools are given) and the spec the server serves; the harness may
//! write (`--allow-writes`, what it creates it removes), Schemathesis runs its default
//! phases and checks with `--max-examples 20`, the budget of the issue's comparison.
//!
//! Run through xtask, which installs Prefect, Kinto and Schemathesis into `target/tools/`:
//!
//! ```sh
//! cargo xtask bench apps [--app prefect|kinto] [--max-examples N] [--st-max-examples N]
//!                        [--allow-destructive]
//! ```
//!
//! `--allow-destructive` gives the harness that permission too (the servers are the bench's
//! own, and Schemathesis sends its bulk deletes regardless), so both tools may send every
//! operation.
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

#[allow(
    dead_code,
    reason = "the tests' Kinto support; the bench uses part of it"
)]
#[path = "../tests/kinto_support/mod.rs"]
mod kinto_support;

mod bounded;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use kinto_support::Kinto;
use prefect_support::{Api, Prefect};
use serde_json::Value;

/// Longest a Schemathesis run may take before the bench gives up on it.
const ST_TIMEOUT: Duration = Duration::from_secs(1800);

/// One answered request: method, path (no query), status.
type Answered = (String, String, u16);

/// What one tool's run found and reached.
struct Tally {
    wall: Duration,
    requests: usize,
    requested: BTreeSet<String>,
    reached: BTreeSet<String>,
    server_errors: BTreeSet<String>,
    /// Operations with a 5xx other than 503: Prefect answers 503 "Service Unavailable"
    /// when its SQLite database is locked (by its own services or a long bulk delete), so
    /// a 503 says how busy the server was, a 500 that a request crashed it.
    crashes: BTreeSet<String>,
    undeclared: BTreeSet<String>,
}

/// A server of one application, ready, stopped when dropped.
struct Server {
    /// Its API's base URL.
    base: String,
    /// Where it serves its spec, relative to `base`.
    spec_path: &'static str,
    /// The `Authorization` both tools send, where the application needs one.
    auth: Option<String>,
    _running: Box<dyn std::any::Any>,
}

/// The applications, by the name `--app` takes.
const APPS: &[&str] = &["prefect", "kinto"];

fn start(app: &str, dir: &Path) -> Server {
    match app {
        "prefect" => {
            let p = Prefect::start(dir);
            Server {
                base: p.api.clone(),
                spec_path: "/openapi.json",
                auth: None,
                _running: Box::new(p),
            }
        }
        _ => {
            let k = Kinto::start();
            let auth = k.make_admin(&format!("pw-{}", std::process::id()));
            Server {
                base: k.base.clone(),
                spec_path: "/__api__",
                auth: Some(auth),
                _running: Box::new(k),
            }
        }
    }
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
    // The bench's servers are its own: the harness may be given what Schemathesis takes
    // for granted, deletes and changes of records it did not make.
    let destructive = args.iter().any(|a| a == "--allow-destructive");
    let only = value("--app", "all");
    if only != "all" && !APPS.contains(&only.as_str()) {
        eprintln!("bench apps: --app takes one of {APPS:?}, not `{only}`");
        return ExitCode::from(2);
    }
    for app in APPS.iter().filter(|a| only == "all" || only == **a) {
        if let Err(e) = run(app, &max_examples, &st_max_examples, destructive) {
            eprintln!("bench apps ({app}): {e}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

fn run(
    app: &str,
    max_examples: &str,
    st_max_examples: &str,
    destructive: bool,
) -> Result<(), String> {
    let st = PathBuf::from(
        std::env::var_os("SCHEMATHESIS_BIN")
            .ok_or("SCHEMATHESIS_BIN is not set: run `cargo xtask bench apps`")?,
    );
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;

    let dir = scratch.path().join("harness");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let server = start(app, &dir);
    let (status, spec) = Api::new(&server.base).get(server.spec_path);
    if status != 200 {
        return Err(format!("GET {}: {status}", server.spec_path));
    }
    let spec_path = dir.join("openapi.json");
    std::fs::write(
        &spec_path,
        serde_json::to_vec(&spec).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let (record, report) = harness(&server, &spec_path, &dir, max_examples, destructive)?;
    let harness_wall = started.elapsed();
    drop(server);
    // The harness's own probes (the pre-flight `GET` of the base URL) are no case's.
    let exchanges: Vec<Answered> = record
        .iter()
        .filter(|x| {
            x["harness"].is_null()
                && !x["case"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("preflight/"))
        })
        .filter_map(|x| {
            Some((
                x["method"].as_str()?.to_string(),
                x["path"].as_str()?.split('?').next()?.to_string(),
                u16::try_from(x["status"].as_u64()?).ok()?,
            ))
        })
        .collect();
    let ours = tally(&spec, harness_wall, record.len(), &exchanges);

    let dir = scratch.path().join("schemathesis");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let server = start(app, &dir);
    let har = dir.join("schemathesis.har");
    let (st_wall, st_exchanges, st_requests) = schemathesis(
        &st,
        &spec_path,
        &server.base,
        server.auth.as_deref(),
        st_max_examples,
        &har,
    )?;
    drop(server);
    let theirs = tally(&spec, st_wall, st_requests, &st_exchanges);

    let setup = format!(
        "harness --allow-writes{} --max-examples {max_examples}; Schemathesis --max-examples {st_max_examples} (default phases and checks)",
        if destructive {
            " --allow-destructive"
        } else {
            ""
        }
    );
    print_table(app, &spec, &ours, &theirs, &report, &setup);
    Ok(())
}

/// Runs the harness (this build's `conformance` binary) on `server`; its record and JSON
/// report.
fn harness(
    server: &Server,
    spec: &Path,
    dir: &Path,
    max_examples: &str,
    destructive: bool,
) -> Result<(Vec<Value>, Value), String> {
    let record = dir.join("record.json");
    let report = dir.join("report.json");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_conformance"));
    for var in [
        "CONFORMANCE_BASE_URL",
        "CONFORMANCE_TOKEN",
        "CONFORMANCE_CLIENT_ID",
        "CONFORMANCE_CLIENT_SECRET",
        "CONFORMANCE_REDIRECT_URI",
        "CONFORMANCE_AUTH_CODE",
    ] {
        cmd.env_remove(var);
    }
    cmd.arg("--spec")
        .arg(spec)
        .args(["--base-url", &server.base])
        .arg("--record")
        .arg(&record)
        .arg("--json")
        .arg(&report)
        .args(["--timeout", "30", "--quiet", "--allow-writes"])
        .args(["--max-examples", max_examples]);
    if destructive {
        cmd.arg("--allow-destructive");
    }
    if let Some(auth) = &server.auth {
        cmd.args(["-H", &format!("Authorization:{auth}")]);
    }
    let out = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run the harness: {e}"))?;
    if !matches!(out.status.code(), Some(0..=3)) {
        return Err(format!(
            "the harness ended with {}:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let read = |p: &Path| -> Result<Value, String> {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))
    };
    let record = read(&record)?
        .as_array()
        .cloned()
        .ok_or("the record is not a list")?;
    Ok((record, read(&report)?))
}

/// Runs Schemathesis and reads its HAR report back: (wall time, (method, path, status) of
/// each answered request, requests sent).
fn schemathesis(
    st: &Path,
    spec: &Path,
    api: &str,
    auth: Option<&str>,
    max_examples: &str,
    har: &Path,
) -> Result<(Duration, Vec<Answered>, usize), String> {
    let mut cmd = Command::new(st);
    cmd.arg("run")
        .arg(spec)
        .args(["--url", api, "--max-examples", max_examples, "--seed", "1"]);
    if let Some(auth) = auth {
        cmd.args(["-H", &format!("Authorization: {auth}")]);
    }
    cmd.args(["--report", "har", "--report-har-path"])
        .arg(har)
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let wall = bounded::run(
        &mut cmd,
        ST_TIMEOUT,
        Duration::from_millis(200),
        "Schemathesis",
    )?;
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
        requested: BTreeSet::new(),
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
        t.requested.insert(id.clone());
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

fn print_table(app: &str, spec: &Value, ours: &Tally, theirs: &Tally, report: &Value, setup: &str) {
    let ratio = |a: f64, b: f64| {
        if b > 0.0 {
            format!("{:.2}x", a / b)
        } else {
            "-".into()
        }
    };
    let rps = |t: &Tally| t.requests as f64 / t.wall.as_secs_f64().max(1e-9);
    let coverage = &report["coverage"];
    println!(
        "\n{app}: {} {}, {} operations; {setup}",
        spec["info"]["title"].as_str().unwrap_or("?"),
        spec["info"]["version"].as_str().unwrap_or("?"),
        coverage["operations"],
    );
    println!("| | harness | Schemathesis | harness / Schemathesis |");
    println!("|---|---|---|---|");
    let count = |name: &str, a: usize, b: usize| {
        println!("| {name} | {a} | {b} | {} |", ratio(a as f64, b as f64));
    };
    count(
        "operations requested at all",
        ours.requested.len(),
        theirs.requested.len(),
    );
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
    // The harness's own measure, from its report: the graph's `never` counted apart.
    let ops = coverage["per_operation"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let names = |keep: &dyn Fn(&Value) -> bool| -> Vec<String> {
        ops.iter()
            .filter(|o| keep(o))
            .map(|o| {
                let why = o["unreachable"]
                    .as_str()
                    .or(o["withheld"].as_str())
                    .map(|w| format!(" ({w})"));
                format!(
                    "{}{}",
                    o["operation"].as_str().unwrap_or("?"),
                    why.unwrap_or_default()
                )
            })
            .collect()
    };
    let reachable = coverage["reachable"].as_u64().unwrap_or(0);
    let requested = coverage["requested_reachable"].as_u64().unwrap_or(0);
    println!(
        "harness reach: requested {requested} of the {reachable} operations whose inputs an example, an answer or the schema can give and the run's permissions allow ({:.1}%)",
        100.0 * requested as f64 / (reachable.max(1)) as f64
    );
    println!(
        "  of those, not requested: {}",
        names(&|o| o["unreachable"].is_null() && o["withheld"].is_null() && o["requests"] == 0)
            .join(", ")
    );
    println!(
        "  left out, nothing can give their inputs: {}",
        names(&|o| !o["unreachable"].is_null()).join(", ")
    );
    println!(
        "  left out, the permissions refuse them: {}",
        names(&|o| o["unreachable"].is_null() && !o["withheld"].is_null()).join(", ")
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
