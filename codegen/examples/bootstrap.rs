//! Regenerates `generated/src` without building xtask.
//!
//! `cargo xtask codegen` links every crate of the workspace, including the ones that use
//! the generated crate; when the generated code is missing or broken that build fails, and
//! this example (which links only the generator) is the way out:
//! `cargo run -p codegen --example bootstrap`.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = match codegen::generate_file(&root.join("spec/openapi.yaml"), "spec/openapi.yaml") {
        Ok(generated) => generated.files,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match codegen::sync(&root.join("generated/src"), &files, codegen::Mode::Write) {
        Ok(report) => {
            for path in report.changed.iter().chain(&report.extra) {
                println!("updated {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
