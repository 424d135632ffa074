//! The conformance harness: replays spec-derived checks and contract cases against any
//! implementation of the trading platform's six operations and gives a verdict CI can gate
//! on (exit 0 / 1 / 2).
//!
//! Data flows one way: spec and contract files → cases (`plan`, `contracts`) → requests
//! (`request`, `runner/`) → answers ([`transport`]) → verdicts (`checks/`, named by the
//! [`registry`]) → reports (`report/`). The harness knows the API only through `spec/openapi.yaml` (its schemas,
//! responses and `x-` rules) and the contract files; with no `--base-url` it starts the
//! reference server in-process and runs against it.

// Used from outside the crate (the binary, the tests, the benches, xtask's arguments).
pub mod cli;
pub mod embedded;
pub mod error;
pub mod outcome;
pub mod registry;
pub mod spec;
pub mod transport;

// The harness's own rooms.
mod auth;
mod builtin;
mod case;
mod checks;
mod config;
mod contracts;
mod fixtures;
mod plan;
mod redact;
mod replay;
mod report;
mod request;
mod runner;
mod schema;
mod vars;

use std::sync::Arc;

use serde_json::Value;

pub use cli::Args;
pub use error::HarnessError;
pub use runner::Exchange;

use contracts::Contracts;
use fixtures::Fixtures;
use outcome::{CheckResult, Totals};
use redact::Secrets;
use registry::{Check, CheckId};
use runner::{CaseReport, Context};
use schema::Validators;
use spec::Spec;
use transport::Transport;
use vars::Vars;

/// The fixtures used against the embedded reference server: what its data set holds.
const REFERENCE_FIXTURES: &str = include_str!("reference_fixtures.yaml");

