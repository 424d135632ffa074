//! `cargo xtask schemathesis` (not written yet).

use std::process::ExitCode;

/// Arguments of `cargo xtask schemathesis`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("cargo xtask schemathesis: not implemented yet");
    ExitCode::from(2)
}
