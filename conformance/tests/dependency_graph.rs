//! The run reaches members of collections no example names, through values the target's
//! own answers give, layer after layer: `tests/specs/layers.yaml` (a synthetic spec whose
//! rules are stated in the harness's `identity` module) against an in-process stub on
//! 127.0.0.1:0 that answers 404 to any value it does not hold, so only a value taken from
//! its answers, in the right scope, gets a 200.

mod common;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{StatusCode, Uri};
use axum::response::IntoResponse;
use conformance::outcome::Verdict;
use conformance::{Args, execute};
use serde_json::json;

const SPEC: &str = include_str!("specs/layers.yaml");

type Log = Arc<Mutex<Vec<String>>>;

/// The storeroom: shelf `s-1` holds box 7 (labelled `fragile`); shelf `s-2` holds box 8;
/// chart 3; board 4 (`main`).
fn answer(path: &str) -> Option<serde_json::Value> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    Some(match segments.as_slice() {
        ["shelves"] => json!({
            "shelves": [{"shelf_id": "s-1", "label": "A"}, {"shelf_id": "s-2", "label": "B"}],
            "total_entries": 2
        }),
        ["shelves", s @ ("s-1" | "s-2")] => json!({"shelf_id": s, "label": "A"}),
        ["shelves", "s-1", "boxes"] => json!({"items": [{"id": 7, "size": 3}], "count": 1}),
        ["shelves", "s-2", "boxes"] => json!({"items": [{"id": 8, "size": 1}], "count": 1}),
        ["shelves", "s-1", "boxes", "7"] => json!({"id": 7, "size": 3}),
        ["shelves", "s-2", "boxes", "8"] => json!({"id": 8, "size": 1}),
        ["shelves", "s-1", "boxes", "7", "labels"] => json!([{"key": "fragile"}]),
        ["shelves", "s-2", "boxes", "8", "labels"] => json!([]),
        ["shelves", "s-1", "boxes", "7", "labels", "fragile"] => json!({"key": "fragile"}),
        ["charts"] => json!({"ids": [3], "result": [{"title": "sales"}], "count": 1}),
        ["charts", "3"] => json!({"title": "sales"}),
        ["boards"] => json!({"result": [{"id": 4, "slug": "main"}]}),
        ["boards", "4" | "main"] => json!({"id": 4, "slug": "main"}),
        _ => return None,
    })
}

