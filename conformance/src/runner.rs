//! Running cases against a target: discovery first (in order), then every case, writes one
//! at a time in case order and reads in parallel on `--workers` tasks. Results are sorted
//! by case order at the end, so parallelism never changes a report.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{Semaphore, mpsc};

use crate::auth::OAuth;
use crate::case::{BodyTemplate, Case, Expect, RequestTemplate, Step};
use crate::checks::{self, Finding, RuleInput};
use crate::contracts::Discover;
use crate::outcome::{CheckResult, Got, Verdict};
use crate::registry::Check;
use crate::request::{BuildError, Built, Secrets, build};
use crate::schema::Validators;
use crate::spec::{Level, Rule, Spec, Style};
use crate::transport::{Response, Transport, TransportError};
use crate::vars::{Vars, pointer, references};

/// Request bodies above this size may be cut off by a server that rejects them early.
const LARGE_BODY: usize = 64 << 10;
/// The longest body excerpt a report shows.
const EXCERPT: usize = 600;
/// Variable that asks for a fresh authorization code.
pub const CODE_VAR: &str = "oauth.code";
/// Variable holding the last code a step of the case used (to try it twice).
pub const LAST_CODE_VAR: &str = "oauth.last_code";

/// Everything a case needs, shared by all workers.
pub struct Context {
    /// The spec.
    pub spec: Spec,
    /// Compiled response schemas.
    pub validators: Validators,
    /// HTTP client with the run's bounds.
    pub transport: Transport,
    /// Base URL including `/v1`.
    pub base_url: String,
    /// Bearer token.
    pub token: Option<String>,
    /// Values and fields never printed.
    pub secrets: Secrets,
    /// Authorization codes.
    pub oauth: OAuth,
    /// Last seen state of each `preserves-other-fields` target, per operation.
    state: Mutex<HashMap<String, Value>>,
}

impl Context {
    /// Bundles the run's shared pieces.
    pub fn new(
        spec: Spec,
        validators: Validators,
        transport: Transport,
        base_url: String,
        token: Option<String>,
        secrets: Secrets,
        oauth: OAuth,
    ) -> Context {
        let mut secrets = secrets;
        secrets.add_url_password(&base_url);
        Context {
            spec,
            validators,
            transport,
            base_url,
            token,
            secrets,
            oauth,
            state: Mutex::new(HashMap::new()),
        }
    }
}

/// One request and its answer, as `--record` writes them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Exchange {
    /// Case id.
    pub case: String,
    /// `operationId` of the request.
    pub operation: String,
    /// Step within the case.
    pub step: usize,
    /// HTTP method.
    pub method: String,
    /// Path and query relative to the base URL.
    pub path: String,
    /// How the request authenticated: `token`, or the literal header sent otherwise.
    pub auth: Option<String>,
    /// Content type and body (JSON value or text), secrets redacted.
    pub body: Option<(String, Value)>,
    /// Status of the answer, or the transport error.
    pub status: Option<u16>,
    /// Transport error, when no answer came.
    pub error: Option<String>,
    /// Content type of the answer.
    pub content_type: Option<String>,
    /// The answer's body (JSON value or text), secrets redacted.
    pub response: Value,
}

/// What one case produced.
pub struct CaseReport {
    /// Case index.
    pub index: usize,
    /// Its results.
    pub results: Vec<CheckResult>,
    /// Its exchanges.
    pub exchanges: Vec<Exchange>,
}

