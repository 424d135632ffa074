//! `cargo xtask test`: the one test command of the README and of `.ci/run`. It runs the
//! Rust test suite, then the checks that need tools from outside Rust (each installs its
//! own tool into `target/tools/`), and ends with one summary line. Its builds are not
//! incremental (see [`run`]).

use std::process::{Command, ExitCode};

/// Arguments of `cargo xtask test`.
#[derive(clap::Args)]
pub struct Args {
    /// Run only the Rust test suite (skip the spec validator, Schemathesis (against the
    /// reference server and the mocks of Prefect's and the corpus specs), the generated server of
    /// Prefect's spec, Prism, Prefect,
    /// Kinto, the browser test, the spec diff on GitHub's releases and its cross-check, and
    /// the APIs.guru directory).
    #[arg(long)]
    pub rust_only: bool,
}

/// The real-world specs of the generator's corpus whose mocks Schemathesis checks (all
/// of them: every failure no rule of `schemathesis::excuses` covers fails the step).
const CORPUS_MOCKS: &[&str] = &[
    "codegen/tests/corpus/api.github.com.json",
    "codegen/tests/corpus/buildomat.json",
    "codegen/tests/corpus/cli-gen.json",
    "codegen/tests/corpus/jupyter-server-2.21.1-api.yaml",
    "codegen/tests/corpus/keeper.json",
    "codegen/tests/corpus/kinto-26.5.0-api.json",
    "codegen/tests/corpus/nexus.json",
    "codegen/tests/corpus/param-collision.json",
    "codegen/tests/corpus/param-overrides.yaml",
    "codegen/tests/corpus/propolis-server.json",
    "codegen/tests/corpus/tradovate-openapi-2026-08-21.json",
];

/// One step of the suite: a name and the command that runs it.
struct Step {
    name: &'static str,
    command: Command,
}

fn xtask(args: &[&str]) -> Command {
    let exe = std::env::current_exe().expect("the running xtask has a path");
    let mut cmd = Command::new(exe);
    cmd.args(args).current_dir(crate::tools::project_root());
    cmd
}

fn cargo_tests() -> Command {
    if crate::child::have_nextest() {
        crate::child::cargo(&["nextest", "run", "--workspace", "--no-fail-fast"])
    } else {
        crate::child::cargo(&["test", "--workspace", "--no-fail-fast"])
    }
}

/// The generated client's `tracing` feature is off by default, so the workspace run
/// leaves out the test that needs it (`required-features`); this step builds the crate
/// with the feature and runs that test, so the spans and their redaction are checked too.
fn tracing_tests() -> Command {
    let args: &[&str] = &[
        "-p",
        "trading-api",
        "--features",
        "tracing",
        "--test",
        "tracing",
    ];
    let mut cmd = if crate::child::have_nextest() {
        crate::child::cargo(&["nextest", "run"])
    } else {
        crate::child::cargo(&["test"])
    };
    cmd.args(args);
    cmd
}

/// nextest runs no doctests: this step runs them (the generated crate's usage example
/// among them), where `cargo test` in [`cargo_tests`] would have.
fn doc_tests() -> Option<Command> {
    crate::child::have_nextest()
        .then(|| crate::child::cargo(&["test", "--workspace", "--doc", "--no-fail-fast"]))
}

/// Runs every step (a failed step does not stop the others) and exits 1 if any failed.
pub fn run(args: Args) -> ExitCode {
    let mut steps = vec![Step {
        name: "cargo tests",
        command: cargo_tests(),
    }];
    if let Some(command) = doc_tests() {
        steps.push(Step {
            name: "doc tests",
            command,
        });
    }
    steps.extend([Step {
        name: "generated client with tracing",
        command: tracing_tests(),
    }]);
    if !args.rust_only {
        steps.push(Step {
            name: "openapi-spec-validator",
            command: xtask(&["validate-spec"]),
        });
        steps.push(Step {
            name: "schemathesis",
            command: xtask(&["schemathesis"]),
        });
        steps.push(Step {
            name: "schemathesis against the mock of Prefect's spec",
            command: xtask(&[
                "schemathesis",
                "--mock",
                "conformance/values/tests/specs/prefect-3.9.1-openapi.json",
                "--max-examples",
                "20",
            ]),
        });
        let mut corpus = vec!["schemathesis", "--max-examples", "10"];
        for spec in CORPUS_MOCKS {
            corpus.extend(["--mock", spec]);
        }
        steps.push(Step {
            name: "schemathesis against the mocks of the corpus specs",
            command: xtask(&corpus),
        });
        steps.push(Step {
            name: "generated server of Prefect's spec (harness, Schemathesis)",
            command: xtask(&["prefect-server"]),
        });
        steps.push(Step {
            name: "prism",
            command: xtask(&["prism"]),
        });
        steps.push(Step {
            name: "prefect",
            command: xtask(&["prefect"]),
        });
        steps.push(Step {
            name: "kinto",
            command: xtask(&["kinto"]),
        });
        steps.push(Step {
            name: "browser",
            command: xtask(&["browser"]),
        });
        steps.push(Step {
            name: "APIs.guru directory",
            command: xtask(&["directory"]),
        });
        steps.push(Step {
            name: "spec diff on GitHub's REST releases",
            command: xtask(&["diff", "--github-history"]),
        });
        steps.push(Step {
            name: "spec diff cross-check (cargo-semver-checks, Redocly)",
            command: xtask(&["diff", "--cross-check"]),
        });
    }
    let mut failed = Vec::new();
    let total = steps.len();
    // One build of each crate per run: an incremental cache is written for later edits
    // that a test run does not make, and it was 16 of the 26 GB a clean `.ci/run` left
    // in `target/` (a CI machine ran out of disk on it). A caller's own setting wins.
    let caches_off = std::env::var_os("CARGO_INCREMENTAL").is_none();
    for mut step in steps {
        eprintln!("==> {}", step.name);
        if caches_off {
            step.command.env("CARGO_INCREMENTAL", "0");
        }
        let ok = step.command.status().map(|s| s.success()).unwrap_or(false);
        if !ok {
            eprintln!("==> {} FAILED", step.name);
            failed.push(step.name);
        }
    }
    if !failed.is_empty() {
        eprintln!("failed steps: {}", failed.join(", "));
    }
    println!(
        "test: {} passed, {} failed",
        total - failed.len(),
        failed.len()
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
