//! Two Swagger 2.0 documents are compared as their OpenAPI 3.0 equivalents (the spec
//! model converts them): a `collectionFormat` change is the encoding change it is in 3.0,
//! and a body parameter's schema is the request body's.

use spec_diff::Options;

const OLD: &str = r##"
swagger: "2.0"
info: { title: t, version: "1" }
paths:
  /pets:
    get:
      operationId: listPets
      parameters:
        - { name: tags, in: query, type: array, items: { type: string }, collectionFormat: csv }
        - { name: limit, in: query, type: integer }
      responses:
        "200": { description: ok, schema: { type: array, items: { $ref: "#/definitions/Pet" } } }
definitions:
  Pet: { type: object, properties: { name: { type: string } } }
"##;

fn source(name: &str, text: &str) -> spec_model::Source {
    spec_model::Source {
        name: name.to_owned(),
        text: text.to_owned(),
    }
}

#[test]
fn swagger_2_documents_are_compared_as_openapi_3() {
    let new = OLD
        .replace("collectionFormat: csv", "collectionFormat: multi")
        .replace(
            "{ name: limit, in: query, type: integer }",
            "{ name: limit, in: query, type: integer, required: true }",
        );
    assert_ne!(new, OLD);
    let report = spec_diff::diff(
        &source("old.yaml", OLD),
        &source("new.yaml", &new),
        &Options::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let rules: Vec<(&str, &str)> = report
        .findings
        .iter()
        .map(|f| (f.rule, f.pointer.as_str()))
        .collect();
    assert!(
        rules.contains(&(
            "request-parameter-encoding-changed",
            "/paths/~1pets/get/parameters/0"
        )),
        "{rules:?}"
    );
    assert!(
        rules
            .iter()
            .any(|(rule, _)| *rule == "request-parameter-became-required"),
        "{rules:?}"
    );
}
