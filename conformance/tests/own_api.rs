//! The harness on a user's own API: an in-process stub (axum, on a loopback port the OS
//! chooses) that shows what a real application cannot be made to show on demand. A token
//! it refuses stops the run at pre-flight (exit 2); a `GET` that revokes the token, which
//! neither its method nor its words give away, stops the run mid-way without blaming the
//! target; a logout the words do give away is never sent with the run's own token (with
//! or without --allow-writes; tests/sessions.rs sends it with a throwaway account's); nothing that writes reaches the stub without --allow-writes, and with it
//! what the run created is deleted at the end while what it did not create is not touched.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use conformance::outcome::Verdict;
use conformance::{Args, execute};
use serde_json::{Value, json};

const SPEC: &str = r##"
openapi: 3.1.0
info: {title: Items service, version: "2.0"}
security: [{bearer: []}]
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
  schemas:
    Item:
      type: object
      required: [id, name]
      properties:
        id: {type: string}
        name: {type: string}
paths:
  /items:
    get:
      operationId: list_items
      responses:
        "200":
          description: all items
          content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/Item"}}}}
        "401": {description: no credentials}
    post:
      operationId: create_item
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object, required: [name], properties: {name: {type: string}}}
            example: {name: made by the run}
      responses:
        "201":
          description: created
          content: {application/json: {schema: {$ref: "#/components/schemas/Item"}}}
        "400": {description: malformed}
        "401": {description: no credentials}
  /items/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}, example: seeded}]
    get:
      operationId: read_item
      responses:
        "200":
          description: the item
          content: {application/json: {schema: {$ref: "#/components/schemas/Item"}}}
        "401": {description: no credentials}
        "404": {description: no such item}
    delete:
      operationId: delete_item
      responses:
        "204": {description: deleted}
        "401": {description: no credentials}
        "404": {description: no such item}
  /logout:
    get:
      operationId: logout
      responses:
        "204": {description: the token is revoked}
        "401": {description: no credentials}
"##;

/// The same service with a `PATCH` of an item whose body has no example: the harness
/// generates it.
fn with_patch() -> String {
    SPEC.replace(
        "    delete:\n      operationId: delete_item",
        "    patch:\n      operationId: rename_item\n      requestBody:\n        required: true\n        content: {application/json: {schema: {type: object, required: [name], properties: {name: {type: string}}}}}\n      responses:\n        \"204\": {description: renamed}\n        \"401\": {description: no credentials}\n        \"404\": {description: no such item}\n        \"422\": {description: a name the service refuses}\n    delete:\n      operationId: delete_item",
    )
}

/// The same service with one more read that quietly revokes the caller's token.
fn with_hidden_revoke() -> String {
    SPEC.replace(
        "  /items/{id}:",
        "  /ping:\n    get:\n      operationId: ping\n      responses:\n        \"204\": {description: pong}\n        \"401\": {description: no credentials}\n  /items/{id}:",
    )
}

#[derive(Default)]
struct Stub {
    tokens: Vec<String>,
    items: BTreeMap<String, String>,
    next: u32,
    /// Every request: method, path, whether its token was valid.
    log: Vec<(String, String)>,
    /// Whether `GET /ping` revokes the token.
    ping_revokes: bool,
    /// Whether every request but a `DELETE` hangs once the run has made an item: the run
    /// is then stuck mid-way with something created, as when a user presses Ctrl-C.
    hang_after_create: bool,
    /// Whether a `DELETE` answers 204 and keeps the item, and a create stores its name
    /// upper-cased: a target whose chains must fail.
    broken_chains: bool,
    /// Whether a `DELETE` answers 503 and keeps the item: a busy target.
    delete_unavailable: bool,
    /// How a `PATCH` of an item answers (only the spec of [`with_patch`] has one).
    patch: Patch,
}

/// How the stub answers a `PATCH` of an item.
#[derive(Default, Clone, Copy, PartialEq)]
enum Patch {
    /// 204, and the item takes the name sent.
    #[default]
    Applies,
    /// 204, and the item keeps its name: an update that does not change what it says.
    Ignores,
    /// 422 for reasons of the target's own (a name it does not like), the item unchanged.
    Refuses,
}

