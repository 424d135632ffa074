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
