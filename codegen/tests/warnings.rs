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
