//! The server half (`--server`): the focused specs of `tests/specs/server/` with their
//! wire tests (`server_constraints.yaml`: every constraint kind refused with the declared
//! answer, every parameter place and style read back typed; `response_headers.yaml`: the
//! headers each answer declares written on the wire) and a snapshot of the server of the
//! second, and the server crates of the whole corpus (GitHub's description among them:
//! 767 operations, a 246,000-line crate, about two minutes of clippy on two cores) and of
//! Prefect's spec (a real FastAPI application's, 200 operations) compiled clippy-clean
//! with `-D warnings`. The server alone (`--server-only`, no client) is compiled for
//! Prefect's spec and the project's.

mod common;

use common::{Spec, check_crates, crate_name, manifest};

fn server_spec(path: std::path::PathBuf, name: String) -> Spec {
    let shown = path.display().to_string();
    (
        name,
        path,
        shown,
        None,
        codegen::Options {
            server: true,
            ..codegen::Options::default()
        },
    )
}

fn server_only_spec(path: std::path::PathBuf, name: String) -> Spec {
    let mut spec = server_spec(path, name);
    spec.4.server_only = true;
    spec
}

/// The project's spec generated without its client: the files, the manifest and the root
/// rustdoc, pinned (no compile: the test below compiles it).
#[test]
fn a_server_only_crate_has_no_client() {
    let path = manifest().join("../spec/openapi.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let options = codegen::Options {
        server_only: true,
        crate_name: Some("trading-server".to_owned()),
        ..codegen::Options::default()
    };
    let generated =
        codegen::generate_str_with("spec/openapi.yaml", &text, "spec/openapi.yaml", &options)
            .unwrap();
    let paths: Vec<&str> = generated.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "lib.rs",
            "models.rs",
            "server.rs",
            "server_runtime.rs",
            "server_document.rs"
        ]
    );
    let models = &generated.files[1].contents;
    assert!(
        !models.contains("fn validate("),
        "no client: nothing validates before sending"
    );
    assert!(
        !models.contains("crate::error::"),
        "no client runtime to read answers with"
    );
    let info = codegen::CrateInfo {
        name: "trading-server".to_owned(),
        spec_name: "spec/openapi.yaml".to_owned(),
        command: "cargo xtask codegen --spec spec/openapi.yaml --server-only".to_owned(),
    };
    let root = codegen::root_files(&generated.dependencies, &info, generated.example.as_deref());
    let manifest_text = &root
        .iter()
        .find(|f| f.path == "Cargo.toml")
        .unwrap()
        .contents;
    assert!(!manifest_text.contains("reqwest"));
    insta::assert_snapshot!("server_only_cargo_toml", manifest_text);
    insta::assert_snapshot!("server_only_lib_rs", generated.files[0].contents);
    insta::assert_snapshot!(
        "server_only_readme",
        root.iter()
            .find(|f| f.path == "README.md")
            .unwrap()
            .contents
    );
}

#[test]
fn the_focused_server_spec_refuses_each_constraint_as_declared() {
    let path = manifest().join("tests/specs/server/server_constraints.yaml");
    check_crates(&[server_spec(path.clone(), crate_name(&path))], |_| {});
}

/// Apart from the other focused server spec: two wired crates in one workspace would
/// build their usage examples to one file.
#[test]
fn the_focused_server_spec_sends_each_declared_header() {
    let path = manifest().join("tests/specs/server/response_headers.yaml");
    check_crates(&[server_spec(path.clone(), crate_name(&path))], |_| {});
}

/// The server of `response_headers.yaml` (its answers' variants, headers structs and
/// their writers), and the warnings of the headers it leaves out.
#[test]
fn response_headers_server_snapshot() {
    let file = "tests/specs/server/response_headers.yaml";
    let text = std::fs::read_to_string(manifest().join(file)).unwrap();
    let options = codegen::Options {
        server: true,
        ..codegen::Options::default()
    };
    let generated = codegen::generate_str_with(file, &text, file, &options).unwrap();
    let server = &generated
        .files
        .iter()
        .find(|f| f.path == "server.rs")
        .unwrap()
        .contents;
    let warnings: String = generated
        .warnings
        .iter()
        .map(|w| format!("[{}] {w}\n", w.kind))
        .collect();
    insta::assert_snapshot!(
        "response_headers_server",
        format!("// warnings\n{warnings}// server.rs\n{server}")
    );
}

#[test]
fn the_corpus_and_prefect_servers_compile_without_warnings() {
    let mut specs: Vec<Spec> = std::fs::read_dir(manifest().join("tests/corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("json" | "yaml")
            )
        })
        .map(|p| {
            let name = format!("{}-server", crate_name(&p));
            server_spec(p, name)
        })
        .collect();
    specs.sort_by(|a, b| a.0.cmp(&b.0));
    let prefect = manifest().join("../conformance/values/tests/specs/prefect-3.9.1-openapi.json");
    specs.push(server_spec(prefect, "gen-prefect-server".to_owned()));
    specs.push(server_spec(
        manifest().join("../spec/openapi.yaml"),
        "gen-project-server".to_owned(),
    ));
    specs.push(server_only_spec(
        manifest().join("../spec/openapi.yaml"),
        "gen-project-server-only".to_owned(),
    ));
    specs.push(server_only_spec(
        manifest().join("../conformance/values/tests/specs/prefect-3.9.1-openapi.json"),
        "gen-prefect-server-only".to_owned(),
    ));
    check_crates(&specs, |dir| {
        for alone in ["gen-project-server-only", "gen-prefect-server-only"] {
            assert!(!dir.join(alone).join("src/client.rs").exists());
            let manifest = std::fs::read_to_string(dir.join(alone).join("Cargo.toml")).unwrap();
            assert!(!manifest.contains("reqwest"), "{alone} has no client");
        }
        let server = std::fs::read_to_string(dir.join("gen-prefect-server/src/server.rs")).unwrap();
        assert!(server.contains("pub trait Api"));
        assert!(server.contains("pub fn router<A: Api>"));
    });
}
