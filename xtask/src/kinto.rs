//! `cargo xtask kinto`: installs Kinto (pinned, from PyPI) into a Python venv under
//! `target/tools/` and runs the conformance crate's Kinto test
//! (`conformance/tests/kinto.rs`, ignored in a plain test run because it needs this tool),
//! naming the venv's `kinto` executable in `KINTO_BIN`. Kinto is the second real
//! application the harness is checked on, of another stack than Prefect's (Pyramid and
//! Cornice, a Swagger 2.0 document, records in `{"data": …}` envelopes, sub-collections
//! three levels deep, HTTP basic accounts). The test starts its own server on a loopback
//! port with an in-memory backend.

use std::process::ExitCode;

use crate::child::{ignored_tests, run_forwarding};
use crate::tools::python_venv;

/// The Kinto release the harness is checked against; the test pins what the harness
/// reports on it.
pub const KINTO: &str = "kinto==26.5.0";
/// The venv's directory under `target/tools/`, named by the release.
pub const VENV: &str = "kinto-26.5.0";

/// Installs Kinto (once) and runs the ignored Kinto test; exit 0 when it passes, 1 when
/// it fails, 2 when Kinto cannot be installed.
pub fn run() -> ExitCode {
    let bin = match python_venv(VENV, &[KINTO]) {
        Ok(bin) => bin,
        Err(e) => {
            eprintln!("cargo xtask kinto: {e}");
            return ExitCode::from(2);
        }
    };
    let mut cmd = ignored_tests(&["kinto"], true);
    cmd.env("KINTO_BIN", bin.join("kinto"));
    run_forwarding(cmd)
}