async fn start() -> (String, Log) {
    let log: Log = Arc::default();
    let seen = log.clone();
    let app = Router::new().fallback(move |uri: Uri| {
        let seen = seen.clone();
        async move {
            seen.lock().unwrap().push(uri.path().to_string());
            match answer(uri.path()) {
                Some(body) => axum::Json(body).into_response(),
                None => StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    (serve(app).await, log)
}

/// Serves `app` on a loopback port the OS picks; its base URL.
async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.ok();
    });
    format!("http://{addr}")
}

/// Serves `app` and runs the harness on it with `spec` (`--allow-writes` where
/// `writes`, incomplete allowed).
async fn run_on(app: Router, spec: &str, writes: bool) -> conformance::Outcome {
    let base = serve(app).await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(dir.path(), &base);
    std::fs::write(a.spec.as_ref().unwrap(), spec).unwrap();
    a.allow_writes = writes;
    execute(&a, Default::default())
        .await
        .expect("the run completes")
}

fn args(dir: &std::path::Path, base: &str) -> Args {
    let file = dir.join("spec.yaml");
    std::fs::write(&file, SPEC).unwrap();
    let contracts = dir.join("no-contracts");
    std::fs::create_dir_all(&contracts).unwrap();
    let mut a = common::embedded_args();
    a.spec = Some(file);
    a.contracts = Some(contracts);
    a.base_url = Some(base.to_string());
    a.allow_incomplete = true;
    a
}

fn positive(out: &conformance::Outcome, op: &str) -> Verdict {
    out.results
        .iter()
        .find(|r| {
            r.operation == op
                && r.check.as_str() == "positive_data_acceptance"
                && r.case.starts_with(&format!("{op}/positive"))
                && r.verdict != Verdict::Skipped
        })
        .map(|r| r.verdict)
        .unwrap_or(Verdict::Skipped)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_member_is_reached_through_the_answers_of_the_layer_above() {
    let (base, log) = start().await;
    let dir = tempfile::tempdir().unwrap();
    let out = execute(&args(dir.path(), &base), Default::default())
        .await
        .expect("the run completes");
    for op in [
        "list_shelves",
        "read_shelf",
        "list_boxes",
        "read_box",
        "list_labels",
        "read_label",
        "list_charts",
        "read_chart",
        "list_boards",
        "read_board",
    ] {
        assert_eq!(positive(&out, op), Verdict::Passed, "{op}\n{}", out.summary);
    }
    let log = log.lock().unwrap();
    // Two levels below the top, with the box of the shelf that listed it.
    assert!(
        log.iter()
            .any(|p| p == "/shelves/s-1/boxes/7/labels/fragile"),
        "{log:#?}"
    );
    // Never a box of one shelf under the other.
    assert!(
        !log.iter().any(|p| p.starts_with("/shelves/s-2/boxes/7")
            || p.starts_with("/shelves/s-1/boxes/8")),
        "{log:#?}"
    );
}

const LINKS: &str = include_str!("specs/links.yaml");

/// The depot of `specs/links.yaml`: locker `blue`, read by name; parcels named only by
/// the `Location` of their create; order `o-5` and its line 2, named only by links.
fn depot(method: &axum::http::Method, path: &str, body: &[u8]) -> axum::response::Response {
    use axum::http::Method;
    let json = |v: serde_json::Value| axum::Json(v).into_response();
    let weighed = serde_json::from_slice::<serde_json::Value>(body).is_ok_and(|v| {
        v.as_object().is_some_and(|o| o.len() == 1)
            && v["weight"].as_i64().is_some_and(|w| (1..=9).contains(&w))
    });
    match (method.clone(), path) {
        (Method::GET, "/lockers/") => json(json!([{"name": "blue"}])),
        (Method::GET, "/lockers/name/blue") => json(json!({"name": "blue", "size": 3})),
        (Method::POST, "/parcels") if !weighed => StatusCode::UNPROCESSABLE_ENTITY.into_response(),
        (Method::POST, "/parcels") => (
            StatusCode::CREATED,
            [(axum::http::header::LOCATION, "/parcels/p-9")],
        )
            .into_response(),
        (Method::GET, "/parcels/p-9") => json(json!({"weight": 2})),
        (Method::DELETE, "/parcels/p-9") => StatusCode::NO_CONTENT.into_response(),
        (Method::GET, "/orders") => json(json!({"latest": {"ref": "o-5"}})),
        (Method::GET, "/orders/o-5") => json(json!({"first": 2})),
        (Method::GET, "/orders/o-5/lines/2") => json(json!({"sku": "x"})),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qualifiers_location_headers_and_links_give_what_no_field_name_does() {
    use axum::http::Method;
    let log: Log = Arc::default();
    let seen = log.clone();
    let app = Router::new().fallback(move |method: Method, uri: Uri, body: axum::body::Bytes| {
        let seen = seen.clone();
        async move {
            seen.lock()
                .unwrap()
                .push(format!("{method} {}", uri.path()));
            depot(&method, uri.path(), &body)
        }
    });
    let out = run_on(app, LINKS, true).await;
    for op in [
        "read_locker_by_name",
        "track_parcel",
        "get_order",
        "get_order_line",
    ] {
        assert_eq!(positive(&out, op), Verdict::Passed, "{op}\n{}", out.summary);
    }
    let log = log.lock().unwrap().clone();
    for sent in [
        "GET /lockers/name/blue",
        "GET /parcels/p-9",
        "GET /orders/o-5",
        "GET /orders/o-5/lines/2",
    ] {
        assert!(log.iter().any(|l| l == sent), "{sent}: {log:#?}");
    }
    // What the run made it removed.
    assert!(log.iter().any(|l| l == "DELETE /parcels/p-9"), "{log:#?}");
}

/// Two tokens, both `http bearer` (a user's access token, and a reporting service's
/// token that one read asks for): the run holds the first only.
const TWO_TOKENS: &str = r#"
openapi: 3.1.0
info: {title: Session, version: "1.0"}
security: [{access: []}]
components:
  securitySchemes:
    access: {type: http, scheme: bearer}
    reports_token: {type: http, scheme: bearer}
paths:
  /me:
    get:
      operationId: who_am_i
      responses:
        "200": {description: me, content: {application/json: {schema: {type: object}}}}
        "401": {description: not signed in}
  /reports/nightly:
    get:
      operationId: nightly_report
      security: [{reports_token: []}]
      responses:
        "200": {description: the report, content: {application/json: {schema: {type: object}}}}
        "401": {description: not a reporting token}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operation_needing_a_scheme_the_run_has_no_credentials_for_is_skipped_naming_it() {
    use axum::http::HeaderMap;
    let log: Log = Arc::default();
    let seen = log.clone();
    // Logs the paths the access token went to.
    let app = Router::new().fallback(move |uri: Uri, headers: HeaderMap| {
        let seen = seen.clone();
        async move {
            let access = headers
                .get("authorization")
                .is_some_and(|v| v == "Bearer access-1");
            if access {
                seen.lock().unwrap().push(uri.path().to_string());
            }
            match (uri.path(), access) {
                ("/me", true) => axum::Json(json!({"user": "ada"})).into_response(),
                _ => StatusCode::UNAUTHORIZED.into_response(),
            }
        }
    });
    let base = serve(app).await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(dir.path(), &base);
    std::fs::write(a.spec.as_ref().unwrap(), TWO_TOKENS).unwrap();
    a.token = Some("access-1".into());
    let out = execute(&a, Default::default())
        .await
        .expect("the run completes");
    assert_eq!(
        positive(&out, "who_am_i"),
        Verdict::Passed,
        "{}",
        out.summary
    );
    // The access token never went where the other token is asked for (requests without
    // credentials may: that is the authentication checks' probe), and the skip says which
    // scheme was missing.
    let log = log.lock().unwrap().clone();
    assert!(log.iter().any(|p| p == "/me"), "{log:#?}");
    assert!(!log.iter().any(|p| p == "/reports/nightly"), "{log:#?}");
    let skipped = out
        .results
        .iter()
        .find(|r| r.operation == "nightly_report" && r.verdict == Verdict::Skipped)
        .unwrap_or_else(|| panic!("no skip for nightly_report\n{}", out.summary));
    assert!(
        skipped.message.contains("reports_token"),
        "{}",
        skipped.message
    );
    assert!(
        !out.results
            .iter()
            .any(|r| r.operation == "nightly_report" && r.verdict == Verdict::Failed),
        "{}",
        out.summary
    );
}

/// Widgets whose create the target refuses without a `code` the schema does not name.
const UNDECLARED_FIELD: &str = r#"
openapi: 3.1.0
info: {title: Widgets, version: "1.0"}
paths:
  /widgets:
    post:
      operationId: create_widget
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, required: [size], properties: {size: {type: integer, minimum: 1, maximum: 9}}}}}
      responses:
        "201": {description: made, content: {application/json: {schema: {type: object, properties: {id: {type: integer}}}}}}
        "422": {description: not a widget}
  /widgets/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
    get:
      operationId: read_widget
      responses:
        "200": {description: one, content: {application/json: {schema: {type: object}}}}
        "404": {description: no such widget}
    delete:
      operationId: delete_widget
      responses:
        "204": {description: gone}
        "404": {description: no such widget}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_the_target_refused_a_create_for_lacking_is_given_to_the_chains_after() {
    use axum::http::Method;
    type Made = Arc<Mutex<Vec<(u64, serde_json::Value)>>>;
    let made: Made = Arc::default();
    let log: Log = Arc::default();
    let (seen, store) = (log.clone(), made.clone());
    let app = Router::new().fallback(
        move |method: Method, uri: Uri, body: axum::body::Bytes| {
            let (seen, store) = (seen.clone(), store.clone());
            async move {
                seen.lock().unwrap().push(format!("{method} {}", uri.path()));
                let mut made = store.lock().unwrap();
                if method == Method::POST {
                    let v: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                    let size_ok = v["size"].as_i64().is_some_and(|n| (1..=9).contains(&n));
                    if !size_ok {
                        return StatusCode::UNPROCESSABLE_ENTITY.into_response();
                    }
                    // FastAPI's shape for a field the model requires.
                    if v["code"].as_str().is_none() {
                        let detail = json!({"detail": [{"type": "missing", "loc": ["body", "code"], "msg": "Field required"}]});
                        return (StatusCode::UNPROCESSABLE_ENTITY, axum::Json(detail)).into_response();
                    }
                    let id = 100 + made.len() as u64;
                    made.push((id, v));
                    return (StatusCode::CREATED, axum::Json(json!({"id": id}))).into_response();
                }
                let id: u64 = uri.path().trim_start_matches("/widgets/").parse().unwrap_or(0);
                match (method, made.iter().position(|(i, _)| *i == id)) {
                    (Method::GET, Some(_)) => axum::Json(json!({"id": id})).into_response(),
                    (Method::DELETE, Some(at)) => {
                        made.remove(at);
                        StatusCode::NO_CONTENT.into_response()
                    }
                    _ => StatusCode::NOT_FOUND.into_response(),
                }
            }
        },
    );
    let out = run_on(app, UNDECLARED_FIELD, true).await;
    let log = log.lock().unwrap().clone();
    // The chains after the refusal made widgets with a code of their own, and the delete
    // of one was sent (and everything made was removed).
    let codes: Vec<String> = out
        .exchanges
        .iter()
        .filter(|e| e.method == "POST" && e.status == Some(201))
        .filter_map(|e| e.body.as_ref()?.1["code"].as_str().map(str::to_string))
        .collect();
    assert!(!codes.is_empty(), "{log:#?}");
    let distinct: std::collections::BTreeSet<&String> = codes.iter().collect();
    assert_eq!(distinct.len(), codes.len(), "{codes:?}");
    assert!(
        out.exchanges.iter().any(|e| e.operation == "delete_widget"
            && e.status == Some(204)
            && e.case.contains("/chain/")),
        "{log:#?}"
    );
    assert!(
        made.lock().unwrap().is_empty(),
        "left: {:?}",
        made.lock().unwrap()
    );
}

/// Three members no answer names: a gadget whose integer id the target does hold (1),
/// a token whose uuid it cannot hold, and a crate whose read crashes.
const NO_PRODUCER: &str = r#"
openapi: 3.1.0
info: {title: Unlisted, version: "1.0"}
paths:
  /gadgets/{gadget_id}:
    get:
      operationId: read_gadget
      parameters: [{name: gadget_id, in: path, required: true, schema: {type: integer}}]
      responses:
        "200": {description: one gadget, content: {application/json: {schema: {type: object}}}}
  /tokens/{token}:
    get:
      operationId: read_token
      parameters: [{name: token, in: path, required: true, schema: {type: string, format: uuid}}]
      responses:
        "200": {description: one token, content: {application/json: {schema: {type: object}}}}
  /crates/{crate_id}:
    get:
      operationId: read_crate
      parameters: [{name: crate_id, in: path, required: true, schema: {type: integer, minimum: 10}}]
      responses:
        "200": {description: one crate, content: {application/json: {schema: {type: object}}}}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_producer_a_made_up_value_is_sent_and_only_its_404_is_forgiven() {
    let log: Log = Arc::default();
    let seen = log.clone();
    let app = Router::new().fallback(move |uri: Uri| {
        let seen = seen.clone();
        async move {
            let path = uri.path().to_string();
            seen.lock().unwrap().push(path.clone());
            if path == "/gadgets/1" {
                axum::Json(json!({"id": 1})).into_response()
            } else if path.starts_with("/crates/") {
                StatusCode::INTERNAL_SERVER_ERROR.into_response()
            } else {
                StatusCode::NOT_FOUND.into_response()
            }
        }
    });
    let out = run_on(app, NO_PRODUCER, false).await;
    let log = log.lock().unwrap().clone();
    // Integers from 1 (or the schema's minimum); a uuid for a uuid.
    assert!(log.iter().any(|p| p == "/gadgets/1"), "{log:#?}");
    assert!(log.iter().any(|p| p == "/crates/10"), "{log:#?}");
    assert!(
        log.iter()
            .any(|p| p.strip_prefix("/tokens/").is_some_and(|t| t.len() == 36)),
        "{log:#?}"
    );
    let results = |op: &str, check: &str| -> Vec<Verdict> {
        out.results
            .iter()
            .filter(|r| r.operation == op && r.check.as_str() == check)
            .filter(|r| r.case.ends_with("/positive+made-up"))
            .map(|r| r.verdict)
            .collect()
    };
    assert_eq!(
        results("read_gadget", "status_code_conformance"),
        [Verdict::Passed]
    );
    // The undeclared 404 says the made-up token names nothing: not a finding.
    assert_eq!(
        results("read_token", "status_code_conformance"),
        [Verdict::Skipped]
    );
    assert_eq!(
        results("read_token", "not_a_server_error"),
        [Verdict::Passed]
    );
    // A crash is a crash, whatever the value.
    assert_eq!(
        results("read_crate", "not_a_server_error"),
        [Verdict::Failed]
    );
    // The skip of the first pass is replaced, not kept beside the case that ran.
    assert!(
        !out.results
            .iter()
            .any(|r| r.case == "read_gadget/positive" && r.verdict == Verdict::Skipped),
        "{}",
        out.summary
    );
}

/// A create that crashes, and the read its chain would go on to.
const CRASHING_CREATE: &str = r#"
openapi: 3.1.0
info: {title: Notes, version: "1.0"}
paths:
  /notes:
    post:
      operationId: create_note
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, required: [text], properties: {text: {type: string}}}}}
      responses:
        "201": {description: made, content: {application/json: {schema: {type: object, properties: {id: {type: integer}}}}}}
  /notes/{id}:
    get:
      operationId: read_note
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses:
        "200": {description: one note, content: {application/json: {schema: {type: object}}}}
        "404": {description: no such note}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_met_inside_a_chain_is_filed_under_the_create_that_answered_it() {
    let app = Router::new().fallback(|| async { StatusCode::INTERNAL_SERVER_ERROR });
    let out = run_on(app, CRASHING_CREATE, true).await;
    let in_chains: Vec<_> = out
        .results
        .iter()
        .filter(|r| r.case.contains("/chain/") && r.check.as_str() == "not_a_server_error")
        .collect();
    assert!(!in_chains.is_empty(), "{}", out.summary);
    for r in in_chains {
        assert_eq!(r.verdict, Verdict::Failed);
        assert_eq!(
            (r.step, r.operation.as_str()),
            (0, "create_note"),
            "{}",
            r.case
        );
    }
}

