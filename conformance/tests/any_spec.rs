//! The harness on specs nobody here wrote: operations without `operationId` are called by
//! the generator's names, a problem confined to one operation leaves only that operation
//! out (with its pointer, line and reason, in the header and the JSON report), every
//! document of the generator's corpus loads, and `--spec FILE --base-url URL` alone runs
//! against a stub of `tests/any_spec/unnamed.yaml` with no word of the built-in spec's
//! domain in its output, reports or `--help`.

use std::path::PathBuf;
use std::process::Command;

use axum::Json;
use axum::Router;
use axum::extract::Path as UrlPath;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use conformance::spec::{Location, Spec};
use serde_json::{Value, json};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn unnamed() -> PathBuf {
    manifest().join("tests/any_spec/unnamed.yaml")
}

#[test]
fn operations_without_operation_id_take_the_generator_s_names_and_problems_leave_one_out() {
    let spec = Spec::load(&unnamed()).expect("the spec loads");
    let ids: Vec<&str> = spec.operations.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(
        ids,
        ["get_items", "post_items", "get_items_pk", "get_cookie"]
    );
    // A cookie is a parameter like any other; a JSON `content` parameter goes as a JSON
    // text.
    let params: Vec<(&str, Location, Option<&str>)> = spec.operations[0]
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.location, p.media.as_deref()))
        .collect();
    assert_eq!(
        params,
        [
            ("session", Location::Cookie, None),
            ("where", Location::Query, Some("application/json"))
        ]
    );
    let left: Vec<(&str, &str, &str)> = spec
        .left_out
        .iter()
        .map(|l| (l.operation.as_str(), l.pointer.as_str(), l.message.as_str()))
        .collect();
    assert_eq!(
        left,
        [
            (
                "GET /stray",
                "/paths/~1stray/get/parameters/0/name",
                "path parameter `pk` does not appear in the path `/stray`"
            ),
            (
                "GET /dangling-parameter",
                "/paths/~1dangling-parameter/get/parameters/0/$ref",
                "$ref `#/components/parameters/Missing` points at no parameter of \
                 `components.parameters`"
            ),
            (
                "PUT /dangling-body",
                "/components/schemas/Line/properties/product/$ref",
                "$ref `#/components/schemas/Product` points at no node of the document \
                 (reached from \
                 /paths/~1dangling-body/put/requestBody/content/application~1json/schema)"
            ),
            (
                "GET /dangling-response",
                "/paths/~1dangling-response/get/responses/200/$ref",
                "$ref `#/components/responses/Missing` points at no response of \
                 `components.responses`"
            ),
            (
                "GET /content",
                "/paths/~1content/get/parameters/0/content",
                "parameter `filter` is described by `content`, which the harness cannot build \
                 a value for; use `schema`"
            ),
            (
                "DELETE /twice/{a}",
                "/paths/~1twice~1{a}/delete/parameters/0/name",
                "path parameter `b` does not appear in the path `/twice/{a}`"
            ),
            (
                "DELETE /twice/{a}",
                "/paths/~1twice~1{a}",
                "the path names `{a}`, which no path parameter declares"
            ),
            (
                "DELETE /twice/{a}",
                "/paths/~1twice~1{a}/delete/requestBody/content/application~1json/schema/$ref",
                "$ref `#/components/schemas/Nowhere` points at no node of the document"
            ),
        ]
    );
    // Each problem points at its line of the file.
    let text = std::fs::read_to_string(unnamed()).unwrap();
    for l in &spec.left_out {
        let line = l.line.expect("every problem is located");
        let at = text.lines().nth(line - 1).unwrap();
        let last = l.pointer.rsplit('/').next().unwrap().replace("~1", "/");
        let last = last.trim_start_matches('$');
        assert!(at.contains(last), "{l}: line {line} is `{at}`");
    }
}

