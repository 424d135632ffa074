//! `response_time`: every answer arrives within `--max-response-time`.

use std::time::Duration;

use super::{Def, Finding, RunFacts};
use crate::outcome::Verdict;
use crate::registry::{Check, Family, row};
use crate::spec::Level;
use crate::transport::Response;

/// Its registry rows ([`crate::checks::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::ResponseTime,
        "response_time",
        Family::SchemaStatus,
        Level::Should,
        "every answer arrives within --max-response-time (judged only when it is given)",
        "fixed: SHOULD, the spec states no latency bound: a slow answer is a quality breach the run's owner sets, not a broken contract (--strict makes it fail)",
    )],
    derive: None,
    lacks,
};

fn lacks(_: Check, facts: &RunFacts<'_>) -> Option<String> {
    (!facts.max_response_time).then(|| "judged only with --max-response-time".into())
}

/// The `response_time` verdict of an answer, when `--max-response-time` is given.
pub fn response_time(limit: Option<Duration>, resp: &Response) -> Option<Finding> {
    let limit = limit?;
    let took = resp.elapsed;
    let slow = took > limit;
    Some(Finding {
        check: Check::ResponseTime.into(),
        level: Check::ResponseTime.entry().level,
        verdict: if slow {
            Verdict::Failed
        } else {
            Verdict::Passed
        },
        message: if slow {
            format!(
                "the answer took {} ms, over the {} ms of --max-response-time",
                took.as_millis(),
                limit.as_millis()
            )
        } else {
            String::new()
        },
        expected: format!("an answer within {} ms", limit.as_millis()),
    })
}
