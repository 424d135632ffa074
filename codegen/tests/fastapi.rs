//! What real FastAPI / Pydantic specs hold that the generator got wrong (issue 19), on
//! `tests/specs/fastapi_mini.yaml`: checked on the generated text here, and on the wire
//! by `tests/wire/fastapi_mini.rs` (run by `compile.rs`).

const NAME: &str = "tests/specs/fastapi_mini.yaml";

fn generate() -> codegen::Generated {
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(NAME))
        .unwrap();
    codegen::generate_str(NAME, &text, NAME).unwrap()
}

fn file<'a>(generated: &'a codegen::Generated, name: &str) -> &'a str {
    &generated
        .files
        .iter()
        .find(|f| f.path == name)
        .unwrap()
        .contents
}

fn warnings(generated: &codegen::Generated) -> Vec<String> {
    generated.warnings.iter().map(ToString::to_string).collect()
}

/// A parameter whose schema has no `type` is text on the wire: a string argument, no
/// warning, and the operation is kept.
#[test]
fn untyped_parameters_are_strings() {
    let generated = generate();
    let client = file(&generated, "client.rs");
    let trigger = client
        .split("pub async fn trigger(")
        .nth(1)
        .expect("`trigger` is generated");
    let signature = &trigger[..trigger.find(')').unwrap()];
    let signature: String = signature.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(
        signature,
        "&self, dag_id: &str, note: Option<&str>, x_run_label: Option<&str>,"
    );
    let about_parameters: Vec<String> = warnings(&generated)
        .into_iter()
        .filter(|w| w.contains("~1dags~1{dag_id}~1dagRuns/post/parameters/"))
        .collect();
    assert_eq!(about_parameters, Vec::<String>::new());
}

/// A path parameter the template does not contain has nowhere to go: a located warning,
/// and no argument (an unused one would drop its value and fail clippy).
#[test]
fn a_path_parameter_missing_from_the_template_is_left_out_with_a_warning() {
    let generated = generate();
    let client = file(&generated, "client.rs");
    let get_tag = client
        .split("pub async fn get_tag(")
        .nth(1)
        .expect("`get_tag` is generated");
    let signature: String = get_tag[..get_tag.find(')').unwrap()]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(signature, "&self, tag: &str,");
    let warnings = warnings(&generated);
    assert!(
        warnings.iter().any(|w| w.ends_with(
            "at /paths/~1tags~1{tag}/get/parameters/1: path parameter `tag_id` does not appear \
             in the path template `/tags/{tag}`; it is left out of the method"
        )),
        "{warnings:#?}"
    );
}

/// A union whose branches each fix a common property (a `const`, with or without a
/// `default`, or a one-value `enum`), required or not, is tagged by that property.
#[test]
fn an_optional_const_or_single_enum_property_tags_a_union() {
    let generated = generate();
    let models = file(&generated, "models.rs");
    let before = models
        .split("pub enum AutomationActionsItem {")
        .next()
        .unwrap();
    // The attributes right above the enum.
    let attributes = &before[before.rfind("pub ").unwrap()..];
    assert!(
        attributes.contains("#[serde(tag = \"type\")]"),
        "{attributes}"
    );
    let spec = r##"
openapi: 3.1.0
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    Event:
      oneOf:
        - type: object
          properties:
            kind: {const: created}
            id: {type: string}
        - type: object
          properties:
            kind: {type: string, enum: [deleted]}
            id: {type: string}
"##;
    let generated = codegen::generate_str("t.yaml", spec, "t.yaml").unwrap();
    let models = file(&generated, "models.rs");
    assert!(models.contains("#[serde(tag = \"kind\")]"), "{models}");
}

/// A query parameter described by `content` (JSON text) is an argument of its schema's
/// type, not a reason to leave the operation out.
#[test]
fn content_parameters_are_arguments() {
    let generated = generate();
    let client = file(&generated, "client.rs");
    let list = client
        .split("pub async fn list_things(")
        .nth(1)
        .expect("`list_things` is generated");
    let signature: String = list[..list.find(')').unwrap()]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(
        signature,
        "&self, filter: Option<&crate::models::ListThingsFilter>, order: &[&str],"
    );
    let warnings = warnings(&generated);
    assert!(
        !warnings.iter().any(|w| w.contains("~1things/get")),
        "{warnings:#?}"
    );
}
