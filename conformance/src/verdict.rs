//! The run judged as a whole, between the runner's results and the reports: the
//! selection and the known failures applied ([`settle`], which the live report files use
//! too), refusals disowned once the credentials died, the coverage gate, every selected
//! check that judged nothing listed with why, and the exit code.

use crate::checks;
use crate::contracts::Contracts;
use crate::error::HarnessError;
use crate::exchange::Exchange;
use crate::known::KnownFailures;
use crate::outcome::{CheckResult, RunState, Totals, Verdict};
use crate::registry::Check;
use crate::run_config::Config;
use crate::runner::Context;
use crate::selection::Selection;

/// What the run's results are judged within: its selection, known failures, contracts
/// and, for a replay, the record.
pub(crate) struct Scope<'a> {
    /// Which operations and checks are judged and shown.
    pub selection: &'a Selection,
    /// The failures the user knows of.
    pub known: &'a KnownFailures,
    /// The contract files (their registry and discovery).
    pub contracts: &'a Contracts,
    /// The exchanges of `--replay`, in a replayed run.
    pub recorded: Option<&'a [Exchange]>,
}

/// Only the selected results are judged and shown, with the known failures applied: the
/// same for the files written while the run goes on and for the last ones. Gives the
/// results kept and the known-failure notes.
pub(crate) fn settle(
    scope: &Scope<'_>,
    results: Vec<CheckResult>,
) -> (Vec<CheckResult>, Vec<String>) {
    let mut results: Vec<CheckResult> = results
        .into_iter()
        // Whether the run put back what it changed is reported whatever the selection.
        .filter(|r| {
            r.check == Check::StateRestored
                || (scope.selection.check(&r.check) && scope.selection.operation(&r.operation))
        })
        .collect();
    let notes = scope
        .known
        .apply(&mut results, chrono::Utc::now().date_naive());
    (crate::access::fold_left_out(results), notes)
}

/// The run's results judged as a whole, by [`judge_run`].
pub(crate) struct Verdicts {
    /// The selected results, with those of checks that judged nothing and the coverage
    /// gate's.
    pub results: Vec<CheckResult>,
    /// What the known failures say of this run (an entry that no longer fails, …).
    pub known_notes: Vec<String>,
    /// Why the run's credentials died, when they did and not on purpose.
    pub dead: Option<String>,
    /// Why the run stopped sending, when the target went away.
    pub gone: Option<String>,
}

/// Judges the run's results as a whole: the selection and the known failures applied,
/// refusals disowned once the credentials died, the coverage gate, and every selected
/// check that judged nothing listed with why. A finished run that judged nothing is a
/// usage error: nothing passes by default.
pub(crate) fn judge_run(
    config: &Config,
    scope: &Scope<'_>,
    ctx: &Context,
    state: RunState,
    results: Vec<CheckResult>,
    exchanges: &[Exchange],
    reached: &crate::coverage::Coverage,
) -> Result<Verdicts, HarnessError> {
    let (mut results, known_notes) = settle(scope, results);
    let dead = ctx.credentials.dead();
    if let Some(why) = &dead {
        disown_refusals(&mut results, exchanges, why);
    }
    let selection = scope.selection;
    if results.is_empty() && state == RunState::Finished {
        // Nothing passes by default: a selection that judged nothing is a usage error, not
        // a clean run.
        return Err(HarnessError::Config(crate::config::empty_selection(
            config,
            selection,
            scope.recorded,
        )));
    }
    if let Some(min) = config.min_coverage
        && scope.recorded.is_none()
    {
        results.push(if state == RunState::Finished {
            crate::coverage::verdict(reached, min)
        } else {
            crate::coverage::not_judged(min, state.explain())
        });
    }
    // Every registered check the selection keeps is accounted for: one that judged
    // nothing is listed once, with what this spec or run lacks for it.
    let facts = checks::RunFacts {
        spec: &ctx.spec,
        operations: ctx
            .spec
            .operations
            .iter()
            .filter(|o| selection.operation(&o.id))
            .collect(),
        replay: scope.recorded.is_some(),
        options: &config.check_options,
        min_coverage: config.min_coverage.is_some(),
        discovery_steps: scope.contracts.discover.len(),
    };
    let not_applicable = checks::not_applicable(
        &results,
        &scope.contracts.registry,
        |c| selection.check(c),
        &facts,
    );
    results.extend(not_applicable);
    Ok(Verdicts {
        results,
        known_notes,
        dead,
        gone: ctx.reach.gone(),
    })
}

/// The process exit code: 2 when the credentials died (the run could not judge the
/// target), 1 on a failure, [`crate::EXIT_INCOMPLETE`] when interrupted, when the target went
/// away, or when MUST checks could not run (unless `--allow-incomplete`), else 0.
pub(crate) fn exit_code(config: &Config, verdicts: &Verdicts, state: RunState) -> u8 {
    let totals = Totals::of(&verdicts.results, config.strict);
    let incomplete = crate::outcome::incomplete(&verdicts.results).count();
    if verdicts.dead.is_some() {
        // A configuration error, not the target's failure: the run could not judge it.
        2
    } else if totals.failed > 0 {
        1
    } else if state != RunState::Finished || (incomplete > 0 && !config.allow_incomplete) {
        crate::EXIT_INCOMPLETE
    } else {
        0
    }
}

/// Once the run's credentials died, a secured request refused with 401/403 says nothing
/// about the target: its failures (those judged before the death was noticed, on other
/// workers) become skips with the reason.
fn disown_refusals(results: &mut [CheckResult], exchanges: &[Exchange], why: &str) {
    for r in results.iter_mut() {
        let refused = r
            .got
            .as_ref()
            .is_some_and(|g| matches!(g.status, Some(401 | 403)));
        let with_token = exchanges
            .iter()
            .any(|e| e.case == r.case && e.step == r.step && e.auth.as_deref() == Some("token"));
        if r.verdict == Verdict::Failed && refused && with_token {
            r.verdict = Verdict::Skipped;
            r.message = why.to_string();
        }
    }
}