/// Runs discovery steps in order, binding variables; their answers are checked too.
pub async fn discover(ctx: &Context, steps: &[Discover], vars: &mut Vars) -> CaseReport {
    let mut report = CaseReport {
        index: 0,
        results: Vec::new(),
        exchanges: Vec::new(),
    };
    for d in steps {
        let id = format!("discover/{}", d.id);
        let values: Vec<Option<Value>> = match &d.try_each {
            None => vec![None],
            Some(t) => match vars.substitute(&Value::String(t.values.clone())) {
                Ok(Value::Array(a)) => a.into_iter().take(t.max).map(Some).collect(),
                _ => Vec::new(),
            },
        };
        for value in values {
            let mut tpl = d.request.clone();
            if let (Some(t), Some(v)) = (&d.try_each, &value) {
                tpl.params.retain(|(n, _)| *n != t.param);
                tpl.params.push((t.param.clone(), v.clone()));
            }
            let step = Step {
                request: tpl,
                expect: Expect::Observe,
                capture: Vec::new(),
                asserts: Vec::new(),
            };
            let case = Case {
                id: id.clone(),
                operation: d.request.op.clone(),
                check: Check::Discovery.into(),
                level: Level::Must,
                steps: vec![step.clone()],
                serial: true,
                skip: None,
                requires: Vec::new(),
                source: "discovery".into(),
                cap: None,
            };
            let mut local = vars.clone();
            let (results, exchange, resp) = run_step(ctx, &case, 0, 0, &step, &mut local).await;
            report.results.extend(results);
            report.exchanges.extend(exchange);
            let Some(body) = resp.and_then(|r| r.json) else {
                continue;
            };
            let captured: Option<Vec<(String, Value)>> = d
                .capture
                .iter()
                .map(|(name, ptr)| {
                    let v = if ptr == "$param" {
                        value.clone()
                    } else {
                        pointer(&body, ptr)
                    };
                    v.filter(|v| !v.is_null() && v != &Value::Array(Vec::new()))
                        .map(|v| (name.clone(), v))
                })
                .collect();
            if let Some(c) = captured {
                for (k, v) in c {
                    vars.set(k, v);
                }
                break;
            }
        }
    }
    finalise(ctx, report)
}

/// The one place a case's (or discovery's) results become shown: every text in them is
/// redacted with the run's secrets, whichever check built them.
fn finalise(ctx: &Context, mut report: CaseReport) -> CaseReport {
    report.results = report
        .results
        .into_iter()
        .map(|r| ctx.secrets.redact_result(r))
        .collect();
    report
}

