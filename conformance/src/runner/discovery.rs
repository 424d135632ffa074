//! Discovery: the contract files' first steps, run in order before any case, binding
//! variables from the target's own data (the first value whose captures all resolve), and
//! the data sweep (`each`): every record discovery can reach, read and judged, within the
//! run's request budget.

use serde_json::Value;

use super::step::run_step;
use super::{CaseReport, Context, finalise};
use crate::case::{Case, Expect, Step};
use crate::contracts::{Discover, TryEach};
use crate::registry::Check;
use crate::spec::Level;
use crate::vars::{Vars, pointer};

/// Runs discovery steps in order, binding variables; their answers are checked too.
/// `budget` is how many requests the sweep steps (`each`) may still send.
pub async fn discover(
    ctx: &Context,
    steps: &[Discover],
    vars: &mut Vars,
    budget: &mut usize,
) -> CaseReport {
    let mut report = CaseReport {
        index: 0,
        results: Vec::new(),
        exchanges: Vec::new(),
    };
    for d in steps {
        if let Some(each) = &d.each {
            sweep(ctx, d, each, vars, budget, &mut report).await;
            continue;
        }
        let id = format!("discover/{}", d.id);
        let values: Vec<Option<Value>> = match &d.try_each {
            None => vec![None],
            Some(t) => match vars.substitute(&Value::String(t.values.clone())) {
                Ok(Value::Array(a)) => a.into_iter().take(t.max).map(Some).collect(),
                _ => Vec::new(),
            },
        };
        for value in values {
            let with = d.try_each.as_ref().zip(value.clone());
            let Some(body) = observe(ctx, &id, d, with, vars, &mut report).await else {
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

/// Sends a discovery step's request (with `param = value` when it iterates), judges the
/// answer under the step's id and returns its JSON body.
async fn observe(
    ctx: &Context,
    id: &str,
    d: &Discover,
    with: Option<(&TryEach, Value)>,
    vars: &Vars,
    report: &mut CaseReport,
) -> Option<Value> {
    let mut tpl = d.request.clone();
    if let Some((t, v)) = with {
        tpl.params.retain(|(n, _)| *n != t.param);
        tpl.params.push((t.param.clone(), v));
    }
    let case = observation(id, d, tpl);
    let step = case.steps[0].clone();
    let mut local = vars.clone();
    let (results, exchange, resp) = run_step(ctx, &case, 0, 0, &step, &mut local).await;
    report.results.extend(results);
    report.exchanges.extend(exchange);
    resp.and_then(|r| r.json)
}

/// The one-step case a discovery step sends (its request as `tpl`), observed, not judged
/// as a success or rejection.
fn observation(id: &str, d: &Discover, tpl: crate::case::RequestTemplate) -> Case {
    Case {
        id: id.to_string(),
        operation: d.request.op.clone(),
        check: Check::Discovery.into(),
        level: Level::Must,
        steps: vec![Step {
            request: tpl,
            expect: Expect::Observe,
            capture: Vec::new(),
            asserts: Vec::new(),
        }],
        serial: true,
        skip: None,
        requires: Vec::new(),
        cap: None,
    }
}

/// Splits discovery steps into those the run's safety gate lets through and a skipped
/// result for each of the others: a user's contract file may name a `POST` (or a logout)
/// as a discovery step, and discovery runs before any case, so it passes the same gate as
/// every case. Variables a refused step would have bound stay unbound, and the cases
/// needing them skip as missing that input.
pub fn gated(
    steps: &[Discover],
    gate: &crate::safety::Gate<'_>,
) -> (Vec<Discover>, Vec<crate::outcome::CheckResult>) {
    let mut allowed = Vec::new();
    let mut refused = Vec::new();
    for d in steps {
        let id = format!("discover/{}", d.id);
        match gate.refusal(&observation(&id, d, d.request.clone())) {
            None => allowed.push(d.clone()),
            Some(why) => refused.push(crate::outcome::CheckResult {
                case_index: 0,
                step: 0,
                case: id,
                operation: d.request.op.clone(),
                check: Check::Discovery.into(),
                level: Level::Must,
                verdict: crate::outcome::Verdict::Skipped,
                message: why,
                expected: String::new(),
                got: None,
                curl: None,
                missing_input: false,
                elapsed: None,
            }),
        }
    }
    (allowed, refused)
}

/// One sweep step: the request for every value of the list (at most `each.max`, and no
/// more than the budget), every answer judged; `collect` gathers values from all answers.
async fn sweep(
    ctx: &Context,
    d: &Discover,
    each: &TryEach,
    vars: &mut Vars,
    budget: &mut usize,
    report: &mut CaseReport,
) {
    let id = format!("discover/{}", d.id);
    let values: Vec<Value> = match vars.substitute(&Value::String(each.values.clone())) {
        Ok(Value::Array(a)) => a.into_iter().take(each.max).collect(),
        Ok(one) => vec![one],
        // Nothing to sweep (an earlier step found no data); the cases that need the
        // variable say so when they skip.
        Err(_) => Vec::new(),
    };
    let mut gathered: Vec<Vec<Value>> = vec![Vec::new(); d.collect.len()];
    let total = values.len();
    for (sent, value) in values.into_iter().enumerate() {
        if *budget == 0 {
            report
                .results
                .push(budget_spent(&id, &d.request.op, total - sent));
            break;
        }
        *budget -= 1;
        let Some(body) = observe(ctx, &id, d, Some((each, value)), vars, report).await else {
            continue;
        };
        for ((_, ptr), list) in d.collect.iter().zip(&mut gathered) {
            match pointer(&body, ptr) {
                Some(Value::Array(items)) => list.extend(items),
                Some(Value::Null) | None => {}
                Some(v) => list.push(v),
            }
        }
    }
    for ((var, _), mut list) in d.collect.iter().zip(gathered) {
        // Several answers name the same record (a category found by many texts): each is
        // swept once, in the order first seen.
        let mut seen = std::collections::HashSet::new();
        list.retain(|v| seen.insert(v.to_string()));
        vars.set(var.clone(), Value::Array(list));
    }
}

/// The result that says a sweep stopped at the request budget: the records it did not
/// read were not judged (a SHOULD skip: raise `--max-requests` to read them all).
fn budget_spent(id: &str, op: &str, left: usize) -> crate::outcome::CheckResult {
    crate::outcome::CheckResult {
        case_index: 0,
        step: 0,
        case: id.to_string(),
        operation: op.to_string(),
        check: Check::Discovery.into(),
        level: Level::Should,
        verdict: crate::outcome::Verdict::Skipped,
        message: format!(
            "the --max-requests budget is spent: {left} value(s) of this sweep were not read"
        ),
        expected: String::new(),
        got: None,
        curl: None,
        missing_input: false,
        elapsed: None,
    }
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::http::Uri;
    use axum::routing::get;

    use super::*;
    use crate::runner::test_support::{context, request};

    /// Category 1 has no limits, category 2 has limit 9: the step must stop at 2.
    async fn stub() -> String {
        let app = Router::new().route(
            "/v1/categoryPositionLimit/deps",
            get(|uri: Uri| async move {
                let body = match uri.query() {
                    Some("masterid=2") => {
                        r#"[{"id":9,"active":true,"totalBy":"Contract","riskCategoryId":2}]"#
                    }
                    _ => "[]",
                };
                ([("content-type", "application/json")], body)
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        format!("http://{addr}/v1")
    }

    /// A step trying each of `${ids}` as `masterid`, at most `max` of them.
    fn limits(max: usize, capture: &[(&str, &str)]) -> Discover {
        Discover {
            id: "limits".into(),
            request: request("listCategoryPositionLimits", Vec::new()),
            try_each: Some(TryEach {
                param: "masterid".into(),
                values: "${ids}".into(),
                max,
            }),
            capture: capture
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            each: None,
            collect: Vec::new(),
        }
    }

    #[tokio::test]
    async fn try_each_stops_at_the_first_value_whose_captures_all_resolve() {
        let ctx = context(&stub().await);
        let mut vars = Vars::default();
        vars.set("ids", serde_json::json!([1, 2, 3]));
        let steps = [limits(10, &[("category", "$param"), ("limit", "/0/id")])];
        let report = discover(&ctx, &steps, &mut vars, &mut 100).await;
        assert_eq!(report.exchanges.len(), 2, "value 3 is never tried");
        assert_eq!(vars.get("category"), Some(&serde_json::json!(2)));
        assert_eq!(vars.get("limit"), Some(&serde_json::json!(9)));
        assert!(
            report.results.iter().all(|r| r.case == "discover/limits"),
            "answers are judged under the step's id"
        );
    }

    #[tokio::test]
    async fn a_step_whose_captures_never_resolve_binds_nothing() {
        let ctx = context(&stub().await);
        let mut vars = Vars::default();
        vars.set("ids", serde_json::json!([1, 3]));
        let steps = [limits(1, &[("limit", "/0/id")])];
        let report = discover(&ctx, &steps, &mut vars, &mut 100).await;
        assert_eq!(report.exchanges.len(), 1, "`max` bounds the tries");
        assert_eq!(vars.get("limit"), None);
    }
}
