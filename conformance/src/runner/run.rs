//! A run's cases from plan to put-back: the [`Session`] (what the run may send, built once
//! where the run starts), the plan narrowed and gated, discovery, the first pass, the
//! later passes with what the target's answers gave (one per layer of the spec's
//! dependency graph), what only `--allow-destructive` sends (held until nothing else
//! needs the target's data), the restore and removal of what the run changed, and last
//! the cases that end a session. Progress goes out through a
//! [`Watcher`], so this floor knows nothing of the reports above it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

use super::{CaseReport, Context, Exchange};
use crate::case::{self, Case};
use crate::contracts::Contracts;
use crate::effect::{Effect, Permissions};
use crate::error::HarnessError;
use crate::fixtures::Fixtures;
use crate::outcome::CheckResult;
use crate::plan;
use crate::registry::Check;
use crate::safety::Gate;
use crate::selection::Selection;
use crate::spec::Spec;
use crate::vars::Vars;

/// How the run plans and sends, as the command line set it.
#[derive(Clone, Copy)]
pub struct Settings<'a> {
    /// The plan's seed.
    pub seed: u64,
    /// `--max-examples`.
    pub max_examples: usize,
    /// `--max-requests`: discovery's budget.
    pub max_requests: usize,
    /// `--workers`.
    pub workers: usize,
    /// `--anonymous`: secured operations are left out.
    pub anonymous: bool,
    /// `--quiet`: no pre-flight note on stderr.
    pub quiet: bool,
    /// The headers that are not secret, sent with a throwaway session's requests too.
    pub public_headers: &'a [(String, String)],
    /// The credentials the run holds: an operation is sent them only where they meet
    /// its security ([`crate::access::unmet`]).
    pub held: crate::access::Held<'a>,
}

/// What a run may send and to which operations and checks, built once where the run
/// starts and handed down: its safety gate (built here, the only place a run builds one),
/// selection, contracts, fixtures and settings.
pub struct Session<'a> {
    /// The spec the gate reads.
    pub spec: &'a Spec,
    /// Which operations and checks run.
    pub selection: &'a Selection,
    /// The contract files' cases, discovery and variables.
    pub contracts: &'a Contracts,
    /// The run's fixtures (restore values, a throwaway session's login, …).
    pub fixtures: &'a Fixtures,
    /// Whether the target is the embedded reference server, the run's own: it takes
    /// writes, destructive ones included, without being asked.
    pub embedded: bool,
    /// What the user allowed the run to do to the target.
    pub permissions: Permissions,
    /// The safety gate: what each case does to the target, and which it may send.
    pub gate: Gate<'a>,
    /// How the run plans and sends.
    pub settings: Settings<'a>,
}

