//! `cargo xtask browser`: installs Chromium (Debian's package) and runs the conformance
//! crate's browser test, which opens the HTML report headless and checks the page
//! (`conformance/tests/html_report.rs`, ignored in a plain run because it needs a browser).

use std::process::ExitCode;

use crate::child::{ignored_tests, run_forwarding};
use crate::tools::debian_program;

/// Installs Chromium when missing and runs the ignored browser test; exit 0 when it
/// passes, 1 when it fails (the test runner's code), 2 when Chromium cannot be installed.
pub fn run() -> ExitCode {
    let exe = match debian_program("chromium", "chromium") {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("cargo xtask browser: {e}");
            return ExitCode::from(2);
        }
    };
    let mut cmd = ignored_tests(&["html_report"], false);
    cmd.env("CHROMIUM_BIN", exe);
    run_forwarding(cmd)
}
