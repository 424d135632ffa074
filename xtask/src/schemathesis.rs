//! `cargo xtask schemathesis`: an independent check of the reference server. Installs a
//! pinned Schemathesis into `target/tools/`, starts the server in-process on a port the
//! OS picks, runs every check over the examples, coverage and fuzzing phases with a
//! fixed seed and bounded examples, stops the server, and exits with Schemathesis's code.

use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use crate::tools::{project_root, python_venv};

/// The Schemathesis release this project is checked with.
const SCHEMATHESIS: &str = "schemathesis==4.32.5";
/// Hard bound on one run; the example bounds keep a run to a few minutes on 2 cores.
const RUN_TIMEOUT: Duration = Duration::from_secs(20 * 60);

/// Arguments of `cargo xtask schemathesis`.
#[derive(clap::Args)]
pub struct Args {
    /// Hypothesis seed (fixed by default, so two runs send the same requests).
    #[arg(long, default_value_t = 20261121)]
    seed: u64,
    /// Most examples per operation and phase.
    #[arg(long, default_value_t = 250)]
    max_examples: u32,
    /// Concurrent Schemathesis workers. One by default: with several threads the
    /// coverage phase trips a CPython 3.11 `ast.parse` race ("AST constructor recursion
    /// depth mismatch") inside Hypothesis, an error of the tool, not of the server.
    #[arg(long, default_value_t = 1)]
    workers: u32,
}

/// Runs Schemathesis against the in-process reference server.
pub fn run(args: Args) -> ExitCode {
    match run_inner(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("cargo xtask schemathesis: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(args: &Args) -> Result<ExitCode, String> {
    let bin = python_venv("schemathesis", &[SCHEMATHESIS])?;
    let root = project_root();
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let server = runtime
        .block_on(reference_server::spawn(reference_server::Config::default()))
        .map_err(|e| format!("cannot start the reference server: {e}"))?;
    let token = server.issue_token();
    let base = server.base_url();
    let config = root.join("conformance/reference-server/schemathesis.toml");
    let mut cmd = Command::new(bin.join("st"));
    cmd.current_dir(&root)
        .arg("--config-file")
        .arg(&config)
        .arg("run")
        .arg(root.join("spec/openapi.yaml"))
        .args(["--url", &base])
        .args(["--checks", "all"])
        .args(["--phases", "examples,coverage,fuzzing"])
        .args(["--seed", &args.seed.to_string()])
        .args(["--max-examples", &args.max_examples.to_string()])
        .args(["--workers", &args.workers.to_string()])
        .arg("--header")
        .arg(format!("Authorization: Bearer {token}"))
        .env("NO_COLOR", "1");
    eprintln!(
        "running Schemathesis against {base} (seed {}, max {} examples; token redacted)",
        args.seed, args.max_examples
    );
    let outcome = run_bounded(&mut cmd, RUN_TIMEOUT);
    runtime.block_on(server.shutdown());
    let status = outcome?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(c) => ExitCode::from(u8::try_from(c).unwrap_or(1).max(1)),
        None => ExitCode::from(1),
    })
}

/// Runs a child process, killing it if it outlives `limit`.
fn run_bounded(cmd: &mut Command, limit: Duration) -> Result<std::process::ExitStatus, String> {
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start Schemathesis: {e}"))?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "Schemathesis did not finish within {} s",
                    limit.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(200)),
            Err(e) => return Err(format!("cannot wait for Schemathesis: {e}")),
        }
    }
}
