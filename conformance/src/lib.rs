//! The conformance harness: replays spec-derived checks and contract cases against any
//! implementation of an OpenAPI spec (the project's own six operations unless `--spec`
//! names another) and gives a verdict CI can gate on (exit 0 / 1 / 2 / 3).
//!
//! Data flows one way: spec and contract files → cases (`plan`, `contracts`, each check's
//! module deriving its own) → the run (`runner/`: a `runner::Session` with the run's one
//! write gate, the cases sent through [`transport`] and every answer handed to the judges
//! the checks register in `checks::ALL`) → the run judged as a whole (`verdict`) →
//! reports (`report/`). No module imports from a floor above its own
//! (`xtask/tests/imports.rs` fails on a circle). This file wires those floors together:
//! it reads the command line into a `run_config::Config`, loads the inputs, connects to
//! the target, builds the session once and hands it down. The harness knows an API only
//! through its spec (schemas, responses, `x-` rules) and the contract files; with no
//! `--base-url` and the built-in spec it starts the reference server in-process and runs
//! against it.

// Used from outside the crate (the binary, the tests, the benches).
pub mod cli;
pub mod embedded;
pub mod error;
pub mod out;
pub mod outcome;
pub mod registry;
pub mod spec;
pub mod transport;

// The harness's own rooms.
mod access;
mod auth;
mod binary;
mod builtin;
mod case;
mod checks;
mod config;
mod contracts;
mod coverage;
mod dry_run;
mod effect;
mod encode;
mod exchange;
mod fixtures;
mod header;
mod inputs;
mod known;
pub mod merge;
mod oauth_client;
mod plan;
mod redact;
mod replay;
mod report;
mod request;
mod run_config;
mod runner;
mod safety;
mod schema;
mod selection;
mod spec_source;
mod state;
mod vars;
mod verdict;

use std::sync::Arc;

use serde_json::Value;

/// Every built-in check's row of the registry, in `registry::Check` order.
pub use checks::TABLE;
pub use cli::Args;
pub use error::HarnessError;
pub use exchange::Exchange;

use contracts::Contracts;
use fixtures::Fixtures;
use outcome::{CheckResult, Totals};
use redact::Secrets;
use run_config::Config;
use runner::{CaseReport, Context};
use schema::Validators;
use spec::Spec;
use transport::Transport;
use vars::Vars;

/// The fixtures used against the embedded reference server: what its data set holds.
const REFERENCE_FIXTURES: &str = include_str!("reference_fixtures.yaml");

/// What a run produced.
pub struct Outcome {
    /// 0 no failure, 1 a failure, 3 incomplete ([`EXIT_INCOMPLETE`]); errors are 2.
    pub exit_code: u8,
    /// Every result in case order.
    pub results: Vec<CheckResult>,
    /// Every exchange in case order.
    pub exchanges: Vec<Exchange>,
    /// The target's base URL.
    pub base_url: String,
    /// The end-of-run terminal text (ends with `N passed, N failed, N skipped`).
    pub summary: String,
    /// What `--quiet` prints instead of [`Outcome::summary`]: the header, one line per
    /// failing (operation, check) pair and the verdict ([`report::quiet`]'s bound).
    pub quiet_summary: Option<String>,
}

impl Outcome {
    /// Counts of the results.
    pub fn totals(&self, strict: bool) -> Totals {
        Totals::of(&self.results, strict)
    }
}

