//! Sessions are the user's. A request that ends or changes a session or a credential (a
//! logout, a revoke, a token refresh that rotates, a password change, an API-key delete:
//! [`Effect::Session`], judged in [`crate::effect`]) is never sent with the credentials the
//! run was given: the user's token would be dead for the rest of the run, its own cleanup
//! included, and after it.
//!
//! With a throwaway account under `session:` in `--fixtures` (and `--allow-writes`), each
//! such case runs last, after restore and cleanup, with a session of its own: the run
//! sends the spec's login operation with the account's fields, takes the token from the
//! answer and sends the case with it, without the secret `--header` values (they may be
//! credentials too; the public ones go). One login per case, since a logout ends the
//! session it was sent with. Then the request pre-flight verified the run's own
//! credentials with is sent once more, and a `state_restored` result says whether they
//! still work. Without such an account the safety gate skips these cases, naming why.
//!
//! The login operation, for any spec, when `session.operation` does not name it: the one
//! operation, not itself session-ending, whose method is `POST`, whose operation id,
//! summary or path has a login word (`login`, `signin`, `logon`, `token`, `authenticate`,
//! `auth`) and whose request body declares every field of `session.body`. None, or more
//! than one, is a configuration error that names the candidates, read before anything is
//! sent. The token is read from the answer at `session.token` (a JSON pointer), else from
//! the first of [`TOKEN_FIELDS`] at the answer's top; a session kept only in a cookie is
//! not supported (the case is skipped, naming why).

use std::sync::Arc;

use serde_json::Value;

use super::record::exchange_of;
use super::step::{run_case, skipped};
use super::{CaseReport, Context, Exchange, finalise};
use crate::auth::{CodeSource, OAuth};
use crate::case::{AuthMode, BodyTemplate, Case, Expect, RequestTemplate, Step};
use crate::effect::Effect;
use crate::fixtures::SessionLogin;
use crate::outcome::Verdict;
use crate::registry::Check;
use crate::request::build;
use crate::schema::Validators;
use crate::spec::{Operation, Spec};
use crate::vars::Vars;

/// Where a login answer's token is looked for when `session.token` does not say.
pub const TOKEN_FIELDS: &[&str] = &["access_token", "token", "accessToken", "id_token", "jwt"];

/// Words that mark an operation as a login (see the module doc).
const LOGIN_WORDS: &[&str] = &["login", "signin", "logon", "token", "authenticate", "auth"];

/// How a recorded exchange sent with a throwaway session shows its credentials: never
/// `token`, so a replay does not send it again with the replaying run's own.
pub const SESSION_AUTH: &str = "session";

/// Whether the spec has operations that end or change a session.
pub fn has_session_operations(spec: &Spec) -> bool {
    spec.operations.iter().any(|o| o.effect == Effect::Session)
}

