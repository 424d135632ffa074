//! Discovery: the contract files' first steps, run in order before any case, binding
//! variables from the target's own data (the first value whose captures all resolve).

use serde_json::Value;

use super::step::run_step;
use super::{CaseReport, Context, finalise};
use crate::case::{Case, Expect, Step};
use crate::contracts::Discover;
use crate::registry::Check;
use crate::spec::Level;
use crate::vars::{Vars, pointer};

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

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::http::Uri;
    use axum::routing::get;

    use super::*;
    use crate::contracts::TryEach;
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
        }
    }

    #[tokio::test]
    async fn try_each_stops_at_the_first_value_whose_captures_all_resolve() {
        let ctx = context(&stub().await);
        let mut vars = Vars::default();
        vars.set("ids", serde_json::json!([1, 2, 3]));
        let steps = [limits(10, &[("category", "$param"), ("limit", "/0/id")])];
        let report = discover(&ctx, &steps, &mut vars).await;
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
        let report = discover(&ctx, &steps, &mut vars).await;
        assert_eq!(report.exchanges.len(), 1, "`max` bounds the tries");
        assert_eq!(vars.get("limit"), None);
    }
}
