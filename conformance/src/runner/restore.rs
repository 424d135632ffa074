//! Leaving the target as the run found it. The write cases change a record the target
//! keeps (the contact update changes the user's contact record), and the operations may
//! offer no way to read that record before the first write (the update answers with the
//! record after its change), so the values to put back come from the fixtures
//! (`restore:`). After the last case, each operation the run wrote through is sent once
//! more with them; the answer is judged like any other (status, schema, and `x-rules` such
//! as `echoes-request`, which proves the values were taken), and one `state_restored`
//! result says whether the record is back, naming the values to put back by hand when it
//! is not. A failed restore fails the run (MUST): the shared target is left changed, and
//! a green gate would hide it. Writes with no values to put back leave the run incomplete.

use serde_json::{Map, Value};

use super::step::{missing_input, run_case, skipped};
use super::{CaseReport, Context, finalise};
use crate::case::{AuthMode, BodyTemplate, Case, Expect, RequestTemplate, Step};
use crate::outcome::{CheckResult, Verdict};
use crate::registry::Check;
use crate::spec::{Level, Rule, Spec};
use crate::vars::Vars;

/// The `restore:` values of the fixtures, per operation.
pub type RestoreValues = [(String, Map<String, Value>)];

/// Checks the fixtures' `restore:` against the spec before anything is sent: each
/// operation exists and writes, and each body names only the operation's body fields and
/// every required one (a restore that the target must reject would leave the record
/// changed).
pub fn check_values(spec: &Spec, values: &RestoreValues) -> Result<(), String> {
    for (op_id, body) in values {
        let op = spec
            .operation(op_id)
            .ok_or_else(|| format!("restore.{op_id}: the spec has no such operation"))?;
        let decl = op.body.as_ref().filter(|_| op.writes()).ok_or_else(|| {
            format!("restore.{op_id}: the operation changes nothing, there is nothing to put back")
        })?;
        let known: Vec<String> = decl.properties().into_iter().map(|(n, _)| n).collect();
        if let Some(extra) = body.keys().find(|k| !known.contains(k)) {
            return Err(format!(
                "restore.{op_id}.{extra}: not a body field of {op_id} (fields: {})",
                known.join(", ")
            ));
        }
        let missing: Vec<String> = decl
            .required()
            .into_iter()
            .filter(|f| !body.contains_key(f))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "restore.{op_id}: the required field(s) {} are missing",
                missing.join(", ")
            ));
        }
    }
    Ok(())
}

/// The operations the cases update a record through with the run's token (in case order,
/// once each): those whose records the run may change. A create makes something new
/// (removed at the end where the spec has a way to), and an update of what the same case
/// created changes nothing that was there before. A `DELETE` is no write to put back:
/// sending it again restores nothing, and the gate sends one on a record the run did not
/// make only under `--allow-destructive`, where the user accepted the loss.
pub fn written(spec: &Spec, cases: &[Case]) -> Vec<String> {
    let mut ops: Vec<String> = Vec::new();
    let is_create = |s: &Step| {
        spec.operation(&s.request.op)
            .is_some_and(|o| o.effect == crate::effect::Effect::Create)
    };
    for c in cases.iter().filter(|c| c.skip.is_none()) {
        for (i, s) in c.steps.iter().enumerate() {
            if s.request.auth == AuthMode::Token
                && !crate::safety::own_target(spec, c, i, is_create)
                && s.request.method.is_none()
                && s.request.path.is_none()
                && spec.operation(&s.request.op).is_some_and(|o| {
                    o.effect == crate::effect::Effect::Update
                        && !o.method.eq_ignore_ascii_case("DELETE")
                })
                && !ops.contains(&s.request.op)
            {
                ops.push(s.request.op.clone());
            }
        }
    }
    ops
}