/// Runs the harness as the command line asks and returns the process exit code.
/// Errors that stop the run print one line and give 2.
pub fn main_with(args: Args) -> u8 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return 2;
        }
    };
    if args.list_checks {
        return match runtime.block_on(list_checks(&args)) {
            Ok(table) => {
                out::text(&table);
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                2
            }
        };
    }
    let outcome = runtime.block_on(execute(&args, embedded::ServerConfig::default()));
    match outcome {
        Ok(o) => {
            out::line(o.quiet_summary.as_deref().unwrap_or(&o.summary));
            o.exit_code
        }
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

/// The check registry as `--list-checks` prints it: the built-in checks and those the
/// contract files (`--contracts`, or the built-in ones) declare. A `--spec` URL is
/// fetched as a run fetches it.
pub async fn list_checks(args: &Args) -> Result<String, HarnessError> {
    let mut config = Config::from_args(args)?;
    spec_source::prepare(&mut config).await?;
    let spec = spec_source::load(&config.files)?;
    let (contracts, _) = Contracts::for_run(&spec, args.spec.is_none(), args.contracts.as_deref())?;
    Ok(contracts.registry.render())
}

/// Runs against `args.base_url`, or against a reference server started with `server`
/// when no URL is given (tests pass faults this way), and writes the requested reports.
/// The command line is read once, into the [`Config`] the rest of the harness takes.
pub async fn execute(args: &Args, server: embedded::ServerConfig) -> Result<Outcome, HarnessError> {
    let mut config = Config::from_args(args)?;
    spec_source::prepare(&mut config).await?;
    run(&config, server).await
}

/// Runs as `config` says. The run's steps, in order: [`load`] the inputs (nothing is
/// started before they are all read and checked), [`dry_run`] or start the target and
/// [`connect`] to it, then [`run_and_report`]. The embedded server is shut down once the
/// reports are written, whether or not the run succeeded.
async fn run(config: &Config, server: embedded::ServerConfig) -> Result<Outcome, HarnessError> {
    let (spec, validators, inputs) = load(config)?;
    if config.dry_run {
        let session = inputs.session(config, &spec, config.base_url.is_none());
        return Ok(dry_run(config, &session));
    }
    if config.base_url.is_some() {
        // A run with no way to any credential stops before anything is sent.
        let oauth = inputs.fixtures.client_id.is_some();
        let has = config.credentials.token.is_some() || oauth || headers_carry(config, &spec);
        access::require(
            &spec,
            |id| inputs.selection.operation(id),
            has,
            config.anonymous,
        )?;
    }
    let embedded = match &config.base_url {
        Some(_) => None,
        None => Some(embedded::Embedded::spawn(server).await?),
    };
    let connected = connect(config, spec, validators, &inputs, embedded.as_ref()).await?;
    let outcome = run_and_report(config, &inputs, connected, embedded.is_some()).await;
    if let Some(s) = embedded {
        s.shutdown().await;
    }
    outcome
}

/// What the command line and the files it names give a run besides the spec, read and
/// checked by [`load`]: a mistake in any of them stops the run before anything is
/// started or sent.
struct Inputs {
    contracts: Contracts,
    /// Which contract files the run uses, as the header describes them.
    contract_source: contracts::ContractSource,
    selection: selection::Selection,
    known: known::KnownFailures,
    /// The exchanges of `--replay`: a replayed run sends these instead of planning.
    recorded: Option<Vec<Exchange>>,
    fixtures: Fixtures,
}

impl Inputs {
    /// What the run's results are judged within.
    fn scope(&self) -> verdict::Scope<'_> {
        verdict::Scope {
            selection: &self.selection,
            known: &self.known,
            contracts: &self.contracts,
            recorded: self.recorded.as_deref(),
        }
    }

    /// The session of a run over `spec` with these inputs: its gate is built here, once;
    /// `embedded` whether the target is the run's own reference server.
    fn session<'a>(
        &'a self,
        config: &'a Config,
        spec: &'a Spec,
        embedded: bool,
    ) -> runner::Session<'a> {
        runner::Session::new(
            spec,
            &self.selection,
            &self.contracts,
            &self.fixtures,
            embedded,
            runner::Settings {
                seed: config.seed,
                max_examples: config.max_examples,
                max_requests: config.max_requests,
                workers: config.workers,
                anonymous: config.anonymous,
                quiet: config.quiet,
                public_headers: &config.transport.public_headers,
            },
        )
    }
}

/// Reads and checks every file the run takes, in the order their errors are reported:
/// the spec and its schemas, the contract files, the selection (resolved against both),
/// the known failures, a record to replay and the fixtures. Nothing is started or sent
/// here, so a mistake costs the user nothing on the target.
fn load(config: &Config) -> Result<(Spec, Validators, Inputs), HarnessError> {
    let spec = spec_source::load(&config.files)?;
    let validators = Validators::compile(&spec)?;
    // The built-in contract files, reference server and its fixtures belong to the
    // built-in spec: on another spec only `--contracts DIR` and `--fixtures` apply.
    let (contracts, contract_source) = Contracts::for_run(
        &spec,
        config.files.spec.is_none(),
        config.files.contracts.as_deref(),
    )?;
    if config.base_url.is_none() && !contract_source.builtin_operations() {
        return Err(HarnessError::Config(
            "--spec FILE (or -) needs --base-url URL: without it the run would start the \
             reference server, which serves only the built-in spec (a --spec URL gives \
             its own server)"
                .into(),
        ));
    }
    let selection = selection::Selection::resolve(&config.filters, &spec, &contracts)?;
    let known = match &config.files.known_failures {
        Some(path) => {
            let known = known::KnownFailures::load(path).map_err(HarnessError::Config)?;
            known.check_names(&contracts.registry, &spec).map_err(|e| {
                HarnessError::Config(format!("known failures {}: {e}", path.display()))
            })?;
            known
        }
        None => known::KnownFailures::default(),
    };
    // A record file is read and checked before anything is started or sent.
    let recorded = match &config.files.replay {
        Some(path) => Some(replay::load(path, &spec)?),
        None => None,
    };
    let fixtures = load_fixtures(config, &contracts)?;
    if let Some(login) = &fixtures.session {
        runner::login_operation(&spec, login)
            .map_err(|e| HarnessError::Config(format!("fixtures: {e}")))?;
    }
    runner::check_restore_values(&spec, &fixtures.restore)
        .map_err(|e| HarnessError::Config(format!("fixtures: {e}")))?;
    let inputs = Inputs {
        contracts,
        contract_source,
        selection,
        known,
        recorded,
        fixtures,
    };
    Ok((spec, validators, inputs))
}

