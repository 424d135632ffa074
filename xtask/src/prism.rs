//! `cargo xtask prism`: installs Stoplight Prism (pinned) into `target/tools/npm` and runs
//! the conformance crate's Prism test (`conformance/tests/prism.rs`, ignored in a plain
//! test run because it needs this tool), naming the executable in `PRISM_BIN`. What the
//! test asserts lives with the test; this only provides the tool.

use std::process::ExitCode;

use crate::child::{ignored_tests, run_forwarding};
use crate::tools::npm_tool;

/// The Prism release this project is checked with.
pub const PRISM: &str = "@stoplight/prism-cli@5.16.0";

/// Arguments of `cargo xtask prism`.
#[derive(clap::Args)]
pub struct Args {
    /// Calls per operation against the dynamic mock.
    #[arg(long, default_value_t = 5)]
    rounds: u32,
    /// Per-request timeout of the harness run, in seconds.
    #[arg(long, default_value_t = 2)]
    timeout: u64,
}

/// Installs Prism and runs the ignored Prism tests; exit 0 when they pass, 1 when they
/// fail (the test runner's code), 2 when Prism cannot be installed.
pub fn run(args: Args) -> ExitCode {
    let exe = match npm_tool(PRISM, "prism") {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("cargo xtask prism: {e}");
            return ExitCode::from(2);
        }
    };
    // One test at a time with its output shown: each starts its own Prism.
    let mut cmd = ignored_tests(&["prism"], true);
    cmd.env("PRISM_BIN", exe)
        .env("PRISM_ROUNDS", args.rounds.to_string())
        .env("PRISM_TIMEOUT", args.timeout.to_string());
    run_forwarding(cmd)
}