/// Runs the cases; `on_case` sees each case's report as soon as it is done.
pub async fn run_cases(
    ctx: Arc<Context>,
    cases: Vec<Case>,
    vars: Vars,
    workers: usize,
    mut on_case: impl FnMut(&CaseReport),
) -> Vec<CaseReport> {
    let (tx, mut rx) = mpsc::unbounded_channel::<CaseReport>();
    let vars = Arc::new(vars);
    let mut serial = Vec::new();
    let sem = Arc::new(Semaphore::new(workers.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    for (index, case) in cases.into_iter().enumerate() {
        if case.serial {
            serial.push((index + 1, case));
            continue;
        }
        let (ctx, vars, tx, sem) = (ctx.clone(), vars.clone(), tx.clone(), sem.clone());
        tasks.spawn(async move {
            let Ok(_permit) = sem.acquire_owned().await else {
                return;
            };
            let report = run_case(&ctx, index + 1, &case, &vars).await;
            let _ = tx.send(report);
        });
    }
    {
        let (ctx, vars, tx) = (ctx.clone(), vars.clone(), tx.clone());
        tasks.spawn(async move {
            for (index, case) in serial {
                let report = run_case(&ctx, index, &case, &vars).await;
                let _ = tx.send(report);
            }
        });
    }
    drop(tx);
    let mut reports = Vec::new();
    while let Some(r) = rx.recv().await {
        let r = finalise(&ctx, r);
        on_case(&r);
        reports.push(r);
    }
    while tasks.join_next().await.is_some() {}
    reports.sort_by_key(|r| r.index);
    reports
}

fn skipped(case: &Case, index: usize, why: String) -> CheckResult {
    CheckResult {
        case_index: index,
        step: 0,
        case: case.id.clone(),
        operation: case.operation.clone(),
        check: case.check.clone(),
        level: case.level,
        verdict: Verdict::Skipped,
        message: why,
        expected: String::new(),
        got: None,
        curl: None,
    }
}

/// Runs one case's steps in order.
pub async fn run_case(ctx: &Context, index: usize, case: &Case, vars: &Vars) -> CaseReport {
    let mut report = CaseReport {
        index,
        results: Vec::new(),
        exchanges: Vec::new(),
    };
    if let Some(why) = &case.skip {
        report.results.push(skipped(case, index, why.clone()));
        return report;
    }
    for (var, min) in &case.requires {
        let have = match vars.get(var) {
            Some(Value::Array(a)) => a.len(),
            Some(_) => 1,
            None => 0,
        };
        if have < *min {
            report.results.push(skipped(
                case,
                index,
                format!("needs at least {min} value(s) of {var}; the target gave {have}"),
            ));
            return report;
        }
    }
    let mut local = vars.clone();
    let mut step_ok = Vec::new();
    for (i, step) in case.steps.iter().enumerate() {
        let (results, exchange, resp) = run_step(ctx, case, index, i, step, &mut local).await;
        let stop = resp.is_none();
        if case.check == Check::AlternateEncodings {
            let ok = resp.is_some() && results.iter().all(|r| r.verdict != Verdict::Failed);
            let failed = results.iter().find(|r| r.verdict == Verdict::Failed);
            step_ok.push(StepVerdict {
                ok,
                why: failed.map(|r| r.message.clone()),
                got: failed.and_then(|r| r.got.clone()),
                curl: failed.and_then(|r| r.curl.clone()),
            });
            report.results.extend(results.into_iter().filter(|r| {
                // Its own verdict is judged across the steps (below), and rules about
                // each item say nothing about an encoding.
                r.check != Check::AlternateEncodings
                    && !r.check.builtin().is_some_and(Check::judges_each_item)
                    && r.verdict != Verdict::Skipped
            }));
        } else {
            report.results.extend(results);
        }
        report.exchanges.extend(exchange);
        if stop {
            break;
        }
    }
    if case.check == Check::AlternateEncodings && step_ok.len() == case.steps.len() {
        report
            .results
            .extend(judge_encodings(ctx, case, index, &step_ok));
    }
    report
}

/// How one step of an encodings case went, with what came back when it failed.
struct StepVerdict {
    ok: bool,
    why: Option<String>,
    got: Option<Got>,
    curl: Option<String>,
}

/// Judges a list parameter sent in each encoding: answering one of them correctly, and
/// answering the declared one, each at the level of the parameter's `x-encoding-levels`;
/// which ones the target accepts is reported either way.
fn judge_encodings(
    ctx: &Context,
    case: &Case,
    index: usize,
    step_ok: &[StepVerdict],
) -> Vec<CheckResult> {
    let declared = ctx
        .spec
        .operation(&case.operation)
        .and_then(|o| o.params.iter().find(|p| !p.alternates.is_empty()));
    let param = declared.map_or("list", |p| p.name.as_str());
    let (any_level, declared_level) =
        declared.map_or((Level::Must, Level::Must), |p| p.encoding_levels);
    let accepted: Vec<String> = case
        .steps
        .iter()
        .zip(step_ok)
        .map(|(s, v)| {
            let (ok, why) = (&v.ok, &v.why);
            let style = s.request.style.or(declared.map(|p| p.style));
            let explode = s.request.explode.or(declared.map(|p| p.explode));
            let shape = match (style.unwrap_or(Style::Form), explode.unwrap_or(true)) {
                (Style::Form, false) => format!("form, explode=false ({param}=A,B)"),
                (Style::Form, true) => format!("form, explode=true ({param}=A&{param}=B)"),
                (other, explode) => format!("{}, explode={explode}", other.as_str()),
            };
            let verdict = if *ok {
                "accepted".to_string()
            } else {
                format!(
                    "not answered correctly ({})",
                    why.clone().unwrap_or_default()
                )
            };
            format!("{shape}: {verdict}")
        })
        .collect();
    let summary = accepted.join("; ");
    // A failure shows the answer and the curl line of `step` (the first step that failed
    // among those the verdict is about).
    let mk = |level: Level, ok: bool, expected: &str, step: Option<usize>| {
        let shown = step
            .filter(|_| !ok)
            .and_then(|i| step_ok.get(i).map(|v| (i, v)));
        CheckResult {
            case_index: index,
            step: shown.map_or(0, |(i, _)| i),
            case: case.id.clone(),
            operation: case.operation.clone(),
            check: Check::AlternateEncodings.into(),
            level,
            verdict: if ok { Verdict::Passed } else { Verdict::Failed },
            message: summary.clone(),
            expected: expected.into(),
            got: shown.and_then(|(_, v)| v.got.clone()),
            curl: shown.and_then(|(_, v)| v.curl.clone()),
        }
    };
    let first_failed = step_ok.iter().position(|v| !v.ok);
    vec![
        mk(
            any_level,
            step_ok.iter().any(|v| v.ok),
            "one of the list encodings answered correctly",
            first_failed,
        ),
        mk(
            declared_level,
            step_ok.first().is_some_and(|v| v.ok),
            "the declared encoding answered correctly",
            Some(0),
        ),
    ]
}

fn needs_code(tpl: &RequestTemplate) -> bool {
    let mut refs = Vec::new();
    match &tpl.body {
        Some(crate::case::BodyTemplate::Json(v)) => references(v, &mut refs),
        Some(crate::case::BodyTemplate::Raw { text, .. }) => {
            references(&Value::String(text.clone()), &mut refs)
        }
        None => {}
    }
    for (_, v) in &tpl.params {
        references(v, &mut refs);
    }
    refs.iter().any(|r| r == CODE_VAR)
}

/// Runs one step: build, send, judge. Returns the results, the exchange and the answer.
async fn run_step(
    ctx: &Context,
    case: &Case,
    index: usize,
    step_no: usize,
    step: &Step,
    vars: &mut Vars,
) -> (Vec<CheckResult>, Option<Exchange>, Option<Response>) {
    let op = ctx.spec.operation(&step.request.op).expect("validated");
    let result = |f: Finding, built: Option<&Built>, got: Option<Got>| CheckResult {
        case_index: index,
        step: step_no,
        case: case.id.clone(),
        operation: case.operation.clone(),
        level: match case.cap {
            Some(cap) if f.check != Check::NotAServerError => f.level.max(cap),
            _ => f.level,
        },
        check: f.check,
        verdict: f.verdict,
        message: f.message,
        expected: f.expected,
        got: if f.verdict == Verdict::Passed {
            None
        } else {
            got
        },
        curl: if f.verdict == Verdict::Passed {
            None
        } else {
            built.map(|b| b.curl.clone())
        },
    };
    if needs_code(&step.request) {
        match ctx.oauth.fresh_code(&ctx.transport).await {
            Ok(code) => {
                vars.set(CODE_VAR, Value::String(code.clone()));
                vars.set(LAST_CODE_VAR, Value::String(code));
            }
            Err(why) => return (vec![skipped(case, index, why)], None, None),
        }
    }
    let built = match build(
        &ctx.spec,
        &ctx.base_url,
        &step.request,
        vars,
        ctx.token.as_deref(),
        &ctx.secrets,
    ) {
        Ok(mut b) => {
            // Codes are fetched per step, so the secrets list cannot know them: mask here.
            if let Some(Value::String(code)) = vars.get(LAST_CODE_VAR) {
                b.curl = b.curl.replace(code.as_str(), "$CODE");
            }
            b
        }
        Err(BuildError::Unbound(v)) => {
            return (
                vec![skipped(
                    case,
                    index,
                    format!(
                        "variable `{v}` is not bound: neither discovered on the target nor given by --fixtures"
                    ),
                )],
                None,
                None,
            );
        }
        Err(BuildError::NoToken) => {
            return (
                vec![skipped(
                    case,
                    index,
                    "no bearer token: give --token (or CONFORMANCE_TOKEN) or OAuth client fixtures"
                        .into(),
                )],
                None,
                None,
            );
        }
    };
    let mut built = built;
    if expects_rejection(&step.expect) {
        // A server may close the connection after rejecting a request without reading
        // its body; such a connection must not go back to the pool, or the next request
        // on it fails for a reason that is not its own.
        built
            .request
            .headers
            .push(("connection".into(), "close".into()));
    }
    let sent = ctx.transport.send(&built.request).await;
    let exchange = Some(exchange_of(ctx, case, step_no, step, &built, &sent, vars));
    let resp = match sent {
        // A server may answer an oversized body early and close the connection while the
        // body is still being written (RFC 9110 allows it for 413): that is a rejection
        // whose status could not be read, so neither check can be judged.
        Err(TransportError::Connection(why))
            if built
                .request
                .body
                .as_ref()
                .is_some_and(|(_, b)| b.len() > LARGE_BODY) =>
        {
            let reason = format!(
                "the target closed the connection while the {} KiB body was being sent ({why}); its answer could not be read",
                built
                    .request
                    .body
                    .as_ref()
                    .map_or(0, |(_, b)| b.len() >> 10)
            );
            let mut out = vec![skipped(case, index, reason.clone())];
            out[0].check = Check::NotAServerError.into();
            out.push(skipped(case, index, reason));
            return (out, exchange, None);
        }
        Err(e) => {
            let got = Some(Got {
                status: None,
                headers: Vec::new(),
                body: String::new(),
                error: Some(e.to_string()),
            });
            let mut out = vec![result(
                Finding {
                    check: Check::NotAServerError.into(),
                    level: Level::Must,
                    verdict: Verdict::Failed,
                    message: transport_message(&e),
                    expected: "an answer within the timeout".into(),
                },
                Some(&built),
                got.clone(),
            )];
            if !matches!(step.expect, Expect::Observe) {
                out.push(result(
                    Finding {
                        check: case.check.clone(),
                        level: case.level,
                        verdict: Verdict::Failed,
                        message: transport_message(&e),
                        expected: "an answer".into(),
                    },
                    Some(&built),
                    got,
                ));
            }
            return (out, exchange, None);
        }
        Ok(r) => r,
    };
    let got = Some(got_of(ctx, &resp));
    let mut findings =
        checks::generic(op, &ctx.validators, &resp, ctx.spec.decisions.server_errors);
    if step.request.method.is_some() {
        // The spec declares no answer for an undeclared method: only "not a server
        // error" applies besides the case's own expectation (no rules either, below).
        findings.truncate(1);
    }
    findings.extend(checks::expectation(
        op,
        &case.check,
        case.level,
        &step.expect,
        &resp,
    ));
    let targets: Vec<String> = op
        .rules
        .iter()
        .filter_map(|r| match r {
            Rule::PreservesOtherFields { target, .. } => Some(target.clone()),
            _ => None,
        })
        .collect();
    let previous = ctx
        .state
        .lock()
        .map(|s| s.get(&op.id).cloned())
        .unwrap_or(None);
    let own_method = step.request.method.is_none();
    if own_method {
        findings.extend(checks::rules(
            op,
            &step.expect,
            &resp,
            &RuleInput {
                params: &built.params,
                body: built.body.as_ref(),
                previous: previous.as_ref(),
            },
        ));
    }
    if own_method
        && checks::is_success(op, &resp)
        && let Some(target) = targets.first()
        && let Some(now) = resp.json.as_ref().and_then(|j| j.get(target.as_str()))
        && let Ok(mut state) = ctx.state.lock()
    {
        state.insert(op.id.clone(), now.clone());
    }
    for a in &step.asserts {
        findings.push(checks::assertion(
            &case.check,
            case.level,
            a,
            resp.json.as_ref(),
            vars,
        ));
    }
    if let Some(body) = &resp.json {
        for (name, ptr) in &step.capture {
            if let Some(v) = pointer(body, ptr) {
                vars.set(name.clone(), v);
            }
        }
    }
    let results = findings
        .into_iter()
        .map(|f| result(f, Some(&built), got.clone()))
        .collect();
    (results, exchange, Some(resp))
}

fn expects_rejection(expect: &Expect) -> bool {
    match expect {
        Expect::Success | Expect::Observe => false,
        Expect::Status(s) => !(200..300).contains(s),
        Expect::Rejected { .. } | Expect::BusinessRejected(_) | Expect::MethodNotAllowed { .. } => {
            true
        }
    }
}

fn transport_message(e: &TransportError) -> String {
    match e {
        TransportError::Timeout(d) => format!(
            "no complete answer within the {:.1}s timeout",
            d.as_secs_f64()
        ),
        other => other.to_string(),
    }
}

/// The headers worth showing when judging an answer.
const SHOWN_HEADERS: &[&str] = &[
    "content-type",
    "content-length",
    "allow",
    "retry-after",
    "www-authenticate",
    "location",
];

fn excerpt(ctx: &Context, resp: &Response) -> String {
    let text = match &resp.json {
        Some(j) => ctx.secrets.redact_json(j).to_string(),
        None => ctx.secrets.redact(&String::from_utf8_lossy(
            &resp.body[..resp.body.len().min(EXCERPT * 4)],
        )),
    };
    if text.len() > EXCERPT {
        format!(
            "{}… ({} bytes)",
            &text[..text.floor_char_boundary(EXCERPT)],
            resp.body.len()
        )
    } else {
        text
    }
}

fn got_of(ctx: &Context, resp: &Response) -> Got {
    Got {
        status: Some(resp.status),
        headers: resp
            .headers
            .iter()
            .filter(|(k, _)| SHOWN_HEADERS.contains(&k.as_str()))
            .cloned()
            .collect(),
        body: excerpt(ctx, resp),
        error: None,
    }
}

/// A recorded JSON body: an `x-secret` field keeps a value the case spelled literally (it
/// is no secret, and a replay must send it as it is), the step's fresh authorization code
/// becomes `$CODE` (a replay fetches its own), and any other secret `<redacted>`.
fn record_json(secrets: &Secrets, v: &Value, tpl: Option<&Value>, code: Option<&str>) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let t = tpl.and_then(|t| t.get(k));
                    let out = match x {
                        Value::String(s) if code == Some(s.as_str()) => "$CODE".into(),
                        Value::String(s) if secrets.is_secret_field(k) && !s.is_empty() => {
                            match t {
                                Some(Value::String(lit)) if !lit.contains("${") => {
                                    Value::String(s.clone())
                                }
                                _ => "<redacted>".into(),
                            }
                        }
                        other => record_json(secrets, other, t, code),
                    };
                    (k.clone(), out)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| record_json(secrets, x, None, code))
                .collect(),
        ),
        Value::String(s) if code == Some(s.as_str()) => "$CODE".into(),
        Value::String(s) => Value::String(secrets.redact(s)),
        other => other.clone(),
    }
}

