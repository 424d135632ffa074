//! Step execution: a case's steps in order, each built from its template, sent and judged;
//! OAuth codes fetched per step; an encodings case judged across its steps at the end.

use serde_json::Value;

use super::record::exchange_of;
use super::{CaseReport, Context, Exchange};
use crate::case::{AuthMode, Case, Expect, Step};
use crate::checks::{self, Answer, Finding, StepVerdict, judge_encodings};
use crate::outcome::{CheckResult, Got, Verdict};
use crate::registry::Check;
use crate::request::{BuildError, Built, build};
use crate::spec::{Level, Operation};
use crate::transport::{Response, TransportError};
use crate::vars::{Vars, pointer};

/// The longest body excerpt a report shows.
const EXCERPT: usize = 600;
use super::codes::{CODE_VAR, LAST_CODE_VAR, needs_code};

/// Marks a skip as caused by an input the run lacks (see [`CheckResult::missing_input`]).
pub(super) fn missing_input(mut r: CheckResult) -> CheckResult {
    r.missing_input = true;
    r
}

pub(super) fn skipped(case: &Case, index: usize, why: String) -> CheckResult {
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
        missing_input: false,
        elapsed: None,
    }
}

/// Runs one case's steps in order.
pub(super) async fn run_case(ctx: &Context, index: usize, case: &Case, vars: &Vars) -> CaseReport {
    let mut report = CaseReport {
        index,
        results: Vec::new(),
        exchanges: Vec::new(),
    };
    if let Some(why) = &case.skip {
        let r = skipped(case, index, why.clone());
        report.results.push(if crate::case::is_missing_input(why) {
            missing_input(r)
        } else {
            r
        });
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
    // Whether every step so far answered 2xx: the condition of `after_success` asserts.
    let mut all_succeeded = true;
    for (i, step) in case.steps.iter().enumerate() {
        let conditional = step.asserts.iter().any(|a| a.after_success);
        let trimmed;
        let step = if conditional && !all_succeeded {
            trimmed = Step {
                asserts: step
                    .asserts
                    .iter()
                    .filter(|a| !a.after_success)
                    .cloned()
                    .collect(),
                ..step.clone()
            };
            &trimmed
        } else {
            step
        };
        let (results, exchange, resp) = run_step(ctx, case, index, i, step, &mut local).await;
        all_succeeded &= resp
            .as_ref()
            .is_some_and(|r| (200..300).contains(&r.status));
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
        // A chain's later steps judge what this one did (a read after a delete): where it
        // did not succeed, they have nothing to judge (a delete refused with a 503 leaves
        // the resource there, and a read of it is no use after free).
        let unmet = resp
            .as_ref()
            .is_some_and(|r| !(200..300).contains(&r.status));
        if unmet
            && matches!(step.expect, Expect::Success)
            && case.id.contains("/chain/")
            && i + 1 < case.steps.len()
        {
            let status = resp.as_ref().map_or(0, |r| r.status);
            report.results.push(skipped(
                case,
                index,
                format!(
                    "step {} answered {status}, not the success the chain's next steps judge",
                    i + 1
                ),
            ));
            break;
        }
    }
    if case.check == Check::AlternateEncodings && step_ok.len() == case.steps.len() {
        report
            .results
            .extend(judge_encodings(&ctx.spec, case, index, &step_ok));
    }
    report
}

/// What a step gave: its results, its exchange (when a request went out) and the answer
/// (when one came).
type StepOutcome = (Vec<CheckResult>, Option<Exchange>, Option<Response>);

/// Runs one step: build, send, then every registered judge on the answer
/// ([`checks::judge`]). Returns the results, the exchange and the answer.
pub(super) async fn run_step(
    ctx: &Context,
    case: &Case,
    index: usize,
    step_no: usize,
    step: &Step,
    vars: &mut Vars,
) -> StepOutcome {
    let op = ctx.spec.operation(&step.request.op).expect("validated");
    let at = At {
        case,
        index,
        step_no,
    };
    let secured_token = op.secured && step.request.auth == AuthMode::Token;
    if let Some(why) = ctx.reach.not_sent() {
        return (vec![skipped(case, index, why)], None, None);
    }
    if secured_token && let Some(why) = ctx.credentials.dead() {
        return (vec![skipped(case, index, why)], None, None);
    }
    if needs_code(&step.request) {
        match ctx.oauth.fresh_code(&ctx.transport).await {
            Ok(code) => {
                vars.set(CODE_VAR, Value::String(code.clone()));
                vars.set(LAST_CODE_VAR, Value::String(code));
            }
            Err(why) => return (vec![missing_input(skipped(case, index, why))], None, None),
        }
    }
    let built = match built(ctx, step, vars) {
        Ok(b) => b,
        Err(r) => return (vec![at.not_built(r)], None, None),
    };
    let sending = format!(
        "{} ({} {})",
        op.id,
        built.request.method,
        built.request.url.path()
    );
    if secured_token {
        ctx.credentials.sending(sending.clone(), changes(op, step));
    }
    ctx.reach.sending(sending.clone());
    let sent = ctx.transport.send(&built.request).await;
    let exchange = Some(Exchange {
        case_index: index,
        ..exchange_of(ctx, case, step_no, step, &built, &sent, vars)
    });
    let resp = match sent {
        Ok(r) => r,
        Err(e) => {
            return (
                at.unanswered(ctx, step, &built, &sending, e).await,
                exchange,
                None,
            );
        }
    };
    if secured_token
        && matches!(resp.status, 401 | 403)
        && super::credentials::recheck(ctx, &op.id).await
    {
        // Not the target's failure: the run's own credentials no longer work.
        let why = ctx.credentials.dead().unwrap_or_default();
        return (vec![skipped(case, index, why)], exchange, None);
    }
    let gone = note_gone(ctx, op, step, resp.status, built.request.url.path());
    if step.request.method.is_none()
        && step.request.path.is_none()
        && op.method.eq_ignore_ascii_case("DELETE")
        && (200..300).contains(&resp.status)
    {
        ctx.created.deleted(&ctx.spec, op, built.request.url.path());
    }
    let fresh = step.request.method.is_some()
        || step.request.path.is_some()
        || ctx.created.note(
            &ctx.spec,
            &ctx.secrets,
            op,
            &resp,
            (built.request.url.path(), &built.curl),
        );
    // A chain goes on only with a record of its own: a target that creates by name or
    // content may answer a chain's create with a record another case made (and reads, or
    // a later pass, rely on), which the chain's update or delete must not touch.
    if !fresh && checks::is_chain_setup(step) {
        return (
            vec![skipped(
                case,
                index,
                "the chain's create answered a record another case of the run made; the chain goes on only with one of its own".into(),
            )],
            exchange,
            None,
        );
    }
    let findings = checks::judge(
        &Answer {
            spec: &ctx.spec,
            validators: &ctx.validators,
            op,
            case,
            step,
            sent: &built,
            resp: &resp,
            vars,
            seen: &ctx.seen,
            gone,
        },
        &ctx.options,
    );
    for (name, ptr) in &step.capture {
        if let Some(v) = captured(&resp, name, ptr) {
            vars.set(name.clone(), v);
        }
    }
    let got = Some(got_of(ctx, &resp));
    // A request naming a record the run created cannot be sent again alone once the run
    // has removed it: its curl line says which request made the record.
    let needs = ctx
        .created
        .maker_of(built.request.url.path(), &built.curl)
        .map(|(key, curl)| {
            format!(
                "\n# {key} names a record the run created first (and removed at its end); make it again with:\n{curl}"
            )
        });
    let results = findings
        .into_iter()
        .map(|f| {
            let mut r = CheckResult {
                elapsed: Some(resp.elapsed),
                ..at.result(f, Some(&built), got.clone())
            };
            if let (Some(curl), Some(needs)) = (&mut r.curl, &needs) {
                curl.push_str(needs);
            }
            r
        })
        .collect();
    (results, exchange, Some(resp))
}

/// Whether the step's request may change the target: its operation's own method where it
/// sends one, else the method it sends.
fn changes(op: &Operation, step: &Step) -> bool {
    match &step.request.method {
        None if step.request.path.is_none() => op.writes(),
        None => op.method != "GET",
        Some(m) => !crate::effect::safe_method(m),
    }
}

/// The step's request built from its template with the bound variables (an OAuth code
/// masked in its curl line), or why it could not be.
fn built(ctx: &Context, step: &Step, vars: &Vars) -> Result<Built, BuildError> {
    let mut built = build(
        &ctx.spec,
        &ctx.base_url,
        &step.request,
        vars,
        ctx.token.as_deref(),
        &ctx.secrets,
    )?;
    // Codes are fetched per step, so the secrets list cannot know them: mask here.
    if let Some(Value::String(code)) = vars.get(LAST_CODE_VAR) {
        built.curl = built.curl.replace(code.as_str(), "$CODE");
    }
    if step.expect.is_rejection() {
        // A server may close the connection after rejecting a request without reading
        // its body; such a connection must not go back to the pool, or the next request
        // on it fails for a reason that is not its own.
        built
            .request
            .headers
            .push(("connection".into(), "close".into()));
    }
    Ok(built)
}

/// Where in the run a step is: its case, the case's index and the step's number.
struct At<'a> {
    case: &'a Case,
    index: usize,
    step_no: usize,
}

