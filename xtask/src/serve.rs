//! `cargo xtask serve [--port P] [--data FILE] [--state FILE] [--read-timeout SECONDS]
//! [--penalty-every N [--penalty-wait SECONDS] [--penalty-captcha]]`:
//! the `reference-server` binary in the foreground, printing the base URL, the demo
//! client and a ready bearer token.

use std::process::ExitCode;

use crate::child::{cargo_run, run_forwarding};

/// Arguments of `cargo xtask serve`: those of the `reference-server` binary, passed on
/// unchanged (`--help` included, which the binary answers).
#[derive(clap::Args)]
#[command(disable_help_flag = true)]
pub struct Args {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

/// Runs the server until Ctrl-C; the exit code is the server's.
pub fn run(args: Args) -> ExitCode {
    run_forwarding(cargo_run("reference-server", &args.args))
}
