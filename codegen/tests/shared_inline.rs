//! Identical inline schemas become one type (`tests/specs/shared_inline.yaml`), named by
//! its title or its shape (`lower/merged.rs`) with each use's own name an alias, the same
//! on every run; schemas that differ stay apart.

fn models() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/specs/shared_inline.yaml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let generated =
        codegen::generate_str("shared_inline.yaml", &text, "shared_inline.yaml").unwrap();
    generated
        .files
        .into_iter()
        .find(|f| f.path == "models.rs")
        .unwrap()
        .contents
}

#[test]
fn a_value_read_from_one_model_fits_the_other() {
    let models = models();
    // `Variable.value` and `VariableCreate.value`: one type, named by the schema's title;
    // each place's own name stays an alias of it.
    assert_eq!(
        models.matches("pub value: Option<Value>,").count(),
        2,
        "{models}"
    );
    for alias in ["VariableValue", "VariableCreateValue"] {
        assert!(
            models.contains(&format!("pub type {alias} = Value;")),
            "{models}"
        );
    }
    // Four `labels` maps (three components and an inline request body), one value type,
    // a union without a title, named by its branches.
    assert_eq!(
        models
            .matches(
                "pub labels: Option<std::collections::BTreeMap<String, IntegerOrBooleanOrString>>"
            )
            .count(),
        4,
        "{models}"
    );
    for alias in [
        "VariableLabelsValue",
        "VariableCreateLabelsValue",
        "FlowLabelsValue",
        "CreateFlowBodyLabelsValue",
    ] {
        assert!(
            models.contains(&format!("pub type {alias} = IntegerOrBooleanOrString;")),
            "{alias}"
        );
    }
    // Enums that differ by one value stay two types.
    assert!(models.contains("pub enum FlowStateKind"));
    assert!(models.contains("pub enum FlowNextStateKind"));
}

/// The answers of two operations written inline alike: one type named by its shape (no
/// title), or by its title, never after one of the operations; each operation's own name
/// is an alias, and each method returns the shared type.
#[test]
fn a_merged_type_is_named_by_its_title_or_its_shape_not_by_a_stranger() {
    let spec = r#"
openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: get_a
      responses:
        "404":
          description: missing
          content:
            application/json:
              schema: {type: object, properties: {message: {type: string}}}
        "200":
          description: ok
          content:
            application/json:
              schema: {title: Page Info, type: object, properties: {next: {type: string}, total: {type: integer}}}
  /b:
    put:
      operationId: put_b
      responses:
        "404":
          description: missing
          content:
            application/json:
              schema: {type: object, properties: {message: {type: string}}}
        "200":
          description: ok
          content:
            application/json:
              schema: {title: Page Info, type: object, properties: {next: {type: string}, total: {type: integer}}}
"#;
    let generated = codegen::generate_str("t.yaml", spec, "t.yaml").unwrap();
    let file = |name: &str| {
        generated
            .files
            .iter()
            .find(|f| f.path == name)
            .unwrap()
            .contents
            .clone()
    };
    let models = file("models.rs");
    assert!(models.contains("pub struct MessageBody {"), "{models}");
    assert!(models.contains("pub struct PageInfo {"), "{models}");
    for (alias, target) in [
        ("GetANotFoundBody", "MessageBody"),
        ("PutBNotFoundBody", "MessageBody"),
        ("GetAOkBody", "PageInfo"),
        ("PutBOkBody", "PageInfo"),
    ] {
        assert!(
            models.contains(&format!("pub type {alias} = {target};")),
            "{alias}: {models}"
        );
    }
    let client = file("client.rs");
    assert!(
        !client.contains("GetAOkBody") && !client.contains("GetANotFoundBody"),
        "{client}"
    );
    for method in ["get_a", "put_b"] {
        let signature = client
            .split(&format!("pub async fn {method}("))
            .nth(1)
            .unwrap();
        let returns = signature.split('{').next().unwrap();
        assert!(
            returns.contains("crate::models::PageInfo"),
            "{method}: {returns}"
        );
    }
    assert!(
        client.contains("NotFound(crate::models::MessageBody)"),
        "{client}"
    );
}

#[test]
fn the_shared_names_are_the_same_on_every_run() {
    let first = models();
    for _ in 0..5 {
        assert_eq!(models(), first);
    }
}
