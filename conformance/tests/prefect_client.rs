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

mod generated_crate;

use std::path::Path;

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

    let workspace = generated_crate::write(
        &dir,
        CRATE,
        &shown,
        &generated,
        // Bodies built from JSON; the server's own bytes read with `RawValue`.
        "tokio = { version = \"1\", features = [\"rt\"] }\nserde_json = { version = \"1\", features = [\"raw_value\"] }\n",
        (
            "live",
            &std::fs::read_to_string(manifest().join("tests/prefect_client/live.rs")).unwrap(),
        ),
    );
    let output = generated_crate::cargo(
        &workspace,
        &[
            "test",
            "--offline",
            "--test",
            "live",
            "--",
            "--test-threads=1",
        ],
        &[("PREFECT_API", &prefect.api)],
    );
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
    let output = generated_crate::cargo(&workspace, &["test", "--offline", "--doc"], &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("test result: ok. 1 passed"),
        "the usage example of the Prefect crate does not compile:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