/// Puts back each written operation's record; the reports are numbered from
/// `first_index` on, after the run's cases.
pub async fn restore(
    ctx: &Context,
    written: &[String],
    values: &RestoreValues,
    first_index: usize,
) -> Vec<CaseReport> {
    let mut reports = Vec::new();
    for (i, op) in written.iter().enumerate() {
        let index = first_index + i;
        let case = restore_case(op);
        let report = match values.iter().find(|(o, _)| o == op) {
            Some((_, body)) => {
                let case = with_body(case, body);
                let mut report = run_case(ctx, index, &case, &Vars::default()).await;
                // A step skipped for want of a credential already leaves the run
                // incomplete, and says why.
                if report.results.iter().all(|r| r.verdict != Verdict::Skipped) {
                    let verdict = summary(ctx, &case, index, body, &report.results);
                    report.results.push(verdict);
                }
                report
            }
            None => CaseReport {
                index,
                results: vec![missing_input(skipped(
                    &case,
                    index,
                    format!(
                        "the run wrote through {op} and cannot put the record back: the API gives no way to read its original values, give them under `restore: {{ {op}: {{ … }} }}` in --fixtures"
                    ),
                ))],
                exchanges: Vec::new(),
            },
        };
        reports.push(finalise(ctx, report));
    }
    reports
}

fn restore_case(op: &str) -> Case {
    Case {
        id: format!("restore/{op}"),
        operation: op.to_string(),
        check: Check::StateRestored.into(),
        level: Level::Must,
        steps: Vec::new(),
        serial: true,
        skip: None,
        requires: Vec::new(),
        cap: None,
    }
}

fn with_body(mut case: Case, body: &Map<String, Value>) -> Case {
    case.steps = vec![Step {
        request: RequestTemplate {
            op: case.operation.clone(),
            params: Vec::new(),
            body: Some(BodyTemplate::Json(Value::Object(body.clone()))),
            auth: AuthMode::Token,
            explode: None,
            style: None,
            method: None,
            path: None,
        },
        expect: Expect::Success,
        capture: Vec::new(),
        asserts: Vec::new(),
    }];
    case
}

/// The one result that says whether the record is back: passed when the restore's
/// answer broke no MUST; failed otherwise, naming the values.
fn summary(
    ctx: &Context,
    case: &Case,
    index: usize,
    body: &Map<String, Value>,
    results: &[CheckResult],
) -> CheckResult {
    let what = record_name(&ctx.spec, &case.operation);
    let values = ctx
        .secrets
        .redact_json(&Value::Object(body.clone()))
        .to_string();
    let cause = results
        .iter()
        .find(|r| r.verdict == Verdict::Failed && r.level == Level::Must);
    let mut r = skipped(case, index, String::new());
    r.step = 1;
    r.expected = format!("{what} restored to {values}");
    match cause {
        None => r.verdict = Verdict::Passed,
        Some(c) => {
            r.verdict = Verdict::Failed;
            r.message = format!(
                "{what} NOT restored ({}: {}); it may still hold the run's last write: put these values back through {} by hand: {values}",
                c.check, c.message, case.operation
            );
            r.got = c.got.clone();
            r.curl = c.curl.clone();
        }
    }
    r
}

/// How the output names what an operation changes: the target of its `echoes-request`
/// rule (the record the answer shows), else the operation's own name.
fn record_name(spec: &Spec, op: &str) -> String {
    spec.operation(op)
        .and_then(|o| {
            o.rules.iter().find_map(|r| match r {
                Rule::EchoesRequest { target, .. } => Some(format!("{target} record")),
                _ => None,
            })
        })
        .unwrap_or_else(|| format!("the record {op} changes"))
}

/// The lines the terminal shows about restoring, above the totals: one per written
/// operation, restored or not.
pub fn note(results: &[CheckResult]) -> String {
    let mut note = String::new();
    for r in results
        .iter()
        .filter(|r| r.check == Check::StateRestored && r.case.starts_with("restore/"))
    {
        let line = match r.verdict {
            Verdict::Passed if r.step == 1 => {
                format!("{} (sent back through {})", r.expected, r.operation)
            }
            Verdict::Skipped if r.missing_input => format!("NOT RESTORED: {}", r.message),
            Verdict::Failed | Verdict::Known if r.step == 1 => {
                format!("RESTORE FAILED: {}", r.message)
            }
            _ => continue,
        };
        note.push_str(&format!("{line}\n"));
    }
    note
}
