//! `cargo xtask prefect-server`: issue 31's proof that the generated server half is enough
//! to write a real API on. It generates the crate of Prefect's spec with `--server` under
//! `target/tmp/prefect-server/`, builds the hand-written implementation of three of its
//! operations (`xtask/assets/prefect_flows.rs`: flows kept in memory) beside it, serves it
//! on a loopback port the OS picks, and judges it with the conformance harness and with
//! Schemathesis, both restricted to those three operations. The server is stopped (by its
//! own pid) however the run ends.
//!
//! The implementation is its own package in a small workspace beside the generated crate
//! (which it depends on with the `server` feature): the generated crate's manifest belongs
//! to the generator, and the implementation needs tokio's runtime, which the generated
//! crate does not.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Duration;

use crate::child::{cargo, cargo_run};
use crate::schemathesis::{SCHEMATHESIS, run_bounded};
use crate::tools::{project_root, python_venv, tools_dir};

/// Prefect's spec, relative to the repository root.
const SPEC: &str = "conformance/values/tests/specs/prefect-3.9.1-openapi.json";
/// The three operations the implementation writes (the rest answer the trait's 501).
pub const OPERATIONS: [&str; 3] = [
    "create_flow_flows__post",
    "read_flow_flows__id__get",
    "delete_flow_flows__id__delete",
];
/// The implementation, copied in as the binary package's `src/main.rs`.
const IMPLEMENTATION: &str = "xtask/assets/prefect_flows.rs";
/// The harness's failures that are its own, each with its reason (`--known-failures`).
const KNOWN_FAILURES: &str = "xtask/assets/prefect_flows.known-failures.yaml";
/// What Schemathesis is told beyond its defaults, each exception with its reason.
const SCHEMATHESIS_CONFIG: &str = "xtask/assets/prefect_flows.schemathesis.toml";
/// How long the server may take to print its URL.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// Hard bound on each of the two runs against the server.
const RUN_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// Arguments of `cargo xtask prefect-server`.
#[derive(clap::Args)]
pub struct Args {
    /// Hypothesis seed of the Schemathesis run (fixed, so two runs send the same requests).
    #[arg(long, default_value_t = 20261121)]
    seed: u64,
    /// Most examples per operation and phase of the Schemathesis run.
    #[arg(long, default_value_t = 100)]
    max_examples: u32,
    /// Only build and serve the implementation (until Ctrl-C), judging nothing.
    #[arg(long)]
    serve: bool,
}

