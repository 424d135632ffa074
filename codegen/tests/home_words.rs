//! A crate generated from someone else's spec says nothing of this project's API: no
//! name of the project spec's operations (as methods) or schemas (as types) appears in any
//! file of crates generated from the focused specs, the runtime they carry included. The
//! words are read from `spec/openapi.yaml` by generating its crate, so the test follows
//! the spec and names no word itself.

use std::collections::BTreeSet;
use std::path::Path;

/// The names a spec gives a crate: its operations' methods (`pub async fn` of
/// `client.rs`) and its schemas' types (`pub struct`/`pub enum` of `models.rs`).
fn names(files: &[codegen::File]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for file in files {
        let leads: &[&str] = match file.path.as_str() {
            "client.rs" => &["pub async fn "],
            "models.rs" => &["pub struct ", "pub enum "],
            _ => &[],
        };
        for line in file.contents.lines() {
            let line = line.trim_start();
            for lead in leads {
                if let Some(rest) = line.strip_prefix(lead) {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    out.insert(name);
                }
            }
        }
    }
    out
}

fn generate(path: &Path) -> Vec<codegen::File> {
    let text = std::fs::read_to_string(path).unwrap();
    let shown = path.display().to_string();
    codegen::generate_str(&shown, &text, &shown)
        .unwrap_or_else(|e| panic!("{e}"))
        .files
}

#[test]
fn no_crate_of_another_spec_names_the_project_s_operations_or_schemas() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let home = generate(&manifest.join("../spec/openapi.yaml"));
    // What a crate of any spec has (the error enum's name, say) is no home word.
    let common = names(&generate(&manifest.join("tests/specs/hygiene.yaml")));
    let home_words: BTreeSet<String> = names(&home)
        .difference(&common)
        .filter(|w| w.len() >= 8)
        .cloned()
        .collect();
    assert!(
        home_words.len() >= 6,
        "too few of the project's names to look for: {home_words:?}"
    );
    let mut found = Vec::new();
    let mut specs: Vec<_> = std::fs::read_dir(manifest.join("tests/specs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "json"))
        .collect();
    specs.sort();
    assert!(specs.len() > 20, "{specs:?}");
    for spec in &specs {
        for file in generate(spec) {
            for word in &home_words {
                if file.contents.contains(word.as_str()) {
                    found.push(format!("{}: {}: `{word}`", spec.display(), file.path));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the project's names in other crates:\n{}",
        found.join("\n")
    );
}
