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

/// A real document split the way teams split one (every component schema a file of its
/// own under `schemas/`, every path item one under `paths/`, each `$ref` rewritten to the
/// file it now names), by the script below rather than by hand. It must generate the
/// crate of the document it came from.
#[test]
fn a_real_spec_split_into_files_by_a_script_generates_the_same_crate() {
    let original_path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/values/tests/specs/prefect-3.9.1-openapi.json"
    ));
    let text = std::fs::read_to_string(original_path).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let out = tempfile::tempdir().unwrap();
    let files = split(&doc, out.path());
    assert!(files > 300, "Prefect's spec splits into {files} files");
    let root = out.path().join("openapi.json");
    let split = codegen::generate_file(&root, "prefect.json").unwrap_or_else(|e| panic!("{e}"));
    let whole = codegen::generate_str("prefect.json", &text, "prefect.json").unwrap();
    assert_eq!(split.files.len(), whole.files.len());
    for (a, b) in split.files.iter().zip(&whole.files) {
        assert_eq!(a.path, b.path);
        assert!(a.contents == b.contents, "{} differs", a.path);
    }
    assert_eq!(split.warnings.len(), whole.warnings.len());
}

/// Writes `doc` split into files under `dir`; returns how many files it wrote.
fn split(doc: &serde_json::Value, dir: &Path) -> usize {
    use serde_json::{Value, json};
    /// Rewrites every `$ref` under `value` for a file `up` levels below the root.
    fn rewrite(value: &mut Value, up: &str, schemas: &str) {
        match value {
            Value::Object(o) => {
                if let Some(Value::String(r)) = o.get_mut("$ref") {
                    if let Some(name) = r.strip_prefix("#/components/schemas/") {
                        *r = format!("{schemas}{}.json", file_name(name));
                    } else if r.starts_with('#') {
                        *r = format!("{up}openapi.json{r}");
                    }
                }
                o.values_mut().for_each(|v| rewrite(v, up, schemas));
            }
            Value::Array(a) => a.iter_mut().for_each(|v| rewrite(v, up, schemas)),
            _ => {}
        }
    }
    /// A schema's name as a file name (`~1`-escaped names kept readable).
    fn file_name(pointer_name: &str) -> String {
        pointer_name
            .replace("~1", "/")
            .replace("~0", "~")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    }
    let mut root = doc.clone();
    std::fs::create_dir_all(dir.join("schemas")).unwrap();
    std::fs::create_dir_all(dir.join("paths")).unwrap();
    let mut written = 1;
    if let Some(Value::Object(schemas)) = root.pointer_mut("/components/schemas") {
        for (name, schema) in schemas.iter_mut() {
            let mut own = schema.clone();
            rewrite(&mut own, "../", "");
            let file = format!("{}.json", file_name(name));
            std::fs::write(dir.join("schemas").join(&file), own.to_string()).unwrap();
            *schema = json!({"$ref": format!("schemas/{file}")});
            written += 1;
        }
    }
    if let Some(Value::Object(paths)) = root.get_mut("paths") {
        for (i, (_, item)) in paths.iter_mut().enumerate() {
            let mut own = item.clone();
            rewrite(&mut own, "../", "../schemas/");
            let file = format!("paths/{i}.json");
            std::fs::write(dir.join(&file), own.to_string()).unwrap();
            *item = json!({"$ref": file});
            written += 1;
        }
    }
    std::fs::write(dir.join("openapi.json"), root.to_string()).unwrap();
    written
}
