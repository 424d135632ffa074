//! Sessions are the user's: a stub (axum, on a loopback port the OS chooses) whose logout
//! revokes the token it is sent with, and whose login hands a throwaway account a fresh
//! token each time. The run's own token must work after every run; a logout goes only
//! with a session of the throwaway account, last, after the cleanup; without such an
//! account it is not sent at all, and says why.

mod common;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use conformance::outcome::Verdict;
use conformance::{Args, execute};
use serde_json::json;

const SPEC: &str = r##"
openapi: 3.1.0
info: {title: Accounts service, version: "1.0"}
security: [{bearer: []}]
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
paths:
  /auth/token:
    post:
      operationId: login_for_access_token
      security: []
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              required: [username, password]
              properties:
                username: {type: string}
                password: {type: string}
      responses:
        "200":
          description: a session
          content:
            application/json:
              schema: {type: object, properties: {access_token: {type: string}}}
        "401": {description: wrong account}
        "422": {description: malformed}
  /auth/logout:
    get:
      operationId: logout
      responses:
        "204": {description: the session is ended}
        "401": {description: no session}
  /me:
    get:
      operationId: read_me
      responses:
        "200":
          description: who the caller is
          content: {application/json: {schema: {type: object, properties: {user: {type: string}}}}}
        "401": {description: no session}
"##;

/// The throwaway account's password: it must never show.
const PASSWORD: &str = "pw-Throwaway-93d1";

#[derive(Default)]
struct Stub {
    /// Live tokens and whose they are.
    tokens: Vec<(String, String)>,
    next: u32,
    /// Every request: method, path, the token it carried (if any).
    log: Vec<(String, String, Option<String>)>,
    /// Whether a logout ends every session of every user (a target's bug).
    logout_ends_all: bool,
}

type Shared = Arc<Mutex<Stub>>;

async fn handle(
    State(stub): State<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    let mut s = stub.lock().unwrap();
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    s.log
        .push((method.to_string(), uri.path().to_string(), token.clone()));
    let json = |code: StatusCode, v: serde_json::Value| {
        (code, [("content-type", "application/json")], v.to_string()).into_response()
    };
    if method == Method::POST && uri.path() == "/api/auth/token" {
        let fields: Vec<(String, String)> = form_urlencoded::parse(body.as_bytes())
            .into_owned()
            .collect();
        let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        return match (get("username"), get("password")) {
            (Some(u), Some(p)) if u == "qa-throwaway" && p == PASSWORD => {
                s.next += 1;
                let t = format!("tw-{}", s.next);
                s.tokens.push((t.clone(), u));
                json(StatusCode::OK, json!({"access_token": t}))
            }
            (Some(_), Some(_)) => (StatusCode::UNAUTHORIZED, "{}").into_response(),
            _ => json(
                StatusCode::UNPROCESSABLE_ENTITY,
                json!({"detail": "fields"}),
            ),
        };
    }
    let Some(token) = token.filter(|t| s.tokens.iter().any(|(x, _)| x == t)) else {
        return (StatusCode::UNAUTHORIZED, "{}").into_response();
    };
    match (method.as_str(), uri.path()) {
        ("GET", "/api/auth/logout") => {
            if s.logout_ends_all {
                s.tokens.clear();
            } else {
                s.tokens.retain(|(t, _)| *t != token);
            }
            StatusCode::NO_CONTENT.into_response()
        }
        ("GET", "/api/me") => {
            let user = s
                .tokens
                .iter()
                .find(|(t, _)| *t == token)
                .unwrap()
                .1
                .clone();
            json(StatusCode::OK, json!({"user": user}))
        }
        _ => (StatusCode::NOT_FOUND, "{}").into_response(),
    }
}

/// Starts the stub with the user's own token `given`.
async fn start(logout_ends_all: bool) -> (String, Shared) {
    let stub: Shared = Arc::new(Mutex::new(Stub {
        tokens: vec![("given".into(), "the user".into())],
        logout_ends_all,
        ..Stub::default()
    }));
    let app = Router::new().fallback(handle).with_state(stub.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.ok();
    });
    (format!("http://{addr}/api"), stub)
}

