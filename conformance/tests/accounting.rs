//! Everything the run creates is accounted for: removed through the key its delete takes,
//! or listed `NOT REMOVED` with what is known, in the terminal summary and in the JSON,
//! JUnit and HTML reports. An in-process stub (axum, on a loopback port the OS chooses)
//! holds "things" keyed by `thing_key` and can answer a create without a key, make records
//! it does not name (`POST /things/defaults`), or refuse every removal, which a real
//! application cannot be made to do on demand. Every run here has `--allow-writes`.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use conformance::outcome::Verdict;
use conformance::{Args, Outcome, execute};
use serde_json::{Value, json};

const SPEC: &str = r##"
openapi: 3.1.0
info: {title: Things service, version: "1.0"}
components:
  schemas:
    Thing:
      type: object
      properties:
        id: {type: integer}
        thing_key: {type: string}
        name: {type: string}
paths:
  /things:
    get:
      operationId: list_things
      responses:
        "200":
          description: every thing
          content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/Thing"}}}}
    post:
      operationId: create_thing
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object, required: [name], properties: {name: {type: string}}, additionalProperties: false}
            example: {name: made by the run}
      responses:
        "201":
          description: created
          content: {application/json: {schema: {$ref: "#/components/schemas/Thing"}}}
        "422": {description: malformed}
  /things/{thing_key}:
    parameters: [{name: thing_key, in: path, required: true, schema: {type: string}, example: seeded}]
    get:
      operationId: read_thing
      responses:
        "200":
          description: the thing
          content: {application/json: {schema: {$ref: "#/components/schemas/Thing"}}}
        "404": {description: no such thing}
    delete:
      operationId: delete_thing
      responses:
        "204": {description: deleted}
        "404": {description: no such thing}
        "500": {description: the store failed}
"##;

/// The spec with `POST /things/defaults`, which makes three things and names none.
fn with_defaults() -> String {
    SPEC.replace(
        "  /things/{thing_key}:",
        "  /things/defaults:\n    post:\n      operationId: make_default_things\n      responses:\n        \"204\": {description: the default things are made}\n  /things/{thing_key}:",
    )
}

/// The spec with `PUT /things`, which makes a thing (or would replace one of the same
/// name) and answers it.
fn with_put() -> String {
    SPEC.replace(
        "  /things/{thing_key}:",
        "  /things/replace:\n    put:\n      operationId: put_thing\n      requestBody:\n        required: true\n        content:\n          application/json:\n            schema: {type: object, required: [name], properties: {name: {type: string}}, additionalProperties: false}\n            example: {name: put by the run}\n      responses:\n        \"200\":\n          description: made or replaced\n          content: {application/json: {schema: {$ref: \"#/components/schemas/Thing\"}}}\n        \"422\": {description: malformed}\n  /things/{thing_key}:",
    )
}

/// How the stub answers a create, and a delete.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// `201 {"id": n, "thing_key": "k<n>", …}`; a delete removes the thing.
    Keyed,
    /// `201 {}`: the thing is made, and its key is not told.
    NoKey,
    /// As `Keyed`, but a delete answers 500 and keeps the thing.
    DeleteFails,
}

struct Stub {
    mode: Mode,
    /// The things held, by key.
    things: BTreeMap<String, String>,
    next: u32,
    /// Every request: method and path.
    log: Vec<(String, String)>,
    /// How many creates were answered 201.
    created: usize,
}

type Shared = Arc<Mutex<Stub>>;

