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
    let text = match std::fs::read_to_string(&spec) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", spec.display());
            return ExitCode::from(2);
        }
    };
    // Errors name the spec as given, relative to the repository root.
    let files = match codegen::generate_str(&header_name, &text, &header_name) {
        Ok(generated) => {
            for warning in &generated.warnings {
                eprintln!("warning: {warning}");
            }
            generated.files
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-codegen-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn args(spec: &str, out: &Path, check: bool) -> Args {
        Args {
            check,
            spec: PathBuf::from(spec),
            out: out.to_owned(),
        }
    }

    #[test]
    fn a_bad_spec_exits_2_and_writes_nothing() {
        let out = scratch("bad");
        std::fs::write(out.join("models.rs"), "untouched").unwrap();
        let code = run(args(
            "codegen/tests/specs/bad/missing_ref.yaml",
            &out,
            false,
        ));
        assert_eq!(code, ExitCode::from(2));
        let names: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["models.rs"]);
        assert_eq!(
            std::fs::read_to_string(out.join("models.rs")).unwrap(),
            "untouched"
        );
        std::fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn check_fails_on_stale_output_and_passes_after_writing() {
        let out = scratch("check");
        assert_eq!(
            run(args("spec/openapi.yaml", &out, true)),
            ExitCode::from(1)
        );
        assert!(
            std::fs::read_dir(&out).unwrap().next().is_none(),
            "check mode writes nothing"
        );
        assert_eq!(
            run(args("spec/openapi.yaml", &out, false)),
            ExitCode::SUCCESS
        );
        assert_eq!(
            run(args("spec/openapi.yaml", &out, true)),
            ExitCode::SUCCESS
        );
        // A hand-written file beside the generated ones is left alone ...
        std::fs::write(out.join("helpers.rs"), "pub fn mine() {}").unwrap();
        assert_eq!(
            run(args("spec/openapi.yaml", &out, true)),
            ExitCode::SUCCESS
        );
        assert_eq!(
            run(args("spec/openapi.yaml", &out, false)),
            ExitCode::SUCCESS
        );
        assert!(
            out.join("helpers.rs").exists(),
            "a hand-written file was removed"
        );
        // ... while a generated file no longer emitted is stale, then removed.
        std::fs::write(out.join("stray.rs"), "// @generated by an older run\n").unwrap();
        assert_eq!(
            run(args("spec/openapi.yaml", &out, true)),
            ExitCode::from(1)
        );
        assert_eq!(
            run(args("spec/openapi.yaml", &out, false)),
            ExitCode::SUCCESS
        );
        assert!(!out.join("stray.rs").exists());
        // A hand-written file where a generated one goes: exit 2, nothing written.
        std::fs::write(out.join("lib.rs"), "pub fn mine() {}").unwrap();
        assert_eq!(
            run(args("spec/openapi.yaml", &out, false)),
            ExitCode::from(2)
        );
        assert_eq!(
            std::fs::read_to_string(out.join("lib.rs")).unwrap(),
            "pub fn mine() {}"
        );
        std::fs::remove_dir_all(&out).unwrap();
    }
}
