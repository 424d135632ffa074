//! The connected run, concluded: the header, the cases run while the reports follow,
//! the run judged as a whole, and the exit code, summary and last report files.

use serde_json::Value;

use super::connect::Connected;
use super::load::Inputs;
use super::summary::summary;
use super::watch::run_watched;
use crate::error::HarnessError;
use crate::exchange::Exchange;
use crate::fixtures::Fixtures;
use crate::outcome::Outcome;
use crate::run_config::Config;
use crate::runner::{self, Context};
use crate::{coverage, effect, header, out, report, verdict};

/// The connected run, from its header to its outcome: the header is printed, the cases
/// run (or the record is replayed) while the report files follow, the results are
/// judged as a whole, and the exit code, the summary and the last report files are made
/// from them.
pub(super) async fn run_and_report(
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
    let mut declared = coverage::Declared::of(&ctx.spec, |id| inputs.selection.operation(id));
    let session = inputs.session(config, &ctx.spec, embedded);
    declared.mark_unreachable(
        crate::plan::graph::build(&ctx.spec, session.contracts, session.permissions.writes)
            .unreachable(),
    );
    declared.mark_withheld(
        ctx.spec
            .operations
            .iter()
            .filter_map(|op| Some((op.id.clone(), session.gate.withheld(op)?)))
            .collect(),
    );
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
pub(super) fn run_header(
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

/// The request that fetched a `--spec` URL, as the record keeps it (no body: the spec is
/// the run's input, named in the header).
pub(super) fn spec_fetch(config: &Config) -> Vec<Exchange> {
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
            location: None,
            resent: *resent,
            harness: Some("the spec fetched from its --spec URL".into()),
            case_index: 0,
            // Not a request to an operation: no latency row of its own.
            elapsed: None,
        })
        .collect()
}

/// The credentials a run has, by name only.
pub(super) fn credentials_present(
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
