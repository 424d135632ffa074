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

/// The signature of `pub async fn NAME(` up to its closing parenthesis, on one line.
fn signature(client: &str, name: &str) -> String {
    let rest = client
        .split(&format!("pub async fn {name}("))
        .nth(1)
        .unwrap_or_else(|| panic!("`{name}` is generated"));
    rest[..rest.find(')').unwrap()]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `Call` of method `name`: what its `accept` is.
fn accept_of<'a>(client: &'a str, name: &str) -> &'a str {
    let call = client
        .split(&format!("operation: \"{name}\","))
        .nth(1)
        .unwrap_or_else(|| panic!("`{name}` has a call"));
    let accept = &call[call.find("accept: \"").unwrap() + "accept: \"".len()..];
    &accept[..accept.find('"').unwrap()]
}

/// An `accept` header parameter with JSON and `text/plain`, both documented on the
/// `200`: the JSON method asks for JSON only and a text twin asks for the text; no
/// parameter is left without a method, and no warning is needed.
#[test]
fn an_accept_parameter_gives_a_text_twin() {
    let generated = generate();
    let client = file(&generated, "client.rs");
    assert_eq!(signature(client, "get_source"), "&self,");
    assert_eq!(accept_of(client, "get_source"), "application/json");
    assert!(client.contains(
        "pub async fn get_source_text(\n        &self,\n    ) -> Result<crate::Response<String>, crate::Error<GetSourceError>>"
    ));
    assert_eq!(accept_of(client, "get_source_text"), "text/plain");
    let warnings = warnings(&generated);
    assert!(
        !warnings.iter().any(|w| w.contains("~1source")),
        "{warnings:#?}"
    );
}

/// Content negotiation on `tests/specs/negotiation.yaml`: a binary media type gets a
/// bytes twin, `accept` values no response lists still get a twin each (two of one
/// kind are named by subtype), error media types stay out of a twin's `Accept`, and a
/// free `accept` beside one kind of answer is a warning, not a silent drop.
#[test]
fn negotiation_twins_and_their_accept() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/specs/negotiation.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let generated = codegen::generate_str("n.yaml", &text, "n.yaml").unwrap();
    let client = file(&generated, "client.rs");
    let methods: Vec<&str> = client
        .match_indices("pub async fn ")
        .map(|(i, m)| {
            let name = &client[i + m.len()..];
            &name[..name.find('(').unwrap()]
        })
        .collect();
    assert_eq!(
        methods,
        [
            "get_source",
            "get_source_text",
            "get_report",
            "get_report_bytes",
            "export",
            "export_csv",
            "export_tab_separated_values",
            "get_plain",
        ]
    );
    for (method, accept) in [
        ("get_source", "application/json"),
        ("get_source_text", "text/plain"),
        ("get_report", "application/json"),
        ("get_report_bytes", "application/pdf"),
        ("export", "application/json"),
        ("export_csv", "text/csv"),
        ("export_tab_separated_values", "text/tab-separated-values"),
        ("get_plain", "application/json"),
    ] {
        assert_eq!(accept_of(client, method), accept, "{method}");
    }
    assert!(client.contains("crate::Response<Vec<u8>>, crate::Error<GetReportError>"));
    let warnings = warnings(&generated);
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains(
            "at /paths/~1plain/get/parameters/0: header parameter `accept` takes any value"
        ),
        "{warnings:#?}"
    );
}

/// Which `servers` URLs give the client a path to join to the base URL: relative ones,
/// their variables at their defaults; absolute ones leave the base URL whole; one that
/// cannot be joined is a warning, not a guess.
#[test]
fn relative_server_urls_become_the_server_path() {
    let spec = |servers: &str| {
        format!(
            "openapi: 3.1.0\ninfo: {{title: t, version: \"1\"}}\nservers: {servers}\npaths: {{}}\n"
        )
    };
    for (servers, path) in [
        ("[{url: /api}]", Some("/api")),
        ("[{url: /api/}]", Some("/api")),
        ("[{url: ./api}]", Some("/api")),
        ("[{url: v1}]", Some("/v1")),
        (
            "[{url: '/api/{version}', variables: {version: {default: v2}}}]",
            Some("/api/v2"),
        ),
        // The first server is the one used.
        ("[{url: /api}, {url: /other}]", Some("/api")),
        ("[{url: 'https://api.example.com/v1'}]", None),
        ("[{url: /}]", None),
        ("[]", None),
    ] {
        let generated = codegen::generate_str("t.yaml", &spec(servers), "t.yaml").unwrap();
        let client = file(&generated, "client.rs");
        let constant = client
            .split("pub const SERVER_PATH: &'static str = \"")
            .nth(1)
            .map(|rest| &rest[..rest.find('"').unwrap()]);
        assert_eq!(constant, path, "{servers}");
        assert_eq!(warnings(&generated), Vec::<String>::new(), "{servers}");
    }
    for (servers, warning) in [
        (
            "[{url: '/api/{version}'}]",
            "server variable `version` has no `default`",
        ),
        ("[{url: '../api'}]", "a `.` or `..` segment"),
        ("[{url: '/api?x=1'}]", "a query or fragment"),
    ] {
        let generated = codegen::generate_str("t.yaml", &spec(servers), "t.yaml").unwrap();
        assert!(
            !file(&generated, "client.rs").contains("SERVER_PATH"),
            "{servers}"
        );
        let warnings = warnings(&generated);
        assert!(
            warnings.len() == 1 && warnings[0].contains(warning),
            "{servers}: {warnings:#?}"
        );
    }
}