fn args(dir: &std::path::Path, base: &str, fixtures: Option<&str>) -> Args {
    let file = dir.join("spec.yaml");
    std::fs::write(&file, SPEC).unwrap();
    let contracts = dir.join("no-contracts");
    std::fs::create_dir_all(&contracts).unwrap();
    let mut a = common::embedded_args();
    a.spec = Some(file);
    a.contracts = Some(contracts);
    a.base_url = Some(base.to_string());
    a.token = Some("given".into());
    a.allow_incomplete = true;
    a.allow_writes = true;
    a.json = Some(dir.join("report.json"));
    a.record = Some(dir.join("record.json"));
    if let Some(text) = fixtures {
        let f = dir.join("fixtures.yaml");
        std::fs::write(&f, text).unwrap();
        a.fixtures = Some(f);
    }
    a
}

fn given_still_live(stub: &Shared) -> bool {
    stub.lock()
        .unwrap()
        .tokens
        .iter()
        .any(|(t, _)| t == "given")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_throwaway_account_the_logout_is_never_sent_and_says_why() {
    let (base, stub) = start(false).await;
    let dir = tempfile::tempdir().unwrap();
    let out = execute(&args(dir.path(), &base, None), Default::default())
        .await
        .expect("the run completes");
    let s = stub.lock().unwrap();
    assert!(
        !s.log.iter().any(|(_, p, _)| p == "/api/auth/logout"),
        "{:?}",
        s.log
    );
    drop(s);
    assert!(given_still_live(&stub));
    let logout: Vec<_> = out
        .results
        .iter()
        .filter(|r| r.operation == "logout")
        .collect();
    assert!(!logout.is_empty(), "{}", out.summary);
    assert!(
        logout
            .iter()
            .all(|r| r.verdict == Verdict::Skipped && r.message.contains("`session:`")),
        "{:#?}",
        logout.iter().map(|r| &r.message).collect::<Vec<_>>()
    );
    assert!(
        out.summary.contains("session-ending ones never"),
        "{}",
        out.summary
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_logout_goes_last_with_a_session_of_the_throwaway_account_and_the_given_token_survives() {
    let (base, stub) = start(false).await;
    let dir = tempfile::tempdir().unwrap();
    let fixtures = format!("session:\n  body: {{username: qa-throwaway, password: {PASSWORD}}}\n");
    let a = args(dir.path(), &base, Some(&fixtures));
    let out = execute(&a, Default::default())
        .await
        .expect("the run completes");
    let log = stub.lock().unwrap().log.clone();
    let logouts: Vec<usize> = log
        .iter()
        .enumerate()
        .filter(|(_, (_, p, _))| p == "/api/auth/logout")
        .map(|(i, _)| i)
        .collect();
    assert!(!logouts.is_empty(), "the logout was never sent: {log:?}");
    for i in &logouts {
        // Never with the user's token: with a throwaway session, or none at all (the
        // refusal checks), each right after a login of its own.
        assert_ne!(log[*i].2.as_deref(), Some("given"), "{log:?}");
        assert_eq!(log[i - 1].1, "/api/auth/token", "{log:?}");
    }
    // Nothing but logins, logouts and the last check of the user's token after the first.
    let first = logouts[0] - 1;
    let after: Vec<_> = log[first..]
        .iter()
        .filter(|(_, p, _)| p != "/api/auth/logout" && p != "/api/auth/token")
        .collect();
    assert_eq!(after.len(), 1, "{log:?}");
    assert_eq!(after[0].2.as_deref(), Some("given"));
    assert!(given_still_live(&stub), "{log:?}");
    let kept = out
        .results
        .iter()
        .find(|r| r.case == "session/own-credentials-kept")
        .expect("the run checks its own credentials after the session cases");
    assert_eq!(kept.verdict, Verdict::Passed, "{}", kept.message);
    let positive = out
        .results
        .iter()
        .find(|r| r.operation == "logout" && r.case.contains("positive"))
        .expect("the logout's positive case");
    assert_eq!(positive.verdict, Verdict::Passed, "{}", out.summary);
    // Neither the password nor a throwaway token shows anywhere.
    let record = std::fs::read_to_string(dir.path().join("record.json")).unwrap();
    let report = std::fs::read_to_string(dir.path().join("report.json")).unwrap();
    for text in [&out.summary, &record, &report] {
        assert!(!text.contains(PASSWORD), "the password shows");
        assert!(!text.contains("\"tw-"), "a throwaway token shows");
    }
    assert!(record.contains("\"session\""), "{record}");
    // Every request the stub saw is in the record.
    let recorded: Vec<serde_json::Value> = serde_json::from_str::<serde_json::Value>(&record)
        .map(|v| match v {
            serde_json::Value::Array(a) => a,
            other => other["exchanges"].as_array().cloned().unwrap_or_default(),
        })
        .unwrap();
    assert_eq!(recorded.len(), log.len(), "{record}\n{log:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_logout_that_ends_every_session_is_reported_as_harming_the_run_s_own() {
    let (base, stub) = start(true).await;
    let dir = tempfile::tempdir().unwrap();
    let fixtures = format!("session:\n  body: {{username: qa-throwaway, password: {PASSWORD}}}\n");
    let out = execute(
        &args(dir.path(), &base, Some(&fixtures)),
        Default::default(),
    )
    .await
    .expect("the run completes");
    assert!(!given_still_live(&stub));
    let kept = out
        .results
        .iter()
        .find(|r| r.case == "session/own-credentials-kept")
        .expect("the run checks its own credentials after the session cases");
    assert_eq!(kept.verdict, Verdict::Failed, "{}", out.summary);
    assert!(kept.message.contains("refused (401)"), "{}", kept.message);
    assert_eq!(out.exit_code, 1, "{}", out.summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_throwaway_account_no_login_takes_stops_the_run_before_anything_is_sent() {
    let (base, stub) = start(false).await;
    let dir = tempfile::tempdir().unwrap();
    let err = execute(
        &args(
            dir.path(),
            &base,
            Some("session:\n  body: {email: a@b.c, password: x}\n"),
        ),
        Default::default(),
    )
    .await
    .err()
    .expect("a login no operation takes is a configuration error");
    let text = err.to_string();
    assert!(
        text.contains("login_for_access_token") && text.contains("email"),
        "{text}"
    );
    assert!(stub.lock().unwrap().log.is_empty());
}

/// The number `--dry-run` gives for the first pass is the number of requests the run then
/// sends before its answers can add any (the session-ending cases, their logins and the
/// last check of the run's own credentials come after, and the plan says so apart).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dry_run_counts_the_requests_the_first_pass_sends() {
    let (base, stub) = start(false).await;
    let dir = tempfile::tempdir().unwrap();
    let fixtures = format!("session:\n  body: {{username: qa-throwaway, password: {PASSWORD}}}\n");
    let mut a = args(dir.path(), &base, Some(&fixtures));
    a.dry_run = true;
    let plan = execute(&a, Default::default()).await.expect("a plan");
    assert!(
        stub.lock().unwrap().log.is_empty(),
        "a dry run sends nothing"
    );
    let first: usize = plan
        .summary
        .lines()
        .find_map(|l| l.strip_prefix("first pass: "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no first-pass count: {}", plan.summary));
    let sessions: usize = plan
        .summary
        .split("; last, ")
        .nth(1)
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no session count: {}", plan.summary));
    a.dry_run = false;
    let out = execute(&a, Default::default())
        .await
        .expect("the run completes");
    let log = stub.lock().unwrap().log.clone();
    let later = out
        .exchanges
        .iter()
        .filter(|e| e.operation == "logout" || e.case.starts_with("session/"))
        .count();
    assert_eq!(out.exchanges.len(), log.len(), "{log:?}");
    assert_eq!(out.exchanges.len() - later, first, "{}", plan.summary);
    // Each session-ending case: its login and its own request.
    assert_eq!(later, 2 * sessions + 1, "{}", plan.summary);
}
