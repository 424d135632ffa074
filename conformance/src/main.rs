//! `conformance`: the harness's command line (the same arguments as `cargo xtask conformance`).

use std::process::ExitCode;

use clap::Parser;

/// Runs the trading API conformance harness against a target (the embedded reference
/// server by default).
#[derive(Parser)]
#[command(name = "conformance", version, about)]
struct Cli {
    #[command(flatten)]
    args: conformance::Args,
}

fn main() -> ExitCode {
    ExitCode::from(conformance::main_with(Cli::parse().args))
}
