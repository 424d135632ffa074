//! Proof of generality: the platform's full published document (350 operations, 278
//! schemas) and every focused spec under `tests/specs/` generate crates that compile with
//! no warnings.
//!
//! The crates are members of one temporary workspace checked with `cargo clippy`
//! (or `cargo check` without clippy) `--offline` and `RUSTFLAGS=-Dwarnings`; the workspace's `Cargo.lock` is copied in so the
//! same dependency versions are used, and the target directory is a subdirectory of the
//! workspace's own so that dependencies are built once and reused by later runs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixture() -> PathBuf {
    manifest().join("../../shared/fixtures/tradovate-openapi-2026-08-21.json")
}

const CRATE_MANIFEST: &str = r#"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1"
reqwest = { version = "0.13", default-features = false, features = ["json", "rustls", "query", "form"] }
"#;

#[test]
fn fixture_and_focused_specs_compile_without_warnings() {
    let fixture = fixture();
    assert!(
        fixture.is_file(),
        "the platform's document is missing at {} (the proof of generality needs it)",
        fixture.display()
    );
    let mut specs = vec![("fixture".to_owned(), fixture)];
    let mut focused: Vec<PathBuf> = std::fs::read_dir(manifest().join("tests/specs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    focused.sort();
    for path in focused {
        let stem = path
            .file_stem()
            .unwrap()
            .to_str()
            .unwrap()
            .replace('_', "-");
        specs.push((stem, path));
    }

    let dir = tempfile::tempdir().unwrap();
    let mut members = Vec::new();
    for (name, spec) in &specs {
        let files = codegen::generate_file(spec, &spec.display().to_string())
            .unwrap_or_else(|e| panic!("{e}"));
        let crate_dir = dir.path().join(name);
        codegen::sync(&crate_dir.join("src"), &files, codegen::Mode::Write).unwrap();
        std::fs::write(
            crate_dir.join("Cargo.toml"),
            format!("[package]\nname = \"gen-{name}\"{CRATE_MANIFEST}"),
        )
        .unwrap();
        members.push(format!("\"{name}\""));
    }
    std::fs::write(
        dir.path().join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
            members.join(", ")
        ),
    )
    .unwrap();
    std::fs::copy(
        manifest().join("../Cargo.lock"),
        dir.path().join("Cargo.lock"),
    )
    .unwrap();

    let fixture_client = std::fs::read_to_string(dir.path().join("fixture/src/client.rs")).unwrap();
    assert_eq!(fixture_client.matches("pub async fn ").count(), 350);
    assert!(
        !fixture_client.contains("authorization: &str"),
        "Authorization header parameters become the bearer token"
    );
    assert!(fixture_client.contains("pub async fn o_auth_token("));

    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("../target"))
        .join("generated-check");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Clippy when the toolchain has it (the generated code promises clippy-clean), else
    // the compiler alone.
    let has_clippy = Command::new(&cargo)
        .args(["clippy", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    let tool = if has_clippy { "clippy" } else { "check" };
    let output = Command::new(cargo)
        .args([
            tool,
            "--offline",
            "--workspace",
            "--message-format",
            "short",
        ])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", &target)
        .env("RUSTFLAGS", "-Dwarnings")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "generated crates do not compile cleanly:\n{stderr}"
    );
    assert!(!stderr.contains("warning"), "warnings:\n{stderr}");
}
