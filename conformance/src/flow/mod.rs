//! The run's course, the harness's top floor: [`run`] takes the checked configuration
//! through its steps, each a room here: [`load`] the inputs, [`connect`] to the target,
//! run the cases [`watch`]ed, and [`conclude`] with the verdict, the [`summary`] and the
//! reports. The floors below know nothing of this one.

mod conclude;
mod connect;
mod load;
mod summary;
mod watch;

use crate::error::HarnessError;
use crate::outcome::Outcome;
use crate::run_config::Config;
use crate::{access, dry_run, embedded, runner};

/// Runs as `config` says. The run's steps, in order: [`load::load`] the inputs (nothing
/// is started before they are all read and checked), the [`dry_run`](dry_run_text) or
/// else the target started and [`connect::connect`]ed to, then
/// [`conclude::run_and_report`]. The embedded server is shut down once the reports are
/// written, whether or not the run succeeded.
pub(crate) async fn run(
    config: &Config,
    server: embedded::ServerConfig,
) -> Result<Outcome, HarnessError> {
    let (spec, validators, inputs) = load::load(config)?;
    if config.dry_run {
        let session = inputs.session(config, &spec, config.base_url.is_none());
        return Ok(dry_run_text(config, &session));
    }
    if config.base_url.is_some() {
        // A run with no way to any credential stops before anything is sent.
        let oauth = inputs.fixtures.client_id.is_some();
        let has =
            config.credentials.token.is_some() || oauth || connect::headers_carry(config, &spec);
        access::require(
            &spec,
            |id| inputs.selection.operation(id),
            has,
            config.anonymous,
        )?;
    }
    let embedded = match &config.base_url {
        Some(_) => None,
        None if config.in_process => Some(embedded::Embedded::in_process(server)?),
        None => Some(embedded::Embedded::spawn(server).await?),
    };
    let connected = connect::connect(config, spec, validators, &inputs, embedded.as_ref()).await?;
    let outcome = conclude::run_and_report(config, &inputs, connected, embedded.is_some()).await;
    if let Some(s) = embedded {
        s.shutdown().await;
    }
    outcome
}

/// `--dry-run`: the plan, one line per case (operation, method and path, case, what it
/// does to the target, and whether it would be sent), with nothing started or sent, then
/// how many requests the first pass sends and what the answers may add ([`dry_run::Tally`]).
/// Values discovery would bind on the target are shown as their `${variable}`.
fn dry_run_text(config: &Config, session: &runner::Session<'_>) -> Outcome {
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
    let graph = crate::plan::graph::build(spec, session.contracts, session.permissions.writes);
    if !graph.nodes.is_empty() {
        text.push('\n');
        text.push_str(&graph.render());
    }
    Outcome {
        exit_code: 0,
        results: Vec::new(),
        exchanges: Vec::new(),
        base_url: config.base_url.clone().unwrap_or_default(),
        summary: text,
        quiet_summary: None,
    }
}
