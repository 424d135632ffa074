//! `cargo xtask bench <what>`: the benchmarks behind BENCHMARKS.md. Each measures the
//! project beside a baseline in the same run and prints ratios, since absolute times on
//! shared machines drift. The generator's bench runs here (it needs only `codegen`); the
//! others are `[[bench]]` targets of the crates they measure, run with `cargo bench`
//! (optimised), their arguments passed through.

mod codegen;

use std::process::ExitCode;

use crate::child::{cargo, run_forwarding};
use crate::tools::python_venv;

/// Arguments of `cargo xtask bench`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

/// Arguments handed unchanged to a bench target (`--help` included).
#[derive(clap::Args)]
#[command(disable_help_flag = true)]
pub struct PassThrough {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

#[derive(clap::Subcommand)]
enum What {
    /// Generation time of the spec and of the platform's full published document.
    Codegen(codegen::Args),
    /// Per-request cost of the generated client against hand-written reqwest
    /// (`cargo bench -p trading-api --bench client`).
    Client(PassThrough),
    /// Reference server throughput and p99 beside a minimal axum handler
    /// (`cargo bench -p reference-server --bench server`).
    Server(PassThrough),
    /// Conformance run wall time, and requests per second beside Schemathesis
    /// (`cargo bench -p conformance --bench conformance`).
    Conformance(PassThrough),
    /// The harness and Schemathesis on live Prefect and Kinto servers: findings,
    /// operations reached, wall time and requests/s (`cargo bench -p conformance --bench
    /// apps`; `-- --app prefect|kinto` for one).
    Apps(PassThrough),
    /// `conformance mock` beside Stoplight Prism's mock: requests per second on the same
    /// spec and request (`cargo bench -p conformance --bench mock`).
    Mock(PassThrough),
}

/// Dispatches to the chosen benchmark.
pub fn run(args: Args) -> ExitCode {
    match args.what {
        What::Codegen(a) => codegen::run(a),
        What::Client(a) => bench("trading-api", "client", a, &[]),
        What::Server(a) => bench("reference-server", "server", a, &[]),
        What::Conformance(a) => {
            // Schemathesis is installed here (orchestration) unless the run skips it.
            let skip = a
                .args
                .iter()
                .any(|x| x == "--no-schemathesis" || x == "--help" || x == "-h");
            let env = if skip {
                Vec::new()
            } else {
                match python_venv("schemathesis", &[crate::schemathesis::SCHEMATHESIS]) {
                    Ok(bin) => vec![("SCHEMATHESIS_BIN", bin.join("st"))],
                    Err(e) => {
                        eprintln!("cargo xtask bench conformance: {e}");
                        return ExitCode::from(2);
                    }
                }
            };
            bench("conformance", "conformance", a, &env)
        }
        What::Mock(a) => match crate::tools::npm_tool(crate::prism::PRISM, "prism") {
            Ok(exe) => bench("conformance", "mock", a, &[("PRISM_BIN", exe)]),
            Err(e) => {
                eprintln!("cargo xtask bench mock: {e}");
                ExitCode::from(2)
            }
        },
        What::Apps(a) => {
            let tools = [
                (
                    "SCHEMATHESIS_BIN",
                    "schemathesis",
                    crate::schemathesis::SCHEMATHESIS,
                    "st",
                ),
                (
                    "PREFECT_BIN",
                    crate::prefect::VENV,
                    crate::prefect::PREFECT,
                    "prefect",
                ),
                (
                    "KINTO_BIN",
                    crate::kinto::VENV,
                    crate::kinto::KINTO,
                    "kinto",
                ),
            ];
            let mut env = Vec::new();
            for (var, venv, package, exe) in tools {
                match python_venv(venv, &[package]) {
                    Ok(bin) => env.push((var, bin.join(exe))),
                    Err(e) => {
                        eprintln!("cargo xtask bench apps: {e}");
                        return ExitCode::from(2);
                    }
                }
            }
            bench("conformance", "apps", a, &env)
        }
    }
}

/// `cargo bench -q -p PACKAGE --bench NAME -- ARGS`, its exit code passed on.
fn bench(
    package: &str,
    name: &str,
    args: PassThrough,
    env: &[(&str, std::path::PathBuf)],
) -> ExitCode {
    let mut cmd = cargo(&["bench", "-q", "-p", package, "--bench", name, "--"]);
    cmd.args(&args.args);
    for (key, value) in env {
        cmd.env(key, value);
    }
    run_forwarding(cmd)
}
