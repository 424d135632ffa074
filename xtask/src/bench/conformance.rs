//! `cargo xtask bench conformance`: the wall time of the full default conformance run
//! against the reference server (target: under 3 s after build), and the harness's
//! requests per second beside Schemathesis sending about as many requests to the same
//! server in the same run (target: at least 10×). Both tools are timed over their whole
//! run (start-up, spec loading and reports included) against one in-process server.
//!
//! Run it optimised for the figures in BENCHMARKS.md:
//! `cargo run --release -p xtask -- bench conformance`.

use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use crate::tools::{project_root, python_venv, tools_dir};

/// The Schemathesis pin of `cargo xtask schemathesis` (checked against that file below, so
/// the two cannot drift).
const SCHEMATHESIS: &str = "schemathesis==4.32.5";
/// Wall-time target of the default run.
const WALL_TARGET: Duration = Duration::from_secs(3);
/// Throughput ratio target against Schemathesis.
const RATIO_TARGET: f64 = 10.0;
/// Hard bound on the Schemathesis run.
const ST_TIMEOUT: Duration = Duration::from_secs(600);

/// Arguments of `cargo xtask bench conformance`.
#[derive(clap::Args)]
pub struct Args {
    /// Timed repetitions of the default run (the median is reported).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Skip the Schemathesis comparison (no Python needed).
    #[arg(long)]
    no_schemathesis: bool,
}

/// Runs the benchmark; exit 1 when a target is missed, 2 when it cannot run.
pub fn run(args: Args) -> ExitCode {
    match run_inner(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("cargo xtask bench conformance: {e}");
            ExitCode::from(2)
        }
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn harness_args() -> conformance::Args {
    let mut a = conformance::Args::defaults();
    // The environment may name another target or token; the bench measures its own.
    a.base_url = None;
    a.token = None;
    a.quiet = true;
    a
}

fn run_inner(args: &Args) -> Result<bool, String> {
    if !include_str!("../schemathesis.rs").contains(SCHEMATHESIS) {
        return Err(format!(
            "xtask/src/schemathesis.rs no longer pins {SCHEMATHESIS}: update the pin here"
        ));
    }
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;

    // 1. The full default run: the harness starts the reference server itself.
    let mut walls = Vec::new();
    let mut checks = 0;
    for _ in 0..args.runs.max(1) {
        let started = Instant::now();
        let out = runtime
            .block_on(conformance::execute(&harness_args(), Default::default()))
            .map_err(|e| e.to_string())?;
        walls.push(started.elapsed());
        checks = out.results.len();
        if out.exit_code != 0 {
            return Err(format!(
                "the default run failed against the reference server:\n{}",
                out.summary
            ));
        }
    }
    let wall = median(walls);
    println!(
        "default run ({profile} build): median {:.3} s over {} runs, {checks} checks (target < {} s)",
        wall.as_secs_f64(),
        args.runs.max(1),
        WALL_TARGET.as_secs()
    );
    let mut ok = wall < WALL_TARGET;

    if args.no_schemathesis {
        return Ok(ok);
    }
    // 2. Requests per second against one server, harness then Schemathesis.
    let server = runtime
        .block_on(reference_server::spawn(reference_server::Config::default()))
        .map_err(|e| format!("cannot start the reference server: {e}"))?;
    let token = server.issue_token();
    let demo = server.demo_client();
    let fixtures = tools_dir().join("bench-fixtures.yaml");
    std::fs::create_dir_all(tools_dir()).map_err(|e| e.to_string())?;
    std::fs::write(
        &fixtures,
        format!(
            "allow_writes: true\nscope_names: [CME, CBOT]\nsuggest_probe_text: EQUIT\nsuggest_probe_name: Equities\noauth:\n  client_id: {}\n  client_secret: {}\n  redirect_uri: {}\n  authorize_url: {}/oauth/authorize\n",
            demo.client_id, demo.client_secret, demo.redirect_uri, server.origin()
        ),
    )
    .map_err(|e| format!("cannot write {}: {e}", fixtures.display()))?;
    let mut h = harness_args();
    h.base_url = Some(server.base_url());
    h.token = Some(token.clone());
    h.fixtures = Some(fixtures);
    let started = Instant::now();
    let out = runtime
        .block_on(conformance::execute(&h, Default::default()))
        .map_err(|e| e.to_string())?;
    let harness_time = started.elapsed();
    let harness_requests = out.exchanges.len();
    let harness_rps = harness_requests as f64 / harness_time.as_secs_f64();

    let bin = python_venv("schemathesis", &[SCHEMATHESIS])?;
    let har = tools_dir().join("bench-schemathesis.har");
    let _ = std::fs::remove_file(&har);
    // Fuzzing only, examples per operation chosen so the total is about the harness's.
    let per_op = harness_requests.div_ceil(6).max(1);
    let mut cmd = Command::new(bin.join("st"));
    cmd.current_dir(project_root())
        .arg("--config-file")
        .arg(project_root().join("conformance/reference-server/schemathesis.toml"))
        .arg("run")
        .arg(project_root().join("spec/openapi.yaml"))
        .args(["--url", &server.base_url()])
        .args(["--phases", "fuzzing", "--checks", "not_a_server_error"])
        .args(["--max-examples", &per_op.to_string(), "--seed", "1"])
        .args(["--report", "har", "--report-har-path"])
        .arg(&har)
        .arg("--header")
        .arg(format!("Authorization: Bearer {token}"))
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
                return Err("Schemathesis did not finish in time".into());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("cannot wait for Schemathesis: {e}")),
        }
    }
    let st_time = started.elapsed();
    runtime.block_on(server.shutdown());
    let har_text = std::fs::read_to_string(&har)
        .map_err(|e| format!("Schemathesis wrote no HAR file ({e})"))?;
    let har_json: serde_json::Value =
        serde_json::from_str(&har_text).map_err(|e| format!("bad HAR file: {e}"))?;
    let st_requests = har_json
        .pointer("/log/entries")
        .and_then(|e| e.as_array())
        .map_or(0, Vec::len);
    if st_requests == 0 {
        return Err("Schemathesis sent no request".into());
    }
    let st_rps = st_requests as f64 / st_time.as_secs_f64();
    // Schemathesis's fixed start-up (Python imports), timed alone so the report can say how
    // much of the gap it explains; the ratio itself compares whole runs.
    let started = Instant::now();
    let _ = Command::new(bin.join("st"))
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let st_startup = started.elapsed();
    let st_rps_after_startup =
        st_requests as f64 / (st_time.saturating_sub(st_startup)).as_secs_f64().max(1e-3);
    let ratio = harness_rps / st_rps;
    println!(
        "harness:      {harness_requests} requests in {:.3} s = {harness_rps:.0} requests/s",
        harness_time.as_secs_f64()
    );
    println!(
        "Schemathesis: {st_requests} requests in {:.3} s = {st_rps:.0} requests/s ({SCHEMATHESIS}, fuzzing phase, {per_op} examples per operation)",
        st_time.as_secs_f64()
    );
    println!(
        "Schemathesis start-up alone: {:.3} s; without it {st_rps_after_startup:.0} requests/s ({:.1}x)",
        st_startup.as_secs_f64(),
        harness_rps / st_rps_after_startup
    );
    println!("ratio: {ratio:.1}x (target >= {RATIO_TARGET}x)");
    ok &= ratio >= RATIO_TARGET;
    Ok(ok)
}