/// What a run produced.
pub struct Outcome {
    /// 0 no failure, 1 a failure, 2 the run could not be carried out.
    pub exit_code: u8,
    /// Every result in case order.
    pub results: Vec<CheckResult>,
    /// Every exchange in case order.
    pub exchanges: Vec<Exchange>,
    /// The target's base URL.
    pub base_url: String,
    /// The end-of-run terminal text (ends with `N passed, N failed, N skipped`).
    pub summary: String,
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
        return match list_checks(&args) {
            Ok(table) => {
                print!("{table}");
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
            println!("{}", o.summary);
            o.exit_code
        }
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

/// The check registry as `--list-checks` prints it: the built-in checks and those the
/// contract files (`--contracts`, or the built-in ones) declare.
pub fn list_checks(args: &Args) -> Result<String, HarnessError> {
    let spec = match &args.spec {
        Some(path) => Spec::load(path)?,
        None => Spec::load_builtin()?,
    };
    let contracts = match &args.contracts {
        Some(dir) => Contracts::load_dir(dir, &spec)?,
        None => Contracts::load_builtin(&spec)?,
    };
    Ok(contracts.registry.render())
}

/// Runs against `args.base_url`, or against a reference server started with `server`
/// when no URL is given (tests pass faults this way), and writes the requested reports.
pub async fn execute(args: &Args, server: embedded::ServerConfig) -> Result<Outcome, HarnessError> {
    let spec = match &args.spec {
        Some(path) => Spec::load(path)?,
        None => Spec::load_builtin()?,
    };
    let validators = Validators::compile(&spec)?;
    let contracts = match &args.contracts {
        Some(dir) => Contracts::load_dir(dir, &spec)?,
        None => Contracts::load_builtin(&spec)?,
    };
    let selected = config::check_filters(args, &spec, &contracts)?;
    config::check_args(args)?;
    // A record file is read and checked before anything is started or sent.
    let recorded = match &args.replay {
        Some(path) => Some(replay::load(path, &spec)?),
        None => None,
    };
    let embedded = match &args.base_url {
        Some(_) => None,
        None => Some(embedded::Embedded::spawn(server).await?),
    };
    let base_url = match (&args.base_url, &embedded) {
        (Some(u), _) => config::base_url(u)?,
        (None, Some(s)) => s.base_url(),
        (None, None) => {
            return Err(HarnessError::Config(
                "no --base-url and no embedded server".into(),
            ));
        }
    };
    let fixtures = match (&args.fixtures, &embedded) {
        (Some(p), _) => {
            let f = Fixtures::load(p)?;
            config::check_fixture_keys(p, &f, &contracts)?;
            f
        }
        (None, Some(_)) => Fixtures::parse(REFERENCE_FIXTURES).map_err(HarnessError::Config)?,
        (None, None) => Fixtures::default(),
    };
    let fixtures = fixtures.overridden_by(args);
    let transport = Transport::new(args.timeout)?.with_wait_budget(args.max_wait);
    let mut secrets = Secrets::new(spec.secret_fields.clone());

    let (oauth, token) = auth::credentials(
        &spec,
        &base_url,
        &transport,
        &fixtures,
        embedded.as_ref(),
        args.token.clone(),
    )
    .await;
    let client = oauth.client.clone();
    if let Some(t) = &token {
        secrets.add(t, "$TOKEN");
    }
    let mut vars = Vars::default();
    for (k, v) in &contracts.vars {
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
    if let Some(c) = &client {
        secrets.add(&c.client_secret, "$CLIENT_SECRET");
        vars.set("oauth.client_id", Value::String(c.client_id.clone()));
        vars.set(
            "oauth.client_secret",
            Value::String(c.client_secret.clone()),
        );
        vars.set("oauth.redirect_uri", Value::String(c.redirect_uri.clone()));
    }
    let ctx = Arc::new(Context::new(
        spec,
        validators,
        transport,
        base_url.clone(),
        token,
        secrets,
        oauth,
    ));

    let (results, exchanges) = if let Some(recorded) = &recorded {
        (
            replay::replay(
                recorded,
                &ctx.base_url,
                ctx.token.as_deref(),
                &ctx.transport,
                &ctx.secrets,
                &ctx.oauth,
            )
            .await,
            Vec::new(),
        )
    } else {
        run_all(
            args,
            &selected,
            &ctx,
            &contracts,
            fixtures.allow_writes,
            vars,
        )
        .await
    };
    let results: Vec<CheckResult> = results
        .into_iter()
        .filter(|r| selected.is_empty() || selected.contains(&r.check))
        .filter(|r| args.operation.is_empty() || args.operation.contains(&r.operation))
        .collect();
    if results.is_empty() {
        // Nothing passes by default: a selection that judged nothing is a usage error, not
        // a clean run.
        if let Some(s) = embedded {
            s.shutdown().await;
        }
        return Err(HarnessError::Config(config::empty_selection(
            args,
            recorded.as_deref(),
        )));
    }
    let totals = Totals::of(&results, args.strict);
    let exit_code = u8::from(totals.failed > 0);
    let summary = report::terminal::render(&results, args.strict);
    report::write_files(
        args,
        &ctx.secrets.redact_in_url(&base_url),
        exit_code,
        &results,
        &exchanges,
    )?;
    if let Some(s) = embedded {
        s.shutdown().await;
    }
    Ok(Outcome {
        exit_code,
        results,
        exchanges,
        base_url,
        summary,
    })
}

async fn run_all(
    args: &Args,
    selected: &[CheckId],
    ctx: &Arc<Context>,
    contracts: &Contracts,
    allow_writes: bool,
    mut vars: Vars,
) -> (Vec<CheckResult>, Vec<Exchange>) {
    let discovery = runner::discover(ctx, &contracts.discover, &mut vars).await;
    let mut cases = plan::derive(
        &ctx.spec,
        contracts,
        plan::PlanOptions {
            seed: args.seed,
            allow_writes,
        },
    );
    let mut explicit = contracts.cases.clone();
    for c in &mut explicit {
        let writes = c.steps.iter().any(|s| {
            ctx.spec
                .operation(&s.request.op)
                .is_some_and(|o| o.writes())
        });
        if writes && !allow_writes {
            c.skip = Some(format!(
                "{} changes the target's state: set `allow_writes: true` in --fixtures to test it",
                c.operation
            ));
        }
    }
    cases.extend(explicit);
    let every_case = selected.is_empty()
        || selected
            .iter()
            .any(|c| c.builtin().is_some_and(Check::judges_every_answer));
    cases.retain(|c| {
        (args.operation.is_empty() || args.operation.contains(&c.operation))
            && (every_case || selected.contains(&c.check))
    });
    let progress = report::terminal::Progress::new(cases.len(), args.strict, args.quiet);
    progress.report(&discovery.results);
    let reports: Vec<CaseReport> = runner::run_cases(ctx.clone(), cases, vars, args.workers, |r| {
        progress.case_done(&r.results)
    })
    .await;
    progress.finish();
    let mut results = discovery.results;
    let mut exchanges = discovery.exchanges;
    for r in reports {
        results.extend(r.results);
        exchanges.extend(r.exchanges);
    }
    (results, exchanges)
}