#[test]
fn a_spec_without_a_usable_operation_is_refused_with_every_problem() {
    let text = r##"
openapi: 3.0.2
info: { title: t, version: "1" }
paths:
  /a/{id}:
    get:
      responses: { "200": { description: ok } }
  /b:
    post:
      requestBody: { content: { application/json: { schema: { $ref: "#/components/schemas/X" } } } }
      responses: { "204": { description: ok } }
"##;
    let err = Spec::parse(text).unwrap_err().to_string();
    assert!(
        err.contains("no operation of the spec can be used; 2 problem(s)"),
        "{err}"
    );
    assert!(err.contains("GET /a/{id}: at /paths/~1a~1{id}"), "{err}");
    assert!(
        err.contains(
            "POST /b: at /paths/~1b/post/requestBody/content/application~1json/schema/$ref"
        ),
        "{err}"
    );
}

/// The harness calls an operation without `operationId` by the generated client's method
/// name: the two agree on a spec with several such operations, names that collide once
/// snake-cased, and a path that spells another's name.
#[test]
fn unnamed_operations_are_named_as_the_generator_names_them() {
    let text = r##"
openapi: 3.0.2
info: { title: t, version: "1" }
paths:
  /items:
    get: { responses: { "200": { description: ok } } }
    post: { responses: { "201": { description: ok } } }
  /items/{id}:
    parameters: [ { name: id, in: path, required: true, schema: { type: integer } } ]
    get: { responses: { "200": { description: ok } } }
    put: { operationId: getItemsId, responses: { "204": { description: ok } } }
    delete: { operationId: " ", responses: { "204": { description: ok } } }
  /items-id:
    get: { responses: { "200": { description: ok } } }
  /items/{id}/tags:
    parameters: [ { name: id, in: path, required: true, schema: { type: integer } } ]
    get: { responses: { "200": { description: ok } } }
  /send:
    post: { operationId: send, responses: { "204": { description: ok } } }
  /:
    get: { responses: { "200": { description: ok } } }
"##;
    let spec = Spec::parse(text).unwrap();
    assert!(spec.left_out.is_empty(), "{:?}", spec.left_out);
    let model = spec_model::parse(&spec_model::Source {
        name: "t.yaml".into(),
        text: text.into(),
    })
    .unwrap();
    let (api, _) = codegen::lower::lower(&model).unwrap();
    let generated: Vec<(String, String, String)> = api
        .operations
        .iter()
        .map(|o| {
            (
                format!("{:?}", o.method).to_ascii_uppercase(),
                o.path_template.clone(),
                o.name.clone(),
            )
        })
        .collect();
    let ours: Vec<(String, String, String)> = spec
        .operations
        .iter()
        .map(|o| (o.method.clone(), o.path.clone(), o.id.clone()))
        .collect();
    // Named operations keep their operationId in the harness; the rest agree.
    let named = ["getItemsId", "send"];
    for (g, o) in generated.iter().zip(&ours) {
        assert_eq!((&g.0, &g.1), (&o.0, &o.1));
        if !named.contains(&o.2.as_str()) {
            assert_eq!(g.2, o.2, "{} {}", o.0, o.1);
        }
    }
    assert_eq!(generated.len(), ours.len());
    let ids: Vec<&str> = ours.iter().map(|o| o.2.as_str()).collect();
    assert_eq!(
        ids,
        [
            "get_items",
            "post_items",
            "get_items_id",
            "getItemsId",
            "delete_items_id",
            "get_items_id3",
            "get_items_id_tags",
            "send",
            "get"
        ]
    );
}

