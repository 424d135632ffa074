//! `cargo xtask conformance`: the `conformance` binary with the same arguments, so the
//! two cannot drift apart.

use std::process::ExitCode;

use crate::child::{cargo_run, run_forwarding};

/// Arguments of `cargo xtask conformance`: exactly the `conformance` binary's, passed on
/// unchanged (`--help` included, which the binary answers).
#[derive(clap::Args)]
#[command(disable_help_flag = true)]
pub struct Args {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

/// Runs the harness; the exit code is the harness's (0 pass, 1 failure, 2 error).
pub fn run(args: Args) -> ExitCode {
    run_forwarding(cargo_run("conformance", &args.args))
}
