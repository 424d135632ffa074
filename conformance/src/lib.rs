//! The conformance harness: replays spec-derived checks and contract cases against any
//! implementation of the trading platform's six operations and gives a verdict CI can gate
//! on (exit 0 / 1 / 2).
//!
//! Data flows one way: spec and contract files → cases ([`plan`], [`contracts`]) →
//! requests ([`request`]) → answers ([`transport`]) → verdicts ([`checks`]) → reports
//! ([`report`]). The harness knows the API only through `spec/openapi.yaml` (its schemas,
//! responses and `x-` rules) and the contract files; with no `--base-url` it starts the
//! reference server in-process and runs against it.

pub mod auth;
pub mod builtin;
pub mod case;
pub mod checks;
pub mod cli;
pub mod contracts;
pub mod embedded;
pub mod error;
pub mod fixtures;
pub mod outcome;
pub mod plan;
pub mod registry;
pub mod replay;
pub mod report;
pub mod request;
pub mod runner;
pub mod schema;
pub mod spec;
pub mod transport;
pub mod vars;

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

pub use cli::Args;
pub use error::HarnessError;

use contracts::Contracts;
use fixtures::Fixtures;
use outcome::{CheckResult, Totals};
use registry::{Check, CheckId};
use request::Secrets;
use runner::{CaseReport, Context, Exchange};
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
    let validators = Validators::compile(&spec).map_err(HarnessError::Schema)?;
    let contracts = match &args.contracts {
        Some(dir) => Contracts::load_dir(dir, &spec)?,
        None => Contracts::load_builtin(&spec)?,
    };
    let selected = check_filters(args, &spec, &contracts)?;
    check_header_values(args)?;
    if args.record.is_some() && args.replay.is_some() {
        return Err(HarnessError::Config(
            "--record cannot be combined with --replay (a replay sends no new exchanges to record)"
                .into(),
        ));
    }
    // A record file is read and checked before anything is started or sent.
    let recorded = match &args.replay {
        Some(path) => Some(replay::load(path, &spec)?),
        None => None,
    };
    if args.workers == 0 || args.workers > 256 {
        return Err(HarnessError::Config(
            "--workers must be between 1 and 256".into(),
        ));
    }
    let embedded = match &args.base_url {
        Some(_) => None,
        None => Some(
            embedded::Embedded::spawn(server)
                .await
                .map_err(HarnessError::Io)?,
        ),
    };
    let base_url = match (&args.base_url, &embedded) {
        (Some(u), _) => {
            let parsed = reqwest::Url::parse(u)
                .map_err(|e| HarnessError::Config(format!("--base-url {u}: {e}")))?;
            if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
                return Err(HarnessError::Config(format!(
                    "--base-url {u}: must be an http:// or https:// URL with a host (got scheme `{}`)",
                    parsed.scheme()
                )));
            }
            u.trim_end_matches('/').to_string()
        }
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
            check_fixture_keys(p, &f, &contracts)?;
            f
        }
        (None, Some(_)) => Fixtures::parse(REFERENCE_FIXTURES).map_err(HarnessError::Config)?,
        (None, None) => Fixtures::default(),
    };
    let mut fixtures = fixtures;
    // The command line and the environment override the fixtures' OAuth settings.
    for (given, slot) in [
        (&args.client_id, &mut fixtures.client_id),
        (&args.client_secret, &mut fixtures.client_secret),
        (&args.redirect_uri, &mut fixtures.redirect_uri),
        (&args.auth_code, &mut fixtures.code),
    ] {
        if let Some(v) = given {
            *slot = Some(v.clone());
        }
    }
    if args.auth_code.is_some() {
        // A code given explicitly is used rather than one the authorize step would fetch.
        fixtures.authorize_url = None;
    }
    let transport = Transport::new(args.timeout)
        .map_err(HarnessError::Io)?
        .with_wait_budget(args.max_wait);
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
        return Err(HarnessError::Config(empty_selection(
            args,
            recorded.as_deref(),
        )));
    }
    let totals = Totals::of(&results, args.strict);
    let exit_code = u8::from(totals.failed > 0);
    let summary = report::terminal::render(&results, args.strict);
    if let Some(p) = &args.junit {
        let xml = report::junit::render(&results, args.strict).map_err(HarnessError::Io)?;
        write(p, &xml)?;
    }
    if let Some(p) = &args.json {
        write(
            p,
            &report::json::render(
                &ctx.secrets.redact_in_url(&base_url),
                args.seed,
                args.strict,
                exit_code,
                &results,
            ),
        )?;
    }
    if let Some(p) = &args.record {
        write(
            p,
            &serde_json::to_string_pretty(&exchanges).unwrap_or_default(),
        )?;
    }
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

