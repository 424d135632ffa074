//! Tolerated problems: generation goes on, and each warning names the line and pointer of
//! its node like an error does.

#[test]
fn an_unknown_string_format_is_a_located_warning() {
    let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/specs/warn/unknown_format.yaml");
    let text = std::fs::read_to_string(spec).unwrap();
    let name = "tests/specs/warn/unknown_format.yaml";
    let generated = codegen::generate_str(name, &text, name).unwrap();
    let warnings: Vec<String> = generated.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "tests/specs/warn/unknown_format.yaml:24: at /components/schemas/Host/properties/address/format: unknown string format `ip`: the value is a plain `String`, not checked against the format"
        ]
    );
    assert!(generated.files.iter().any(|f| f.path == "models.rs"));
}

/// Two schemes that both send `Authorization` in one requirement cannot go in one
/// request: that requirement is left out with a warning (an operation with no other is
/// left out of the client), never sent with two `Authorization` headers.
#[test]
fn two_authorization_schemes_in_one_requirement_are_left_out() {
    let name = "tests/specs/warn/two_authorizations.yaml";
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name))
        .unwrap();
    let generated = codegen::generate_str(name, &text, name).unwrap();
    let warnings: Vec<String> = generated.warnings.iter().map(ToString::to_string).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("/paths/~1both/get/security/0")
                && w.contains(
                    "combines `user` and `partner`, which both send the `Authorization` header"
                )),
        "{warnings:#?}"
    );
    let client = &generated
        .files
        .iter()
        .find(|f| f.path == "client.rs")
        .unwrap()
        .contents;
    assert!(
        !client.contains("pub async fn both("),
        "left out: no other requirement"
    );
    assert!(client.contains("pub async fn either("));
    // `either` keeps its second requirement only: `partner` alone.
    assert!(client.contains("&[&[Scheme::Partner]]"), "{client}");
}

/// The summary that closes a run's warnings names every operation left out of the
/// client, so none is lost among the other warnings (a real spec had one such line among
/// 336 warnings for 106 operations).
#[test]
fn the_summary_names_every_operation_left_out() {
    let summary = |name: &str| {
        let text =
            std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name))
                .unwrap();
        codegen::generate_str(name, &text, name).unwrap().summary()
    };
    assert_eq!(
        summary("tests/specs/media_types.yaml").as_deref(),
        Some("2 warnings; 1 operation left out of the client: onlyMultipart (POST /forms)")
    );
    assert_eq!(
        summary("tests/specs/warn/undeclared_path_param.yaml").as_deref(),
        Some(
            "1 warning; 1 operation left out of the client: getPart (GET /items/{id}/parts/{part})"
        )
    );
    assert_eq!(
        summary("tests/specs/warn/warts.yaml").as_deref(),
        Some("7 warnings")
    );
    assert_eq!(summary("tests/specs/optional_required.yaml"), None);
}

/// Every warning the test specs and the corpus give has a kind of its own (not
/// `other`), so `--allow-warning` can name it; the kinds are what `WarningKind::of` reads
/// off the message.
#[test]
fn every_warning_of_the_test_specs_has_a_kind() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut specs = Vec::new();
    // The refused specs of `bad/` too: with `--dangling-refs-as-any` some generate.
    for dir in ["specs", "specs/warn", "specs/bad", "corpus"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "json")
            ) {
                specs.push((path, dir == "specs/bad"));
            }
        }
    }
    specs.sort();
    let mut seen = std::collections::BTreeSet::new();
    let mut unkinded = Vec::new();
    for (path, bad) in &specs {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let options = codegen::Options {
            dangling_refs_as_any: *bad,
            ..codegen::Options::default()
        };
        let Ok(generated) = codegen::generate_str_with(&name, &text, &name, &options) else {
            assert!(bad, "{name} does not generate");
            continue;
        };
        for w in &generated.warnings {
            let kind = codegen::WarningKind::of(w);
            seen.insert(kind);
            if kind == codegen::WarningKind::Other {
                unkinded.push(w.to_string());
            }
        }
    }
    assert!(
        unkinded.is_empty(),
        "warnings without a kind: {unkinded:#?}"
    );
    // The specs give warnings of many kinds, so the test above is not vacuous.
    assert!(seen.len() >= 10, "{seen:?}");
    assert!(
        seen.contains(&codegen::WarningKind::DanglingRef),
        "{seen:?}"
    );
}
