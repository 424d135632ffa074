//! `conformance`: the harness's command line (the same arguments as `cargo xtask conformance`).

use std::process::ExitCode;

use clap::Parser;

/// Checks that an HTTP API answers as its OpenAPI document says: spec-derived positive
/// and negative cases, the spec's rules and any contract files, judged per answer and
/// gated by exit code (0 pass, 1 fail, 2 usage or configuration error, 3 incomplete).
/// Without --spec and --base-url it runs the built-in spec against its reference server.
#[derive(Parser)]
#[command(name = "conformance", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    args: conformance::Args,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Joins the JSON reports of the shards of one run (`--shard I/N`, one CI job each)
    /// into the report of the whole run; exits as that run would have (0, 1, 2 or 3).
    Merge(conformance::merge::MergeArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Merge(m)) => match conformance::merge::merge(&m) {
            Ok((summary, code)) => {
                conformance::out::line(&summary);
                ExitCode::from(code)
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
        None => ExitCode::from(conformance::main_with(cli.args)),
    }
}
