//! Running the crates' own binaries and cargo commands as child processes: xtask only
//! orchestrates, so it links none of the crates it drives, and a command passes its
//! arguments, its standard streams and its exit code through unchanged.

use std::process::{Command, ExitCode, ExitStatus};

use crate::tools::project_root;

/// `cargo ARGS` in the workspace root, with the cargo that runs xtask.
pub fn cargo(args: &[&str]) -> Command {
    let exe = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(exe);
    cmd.args(args).current_dir(project_root());
    cmd
}

/// `cargo run -q -p PACKAGE -- ARGS`: a crate's binary (cargo replaces itself with it on
/// Unix, so the child is the binary).
pub fn cargo_run(package: &str, args: &[String]) -> Command {
    let mut cmd = cargo(&["run", "-q", "-p", package, "--"]);
    cmd.args(args);
    cmd
}

/// Runs `cmd` in the foreground with xtask's stdin, stdout and stderr, and exits as it
/// did (a child ended by a signal gives 128 + the signal's number, as a shell reports
/// it). Ctrl-C reaches the child from the terminal (same process group); xtask itself
/// keeps waiting, so the child's own shutdown output and exit code are not lost.
pub fn run_forwarding(mut cmd: Command) -> ExitCode {
    let _interrupts = match Interrupts::hold() {
        Ok(held) => held,
        Err(e) => {
            eprintln!("cargo xtask: cannot watch for Ctrl-C: {e}");
            return ExitCode::from(2);
        }
    };
    match cmd.status() {
        Ok(status) => exit_code(status),
        Err(e) => {
            eprintln!("cargo xtask: cannot start {cmd:?}: {e}");
            ExitCode::from(2)
        }
    }
}

/// The exit code a shell would report for `status`.
pub fn exit_code(status: ExitStatus) -> ExitCode {
    if let Some(code) = status.code() {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return ExitCode::from(u8::try_from(128 + signal).unwrap_or(1));
        }
    }
    ExitCode::from(1)
}

/// While held, SIGINT no longer ends xtask (it is delivered to a listener nobody reads),
/// so the foreground child decides what Ctrl-C means.
pub struct Interrupts {
    _runtime: tokio::runtime::Runtime,
    #[cfg(unix)]
    _signal: tokio::signal::unix::Signal,
}

impl Interrupts {
    /// Starts listening for SIGINT.
    pub fn hold() -> std::io::Result<Interrupts> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        #[cfg(unix)]
        let signal = {
            use tokio::signal::unix::{SignalKind, signal};
            runtime.block_on(async { signal(SignalKind::interrupt()) })?
        };
        Ok(Interrupts {
            _runtime: runtime,
            #[cfg(unix)]
            _signal: signal,
        })
    }
}

/// Whether `cargo nextest` is installed (else the tests run under `cargo test`).
pub fn have_nextest() -> bool {
    cargo(&["nextest", "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// The command that runs the ignored tests of test targets of `conformance` (the checks
/// that need an outside tool, which the calling step installs): nextest when it is
/// installed, else `cargo test`; `no_capture` shows their output as they run, one at a time.
pub fn ignored_tests(tests: &[&str], no_capture: bool) -> std::process::Command {
    ignored_tests_of("conformance", tests, no_capture, false)
}

/// [`ignored_tests`] of another package's test targets; `release` builds them optimized,
/// for a test whose work (not its build) is the long part.
pub fn ignored_tests_of(
    package: &str,
    tests: &[&str],
    no_capture: bool,
    release: bool,
) -> std::process::Command {
    let targets = tests.iter().flat_map(|t| ["--test", *t]);
    if have_nextest() {
        let mut args = vec!["nextest", "run", "-p", package];
        if release {
            args.extend(["--cargo-profile", "release"]);
        }
        args.extend(targets);
        args.extend([
            "--run-ignored",
            "only",
            // Each test judges a different promise: one failing says nothing of the others.
            "--no-fail-fast",
        ]);
        if no_capture {
            args.push("--no-capture");
        }
        cargo(&args)
    } else {
        let mut args = vec!["test", "-p", package];
        if release {
            args.push("--release");
        }
        args.extend(targets);
        args.extend(["--no-fail-fast", "--", "--ignored"]);
        if no_capture {
            args.extend(["--nocapture", "--test-threads=1"]);
        }
        cargo(&args)
    }
}
