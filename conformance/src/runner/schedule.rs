//! Scheduling: which case runs on which task. Reads run in parallel (at most `workers`),
//! writes one at a time in case order; reports come back sorted by case order.
//!
//! A single-use authorization code (`--auth-code`, or `oauth.code` in the fixtures) goes to
//! one case chosen here, before anything is sent: the first case in case order that is not
//! skipped and has a step needing a code. Every other case needing one is skipped as
//! missing an input, naming the case that got it. Left to the workers, whichever case
//! asked first would win and two runs with the same seed could differ.

use std::sync::Arc;

use tokio::sync::{Semaphore, mpsc};

use super::codes::needs_code;
use super::step::{missing_input, run_case, skipped};
use super::{CaseReport, Context, finalise};
use crate::case::Case;
use crate::vars::Vars;

/// Runs the cases; `on_case` sees each case's report as soon as it is done.
/// `done` holds the (1-based) indexes of cases already run (by pre-flight), which are
/// not sent again.
pub async fn run_cases(
    ctx: Arc<Context>,
    cases: Vec<Case>,
    done: &[usize],
    vars: Vars,
    workers: usize,
    mut on_case: impl FnMut(&CaseReport),
) -> Vec<CaseReport> {
    let (tx, mut rx) = mpsc::unbounded_channel::<CaseReport>();
    let vars = Arc::new(vars);
    let mut serial = Vec::new();
    let mut parallel = Vec::new();
    let code_holder = single_code_holder(&ctx, &cases);
    for (index, case) in cases.into_iter().enumerate() {
        if done.contains(&(index + 1)) {
            continue;
        }
        if let Some((holder, holder_id)) = &code_holder
            && *holder != index
            && case.skip.is_none()
            && takes_code(&case)
        {
            let why = format!(
                "the one authorization code given goes to case `{holder_id}` (the first case in run order that needs one); give oauth.authorize_url in --fixtures for a code per case"
            );
            let _ = tx.send(CaseReport {
                index: index + 1,
                results: vec![missing_input(skipped(&case, index + 1, why))],
                exchanges: Vec::new(),
            });
            continue;
        }
        if case.serial {
            serial.push((index + 1, case));
        } else {
            parallel.push((index + 1, case));
        }
    }
    let mut tasks = tokio::task::JoinSet::new();
    {
        let (ctx, vars, tx) = (ctx.clone(), vars.clone(), tx.clone());
        tasks.spawn(async move {
            for (index, case) in serial {
                let report = run_case(&ctx, index, &case, &vars).await;
                let _ = tx.send(report);
            }
        });
    }
    {
        // The permit is taken here, in case order, before the case's task exists: left to
        // the tasks, whichever the runtime polled first would go first, and with one
        // worker a case that ends the session could run before or after the reads that
        // follow it in the plan.
        let (ctx, vars, tx) = (ctx.clone(), vars.clone(), tx.clone());
        let sem = Arc::new(Semaphore::new(workers.max(1)));
        tasks.spawn(async move {
            let mut running = tokio::task::JoinSet::new();
            for (index, case) in parallel {
                let Ok(permit) = sem.clone().acquire_owned().await else {
                    return;
                };
                let (ctx, vars, tx) = (ctx.clone(), vars.clone(), tx.clone());
                running.spawn(async move {
                    let report = run_case(&ctx, index, &case, &vars).await;
                    drop(permit);
                    let _ = tx.send(report);
                });
            }
            while running.join_next().await.is_some() {}
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

fn takes_code(case: &Case) -> bool {
    case.steps.iter().any(|s| needs_code(&s.request))
}

/// With one unused single-use code, the position and id of the case that gets it.
fn single_code_holder(ctx: &Context, cases: &[Case]) -> Option<(usize, String)> {
    if !ctx.oauth.holds_single_code() {
        return None;
    }
    cases
        .iter()
        .position(|c| c.skip.is_none() && takes_code(c))
        .map(|i| (i, cases[i].id.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::test_support::{case, context};

    #[tokio::test]
    async fn reports_come_back_in_case_order_and_serial_cases_run_in_order() {
        // Skipped cases send nothing, so the order seen is the scheduler's alone.
        let serial = [false, true, false, true, true, false, false, true];
        let cases: Vec<Case> = serial
            .iter()
            .enumerate()
            .map(|(i, s)| case(&format!("c{i}"), *s, Some(format!("why {i}"))))
            .collect();
        let ctx = Arc::new(context("http://127.0.0.1:9/v1"));
        let mut seen = Vec::new();
        let reports = run_cases(ctx, cases, &[], Vars::default(), 3, |r| seen.push(r.index)).await;
        let order: Vec<usize> = reports.iter().map(|r| r.index).collect();
        assert_eq!(order, (1..=serial.len()).collect::<Vec<_>>());
        for r in &reports {
            assert_eq!(r.results.len(), 1);
            assert_eq!(r.results[0].message, format!("why {}", r.index - 1));
        }
        assert_eq!(
            seen.len(),
            serial.len(),
            "every case is reported as it ends"
        );
        let serial_seen: Vec<usize> = seen.into_iter().filter(|i| serial[i - 1]).collect();
        assert_eq!(
            serial_seen,
            vec![2, 4, 5, 8],
            "writes run one at a time in case order"
        );
    }

    /// A case of `suggestRiskCategories` whose one step takes an authorization code.
    fn code_case(id: &str, skip: Option<String>) -> Case {
        let mut c = case(id, false, skip);
        c.steps[0].request.params = vec![("t".into(), serde_json::json!("${oauth.code}"))];
        c
    }

    #[tokio::test]
    async fn a_single_code_goes_to_the_first_case_needing_one_on_every_run() {
        for _ in 0..5 {
            let mut ctx = context("http://127.0.0.1:9/v1");
            ctx.oauth = crate::auth::OAuth::new(
                Some(crate::auth::OAuthClient {
                    client_id: "id".into(),
                    client_secret: "secret".into(),
                    redirect_uri: "http://127.0.0.1:9/cb".into(),
                }),
                crate::auth::CodeSource::Fixed(std::sync::Mutex::new(Some("the-code".into()))),
            );
            let cases = vec![
                case("plain", false, None),
                code_case("skipped", Some("left out".into())),
                code_case("first", None),
                code_case("second", None),
                code_case("third", None),
            ];
            let reports = run_cases(Arc::new(ctx), cases, &[], Vars::default(), 4, |_| {}).await;
            let denied: Vec<usize> = reports
                .iter()
                .filter(|r| {
                    r.results
                        .iter()
                        .any(|x| x.missing_input && x.message.contains("goes to case `first`"))
                })
                .map(|r| r.index)
                .collect();
            assert_eq!(denied, vec![4, 5], "only the later code cases are denied");
            // The holder did send its request (to a closed port): it was not denied.
            assert!(reports[2].results.iter().all(|r| !r.missing_input));
            assert!(!reports[2].exchanges.is_empty());
        }
    }
}
