//! What the generator's compile tests share: the crates of some specs written into one
//! temporary workspace the way `cargo xtask codegen --crate` writes them, and checked with
//! clippy `-D warnings`.

#![allow(dead_code)] // each test binary (compile.rs, directory.rs) uses its own part of this

use std::path::{Path, PathBuf};
use std::process::Command;

/// The codegen crate's folder: the test specs' paths are relative to it.
pub fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The crate name a document's crate gets: `gen-` and the file stem, lower-case, with
/// anything but letters and digits turned into `-`.
pub fn crate_name(path: &Path) -> String {
    let stem = path.file_stem().unwrap().to_str().unwrap();
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("gen-{stem}")
}

/// A crate to check: crate name, spec path, name the spec is given in messages, expected
/// warnings (`None` for a focused spec, whose warnings the snapshot tests pin), and the
/// generator's options.
pub type Spec = (String, PathBuf, String, Option<usize>, codegen::Options);

/// The crate's usage example (its root rustdoc's doctest, shown in its README) as
/// `examples/usage.rs`, wrapped the way rustdoc wraps a doctest without `fn main`
/// (`#![allow(unused)]` and the code inside `main`), so that clippy checks, for every
/// crate, the code rustdoc would compile, at the cost of a `cargo check` rather than a
/// full build and link per crate. The wired crates run `cargo test`, whose doctest pass
/// compiles the root rustdoc's copy as rustdoc itself does.
fn write_usage_example(crate_dir: &Path, generated: &codegen::Generated) {
    let code = generated
        .example
        .as_deref()
        .expect("a crate generated with its name has a usage example");
    let lib = std::fs::read_to_string(crate_dir.join("src/lib.rs")).unwrap();
    assert!(
        lib.contains("//! ```no_run") || lib.contains("#![doc = \" ```no_run\"]"),
        "the root rustdoc carries the example as a doctest"
    );
    std::fs::create_dir_all(crate_dir.join("examples")).unwrap();
    let body: String = code.lines().map(|l| format!("    {l}\n")).collect();
    std::fs::write(
        crate_dir.join("examples/usage.rs"),
        format!("#![allow(unused)]\nfn main() {{\n{body}}}\n"),
    )
    .unwrap();
}

/// The crates of `specs`
/// in one temporary workspace, checked with clippy `-D warnings`, with each focused spec's
/// wire test (`tests/wire/<stem>.rs`) run. `inspect` looks at the generated sources before
/// anything is compiled.
pub fn check_crates(specs: &[Spec], inspect: impl FnOnce(&Path)) {
    let dir = tempfile::tempdir().unwrap();
    let mut members = Vec::new();
    let mut wired = Vec::new();
    for (name, spec, shown, warnings, options) in specs {
        let text = std::fs::read_to_string(spec).unwrap();
        let options = codegen::Options {
            crate_name: Some(name.clone()),
            ..options.clone()
        };
        let generated = codegen::generate_str_with(shown, &text, shown, &options)
            .unwrap_or_else(|e| panic!("{e}"));
        if let Some(expected) = warnings {
            assert_eq!(
                generated.warnings.len(),
                *expected,
                "{shown}: warnings changed: {:#?}",
                generated.warnings
            );
        }
        let crate_dir = dir.path().join(name);
        codegen::sync(
            &crate_dir.join("src"),
            &generated.files,
            codegen::Mode::Write,
        )
        .unwrap();
        // The manifest `--crate` writes, so that its dependency list is proven too.
        let info = codegen::CrateInfo {
            name: name.clone(),
            spec_name: shown.clone(),
            command: String::new(),
        };
        let root_files =
            codegen::root_files(&generated.dependencies, &info, generated.example.as_deref());
        let mut manifest = root_files
            .iter()
            .find(|f| f.path == "Cargo.toml")
            .unwrap()
            .contents
            .clone();
        // A focused spec's own test, `tests/wire/<stem>.rs` (its wire form, or its models'
        // round trips), runs against its crate.
        let stem = name.trim_start_matches("gen-").replace('-', "_");
        let wire = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/wire")
            .join(format!("{stem}.rs"));
        if options.server && !wire.is_file() && !manifest.contains("\ndefault = ") {
            // The server half is behind its feature: on, so clippy checks it.
            manifest = manifest.replace("\n[features]\n", "\n[features]\ndefault = [\"server\"]\n");
        }
        if wire.is_file() {
            // The round trips decode request models too, which derive `Deserialize` only
            // behind the feature; the corpus crates keep it off, so the default build is
            // the one clippy checks there.
            // A server crate's test serves its router: the `server` feature, and tokio's
            // listener and test macro.
            let (default, tokio) = if options.server {
                ("server", "\"rt\", \"macros\", \"net\"")
            } else {
                ("deserialize-requests", "\"rt\"")
            };
            manifest = manifest.replace(
                "\n[features]\n",
                &format!("\n[features]\ndefault = [\"{default}\"]\n"),
            );
            manifest.push_str(&format!(
                "\n[dev-dependencies]\ntokio = {{ version = \"1\", features = [{tokio}] }}\n"
            ));
            std::fs::create_dir_all(crate_dir.join("tests")).unwrap();
            std::fs::copy(&wire, crate_dir.join("tests/wire.rs")).unwrap();
            wired.push(name.clone());
        }
        std::fs::write(crate_dir.join("Cargo.toml"), manifest).unwrap();
        write_usage_example(&crate_dir, &generated);
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

    inspect(dir.path());
    check_workspace(dir.path(), &wired);
}

/// Fetches the dependencies of the workspace at `dir`, checks it with clippy `-D warnings`
/// and runs the `cargo test` of the `wired` crates.
fn check_workspace(dir: &Path, wired: &[String]) {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("../target"))
        .join("generated-check");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // The generated code promises clippy-clean: without clippy this test could not check
    // that promise, so it fails rather than pass on the compiler alone.
    let has_clippy = Command::new(&cargo)
        .args(["clippy", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        has_clippy,
        "`cargo clippy` is not installed (rustup component add clippy): the generated \
         crates are promised clippy-clean and cannot be checked without it"
    );
    // The checks below run `--offline` (the versions of the workspace's `Cargo.lock`, no
    // resolution against the registry); a crate the workspace's own build never
    // downloaded (a generated crate may need `uuid` or `chrono` features it does not) is
    // fetched first, as `cargo xtask test` fetches its tools on first use.
    let fetch = Command::new(&cargo)
        .arg("fetch")
        .current_dir(dir)
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        fetch.status.success(),
        "cannot fetch the generated crates' dependencies:\n{}",
        String::from_utf8_lossy(&fetch.stderr)
    );
    let output = Command::new(&cargo)
        .args([
            "clippy",
            "--offline",
            "--workspace",
            "--all-targets",
            "--keep-going",
            "--message-format",
            "short",
        ])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target)
        // Throwaway builds, built once: no debug information and no incremental cache,
        // which were most of their size on disk (the caches 12 of `generated-check`'s
        // 14 GB in a clean `.ci/run`).
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_INCREMENTAL", "0")
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

    let mut args = vec!["test", "--offline"];
    for package in wired {
        args.extend(["--package", package]);
    }
    let output = Command::new(&cargo)
        .args(&args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target)
        // Throwaway builds, built once: no debug information and no incremental cache,
        // which were most of their size on disk (the caches 12 of `generated-check`'s
        // 14 GB in a clean `.ci/run`).
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "a focused spec's wire test failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
