//! A spec with several `$ref`s that point at nothing is refused with every one of them
//! named, each at its node and line, not only the first.

#[test]
fn every_dangling_reference_is_reported_in_one_run() {
    let name = "tests/specs/bad/dangling_refs.yaml";
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name))
        .unwrap();
    let err = codegen::generate_str(name, &text, name).unwrap_err();
    let codegen::Error::Specs(problems) = &err else {
        panic!("expected every dangling $ref, got: {err}");
    };
    let found: Vec<(Option<usize>, &str)> = problems
        .iter()
        .map(|p| (p.line, p.pointer.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (Some(25), "/components/schemas/Pet/properties/owner/$ref"),
            (
                Some(26),
                "/components/schemas/Pet/properties/tags/items/$ref"
            ),
            (Some(13), "/paths/~1a/get/parameters/0/$ref"),
            (
                Some(19),
                "/paths/~1a/get/responses/200/content/application~1json/schema/$ref"
            ),
        ]
    );
    assert_eq!(err.to_string().lines().count(), 4, "{err}");
}