/// A create whose `name` must be unique, with a pattern and a length limit.
const UNIQUE_NAMES: &str = r#"
openapi: 3.1.0
info: {title: Projects, version: "1.0"}
paths:
  /projects:
    post:
      operationId: create_project
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name, owner_email]
              properties:
                name: {type: string, pattern: "^[a-z0-9-]+$", maxLength: 16}
                owner_email: {type: string, format: email}
                size: {type: integer, minimum: 1, maximum: 9}
      responses:
        "201": {description: made, content: {application/json: {schema: {type: object, properties: {id: {type: integer}}}}}}
        "409": {description: the name is taken}
  /projects/{id}:
    get:
      operationId: read_project
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses:
        "200": {description: one project, content: {application/json: {schema: {type: object}}}}
        "404": {description: no such project}
    delete:
      operationId: delete_project
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses:
        "204": {description: gone}
        "404": {description: no such project}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creates_of_one_run_do_not_collide_on_a_unique_name() {
    use axum::extract::State;
    use axum::http::Method;
    type Names = Arc<Mutex<Vec<String>>>;
    let names: Names = Arc::default();
    let app = Router::new()
        .fallback(
            |State(names): State<Names>, method: Method, uri: Uri, body: axum::body::Bytes| async move {
                let mut names = names.lock().unwrap();
                let path = uri.path();
                if method == Method::POST && path == "/projects" {
                    let Ok(v) = serde_json::from_slice::<serde_json::Value>(&body) else {
                        return StatusCode::UNPROCESSABLE_ENTITY.into_response();
                    };
                    // Validated first, as a real service would: only a valid create can
                    // meet the name taken.
                    let name = v["name"].as_str().unwrap_or_default().to_string();
                    let valid = !name.is_empty()
                        && name.len() <= 16
                        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                        && v["owner_email"].as_str().is_some_and(|e| e.contains('@'))
                        && v.get("size").is_none_or(|s| s.as_i64().is_some_and(|n| (1..=9).contains(&n)))
                        && v.as_object().is_some_and(|o| o.keys().all(|k| ["name", "owner_email", "size"].contains(&k.as_str())));
                    if !valid {
                        return StatusCode::UNPROCESSABLE_ENTITY.into_response();
                    }
                    if names.contains(&name) {
                        return (StatusCode::CONFLICT, axum::Json(json!({"detail": "the name is taken"})))
                            .into_response();
                    }
                    names.push(name);
                    return (StatusCode::CREATED, axum::Json(json!({"id": names.len()}))).into_response();
                }
                let id: usize = path.trim_start_matches("/projects/").parse().unwrap_or(0);
                match (method, id) {
                    (_, 0) => StatusCode::NOT_FOUND.into_response(),
                    (_, n) if n > names.len() => StatusCode::NOT_FOUND.into_response(),
                    (Method::DELETE, _) => StatusCode::NO_CONTENT.into_response(),
                    _ => axum::Json(json!({"id": id})).into_response(),
                }
            },
        )
        .with_state(names.clone());
    let out = run_on(app, UNIQUE_NAMES, true).await;
    let conflicts: Vec<_> = out
        .exchanges
        .iter()
        .filter(|e| e.method == "POST" && e.status == Some(409))
        .map(|e| (&e.case, &e.body))
        .collect();
    assert!(conflicts.is_empty(), "{conflicts:#?}");
    let names = names.lock().unwrap().clone();
    assert!(names.len() >= 3, "{names:?}");
    // Each within the pattern and the length limit.
    for n in &names {
        assert!(
            n.len() <= 16
                && n.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{n}"
        );
    }
}