/// A reused `operationId` (which OpenAPI forbids and real documents do) leaves no
/// operation out: the first keeps its id, each later one is called by the method the
/// generator gives it (its `duplicate-operation-id` warning names it), also where an
/// operation's own id spells that number.
#[test]
fn duplicated_operation_ids_are_named_as_the_generator_names_them() {
    let text = r##"
openapi: 3.0.3
info: { title: t, version: "1" }
paths:
  /x:
    get: { operationId: getThing, responses: { "204": { description: ok } } }
  /y:
    get: { operationId: getThing, responses: { "204": { description: ok } } }
    post: { operationId: getThing, responses: { "204": { description: ok } } }
  /z:
    get: { operationId: get_thing2, responses: { "204": { description: ok } } }
"##;
    let spec = Spec::parse(text).unwrap();
    assert!(spec.left_out.is_empty(), "{:?}", spec.left_out);
    let ids: Vec<&str> = spec.operations.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(ids, ["getThing", "get_thing2", "get_thing3", "get_thing22"]);
    let generated = codegen::generate_str("t.yaml", text, "t.yaml").unwrap();
    let client = &generated
        .files
        .iter()
        .find(|f| f.path == "client.rs")
        .unwrap()
        .contents;
    // The first keeps its operationId in the harness; the rest are the client's methods.
    for method in ["get_thing", "get_thing2", "get_thing3", "get_thing22"] {
        assert!(
            client.contains(&format!("pub async fn {method}(")),
            "no method {method}"
        );
    }
    let warned: Vec<&str> = generated
        .warnings
        .iter()
        .filter(|w| w.kind == codegen::WarningKind::DuplicateOperationId)
        .map(|w| w.problem.message.as_str())
        .collect();
    assert_eq!(warned.len(), 2, "{warned:?}");
    assert!(
        warned[0].ends_with("method is `get_thing2`"),
        "{}",
        warned[0]
    );
    assert!(
        warned[1].ends_with("method is `get_thing3`"),
        "{}",
        warned[1]
    );
}

/// A spec split over files (the generator's three-file focused spec) loads as one, its
/// operations named as in the one-file equivalent.
#[test]
fn a_spec_split_over_files_loads_as_one() {
    let dir = manifest().join("../codegen/tests/specs/multi_file");
    let split = Spec::load(&dir.join("openapi.yaml")).unwrap_or_else(|e| panic!("{e}"));
    let one = Spec::load(&dir.join("one_file.yaml")).unwrap();
    let ids = |s: &Spec| {
        s.operations
            .iter()
            .map(|o| o.id.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&split), ["listPets", "getPet"]);
    assert_eq!(ids(&split), ids(&one));
    assert!(split.left_out.is_empty(), "{:?}", split.left_out);
}

