//! `Options::tolerant` (`--tolerant`): off, the crate carries none of the lenient readers;
//! on, the answer models read through them and say so. The wire behaviour is tested in
//! `tests/wire/lenient_scalars.rs` and `tests/wire/lenient_scalars_tolerant.rs`.

fn generate(tolerant: bool) -> codegen::Generated {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/specs/lenient_scalars.yaml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let options = codegen::Options {
        tolerant,
        ..codegen::Options::default()
    };
    codegen::generate_str_with(
        "lenient_scalars.yaml",
        &text,
        "lenient_scalars.yaml",
        &options,
    )
    .unwrap()
}

fn file<'a>(generated: &'a codegen::Generated, name: &str) -> &'a str {
    &generated
        .files
        .iter()
        .find(|f| f.path == name)
        .unwrap()
        .contents
}

#[test]
fn strict_is_the_default_and_carries_no_lenient_reader() {
    let strict = generate(false);
    for name in ["models.rs", "error.rs"] {
        let text = file(&strict, name);
        assert!(!text.contains("deserialize_with"), "{name}");
        assert!(!text.contains("fn lenient"), "{name}");
        assert!(!text.contains("Lenient"), "{name}");
        assert!(!text.contains("--tolerant"), "{name}");
    }
}

#[test]
fn tolerant_models_read_through_the_lenient_readers_and_say_so() {
    let tolerant = generate(true);
    let models = file(&tolerant, "models.rs");
    assert!(
        models.contains("//! Generated with `--tolerant`"),
        "{models}"
    );
    for read in [
        "deserialize_with = \"crate::error::lenient\"",
        "deserialize_with = \"crate::error::lenient_option\"",
        "deserialize_with = \"Thing::read_limit\"",
        "crate::error::lenient_or(deserializer, Self::default_limit)",
    ] {
        assert!(models.contains(read), "{read} in:\n{models}");
    }
    let error = file(&tolerant, "error.rs");
    for item in [
        "pub(crate) trait Lenient",
        "pub(crate) fn lenient<",
        "pub(crate) fn lenient_option<",
        "pub(crate) fn lenient_or<",
    ] {
        assert!(error.contains(item), "{item}");
    }
    // No field of this spec has a non-scalar default, so its reader is not copied (an
    // unused function would fail `-D warnings`).
    assert!(!error.contains("fn null_or<"));
}
