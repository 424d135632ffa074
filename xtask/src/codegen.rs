//! `cargo xtask codegen` (not written yet).

use std::process::ExitCode;

/// Arguments of `cargo xtask codegen`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("cargo xtask codegen: not implemented yet");
    ExitCode::from(2)
}
