//! Identical inline schemas become one type (`tests/specs/shared_inline.yaml`), named by
//! the first use in spec order, the same on every run; schemas that differ stay apart.

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
    // `Variable.value` and `VariableCreate.value`: one type, named by the first.
    assert_eq!(
        models.matches("pub value: Option<VariableValue>,").count(),
        2,
        "{models}"
    );
    assert!(!models.contains("VariableCreateValue"), "{models}");
    // Four `labels` maps (three components and an inline request body), one value type.
    assert_eq!(
        models
            .matches("pub labels: Option<std::collections::BTreeMap<String, VariableLabelsValue>>")
            .count(),
        4,
        "{models}"
    );
    for gone in [
        "VariableCreateLabelsValue",
        "FlowLabelsValue",
        "CreateFlowBodyLabelsValue",
    ] {
        assert!(!models.contains(gone), "{gone}");
    }
    // Enums that differ by one value stay two types.
    assert!(models.contains("pub enum FlowStateKind"));
    assert!(models.contains("pub enum FlowNextStateKind"));
}

#[test]
fn the_shared_names_are_the_same_on_every_run() {
    let first = models();
    for _ in 0..5 {
        assert_eq!(models(), first);
    }
}
