//! One test per operation, for `cargo test` and nextest: a `harness = false` test target
//! whose `main` is [`Suite::test_main`] lists the spec's operations as tests
//! (libtest-mimic), so `cargo test -- read_note`, `--skip`, `--list` and nextest's filters
//! and partitions work, and a failure names its operation.
//!
//! The run is made once, whole, the first time any of these tests runs, and each test
//! reports its own operation's results: an operation's cases depend on what others'
//! answers give (a read needs the id a create answered), so a run narrowed to one
//! operation would judge less than the same operation in the whole run. A filter that
//! keeps one test still pays for the whole run, and says only that operation's verdict.
//! One more test, `whole_run`, holds what belongs to no operation (discovery, the
//! credentials' pre-flight, a coverage gate) and fails when the run's exit code would.

use std::sync::{Arc, OnceLock};

use libtest_mimic::{Failed, Trial};

use crate::error::HarnessError;
use crate::in_process::{InProcess, IntoInProcess};
use crate::outcome::{Outcome, Verdict};
use crate::spec::Level;
use crate::suite::Suite;

/// The name of the test of what belongs to no operation.
pub const WHOLE_RUN: &str = "whole_run";

/// The one run the tests share: made by the first test that needs it.
type Shared = Arc<OnceLock<Result<Outcome, String>>>;

impl Suite {
    /// The tests of this suite against `service`, one per operation of the spec (an
    /// operation the suite leaves out is listed, ignored) and [`WHOLE_RUN`].
    pub fn trials(&self, service: impl IntoInProcess) -> Result<Vec<Trial>, HarnessError> {
        let app = service.into_in_process();
        let shared: Shared = Arc::default();
        let ops = self.operations()?;
        let mut trials = Vec::with_capacity(ops.len() + 1);
        for op in &ops {
            let (suite, app, shared, id) = (self.clone(), app.clone(), shared.clone(), op.clone());
            let ignored = !self.selects(op);
            trials.push(
                Trial::test(op.clone(), move || {
                    let outcome = the_run(&shared, suite.clone(), app)?;
                    of_operation(outcome, &id, suite.is_strict(), suite.takes_incomplete())
                })
                .with_kind("operation")
                .with_ignored_flag(ignored),
            );
        }
        let suite = self.clone();
        trials.push(Trial::test(WHOLE_RUN, move || {
            let outcome = the_run(&shared, suite.clone(), app)?;
            whole(outcome, &ops, suite.is_strict(), suite.takes_incomplete())
        }));
        Ok(trials)
    }

    /// The `main` of a `harness = false` test target: reads libtest's command line
    /// (filters, `--list`, `--exact`, `--skip`, nextest's arguments), runs the selected
    /// tests of [`Suite::trials`] and exits with libtest's code; a spec that cannot be read
    /// exits 101 saying why.
    pub fn test_main(self, service: impl IntoInProcess) -> ! {
        let args = libtest_mimic::Arguments::from_args();
        match self.trials(service) {
            Ok(trials) => libtest_mimic::run(&args, trials).exit(),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(101)
            }
        }
    }
}

/// The shared run, made now if no test made it yet, on a runtime of its own (the tests
/// run on libtest-mimic's threads, outside any runtime).
fn the_run(shared: &Shared, suite: Suite, app: InProcess) -> Result<&Outcome, Failed> {
    shared
        .get_or_init(|| {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the async runtime: {e}"))?;
            runtime
                .block_on(suite.run_in_process(app))
                .map_err(|e| format!("the conformance run stopped: {e}"))
        })
        .as_ref()
        .map_err(|e| Failed::from(e.as_str()))
}

/// What fails `op`'s test: its failures (warnings too under `strict`), in the terminal's
/// words, and unless `incomplete_ok` its MUST checks that could not run.
fn problems(outcome: &Outcome, op: &str, strict: bool, incomplete_ok: bool) -> Vec<String> {
    outcome
        .results
        .iter()
        .filter(|r| r.operation == op)
        .filter_map(|r| {
            if r.is_failure(strict) {
                Some(crate::report::details(r))
            } else if !incomplete_ok
                && r.missing_input
                && r.level == Level::Must
                && r.verdict == Verdict::Skipped
            {
                Some(format!(
                    "INCOMPLETE [MUST] {} :: {}\n  could not run: {}\n",
                    r.case, r.check, r.message
                ))
            } else {
                None
            }
        })
        .collect()
}

fn of_operation(
    outcome: &Outcome,
    op: &str,
    strict: bool,
    incomplete_ok: bool,
) -> Result<(), Failed> {
    let found = problems(outcome, op, strict, incomplete_ok);
    if found.is_empty() {
        return Ok(());
    }
    Err(Failed::from(format!(
        "{op} does not conform to its spec ({} finding(s)):\n\n{}",
        found.len(),
        found.join("\n")
    )))
}

/// [`WHOLE_RUN`]: the results of no operation of the spec; and the run's exit code where
/// no operation's test explains it (a coverage gate).
fn whole(
    outcome: &Outcome,
    ops: &[String],
    strict: bool,
    incomplete_ok: bool,
) -> Result<(), Failed> {
    let own: Vec<String> = outcome
        .results
        .iter()
        .filter(|r| !ops.contains(&r.operation))
        .map(|r| r.operation.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .flat_map(|name| problems(outcome, &name, strict, incomplete_ok))
        .collect();
    if !own.is_empty() {
        return Err(Failed::from(own.join("\n")));
    }
    let explained = ops
        .iter()
        .any(|op| !problems(outcome, op, strict, incomplete_ok).is_empty());
    if outcome.exit_code != 0 && !explained {
        return Err(Failed::from(format!(
            "the run ends with exit code {}:\n{}",
            outcome.exit_code, outcome.summary
        )));
    }
    Ok(())
}
