//! `cargo xtask schemathesis`: an independent check of the reference server. Installs a
//! pinned Schemathesis into `target/tools/`, starts the `reference-server` binary on a
//! port the OS picks (reading the base URL and a token from its banner), runs every check
//! over the examples, coverage and fuzzing phases with a fixed seed and bounded examples,
//! stops the server, and exits with Schemathesis's code (against the reference server;
//! against mocks, the gate below decides).
//!
//! `--mock SPEC` (once or more) runs the same against `conformance mock --spec SPEC`
//! instead (its URL read from the line it prints), with no configuration file: the mock
//! of a spec must pass every check on that spec as written. Every failure Schemathesis
//! reports is then the mock's, unless one of the rules of [`excuses`] (stated for any
//! spec, read off the spec and the failure) shows no answer could pass it; each excused
//! failure is counted under its rule, every other one is listed, and the run fails on
//! any of them, on an errors section, and on a run that generated no test case.

mod excuses;
mod findings;

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use crate::child::cargo_run;
use crate::tools::{project_root, python_venv, tools_dir};

/// The Schemathesis release this project is checked with (also what `cargo xtask bench
/// conformance` installs).
pub const SCHEMATHESIS: &str = "schemathesis==4.32.5";
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
    /// Check the mock of this spec (`conformance mock`) instead of the reference server;
    /// given several times, each spec's mock in turn.
    #[arg(long, value_name = "SPEC")]
    mock: Vec<std::path::PathBuf>,
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
    if !args.mock.is_empty() {
        let mut failed = Vec::new();
        for spec in &args.mock {
            if !mock_passes(&bin, spec, args)? {
                failed.push(spec.display().to_string());
            }
        }
        eprintln!(
            "schemathesis: the mocks of {} of {} specs pass{}",
            args.mock.len() - failed.len(),
            args.mock.len(),
            if failed.is_empty() {
                String::new()
            } else {
                format!("; the mock of {} does not", failed.join(", "))
            }
        );
        return Ok(if failed.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let root = project_root();
    let server = Server::start()?;
    let base = server.base_url.clone();
    let mut cmd = Command::new(bin.join("st"));
    cmd.current_dir(&root)
        .arg("--config-file")
        .arg(root.join("conformance/reference-server/schemathesis.toml"))
        .arg("run")
        .arg(root.join("spec/openapi.yaml"))
        .arg("--header")
        .arg(format!("Authorization: Bearer {}", server.token));
    common_args(&mut cmd, &base, args);
    eprintln!(
        "running Schemathesis against {base} (seed {}, max {} examples; token redacted)",
        args.seed, args.max_examples
    );
    let outcome = run_bounded(&mut cmd, RUN_TIMEOUT);
    drop(server);
    let status = outcome?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(c) => ExitCode::from(u8::try_from(c).unwrap_or(1).max(1)),
        None => ExitCode::from(1),
    })
}

/// What every run is told: the URL, every check, the three phases, the seed and bounds.
fn common_args(cmd: &mut Command, base: &str, args: &Args) {
    cmd.args(["--url", base])
        .args(["--checks", "all"])
        .args(["--phases", "examples,coverage,fuzzing"])
        .args(["--seed", &args.seed.to_string()])
        .args(["--max-examples", &args.max_examples.to_string()])
        .args(["--workers", &args.workers.to_string()])
        .env("NO_COLOR", "1");
}

