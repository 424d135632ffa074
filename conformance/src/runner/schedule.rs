//! Scheduling: which case runs on which task. Reads run in parallel (at most `workers`),
//! writes one at a time in case order; reports come back sorted by case order.

use std::sync::Arc;

use tokio::sync::{Semaphore, mpsc};

use super::step::run_case;
use super::{CaseReport, Context, finalise};
use crate::case::Case;
use crate::vars::Vars;

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
        let reports = run_cases(ctx, cases, Vars::default(), 3, |r| seen.push(r.index)).await;
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
}
