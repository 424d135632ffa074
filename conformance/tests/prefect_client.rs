//! The generator on a real application no one here wrote (issue 19's proof): a Prefect
//! server 3.9.1 (as `tests/prefect.rs` starts it: loopback, temp SQLite) serves its spec,
//! the generator makes a crate of it exactly as `cargo xtask codegen --crate` would, and
//! that crate's own test (`tests/prefect_client/live.rs`) drives the live server through
//! the generated client: a flow created (201 where the spec says 200), read, filtered and
//! deleted (then its 404); variables holding every kind of JSON value; a flow run and its
//! state; an automation with two kinds of action read back and written again byte for
//! byte; a 422 whose message is read from the error. Ignored in a plain test run because
//! it needs Prefect: `cargo xtask prefect` installs it and runs this test too.

// Only the server's start and the spec's fetch are used here; the rest of the support
// module serves `tests/prefect.rs`.
#[allow(dead_code)]
mod prefect_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use prefect_support::{Prefect, scratch};

const CRATE: &str = "gen-prefect";

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The spec as the server serves it, as text: parsed into a `serde_json::Value` it would
/// lose its key order, and with it the order of every generated struct's fields.
fn spec_text(api: &str) -> String {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let answer = reqwest::get(format!("{api}/openapi.json"))
            .await
            .expect("Prefect serves its spec");
        assert_eq!(answer.status().as_u16(), 200, "Prefect serves its spec");
        answer.text().await.expect("the spec's text")
    })
}

#[test]
#[ignore = "needs Prefect server: run `cargo xtask prefect`"]
fn the_client_generated_from_prefects_spec_works_against_prefect() {
    let dir = scratch("client");
    let prefect = Prefect::start(&dir);
    let spec = spec_text(&prefect.api);
    let spec_path = dir.join("openapi.json");
    std::fs::write(&spec_path, &spec).unwrap();

    let shown = spec_path.display().to_string();
    let started = std::time::Instant::now();
    // Named as `--crate` names it, so the root rustdoc carries the usage example.
    let options = codegen::Options {
        crate_name: Some(CRATE.to_owned()),
        ..codegen::Options::default()
    };
    let generated = codegen::generate_str_with(&shown, &spec, &shown, &options)
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "generated {} files from Prefect's spec in {:.2} s (debug build), {} warning(s)",
        generated.files.len(),
        started.elapsed().as_secs_f64(),
        generated.warnings.len()
    );
    for w in &generated.warnings {
        eprintln!("  warning: {w}");
    }

    let workspace = dir.join("workspace");
    let crate_dir = workspace.join(CRATE);
    codegen::sync(
        &crate_dir.join("src"),
        &generated.files,
        codegen::Mode::Write,
    )
    .unwrap();
    let info = codegen::CrateInfo {
        name: CRATE.into(),
        spec_name: shown.clone(),
        command: String::new(),
    };
    let mut cargo_toml =
        codegen::root_files(&generated.dependencies, &info, generated.example.as_deref())
            .into_iter()
            .find(|f| f.path == "Cargo.toml")
            .expect("the crate's manifest")
            .contents;
    // The test builds bodies from JSON, which request models derive only behind this
    // feature, and reads the server's own bytes with `RawValue`.
    cargo_toml = cargo_toml.replace(
        "\n[features]\n",
        "\n[features]\ndefault = [\"deserialize-requests\"]\n",
    );
    cargo_toml.push_str(
        "\n[dev-dependencies]\ntokio = { version = \"1\", features = [\"rt\"] }\nserde_json = { version = \"1\", features = [\"raw_value\"] }\n",
    );
    std::fs::write(crate_dir.join("Cargo.toml"), cargo_toml).unwrap();
    std::fs::create_dir_all(crate_dir.join("tests")).unwrap();
    std::fs::copy(
        manifest().join("tests/prefect_client/live.rs"),
        crate_dir.join("tests/live.rs"),
    )
    .unwrap();
    std::fs::write(
        workspace.join("Cargo.toml"),
        format!("[workspace]\nresolver = \"3\"\nmembers = [\"{CRATE}\"]\n"),
    )
    .unwrap();
    // The workspace's lock, so that the crate builds offline with the versions tested.
    std::fs::copy(
        manifest().join("../Cargo.lock"),
        workspace.join("Cargo.lock"),
    )
    .unwrap();

    // Shared with the generator's compile test, so dependencies are built once.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("../target"))
        .join("generated-check");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "test",
            "--offline",
            "--test",
            "live",
            "--",
            "--test-threads=1",
        ])
        .current_dir(&workspace)
        .env("CARGO_TARGET_DIR", &target)
        // Throwaway builds, built once: no debug information and no incremental cache,
        // which were most of their size on disk (the caches 12 of `generated-check`'s
        // 14 GB in a clean `.ci/run`).
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_INCREMENTAL", "0")
        .env("PREFECT_API", &prefect.api)
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("run cargo test on the generated crate");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}");
    assert!(
        output.status.success(),
        "the generated Prefect client's live test failed:\n{stdout}\n{stderr}\nserver log:\n{}",
        prefect.log_tail()
    );
    // Five tests ran and passed: a filter that ran none would also exit 0.
    assert!(
        stdout.contains("test result: ok. 5 passed"),
        "expected the five live tests to run:\n{stdout}"
    );

    // The usage example of the crate's root rustdoc compiles as the doctest it is.
    let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["test", "--offline", "--doc"])
        .current_dir(&workspace)
        .env("CARGO_TARGET_DIR", &target)
        // Throwaway builds, built once: no debug information and no incremental cache,
        // which were most of their size on disk (the caches 12 of `generated-check`'s
        // 14 GB in a clean `.ci/run`).
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("run the generated crate's doctests");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("test result: ok. 1 passed"),
        "the usage example of the Prefect crate does not compile:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