impl At<'_> {
    /// A finding attached to the step: the case's level cap applied (never to "not a
    /// server error"), and what was sent and got shown only where it did not pass. A
    /// chain's create (its setup) is filed under the create, whose answer shows it, not
    /// under the operation the chain is named after; every other step under its case's.
    fn result(&self, f: Finding, built: Option<&Built>, got: Option<Got>) -> CheckResult {
        let shown = f.verdict != Verdict::Passed;
        let operation = self
            .case
            .steps
            .get(self.step_no)
            .filter(|s| crate::checks::is_chain_setup(s) && !s.request.op.is_empty())
            .map(|s| s.request.op.clone())
            .unwrap_or_else(|| self.case.operation.clone());
        CheckResult {
            case_index: self.index,
            step: self.step_no,
            case: self.case.id.clone(),
            operation,
            level: match self.case.cap {
                Some(cap) if f.check != Check::NotAServerError => f.level.max(cap),
                _ => f.level,
            },
            check: f.check,
            verdict: f.verdict,
            message: f.message,
            expected: f.expected,
            got: if shown { got } else { None },
            curl: if shown {
                built.map(|b| b.curl.clone())
            } else {
                None
            },
            missing_input: false,
            elapsed: None,
        }
    }

    /// The skip of a step whose request could not be built.
    fn not_built(&self, e: BuildError) -> CheckResult {
        let (case, index) = (self.case, self.index);
        match e {
            BuildError::Unbound(v) if chain_variable(&v) => skipped(
                case,
                index,
                "the chain's create answered no id to go on with (its answer is in the first step's record)".into(),
            ),
            BuildError::Unbound(v) => missing_input(skipped(
                case,
                index,
                format!(
                    "variable `{v}` is not bound: neither discovered on the target nor given by --fixtures"
                ),
            )),
            BuildError::Unfilled(name) => missing_input(skipped(
                case,
                index,
                format!(
                    "missing input: no value for path parameter `{name}` (give one in a contract file's `defaults`, or an `example` in the spec)"
                ),
            )),
            BuildError::NoToken => missing_input(skipped(
                case,
                index,
                "no bearer token: give --token (or CONFORMANCE_TOKEN) or OAuth client fixtures"
                    .into(),
            )),
        }
    }

    /// The results of a request that got no answer: skips where that is not the
    /// target's failure, else a failure of "not a server error" and of the case's check.
    async fn unanswered(
        &self,
        ctx: &Context,
        step: &Step,
        built: &Built,
        sending: &str,
        e: TransportError,
    ) -> Vec<CheckResult> {
        let (case, index) = (self.case, self.index);
        let body_len = built.request.body.as_ref().map_or(0, |(_, b)| b.len());
        let over_limit = built.request.body.is_some()
            && ctx
                .spec
                .decisions
                .max_body
                .is_some_and(|(limit, _, _)| body_len > limit);
        match e {
            // A server may answer a body over the spec's `x-max-body` early and close the
            // connection while the body is still being written (RFC 9110 allows it for
            // 413): that is a rejection whose status could not be read, so neither check
            // can be judged.
            TransportError::Connection(why) if over_limit => {
                let reason = format!(
                    "the target closed the connection while the {} KiB body was being sent ({why}); its answer could not be read",
                    body_len >> 10
                );
                let mut out = vec![skipped(case, index, reason.clone())];
                out[0].check = Check::NotAServerError.into();
                out.push(skipped(case, index, reason));
                out
            }
            // The target may have gone away: if a probe of the base URL fails too, this
            // and every later request are not the target's failures.
            e if super::reach::may_be_gone(&e) && super::reach::recheck(ctx, sending, &e).await => {
                let why = format!(
                    "{e}; the target was then found gone (TARGET UNREACHABLE, see the summary): not judged"
                );
                vec![skipped(case, index, why)]
            }
            e => {
                let got = Some(Got {
                    status: None,
                    headers: Vec::new(),
                    body: String::new(),
                    error: Some(e.to_string()),
                });
                let mut out = vec![self.result(
                    Finding {
                        check: Check::NotAServerError.into(),
                        level: Level::Must,
                        verdict: Verdict::Failed,
                        message: transport_message(&e),
                        expected: "an answer within the timeout".into(),
                    },
                    Some(built),
                    got.clone(),
                )];
                if !matches!(step.expect, Expect::Observe) {
                    out.push(self.result(
                        Finding {
                            check: case.check.clone(),
                            level: case.level,
                            verdict: Verdict::Failed,
                            message: transport_message(&e),
                            expected: "an answer".into(),
                        },
                        Some(built),
                        got,
                    ));
                }
                out
            }
        }
    }
}

