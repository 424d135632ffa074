//! `cargo xtask prism` (not written yet).

use std::process::ExitCode;

/// Arguments of `cargo xtask prism`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("cargo xtask prism: not implemented yet");
    ExitCode::from(2)
}
