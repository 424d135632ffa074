//! Running cases against a target: [`run`] (the [`Session`] built once where the run
//! starts, the plan, the first and later passes, the put-back and the session's last
//! cases), [`schedule`] (which case runs when), [`discovery`] (binding variables first),
//! [`step`] (build, send, then every registered judge), [`restore`] and [`cleanup`] (the
//! target put back as it was found) and [`record`].
//!
//! Discovery runs first, in order; then every case, writes one at a time in case order and
//! reads in parallel on `--workers` tasks. Results are sorted by case order at the end, so
//! parallelism never changes a report.

mod cleanup;
mod codes;
mod credentials;
mod discovery;
mod gone;
mod preflight;
mod reach;
mod record;
mod restore;
mod run;
mod schedule;
mod session;
mod step;

use std::sync::Mutex;

use serde_json::Value;

use crate::auth::OAuth;
use crate::checks::{CheckOptions, Seen};
use crate::outcome::CheckResult;
use crate::redact::Secrets;
use crate::schema::Validators;
use crate::spec::Spec;
use crate::transport::Transport;

pub use cleanup::{left_behind, note as cleanup_note, remove_created};
pub use codes::needs_code;
pub use discovery::{discover, gated as gated_discovery};
pub use preflight::{preflight as preflight_credentials, preflight_extra};
pub use reach::{PROBE_PREFIX, preflight as preflight_reach};
pub use record::{Exchange, recorded_text};
pub use restore::{check_values as check_restore_values, note as restore_note, restore, written};
pub use run::{
    Planned, Session, Settings, Watcher, describe_writes, put_back_on_interrupt, run_all,
};
pub use schedule::run_cases;
pub use session::{
    SESSION_AUTH, has_session_operations, login_operation, run_last as run_session_cases,
};

/// Everything a case needs, shared by all workers.
pub struct Context {
    /// The spec.
    pub spec: Spec,
    /// Compiled response schemas.
    pub validators: Validators,
    /// HTTP client with the run's bounds.
    pub transport: Transport,
    /// Base URL including `/v1`.
    pub base_url: String,
    /// Bearer token.
    pub token: Option<String>,
    /// Values and fields never printed.
    pub secrets: Secrets,
    /// Authorization codes.
    pub oauth: OAuth,
    /// The checks' settings (`--check-option`, `--max-response-time`), read by their
    /// judges.
    pub options: CheckOptions,
    /// What earlier answers left for the judges that compare with them.
    seen: Seen,
    /// Whether the credentials still work, and what may have ended them.
    pub credentials: credentials::Watch,
    /// What the run created, to remove at the end.
    pub created: cleanup::Ledger,
    /// The paths the run deleted: a 404 there is the answer a deleted record gets.
    pub gone: gone::Gone,
    /// Requests the harness sent outside any case (a re-check of the credentials), for
    /// the record, which accounts for every request.
    side: Mutex<Vec<Exchange>>,
    /// Whether the target is still there, and the probes that asked.
    pub reach: reach::Watch,
}

impl Context {
    /// Bundles the run's shared pieces.
    pub fn new(
        spec: Spec,
        validators: Validators,
        transport: Transport,
        base_url: String,
        token: Option<String>,
        secrets: Secrets,
        oauth: OAuth,
    ) -> Context {
        let mut secrets = secrets;
        secrets.add_url_password(&base_url);
        Context {
            spec,
            validators,
            transport,
            base_url,
            token,
            secrets,
            oauth,
            options: CheckOptions::default(),
            seen: Seen::default(),
            credentials: credentials::Watch::default(),
            created: cleanup::Ledger::default(),
            gone: gone::Gone::default(),
            side: Mutex::new(Vec::new()),
            reach: reach::Watch::default(),
        }
    }

    /// Notes a request sent outside any case, for the record.
    fn sent_aside(&self, exchange: Exchange) {
        if let Ok(mut side) = self.side.lock() {
            side.push(exchange);
        }
    }

