//! The server half (`--server`): the focused spec `tests/specs/server/server_constraints.yaml`
//! with its wire test (every constraint kind refused with the declared answer, every
//! parameter place and style read back typed), and the server crates of the corpus and of
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