/// The spec's login operation for `login` (see the module doc for the rule).
pub fn login_operation<'s>(spec: &'s Spec, login: &SessionLogin) -> Result<&'s Operation, String> {
    if let Some(id) = &login.operation {
        return match spec.operation(id) {
            Some(op) if op.effect == Effect::Session => Err(format!(
                "session.operation `{id}` itself ends or changes a session: name the login operation"
            )),
            Some(op) => Ok(op),
            None => Err(format!(
                "session.operation `{id}` is no operation of the spec"
            )),
        };
    }
    let words = |op: &Operation| {
        let text = format!("{} {}", op.words(), op.path).to_ascii_lowercase();
        text.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| LOGIN_WORDS.iter().any(|l| w.starts_with(l)))
            || text.replace(['_', '-'], "").contains("signin")
            || text.replace(['_', '-'], "").contains("login")
    };
    let takes_fields = |op: &Operation| {
        op.body.as_ref().is_some_and(|b| {
            let props = b.schema.get("properties").and_then(Value::as_object);
            login
                .body
                .keys()
                .all(|k| props.is_some_and(|p| p.contains_key(k)))
        })
    };
    let candidates: Vec<&Operation> = spec
        .operations
        .iter()
        .filter(|o| o.method == "POST" && o.effect != Effect::Session && words(o))
        .collect();
    let fitting: Vec<&Operation> = candidates
        .iter()
        .copied()
        .filter(|o| takes_fields(o))
        .collect();
    let fields: Vec<&str> = login.body.keys().map(String::as_str).collect();
    match fitting.as_slice() {
        [one] => Ok(one),
        [] => Err(format!(
            "session: no login operation of the spec takes the fields {} ({}); name it with session.operation",
            fields.join(", "),
            if candidates.is_empty() {
                "no POST operation has a login word".to_string()
            } else {
                format!(
                    "operations with a login word: {}",
                    candidates
                        .iter()
                        .map(|o| o.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        )),
        several => Err(format!(
            "session: several login operations take the fields {}: {}; name one with session.operation",
            fields.join(", "),
            several
                .iter()
                .map(|o| o.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Runs the session-ending `cases` (each with its 1-based index in the run), one at a
/// time, each with a fresh session of the throwaway account, then checks the run's own
/// credentials; `public_headers` are the `--public-header`s, the only run headers these
/// requests carry. The login's own exchange is reported under `session/login/<case>`.
pub async fn run_last(
    ctx: &Arc<Context>,
    login: &SessionLogin,
    public_headers: &[(String, String)],
    cases: &[(usize, Case)],
    vars: &Vars,
) -> Vec<CaseReport> {
    let mut reports = Vec::new();
    let op = match login_operation(&ctx.spec, login) {
        Ok(op) => op,
        Err(why) => {
            // Checked when the fixtures were read: only a spec changed since can get here.
            for (index, case) in cases {
                reports.push(CaseReport {
                    index: *index,
                    results: vec![skipped(case, *index, why.clone())],
                    exchanges: Vec::new(),
                });
            }
            return reports;
        }
    };
    let transport = ctx.transport.with_headers(public_headers.to_vec());
    for (index, case) in cases {
        let (token, login_exchange) = log_in(ctx, &transport, op, login, case, *index).await;
        let mut report = match token {
            Err(why) => CaseReport {
                index: *index,
                results: vec![skipped(
                    case,
                    *index,
                    format!("not sent: the throwaway account's login failed: {why}"),
                )],
                exchanges: Vec::new(),
            },
            Ok(token) => {
                let session = match session_context(ctx, &transport, token) {
                    Ok(s) => s,
                    Err(why) => {
                        reports.push(CaseReport {
                            index: *index,
                            results: vec![skipped(case, *index, why)],
                            exchanges: vec![login_exchange],
                        });
                        continue;
                    }
                };
                let mut report = run_case(&session, *index, case, vars).await;
                for e in &mut report.exchanges {
                    if e.auth.as_deref() == Some("token") {
                        e.auth = Some(SESSION_AUTH.into());
                    }
                }
                let mut report = finalise(&session, report);
                // What such a case created is not in the run's ledger, whose removal is
                // over: it is named, to remove by hand.
                for left in super::left_behind(
                    &session,
                    *index,
                    "it was created with the throwaway session after the run's cleanup",
                ) {
                    report.results.extend(left.results);
                }
                report
            }
        };
        report.exchanges.insert(0, login_exchange);
        reports.push(report);
    }
    if let Some(kept) = own_credentials_kept(ctx, cases.last().map_or(0, |(i, _)| *i)).await {
        reports.push(kept);
    }
    reports
}

/// A context like the run's with `token` as its credential (shown as `$SESSION_TOKEN`), no
/// OAuth, and its own ledger and credential watch.
fn session_context(
    ctx: &Context,
    transport: &crate::transport::Transport,
    token: String,
) -> Result<Context, String> {
    let mut secrets = ctx.secrets.clone();
    secrets.add(&token, "$SESSION_TOKEN");
    // Schemas compile on first use: this reads the spec's response list only.
    let validators = Validators::compile(&ctx.spec).map_err(|e| e.to_string())?;
    Ok(Context::new(
        ctx.spec.clone(),
        validators,
        transport.clone(),
        ctx.base_url.clone(),
        Some(token),
        secrets,
        OAuth::new(None, CodeSource::Unavailable),
    )
    .with_options(ctx.options.clone()))
}

/// Sends the login for `case` and reads the token from its answer. The exchange is
/// recorded with the token (and the account's fields) redacted.
async fn log_in(
    ctx: &Context,
    transport: &crate::transport::Transport,
    op: &Operation,
    login: &SessionLogin,
    case: &Case,
    index: usize,
) -> (Result<String, String>, Exchange) {
    let media = op
        .body
        .as_ref()
        .and_then(|b| b.content_types.first())
        .map(|(m, _)| m.clone())
        .unwrap_or_else(|| "application/json".into());
    let value = Value::Object(login.body.clone());
    let body = if media.contains("json") {
        BodyTemplate::Json(value)
    } else {
        BodyTemplate::Encoded { media, value }
    };
    let step = Step {
        request: RequestTemplate {
            op: op.id.clone(),
            params: Vec::new(),
            body: Some(body),
            auth: AuthMode::Missing,
            explode: None,
            style: None,
            method: None,
            path: None,
        },
        expect: Expect::Observe,
        capture: Vec::new(),
        asserts: Vec::new(),
    };
    let login_case = Case::own(
        format!("session/login/{}", case.id),
        op.id.clone(),
        Check::StateRestored,
        vec![step.clone()],
    );
    let vars = Vars::default();
    let mut secrets = ctx.secrets.clone();
    for v in login.body.values().filter_map(Value::as_str) {
        secrets.add(v, "$SESSION_ACCOUNT");
    }
    let built = build(
        &ctx.spec,
        &ctx.base_url,
        &step.request,
        &vars,
        None,
        &secrets,
    );
    let built = match built {
        Ok(b) => b,
        Err(e) => {
            let why = format!("cannot build the login request: {e:?}");
            let ex = failed_exchange(&login_case, op, index, why.clone());
            return (Err(why), ex);
        }
    };
    let sent = transport.send(&built.request).await;
    let token = match &sent {
        Err(e) => Err(format!("{} {} failed: {e}", op.method, op.path)),
        Ok(resp) if !(200..300).contains(&resp.status) => Err(format!(
            "{} {} answered {}",
            op.method, op.path, resp.status
        )),
        Ok(resp) => token_of(resp.json.as_ref(), login.token.as_deref()).ok_or_else(|| {
            format!(
                "{} {} answered {} without a token at {}",
                op.method,
                op.path,
                resp.status,
                login
                    .token
                    .clone()
                    .unwrap_or_else(|| TOKEN_FIELDS.join(", "))
            )
        }),
    };
    // Recorded through a context whose secrets know the token and the account's fields.
    if let Ok(t) = &token {
        secrets.add(t, "$SESSION_TOKEN");
    }
    let exchange = match session_context(ctx, transport, String::new()) {
        Ok(mut recording) => {
            recording.secrets = secrets;
            Exchange {
                case_index: index,
                harness: Some("the throwaway account's login for a session-ending case".into()),
                ..exchange_of(&recording, &login_case, 0, &step, &built, &sent, &vars)
            }
        }
        Err(why) => failed_exchange(&login_case, op, index, why),
    };
    (token, exchange)
}

/// The record of a login that could not be sent.
fn failed_exchange(case: &Case, op: &Operation, index: usize, why: String) -> Exchange {
    Exchange {
        case: case.id.clone(),
        operation: op.id.clone(),
        step: 0,
        method: op.method.clone(),
        path: op.path.clone(),
        auth: None,
        headers: Vec::new(),
        body: None,
        status: None,
        error: Some(why),
        content_type: None,
        response: Value::Null,
        location: None,
        resent: 0,
        harness: Some("the throwaway account's login, which could not be sent".into()),
        case_index: index,
        elapsed: None,
    }
}

/// The token in a login answer: at `pointer`, else the first of [`TOKEN_FIELDS`].
fn token_of(json: Option<&Value>, pointer: Option<&str>) -> Option<String> {
    let json = json?;
    let found = match pointer {
        Some(p) => json.pointer(p),
        None => TOKEN_FIELDS.iter().find_map(|f| json.get(*f)),
    };
    found
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

/// Sends the request pre-flight verified the run's credentials with once more: a
/// `state_restored` result says whether they survived the session cases.
async fn own_credentials_kept(ctx: &Context, after: usize) -> Option<CaseReport> {
    let (request, shown, operation) = ctx.credentials.canary()?;
    let case = Case::own(
        "session/own-credentials-kept".into(),
        operation,
        Check::StateRestored,
        Vec::new(),
    );
    let index = after + 1;
    let sent = ctx.transport.send(&request).await;
    let mut r = skipped(&case, index, String::new());
    r.expected = format!(
        "the run's own credentials still accepted after the session-ending cases ({shown})"
    );
    let status = sent.as_ref().ok().map(|resp| resp.status);
    match status {
        Some(401 | 403) => {
            r.verdict = Verdict::Failed;
            r.message = format!(
                "the run's own credentials are refused ({}) after the session-ending cases, which were sent only with the throwaway account's sessions: the target ended a session they were not sent with (or the throwaway account is the run's own account: give another)",
                status.unwrap_or_default()
            );
        }
        Some(s) => {
            r.verdict = Verdict::Passed;
            r.message = format!("the run's own credentials still work ({shown} answered {s})");
        }
        None => {
            r.message =
                "the run's own credentials could not be checked: the request got no answer".into();
        }
    }
    let exchange = Exchange {
        case: case.id.clone(),
        auth: Some("token".into()),
        case_index: index,
        ..Exchange::aside(
            &ctx.base_url,
            case.operation.clone(),
            &request,
            &sent,
            "the run's own credentials checked after the session-ending cases".into(),
        )
    };
    Some(finalise(
        ctx,
        CaseReport {
            index,
            results: vec![r],
            exchanges: vec![exchange],
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"
openapi: 3.1.0
info: {title: accounts, version: "1"}
paths:
  /auth/token:
    post:
      operationId: login_for_access_token
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema: {type: object, properties: {username: {type: string}, password: {type: string}}}
      responses: {"200": {description: ok}}
  /auth/logout:
    get:
      operationId: logout
      responses: {"204": {description: gone}}
  /things:
    post:
      operationId: create_thing
      requestBody:
        content: {application/json: {schema: {type: object, properties: {name: {type: string}}}}}
      responses: {"201": {description: made}}
"#;

    fn login(fields: &[&str]) -> SessionLogin {
        SessionLogin {
            operation: None,
            body: fields
                .iter()
                .map(|f| (f.to_string(), Value::String("x".into())))
                .collect(),
            token: None,
        }
    }

    #[test]
    fn the_login_is_the_one_post_with_a_login_word_that_takes_the_fields() {
        let spec = Spec::parse(SPEC).unwrap();
        assert!(has_session_operations(&spec));
        let op = login_operation(&spec, &login(&["username", "password"])).unwrap();
        assert_eq!(op.id, "login_for_access_token");
        // A field no login takes: the error names the candidates.
        let err = login_operation(&spec, &login(&["email"])).unwrap_err();
        assert!(err.contains("login_for_access_token"), "{err}");
        // Named outright, even without a login word.
        let mut named = login(&["name"]);
        named.operation = Some("create_thing".into());
        assert_eq!(login_operation(&spec, &named).unwrap().id, "create_thing");
        named.operation = Some("logout".into());
        assert!(login_operation(&spec, &named).is_err());
    }

    #[test]
    fn the_token_is_read_at_the_pointer_or_under_a_usual_name() {
        let answer = serde_json::json!({"access_token": "a", "data": {"jwt": "b"}});
        assert_eq!(token_of(Some(&answer), None).as_deref(), Some("a"));
        assert_eq!(
            token_of(Some(&answer), Some("/data/jwt")).as_deref(),
            Some("b")
        );
        assert_eq!(token_of(Some(&serde_json::json!({"ok": true})), None), None);
        assert_eq!(token_of(None, None), None);
    }
}
