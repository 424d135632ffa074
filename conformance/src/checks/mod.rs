//! The checks, one module per check or family: each holds its registry rows (name, family,
//! level, description; [`crate::registry::TABLE`] gathers them), the cases it derives from
//! the spec for an operation (called by [`crate::plan`]), how it judges an answer (with the
//! settings its judge reads), and why it may have nothing to judge in a run
//! ([`not_applicable`]). Every module registers one [`Def`] in [`ALL`].
//!
//! # Adding a check
//!
//! 1. Add its variant to [`crate::registry::Check`] (the name code uses).
//! 2. Write `checks/<name>.rs` with a `pub(crate) const DEF: Def`: its row (`row(Check::X,
//!    "x", ...)`), `derive` (a `fn(&mut plan::Builder)` pushing its cases for one operation,
//!    or `None` for a check every answer gets), `lacks` (what a spec or run without
//!    anything for it to judge lacks; [`lacks_nothing`] where every spec gives it
//!    something), `judge` and `settings`. A check judged on every answer has a `judge`
//!    ([`judge::Judge`]: the runner hands it each [`Answer`]) and declares the settings it
//!    reads as [`Setting`]s, which the command line gives as `--check-option NAME=VALUE`
//!    and the judge reads from [`CheckOptions`] (`response_size` is the smallest such
//!    check). A check judged only on its own cases' answers has `judge: None`: a case names
//!    the judge of its answer by its `Expect` (the shared ones are in `expectation`, whose
//!    judge every answer gets, and which hands `Refused` and `MethodNotAllowed` to their
//!    checks' modules).
//! 3. Add `mod <name>;` below and `<name>::DEF` to [`ALL`], where its cases fall in the
//!    plan's order and its findings in each answer's.
//!
//! Two rows for one check stop the build ([`table`] places each row at its [`Check`]'s
//! index), as does a check without a row unless it is the last variant; a unit test holds
//! every row to exactly one owning module.
//!
//! Each judge returns [`Finding`]s; the runner attaches the case, the request and the
//! answer to them. A finding names its check through the registry ([`crate::registry`]).

mod alternate_encodings;
mod chains;
mod contracts;
mod coverage;
mod expectation;
mod ignored_auth;
mod judge;
mod lengths;
mod min_coverage;
mod negative;
mod positive;
mod replay_consistency;
mod response_size;
mod response_time;
mod rules;
mod schema_status;
mod table;
mod undeclared_method;
mod unknown_path;
mod unsupported_media_type;

pub use alternate_encodings::{StepVerdict, judge_encodings};
pub(crate) use chains::{CREATED as CHAIN_CREATED, is_setup as is_chain_setup};
pub use coverage::{RunFacts, not_applicable};
pub(crate) use ignored_auth::{unknown_token_case, unknown_token_twin};
pub use judge::CheckOptions;
pub(crate) use judge::{Answer, Judge, Seen, Setting, judge};
pub(crate) use response_time::MAX_RESPONSE_TIME;
pub use table::TABLE;

use serde_json::Value;

use crate::outcome::Verdict;
use crate::registry::{Check, CheckId, Entry};
use crate::spec::{Level, Operation};
use crate::transport::Response;

