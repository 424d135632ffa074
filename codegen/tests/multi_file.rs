//! A spec split over three files (YAML and JSON, one in a subdirectory, schemas that
//! refer to each other across a file) generates the same crate as the same API written
//! as one file, and its bundle (`spec_model::bundle`, what `cargo xtask codegen --bundle`
//! writes) is pinned.

use std::path::Path;

fn dir() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/specs/multi_file"
    ))
}

#[test]
fn a_three_file_spec_generates_the_crate_of_its_one_file_equivalent() {
    let split = codegen::generate_file(&dir().join("openapi.yaml"), "pets.yaml")
        .unwrap_or_else(|e| panic!("{e}"));
    let one = codegen::generate_file(&dir().join("one_file.yaml"), "pets.yaml")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(split.warnings.is_empty(), "{:?}", split.warnings);
    assert_eq!(split.files.len(), one.files.len());
    for (a, b) in split.files.iter().zip(&one.files) {
        assert_eq!(a.path, b.path);
        assert_eq!(a.contents, b.contents, "{} differs", a.path);
    }
}

#[test]
fn the_bundle_of_a_three_file_spec() {
    let bundled = spec_model::bundle::load(&dir().join("openapi.yaml")).unwrap();
    insta::assert_snapshot!("multi_file_bundle", bundled.text);
}