/// Every document of the generator's corpus loads (operations it cannot use would be left
/// out with a located reason, never the whole document): how many operations each gives
/// and how many problems leave some out. All of them name every operation; the
/// third-party shape the harness refused before (no operationId, a stray path parameter,
/// a dangling `$ref`) is `any_spec/unnamed.yaml`.
#[test]
fn every_corpus_document_loads() {
    let corpus = manifest().join("../codegen/tests/corpus");
    let table: &[(&str, usize, usize)] = &[
        ("api.github.com.json", 767, 0),
        ("buildomat.json", 21, 0),
        ("cli-gen.json", 1, 0),
        ("jupyter-server-2.21.1-api.yaml", 32, 0),
        ("keeper.json", 6, 0),
        ("kinto-26.5.0-api.json", 44, 0),
        ("nexus.json", 193, 0),
        ("param-collision.json", 1, 0),
        ("param-overrides.yaml", 1, 0),
        ("propolis-server.json", 7, 0),
        ("tradovate-openapi-2026-08-21.json", 350, 0),
    ];
    let mut on_disk: Vec<String> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") || n.ends_with(".yaml"))
        .collect();
    on_disk.sort();
    let listed: Vec<&str> = table.iter().map(|(n, _, _)| *n).collect();
    assert_eq!(listed, on_disk, "list every corpus document here");
    let mut got = Vec::new();
    for (name, _, _) in table {
        let spec = Spec::load(&corpus.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        for l in &spec.left_out {
            assert!(l.line.is_some(), "{name}: {l} has no line");
        }
        got.push((*name, spec.operations.len(), spec.left_out.len()));
    }
    assert_eq!(got, table);
}

// ---- A run against a stub of `unnamed.yaml`, through the binary. ----

async fn item(UrlPath(pk): UrlPath<String>) -> Response {
    match pk.parse::<i64>() {
        Ok(1) => Json(json!({ "pk": 1, "name": "first" })).into_response(),
        _ => (
            StatusCode::NOT_FOUND,
            Json(json!({ "detail": "Not found." })),
        )
            .into_response(),
    }
}

/// Serves the four usable operations of `unnamed.yaml` under `/api`; returns the base URL.
async fn serve() -> String {
    let app = Router::new()
        .route(
            "/api/items",
            get(|| async { Json(json!([{ "pk": 1, "name": "first" }])) }).post(
                |Json(body): Json<Value>| async move {
                    let name = body.get("name").and_then(Value::as_str).map(str::to_owned);
                    match (body.get("pk").and_then(Value::as_i64), name) {
                        (Some(pk), Some(name)) => {
                            (StatusCode::CREATED, Json(json!({ "pk": pk, "name": name })))
                                .into_response()
                        }
                        _ => (
                            StatusCode::BAD_REQUEST,
                            Json(json!({ "detail": "invalid" })),
                        )
                            .into_response(),
                    }
                },
            ),
        )
        .route("/api/items/{pk}", get(item))
        // 200 only with the required cookie: a run that left it out would fail here.
        .route(
            "/api/cookie",
            get(|headers: axum::http::HeaderMap| async move {
                let sent = headers
                    .get("cookie")
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|c| c.split("; ").any(|kv| kv.starts_with("csrftoken=")));
                if sent {
                    StatusCode::OK.into_response()
                } else {
                    (StatusCode::BAD_REQUEST, "no csrftoken cookie").into_response()
                }
            }),
        )
        .fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                Json(json!({ "detail": "Not found." })),
            )
        });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/api")
}

/// Words of the built-in spec's domain that a run on another spec must not print.
const DOMAIN_WORDS: &[&str] = &[
    "trading",
    "platform",
    "contact",
    "categor",
    "risk",
    "scope",
    "exchangeToken",
    "suggestRiskCategories",
    "listCategoryPositionLimits",
    "getCategoryPositionLimit",
    "findExchangeScopes",
    "updateContactInfoName",
];

