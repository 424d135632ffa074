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

/// With `dangling_refs_as_any`, a schema `$ref` that points at nothing is any JSON value,
/// with one warning at each reference, and the crate is generated.
#[test]
fn dangling_schema_references_can_be_read_as_any_value() {
    let name = "tests/specs/options/dangling_refs.yaml";
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name))
        .unwrap();
    match codegen::generate_str(name, &text, name) {
        Err(codegen::Error::Specs(problems)) => assert_eq!(problems.len(), 2, "{problems:?}"),
        other => panic!("expected both references refused, got {other:?}"),
    }
    let options = codegen::Options {
        dangling_refs_as_any: true,
        ..codegen::Options::default()
    };
    let generated = codegen::generate_str_with(name, &text, name, &options).unwrap();
    let warnings: Vec<String> = generated.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "tests/specs/options/dangling_refs.yaml:25: at /components/schemas/Pet/properties/owner/$ref: $ref `#/components/schemas/Person` points at no schema of `components.schemas`; read as any JSON value (`serde_json::Value`), as `--dangling-refs-as-any` asks",
            "tests/specs/options/dangling_refs.yaml:26: at /components/schemas/Pet/properties/toy/$ref: $ref `#/components/schemas/Toy` points at no schema of `components.schemas`; read as any JSON value (`serde_json::Value`), as `--dangling-refs-as-any` asks",
        ]
    );
    let models = &generated
        .files
        .iter()
        .find(|f| f.path == "models.rs")
        .unwrap()
        .contents;
    assert!(
        models.contains("pub owner: Option<serde_json::Value>,"),
        "{models}"
    );
}

/// A reference inside `prefixItems` (a tuple's item) is checked with every other, in
/// the same run.
#[test]
fn a_dangling_reference_in_prefix_items_is_reported() {
    let spec = r##"
openapi: 3.1.0
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    Pair:
      type: object
      properties:
        a: {$ref: "#/components/schemas/Gone"}
        b:
          type: array
          prefixItems: [{type: string}, {$ref: "#/components/schemas/Missing"}]
          minItems: 2
          maxItems: 2
"##;
    let err = codegen::generate_str("t.yaml", spec, "t.yaml").unwrap_err();
    let codegen::Error::Specs(problems) = &err else {
        panic!("expected both dangling $refs, got: {err}");
    };
    let pointers: Vec<&str> = problems.iter().map(|p| p.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/components/schemas/Pair/properties/a/$ref",
            "/components/schemas/Pair/properties/b/prefixItems/1/$ref"
        ]
    );
}

/// References inside a parameter's `content` schema (which the spec model keeps as JSON),
/// nested in it, in a component parameter, in a body's extra properties and in an
/// answer's `allOf`: all named in one run, and all read as any JSON value with
/// `dangling_refs_as_any`, so the crate is generated (the compile test builds it).
#[test]
fn dangling_references_in_every_schema_place_are_named_and_freed() {
    let name = "tests/specs/bad/dangling_refs_in_content.yaml";
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
    let expected = [
        (
            Some(57),
            "/components/parameters/Where/content/application~1json/schema/$ref",
        ),
        (
            Some(17),
            "/paths/~1things/parameters/0/content/application~1json/schema/$ref",
        ),
        (
            Some(28),
            "/paths/~1things/get/parameters/0/content/application~1json/schema/properties/by/$ref",
        ),
        (
            Some(38),
            "/paths/~1things/get/responses/200/content/application~1json/schema/items/allOf/0/$ref",
        ),
        (
            Some(47),
            "/paths/~1things/post/requestBody/content/application~1json/schema/additionalProperties/$ref",
        ),
    ];
    assert_eq!(found, expected);

    let options = codegen::Options {
        dangling_refs_as_any: true,
        ..codegen::Options::default()
    };
    let generated = codegen::generate_str_with(name, &text, name, &options).unwrap();
    let freed: Vec<(Option<usize>, &str)> = generated
        .warnings
        .iter()
        .filter(|w| w.kind == codegen::WarningKind::DanglingRef)
        .map(|w| (w.problem.line, w.problem.pointer.as_str()))
        .collect();
    assert_eq!(freed, expected);
    assert!(generated.left_out.is_empty(), "{:?}", generated.left_out);
}

/// A response header's `$ref` to `components.headers` that names nothing is refused as
/// a parameter's is, beside a header schema's dangling `$ref` (in an operation's answer
/// and in a component header), all in one run; with `dangling_refs_as_any` the schema
/// references are read as any JSON value and the header reference stays an error.
#[test]
fn dangling_references_of_response_headers_are_reported() {
    let spec = r##"
openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      responses:
        "200":
          description: ok
          headers:
            X-Gone: {$ref: "#/components/headers/Gone"}
            X-Kind: {schema: {$ref: "#/components/schemas/Kind"}}
            X-Here: {$ref: "#/components/headers/Here"}
components:
  headers:
    Here: {schema: {$ref: "#/components/schemas/Missing"}}
"##;
    let err = codegen::generate_str("t.yaml", spec, "t.yaml").unwrap_err();
    let codegen::Error::Specs(problems) = &err else {
        panic!("expected every dangling $ref, got: {err}");
    };
    let found: Vec<(&str, &str)> = problems
        .iter()
        .map(|p| (p.pointer.as_str(), p.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "/components/headers/Here/schema/$ref",
                "$ref `#/components/schemas/Missing` points at no schema of `components.schemas`"
            ),
            (
                "/paths/~1a/get/responses/200/headers/X-Gone/$ref",
                "$ref `#/components/headers/Gone` points at no header of `components.headers`"
            ),
            (
                "/paths/~1a/get/responses/200/headers/X-Kind/schema/$ref",
                "$ref `#/components/schemas/Kind` points at no schema of `components.schemas`"
            ),
        ]
    );
    let options = codegen::Options {
        dangling_refs_as_any: true,
        ..codegen::Options::default()
    };
    let err = codegen::generate_str_with("t.yaml", spec, "t.yaml", &options).unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.yaml:12: at /paths/~1a/get/responses/200/headers/X-Gone/$ref: $ref \
         `#/components/headers/Gone` points at no header of `components.headers`"
    );
}
