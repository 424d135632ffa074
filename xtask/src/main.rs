//! `cargo xtask`: the project's automation, kept thin. Each subcommand parses its
//! arguments and calls into a library crate; the logic lives there, not here.

mod bench;
mod codegen;
mod conformance;
mod prism;
mod schemathesis;
mod serve;
mod test;
mod tools;
mod validate_spec;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "Regenerate bindings, serve, and verify the trading API"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Regenerate `generated/` from `spec/openapi.yaml` (or check it is current).
    Codegen(codegen::Args),
    /// Run the reference server.
    Serve(serve::Args),
    /// Run the conformance harness against a server (the embedded reference server by default).
    Conformance(conformance::Args),
    /// Validate `spec/openapi.yaml` with the independent `openapi-spec-validator`.
    ValidateSpec(validate_spec::Args),
    /// Run Schemathesis against the reference server.
    Schemathesis(schemathesis::Args),
    /// Run the harness and the generated client against Stoplight Prism's mock.
    Prism(prism::Args),
    /// Run the whole test suite: cargo tests, spec validation, Schemathesis, Prism.
    Test(test::Args),
    /// Benchmarks whose figures go into BENCHMARKS.md.
    Bench(bench::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Codegen(args) => codegen::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Conformance(args) => conformance::run(args),
        Command::ValidateSpec(args) => validate_spec::run(args),
        Command::Schemathesis(args) => schemathesis::run(args),
        Command::Prism(args) => prism::run(args),
        Command::Test(args) => test::run(args),
        Command::Bench(args) => bench::run(args),
    }
}