impl<'a> Session<'a> {
    /// The session of a run over `spec`: its permissions (the embedded server takes
    /// everything) and its gate, with the records `restore:` names.
    pub fn new(
        spec: &'a Spec,
        selection: &'a Selection,
        contracts: &'a Contracts,
        fixtures: &'a Fixtures,
        embedded: bool,
        settings: Settings<'a>,
    ) -> Session<'a> {
        let permissions = Permissions {
            writes: fixtures.allow_writes || embedded,
            destructive: fixtures.allow_destructive || embedded,
            own_session: fixtures.session.is_some(),
        };
        let restorable: Vec<String> = fixtures.restore.iter().map(|(op, _)| op.clone()).collect();
        Session {
            spec,
            selection,
            contracts,
            fixtures,
            embedded,
            permissions,
            gate: Gate::new(spec, permissions, &restorable),
            settings,
        }
    }

    fn plan_options(&self, auth_refusal: Option<u16>, made_up: bool) -> plan::PlanOptions {
        plan::PlanOptions {
            seed: self.settings.seed,
            auth_refusal,
            max_examples: self.settings.max_examples,
            made_up,
        }
    }

    /// Every case the run would send, in run order: derived from the spec, then the
    /// contract files', narrowed to the selection, each passed through the gate (a case it
    /// refuses is kept, skipped with the reason, so it is counted and shown).
    pub fn planned_cases(&self, auth_refusal: Option<u16>) -> Vec<Case> {
        let mut cases = plan::derive(
            self.spec,
            self.contracts,
            self.plan_options(auth_refusal, false),
        );
        cases.extend(self.contracts.cases.iter().cloned());
        cases.retain(|c| {
            self.selection.operation(&c.operation) && self.selection.runs_case_of(&c.check)
        });
        self.gate.apply(&mut cases);
        if self.settings.anonymous {
            crate::access::leave_out_secured(self.spec, &mut cases);
        }
        crate::access::leave_out_unmet(self.spec, &mut cases, &self.settings.held);
        crate::access::leave_out_own_account(self.spec, &mut cases, &self.settings.held);
        cases
    }

    /// A later pass (`state`): the plan made again with what the target's own answers
    /// gave so far, keeping the cases that change because of it. An operation the passes
    /// before (`first`: the latest version of every case planned so far) skipped for want
    /// of a path value runs with values from the records of [`crate::state`]; a case whose request now differs (a generated body's reference points
    /// at a record the target holds) runs again as `…+state`; a chain that could not start
    /// runs. A mined id names a record the run did not create, so apart from chains (whose
    /// later steps address only what their own create made; the gate checks that step by
    /// step) only cases that read, ask or create go: an update or delete of a mined record
    /// would change the user's data, and a delete racing the reads of the same record
    /// would make their 404s the harness's own. Empty when the answers gave nothing new.
    /// [`Pass::MadeUp`]: the pass after those, where the operations still waiting get
    /// path values made up (`plan::builder::made_up`), read, asked or created only, never
    /// changed. [`Pass::Destructive`]: with `--allow-destructive`, last, the operations
    /// still waiting whose cases only that flag sends (an update or delete of a record the
    /// target already held, a delete of a sub-collection), on the answers' values.
    fn second_pass(
        &self,
        first: &[Case],
        exchanges: &[&Exchange],
        auth_refusal: Option<u16>,
        pass: Pass,
    ) -> Vec<Case> {
        let made_up = pass == Pass::MadeUp;
        let pool = crate::state::Pool::mine(self.spec, exchanges.iter().copied());
        if pool.is_empty() && !made_up {
            return Vec::new();
        }
        let missing = |c: &Case| c.skip.as_deref().is_some_and(case::is_missing_input);
        let waiting: BTreeSet<&str> = first
            .iter()
            .filter(|c| c.check == Check::PositiveDataAcceptance && missing(c))
            .map(|c| c.operation.as_str())
            .collect();
        let ran: BTreeSet<&str> = first
            .iter()
            .filter(|c| !missing(c))
            .map(|c| c.id.as_str())
            .collect();
        let mut cases = plan::derive_with(
            self.spec,
            self.contracts,
            self.plan_options(auth_refusal, made_up),
            &pool,
        );
        // What each case of the first pass sent, to tell a case the answers changed (a
        // body's reference now names a record the target holds) from one sent already.
        let sent_before: BTreeMap<&str, &[crate::case::Step]> = first
            .iter()
            .filter(|c| !missing(c))
            .map(|c| (c.id.as_str(), c.steps.as_slice()))
            .collect();
        if pass == Pass::Destructive {
            cases.retain(|c| {
                waiting.contains(c.operation.as_str())
                    && !sent_before.contains_key(c.id.as_str())
                    && !c.id.contains("/chain/")
                    && c.skip.is_none()
                    && self.selection.operation(&c.operation)
                    && self.selection.runs_case_of(&c.check)
                    && self.gate.only_destructive_sends(c)
            });
        }
        cases.retain_mut(|c| {
            if pass == Pass::Destructive {
                return true;
            }
            let changed = match sent_before.get(c.id.as_str()) {
                None => waiting.contains(c.operation.as_str()) || c.id.contains("/chain/"),
                Some(before) if *before != c.steps.as_slice() => {
                    c.id.push_str("+state");
                    true
                }
                Some(_) => false,
            };
            // A chain's later steps address only what its own create made (the gate
            // checks that step by step); any other case may create, read or ask, never
            // change a record it did not make.
            changed
                && !ran.contains(c.id.as_str())
                && !missing(c)
                && self.selection.operation(&c.operation)
                && self.selection.runs_case_of(&c.check)
                && (c.id.contains("/chain/")
                    || matches!(
                        self.gate.case_effect(c),
                        Effect::Read | Effect::Query | Effect::Create
                    ))
        });
        self.gate.apply(&mut cases);
        if self.settings.anonymous {
            crate::access::leave_out_secured(self.spec, &mut cases);
        }
        crate::access::leave_out_unmet(self.spec, &mut cases, &self.settings.held);
        crate::access::leave_out_own_account(self.spec, &mut cases, &self.settings.held);
        cases
    }
}

