//! `conformance`: the harness's command line (the same arguments as `cargo xtask conformance`).

use std::process::ExitCode;

use clap::Parser;

/// Checks that an HTTP API answers as its OpenAPI document says: spec-derived positive
/// and negative cases, the spec's rules and any contract files, judged per answer and
/// gated by exit code (0 pass, 1 fail, 2 usage or configuration error, 3 incomplete).
/// Without --spec and --base-url it runs the built-in spec against its reference server.
#[derive(Parser)]
#[command(name = "conformance", version)]
struct Cli {
    #[command(flatten)]
    args: conformance::Args,
}

fn main() -> ExitCode {
    ExitCode::from(conformance::main_with(Cli::parse().args))
}
