//! `reference-server`: the reference server as a process of its own (what `cargo xtask
//! serve` runs in-process), for tools that need a separate process and for the crash
//! test that SIGKILLs it.

use std::process::ExitCode;

use clap::Parser;
use reference_server::cli::{ServeArgs, init_logging, serve};

/// Serve the six operations of the trading platform's interface.
#[derive(Parser)]
#[command(name = "reference-server", version)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    match serve(&cli.serve).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("reference-server: {e}");
            ExitCode::from(2)
        }
    }
}
