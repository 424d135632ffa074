//! The cases run under watch: progress on the terminal, report files rewritten as
//! results come, and the target put back if a signal stops the run.

use std::sync::Arc;

use super::load::Inputs;
use crate::error::HarnessError;
use crate::exchange::Exchange;
use crate::outcome::CheckResult;
use crate::run_config::Config;
use crate::runner::{self, CaseReport, Context};
use crate::vars::Vars;
use crate::{coverage, header, replay, report, verdict};

/// Runs the cases (or replays the record) while the report files are rewritten as
/// results come, so a run stopped by SIGINT or SIGTERM still leaves files saying how far
/// it got; on such a signal the target is put back before the run stops. Gives how the
/// run ended and every result and exchange so far.
pub(super) async fn run_watched(
    config: &Config,
    inputs: &Inputs,
    session: &runner::Session<'_>,
    ctx: &Arc<Context>,
    vars: Vars,
    header: &header::RunHeader,
    declared: &coverage::Declared,
) -> Result<(report::RunState, Vec<CheckResult>, Vec<Exchange>), HarnessError> {
    let writes_files = !config.reports.paths().is_empty();
    let live = report::live::Live::new(
        writes_files.then_some(report::live::EVERY),
        Box::new(|state, results, exchanges| {
            // A file that cannot be written now fails the run at its end, with the error.
            let _ = report::write_files(
                config,
                &report::Snapshot {
                    run: header,
                    state,
                    exit_code: None,
                    results: &verdict::settle(&inputs.scope(), results).0,
                    exchanges: &exchanges,
                    declared,
                },
            );
        }),
    );
    if writes_files {
        // A run killed before its first case ends still leaves files saying so.
        live.write_now(report::RunState::InProgress);
    }
    let interrupted = report::live::interrupted();
    // What the run's plan writes through, and the index its restore cases take: set once
    // the cases are planned, read if a signal stops the run.
    let planned = runner::Planned::new();
    let work = async {
        if let Some(recorded) = &inputs.recorded {
            let results = replay::replay(
                recorded,
                &ctx.base_url,
                ctx.token.as_deref(),
                &ctx.transport,
                &ctx.secrets,
                &ctx.oauth,
            )
            .await;
            Ok((results, Vec::new()))
        } else {
            let watch = Watch {
                live: &live,
                progress: std::sync::OnceLock::new(),
                config,
            };
            runner::run_all(session, ctx, vars, &watch, &planned).await
        }
    };
    tokio::select! {
        ran = work => ran.map(|(results, exchanges)| (report::RunState::Finished, results, exchanges)),
        signal = interrupted => {
            if !config.quiet {
                eprintln!("\n{signal}: stopping; writing the reports of the results so far");
            }
            let (mut results, mut exchanges) = live.so_far();
            let (written, index) = planned.get().cloned().unwrap_or_default();
            let again = report::live::interrupted();
            for r in runner::put_back_on_interrupt(ctx, &written, &inputs.fixtures, index, config.quiet, again).await {
                results.extend(r.results);
                exchanges.extend(r.exchanges);
            }
            Ok((report::RunState::Interrupted, results, exchanges))
        }
    }
}

/// The run's progress as the terminal shows it and the report files follow it, fed by the
/// runner ([`runner::Watcher`]).
pub(super) struct Watch<'a> {
    live: &'a report::live::Live<'a>,
    /// Made once the cases are planned (it counts them).
    progress: std::sync::OnceLock<report::terminal::Progress>,
    config: &'a Config,
}

impl Watch<'_> {
    fn progress(&self) -> Option<&report::terminal::Progress> {
        self.progress.get()
    }
}

impl runner::Watcher for Watch<'_> {
    fn discovered(&self, discovery: &CaseReport) {
        self.live.add(0, &discovery.results, &discovery.exchanges);
    }

    fn planned(&self, count: usize, discovery: &CaseReport) {
        let progress = self.progress.get_or_init(|| {
            report::terminal::Progress::new(count, self.config.strict, self.config.quiet)
        });
        progress.report(&discovery.results);
    }

    fn case_done(&self, r: &CaseReport) {
        if let Some(p) = self.progress() {
            p.case_done(&r.results);
        }
        self.live.add(r.index, &r.results, &r.exchanges);
    }

    fn reported(&self, r: &CaseReport) {
        if let Some(p) = self.progress() {
            p.report(&r.results);
        }
        self.live.add(r.index, &r.results, &r.exchanges);
    }

    fn finished(&self) {
        if let Some(p) = self.progress() {
            p.finish();
        }
    }
}
