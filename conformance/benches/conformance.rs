//! `cargo xtask bench conformance` (`cargo bench -p conformance --bench conformance`): the
//! wall time of the full default conformance run against the reference server (target:
//! under 3 s after build), and the harness's requests per second beside Schemathesis
//! sending about as many requests to the same server in the same run (target: at least
//! 10×). Both tools are timed over their whole run (start-up, spec loading and reports
//! included) against one in-process server.
//!
//! Schemathesis is an outside tool: `cargo xtask bench conformance` installs the pin of
//! `cargo xtask schemathesis` and names its `st` executable in `SCHEMATHESIS_BIN`; without
//! it, run with `--no-schemathesis`. `cargo bench` builds this optimised; it parses its own
//! arguments (`harness = false`).

mod bounded;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;

/// Wall-time target of the default run.
const WALL_TARGET: Duration = Duration::from_secs(3);
/// How much faster the default run is with the server in process than over loopback.
const IN_PROCESS_TARGET: f64 = 2.0;
/// Throughput ratio target against Schemathesis.
const RATIO_TARGET: f64 = 10.0;
/// Hard bound on the Schemathesis run.
const ST_TIMEOUT: Duration = Duration::from_secs(600);
/// The environment variable naming Schemathesis's `st` executable.
const ST_ENV: &str = "SCHEMATHESIS_BIN";

/// Arguments of `cargo xtask bench conformance`.
#[derive(Parser)]
#[command(name = "bench conformance")]
struct Args {
    /// Timed repetitions of the default run (the median is reported).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Skip the Schemathesis comparison (no Python needed).
    #[arg(long)]
    no_schemathesis: bool,
    /// Passed by `cargo bench` to every bench target; nothing to do here.
    #[arg(long, hide = true)]
    bench: bool,
}

/// Runs the benchmark; exit 1 when a target is missed, 2 when it cannot run.
fn main() -> ExitCode {
    let args = Args::parse();
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
    // Found before the timed runs, so a missing tool costs no waiting.
    let st = if args.no_schemathesis {
        None
    } else {
        Some(schemathesis()?)
    };
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;

    // 1. The full default run: the harness starts the reference server itself.
    let mut ok = time_default_runs(args, &runtime, profile)?;

    let Some(st) = st else {
        return Ok(ok);
    };
    // 2. Requests per second against one server, harness then Schemathesis.
    let server = runtime
        .block_on(reference_server::spawn(reference_server::Config::default()))
        .map_err(|e| format!("cannot start the reference server: {e}"))?;
    let token = server.issue_token();
    let demo = server.demo_client();
    let scratch = tempfile::tempdir().map_err(|e| format!("cannot make a scratch dir: {e}"))?;
    let fixtures = scratch.path().join("bench-fixtures.yaml");
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

    let har = scratch.path().join("bench-schemathesis.har");
    // Fuzzing only, examples per operation chosen so the total is about the harness's.
    let per_op = harness_requests.div_ceil(6).max(1);
    let root = project_root();
    let st_time = run_schemathesis(&st, &root, &server.base_url(), &token, per_op, &har)?;
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
    let version = Command::new(&st)
        .arg("--version")
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", st.display()))?;
    let st_startup = started.elapsed();
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    let st_rps_after_startup =
        st_requests as f64 / (st_time.saturating_sub(st_startup)).as_secs_f64().max(1e-3);
    let ratio = harness_rps / st_rps;
    println!(
        "harness:      {harness_requests} requests in {:.3} s = {harness_rps:.0} requests/s",
        harness_time.as_secs_f64()
    );
    println!(
        "Schemathesis: {st_requests} requests in {:.3} s = {st_rps:.0} requests/s ({version}, fuzzing phase, {per_op} examples per operation)",
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

/// Times `args.runs` full default runs (each starting its own reference server) and
/// prints the median; whether it is under the target.
fn time_default_runs(
    args: &Args,
    runtime: &tokio::runtime::Runtime,
    profile: &str,
) -> Result<bool, String> {
    let mut walls = Vec::new();
    let mut in_process_walls = Vec::new();
    let mut checks = 0;
    // Paired: each loopback run is followed by the same run with the server in process
    // (`--in-process`), so both see the same machine.
    for _ in 0..args.runs.max(1) {
        for in_process in [false, true] {
            let mut a = harness_args();
            a.in_process = in_process;
            let started = Instant::now();
            let out = runtime
                .block_on(conformance::execute(&a, Default::default()))
                .map_err(|e| e.to_string())?;
            let took = started.elapsed();
            if out.exit_code != 0 {
                return Err(format!(
                    "the default run failed against the reference server{}:\n{}",
                    if in_process { " in process" } else { "" },
                    out.summary
                ));
            }
            if in_process {
                in_process_walls.push(took);
            } else {
                walls.push(took);
                checks = out.results.len();
            }
        }
    }
    let wall = median(walls);
    let in_process = median(in_process_walls);
    println!(
        "default run in process (--in-process, no socket): median {:.3} s; loopback / in process = {:.2}x (target >= {IN_PROCESS_TARGET}x)",
        in_process.as_secs_f64(),
        wall.as_secs_f64() / in_process.as_secs_f64()
    );
    println!(
        "default run ({profile} build): median {:.3} s over {} runs, {checks} checks (target < {} s)",
        wall.as_secs_f64(),
        args.runs.max(1),
        WALL_TARGET.as_secs()
    );
    Ok(wall < WALL_TARGET)
}

/// Runs Schemathesis's fuzzing phase against the server at `base_url`, `per_op` examples
/// per operation, writing its exchanges to `har`: how long it took from its start, or an
/// error when it cannot start or does not finish in time.
fn run_schemathesis(
    st: &Path,
    root: &Path,
    base_url: &str,
    token: &str,
    per_op: usize,
    har: &Path,
) -> Result<Duration, String> {
    let mut cmd = Command::new(st);
    cmd.current_dir(root)
        .arg("--config-file")
        .arg(root.join("conformance/reference-server/schemathesis.toml"))
        .arg("run")
        .arg(root.join("spec/openapi.yaml"))
        .args(["--url", base_url])
        .args(["--phases", "fuzzing", "--checks", "not_a_server_error"])
        .args(["--max-examples", &per_op.to_string(), "--seed", "1"])
        .args(["--report", "har", "--report-har-path"])
        .arg(har)
        .arg("--header")
        .arg(format!("Authorization: Bearer {token}"))
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    bounded::run(
        &mut cmd,
        ST_TIMEOUT,
        Duration::from_millis(50),
        "Schemathesis",
    )
}

/// The workspace root: this crate's manifest directory's parent.
fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_owned)
}

/// Schemathesis's `st`, as named by `SCHEMATHESIS_BIN`.
fn schemathesis() -> Result<PathBuf, String> {
    match std::env::var_os(ST_ENV) {
        Some(path) if Path::new(&path).exists() => Ok(PathBuf::from(path)),
        Some(path) => Err(format!("{ST_ENV} names {path:?}, which does not exist")),
        None => Err(format!(
            "{ST_ENV} is not set: run `cargo xtask bench conformance` (it installs Schemathesis) \
             or pass --no-schemathesis"
        )),
    }
}
