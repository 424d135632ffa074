//! Credentials that work, or a clear stop. A wrong token makes every secured case fail
//! with 401/403, and every negative check "pass" on the refusal; neither says anything
//! about the target. So before the cases, one safe secured request the planner could build
//! (a read's positive case) is sent with the token and once with a token the target never
//! issued: a refusal of the first (401/403, or the same 4xx the made-up token gets) stops
//! the run as a configuration error. The request is kept ([`super::credentials::Watch`])
//! for the re-checks during the run.

use super::step::run_case;
use super::{CaseReport, Context};
use crate::case::{AuthMode, Case};
use crate::checks;
use crate::effect::Effect;
use crate::error::HarnessError;
use crate::registry::Check;
use crate::request::build;
use crate::vars::Vars;

/// The outcome of pre-flight when it let the run go on.
pub struct Verified {
    /// The cases it ran (the canary and its made-up-token twin), already reported.
    pub reports: Vec<CaseReport>,
    /// Their indexes in the case list (1-based), not to be run again.
    pub done: Vec<usize>,
    /// The status the target answers a made-up token with, when it refused it.
    pub refusal: Option<u16>,
    /// Why the credentials could not be verified, when they could not.
    pub unverified: Option<String>,
}

/// Runs pre-flight on the planned cases (indexes are 1-based, as the runner numbers them).
pub async fn preflight(
    ctx: &Context,
    cases: &[Case],
    vars: &Vars,
) -> Result<Verified, HarnessError> {
    let mut out = Verified {
        reports: Vec::new(),
        done: Vec::new(),
        refusal: None,
        unverified: None,
    };
    if ctx.token.is_none() || !ctx.spec.operations.iter().any(|o| o.secured) {
        return Ok(out);
    }
    let Some((i, canary)) = cases
        .iter()
        .enumerate()
        .find(|(_, c)| is_canary(&ctx.spec, c))
    else {
        out.unverified = Some(
            "no safe secured request could be built (every secured read lacks an input, or none is selected): the credentials were not checked before the run".into(),
        );
        return Ok(out);
    };
    let twin_id = checks::unknown_token_case(&canary.operation);
    let (j, twin) = match cases
        .iter()
        .enumerate()
        .find(|(_, c)| c.id == twin_id && c.skip.is_none())
    {
        Some((j, c)) => (Some(j), c.clone()),
        None => (None, checks::unknown_token_twin(canary)),
    };
    let first = run_case(ctx, i + 1, canary, vars).await;
    let second = run_case(ctx, j.map_or(0, |j| j + 1), &twin, vars).await;
    let status_of = |r: &CaseReport| r.exchanges.first().and_then(|e| e.status);
    let (with_token, made_up) = (status_of(&first), status_of(&second));
    let request = first
        .exchanges
        .first()
        .map(|e| format!("{} {}", e.method, e.path))
        .unwrap_or_else(|| canary.id.clone());
    let excerpt = first
        .results
        .iter()
        .find_map(|r| r.got.as_ref())
        .map(|g| g.body.chars().take(200).collect::<String>())
        .unwrap_or_default();
    let refused = match (with_token, made_up) {
        (Some(s @ (401 | 403)), _) => Some(format!("answered {s}")),
        (Some(s), Some(m)) if s == m && (400..500).contains(&s) => Some(format!(
            "answered {s}, as it answers a token it never issued"
        )),
        _ => None,
    };
    if let Some(how) = refused {
        return Err(HarnessError::Config(format!(
            "pre-flight: the target {how} to {request} sent with the bearer token: it refuses the credentials (check --token or the OAuth fixtures); no case was run{}",
            if excerpt.is_empty() {
                String::new()
            } else {
                format!("; body: {excerpt}")
            }
        )));
    }
    if let Ok(built) = build(
        &ctx.spec,
        &ctx.base_url,
        &canary.steps[0].request,
        vars,
        ctx.token.as_deref(),
        &ctx.secrets,
    ) {
        ctx.credentials
            .set_canary(built.request, request.clone(), canary.operation.clone());
    }
    out.refusal = made_up.filter(|s| (400..500).contains(s));
    out.done.push(i + 1);
    out.reports.push(first);
    if let Some(j) = j {
        out.done.push(j + 1);
        out.reports.push(second);
    }
    Ok(out)
}

/// A read's positive case with the run's token, buildable with no code and no input it
/// lacks: the one request whose refusal can only be about the credentials.
fn is_canary(spec: &crate::spec::Spec, c: &Case) -> bool {
    c.check == Check::PositiveDataAcceptance
        && c.skip.is_none()
        && c.requires.is_empty()
        && c.steps.len() == 1
        && c.steps[0].request.auth == AuthMode::Token
        && c.steps[0].request.method.is_none()
        && c.steps[0].request.path.is_none()
        && !super::codes::needs_code(&c.steps[0].request)
        && spec
            .operation(&c.steps[0].request.op)
            .is_some_and(|o| o.secured && o.effect == Effect::Read)
}

/// How many requests pre-flight sends that no case of `cases` holds: the canary with a
/// made-up token, when the plan has no such case of its own that is sent.
pub fn preflight_extra(spec: &crate::spec::Spec, cases: &[Case]) -> usize {
    let Some(canary) = cases.iter().find(|c| is_canary(spec, c)) else {
        return 0;
    };
    let twin = checks::unknown_token_case(&canary.operation);
    usize::from(!cases.iter().any(|c| c.id == twin && c.skip.is_none()))
}