type Shared = Arc<Mutex<Stub>>;

fn authorised(s: &Stub, headers: &HeaderMap) -> Option<String> {
    let t = headers
        .get("authorization")?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")?;
    s.tokens.iter().any(|x| x == t).then(|| t.to_string())
}

async fn handle(
    State(stub): State<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    let hang = {
        let mut s = stub.lock().unwrap();
        s.log.push((method.to_string(), uri.path().to_string()));
        s.hang_after_create
            && method != Method::DELETE
            && s.items.keys().any(|k| k.starts_with("made-"))
    };
    if hang {
        tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    }
    let mut s = stub.lock().unwrap();
    let Some(token) = authorised(&s, &headers) else {
        return (StatusCode::UNAUTHORIZED, "{}").into_response();
    };
    let path = uri.path().trim_start_matches("/api");
    let json = |code: StatusCode, v: Value| {
        (code, [("content-type", "application/json")], v.to_string()).into_response()
    };
    match (method.as_str(), path) {
        ("GET", "/items") => json(
            StatusCode::OK,
            Value::Array(
                s.items
                    .iter()
                    .map(|(id, name)| json!({"id": id, "name": name}))
                    .collect(),
            ),
        ),
        ("POST", "/items") => {
            let Some(name) = serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|v| v.get("name")?.as_str().map(str::to_owned))
            else {
                return (StatusCode::BAD_REQUEST, "{}").into_response();
            };
            s.next += 1;
            let id = format!("made-{}", s.next);
            let stored = if s.broken_chains {
                name.to_uppercase()
            } else {
                name.clone()
            };
            s.items.insert(id.clone(), stored);
            json(StatusCode::CREATED, json!({"id": id, "name": name}))
        }
        ("GET", "/logout") => {
            s.tokens.retain(|t| *t != token);
            StatusCode::NO_CONTENT.into_response()
        }
        ("GET", "/ping") => {
            if s.ping_revokes {
                s.tokens.retain(|t| *t != token);
            }
            StatusCode::NO_CONTENT.into_response()
        }
        (m, p) if p.starts_with("/items/") => {
            let id = p.trim_start_matches("/items/").to_string();
            match (m, s.items.contains_key(&id)) {
                ("GET", true) => json(StatusCode::OK, json!({"id": id, "name": s.items[&id]})),
                ("DELETE", true) if s.delete_unavailable => {
                    StatusCode::SERVICE_UNAVAILABLE.into_response()
                }
                ("DELETE", true) => {
                    if !s.broken_chains {
                        s.items.remove(&id);
                    }
                    StatusCode::NO_CONTENT.into_response()
                }
                ("PATCH", true) => {
                    let name = serde_json::from_str::<Value>(&body)
                        .ok()
                        .and_then(|v| v.get("name")?.as_str().map(str::to_owned));
                    match (s.patch, name) {
                        (_, None) => (StatusCode::UNPROCESSABLE_ENTITY, "{}").into_response(),
                        (Patch::Refuses, _) => {
                            (StatusCode::UNPROCESSABLE_ENTITY, "{}").into_response()
                        }
                        (Patch::Ignores, _) => StatusCode::NO_CONTENT.into_response(),
                        (Patch::Applies, Some(name)) => {
                            s.items.insert(id, name);
                            StatusCode::NO_CONTENT.into_response()
                        }
                    }
                }
                ("GET" | "DELETE" | "PATCH", false) => {
                    (StatusCode::NOT_FOUND, "{}").into_response()
                }
                _ => (StatusCode::METHOD_NOT_ALLOWED, "{}").into_response(),
            }
        }
        _ => (StatusCode::NOT_FOUND, "{}").into_response(),
    }
}

async fn item_route(
    state: State<Shared>,
    _: Path<String>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    handle(state, method, uri, headers, body).await
}