    /// Every request the harness sent outside any case so far (credential re-checks, and
    /// the OAuth steps' requests, which carry no body here: theirs holds the code and the
    /// client secret), as exchanges numbered from `index`, taken out of the context.
    pub fn take_aside(&self, index: usize) -> Vec<Exchange> {
        let mut out: Vec<Exchange> = self
            .side
            .lock()
            .map(|mut s| std::mem::take(&mut *s))
            .unwrap_or_default();
        for s in self.oauth.take_sent() {
            let url = self.secrets.redact_in_url(&s.url);
            let path = url
                .strip_prefix(self.base_url.trim_end_matches('/'))
                .map_or(url.clone(), str::to_owned);
            let token_op = crate::auth::token_operation(&self.spec)
                .filter(|_| s.purpose.contains("token"))
                .map(|o| o.id.clone())
                .unwrap_or_default();
            out.push(Exchange {
                case: "harness/oauth".into(),
                operation: token_op,
                step: 0,
                method: s.method,
                path,
                auth: None,
                headers: Vec::new(),
                body: None,
                status: s.outcome.as_ref().ok().copied(),
                error: s.outcome.err(),
                content_type: None,
                response: Value::Null,
                location: None,
                resent: s.resent,
                harness: Some(s.purpose.to_string()),
                case_index: index,
                elapsed: None,
            });
        }
        for e in &mut out {
            e.case_index = index;
        }
        out
    }

    /// The context with the checks' settings its judges read.
    pub fn with_options(mut self, options: CheckOptions) -> Context {
        self.options = options;
        self
    }
}

/// What one case produced.
#[derive(Clone)]
pub struct CaseReport {
    /// Case index.
    pub index: usize,
    /// Its results.
    pub results: Vec<CheckResult>,
    /// Its exchanges.
    pub exchanges: Vec<Exchange>,
}

/// The one place a case's (or discovery's) results become shown: every text in them is
/// redacted with the run's secrets, whichever check built them.
fn finalise(ctx: &Context, mut report: CaseReport) -> CaseReport {
    report.results = report
        .results
        .into_iter()
        .map(|r| ctx.secrets.redact_result(r))
        .collect();
    report
}

#[cfg(test)]
pub(crate) mod test_support {
    use std::time::Duration;

    use super::Context;
    use crate::auth::{CodeSource, OAuth};
    use crate::case::{AuthMode, Case, Expect, RequestTemplate, Step};
    use crate::redact::Secrets;
    use crate::registry::Check;
    use crate::schema::Validators;
    use crate::spec::{Level, Spec};
    use crate::transport::Transport;

    /// A context over the built-in spec against `base_url`, with token `tok`.
    pub fn context(base_url: &str) -> Context {
        let spec = Spec::load_builtin().unwrap();
        let validators = Validators::compile(&spec).unwrap();
        Context::new(
            spec,
            validators,
            Transport::new(Duration::from_secs(5)).unwrap(),
            base_url.into(),
            Some("tok".into()),
            Secrets::new(["client_secret".to_string()].into()),
            OAuth::new(None, CodeSource::Unavailable),
        )
    }

    /// A GET request of `op` with these parameters.
    pub fn request(op: &str, params: Vec<(String, serde_json::Value)>) -> RequestTemplate {
        RequestTemplate {
            op: op.into(),
            params,
            body: None,
            auth: AuthMode::Token,
            explode: None,
            style: None,
            method: None,
            path: None,
        }
    }

    /// A skipped result of `case` at `index`.
    pub fn skipped(case: &Case, index: usize) -> crate::outcome::CheckResult {
        super::step::skipped(case, index, "not run in this test".into())
    }

    /// A one-step case of `suggestRiskCategories`.
    pub fn case(id: &str, serial: bool, skip: Option<String>) -> Case {
        Case {
            id: id.into(),
            operation: "suggestRiskCategories".into(),
            check: Check::PositiveDataAcceptance.into(),
            level: Level::Must,
            steps: vec![Step {
                request: request("suggestRiskCategories", Vec::new()),
                expect: Expect::Success,
                capture: Vec::new(),
                asserts: Vec::new(),
            }],
            serial,
            skip,
            requires: Vec::new(),
            cap: None,
        }
    }
}
