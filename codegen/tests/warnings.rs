//! Tolerated problems: generation goes on, and each warning names the line and pointer of
//! its node like an error does.

#[test]
fn an_unknown_string_format_is_a_located_warning() {
    let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/specs/warn/unknown_format.yaml");
    let text = std::fs::read_to_string(spec).unwrap();
    let name = "tests/specs/warn/unknown_format.yaml";
    let generated = codegen::generate_str(name, &text, name).unwrap();
    let warnings: Vec<String> = generated.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "tests/specs/warn/unknown_format.yaml:24: at /components/schemas/Host/properties/address/format: unknown string format `ip`: the value is a plain `String`, not checked against the format"
        ]
    );
    assert!(generated.files.iter().any(|f| f.path == "models.rs"));
}

/// Two schemes that both send `Authorization` in one requirement cannot go in one
/// request: that requirement is left out with a warning (an operation with no other is
/// left out of the client), never sent with two `Authorization` headers.
#[test]
fn schemes_that_all_send_authorization_in_one_requirement_are_met_by_whichever_is_set() {
    let name = "tests/specs/warn/two_authorizations.yaml";
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name))
        .unwrap();
    let generated = codegen::generate_str(name, &text, name).unwrap();
    let warnings: Vec<String> = generated.warnings.iter().map(ToString::to_string).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("/components/securitySchemes/user")
                && w.contains(
                    "combines `user` and `login`, which all send the `Authorization` header"
                )),
        "{warnings:#?}"
    );
    assert!(
        (generated.warnings.iter()).any(|w| w.kind == codegen::WarningKind::SharedAuthorization)
    );
    assert!(generated.left_out.is_empty(), "{:?}", generated.left_out);
    let client = &generated
        .files
        .iter()
        .find(|f| f.path == "client.rs")
        .unwrap()
        .contents;
    // A bearer token and basic credentials together: either, whichever the caller set.
    assert!(client.contains("pub async fn both("));
    assert!(
        client.contains("&[&[Scheme::User], &[Scheme::Login]]"),
        "{client}"
    );
    assert!(client.contains("pub async fn either("));
    assert!(
        client.contains("&[&[Scheme::User], &[Scheme::Login], &[Scheme::Partner]]"),
        "{client}"
    );
    // Two bearer-token schemes in one requirement: one token, whichever is set, with the
    // requirement's other scheme.
    assert!(
        client.contains("&[&[Scheme::User, Scheme::Key], &[Scheme::Partner, Scheme::Key]]"),
        "{client}"
    );
}

/// Operations real documents describe loosely are generated, each with a warning: a
/// path parameter described by `content` of any media type (sent as text), a body
/// naming no media type (none sent), a path item given by `$ref` to another (its
/// operations under the second path, numbered as repeats).
#[test]
fn loosely_described_operations_are_generated_with_a_warning() {
    let name = "tests/specs/warn/loose_operations.yaml";
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name))
        .unwrap();
    let generated = codegen::generate_str(name, &text, name).unwrap();
    assert!(generated.left_out.is_empty(), "{:?}", generated.left_out);
    let client = &generated
        .files
        .iter()
        .find(|f| f.path == "client.rs")
        .unwrap()
        .contents;
    for method in [
        "get_report",
        "delete_report",
        "get_status",
        "get_status2",
        "list_payments",
    ] {
        assert!(
            client.contains(&format!("pub async fn {method}(")),
            "{method}"
        );
    }
    assert!(
        client.contains("\"/support/status\""),
        "the second path is called"
    );
    let delete = client.split("pub async fn delete_report(").nth(1).unwrap();
    let delete = delete.split("pub async fn").next().unwrap();
    assert!(!delete.contains("body"), "no body argument: {delete}");
}

/// Every reused `operationId` is named in one run, each at its node, and no operation is
/// lost: later ones take the next free number of the first one's method name, in
/// document order; `--deny-warnings` still refuses the spec unless the kind is allowed.
#[test]
fn duplicated_operation_ids_are_all_named_and_numbered() {
    let name = "tests/specs/warn/duplicate_operation_id.yaml";
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name))
        .unwrap();
    let generated = codegen::generate_str(name, &text, name).unwrap();
    let at: Vec<(Option<usize>, &str)> = generated
        .warnings
        .iter()
        .map(|w| (w.problem.line, w.problem.pointer.as_str()))
        .collect();
    assert_eq!(
        at,
        [
            (Some(16), "/paths/~1y/get/operationId"),
            (Some(20), "/paths/~1y/post/operationId")
        ]
    );
    let client = &generated
        .files
        .iter()
        .find(|f| f.path == "client.rs")
        .unwrap()
        .contents;
    let methods: Vec<&str> = client
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub async fn "))
        .map(|l| l.split('(').next().unwrap())
        .collect();
    assert_eq!(
        methods,
        ["get_thing", "get_thing2", "get_thing3", "get_thing22"]
    );
    assert!(generated.left_out.is_empty());
    assert_eq!(generated.denied(&[]).len(), 2);
    assert!(
        generated
            .denied(&[codegen::WarningKind::DuplicateOperationId])
            .is_empty()
    );
}