async fn handle(
    axum::extract::State(stub): axum::extract::State<Shared>,
    method: Method,
    uri: Uri,
    body: String,
) -> Response {
    let mut s = stub.lock().unwrap();
    s.log.push((method.to_string(), uri.path().to_string()));
    let path = uri.path().trim_start_matches("/api");
    let json = |code: StatusCode, v: Value| {
        (code, [("content-type", "application/json")], v.to_string()).into_response()
    };
    match (method.as_str(), path) {
        ("GET", "/things") => json(
            StatusCode::OK,
            Value::Array(
                s.things
                    .iter()
                    .map(|(k, name)| json!({"thing_key": k, "name": name}))
                    .collect(),
            ),
        ),
        ("POST", "/things") => {
            let body: Option<Value> = serde_json::from_str(&body).ok();
            let Some(name) = body
                .as_ref()
                .filter(|b| b.as_object().is_some_and(|o| o.len() == 1))
                .and_then(|b| b.get("name")?.as_str().map(str::to_owned))
            else {
                return (StatusCode::UNPROCESSABLE_ENTITY, "{}").into_response();
            };
            s.next += 1;
            s.created += 1;
            let n = s.next;
            let key = format!("k{n}");
            s.things.insert(key.clone(), name.clone());
            match s.mode {
                Mode::NoKey => json(StatusCode::CREATED, json!({})),
                _ => json(
                    StatusCode::CREATED,
                    json!({"id": 1000 + n, "thing_key": key, "name": name}),
                ),
            }
        }
        ("PUT", "/things/replace") => {
            let Some(name) = serde_json::from_str::<Value>(&body)
                .ok()
                .filter(|b| b.as_object().is_some_and(|o| o.len() == 1))
                .and_then(|b| b.get("name")?.as_str().map(str::to_owned))
            else {
                return (StatusCode::UNPROCESSABLE_ENTITY, "{}").into_response();
            };
            s.next += 1;
            let key = format!("put-{}", s.next);
            s.things.insert(key.clone(), name.clone());
            json(StatusCode::OK, json!({"thing_key": key, "name": name}))
        }
        ("POST", "/things/defaults") => {
            for _ in 0..3 {
                s.next += 1;
                let key = format!("default-{}", s.next);
                s.things.insert(key, "a default thing".into());
            }
            StatusCode::NO_CONTENT.into_response()
        }
        (m, p) if p.starts_with("/things/") => {
            let key = p.trim_start_matches("/things/").to_string();
            match (m, s.things.contains_key(&key)) {
                ("GET", true) => json(
                    StatusCode::OK,
                    json!({"thing_key": key, "name": s.things[&key]}),
                ),
                ("DELETE", true) if s.mode == Mode::DeleteFails => {
                    json(StatusCode::INTERNAL_SERVER_ERROR, json!({"error": "store"}))
                }
                ("DELETE", true) => {
                    s.things.remove(&key);
                    StatusCode::NO_CONTENT.into_response()
                }
                ("GET" | "DELETE", false) => (StatusCode::NOT_FOUND, "{}").into_response(),
                _ => (
                    StatusCode::METHOD_NOT_ALLOWED,
                    [("allow", "GET, DELETE")],
                    "",
                )
                    .into_response(),
            }
        }
        _ => (StatusCode::NOT_FOUND, "{}").into_response(),
    }
}

/// Starts the stub holding one thing of the user's own, `seeded`.
async fn start(mode: Mode) -> (String, Shared) {
    let stub: Shared = Arc::new(Mutex::new(Stub {
        mode,
        things: [("seeded".to_string(), "the user's own".to_string())].into(),
        next: 0,
        log: Vec::new(),
        created: 0,
    }));
    let app = Router::new().fallback(handle).with_state(stub.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.ok();
    });
    (format!("http://{addr}/api"), stub)
}

/// A run with `--allow-writes` against `base` that writes every report into `dir`.
fn args(dir: &std::path::Path, spec: &str, base: &str) -> Args {
    let file = dir.join("spec.yaml");
    std::fs::write(&file, spec).unwrap();
    let contracts = dir.join("no-contracts");
    std::fs::create_dir_all(&contracts).unwrap();
    let mut a = common::embedded_args();
    a.spec = Some(file);
    a.contracts = Some(contracts);
    a.base_url = Some(base.to_string());
    a.allow_writes = true;
    a.json = Some(dir.join("report.json"));
    a.junit = Some(dir.join("report.xml"));
    a.html = Some(dir.join("report.html"));
    a
}

/// The reports of a run in `dir`: JSON (parsed), JUnit and HTML (as text).
struct Reports {
    json: Value,
    junit: String,
    html: String,
}

fn reports(dir: &std::path::Path) -> Reports {
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    Reports {
        json: serde_json::from_str(&read("report.json")).unwrap(),
        junit: read("report.xml"),
        html: read("report.html"),
    }
}