/// Where a run's progress goes as it is made (the terminal and the report files, above
/// this floor).
pub trait Watcher: Sync {
    /// Discovery ran: its results and exchanges, before any case.
    fn discovered(&self, discovery: &CaseReport);
    /// The cases are planned: `count` of them will be reported done; `discovery` is
    /// what ran before them.
    fn planned(&self, count: usize, discovery: &CaseReport);
    /// A planned case is done.
    fn case_done(&self, report: &CaseReport);
    /// A report of the harness's own (a restore, a removal) is done.
    fn reported(&self, report: &CaseReport);
    /// Every case and put-back is done.
    fn finished(&self);
}

/// What the run's plan writes through, and the index its restore cases take: set once the
/// cases are planned, read if a signal stops the run.
pub type Planned = OnceLock<(Vec<String>, usize)>;

/// Runs discovery, the planned cases, the later passes, the put-back and the session's
/// last cases, in that order, and gives every result and exchange in case order
/// (discovery's first, and before them what the harness sent outside any case).
pub async fn run_all(
    session: &Session<'_>,
    ctx: &Arc<Context>,
    mut vars: Vars,
    watcher: &dyn Watcher,
    planned: &Planned,
) -> Result<(Vec<CheckResult>, Vec<Exchange>), HarnessError> {
    let mut budget = session.settings.max_requests;
    let (allowed, refused) = super::gated_discovery(&session.contracts.discover, &session.gate);
    let mut discovery = super::discover(ctx, &allowed, &mut vars, &mut budget).await;
    discovery.results.extend(refused);
    preflight(ctx, &discovery)?;
    watcher.discovered(&discovery);
    let cases = session.planned_cases(None);
    let verified = super::preflight_credentials(ctx, &cases, &vars).await?;
    // The same plan, with `ignored_auth` now knowing how this target refuses a token it
    // never issued (the cases and their order do not change).
    let cases = match verified.refusal {
        Some(_) => session.planned_cases(verified.refusal),
        None => cases,
    };
    if let Some(why) = &verified.unverified
        && !session.settings.quiet
    {
        eprintln!("pre-flight: {why}");
    }
    watcher.planned(cases.len(), &discovery);
    for r in &verified.reports {
        watcher.case_done(r);
    }
    // The gate has skipped every write the user did not allow: what is left is put back.
    let written = super::written(session.spec, &cases);
    let _ = planned.set((written.clone(), cases.len() + 1));
    let last = session_cases(session, &cases);
    let held = destructive_cases(session, &cases);
    let not_now: Vec<usize> = verified
        .done
        .iter()
        .chain(last.iter().map(|(i, _)| i))
        .chain(held.iter().flatten())
        .copied()
        .collect();
    let mut sent = Sent {
        ctx,
        vars: &vars,
        watcher,
        workers: session.settings.workers,
        reports: Vec::new(),
        written,
        offset: cases.len(),
    };
    sent.run_planned(&cases, &not_now).await;
    sent.reports.extend(verified.reports);
    let known = later_passes(session, &mut sent, &discovery, &cases, verified.refusal).await;
    destructive_passes(
        session,
        &mut sent,
        &discovery,
        (&cases, &held, &verified.done),
        &known,
        verified.refusal,
    )
    .await;
    let Sent {
        mut reports,
        written,
        ..
    } = sent;
    let after_cases = (cases.len() + 1).max(reports.iter().map(|r| r.index).max().unwrap_or(0) + 1);
    reports.sort_by_key(|r| r.index);
    // Before anything else can stop the run: the target is put back as it was found,
    // and what the run created is removed.
    for r in super::restore(ctx, &written, &session.fixtures.restore, after_cases).await {
        watcher.reported(&r);
        reports.push(r);
    }
    for r in super::remove_created(ctx, after_cases + written.len()).await {
        watcher.reported(&r);
        reports.push(r);
    }
    // Last, what ends or changes a session (a logout, a password change), each with a
    // session of the throwaway account (the gate let none through without one), never
    // with the run's own credentials.
    if let Some(login) = &session.fixtures.session
        && !last.is_empty()
    {
        let public_headers = session.settings.public_headers;
        for r in super::run_session_cases(ctx, login, public_headers, &last, &vars).await {
            watcher.case_done(&r);
            reports.push(r);
        }
    }
    watcher.finished();
    let mut results = discovery.results;
    // First, what the harness sent outside any case (OAuth steps, credential re-checks),
    // so the record accounts for every request.
    let mut exchanges = ctx.take_aside(0);
    exchanges.extend(discovery.exchanges);
    for r in reports {
        results.extend(r.results);
        exchanges.extend(r.exchanges);
    }
    Ok((results, exchanges))
}

