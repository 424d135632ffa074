//! `cargo xtask validate-spec`: an independent check of `spec/openapi.yaml` by
//! `openapi-spec-validator` (PyPI), so the spec is not judged only by our own loader.

use std::process::{Command, ExitCode};

use crate::tools;

/// The validator's pinned version.
pub const VALIDATOR: &str = "openapi-spec-validator==0.9.0";

/// Arguments of `cargo xtask validate-spec`.
#[derive(clap::Args)]
pub struct Args {
    /// The spec to validate.
    #[arg(long, default_value = "spec/openapi.yaml")]
    pub spec: String,
}

/// Runs the validator; exit 0 when it accepts the spec, 1 when it reports errors, 2 when
/// it cannot be installed or started.
pub fn run(args: Args) -> ExitCode {
    let bin = match tools::python_venv("spec-validator-venv", &[VALIDATOR]) {
        Ok(bin) => bin,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let spec = tools::project_root().join(&args.spec);
    match Command::new(bin.join("openapi-spec-validator"))
        .arg(&spec)
        .status()
    {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: cannot start openapi-spec-validator: {e}");
            ExitCode::from(2)
        }
    }
}