/// A recorded form body, by the same rules as [`record_json`].
fn record_form(secrets: &Secrets, text: &str, tpl: &str, code: Option<&str>) -> String {
    let pairs_of = |t: &str| -> Vec<(String, String)> {
        reqwest::Url::parse(&format!("http://x/?{t}"))
            .map(|u| {
                u.query_pairs()
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let literal: Vec<(String, String)> = pairs_of(tpl);
    let pairs: Vec<(String, String)> = pairs_of(text)
        .into_iter()
        .map(|(k, v)| {
            let out = if code == Some(v.as_str()) {
                "$CODE".to_string()
            } else if secrets.is_secret_field(&k)
                && !v.is_empty()
                && !literal
                    .iter()
                    .any(|(lk, lv)| *lk == k && !lv.contains("${"))
            {
                "<redacted>".to_string()
            } else {
                v
            };
            (k, out)
        })
        .collect();
    let mut u = reqwest::Url::parse("http://x/").expect("static URL");
    u.query_pairs_mut().extend_pairs(pairs);
    u.query().unwrap_or("").to_string()
}

fn exchange_of(
    ctx: &Context,
    case: &Case,
    step_no: usize,
    step: &Step,
    built: &Built,
    sent: &Result<Response, TransportError>,
    vars: &Vars,
) -> Exchange {
    let url = built.request.url.as_str();
    let path = url
        .strip_prefix(ctx.base_url.trim_end_matches('/'))
        .unwrap_or(url)
        .to_string();
    let auth = built
        .request
        .headers
        .iter()
        .find(|(k, _)| k == "authorization")
        .map(|(_, v)| {
            if ctx
                .token
                .as_deref()
                .is_some_and(|t| v == &format!("Bearer {t}"))
            {
                "token".to_string()
            } else {
                // The token as the header's credential, exactly; anything else is free text.
                match v.split_once(' ') {
                    Some((scheme, cred)) if ctx.token.as_deref() == Some(cred) => {
                        format!("{scheme} $TOKEN")
                    }
                    _ => ctx.secrets.redact(v),
                }
            }
        });
    let code = match (needs_code(&step.request), vars.get(LAST_CODE_VAR)) {
        (true, Some(Value::String(c))) => Some(c.as_str()),
        _ => None,
    };
    let body = built.request.body.as_ref().map(|(ct, bytes)| {
        let v = match (&built.body, &step.request.body) {
            (Some(j), Some(BodyTemplate::Json(t))) => record_json(&ctx.secrets, j, Some(t), code),
            (Some(j), _) => ctx.secrets.redact_json(j),
            (None, Some(BodyTemplate::Raw { text, .. }))
                if ct.starts_with("application/x-www-form-urlencoded") =>
            {
                Value::String(ctx.secrets.redact_in_url(&record_form(
                    &ctx.secrets,
                    &String::from_utf8_lossy(bytes),
                    text,
                    code,
                )))
            }
            (None, _) => {
                let text = String::from_utf8_lossy(bytes);
                let text = code.map_or(text.to_string(), |c| text.replace(c, "$CODE"));
                Value::String(ctx.secrets.redact_text(ct, &text))
            }
        };
        (ct.clone(), v)
    });
    let (status, error, content_type, response) = match sent {
        Ok(r) => (
            Some(r.status),
            None,
            r.media_type(),
            match &r.json {
                Some(j) => ctx.secrets.redact_json(j),
                None => Value::String(ctx.secrets.redact(&String::from_utf8_lossy(
                    &r.body[..r.body.len().min(64 * 1024)],
                ))),
            },
        ),
        Err(e) => (None, Some(e.to_string()), None, Value::Null),
    };
    Exchange {
        case: case.id.clone(),
        operation: step.request.op.clone(),
        step: step_no,
        method: built.request.method.to_string(),
        path,
        auth,
        body,
        status,
        error,
        content_type,
        response,
    }
}
