//! Proof of generality: every real-world document of `tests/corpus/` (the platform's
//! full published document, 350 operations, progenitor's public samples and GitHub's REST
//! description, about 1,000) and every focused spec under `tests/specs/` and
//! `tests/specs/warn/` generates a crate that compiles with no warnings; each corpus
//! document and each warn spec with exactly the generator warnings [`CORPUS`] and
//! [`WARN`] record.
//!
//! Each crate gets the `Cargo.toml` that `cargo xtask codegen --crate` writes. The crates
//! are members of one temporary workspace checked with `cargo clippy`
//! `--offline` and `RUSTFLAGS=-Dwarnings`; the workspace's `Cargo.lock` is copied in so the
//! same dependency versions are used, and the target directory is a subdirectory of the
//! workspace's own so that dependencies are built once and reused by later runs.

mod common;

use std::path::PathBuf;

use common::{Spec, check_crates, crate_name, manifest};

/// What a corpus document is expected to do today.
enum Expect {
    /// Generates with exactly this many warnings (each a construct a correct client
    /// cannot type, named by pointer) a crate that compiles clippy-clean.
    Compiles {
        /// Warnings generation reports.
        warnings: usize,
    },
}

/// Every document of `tests/corpus/` and what it does today. A document added to the
/// folder without an entry fails the test.
const CORPUS: &[(&str, Expect)] = &[
    // 3 free-form objects (`properties: {}`: ExtraPreTradeRiskProducts,
    // ExtraPreTradeRiskContracts, RollContractsResponseContracts), maps of
    // `serde_json::Value`.
    (
        "tradovate-openapi-2026-08-21.json",
        Expect::Compiles { warnings: 3 },
    ),
    // GitHub's REST description: about 1,000 operations, 100,000 lines of Rust, the
    // stress case and the bulk of this test's time. Compiled alone on 2026-11-23 with
    // dependencies already checked (`cargo clippy --all-targets`, lib and lib test): 211 s
    // of processor time, 19 min 51 s wall on the two shared cores at load average 14 to
    // 21 (about the processor time on two idle cores; BENCHMARKS.md, codegen section).
    // Its 29 warnings are genuine: 9 schemas with no
    // `type`, 8 lists without `items` and 11 free-form objects or extra properties (any
    // JSON, so `serde_json::Value`, named by pointer), and 1 `example` that contradicts
    // its schema (`w` a string where the schema says integer).
    ("api.github.com.json", Expect::Compiles { warnings: 29 }),
    // An operation without responses (every answer is undocumented), in each of these two.
    ("buildomat.json", Expect::Compiles { warnings: 1 }),
    ("cli-gen.json", Expect::Compiles { warnings: 1 }),
    // A Swagger 2.0 document: 1 note of what its conversion did, 8 unknown formats
    // (`filename`, `URL`, `dateTime`, `path`), 3 free-form objects and 1 `example` with a
    // `null` its schema does not allow.
    (
        "jupyter-server-2.21.1-api.yaml",
        Expect::Compiles { warnings: 13 },
    ),
    ("keeper.json", Expect::Compiles { warnings: 0 }),
    // A second public Swagger 2.0 document (Kinto's served spec): 1 note of what its
    // conversion did, and Cornice's schemas as served: 255 `details` and other values
    // with no `type` and 111 free-form objects (a record's `data`), any JSON each.
    ("kinto-26.5.0-api.json", Expect::Compiles { warnings: 367 }),
    // 7 `format: ip` strings (an unknown format, kept a plain `String`) and 1 schema with
    // no `type` (`serde_json::Value`).
    ("nexus.json", Expect::Compiles { warnings: 8 }),
    ("param-collision.json", Expect::Compiles { warnings: 0 }),
    ("param-overrides.yaml", Expect::Compiles { warnings: 0 }),
    ("propolis-server.json", Expect::Compiles { warnings: 0 }),
];

/// Every spec of `tests/specs/warn/` (each holds constructs the client leaves out or
/// types loosely, with a warning) and how many warnings it gives: none is refused on
/// purpose, so each must still give a crate that compiles clippy-clean. A spec added to
/// the folder without an entry fails the test. The snapshot test pins the messages.
const WARN: &[(&str, usize)] = &[
    ("duplicate_operation_id.yaml", 2),
    ("http_digest.yaml", 1),
    ("invalid_schemes.yaml", 4),
    ("loose_operations.yaml", 4),
    ("prose.yaml", 22),
    ("schema_warts.yaml", 5),
    ("two_authorizations.yaml", 2),
    ("undeclared_path_param.yaml", 1),
    ("unknown_format.yaml", 1),
    ("warts.yaml", 7),
];

