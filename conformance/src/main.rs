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
    /// Serves a mock of any OpenAPI document (3.0, 3.1, Swagger 2.0) until Ctrl-C:
    /// answers from its examples or its schemas, requests judged against it.
    Mock(MockArgs),
}

/// `conformance mock --spec F [--port P] [--host H] [--stateful] [--log FILE]`.
#[derive(clap::Args)]
struct MockArgs {
    /// The OpenAPI document (YAML or JSON).
    #[arg(long)]
    spec: std::path::PathBuf,
    /// The port to listen on (0: one the system chooses).
    #[arg(long, default_value_t = 4010)]
    port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: std::net::IpAddr,
    /// Keeps what creates send; reads, lists, updates and deletes use it.
    #[arg(long)]
    stateful: bool,
    /// Appends one JSON line per exchange to FILE (credentials redacted).
    #[arg(long, value_name = "FILE")]
    log: Option<std::path::PathBuf>,
    /// The one bearer token accepted (default: any non-empty one). Read from the
    /// environment rather than the command line where others can see processes.
    #[arg(long, env = "MOCK_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// The largest request body taken, in bytes (larger: 413).
    #[arg(long, default_value_t = spec_mock::DEFAULT_BODY_LIMIT)]
    body_limit: usize,
}

/// Builds the mock and serves it; 2 when the document or the address is refused.
fn mock(args: MockArgs) -> ExitCode {
    let built = spec_mock::Mock::from_path(&args.spec).and_then(|m| {
        let m = m.stateful(args.stateful).body_limit(args.body_limit);
        let m = match args.token {
            Some(t) => m.accept_token(t),
            None => m,
        };
        match &args.log {
            Some(path) => m.log_to_path(path),
            None => Ok(m),
        }
    });
    let mock = match built {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(mock.serve(std::net::SocketAddr::new(args.host, args.port))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
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
        Some(Command::Mock(m)) => mock(m),
        None => ExitCode::from(conformance::main_with(cli.args)),
    }
}
