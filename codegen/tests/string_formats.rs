//! `format: date-time`, `date` and `uuid` become `chrono` and `uuid` types, and the
//! generated crate depends on exactly the crates its code names; `--string-formats`
//! (`Options::string_formats`) keeps them strings and the crate without those
//! dependencies. The wire form is `tests/wire/string_formats.rs`.

const NAME: &str = "tests/specs/string_formats.yaml";

fn generate(options: &codegen::Options) -> codegen::Generated {
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(NAME))
        .unwrap();
    codegen::generate_str_with(NAME, &text, NAME, options).unwrap()
}

fn models(generated: &codegen::Generated) -> &str {
    &generated
        .files
        .iter()
        .find(|f| f.path == "models.rs")
        .unwrap()
        .contents
}

fn dependency_names(generated: &codegen::Generated) -> Vec<&'static str> {
    generated.dependencies.iter().map(|d| d.name).collect()
}

#[test]
fn formats_are_typed_and_their_crates_are_dependencies() {
    let generated = generate(&codegen::Options::default());
    let models = models(&generated);
    for field in [
        "pub id: uuid::Uuid,",
        "pub created: chrono::DateTime<chrono::FixedOffset>,",
        "pub day: Option<chrono::NaiveDate>,",
        "pub parents: Option<Vec<uuid::Uuid>>,",
        // Formats without a type of their own stay strings.
        "pub at: Option<String>,",
        "pub mail: Option<String>,",
    ] {
        assert!(models.contains(field), "{field} in:\n{models}");
    }
    assert_eq!(
        dependency_names(&generated),
        [
            "serde",
            "serde_json",
            "reqwest",
            "tokio",
            "httpdate",
            "chrono",
            "uuid",
            "percent-encoding",
            "serde_path_to_error",
            "tracing"
        ]
    );
    let chrono = &generated.dependencies[5];
    assert_eq!((chrono.version, chrono.default_features), ("0.4", false));
    assert_eq!(chrono.features, ["alloc", "serde"]);
}

#[test]
fn the_switch_keeps_strings_and_drops_the_crates() {
    let generated = generate(&codegen::Options {
        string_formats: true,
        ..codegen::Options::default()
    });
    for file in &generated.files {
        assert!(
            !file.contents.contains("chrono::") && !file.contents.contains("uuid::"),
            "{}",
            file.path
        );
    }
    assert!(models(&generated).contains("pub created: String,"));
    assert_eq!(
        dependency_names(&generated),
        [
            "serde",
            "serde_json",
            "reqwest",
            "tokio",
            "httpdate",
            "percent-encoding",
            "serde_path_to_error",
            "tracing"
        ]
    );
}

/// Each crate only where its types are named: a UUID alone brings `uuid`, a date alone
/// `chrono`, wherever it is (a model, an argument, an answer).
#[test]
fn each_crate_comes_with_its_own_format_only() {
    let spec = |schema: &str| {
        format!(
            "openapi: 3.1.0\ninfo: {{title: t, version: \"1\"}}\npaths:\n  /a:\n    get:\n      operationId: a\n      responses:\n        \"200\": {{description: ok, content: {{application/json: {{schema: {schema}}}}}}}\n"
        )
    };
    for (schema, wanted) in [
        ("{type: string, format: uuid}", vec!["uuid"]),
        (
            "{type: array, items: {type: string, format: date}}",
            vec!["chrono"],
        ),
        ("{type: string}", vec![]),
    ] {
        let generated = codegen::generate_str("t.yaml", &spec(schema), "t.yaml").unwrap();
        let names: Vec<&str> = dependency_names(&generated)
            .into_iter()
            .filter(|n| ["chrono", "uuid"].contains(n))
            .collect();
        assert_eq!(names, wanted, "{schema}");
    }
}
