//! The conformance harness: replays spec-derived checks and contract cases against any
//! implementation of an OpenAPI spec (the project's own six operations unless `--spec`
//! names another) and gives a verdict CI can gate on (exit 0 / 1 / 2 / 3).
//!
//! Data flows one way: spec and contract files → cases (`plan`, `contracts`, each check's
//! module deriving its own) → the run (`runner/`: a `runner::Session` with the run's one
//! write gate, the cases sent through [`transport`] and every answer handed to the judges
//! the checks register in `checks::ALL`) → the run judged as a whole (`verdict`) →
//! reports (`report/`). No module imports from a floor above its own
//! (`xtask/tests/imports.rs` fails on a circle). The run's course is the top floor,
//! `flow/`: load the inputs, connect, run the cases watched, conclude. This file only reads
//! the command line into a `run_config::Config` and hands it to `flow::run`. The harness
//! knows an API only through its spec (schemas, responses, `x-` rules) and the contract
//! files; with no `--base-url` and the built-in spec it starts the reference server
//! in-process and runs against it.

// Used from outside the crate (the binary, the tests, the benches).
pub mod cli;
pub mod embedded;
pub mod error;
pub mod in_process;
pub mod out;
pub mod outcome;
pub mod registry;
pub mod spec;
mod suite;
pub mod transport;
mod trials;

// The harness's own rooms.
mod access;
mod auth;
mod binary;
mod builtin;
mod case;
mod checks;
mod config;
mod contracts;
mod coverage;
mod dry_run;
mod effect;
mod encode;
mod exchange;
mod fixtures;
mod flow;
mod header;
mod identity;
mod inputs;
mod known;
pub mod merge;
mod oauth_client;
mod plan;
mod redact;
mod refusal;
mod replay;
mod report;
mod request;
mod run_config;
mod runner;
mod safety;
mod schema;
mod selection;
mod spec_source;
mod state;
mod vars;
mod verdict;

/// Every built-in check's row of the registry, in `registry::Check` order.
pub use checks::TABLE;
pub use cli::Args;
pub use error::HarnessError;
pub use exchange::Exchange;
pub use in_process::{InProcess, IntoInProcess};
pub use outcome::{EXIT_INCOMPLETE, Outcome};
pub use suite::Suite;
pub use trials::WHOLE_RUN;

use contracts::Contracts;
use run_config::Config;

/// Runs the harness as the command line asks and returns the process exit code.
/// Errors that stop the run print one line and give 2.
pub fn main_with(args: Args) -> u8 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return 2;
        }
    };
    if args.list_checks {
        return match runtime.block_on(list_checks(&args)) {
            Ok(table) => {
                out::text(&table);
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                2
            }
        };
    }
    let outcome = runtime.block_on(execute(&args, embedded::ServerConfig::default()));
    match outcome {
        Ok(o) => {
            out::line(o.quiet_summary.as_deref().unwrap_or(&o.summary));
            o.exit_code
        }
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

/// The check registry as `--list-checks` prints it: the built-in checks and those the
/// contract files (`--contracts`, or the built-in ones) declare. A `--spec` URL is
/// fetched as a run fetches it.
pub async fn list_checks(args: &Args) -> Result<String, HarnessError> {
    let mut config = Config::from_args(args)?;
    spec_source::prepare(&mut config).await?;
    let spec = spec_source::load(&config.files)?;
    let (contracts, _) = Contracts::for_run(&spec, args.spec.is_none(), args.contracts.as_deref())?;
    Ok(contracts.registry.render())
}

/// Runs against `args.base_url`, or against a reference server started with `server`
/// when no URL is given (tests pass faults this way), and writes the requested reports.
/// The command line is read once, into the `Config` the rest of the harness takes.
pub async fn execute(args: &Args, server: embedded::ServerConfig) -> Result<Outcome, HarnessError> {
    let mut config = Config::from_args(args)?;
    spec_source::prepare(&mut config).await?;
    flow::run(&config, server).await
}