/// Schemathesis against the mock of `spec`: whether every failure it reports is excused
/// by a rule of [`excuses`]. Its whole output is kept in
/// `target/tools/schemathesis-mocks/<spec file>.txt`.
fn mock_passes(bin: &std::path::Path, spec: &std::path::Path, args: &Args) -> Result<bool, String> {
    let root = project_root();
    let spec = root.join(spec);
    let name = spec
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = std::fs::read_to_string(&spec)
        .map_err(|e| format!("cannot read {}: {e}", spec.display()))?;
    let raw = spec_model::yaml::to_json(&text)
        .map_err(|e| format!("cannot read {}: {e}", spec.display()))?;
    let source = spec_model::Source {
        name: spec.display().to_string(),
        text,
    };
    let doc = spec_model::to_value(&source).map_err(|e| e.to_string())?;
    let version = |key: &str| raw.get(key).and_then(serde_json::Value::as_str);
    let read_as = excuses::Spec {
        doc: &doc,
        swagger2: version("swagger").is_some(),
        openapi30: version("swagger").is_some()
            || version("openapi").is_some_and(|v| v.starts_with("3.0")),
    };
    let out_dir = tools_dir().join("schemathesis-mocks");
    std::fs::create_dir_all(&out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let out_path = out_dir.join(format!("{name}.txt"));
    let out = std::fs::File::create(&out_path)
        .map_err(|e| format!("cannot create {}: {e}", out_path.display()))?;
    let server = Server::start_mock(&spec)?;
    let base = server.base_url.clone();
    let mut cmd = Command::new(bin.join("st"));
    cmd.current_dir(&root).arg("run").arg(&spec).stdout(out);
    common_args(&mut cmd, &base, args);
    // A spec's pattern Hypothesis finds few strings for (GitHub's git refs) would end that
    // operation's test as an error of the tool before any request; with the check off,
    // the strings it does find are sent.
    cmd.args(["--suppress-health-check", "filter_too_much"]);
    eprintln!(
        "running Schemathesis against the mock of {name} at {base} (seed {}, max {} examples)",
        args.seed, args.max_examples
    );
    let outcome = run_bounded(&mut cmd, RUN_TIMEOUT);
    drop(server);
    let status = outcome?;
    let output = std::fs::read_to_string(&out_path)
        .map_err(|e| format!("cannot read {}: {e}", out_path.display()))?;
    let report = findings::parse(&output);
    let kept = out_path.display();
    if report.generated == 0 {
        eprintln!(
            "{name}: Schemathesis generated no test case, so nothing was checked (see {kept})"
        );
        return Ok(false);
    }
    if report.findings.len() as u64 != report.counted
        || (status.success() != (report.counted == 0 && report.errors.is_empty()))
    {
        eprintln!(
            "{name}: read {} failures where Schemathesis counted {} and exited with {status}; \
             its output is not read as it is written (see {kept})",
            report.findings.len(),
            report.counted
        );
        return Ok(false);
    }
    let mut excused: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut own = Vec::new();
    for f in &report.findings {
        match excuses::excuse(&read_as, f) {
            Some(rule) => *excused.entry(rule.name).or_default() += 1,
            None => own.push(f),
        }
    }
    eprintln!(
        "{name}: {} test cases, {} failures: {} the mock's, {} excused{}",
        report.generated,
        report.findings.len(),
        own.len(),
        report.findings.len() - own.len(),
        excused
            .iter()
            .map(|(rule, n)| format!("; {n} by \"{rule}\""))
            .collect::<String>()
    );
    for rule in excuses::RULES
        .iter()
        .filter(|r| excused.contains_key(r.name))
    {
        eprintln!("  {}: {}", rule.name, rule.reason);
    }
    for f in &own {
        let status = f
            .status
            .map(|s| s.to_string())
            .unwrap_or_else(|| "-".into());
        eprintln!(
            "  FAILED {} {} {} [{status}]: {}",
            f.operation, f.code, f.title, f.curl
        );
    }
    for e in &report.errors {
        eprintln!("  ERROR {e} (Schemathesis could not test it; see {kept})");
    }
    Ok(own.is_empty() && report.errors.is_empty())
}

/// Runs a child process, killing it if it outlives `limit`.
pub fn run_bounded(cmd: &mut Command, limit: Duration) -> Result<std::process::ExitStatus, String> {
    let name = cmd.get_program().to_string_lossy().into_owned();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {name}: {e}"))?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{name} did not finish within {} s",
                    limit.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(200)),
            Err(e) => return Err(format!("cannot wait for {name}: {e}")),
        }
    }
}

/// The `reference-server` binary on a free port, stopped (by its own pid) when dropped.
/// Its log goes to `target/tools/schemathesis-server.log`.
struct Server {
    child: Child,
    stdout: BufReader<ChildStdout>,
    base_url: String,
    token: String,
}

impl Server {
    /// Builds and starts the server, then reads its banner up to the bearer token.
    fn start() -> Result<Server, String> {
        std::fs::create_dir_all(tools_dir())
            .map_err(|e| format!("cannot create tools dir: {e}"))?;
        let log_path = tools_dir().join("schemathesis-server.log");
        let log = std::fs::File::create(&log_path)
            .map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
        let mut cmd = cargo_run("reference-server", &["--port".into(), "0".into()]);
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(log);
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start the reference server: {e}"))?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            return Err("the reference server's stdout is not piped".into());
        };
        let mut server = Server {
            child,
            stdout: BufReader::new(stdout),
            base_url: String::new(),
            token: String::new(),
        };
        let mut line = String::new();
        while server.token.is_empty() {
            line.clear();
            let read = server.stdout.read_line(&mut line).unwrap_or(0);
            if read == 0 {
                return Err(format!(
                    "the reference server stopped before printing its banner (see {})",
                    log_path.display()
                ));
            }
            if let Some(url) = line.strip_prefix("base URL:") {
                server.base_url = url.trim().to_string();
            } else if let Some(token) = line.strip_prefix("bearer token:") {
                server.token = token.trim().to_string();
            }
        }
        if server.base_url.is_empty() {
            return Err("the reference server's banner names no base URL".into());
        }
        Ok(server)
    }
}

impl Server {
    /// Builds and starts `conformance mock` of `spec` on a free port, then reads the URL
    /// from the line it prints.
    fn start_mock(spec: &std::path::Path) -> Result<Server, String> {
        std::fs::create_dir_all(tools_dir())
            .map_err(|e| format!("cannot create tools dir: {e}"))?;
        let log_path = tools_dir().join("schemathesis-mock.log");
        let log = std::fs::File::create(&log_path)
            .map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
        let args = [
            "mock".into(),
            "--port".into(),
            "0".into(),
            "--spec".into(),
            spec.display().to_string(),
        ];
        let mut cmd = cargo_run("conformance", &args);
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(log);
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start the mock: {e}"))?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            return Err("the mock's stdout is not piped".into());
        };
        let mut server = Server {
            child,
            stdout: BufReader::new(stdout),
            base_url: String::new(),
            token: String::new(),
        };
        let mut line = String::new();
        let read = server.stdout.read_line(&mut line).unwrap_or(0);
        match line.split_whitespace().find(|w| w.starts_with("http://")) {
            Some(url) if read > 0 => server.base_url = url.to_owned(),
            _ => {
                return Err(format!(
                    "the mock printed no URL (see {})",
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