/// A check or a family of checks: what its module registers in [`ALL`].
pub(crate) struct Def {
    /// Its rows of the registry.
    pub rows: &'static [Entry],
    /// The cases it derives for one operation (`None`: it derives none).
    pub derive: Option<fn(&mut crate::plan::builder::Builder<'_>)>,
    /// What the spec or the run lacks for a check of its rows to judge anything, when it
    /// lacks something.
    pub lacks: fn(Check, &RunFacts<'_>) -> Option<String>,
    /// How it judges every answer, whatever the case (`None`: it judges only the answers
    /// of its own cases, through their `Expect`, or none).
    pub judge: Option<Judge>,
    /// The settings its judge reads, given as `--check-option NAME=VALUE`.
    pub settings: &'static [Setting],
}

/// Every check, one [`Def`] a module, in the order the plan derives their cases and the
/// judges judge each answer.
pub(crate) const ALL: &[Def] = &[
    positive::DEF,
    negative::DEF,
    lengths::DEF,
    ignored_auth::DEF,
    unsupported_media_type::DEF,
    undeclared_method::DEF,
    alternate_encodings::DEF,
    unknown_path::DEF,
    chains::DEF,
    schema_status::DEF,
    response_time::DEF,
    response_size::DEF,
    expectation::DEF,
    rules::DEF,
    contracts::DEF,
    replay_consistency::DEF,
    min_coverage::DEF,
];

/// The number of rows of [`ALL`].
pub(crate) const ROW_COUNT: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < ALL.len() {
        n += ALL[i].rows.len();
        i += 1;
    }
    n
};

/// The rows of [`ALL`] in [`Check`] order. Two rows for one check, or a check without a
/// row, stop the build.
pub(crate) const fn table() -> [Entry; ROW_COUNT] {
    let mut out = [ALL[0].rows[0]; ROW_COUNT];
    let mut placed = [false; ROW_COUNT];
    let mut i = 0;
    while i < ALL.len() {
        let mut j = 0;
        while j < ALL[i].rows.len() {
            let e = ALL[i].rows[j];
            let at = e.check as usize;
            assert!(at < ROW_COUNT, "a check has no row in checks::ALL");
            assert!(!placed[at], "a check has two rows in checks::ALL");
            out[at] = e;
            placed[at] = true;
            j += 1;
        }
        i += 1;
    }
    out
}

/// The `lacks` of a check every spec and run give something to judge.
pub(crate) fn lacks_nothing(_: Check, _: &RunFacts<'_>) -> Option<String> {
    None
}

/// The module that owns `check`.
pub(crate) fn owner(check: Check) -> &'static Def {
    ALL.iter()
        .find(|d| d.rows.iter().any(|e| e.check == check))
        .expect("every check has a row (checks::table)")
}

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

/// Whether the answer is a success in the operation's terms: a 2xx with no error
/// reported in its body, or the `101 Switching Protocols` of an operation that declares
/// it and no 2xx (a WebSocket upgrade, whose acceptance is the switch).
pub fn is_success(op: &Operation, resp: &Response) -> bool {
    let switched = resp.status == 101
        && op.responses.iter().any(|r| r.status == "101")
        && !op.responses.iter().any(|r| r.status.starts_with('2'));
    ((200..300).contains(&resp.status) || switched) && business_error(op, resp).is_none()
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
mod tests {
    use super::TABLE;
    use super::*;

    #[test]
    fn every_check_has_exactly_one_owning_module() {
        assert_eq!(ROW_COUNT, TABLE.len());
        for e in TABLE {
            let owners = ALL
                .iter()
                .filter(|d| d.rows.iter().any(|r| r.check == e.check))
                .count();
            let rows = ALL
                .iter()
                .flat_map(|d| d.rows)
                .filter(|r| r.check == e.check)
                .count();
            assert_eq!(
                (owners, rows),
                (1, 1),
                "{} needs one module, one row",
                e.name
            );
            let own = owner(e.check).rows.iter().find(|r| r.check == e.check);
            assert_eq!(own.map(|r| r.name), Some(e.name));
        }
    }

    #[test]
    fn a_switch_of_protocols_is_the_success_of_an_operation_that_declares_only_it() {
        let spec = crate::spec::Spec::parse(
            r#"
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /serial:
    get:
      operationId: serial
      responses: {"101": {description: upgraded}, "4XX": {description: refused}}
  /plain:
    get:
      operationId: plain
      responses: {"101": {description: upgraded}, "200": {description: here}}
"#,
        )
        .unwrap();
        let upgraded = test_support::resp(101, Value::Null);
        assert!(is_success(spec.operation("serial").unwrap(), &upgraded));
        // Where a 2xx is declared, it is the success.
        assert!(!is_success(spec.operation("plain").unwrap(), &upgraded));
        assert!(!is_success(
            spec.operation("serial").unwrap(),
            &test_support::resp(400, Value::Null)
        ));
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
