//! `cargo xtask diff --github-history`: fetches two releases of GitHub's REST API
//! description (npm `@octokit/openapi`, pinned; only `generated/api.github.com.json` of
//! each is kept, under `target/tools/npm-files/`) and runs the spec diff's ignored test
//! on them (`spec-diff/tests/github_history.rs`), naming the two files in
//! `GITHUB_REST_OLD` and `GITHUB_REST_NEW`. What the test pins lives with it; this only
//! provides the documents.

use std::process::ExitCode;

use crate::child::{ignored_tests_of, run_forwarding};
use crate::tools::npm_file;

/// The two releases compared: a major release of the description, with removed
/// operations and properties, next to the one before it.
const OLD: &str = "@octokit/openapi@22.0.0";
const NEW: &str = "@octokit/openapi@23.0.0";
const FILE: &str = "generated/api.github.com.json";

/// Fetches the documents (once) and runs the test; exit 0 when it passes, 1 when it fails,
/// 2 when a document cannot be fetched.
pub fn run() -> ExitCode {
    let fetched = npm_file(OLD, "octokit-openapi-22.0.0", FILE)
        .and_then(|old| npm_file(NEW, "octokit-openapi-23.0.0", FILE).map(|new| (old, new)));
    let (old, new) = match fetched {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("cargo xtask diff --github-history: {e}");
            return ExitCode::from(2);
        }
    };
    // Optimized: both crates of a 13 MB description are generated for the Rust verdict.
    let mut cmd = ignored_tests_of("spec-diff", &["github_history"], true, true);
    cmd.env("GITHUB_REST_OLD", old).env("GITHUB_REST_NEW", new);
    run_forwarding(cmd)
}