/// The cases that end or change a session (a logout, a password change), with their
/// 1-based indexes: they run last, with a throwaway account's session.
fn session_cases(session: &Session<'_>, cases: &[Case]) -> Vec<(usize, Case)> {
    cases
        .iter()
        .enumerate()
        .filter(|(_, c)| c.skip.is_none() && session.gate.case_effect(c) == Effect::Session)
        .map(|(i, c)| (i + 1, c.clone()))
        .collect()
}

/// The 1-based indexes of the cases only `--allow-destructive` sends (see
/// [`Gate::only_destructive_sends`]), in the three groups they run in after every other
/// case and pass: changes of one record, deletes of one record, then what may take more.
/// Sent among the others, a bulk delete empties the target while later cases still need
/// its records, and a delete makes the reads of its record fail for the harness's own
/// reason.
fn destructive_cases(session: &Session<'_>, cases: &[Case]) -> [Vec<usize>; 3] {
    let mut groups: [Vec<usize>; 3] = Default::default();
    for (i, c) in cases.iter().enumerate() {
        if c.skip.is_none() && session.gate.only_destructive_sends(c) {
            groups[destructive_group(session, c)].push(i + 1);
        }
    }
    groups
}

/// Which of [`destructive_cases`]' groups a case runs in: 0 changes one record, 1 deletes
/// one, 2 may take more.
fn destructive_group(session: &Session<'_>, case: &Case) -> usize {
    let deletes = case.steps.iter().any(|s| {
        let method = s.request.method.clone().or_else(|| {
            session
                .spec
                .operation(&s.request.op)
                .map(|o| o.method.clone())
        });
        method.is_some_and(|m| m.eq_ignore_ascii_case("DELETE"))
    });
    match session.gate.case_effect(case) {
        Effect::Destructive => 2,
        _ if deletes => 1,
        _ => 0,
    }
}

/// Which cases a later pass plans, of those the answers so far make possible.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Reads, questions and creates (and chains) the answers gave a value or a new body.
    State,
    /// The operations still waiting, on made-up path values; never a change.
    MadeUp,
    /// With `--allow-destructive`, the operations still waiting that only it sends.
    Destructive,
}

/// How many passes may follow the first: one per level of the deepest path a spec is
/// likely to have (a sub-resource of a sub-resource of a sub-resource and their lists),
/// so that a target whose every answer names something new cannot keep the run going.
const MAX_LATER_PASSES: usize = 8;

/// What the run has sent so far, and what each further pass sends through.
struct Sent<'s> {
    ctx: &'s Arc<Context>,
    vars: &'s Vars,
    watcher: &'s dyn Watcher,
    workers: usize,
    /// Every case's report so far.
    reports: Vec<CaseReport>,
    /// The operations the run wrote through, to put back.
    written: Vec<String>,
    /// How many cases are numbered so far: a later pass's cases come after them.
    offset: usize,
}