/// The run's fixtures: `--fixtures FILE` (its keys checked against the contracts), else
/// the reference server's own data set when the run starts it, else none; the command
/// line's values (`--allow-writes`, …) win over the file's.
fn load_fixtures(config: &Config, contracts: &Contracts) -> Result<Fixtures, HarnessError> {
    let fixtures = match (&config.files.fixtures, &config.base_url) {
        (Some(p), _) => {
            let f = Fixtures::load(p)?;
            config::check_fixture_keys(p, &f, contracts)?;
            f
        }
        (None, None) => Fixtures::parse(REFERENCE_FIXTURES).map_err(HarnessError::Config)?,
        (None, Some(_)) => Fixtures::default(),
    };
    Ok(fixtures.overridden_by(config))
}

/// A run connected to its target: the context every request goes through, the variables
/// the cases start from, and whether an OAuth client was registered (the header names
/// the credentials the run has).
struct Connected {
    ctx: Arc<Context>,
    vars: Vars,
    oauth_client: bool,
}

/// Builds what every request of the run goes through: the target's base URL, the
/// transport with the command line's bounds, the credentials (given, or obtained through
/// OAuth), the secrets never printed (each credential is added as soon as it is known,
/// so no report can show it) and the variables the contract files and fixtures set.
async fn connect(
    config: &Config,
    spec: Spec,
    validators: Validators,
    inputs: &Inputs,
    embedded: Option<&embedded::Embedded>,
) -> Result<Connected, HarnessError> {
    let base_url = match (&config.base_url, embedded) {
        (Some(u), _) => u.clone(),
        (None, Some(s)) => s.base_url(),
        (None, None) => {
            return Err(HarnessError::Config(
                "no --base-url and no embedded server".into(),
            ));
        }
    };
    let transport = Transport::with_options(
        config.transport.timeout,
        &config::transport_options(&config.transport)?,
    )?
    .with_wait_budget(config.transport.max_wait);
    let mut secrets = Secrets::new(spec.secret_fields.clone());
    for (name, value) in &config.transport.headers {
        secrets.add_header(name, value, true);
    }
    for (name, value) in &config.transport.public_headers {
        secrets.add_header(name, value, false);
    }
    // Before anything else is sent: is the target there at all? (Its error names the URL,
    // so the URL's password is a secret from here on.)
    secrets.add_url_password(&base_url);
    let reached = match &config.base_url {
        Some(_) => Some(runner::preflight_reach(&transport, &base_url, &secrets).await?),
        None => None,
    };
    let fixtures = &inputs.fixtures;
    let (oauth, token) = auth::credentials(
        &spec,
        &base_url,
        &transport,
        fixtures,
        embedded,
        config.credentials.token.clone(),
    )
    .await;
    let client = oauth.client.clone();
    if let Some(t) = &token {
        secrets.add(t, "$TOKEN");
    }
    // The OAuth fixtures may have given no token after all.
    access::require(
        &spec,
        |id| inputs.selection.operation(id),
        token.is_some() || headers_carry(config, &spec),
        config.anonymous,
    )?;
    let mut vars = Vars::default();
    for (k, v) in &inputs.contracts.vars {
        vars.set(k.clone(), v.clone());
    }
    for (k, v) in &fixtures.vars {
        vars.set(k.clone(), v.clone());
    }
    if let Some(code) = &fixtures.code {
        secrets.add(code, "$CODE");
    }
    if let Some(s) = &fixtures.client_secret {
        secrets.add(s, "$CLIENT_SECRET");
    }
    // The throwaway account's fields (a password) never show, whichever request echoes
    // them.
    for v in fixtures
        .session
        .iter()
        .flat_map(|l| l.body.values())
        .filter_map(Value::as_str)
    {
        secrets.add(v, "$SESSION_ACCOUNT");
    }
    if let Some(c) = &client {
        secrets.add(&c.client_secret, "$CLIENT_SECRET");
        vars.set("oauth.client_id", Value::String(c.client_id.clone()));
        vars.set(
            "oauth.client_secret",
            Value::String(c.client_secret.clone()),
        );
        vars.set("oauth.redirect_uri", Value::String(c.redirect_uri.clone()));
    }
    let ctx = Arc::new(
        Context::new(spec, validators, transport, base_url, token, secrets, oauth)
            .with_options(config.check_options.clone()),
    );
    if let Some(probe) = reached {
        ctx.reach.add_probe(probe);
    }
    Ok(Connected {
        ctx,
        vars,
        oauth_client: client.is_some(),
    })
}