/// Whether `name` is a variable a chain's create captures: the key the chain goes on
/// with, or another key a later step addresses the same resource by.
fn chain_variable(name: &str) -> bool {
    name.strip_prefix(crate::plan::CHAIN_CREATED)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// The value a step captures as `name`: the answer's field at `ptr`, or for a chain's
/// create that answers no such field, the field at `ptr` of the one object in its
/// envelope that has it (`{"data": {"id": …}}`), else the last segment of its `Location`
/// header (a `201 Created` that names the new resource only there).
fn captured(resp: &Response, name: &str, ptr: &str) -> Option<Value> {
    let chain = chain_variable(name);
    resp.json
        .as_ref()
        .and_then(|body| pointer(body, ptr))
        .or_else(|| {
            // A created record wrapped in an envelope (`{"data": {…}, "permissions": …}`):
            // the one object-valued field that holds the key.
            let body = resp.json.as_ref().filter(|_| chain)?.as_object()?;
            let mut inner = body
                .values()
                .filter(|v| v.is_object())
                .filter_map(|v| pointer(v, ptr));
            let one = inner.next()?;
            inner.next().is_none().then_some(one)
        })
        .or_else(|| {
            let location = resp.header("location")?;
            let path = location.split(['?', '#']).next().unwrap_or(location);
            let last = path.trim_end_matches('/').rsplit('/').next()?;
            (name == crate::plan::CHAIN_CREATED
                && (200..300).contains(&resp.status)
                && !last.is_empty())
            .then(|| Value::String(percent_decoded(last)))
        })
}

/// `text` with its `%XX` escapes decoded (a `Location` path segment), kept as it is where
/// the escapes do not make UTF-8.
fn percent_decoded(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8()
        .map_or_else(|_| text.to_string(), |t| t.into_owned())
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
        None => {
            let shown = EXCERPT * 4;
            if let Some(binary) = crate::binary::shown(
                resp.media_type().as_deref(),
                &resp.body,
                shown,
                &ctx.secrets,
            ) {
                return binary;
            }
            ctx.secrets.redact(&String::from_utf8_lossy(
                &resp.body[..resp.body.len().min(shown)],
            ))
        }
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

/// Whether a request to `path` answered `status` asked for what the run deleted before (see
/// `gone`), after noting what this answer deletes or shows to be there.
fn note_gone(ctx: &Context, op: &Operation, step: &Step, status: u16, path: &str) -> bool {
    let gone = !(200..300).contains(&status) && ctx.gone.holds(path);
    if (200..300).contains(&status) {
        if op.method.eq_ignore_ascii_case("DELETE") && step.request.method.is_none() {
            ctx.gone.deleted(path);
        } else {
            ctx.gone.answered(path);
        }
    }
    gone
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::captured;
    use crate::checks::test_support::resp;
    use crate::plan::CHAIN_CREATED;

    #[test]
    fn a_chain_takes_its_resource_from_the_body_else_from_the_location_header() {
        // The answer's field first.
        let made = resp(201, json!({"id": "from-body"}));
        assert_eq!(
            captured(&made, CHAIN_CREATED, "/id"),
            Some(json!("from-body"))
        );
        // A 201 that names the resource only in `Location`: its last segment, decoded.
        let mut located = resp(201, json!({}));
        located
            .headers
            .push(("location".into(), "/api/things/a%20b/?x=1".into()));
        assert_eq!(captured(&located, CHAIN_CREATED, "/id"), Some(json!("a b")));
        // Only for a chain's create, and only on success.
        assert_eq!(captured(&located, "other", "/id"), None);
        located.status = 400;
        assert_eq!(captured(&located, CHAIN_CREATED, "/id"), None);
    }
}
