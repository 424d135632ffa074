//! `cargo xtask bench codegen` (not written yet).

use std::process::ExitCode;

/// Arguments of `cargo xtask bench codegen`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the benchmark.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("cargo xtask bench codegen: not implemented yet");
    ExitCode::from(2)
}