/// Checks the `--operation` names and resolves the `--check` names in the registry.
fn check_filters(
    args: &Args,
    spec: &Spec,
    contracts: &Contracts,
) -> Result<Vec<CheckId>, HarnessError> {
    for op in &args.operation {
        if spec.operation(op).is_none() {
            let known: Vec<&str> = spec.operations.iter().map(|o| o.id.as_str()).collect();
            return Err(HarnessError::Config(format!(
                "--operation {op}: no such operation; known: {}",
                known.join(", ")
            )));
        }
    }
    args.check
        .iter()
        .map(|c| {
            contracts.registry.resolve(c).ok_or_else(|| {
                HarnessError::Config(format!(
                    "--check {c}: no such check; known: {}",
                    contracts.registry.names().join(", ")
                ))
            })
        })
        .collect()
}

/// Values given on the command line (or in the environment) that go into request headers
/// must be valid there: a token that cannot be sent would otherwise fail every secured
/// check and blame the target. The messages never show the value.
fn check_header_values(args: &Args) -> Result<(), HarnessError> {
    if let Some(t) = &args.token {
        if t.trim().is_empty() {
            return Err(HarnessError::Config(
                "--token (or CONFORMANCE_TOKEN) is empty: give the bearer token or leave it out"
                    .into(),
            ));
        }
        // A bearer token is visible ASCII with no spaces (RFC 6750 `b64token`); anything
        // else cannot be sent as it is, or not as the target would read it.
        if reqwest::header::HeaderValue::from_str(&format!("Bearer {t}")).is_err()
            || !t.bytes().all(|b| b.is_ascii_graphic())
        {
            return Err(HarnessError::Config(
                "--token (or CONFORMANCE_TOKEN) cannot be sent in an Authorization header: \
                 it may hold only visible ASCII characters, with no spaces, line breaks or \
                 control characters (value not shown)"
                    .into(),
            ));
        }
    }
    Ok(())
}

/// Why a run judged nothing, naming what selected it.
fn empty_selection(args: &Args, recorded: Option<&[Exchange]>) -> String {
    let mut filters = Vec::new();
    if let Some(p) = &args.replay {
        filters.push(format!("--replay {}", p.display()));
    }
    filters.extend(args.check.iter().map(|c| format!("--check {c}")));
    filters.extend(args.operation.iter().map(|o| format!("--operation {o}")));
    let why = match recorded {
        Some([]) => " (the record file holds no exchange)".to_string(),
        _ => String::new(),
    };
    if filters.is_empty() {
        format!("the run holds no check{why}; nothing was judged")
    } else {
        format!(
            "the selection {} holds no check{why}; nothing was judged",
            filters.join(" ")
        )
    }
}

/// A top-level fixtures key must be one the fixtures or the contract files read (`vars`
/// defaults or `fixtures:` declarations); a misspelt key would otherwise only skip checks.
fn check_fixture_keys(
    path: &std::path::Path,
    fixtures: &Fixtures,
    contracts: &Contracts,
) -> Result<(), HarnessError> {
    let mut known: BTreeSet<String> = fixtures::KEYS.iter().map(|k| k.to_string()).collect();
    known.extend(contracts.vars.keys().cloned());
    known.extend(contracts.fixture_vars.iter().cloned());
    for k in fixtures.vars.keys() {
        if !known.contains(k) {
            return Err(HarnessError::Config(format!(
                "fixtures {}: unknown key `{k}`; known keys: {}",
                path.display(),
                known.into_iter().collect::<Vec<_>>().join(", ")
            )));
        }
    }
    Ok(())
}

fn write(path: &std::path::Path, text: &str) -> Result<(), HarnessError> {
    std::fs::write(path, text)
        .map_err(|e| HarnessError::Io(format!("cannot write {}: {e}", path.display())))
}
