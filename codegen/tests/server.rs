//! The server half (`--server`): the focused specs of `tests/specs/server/` with their
//! wire tests (`server_constraints.yaml`: every constraint kind refused with the declared
//! answer, every parameter place and style read back typed; `response_headers.yaml`: the
//! headers each answer declares written on the wire) and a snapshot of the server of the
//! second, and the server crates of the corpus and of
//! Prefect's spec (a real FastAPI application's, 200 operations) compiled clippy-clean
//! with `-D warnings`. GitHub's description is left out here: the client crate of its
//! 1,000 operations is the bulk of the corpus compile test's twenty minutes already, and
//! its server was checked by hand (see codegen/README.md).

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
            ) && !p.ends_with("api.github.com.json")
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
    check_crates(&specs, |dir| {
        let server = std::fs::read_to_string(dir.join("gen-prefect-server/src/server.rs")).unwrap();
        assert!(server.contains("pub trait Api"));
        assert!(server.contains("pub fn router<A: Api>"));
    });
}