/// Whether a header the run sends with every request carries credentials.
fn headers_carry(config: &Config, spec: &Spec) -> bool {
    let t = &config.transport;
    access::header_credentials(spec, &t.headers)
        || access::header_credentials(spec, &t.public_headers)
}

/// The connected run, from its header to its outcome: the header is printed, the cases
/// run (or the record is replayed) while the report files follow, the results are
/// judged as a whole, and the exit code, the summary and the last report files are made
/// from them.
async fn run_and_report(
    config: &Config,
    inputs: &Inputs,
    connected: Connected,
    embedded: bool,
) -> Result<Outcome, HarnessError> {
    let Connected {
        ctx,
        vars,
        oauth_client,
    } = connected;
    let header = run_header(config, inputs, &ctx, embedded, oauth_client);
    if !config.quiet {
        out::line(&header.render());
    }
    let declared = coverage::Declared::of(&ctx.spec, |id| inputs.selection.operation(id));
    let session = inputs.session(config, &ctx.spec, embedded);
    let (state, results, exchanges) =
        run_watched(config, inputs, &session, &ctx, vars, &header, &declared).await?;
    // The spec's fetch and the probes of the target's presence are the run's requests
    // too, sent before any other.
    let exchanges = [spec_fetch(config), ctx.reach.probes(), exchanges].concat();
    let state = match ctx.reach.gone() {
        Some(_) if state == report::RunState::Finished => report::RunState::Unreachable,
        _ => state,
    };
    // `--min-coverage`: judged on what this run reached (a replay reaches nothing new).
    let reached = coverage::Coverage::measure(&declared, &exchanges);
    let verdicts = verdict::judge_run(
        config,
        &inputs.scope(),
        &ctx,
        state,
        results,
        &exchanges,
        &reached,
    )?;
    let exit_code = verdict::exit_code(config, &verdicts, state);
    let (summary, quiet_summary) = summary(
        config, &verdicts, &exchanges, &reached, state, exit_code, &header,
    );
    let verdict::Verdicts { results, .. } = verdicts;
    report::write_files(
        config,
        &report::Snapshot {
            run: &header,
            state,
            exit_code: Some(exit_code),
            results: &results,
            exchanges: &exchanges,
            declared: &declared,
        },
    )?;
    Ok(Outcome {
        exit_code,
        results,
        exchanges,
        base_url: ctx.base_url.clone(),
        summary,
        quiet_summary,
    })
}

/// What the run is about to do, as the terminal and every report show it first: the
/// target (a password redacted), the spec, the selection, the credentials by name, what
/// the run may write and which contract files it uses.
fn run_header(
    config: &Config,
    inputs: &Inputs,
    ctx: &Context,
    embedded: bool,
    oauth_client: bool,
) -> header::RunHeader {
    header::RunHeader {
        target: ctx.secrets.redact_in_url(&ctx.base_url),
        embedded,
        spec: ctx.spec.identity.clone(),
        seed: config.seed,
        selection: inputs.selection.describe(),
        credentials: credentials_present(
            config,
            ctx.token.is_some(),
            oauth_client,
            &inputs.fixtures,
        ),
        writes: effect::Permissions {
            writes: inputs.fixtures.allow_writes,
            destructive: inputs.fixtures.allow_destructive,
            own_session: inputs.fixtures.session.is_some(),
        }
        .describe(embedded, runner::has_session_operations(&ctx.spec)),
        contracts: inputs.contract_source.describe(),
        operations: ctx.spec.operations.len(),
        left_out: ctx.spec.left_out.clone(),
    }
}

