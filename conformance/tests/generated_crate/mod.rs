//! A crate the generator made, written out as a workspace of its own with a test file
//! of the caller's, and cargo run on it: offline, with this workspace's lock (the
//! versions tested here), into a target directory shared with the generator's compile
//! test so that the dependencies are built once.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Writes crate `name` from `generated` into `dir/workspace/name`, with the manifest
/// `cargo xtask codegen --crate` writes, the `deserialize-requests` feature on by default
/// (tests build request models from JSON), `dev_dependencies` (manifest lines) and the
/// test `tests/{test_name}.rs` holding `test_text`. Returns the workspace's directory.
pub fn write(
    dir: &Path,
    name: &str,
    spec_name: &str,
    generated: &codegen::Generated,
    dev_dependencies: &str,
    (test_name, test_text): (&str, &str),
) -> PathBuf {
    let workspace = dir.join("workspace");
    let crate_dir = workspace.join(name);
    codegen::sync(
        &crate_dir.join("src"),
        &generated.files,
        codegen::Mode::Write,
    )
    .unwrap();
    let info = codegen::CrateInfo {
        name: name.into(),
        spec_name: spec_name.into(),
        command: String::new(),
    };
    let mut cargo_toml =
        codegen::root_files(&generated.dependencies, &info, generated.example.as_deref())
            .into_iter()
            .find(|f| f.path == "Cargo.toml")
            .expect("the crate's manifest")
            .contents;
    cargo_toml = cargo_toml.replace(
        "\n[features]\n",
        "\n[features]\ndefault = [\"deserialize-requests\"]\n",
    );
    cargo_toml.push_str("\n[dev-dependencies]\n");
    cargo_toml.push_str(dev_dependencies);
    std::fs::write(crate_dir.join("Cargo.toml"), cargo_toml).unwrap();
    std::fs::create_dir_all(crate_dir.join("tests")).unwrap();
    std::fs::write(crate_dir.join(format!("tests/{test_name}.rs")), test_text).unwrap();
    std::fs::write(
        workspace.join("Cargo.toml"),
        format!("[workspace]\nresolver = \"3\"\nmembers = [\"{name}\"]\n"),
    )
    .unwrap();
    // The workspace's lock, so that the crate builds offline with the versions tested.
    std::fs::copy(
        manifest().join("../Cargo.lock"),
        workspace.join("Cargo.lock"),
    )
    .unwrap();
    workspace
}

/// `cargo ARGS` in `workspace`, with `env` set.
pub fn cargo(workspace: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("../target"))
        .join("generated-check");
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .args(args)
        .current_dir(workspace)
        .env("CARGO_TARGET_DIR", &target)
        // Throwaway builds, built once: no debug information and no incremental cache,
        // which were most of their size on disk (the caches 12 of `generated-check`'s
        // 14 GB in a clean `.ci/run`).
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("run cargo on the generated crate")
}