#[test]
fn corpus_and_focused_specs_compile_without_warnings() {
    let corpus_dir = manifest().join("tests/corpus");
    let mut on_disk: Vec<String> = std::fs::read_dir(&corpus_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json") || n.ends_with(".yaml"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = CORPUS.iter().map(|(n, _)| (*n).to_owned()).collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "tests/corpus and the CORPUS table disagree"
    );

    // (crate name, spec path, name the spec is given in messages, expected warnings;
    // `None` for a focused spec, whose warnings the snapshot tests pin)
    let mut specs = Vec::new();
    for (file, Expect::Compiles { warnings }) in CORPUS {
        let path = corpus_dir.join(file);
        let shown = format!("tests/corpus/{file}");
        specs.push((
            crate_name(&path),
            path,
            shown,
            Some(*warnings),
            Default::default(),
        ));
    }
    let mut focused: Vec<PathBuf> = std::fs::read_dir(manifest().join("tests/specs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    focused.sort();
    for path in focused {
        let shown = path.display().to_string();
        specs.push((crate_name(&path), path, shown, None, Default::default()));
    }
    let warn_dir = manifest().join("tests/specs/warn");
    let mut on_disk: Vec<String> = std::fs::read_dir(&warn_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    on_disk.sort();
    let listed: Vec<String> = WARN.iter().map(|(n, _)| (*n).to_owned()).collect();
    assert_eq!(
        on_disk, listed,
        "tests/specs/warn and the WARN table disagree"
    );
    for (file, warnings) in WARN {
        let path = warn_dir.join(file);
        let shown = path.display().to_string();
        // `gen-warn-…`: a warn spec may share its stem with a focused spec.
        let name = crate_name(&path).replacen("gen-", "gen-warn-", 1);
        specs.push((name, path, shown, Some(*warnings), Default::default()));
    }

    specs.push(tolerant_spec("lenient_scalars"));
    specs.push(tolerant_spec("date_times"));
    check_crates(&specs, |dir| {
        let fixture_client =
            std::fs::read_to_string(dir.join("gen-tradovate-openapi-2026-08-21/src/client.rs"))
                .unwrap();
        assert_eq!(fixture_client.matches("pub async fn ").count(), 350);
        assert!(
            !fixture_client.contains("authorization: &str"),
            "Authorization header parameters become the bearer token"
        );
        assert!(fixture_client.contains("pub async fn o_auth_token("));
    });
}

/// The focused specs of issue 19 (what real FastAPI applications need:
/// `tests/specs/fastapi_mini.yaml` and the specs of single points) with their wire tests:
/// the same check as above for these crates alone, seconds once the dependencies are
/// built, where the test above compiles GitHub's.
#[test]
fn fastapi_fixture_compiles_and_passes_its_wire_test() {
    let specs: Vec<_> = [
        "fastapi_mini.yaml",
        "negotiation.yaml",
        "tuples.yaml",
        "explicit_null.yaml",
        "relative_server.yaml",
        "string_formats.yaml",
        "many_params.yaml",
        "patterns.yaml",
        "lenient_scalars.yaml",
        "date_times.yaml",
        "swap_proof.yaml",
    ]
    .iter()
    .map(|file| {
        let path = manifest().join("tests/specs").join(file);
        let shown = path.display().to_string();
        (
            crate_name(&path),
            path,
            shown,
            None,
            codegen::Options::default(),
        )
    })
    .chain([
        tolerant_spec("lenient_scalars"),
        tolerant_spec("date_times"),
    ])
    .collect();
    check_crates(&specs, |_| {});
}

/// The focused specs of issue 29 alone (each also in the test above, which compiles the
/// whole corpus): one crate per API-key placement, every placement at once, a spec
/// that reuses an `operationId`, one whose dangling references (parameter `content`
/// included) are read as any value with `dangling_refs_as_any`, and the Swagger 2.0
/// documents (the focused one and the corpus's real one). Each compiles clippy-clean,
/// in seconds once the dependencies are built.
#[test]
fn api_key_placements_duplicates_freed_refs_and_swagger2_compile_without_warnings() {
    let mut specs: Vec<Spec> = [
        ("api_key_cookie.yaml", 0),
        ("api_key_query.yaml", 0),
        ("api_key_header.yaml", 0),
        ("api_keys_together.yaml", 0),
        // The note of what the conversion did.
        ("swagger2.yaml", 1),
    ]
    .iter()
    .map(|(file, warnings)| {
        let path = manifest().join("tests/specs").join(file);
        let shown = path.display().to_string();
        (
            crate_name(&path),
            path,
            shown,
            Some(*warnings),
            codegen::Options::default(),
        )
    })
    .collect();
    let jupyter = manifest().join("tests/corpus/jupyter-server-2.21.1-api.yaml");
    specs.push((
        crate_name(&jupyter),
        jupyter.clone(),
        jupyter.display().to_string(),
        Some(13),
        codegen::Options::default(),
    ));
    let duplicates = manifest().join("tests/specs/warn/duplicate_operation_id.yaml");
    specs.push((
        "gen-warn-duplicate-operation-id".to_owned(),
        duplicates.clone(),
        duplicates.display().to_string(),
        Some(2),
        codegen::Options::default(),
    ));
    let dangling = manifest().join("tests/specs/bad/dangling_refs_in_content.yaml");
    specs.push((
        "gen-freed-dangling-refs-in-content".to_owned(),
        dangling.clone(),
        dangling.display().to_string(),
        // Five freed references, and the body's extra properties any JSON.
        Some(6),
        codegen::Options {
            dangling_refs_as_any: true,
            ..codegen::Options::default()
        },
    ));
    check_crates(&specs, |dir| {
        let client = std::fs::read_to_string(dir.join("gen-api-key-cookie/src/client.rs")).unwrap();
        assert!(client.contains("cookies.push("), "the key goes as a cookie");
        assert!(
            !dir.join("gen-api-key-cookie/src/encode.rs").exists(),
            "an API key is sent as given: nothing to percent-encode"
        );
    });
}

/// `tests/specs/<stem>.yaml` generated with `--tolerant`, as the crate
/// `gen-<stem>-tolerant` whose wire test is `tests/wire/<stem>_tolerant.rs` (the same
/// spec without the option is a focused spec of its own).
fn tolerant_spec(stem: &str) -> Spec {
    let path = manifest().join(format!("tests/specs/{stem}.yaml"));
    let shown = path.display().to_string();
    let options = codegen::Options {
        tolerant: true,
        ..codegen::Options::default()
    };
    (
        format!("gen-{}-tolerant", stem.replace('_', "-")),
        path,
        shown,
        None,
        options,
    )
}
