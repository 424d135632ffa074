//! `cargo xtask codegen [--check]`: regenerate `generated/src` from `spec/openapi.yaml`,
//! or (with `--check`) verify it is current without writing anything.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `cargo xtask codegen`.
#[derive(clap::Args)]
pub struct Args {
    /// Compare only: write nothing, exit 1 naming each stale file.
    #[arg(long)]
    check: bool,
    /// The spec to generate from (relative to the repository root).
    #[arg(long, default_value = "spec/openapi.yaml")]
    spec: PathBuf,
    /// The directory that receives the sources (relative to the repository root).
    #[arg(long, default_value = "generated/src")]
    out: PathBuf,
}

/// The repository root: xtask's manifest directory's parent.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_owned)
}

/// Runs the subcommand: exit 0 when done (or current), 1 when `--check` finds stale
/// files, 2 when the spec cannot be generated or files cannot be written.
pub fn run(args: Args) -> ExitCode {
    let root = root();
    let spec = root.join(&args.spec);
    let out = root.join(&args.out);
    let header_name = args.spec.display().to_string();
    let files = match codegen::generate_file(&spec, &header_name) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mode = if args.check {
        codegen::Mode::Check
    } else {
        codegen::Mode::Write
    };
    let report = match codegen::sync(&out, &files, mode) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let shown = |p: &Path| p.strip_prefix(&root).unwrap_or(p).display().to_string();
    if args.check {
        if report.is_clean() {
            return ExitCode::SUCCESS;
        }
        for path in &report.changed {
            eprintln!("stale: {}", shown(path));
        }
        for path in &report.extra {
            eprintln!("no longer generated: {}", shown(path));
        }
        eprintln!("generated code is out of date: run `cargo xtask codegen` and commit");
        return ExitCode::from(1);
    }
    for path in &report.changed {
        println!("wrote {}", shown(path));
    }
    for path in &report.extra {
        println!("removed {}", shown(path));
    }
    if report.is_clean() {
        println!("{} is up to date", shown(&out));
    }
    ExitCode::SUCCESS
}