/// Starts the stub with one valid token `good` and one seeded item.
async fn start(ping_revokes: bool) -> (String, Shared) {
    let stub: Shared = Arc::new(Mutex::new(Stub {
        tokens: vec!["good".into()],
        items: [("seeded".to_string(), "the user's own".to_string())].into(),
        ping_revokes,
        ..Stub::default()
    }));
    let app = Router::new()
        .route(
            "/api/items/{id}",
            get(item_route)
                .delete(item_route)
                .post(item_route)
                .put(item_route)
                .patch(item_route),
        )
        .fallback(handle)
        .with_state(stub.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.ok();
    });
    (format!("http://{addr}/api"), stub)
}

fn args(dir: &std::path::Path, spec: &str, base: &str, token: &str) -> Args {
    let file = dir.join("spec.yaml");
    std::fs::write(&file, spec).unwrap();
    let contracts = dir.join("no-contracts");
    std::fs::create_dir_all(&contracts).unwrap();
    let mut a = common::embedded_args();
    a.spec = Some(file);
    // The built-in contract files name the trading platform's operations.
    a.contracts = Some(contracts);
    a.base_url = Some(base.to_string());
    a.token = Some(token.to_string());
    a.allow_incomplete = true;
    a
}

fn writes_in(stub: &Shared) -> Vec<(String, String)> {
    stub.lock()
        .unwrap()
        .log
        .iter()
        .filter(|(m, _)| !matches!(m.as_str(), "GET" | "HEAD" | "OPTIONS"))
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_the_target_refuses_stops_the_run_at_pre_flight() {
    let (base, stub) = start(false).await;
    let dir = tempfile::tempdir().unwrap();
    let err = execute(
        &args(dir.path(), SPEC, &base, "not-a-real-token"),
        Default::default(),
    )
    .await
    .err()
    .expect("a refused token is a configuration error");
    let text = err.to_string();
    assert!(
        text.contains("pre-flight") && text.contains("401"),
        "{text}"
    );
    // Three requests: the probe of the base URL, then the safe secured read with the
    // token and with a made-up one.
    let log = stub.lock().unwrap().log.clone();
    assert_eq!(log[0], ("GET".to_string(), "/api/".to_string()), "{log:?}");
    assert_eq!(log.len(), 3, "{:?}", log);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_allow_writes_nothing_that_writes_is_sent_and_the_logout_is_not_either() {
    let (base, stub) = start(false).await;
    let dir = tempfile::tempdir().unwrap();
    let out = execute(&args(dir.path(), SPEC, &base, "good"), Default::default())
        .await
        .expect("the run completes");
    assert_eq!(writes_in(&stub), Vec::<(String, String)>::new());
    let s = stub.lock().unwrap();
    assert!(
        !s.log.iter().any(|(_, p)| p.ends_with("/logout")),
        "{:?}",
        s.log
    );
    assert_eq!(s.tokens, ["good"], "the token was not revoked");
    assert!(s.items.contains_key("seeded"));
    let skipped_writes = out
        .results
        .iter()
        .filter(|r| r.verdict == Verdict::Skipped && r.message.contains("--allow-writes"))
        .count();
    assert!(skipped_writes > 0, "{}", out.summary);
    assert!(
        out.summary
            .contains("writes:      not sent; --allow-writes to send"),
        "{}",
        out.summary
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_allow_writes_what_the_run_made_is_removed_the_rest_untouched_and_the_logout_is_not_sent()
 {
    let (base, stub) = start(false).await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(dir.path(), SPEC, &base, "good");
    a.allow_writes = true;
    let out = execute(&a, Default::default())
        .await
        .expect("the run completes");
    let s = stub.lock().unwrap();
    assert!(s.next > 0, "the run created nothing: {}", out.summary);
    assert_eq!(
        s.items.keys().cloned().collect::<Vec<_>>(),
        ["seeded"],
        "what the run made is gone and the seeded item is still there: {}",
        out.summary
    );
    // The example id names an item the run did not create: its delete needs
    // --allow-destructive.
    assert!(
        !s.log
            .iter()
            .any(|(m, p)| m == "DELETE" && p.ends_with("/seeded")),
        "{:?}",
        s.log
    );
    // The logout would end the run's own session: with no throwaway account in the
    // fixtures it is not sent at all (tests/sessions.rs sends it with one).
    assert!(
        !s.log.iter().any(|(_, p)| p == "/api/logout"),
        "{:?}",
        s.log
    );
    assert!(
        s.tokens.iter().any(|t| t == "good"),
        "the given token was revoked"
    );
    assert!(
        out.results
            .iter()
            .any(|r| r.case.starts_with("cleanup/create_item/") && r.verdict == Verdict::Passed),
        "{}",
        out.summary
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_that_die_mid_run_stop_the_run_and_name_what_ran_before() {
    let (base, stub) = start(true).await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(dir.path(), &with_hidden_revoke(), &base, "good");
    a.workers = 1;
    let out = execute(&a, Default::default())
        .await
        .expect("the run completes");
    assert_eq!(out.exit_code, 2, "{}", out.summary);
    assert!(out.summary.contains("CREDENTIALS: "), "{}", out.summary);
    assert!(out.summary.contains("ping"), "{}", out.summary);
    // Not one failure is a refusal of the dead token blamed on the target.
    let blamed: Vec<_> = out
        .results
        .iter()
        .filter(|r| {
            r.verdict == Verdict::Failed
                && r.got
                    .as_ref()
                    .is_some_and(|g| matches!(g.status, Some(401 | 403)))
        })
        .filter(|r| !r.case.contains("ignored-auth"))
        .collect();
    assert!(blamed.is_empty(), "{blamed:#?}");
    drop(stub);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_discovery_step_that_writes_passes_the_same_gate_as_the_cases() {
    let (base, stub) = start(false).await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(dir.path(), SPEC, &base, "good");
    let contracts = dir.path().join("mine");
    std::fs::create_dir_all(&contracts).unwrap();
    std::fs::write(
        contracts.join("make.yaml"),
        "discover:\n  - id: make\n    operationId: create_item\n    capture: { made_id: /id }\n",
    )
    .unwrap();
    a.contracts = Some(contracts);
    let out = execute(&a, Default::default())
        .await
        .expect("the run completes");
    assert_eq!(writes_in(&stub), Vec::<(String, String)>::new());
    let step = out
        .results
        .iter()
        .find(|r| r.case == "discover/make")
        .expect("the refused discovery step is reported");
    assert_eq!(step.verdict, Verdict::Skipped, "{}", step.message);
    assert!(step.message.contains("--allow-writes"), "{}", step.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_run_still_removes_what_it_created() {
    let (base, stub) = start(false).await;
    stub.lock().unwrap().hang_after_create = true;
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.yaml");
    std::fs::write(&spec, SPEC).unwrap();
    let json = dir.path().join("r.json");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"))
        .env_remove("CONFORMANCE_TOKEN")
        .env_remove("CONFORMANCE_BASE_URL")
        .arg("--spec")
        .arg(&spec)
        .args(["--base-url", &base, "--token", "good", "--allow-writes"])
        .args(["--workers", "1", "--quiet", "--timeout", "90"])
        .arg("--json")
        .arg(&json)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait (bounded) until the run made an item and its next request hangs.
    let start = std::time::Instant::now();
    loop {
        let (made, after) = {
            let s = stub.lock().unwrap();
            let made = s.items.keys().any(|k| k.starts_with("made-"));
            let first = s
                .log
                .iter()
                .position(|(m, p)| m == "POST" && p == "/api/items")
                .unwrap_or(usize::MAX);
            (made, s.log.len().saturating_sub(first.saturating_add(1)))
        };
        if made && after > 0 {
            break;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the run ended ({status}) before it was stuck with an item made");
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "the run made no item within 60 s: {:?}",
            stub.lock().unwrap().log
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert!(
        !stub.lock().unwrap().log.iter().any(|(m, _)| m == "DELETE"),
        "nothing was deleted before the signal: the removal must come from the interrupt"
    );
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the run did not stop within 30 s of the signal");
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let s = stub.lock().unwrap();
    assert_eq!(
        s.items.keys().collect::<Vec<_>>(),
        ["seeded"],
        "after the signal the run removed what it made and nothing else: {:?}",
        s.log
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["state"], "interrupted");
    let removed = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["check"] == "state_restored"
                && r["verdict"] == "passed"
                && r["case"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("cleanup/"))
        })
        .count();
    assert_eq!(removed, 1, "one cleanup result for the one item made");
    assert!(matches!(code, Some(1 | 3)), "exit code {code:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn min_coverage_fails_a_run_that_reached_too_little_of_the_api() {
    let (base, _stub) = start(false).await;
    let dir = tempfile::tempdir().unwrap();
    // Without --allow-writes the create is never sent, nor the logout: 2 of 5 operations
    // (the list and the read) answer 2xx.
    let mut a = args(dir.path(), SPEC, &base, "good");
    a.min_coverage = Some(50.0);
    let out = execute(&a, Default::default()).await.unwrap();
    let gate = out
        .results
        .iter()
        .find(|r| r.check.as_str() == "min_coverage")
        .expect("the gate's result");
    assert_eq!(gate.verdict, Verdict::Failed, "{}", out.summary);
    assert!(
        gate.message
            .starts_with("2xx reached on 2 of 5 operations (40.0%)"),
        "{}",
        gate.message
    );
    assert!(gate.message.contains("create_item"), "{}", gate.message);
    assert_eq!(out.exit_code, 1, "{}", out.summary);
    assert!(
        out.summary
            .contains("coverage: 2xx reached on 2 of 5 operations"),
        "{}",
        out.summary
    );

    a.min_coverage = Some(40.0);
    let out = execute(&a, Default::default()).await.unwrap();
    let gate = out
        .results
        .iter()
        .find(|r| r.check.as_str() == "min_coverage")
        .expect("the gate's result");
    assert_eq!(gate.verdict, Verdict::Passed, "{}", out.summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_value_the_spec_does_not_give_comes_from_the_targets_own_list() {
    let (base, stub) = start(false).await;
    let dir = tempfile::tempdir().unwrap();
    // No example for `{id}`: only the list's answer can name an item that exists.
    let spec = SPEC.replace(", example: seeded}", "}");
    assert_ne!(spec, SPEC);
    // Writes allowed, destructive ones not: what may go to a record the run did not make.
    let mut a = args(dir.path(), &spec, &base, "good");
    a.allow_writes = true;
    let out = execute(&a, Default::default())
        .await
        .expect("the run completes");
    let read = out
        .results
        .iter()
        .find(|r| r.case == "read_item/positive" && r.check.as_str() == "positive_data_acceptance")
        .expect("the read's positive case");
    assert_eq!(read.verdict, Verdict::Passed, "{}", out.summary);
    assert!(
        stub.lock()
            .unwrap()
            .log
            .iter()
            .any(|(m, p)| m == "GET"
                && (p == "/api/items/seeded" || p.starts_with("/api/items/made-"))),
        "the read went to an item the target's answers named"
    );
    // Its other cases came with it.
    assert!(
        out.results.iter().any(|r| r.case.starts_with("read_item/")
            && r.case != "read_item/positive"
            && r.verdict == Verdict::Passed),
        "{:#?}",
        out.results
            .iter()
            .filter(|r| r.operation == "read_item")
            .map(|r| (&r.case, r.check.as_str(), r.verdict, &r.message))
            .collect::<Vec<_>>()
    );
    // A write to the mined record is not sent: the run did not create that item (the
    // undeclared-method PUT probe, the delete of the seeded item).
    assert!(
        !stub
            .lock()
            .unwrap()
            .log
            .iter()
            .any(|(m, p)| matches!(m.as_str(), "PUT" | "DELETE") && p.ends_with("/seeded")),
        "{}",
        out.summary
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chains_fail_a_target_that_stores_other_values_or_keeps_what_it_deleted() {
    for broken in [false, true] {
        let (base, stub) = start(false).await;
        stub.lock().unwrap().broken_chains = broken;
        let dir = tempfile::tempdir().unwrap();
        let mut a = args(dir.path(), SPEC, &base, "good");
        a.allow_writes = true;
        let out = execute(&a, Default::default())
            .await
            .expect("the run completes");
        // Failed if any step's verdict of the check failed, passed if some passed.
        let verdict = |case: &str, check: &str| {
            let all: Vec<Verdict> = out
                .results
                .iter()
                .filter(|r| r.case == case && r.check.as_str() == check)
                .map(|r| r.verdict)
                .collect();
            if all.contains(&Verdict::Failed) {
                Verdict::Failed
            } else if all.contains(&Verdict::Passed) {
                Verdict::Passed
            } else {
                panic!("no verdict of {check} on {case}: {}", out.summary)
            }
        };
        let want = if broken {
            Verdict::Failed
        } else {
            Verdict::Passed
        };
        // The read of what the create made answers the name it was created with.
        assert_eq!(
            verdict("create_item/chain/read", "ensure_resource_availability"),
            want,
            "{}",
            out.summary
        );
        // After a delete that answered 204, a read of the item is refused.
        assert_eq!(
            verdict("create_item/chain/delete", "use_after_free"),
            want,
            "{}",
            out.summary
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delete_that_did_not_succeed_leaves_nothing_for_use_after_free_to_judge() {
    let (base, stub) = start(false).await;
    stub.lock().unwrap().delete_unavailable = true;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(dir.path(), SPEC, &base, "good");
    a.allow_writes = true;
    let out = execute(&a, Default::default())
        .await
        .expect("the run completes");
    let chain: Vec<_> = out
        .results
        .iter()
        .filter(|r| r.case == "create_item/chain/delete")
        .collect();
    // The 503 is the target's failure, reported where it happened ...
    assert!(
        chain
            .iter()
            .any(|r| r.check.as_str() == "not_a_server_error" && r.verdict == Verdict::Failed),
        "{}",
        out.summary
    );
    // ... and the read after it is not judged: the item was never gone, so its 200 is no
    // use after free. (The delete's own step fails its expected success.)
    let after: Vec<_> = chain
        .iter()
        .filter(|r| r.check.as_str() == "use_after_free")
        .map(|r| (r.step, r.verdict, r.message.as_str()))
        .collect();
    assert!(
        !after.iter().any(|(step, _, _)| *step == 2)
            && after
                .iter()
                .any(|(_, v, m)| *v == Verdict::Skipped && m.contains("answered 503")),
        "{after:?}"
    );
}

/// A generated update may be refused for reasons of the target's own, and then says
/// nothing; where the target took it, what it set must read back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_update_that_went_through_must_read_back_what_it_set() {
    for patch in [Patch::Applies, Patch::Ignores, Patch::Refuses] {
        let (base, stub) = start(false).await;
        stub.lock().unwrap().patch = patch;
        let dir = tempfile::tempdir().unwrap();
        let mut a = args(dir.path(), &with_patch(), &base, "good");
        a.allow_writes = true;
        let out = execute(&a, Default::default())
            .await
            .expect("the run completes");
        let case = "create_item/chain/update/rename_item";
        let verdicts: Vec<(Verdict, String)> = out
            .results
            .iter()
            .filter(|r| r.case == case && r.check.as_str() == "ensure_resource_availability")
            .map(|r| (r.verdict, r.message.clone()))
            .collect();
        assert!(!verdicts.is_empty(), "no update chain: {}", out.summary);
        let failed = verdicts.iter().any(|(v, _)| *v == Verdict::Failed);
        let passed = verdicts.iter().any(|(v, _)| *v == Verdict::Passed);
        match patch {
            Patch::Applies => assert!(passed && !failed, "{verdicts:#?}"),
            Patch::Ignores => assert!(
                verdicts
                    .iter()
                    .any(|(v, m)| *v == Verdict::Failed && m.contains("/name")),
                "an update that changed nothing must fail its read-back: {verdicts:#?}"
            ),
            Patch::Refuses => assert!(!failed, "{verdicts:#?}"),
        }
    }
}
