//! `cargo xtask bench <what>`: the benchmarks behind BENCHMARKS.md. Each measures the
//! project beside a baseline in the same run and prints ratios, since absolute times on
//! shared machines drift.

mod client;
mod codegen;
mod conformance;
mod server;

use std::process::ExitCode;

/// Arguments of `cargo xtask bench`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Generation time of the spec and of the platform's full published document.
    Codegen(codegen::Args),
    /// Per-request cost of the generated client against hand-written reqwest.
    Client(client::Args),
    /// Reference server throughput and p99 beside a minimal axum handler.
    Server(server::Args),
    /// Conformance run wall time, and requests per second beside Schemathesis.
    Conformance(conformance::Args),
}

/// Dispatches to the chosen benchmark.
pub fn run(args: Args) -> ExitCode {
    match args.what {
        What::Codegen(a) => codegen::run(a),
        What::Client(a) => client::run(a),
        What::Server(a) => server::run(a),
        What::Conformance(a) => conformance::run(a),
    }
}
