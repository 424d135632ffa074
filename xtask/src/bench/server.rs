//! `cargo xtask bench server` (not written yet).

use std::process::ExitCode;

/// Arguments of `cargo xtask bench server`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the benchmark.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("cargo xtask bench server: not implemented yet");
    ExitCode::from(2)
}
