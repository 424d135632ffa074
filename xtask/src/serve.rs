//! `cargo xtask serve` (not written yet).

use std::process::ExitCode;

/// Arguments of `cargo xtask serve`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("cargo xtask serve: not implemented yet");
    ExitCode::from(2)
}
