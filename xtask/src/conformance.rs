//! `cargo xtask conformance` (not written yet).

use std::process::ExitCode;

/// Arguments of `cargo xtask conformance`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("cargo xtask conformance: not implemented yet");
    ExitCode::from(2)
}