impl Sent<'_> {
    /// Every exchange so far, discovery's first.
    fn exchanges<'x>(&'x self, discovery: &'x CaseReport) -> Vec<&'x Exchange> {
        discovery
            .exchanges
            .iter()
            .chain(self.reports.iter().flat_map(|r| &r.exchanges))
            .collect()
    }

    /// Runs the planned `cases` but those whose (1-based) index is in `not_now`.
    async fn run_planned(&mut self, cases: &[Case], not_now: &[usize]) {
        let watcher = self.watcher;
        let more = super::run_cases(
            self.ctx.clone(),
            cases.to_vec(),
            not_now,
            self.vars.clone(),
            self.workers,
            |r| watcher.case_done(r),
        )
        .await;
        self.reports.extend(more);
    }

    /// Runs a later pass's cases after the cases numbered so far: each replaces an
    /// earlier pass's report of the same case, adds what it writes through to `written`,
    /// and is numbered after them.
    async fn run_later(&mut self, second: Vec<Case>) {
        // A case on made-up values replaces the skip of the same case before it.
        let replaced: BTreeSet<String> = second
            .iter()
            .map(|c| c.id.trim_end_matches(crate::plan::MADE_UP).to_string())
            .chain(second.iter().map(|c| c.id.clone()))
            .collect();
        self.reports
            .retain(|r| !r.results.iter().any(|x| replaced.contains(&x.case)));
        for op in super::written(&self.ctx.spec, &second) {
            if !self.written.contains(&op) {
                self.written.push(op);
            }
        }
        let offset = self.offset;
        self.offset += second.len();
        let shift = |r: &CaseReport| -> CaseReport {
            let mut r = r.clone();
            r.index += offset;
            r.results.iter_mut().for_each(|x| x.case_index += offset);
            r.exchanges.iter_mut().for_each(|x| x.case_index += offset);
            r
        };
        let watcher = self.watcher;
        let more = super::run_cases(
            self.ctx.clone(),
            second,
            &[],
            self.vars.clone(),
            self.workers,
            |r| watcher.case_done(&shift(r)),
        )
        .await;
        self.reports.extend(more.iter().map(shift));
    }
}

/// Real state, in layers: operations skipped for want of a path value run again with
/// values from the target's answers so far, pass after pass, each pass's answers feeding
/// the next (a sub-resource's list after its parent's, its member after that), until a
/// pass adds nothing or the depth bound is met; last, one pass with made-up values for
/// what is still waiting. Gives the latest version of every case planned.
async fn later_passes(
    session: &Session<'_>,
    sent: &mut Sent<'_>,
    discovery: &CaseReport,
    cases: &[Case],
    refusal: Option<u16>,
) -> Vec<Case> {
    let mut known = cases.to_vec();
    let mut passes = 0;
    loop {
        let exchanges = sent.exchanges(discovery);
        let mut next = Vec::new();
        if passes < MAX_LATER_PASSES {
            next = session.second_pass(&known, &exchanges, refusal, Pass::State);
        }
        let made_up = next.is_empty();
        if made_up {
            next = session.second_pass(&known, &exchanges, refusal, Pass::MadeUp);
            if next.is_empty() {
                return known;
            }
        }
        passes += 1;
        sent.run_later(next.clone()).await;
        if made_up {
            return known;
        }
        for c in next {
            match known.iter_mut().find(|k| k.id == c.id) {
                Some(k) => *k = c,
                None => known.push(c),
            }
        }
    }
}

/// Then what only `--allow-destructive` sends, once nothing else needs the target's data
/// (`first`: the planned cases, [`destructive_cases`]' groups of them, and those
/// pre-flight already ran): updates of records the run did not make, their deletes, and
/// last whatever may take more than one record (a bulk or collection-wide delete); in each
/// group the first pass's cases, then those of operations that waited for a value the
/// answers gave.
async fn destructive_passes(
    session: &Session<'_>,
    sent: &mut Sent<'_>,
    discovery: &CaseReport,
    first: (&[Case], &[Vec<usize>; 3], &[usize]),
    known: &[Case],
    refusal: Option<u16>,
) {
    let (cases, held, done) = first;
    let mut late: [Vec<Case>; 3] = Default::default();
    if session.permissions.destructive {
        let exchanges = sent.exchanges(discovery);
        for c in session.second_pass(known, &exchanges, refusal, Pass::Destructive) {
            late[destructive_group(session, &c)].push(c);
        }
    }
    for (group, late) in held.iter().zip(late) {
        if !group.is_empty() {
            let others: Vec<usize> = (1..=cases.len())
                .filter(|i| !group.contains(i) || done.contains(i))
                .collect();
            sent.run_planned(cases, &others).await;
        }
        if !late.is_empty() {
            sent.run_later(late).await;
        }
    }
}

