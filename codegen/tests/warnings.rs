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
