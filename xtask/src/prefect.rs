//! `cargo xtask prefect`: installs Prefect server (pinned, from PyPI) into a Python venv
//! under `target/tools/` and runs the conformance crate's Prefect tests
//! (`conformance/tests/prefect.rs`: the harness against Prefect; and
//! `conformance/tests/prefect_client.rs`: the client generated from Prefect's spec, driven
//! live; ignored in a plain test run because they need this tool), naming the venv's `prefect` executable in `PREFECT_BIN`. Prefect is a real
//! application no one here wrote: each test starts its own server on a loopback port and
//! points the harness at it. What the tests assert lives with them; this only provides
//! the tool.

use std::process::ExitCode;

use crate::child::{ignored_tests, run_forwarding};
use crate::tools::python_venv;

/// The Prefect release the harness is checked against. The tests pin what the harness
/// reports on this release's spec, so a new pin means re-reading those lists.
pub const PREFECT: &str = "prefect==3.9.1";
/// The venv's directory under `target/tools/`, named by the release so that two pins do
/// not share one environment.
pub const VENV: &str = "prefect-3.9.1";

/// Installs Prefect (once; about a minute the first time) and runs the ignored Prefect
/// tests; exit 0 when they pass, 1 when they fail (the test runner's code), 2 when
/// Prefect cannot be installed.
pub fn run() -> ExitCode {
    let bin = match python_venv(VENV, &[PREFECT]) {
        Ok(bin) => bin,
        Err(e) => {
            eprintln!("cargo xtask prefect: {e}");
            return ExitCode::from(2);
        }
    };
    // One test at a time with its output shown: each starts its own Prefect server, and
    // two on a 2-core machine would slow each other's start.
    let mut cmd = ignored_tests(&["prefect", "prefect_client"], true);
    cmd.env("PREFECT_BIN", bin.join("prefect"));
    run_forwarding(cmd)
}