/// A create, and a read whose answer breaks its schema.
const BROKEN_READ: &str = r#"
openapi: 3.1.0
info: {title: Gizmos, version: "1.0"}
paths:
  /gizmos:
    post:
      operationId: create_gizmo
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, properties: {size: {type: integer}}}}}
      responses:
        "201": {description: made, content: {application/json: {schema: {type: object, required: [id], properties: {id: {type: integer}}}}}}
  /gizmos/{id}:
    get:
      operationId: read_gizmo
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses:
        "200": {description: one gizmo, content: {application/json: {schema: {type: object, required: [id], properties: {id: {type: integer}}}}}}
        "404": {description: no such gizmo}
    delete:
      operationId: delete_gizmo
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses:
        "204": {description: gone}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_on_a_record_the_run_created_names_the_request_that_made_it() {
    use axum::http::Method;
    let made = Arc::new(Mutex::new(0u32));
    let app = Router::new().fallback(move |method: Method, uri: Uri| {
        let made = made.clone();
        async move {
            let mut made = made.lock().unwrap();
            match (method, uri.path()) {
                (Method::POST, "/gizmos") => {
                    *made += 1;
                    (StatusCode::CREATED, axum::Json(json!({"id": *made + 40}))).into_response()
                }
                (Method::DELETE, _) => StatusCode::NO_CONTENT.into_response(),
                // Every read breaks its schema: the id is text.
                (Method::GET, p) if p.starts_with("/gizmos/4") => {
                    axum::Json(json!({"id": "forty-one"})).into_response()
                }
                _ => StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    let out = run_on(app, BROKEN_READ, true).await;
    let read = out
        .results
        .iter()
        .find(|r| {
            r.case.starts_with("read_gizmo/positive")
                && r.check.as_str() == "response_schema_conformance"
                && r.verdict == Verdict::Failed
        })
        .unwrap_or_else(|| {
            panic!(
                "the read reached with the created id fails\n{}",
                out.summary
            )
        });
    let curl = read.curl.as_deref().unwrap_or_default();
    assert!(
        curl.contains("names a record the run created first") && curl.contains("-X POST"),
        "{curl}"
    );
}

/// Folders and their notes, every record wrapped as `{"data": …}` with schemas that do
/// not name the `id`; a deleted folder takes its notes with it and is hidden behind 403.
const ENVELOPES: &str = r##"
openapi: 3.1.0
info: {title: Folders, version: "1.0"}
components:
  schemas:
    One: {type: object, properties: {data: {type: object}}}
    Many: {type: object, properties: {data: {type: array, items: {type: object}}}}
    Write: {type: object, properties: {data: {type: object, properties: {title: {type: string}}}}}
paths:
  /folders:
    get:
      operationId: list_folders
      responses: {"200": {description: all, content: {application/json: {schema: {$ref: "#/components/schemas/Many"}}}}}
    post:
      operationId: create_folder
      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/Write"}}}}
      responses: {"201": {description: made, content: {application/json: {schema: {$ref: "#/components/schemas/One"}}}}}
  /folders/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    get:
      operationId: get_folder
      responses:
        "200": {description: one, content: {application/json: {schema: {$ref: "#/components/schemas/One"}}}}
        "403": {description: not yours, or gone}
    delete:
      operationId: delete_folder
      responses:
        "200": {description: gone, content: {application/json: {schema: {$ref: "#/components/schemas/One"}}}}
        "403": {description: not yours, or gone}
  /folders/{folder_id}/notes:
    parameters: [{name: folder_id, in: path, required: true, schema: {type: string}}]
    get:
      operationId: list_notes
      responses:
        "200": {description: all, content: {application/json: {schema: {$ref: "#/components/schemas/Many"}}}}
        "403": {description: not yours, or gone}
    post:
      operationId: create_note
      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/Write"}}}}
      responses:
        "201": {description: made, content: {application/json: {schema: {$ref: "#/components/schemas/One"}}}}
        "403": {description: not yours, or gone}
  /folders/{folder_id}/notes/{id}:
    parameters:
      - {name: folder_id, in: path, required: true, schema: {type: string}}
      - {name: id, in: path, required: true, schema: {type: string}}
    get:
      operationId: get_note
      responses:
        "200": {description: one, content: {application/json: {schema: {$ref: "#/components/schemas/One"}}}}
        "403": {description: not yours, or gone}
        "404": {description: no such note}
    put:
      operationId: update_note
      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/Write"}}}}
      responses:
        "200": {description: changed, content: {application/json: {schema: {$ref: "#/components/schemas/One"}}}}
        "403": {description: not yours, or gone}
        "404": {description: no such note}
    delete:
      operationId: delete_note
      responses:
        "200": {description: gone, content: {application/json: {schema: {$ref: "#/components/schemas/One"}}}}
        "403": {description: not yours, or gone}
        "404": {description: no such note}
"##;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_in_envelopes_and_sub_collections_are_reached_changed_only_when_made_and_all_removed()
 {
    use axum::http::Method;
    /// folder id → note ids.
    type Store = Arc<Mutex<(u32, BTreeMap<String, Vec<String>>)>>;
    use std::collections::BTreeMap;
    let store: Store = Arc::default();
    // The user's own folder with a note: reached, never changed or removed.
    store
        .lock()
        .unwrap()
        .1
        .insert("users".into(), vec!["kept".into()]);
    let seen = store.clone();
    let app = Router::new().fallback(move |method: Method, uri: Uri| {
        let store = seen.clone();
        async move {
            let mut guard = store.lock().unwrap();
            let (next, folders) = &mut *guard;
            let one = |id: &str| axum::Json(json!({"data": {"id": id, "title": "t"}})).into_response();
            let hidden = (StatusCode::FORBIDDEN, axum::Json(json!({"message": "not yours, or gone"}))).into_response();
            let segments: Vec<&str> = uri.path().trim_matches('/').split('/').collect();
            match (method, segments.as_slice()) {
                (Method::GET, ["folders"]) => axum::Json(json!({"data": folders.keys().map(|k| json!({"id": k})).collect::<Vec<_>>()})).into_response(),
                (Method::POST, ["folders"]) => {
                    *next += 1;
                    let id = format!("f{next}");
                    folders.insert(id.clone(), Vec::new());
                    (StatusCode::CREATED, one(&id)).into_response()
                }
                (m, ["folders", f, rest @ ..]) if !folders.contains_key(*f) => {
                    let _ = (m, rest);
                    hidden
                }
                (Method::GET, ["folders", f]) => one(f),
                (Method::DELETE, ["folders", f]) => {
                    folders.remove(*f);
                    one(f)
                }
                (Method::GET, ["folders", f, "notes"]) => axum::Json(json!({"data": folders[*f].iter().map(|n| json!({"id": n})).collect::<Vec<_>>()})).into_response(),
                (Method::POST, ["folders", f, "notes"]) => {
                    *next += 1;
                    let id = format!("n{next}");
                    folders.get_mut(*f).unwrap().push(id.clone());
                    (StatusCode::CREATED, one(&id)).into_response()
                }
                (m, ["folders", f, "notes", n]) if folders[*f].iter().any(|x| x == n) => match m {
                    Method::GET | Method::PUT => one(n),
                    Method::DELETE => {
                        folders.get_mut(*f).unwrap().retain(|x| x != n);
                        one(n)
                    }
                    _ => StatusCode::METHOD_NOT_ALLOWED.into_response(),
                },
                (_, ["folders", _, "notes", _]) => StatusCode::NOT_FOUND.into_response(),
                _ => StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    let out = run_on(app, ENVELOPES, true).await;
    let answered = |op: &str| {
        out.exchanges
            .iter()
            .any(|x| x.operation == op && x.status.is_some_and(|s| (200..300).contains(&s)))
    };
    for op in [
        "get_folder",
        "list_notes",
        "create_note",
        "get_note",
        "update_note",
        "delete_note",
    ] {
        assert!(answered(op), "{op} never answered 2xx\n{}", out.summary);
    }
    // Changed only what the run made: the user's note was read, never written.
    assert!(
        !out.exchanges
            .iter()
            .any(|x| x.path.contains("/notes/kept") && x.method != "GET"),
        "{}",
        out.summary
    );
    let left: Vec<&str> = out
        .results
        .iter()
        .filter(|r| r.message.starts_with("NOT REMOVED"))
        .map(|r| r.message.as_str())
        .collect();
    assert!(left.is_empty(), "{left:#?}");
    let folders = store.lock().unwrap().1.clone();
    assert_eq!(
        folders,
        BTreeMap::from([("users".to_string(), vec!["kept".to_string()])]),
        "what the run made is removed, the user's folder and note are as they were"
    );
}

/// A collection with a member that has an example, a delete of that member, and a delete
/// of the whole collection; a sub-collection whose parent only a list answer names, and
/// its collection-wide delete.
const WIPEABLE: &str = r#"
openapi: 3.1.0
info: {title: Widgets, version: "1.0"}
paths:
  /shelves:
    get:
      operationId: list_shelves
      responses:
        "200": {description: all, content: {application/json: {schema: {type: array, items: {type: object, properties: {shelf_id: {type: string}}}}}}}
  /shelves/{shelf_id}/items:
    parameters: [{name: shelf_id, in: path, required: true, schema: {type: string}}]
    delete:
      operationId: clear_shelf
      responses:
        "204": {description: the shelf is empty}
        "404": {description: no such shelf}
  /widgets:
    get:
      operationId: list_widgets
      responses:
        "200": {description: all, content: {application/json: {schema: {type: array, items: {type: object, properties: {widget_id: {type: string}}}}}}}
    delete:
      operationId: delete_widgets
      responses:
        "204": {description: every widget is gone}
  /widgets/{widget_id}:
    parameters: [{name: widget_id, in: path, required: true, schema: {type: string}, example: w-1}]
    get:
      operationId: read_widget
      responses:
        "200": {description: one, content: {application/json: {schema: {type: object, properties: {widget_id: {type: string}}}}}}
        "404": {description: no such widget}
    put:
      operationId: replace_widget
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, properties: {colour: {type: string}}}}}
      responses:
        "200": {description: replaced, content: {application/json: {schema: {type: object}}}}
        "404": {description: no such widget}
    delete:
      operationId: delete_widget
      responses:
        "204": {description: gone}
        "404": {description: no such widget}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_only_allow_destructive_sends_goes_after_every_case_that_needs_the_data() {
    use axum::http::Method;
    type Store = Arc<Mutex<(Vec<String>, Vec<String>)>>;
    let store: Store = Arc::new(Mutex::new((vec!["w-1".into(), "w-2".into()], Vec::new())));
    let seen = store.clone();
    let app = Router::new().fallback(move |method: Method, uri: Uri| {
        let store = seen.clone();
        async move {
            let mut guard = store.lock().unwrap();
            let (widgets, log) = &mut *guard;
            log.push(format!("{method} {}", uri.path()));
            let segments: Vec<&str> = uri.path().trim_matches('/').split('/').collect();
            match (method, segments.as_slice()) {
                (Method::GET, ["shelves"]) => {
                    axum::Json(json!([{"shelf_id": "s-1"}])).into_response()
                }
                (Method::DELETE, ["shelves", "s-1", "items"]) => {
                    StatusCode::NO_CONTENT.into_response()
                }
                (Method::GET, ["widgets"]) => axum::Json(
                    widgets
                        .iter()
                        .map(|w| json!({"widget_id": w}))
                        .collect::<Vec<_>>(),
                )
                .into_response(),
                (Method::DELETE, ["widgets"]) => {
                    widgets.clear();
                    StatusCode::NO_CONTENT.into_response()
                }
                (m, ["widgets", w]) if widgets.iter().any(|x| x == w) => match m {
                    Method::GET | Method::PUT => {
                        axum::Json(json!({"widget_id": w})).into_response()
                    }
                    Method::DELETE => {
                        widgets.retain(|x| x != w);
                        StatusCode::NO_CONTENT.into_response()
                    }
                    _ => StatusCode::METHOD_NOT_ALLOWED.into_response(),
                },
                _ => StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    let base = serve(app).await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(dir.path(), &base);
    std::fs::write(a.spec.as_ref().unwrap(), WIPEABLE).unwrap();
    a.allow_writes = true;
    a.allow_destructive = true;
    let out = execute(&a, Default::default())
        .await
        .expect("the run completes");
    // Each answered 2xx: none found the widgets gone.
    for op in [
        "list_widgets",
        "read_widget",
        "replace_widget",
        "delete_widget",
        "clear_shelf",
    ] {
        assert!(
            out.exchanges
                .iter()
                .any(|x| x.operation == op && x.status.is_some_and(|s| (200..300).contains(&s))),
            "{op} never answered 2xx\n{}",
            out.summary
        );
    }
    assert_eq!(positive(&out, "read_widget"), Verdict::Passed);
    let log = store.lock().unwrap().1.clone();
    let first = |pred: &dyn Fn(&str) -> bool| log.iter().position(|l| pred(l));
    let last = |pred: &dyn Fn(&str) -> bool| log.iter().rposition(|l| pred(l));
    let wipe = first(&|l| l == "DELETE /widgets").expect("the collection-wide delete is sent");
    let delete_one = first(&|l| l.starts_with("DELETE /widgets/")).expect("a member is deleted");
    let last_read = last(&|l| l.starts_with("GET ")).unwrap();
    let last_change = last(&|l| l.starts_with("PUT /widgets/")).unwrap();
    assert!(
        last_read < delete_one && last_change < delete_one && delete_one < wipe,
        "reads, then changes, then deletes of one record, then the collection-wide delete:\n{log:#?}"
    );
    // The shelf only an answer named is cleared too, last, with the other wide deletes.
    let clear = first(&|l| l == "DELETE /shelves/s-1/items").expect("the shelf is cleared");
    assert!(last_read < clear && delete_one < clear, "{log:#?}");
}
