//! The end-of-run terminal text: results, notes, and the totals line last.

use crate::exchange::Exchange;
use crate::outcome::{self, CheckResult};
use crate::run_config::Config;
use crate::{coverage, header, report, runner, verdict};

/// The end-of-run terminal text: the results, then the notes (coverage, restore and
/// cleanup, dead credentials, interruption or known failures, what left the run
/// incomplete) above the totals line, which stays the last; with it, under `--quiet`,
/// the bounded text printed instead.
pub(super) fn summary(
    config: &Config,
    verdicts: &verdict::Verdicts,
    exchanges: &[Exchange],
    reached: &coverage::Coverage,
    state: report::RunState,
    exit_code: u8,
    header: &header::RunHeader,
) -> (String, Option<String>) {
    let results = &verdicts.results;
    let incomplete = outcome::incomplete(results).count();
    let latency = report::timings::per_operation(exchanges);
    let mut summary = report::terminal::render(results, &latency, config.strict, config.verbose);
    let mut notes = format!("\ncoverage: {}\n", reached.line());
    notes.push_str(&runner::restore_note(results));
    notes.push_str(&runner::cleanup_note(results));
    if let Some(why) = &verdicts.dead {
        notes.push_str(&format!("\nCREDENTIALS: {why} (exit {exit_code}).\n"));
    }
    if let Some(why) = verdicts
        .gone
        .as_ref()
        .filter(|_| state == report::RunState::Unreachable)
    {
        notes.push_str(&format!("\n{why} (exit {exit_code}).\n"));
    } else if state == report::RunState::Interrupted {
        // An entry not reached yet is not one that "no longer fails".
        notes.push_str(&format!(
            "\nINTERRUPTED: {} (exit {exit_code}).\n",
            state.explain()
        ));
    } else if !verdicts.known_notes.is_empty() {
        notes.push_str("\nKnown-failure notes:\n");
        notes.extend(verdicts.known_notes.iter().map(|n| format!("  {n}\n")));
    }
    if incomplete > 0 {
        notes.push_str(&incomplete_note(
            results,
            incomplete,
            config.allow_incomplete,
            exit_code,
        ));
    }
    // Above the totals line, which stays the last.
    let totals_line = summary.rfind('\n').map_or(0, |i| i + 1);
    let quiet = config.quiet.then(|| {
        let (_, totals) = summary.split_at(totals_line);
        report::quiet::render(&header.render(), results, config.strict, &notes, totals)
    });
    summary.insert_str(totals_line, &notes);
    if config.quiet {
        // A quiet run prints no header first: the summary names the target instead.
        summary.insert_str(0, &header.render());
    }
    (summary, quiet)
}

/// Why the run is incomplete: the MUST checks that could not run, grouped by reason.
pub(super) fn incomplete_note(
    results: &[CheckResult],
    count: usize,
    allowed: bool,
    exit_code: u8,
) -> String {
    let mut reasons: std::collections::BTreeMap<&str, usize> = Default::default();
    for r in outcome::incomplete(results) {
        // Records the run cannot remove are listed one by one in the cleanup note above.
        let why = match r.case.starts_with("cleanup/") {
            true => "NOT REMOVED: records the run cannot remove (listed above)",
            false => r.message.as_str(),
        };
        *reasons.entry(why).or_default() += 1;
    }
    let mut note = format!(
        "\nINCOMPLETE: {count} MUST check(s) could not run for want of a credential or fixture, or found records the run cannot remove{}:\n",
        if allowed {
            " (accepted by --allow-incomplete)".to_string()
        } else {
            format!(
                " (exit {exit_code}; --allow-incomplete accepts it, or leave them out with --exclude-operation / --exclude-check)"
            )
        }
    );
    for (why, n) in reasons {
        note.push_str(&format!("  {n:>3} × {why}\n"));
    }
    note
}