impl Reports {
    /// The `NOT REMOVED` results of the JSON report.
    fn not_removed(&self) -> Vec<&Value> {
        self.json["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| {
                r["case"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("cleanup/"))
                    && r["message"]
                        .as_str()
                        .is_some_and(|m| m.starts_with("NOT REMOVED"))
            })
            .collect()
    }

    /// Asserts that every `NOT REMOVED` message of the JSON report appears in the JUnit
    /// and HTML reports and in the terminal summary (each as that format escapes it).
    fn assert_listed_everywhere(&self, out: &Outcome) {
        let escape = |m: &str| {
            m.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
        };
        for r in self.not_removed() {
            let m = r["message"].as_str().unwrap();
            assert!(
                out.summary.contains(m),
                "terminal lacks {m}\n{}",
                out.summary
            );
            let in_xml = self.junit.contains(&escape(m)) || self.junit.contains(m);
            assert!(in_xml, "JUnit lacks {m}\n{}", self.junit);
            let in_html = self.html.contains(&escape(m))
                || self.html.contains(&escape(m).replace("&quot;", "\""))
                || self.html.contains(&m.replace('"', "&quot;"));
            assert!(in_html, "HTML lacks {m}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_answered_without_a_key_is_listed_not_removed_once_per_answer() {
    let (base, stub) = start(Mode::NoKey).await;
    let dir = tempfile::tempdir().unwrap();
    let out = execute(&args(dir.path(), SPEC, &base), Default::default())
        .await
        .expect("the run completes");
    let made = stub.lock().unwrap().created;
    assert!(made >= 2, "the run made {made} thing(s): {}", out.summary);
    let r = reports(dir.path());
    let entries = r.not_removed();
    let without: Vec<&&Value> = entries
        .iter()
        .filter(|e| {
            e["message"]
                .as_str()
                .is_some_and(|m| m.contains("answered 201 without an id"))
        })
        .collect();
    assert_eq!(
        without.len(),
        made,
        "one entry per answer without a key: {entries:#?}"
    );
    for e in &without {
        assert_eq!(e["got"]["status"], 201, "{e}");
        assert_eq!(e["got"]["body"], "{}", "{e}");
        assert!(
            e["message"].as_str().unwrap().contains("(answer: {})"),
            "{e}"
        );
    }
    r.assert_listed_everywhere(&out);
    // Nothing hides it: the run is incomplete, and says so.
    assert_eq!(out.exit_code, 3, "{}", out.summary);
    assert_eq!(r.json["exit_code"], 3);
    assert!(out.summary.contains("INCOMPLETE"), "{}", out.summary);
    // The things are still there: the stub holds the user's and those the run made.
    assert_eq!(stub.lock().unwrap().things.len(), 1 + made);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_is_removed_through_the_field_its_delete_is_keyed_by() {
    let (base, stub) = start(Mode::Keyed).await;
    let dir = tempfile::tempdir().unwrap();
    let out = execute(&args(dir.path(), SPEC, &base), Default::default())
        .await
        .expect("the run completes");
    let s = stub.lock().unwrap();
    assert!(s.created > 0, "the run made nothing: {}", out.summary);
    assert_eq!(
        s.things.keys().cloned().collect::<Vec<_>>(),
        ["seeded"],
        "what the run made is gone, the user's thing is not: {}",
        out.summary
    );
    // Removed by `thing_key` (`k1`), not by the `id` the answer also gives (`1001`).
    assert!(
        s.log
            .iter()
            .any(|(m, p)| m == "DELETE" && p == "/api/things/k1"),
        "{:?}",
        s.log
    );
    assert!(
        !s.log
            .iter()
            .any(|(m, p)| m == "DELETE" && p.starts_with("/api/things/100")),
        "{:?}",
        s.log
    );
    let r = reports(dir.path());
    assert_eq!(r.not_removed(), Vec::<&Value>::new(), "{}", out.summary);
    assert!(
        out.results
            .iter()
            .any(|x| x.case == "cleanup/create_thing/k1" && x.verdict == Verdict::Passed),
        "{}",
        out.summary
    );
    assert_eq!(out.exit_code, 0, "{}", out.summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operation_that_makes_records_it_does_not_name_needs_allow_destructive_and_is_listed() {
    // Without --allow-destructive: not sent, and the reason names the flag.
    let (base, stub) = start(Mode::Keyed).await;
    let dir = tempfile::tempdir().unwrap();
    let out = execute(
        &args(dir.path(), &with_defaults(), &base),
        Default::default(),
    )
    .await
    .expect("the run completes");
    assert!(
        !stub
            .lock()
            .unwrap()
            .log
            .iter()
            .any(|(m, p)| m == "POST" && p == "/api/things/defaults"),
        "{:?}",
        stub.lock().unwrap().log
    );
    // Its own cases (a probe with another method, a GET, is a read and goes).
    let skips: Vec<_> = out
        .results
        .iter()
        .filter(|r| r.operation == "make_default_things" && !r.case.contains("/undeclared-method/"))
        .collect();
    assert!(!skips.is_empty(), "{}", out.summary);
    for r in &skips {
        assert_eq!(r.verdict, Verdict::Skipped, "{r:?}");
        assert!(r.message.contains("--allow-destructive"), "{}", r.message);
    }
    assert_eq!(out.exit_code, 0, "{}", out.summary);

    // With it: sent, and each 2xx answer listed NOT REMOVED.
    let (base, stub) = start(Mode::Keyed).await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(dir.path(), &with_defaults(), &base);
    a.allow_destructive = true;
    let out = execute(&a, Default::default())
        .await
        .expect("the run completes");
    let answered = stub
        .lock()
        .unwrap()
        .log
        .iter()
        .filter(|(m, p)| m == "POST" && p == "/api/things/defaults")
        .count();
    assert!(answered > 0, "{}", out.summary);
    let r = reports(dir.path());
    let unknown: Vec<&Value> = r
        .not_removed()
        .into_iter()
        .filter(|e| {
            e["operation"] == "make_default_things"
                && e["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("may have created records the run cannot know of"))
        })
        .collect();
    assert_eq!(unknown.len(), answered, "{:#?}", r.not_removed());
    assert_eq!(unknown[0]["got"]["status"], 204);
    r.assert_listed_everywhere(&out);
    assert_eq!(out.exit_code, 3, "{}", out.summary);
    // The stub holds the three default things of each call: exactly what was reported.
    let s = stub.lock().unwrap();
    let defaults = s
        .things
        .keys()
        .filter(|k| k.starts_with("default-"))
        .count();
    assert_eq!(defaults, 3 * answered);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removal_the_target_refuses_is_listed_not_removed_with_its_status_and_fails_the_run() {
    let (base, stub) = start(Mode::DeleteFails).await;
    let dir = tempfile::tempdir().unwrap();
    let out = execute(&args(dir.path(), SPEC, &base), Default::default())
        .await
        .expect("the run completes");
    let r = reports(dir.path());
    let refused: Vec<&Value> = r
        .not_removed()
        .into_iter()
        .filter(|e| {
            e["verdict"] == "failed"
                && e["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("DELETE /things/{thing_key} answered 500"))
        })
        .collect();
    let left = stub.lock().unwrap().things.len() - 1;
    assert!(left > 0, "{}", out.summary);
    // One entry per thing the run made and could not remove (some removals may have been
    // tried by a chain of the run first, and reported there).
    assert_eq!(refused.len(), left, "{:#?}", r.not_removed());
    assert!(
        refused[0]["message"]
            .as_str()
            .unwrap()
            .contains("remove create_thing k"),
        "{}",
        refused[0]
    );
    r.assert_listed_everywhere(&out);
    assert_eq!(out.exit_code, 1, "{}", out.summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_the_spec_gives_no_delete_for_is_listed_not_removed_with_its_id() {
    // With no delete there is no parameter to name the key: the answer's `id` names it.
    let (base, stub) = start(Mode::Keyed).await;
    let dir = tempfile::tempdir().unwrap();
    let start = SPEC
        .find("    delete:\n      operationId: delete_thing")
        .unwrap();
    let no_delete = &SPEC[..start];
    let out = execute(&args(dir.path(), no_delete, &base), Default::default())
        .await
        .expect("the run completes");
    let made = stub.lock().unwrap().created;
    assert!(made > 0, "{}", out.summary);
    let r = reports(dir.path());
    let entries = r.not_removed();
    assert_eq!(entries.len(), made, "{entries:#?}");
    assert!(
        entries
            .iter()
            .any(|e| e["case"] == "cleanup/create_thing/1001"
                && e["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("created 1001 but the spec has no delete of it"))),
        "{entries:#?}"
    );
    r.assert_listed_everywhere(&out);
    assert_eq!(out.exit_code, 3, "{}", out.summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_put_that_answers_a_record_is_listed_not_removed_by_its_key_and_not_deleted() {
    let (base, stub) = start(Mode::Keyed).await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(dir.path(), &with_put(), &base);
    // `PUT /things/replace` is no create: --allow-writes alone sends it only to a record
    // the run made.
    a.allow_destructive = true;
    let out = execute(&a, Default::default())
        .await
        .expect("the run completes");
    let s = stub.lock().unwrap();
    let put: Vec<&String> = s.things.keys().filter(|k| k.starts_with("put-")).collect();
    assert!(!put.is_empty(), "{}", out.summary);
    // Not deleted: a PUT may have replaced a record of the user's.
    assert!(
        !s.log
            .iter()
            .any(|(m, p)| m == "DELETE" && p.starts_with("/api/things/put-")),
        "{:?}",
        s.log
    );
    let r = reports(dir.path());
    let listed: Vec<&Value> = r
        .not_removed()
        .into_iter()
        .filter(|e| e["operation"] == "put_thing")
        .collect();
    assert_eq!(listed.len(), put.len(), "{listed:#?}");
    for key in &put {
        assert!(
            listed
                .iter()
                .any(|e| e["case"] == format!("cleanup/put_thing/{key}")
                    && e["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("may have created or replaced"))),
            "{key}: {listed:#?}"
        );
    }
    r.assert_listed_everywhere(&out);
    assert_eq!(out.exit_code, 3, "{}", out.summary);
}