/// Puts back every record in `written` to the values `restore` gives, then removes what
/// the run created; the reports are numbered from `index`.
async fn put_back(
    ctx: &Arc<Context>,
    written: &[String],
    fixtures: &Fixtures,
    index: usize,
) -> Vec<CaseReport> {
    let mut reports = super::restore(ctx, written, &fixtures.restore, index).await;
    reports.extend(super::remove_created(ctx, index + written.len()).await);
    reports
}

/// How long an interrupted run may take to put records back before it gives up.
const RESTORE_GRACE: std::time::Duration = std::time::Duration::from_secs(15);

/// Puts back, after SIGINT or SIGTERM, every record the run's plan writes through, then
/// removes what the run created (the ledger holds every create answered so far). A case in
/// flight when the signal came may have written without reporting it yet, and sending the
/// original values to a record that was not changed changes nothing; a create whose
/// answer had not arrived is not in the ledger and cannot be removed. Bounded by
/// [`RESTORE_GRACE`]; a second signal (`again`) skips it. Each create whose removal was not tried
/// then is reported `NOT REMOVED`, to remove by hand; missing restore results leave the
/// run incomplete.
pub async fn put_back_on_interrupt(
    ctx: &Arc<Context>,
    written: &[String],
    fixtures: &Fixtures,
    index: usize,
    quiet: bool,
    again: impl Future<Output = &'static str>,
) -> Vec<CaseReport> {
    let created = ctx.created.len();
    if written.is_empty() && created == 0 {
        return Vec::new();
    }
    if !quiet {
        eprintln!(
            "putting back what the run wrote through ({}) and removing the {created} record(s) it created before stopping; a second signal skips it",
            if written.is_empty() {
                "nothing".to_string()
            } else {
                written.join(", ")
            }
        );
    }
    let work = put_back(ctx, written, fixtures, index);
    tokio::select! {
        done = tokio::time::timeout(RESTORE_GRACE, work) => match done {
            Ok(reports) => reports,
            Err(_) => {
                eprintln!(
                    "putting back did not finish within {} s: the target may be left changed",
                    RESTORE_GRACE.as_secs()
                );
                super::left_behind(
                    ctx,
                    index + written.len() + created,
                    &format!("the run was stopped and its {} s to remove what it created ran out", RESTORE_GRACE.as_secs()),
                )
            }
        },
        signal = again => {
            eprintln!("{signal}: putting back skipped; the target may be left changed");
            super::left_behind(
                ctx,
                index + written.len() + created,
                "a second signal stopped the run before it removed what it created",
            )
        }
    }
}

/// A token the target rejects on discovery's secured reads is a configuration problem:
/// stopping here says so once instead of failing every secured case.
fn preflight(ctx: &Context, discovery: &CaseReport) -> Result<(), HarnessError> {
    if ctx.token.is_none() {
        return Ok(());
    }
    let rejected = discovery
        .exchanges
        .iter()
        .find(|e| e.auth.as_deref() == Some("token") && matches!(e.status, Some(401 | 403)));
    match rejected {
        Some(e) => Err(HarnessError::Config(format!(
            "pre-flight: the target answered {} to {} {} sent with the bearer token: it \
             rejects the token (check --token or the OAuth fixtures); no case was run",
            e.status.unwrap_or_default(),
            e.method,
            e.path
        ))),
        None => Ok(()),
    }
}

/// What the session may write, as the run's header and the dry run describe it.
pub fn describe_writes(session: &Session<'_>) -> String {
    session.permissions.describe(
        session.embedded,
        super::has_session_operations(session.spec),
    )
}