/// Exit 0 when the harness and Schemathesis both pass, 1 when either fails, 2 when the
/// crate cannot be generated or built or the server does not start.
pub fn run(args: Args) -> ExitCode {
    match run_inner(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("cargo xtask prefect-server: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(args: &Args) -> Result<bool, String> {
    let dir = tools_dir()
        .parent()
        .map_or_else(|| project_root().join("target"), Path::to_owned)
        .join("tmp/prefect-server");
    let binary = build(&dir)?;
    let server = Server::start(&binary)?;
    eprintln!("prefect-flows serves {}", server.base_url);
    if args.serve {
        let _interrupts =
            crate::child::Interrupts::hold().map_err(|e| format!("cannot watch Ctrl-C: {e}"))?;
        let mut server = server;
        let _ = server.child.wait();
        return Ok(true);
    }
    // Both run whatever the first says: each is a separate opinion of the same server.
    let harness = harness(&dir, &server.base_url);
    let schemathesis = schemathesis(args, &server.base_url);
    drop(server);
    let harness = harness?;
    let schemathesis = schemathesis?;
    eprintln!(
        "prefect-server: harness {}, Schemathesis {}",
        if harness { "passed" } else { "FAILED" },
        if schemathesis { "passed" } else { "FAILED" }
    );
    Ok(harness && schemathesis)
}

/// Generates the crate, lays the implementation's package and the workspace beside it,
/// and builds the binary; returns its path.
fn build(dir: &Path) -> Result<PathBuf, String> {
    let root = project_root();
    let generated = dir.join("prefect-api");
    let exe = std::env::current_exe().map_err(|e| format!("no path to xtask: {e}"))?;
    let output = Command::new(exe)
        .current_dir(&root)
        .args(["codegen", "--server", "--spec", SPEC, "--crate"])
        .arg(&generated)
        .args(["--name", "prefect-api"])
        .output()
        .map_err(|e| format!("cannot run the generator: {e}"))?;
    // Its warnings (the spec's untyped schemas) are the codegen step's to show, not this
    // proof's: shown only when generation fails.
    if !output.status.success() {
        eprint!("{}", String::from_utf8_lossy(&output.stderr));
        return Err(format!("generating {SPEC} failed ({})", output.status));
    }
    let package = dir.join("prefect-flows");
    let write = |path: PathBuf, text: &str| {
        std::fs::create_dir_all(path.parent().expect("a file in a directory"))
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write(
        dir.join("Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = [\"prefect-api\", \"prefect-flows\"]\n",
    )?;
    write(package.join("Cargo.toml"), FLOWS_MANIFEST)?;
    let source = std::fs::read_to_string(root.join(IMPLEMENTATION))
        .map_err(|e| format!("cannot read {IMPLEMENTATION}: {e}"))?;
    write(package.join("src/main.rs"), &source)?;
    // The workspace's versions, so the generated crate builds on what the project tests.
    let lock = dir.join("Cargo.lock");
    if !lock.exists() {
        std::fs::copy(root.join("Cargo.lock"), &lock)
            .map_err(|e| format!("cannot copy Cargo.lock: {e}"))?;
    }
    let target = target_dir();
    let status = cargo(&["build", "-q", "-p", "prefect-flows", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        // Built once per run: an incremental cache of a crate this size is gigabytes of
        // disk that no later build reads.
        .env("CARGO_INCREMENTAL", "0")
        .status()
        .map_err(|e| format!("cannot run cargo build: {e}"))?;
    if !status.success() {
        return Err(format!("building prefect-flows failed ({status})"));
    }
    Ok(target.join("debug/prefect-flows"))
}

/// The project's target directory (the one the tools go in): the generated crate's
/// dependencies are the workspace's, already built there.
fn target_dir() -> PathBuf {
    tools_dir()
        .parent()
        .map_or_else(|| project_root().join("target"), Path::to_owned)
}

/// The implementation's manifest: the generated crate with its server, and what `main`
/// serves it with.
const FLOWS_MANIFEST: &str = r#"# Written by `cargo xtask prefect-server` (source: xtask/assets/prefect_flows.rs).
[package]
name = "prefect-flows"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
prefect-api = { path = "../prefect-api", features = ["server"] }
axum = "0.8"
tokio = { version = "1.54", features = ["rt-multi-thread", "net", "macros"] }
serde_json = "1"
chrono = { version = "0.4", default-features = false, features = ["clock", "std"] }
uuid = { version = "1", default-features = false, features = ["v4"] }
"#;

/// The implementation's binary on `127.0.0.1:0`, stopped (by its own pid) when dropped.
struct Server {
    child: Child,
    /// Kept open so that a later line the server prints does not meet a closed pipe.
    _stdout: Option<BufReader<std::process::ChildStdout>>,
    base_url: String,
}

impl Server {
    /// Starts the binary and reads the URL it prints on its first line.
    fn start(binary: &Path) -> Result<Server, String> {
        std::fs::create_dir_all(tools_dir())
            .map_err(|e| format!("cannot create tools dir: {e}"))?;
        let log_path = tools_dir().join("prefect-flows.log");
        let log = std::fs::File::create(&log_path)
            .map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
        let mut child = Command::new(binary)
            .args(["--port", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        // Read on a thread, so a server that neither prints nor exits is given up on.
        let (send, receive) = std::sync::mpsc::channel();
        if let Some(stdout) = child.stdout.take() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut line = String::new();
                let read = reader.read_line(&mut line).unwrap_or(0);
                let _ = send.send((read, line, reader));
            });
        }
        let mut server = Server {
            child,
            _stdout: None,
            base_url: String::new(),
        };
        let (read, line) = match receive.recv_timeout(START_TIMEOUT) {
            Ok((read, line, reader)) => {
                server._stdout = Some(reader);
                (read, line)
            }
            Err(_) => (0, String::new()),
        };
        match line
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
        {
            Some(url) if read > 0 => server.base_url = url.to_owned(),
            _ => {
                return Err(format!(
                    "prefect-flows printed no URL (see {})",
                    log_path.display()
                ));
            }
        }
        Ok(server)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The conformance harness on the three operations, writes allowed (the server is the
/// run's own and holds nothing else): passes when it exits 0 and its JSON report counts
/// no failure.
fn harness(dir: &Path, base_url: &str) -> Result<bool, String> {
    let report = dir.join("conformance.json");
    let _ = std::fs::remove_file(&report);
    let args: Vec<String> = [
        "--spec",
        SPEC,
        "--base-url",
        base_url,
        "--operation",
        &OPERATIONS.join(","),
        "--allow-writes",
        "--allow-destructive",
        "--known-failures",
        KNOWN_FAILURES,
        "--quiet",
        "--json",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .chain([report.display().to_string()])
    .collect();
    eprintln!("running the conformance harness against {base_url}");
    let status = run_bounded(&mut cargo_run("conformance", &args), RUN_TIMEOUT)?;
    let totals = std::fs::read_to_string(&report)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .map(|json| json["totals"].clone());
    let count = |key: &str| totals.as_ref().and_then(|t| t[key].as_u64());
    let shown = |n: Option<u64>| n.map_or_else(|| "?".to_owned(), |n| n.to_string());
    eprintln!(
        "harness: exit {:?}, {} passed, {} failed, {} known ({KNOWN_FAILURES})",
        status.code(),
        shown(count("passed")),
        shown(count("failed")),
        shown(count("known")),
    );
    Ok(status.success() && count("failed") == Some(0))
}

/// Schemathesis on the three operations, every check and phase but the stateful one,
/// with the exceptions of [`SCHEMATHESIS_CONFIG`]. Every check is on by default; no
/// `--checks all`, which would switch the configuration's exceptions back on.
fn schemathesis(args: &Args, base_url: &str) -> Result<bool, String> {
    let bin = python_venv("schemathesis", &[SCHEMATHESIS])?;
    let root = project_root();
    let mut cmd = Command::new(bin.join("st"));
    cmd.current_dir(&root)
        .arg("--config-file")
        .arg(root.join(SCHEMATHESIS_CONFIG))
        .arg("run")
        .arg(root.join(SPEC))
        .args(["--url", base_url])
        .args(["--phases", "examples,coverage,fuzzing"])
        .args(["--seed", &args.seed.to_string()])
        .args(["--max-examples", &args.max_examples.to_string()])
        .args(["--workers", "1"])
        .env("NO_COLOR", "1");
    for op in OPERATIONS {
        cmd.args(["--include-operation-id", op]);
    }
    eprintln!(
        "running Schemathesis against {base_url} (seed {}, max {} examples)",
        args.seed, args.max_examples
    );
    Ok(run_bounded(&mut cmd, RUN_TIMEOUT)?.success())
}