fn domain_words_in(text: &str, extra: &[&str]) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    DOMAIN_WORDS
        .iter()
        .chain(extra)
        .filter(|w| lower.contains(&w.to_ascii_lowercase()))
        .map(|w| (*w).to_owned())
        .collect()
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_conformance"));
    for (k, _) in std::env::vars() {
        if k.starts_with("CONFORMANCE_") {
            c.env_remove(k);
        }
    }
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spec_and_base_url_alone_run_and_speak_only_of_that_spec() {
    let base = serve().await;
    let dir = tempfile::tempdir().unwrap();
    let path = |f: &str| dir.path().join(f);
    let (json, junit, html) = (path("r.json"), path("r.xml"), path("r.html"));
    let record = path("record.json");
    let mut cmd = bin();
    cmd.arg("--spec")
        .arg(unnamed())
        .args(["--base-url", &base, "--timeout", "5"])
        .arg("--json")
        .arg(&json)
        .arg("--junit")
        .arg(&junit)
        .arg("--html")
        .arg(&html)
        .arg("--record")
        .arg(&record);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // It ran: the target was judged (exit 0 or 1), not refused as a configuration.
    assert!(
        matches!(out.status.code(), Some(0 | 1 | 3)),
        "{:?}\n{stdout}\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains("operations:  4 (6 left out for problems of the spec"),
        "{stdout}"
    );
    assert!(
        stdout.contains("contracts:   none (--contracts DIR adds contract files)"),
        "{stdout}"
    );
    // Printed once, in the header area.
    assert_eq!(
        stdout
            .matches("left out:    GET /stray: at /paths/~1stray/get/parameters/0/name")
            .count(),
        1,
        "{stdout}"
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let left = report["run"]["left_out"].as_array().expect("left_out kept");
    assert_eq!(left.len(), 8, "{left:?}");
    assert_eq!(left[0]["operation"], "GET /stray");
    assert_eq!(left[0]["pointer"], "/paths/~1stray/get/parameters/0/name");
    assert!(left[0]["line"].as_u64().is_some());
    let operations: Vec<&str> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["operation"].as_str())
        .collect();
    assert!(operations.contains(&"get_items_pk"), "{operations:?}");
    // The required cookie went out: the positive case got the 2xx the stub gives only
    // with it (and the case that leaves it out, its 400).
    let exchanges: Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let status_of = |case: &str| {
        exchanges
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["case"] == case)
            .map(|x| x["status"].clone())
    };
    assert_eq!(status_of("get_cookie/positive"), Some(json!(200)));
    assert_eq!(
        status_of("get_cookie/missing-param/csrftoken"),
        Some(json!(400))
    );
    // No word of the built-in spec's domain anywhere the user reads.
    for (what, text) in [
        ("stdout", stdout.to_string()),
        ("stderr", stderr.to_string()),
        ("json", std::fs::read_to_string(&json).unwrap()),
        ("junit", std::fs::read_to_string(&junit).unwrap()),
        ("html", std::fs::read_to_string(&html).unwrap()),
    ] {
        let found = domain_words_in(&text, &["oauth", "reference server"]);
        assert!(found.is_empty(), "{what} speaks of {found:?}:\n{text}");
    }
}

#[test]
fn help_describes_the_harness_in_general() {
    let out = bin().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    let found = domain_words_in(&help, &[]);
    assert!(found.is_empty(), "--help speaks of {found:?}:\n{help}");
    assert!(help.contains("OpenAPI"), "{help}");
}

/// The built-in contract files need the operations they name: on a spec that has them all
/// they apply and the header says so; `--spec` without `--base-url` on another spec is a
/// configuration error rather than a run against the built-in spec's reference server.
/// A target that answers `404` to each of its next `n` connections, then stops: enough
/// for a run to find it there and judge nothing of it.
fn answering_404(n: usize) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(n) {
            let Ok(mut s) = stream else { continue };
            let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(2)));
            let mut buf = [0u8; 8192];
            let _ = s.read(&mut buf);
            let _ = s.write_all(
                b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
        }
    });
    base
}

#[test]
fn built_in_contracts_follow_the_operations_they_name() {
    let base = answering_404(200);
    let out = bin()
        .arg("--spec")
        .arg(manifest().join("../spec/openapi.yaml"))
        .args(["--base-url", &base, "--timeout", "0.2"])
        .args(["--operation", "exchangeToken", "--quiet"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("contracts:   5 built in (the spec has every operation they name)"),
        "{stdout}"
    );
    // A spec with those operations that the files do not fit (a parameter renamed): the
    // files are left out with the reason, not the run.
    let dir = tempfile::tempdir().unwrap();
    let edited = dir.path().join("edited.yaml");
    let text = std::fs::read_to_string(manifest().join("../spec/openapi.yaml")).unwrap();
    assert_eq!(text.matches("        - name: l\n").count(), 1);
    std::fs::write(
        &edited,
        text.replace("        - name: l\n", "        - name: limit\n"),
    )
    .unwrap();
    let out = bin()
        .arg("--spec")
        .arg(&edited)
        .args(["--base-url", &base, "--timeout", "0.2"])
        .args(["--operation", "exchangeToken", "--quiet"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "contracts:   none: the built-in files do not fit the spec (conformance/contracts/"
        ),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("has no parameter l)"), "{stdout}");
    let out = bin().arg("--spec").arg(unnamed()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("needs --base-url"), "{stderr}");
}