/// Runs the cases (or replays the record) while the report files are rewritten as
/// results come, so a run stopped by SIGINT or SIGTERM still leaves files saying how far
/// it got; on such a signal the target is put back before the run stops. Gives how the
/// run ended and every result and exchange so far.
async fn run_watched(
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

/// The request that fetched a `--spec` URL, as the record keeps it (no body: the spec is
/// the run's input, named in the header).
fn spec_fetch(config: &Config) -> Vec<Exchange> {
    config
        .files
        .spec_fetched
        .iter()
        .map(|(url, status, resent)| Exchange {
            case: "harness".into(),
            operation: String::new(),
            step: 0,
            method: "GET".into(),
            path: url.clone(),
            auth: config.credentials.token.as_ref().map(|_| "token".into()),
            headers: Vec::new(),
            body: None,
            status: Some(*status),
            error: None,
            content_type: None,
            response: Value::Null,
            resent: *resent,
            harness: Some("the spec fetched from its --spec URL".into()),
            case_index: 0,
            // Not a request to an operation: no latency row of its own.
            elapsed: None,
        })
        .collect()
}

/// The end-of-run terminal text: the results, then the notes (coverage, restore and
/// cleanup, dead credentials, interruption or known failures, what left the run
/// incomplete) above the totals line, which stays the last; with it, under `--quiet`,
/// the bounded text printed instead.
fn summary(
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

/// The exit code of a run in which MUST checks could not run for want of a credential or
/// fixture, or that SIGINT/SIGTERM stopped (and nothing failed so far): neither green nor
/// red, so CI does not pass it by mistake. Not the shell's 130 for an interrupt: the
/// reports were written, marked interrupted, and a failure seen before the signal still
/// gives 1.
pub const EXIT_INCOMPLETE: u8 = 3;

/// Why the run is incomplete: the MUST checks that could not run, grouped by reason.
fn incomplete_note(results: &[CheckResult], count: usize, allowed: bool, exit_code: u8) -> String {
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

/// The credentials a run has, by name only.
fn credentials_present(
    config: &Config,
    token: bool,
    oauth_client: bool,
    fixtures: &Fixtures,
) -> Vec<String> {
    let mut present = Vec::new();
    match (&config.credentials.token, token) {
        (Some(_), _) => present.push("bearer token (given)".to_string()),
        (None, true) => present.push("bearer token (obtained through OAuth)".to_string()),
        (None, false) => {}
    }
    if oauth_client {
        present.push("OAuth client".into());
    }
    if fixtures.code.is_some() {
        present.push("authorization code".into());
    }
    for (name, _) in &config.transport.headers {
        present.push(format!("{name} header (secret)"));
    }
    for (name, _) in &config.transport.public_headers {
        present.push(format!("{name} header"));
    }
    present
}

/// `--dry-run`: the plan, one line per case (operation, method and path, case, what it
/// does to the target, and whether it would be sent), with nothing started or sent, then
/// how many requests the first pass sends and what the answers may add ([`dry_run`]).
/// Values discovery would bind on the target are shown as their `${variable}`.
fn dry_run(config: &Config, session: &runner::Session<'_>) -> Outcome {
    let spec = session.spec;
    let cases = session.planned_cases(None);
    let mut text = format!(
        "dry run: {} case(s) planned against {}; nothing is sent\n  writes: {}\n",
        cases.len(),
        config
            .base_url
            .as_deref()
            .unwrap_or("the embedded reference server (not started)"),
        runner::describe_writes(session),
    );
    for c in &cases {
        text.push_str(&dry_run::line(spec, c, session.gate.case_effect(c)));
    }
    let fixtures = session.fixtures;
    let oauth_client = fixtures.client_id.is_some() || session.embedded;
    let code_per_step =
        fixtures.authorize_url.is_some() || (session.embedded && fixtures.code.is_none());
    let given = config.credentials.token.is_some();
    let credentials = dry_run::Credentials {
        token: given || oauth_client,
        obtain: match (given, oauth_client) {
            (true, _) | (false, false) => 0,
            (false, true) if code_per_step => 2,
            (false, true) => 1,
        },
        code_per_step,
    };
    let (allowed, _) = runner::gated_discovery(&session.contracts.discover, &session.gate);
    let tally = dry_run::Tally {
        probe: usize::from(!session.embedded),
        ..dry_run::Tally::of(spec, &cases, &allowed, config.max_requests, &credentials)
    };
    text.push_str(&tally.render());
    Outcome {
        exit_code: 0,
        results: Vec::new(),
        exchanges: Vec::new(),
        base_url: config.base_url.clone().unwrap_or_default(),
        summary: text,
        quiet_summary: None,
    }
}

/// The run's progress as the terminal shows it and the report files follow it, fed by the
/// runner ([`runner::Watcher`]).
struct Watch<'a> {
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
