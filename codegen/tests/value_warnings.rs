//! No schema becomes `serde_json::Value` silently: each one that does is a warning naming
//! its pointer and line. Free-form objects become maps rather than `Value` (they at least
//! promise an object), and warn all the same: their values are `Value`.

use std::path::Path;

#[test]
fn every_value_is_a_warning_at_its_node() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/specs/any_json.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let generated = codegen::generate_str("any_json.yaml", &text, "any_json.yaml").unwrap();
    let warnings: Vec<String> = generated.warnings.iter().map(ToString::to_string).collect();
    insta::assert_snapshot!("any_json_warnings", warnings.join("\n"));

    let models = &generated
        .files
        .iter()
        .find(|f| f.path == "models.rs")
        .unwrap()
        .contents;
    // Each `Value` outside a map or a union's fallback has its warning: the `Anything`
    // alias and the fields `any` and `list`. `free`, `open` and `open_schema` are
    // free-form maps, `BTreeMap<String, Value>`, with a warning each; `empty`
    // (`additionalProperties: false`, no properties) holds nothing and warns of nothing,
    // six warnings in all. `holes` and `sparse` hold
    // `Option`s (`Vec<Option<String>>`, `BTreeMap<String, Option<i32>>`) and `nothing`,
    // which allows only `null`, is `()`: typed, so no warning.
    // Counted where a type is declared (a field, an alias): the readers behind the
    // `deserialize-requests` feature hold `Value`s of their own.
    let bare = models
        .lines()
        .filter(|l| {
            l.contains("serde_json::Value") && !l.contains("BTreeMap<String, serde_json::Value>")
        })
        .filter(|l| l.trim_start().starts_with("pub "))
        .count();
    assert_eq!(bare, 3, "{models}");
    assert!(
        models.contains("pub holes: Option<Vec<Option<String>>>,"),
        "{models}"
    );
    assert!(models.contains("pub nothing: Option<()>,"), "{models}");
    assert_eq!(warnings.len(), 6);
}
