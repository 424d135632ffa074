//! `cargo xtask bench client` (not written yet).

use std::process::ExitCode;

/// Arguments of `cargo xtask bench client`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the benchmark.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("cargo xtask bench client: not implemented yet");
    ExitCode::from(2)
}