/// The summary that closes a run's warnings names every operation left out of the
/// client, so none is lost among the other warnings (a real spec had one such line among
/// 336 warnings for 106 operations).
#[test]
fn the_summary_names_every_operation_left_out() {
    let summary = |name: &str| {
        let text =
            std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name))
                .unwrap();
        codegen::generate_str(name, &text, name).unwrap().summary()
    };
    assert_eq!(
        summary("tests/specs/media_types.yaml").as_deref(),
        Some("2 warnings")
    );
    assert_eq!(
        summary("tests/specs/warn/undeclared_path_param.yaml").as_deref(),
        Some("1 warning")
    );
    assert_eq!(
        summary("tests/specs/warn/http_digest.yaml").as_deref(),
        Some("1 warning; 1 operation left out of the client: GET /a")
    );
    assert_eq!(
        summary("tests/specs/warn/warts.yaml").as_deref(),
        Some("7 warnings")
    );
    assert_eq!(summary("tests/specs/optional_required.yaml"), None);
}

/// Each warning's kind is named where it is raised, not read off its text, so a site
/// that names the wrong kind would go unseen by the snapshots, which pin the texts only.
/// This pins, spec by spec, how many warnings of each kind the test specs and the corpus
/// give. No spec here gives `union`, `default-mismatch`, `server-url` or `business-error`
/// warnings.
#[test]
fn every_warning_of_the_test_specs_has_its_kind() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut specs = Vec::new();
    // The refused specs of `bad/` too: with `--dangling-refs-as-any` some generate.
    for dir in ["specs", "specs/warn", "specs/bad", "corpus"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "json")
            ) {
                specs.push((path, dir == "specs/bad"));
            }
        }
    }
    let mut counts = std::collections::BTreeMap::new();
    for (path, bad) in &specs {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let options = codegen::Options {
            dangling_refs_as_any: *bad,
            ..codegen::Options::default()
        };
        let Ok(generated) = codegen::generate_str_with(&name, &text, &name, &options) else {
            assert!(bad, "{name} does not generate");
            continue;
        };
        for w in &generated.warnings {
            *counts.entry((name.clone(), w.kind.name())).or_insert(0) += 1;
        }
    }
    let counts: Vec<String> = counts
        .into_iter()
        .map(|((spec, kind), n)| format!("{spec} {kind} {n}"))
        .collect();
    let expected = [
        "corpus/api.github.com.json example-mismatch 1",
        "corpus/api.github.com.json free-form-object 11",
        "corpus/api.github.com.json untyped-list 8",
        "corpus/api.github.com.json untyped-schema 9",
        "corpus/buildomat.json no-responses 1",
        "corpus/cli-gen.json no-responses 1",
        "corpus/jupyter-server-2.21.1-api.yaml example-mismatch 1",
        "corpus/jupyter-server-2.21.1-api.yaml free-form-object 3",
        "corpus/jupyter-server-2.21.1-api.yaml swagger2 1",
        "corpus/jupyter-server-2.21.1-api.yaml unknown-format 8",
        "corpus/kinto-26.5.0-api.json free-form-object 111",
        "corpus/kinto-26.5.0-api.json swagger2 1",
        "corpus/kinto-26.5.0-api.json untyped-schema 255",
        "corpus/nexus.json unknown-format 7",
        "corpus/nexus.json untyped-schema 1",
        "corpus/tradovate-openapi-2026-08-21.json free-form-object 3",
        "specs/any_json.yaml free-form-object 3",
        "specs/any_json.yaml untyped-list 1",
        "specs/any_json.yaml untyped-schema 2",
        "specs/bad/dangling_refs_in_content.yaml dangling-ref 5",
        "specs/bad/dangling_refs_in_content.yaml free-form-object 1",
        "specs/bad/missing_ref.yaml dangling-ref 1",
        "specs/fastapi_mini.yaml free-form-object 2",
        "specs/fastapi_mini.yaml stray-path-parameter 1",
        "specs/list_encodings.yaml deep-object-list 1",
        "specs/list_encodings.yaml query-json-list 2",
        "specs/media_types.yaml unsupported-media-type 2",
        "specs/negotiation.yaml accept-parameter 1",
        "specs/nullable_30.yaml untyped-schema 1",
        "specs/patterns.yaml unchecked-pattern 1",
        "specs/query_objects.yaml deep-object-value 1",
        "specs/schemas.yaml free-form-object 1",
        "specs/schemas.yaml untyped-schema 1",
        "specs/security.yaml operation-left-out 1",
        "specs/security.yaml unsupported-security 2",
        "specs/shared_inline.yaml free-form-object 2",
        "specs/shared_inline.yaml untyped-schema 2",
        "specs/swagger2.yaml swagger2 1",
        "specs/tuples.yaml untyped-list 1",
        "specs/warn/duplicate_operation_id.yaml duplicate-operation-id 2",
        "specs/warn/http_digest.yaml operation-left-out 1",
        "specs/warn/invalid_schemes.yaml operation-left-out 1",
        "specs/warn/invalid_schemes.yaml unsupported-security 3",
        "specs/warn/loose_operations.yaml duplicate-operation-id 1",
        "specs/warn/loose_operations.yaml unsupported-media-type 2",
        "specs/warn/loose_operations.yaml unsupported-security 1",
        "specs/warn/prose.yaml prose 22",
        "specs/warn/schema_warts.yaml example-mismatch 3",
        "specs/warn/schema_warts.yaml ref-siblings 2",
        "specs/warn/two_authorizations.yaml shared-authorization 1",
        "specs/warn/two_authorizations.yaml shared-bearer-token 1",
        "specs/warn/undeclared_path_param.yaml undeclared-path-parameter 1",
        "specs/warn/unknown_format.yaml unknown-format 1",
        "specs/warn/warts.yaml duplicate-tag 1",
        "specs/warn/warts.yaml no-responses 1",
        "specs/warn/warts.yaml prose 5",
    ];
    assert_eq!(counts, expected);
}
