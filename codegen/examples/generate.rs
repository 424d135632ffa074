//! Generates a crate's sources from any spec: `cargo run -p codegen --example generate --
//! <spec> <out-dir>`. Handy to try the generator on a spec of one's own.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [spec, out] = args.as_slice() else {
        eprintln!("usage: generate <spec.yaml|json> <out-dir>");
        return ExitCode::from(2);
    };
    let result = codegen::generate_file(Path::new(spec), spec).and_then(|generated| {
        for warning in &generated.warnings {
            eprintln!("warning: {warning}");
        }
        if let Some(summary) = generated.summary() {
            eprintln!("warning: {summary}");
        }
        codegen::sync(Path::new(out), &generated.files, codegen::Mode::Write)
    });
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
