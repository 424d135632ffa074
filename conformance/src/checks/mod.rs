//! Judging one answer, by family: every answer's status and schema, the case's own
//! expectation, the spec's rules, contract assertions and encodings judged across steps.
//!
//! Each judge returns [`Finding`]s; the runner attaches the case, the request and the
//! answer to them. A finding names its check through the registry ([`crate::registry`]).

mod contracts;
mod coverage;
mod expectation;
mod rules;
mod schema_status;
mod transport;

pub use contracts::assertion;
pub use coverage::{RunFacts, not_applicable};
pub use expectation::expectation;
pub use rules::{RuleInput, rules};
pub use schema_status::{Sent, generic, is_json_media_type};
pub use transport::{StepVerdict, judge_encodings};

use serde_json::Value;

use crate::outcome::Verdict;
use crate::registry::CheckId;
use crate::spec::{Level, Operation};
use crate::transport::Response;

/// One judged check before it is attached to its case.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The check it reports under.
    pub check: CheckId,
    /// Level of the expectation.
    pub level: Level,
    /// Verdict.
    pub verdict: Verdict,
    /// Why it failed or was skipped.
    pub message: String,
    /// What was expected.
    pub expected: String,
}

impl Finding {
    fn new(
        check: impl Into<CheckId>,
        level: Level,
        expected: impl Into<String>,
        outcome: Result<(), String>,
    ) -> Finding {
        let (verdict, message) = match outcome {
            Ok(()) => (Verdict::Passed, String::new()),
            Err(m) => (Verdict::Failed, m),
        };
        Finding {
            check: check.into(),
            level,
            verdict,
            message,
            expected: expected.into(),
        }
    }

    /// A check that could not be judged.
    pub fn skipped(
        check: impl Into<CheckId>,
        level: Level,
        expected: impl Into<String>,
        why: impl Into<String>,
    ) -> Finding {
        Finding {
            check: check.into(),
            level,
            verdict: Verdict::Skipped,
            message: why.into(),
            expected: expected.into(),
        }
    }
}

/// `Some("field = value")` when a 2xx body reports a business failure.
pub fn business_error(op: &Operation, resp: &Response) -> Option<String> {
    let body = resp.json.as_ref()?;
    op.business_error_fields()
        .into_iter()
        .find_map(|f| match body.get(&f) {
            Some(Value::String(s)) if !s.is_empty() => Some(format!("{f} = {s:?}")),
            _ => None,
        })
}

/// Whether the answer is a success in the operation's terms.
pub fn is_success(op: &Operation, resp: &Response) -> bool {
    (200..300).contains(&resp.status) && business_error(op, resp).is_none()
}

fn describe_answer(op: &Operation, resp: &Response) -> String {
    match business_error(op, resp) {
        Some(e) => format!("status {} with {e}", resp.status),
        None => format!("status {}", resp.status),
    }
}

fn non_empty(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(m)) => !m.is_empty(),
        Some(_) => true,
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
fn compact(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 120 {
        format!("{}…", &s[..s.floor_char_boundary(120)])
    } else {
        s
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use serde_json::Value;
    use std::path::Path;
    use std::time::Duration;

    use crate::spec::Spec;
    use crate::transport::Response;

    pub fn spec() -> Spec {
        Spec::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.yaml")).unwrap()
    }

    pub fn resp(status: u16, body: Value) -> Response {
        Response {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string().into_bytes(),
            json: Some(body),
            elapsed: Duration::ZERO,
            retries: 0,
        }
    }

    pub fn params(v: Value) -> serde_json::Map<String, Value> {
        v.as_object().unwrap().clone()
    }
}
