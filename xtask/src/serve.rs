//! `cargo xtask serve [--port P] [--data FILE] [--state FILE]`: the reference server in
//! the foreground, printing the base URL, the demo client and a ready bearer token.

use std::process::ExitCode;

use reference_server::cli::{ServeArgs, init_logging, serve};

/// Arguments of `cargo xtask serve` (those of the `reference-server` binary).
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    serve: ServeArgs,
}

/// Runs the server until Ctrl-C.
pub fn run(args: Args) -> ExitCode {
    init_logging();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("cargo xtask serve: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(serve(&args.serve)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cargo xtask serve: {e}");
            ExitCode::from(2)
        }
    }
}
