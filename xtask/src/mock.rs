//! `cargo xtask mock --spec F [--port P] [--host H] [--stateful] [--log FILE]`: the
//! `conformance mock` subcommand in the foreground, with the same arguments, so the two
//! cannot drift apart.

use std::process::ExitCode;

use crate::child::{cargo_run, run_forwarding};

/// Arguments of `cargo xtask mock`: exactly those of `conformance mock`, passed on
/// unchanged (`--help` included, which the binary answers).
#[derive(clap::Args)]
#[command(disable_help_flag = true)]
pub struct Args {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

/// Serves the mock until Ctrl-C; the exit code is the binary's.
pub fn run(args: Args) -> ExitCode {
    let mut all = vec!["mock".to_owned()];
    all.extend(args.args);
    run_forwarding(cargo_run("conformance", &all))
}
