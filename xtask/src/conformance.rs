//! `cargo xtask conformance`: the harness with the same arguments as its own binary (the
//! clap struct lives in the `conformance` library so the two cannot drift apart).

use std::process::ExitCode;

/// Arguments of `cargo xtask conformance`: exactly the `conformance` binary's, boxed so
/// the subcommand enum stays small.
#[derive(clap::Args)]
#[group(skip)]
pub struct Args {
    #[command(flatten)]
    inner: Box<::conformance::Args>,
}

/// Runs the harness; the exit code is the harness's (0 pass, 1 failure, 2 error).
pub fn run(args: Args) -> ExitCode {
    ExitCode::from(::conformance::main_with(*args.inner))
}
