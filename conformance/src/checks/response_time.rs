//! `response_time`: every answer arrives within `--max-response-time`.

use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

use super::{Answer, CheckOptions, Def, Finding, RunFacts, Setting};
use crate::outcome::Verdict;
use crate::registry::{Check, Family, row};
use crate::spec::Level;
use crate::transport::Response;

/// Its registry rows ([`crate::checks::TABLE`]), judge and setting.
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
    judge: Some(judge),
    settings: &[MAX_RESPONSE_TIME],
};

/// The most an answer may take, in milliseconds: `--max-response-time MS` (a flag of its
/// own, older than `--check-option`), or `--check-option max-response-time=MS`.
pub(crate) const MAX_RESPONSE_TIME: Setting = Setting {
    name: "max-response-time",
    value: "MS",
    parse: millis,
};

fn millis(text: &str) -> Result<Arc<dyn Any + Send + Sync>, String> {
    match text.parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Arc::new(Duration::from_millis(ms))),
        _ => Err(format!(
            "`{text}` is not a whole number of milliseconds above 0"
        )),
    }
}

fn lacks(_: Check, facts: &RunFacts<'_>) -> Option<String> {
    (!facts.options.has(&MAX_RESPONSE_TIME)).then(|| "judged only with --max-response-time".into())
}

fn judge(a: &Answer<'_>, options: &CheckOptions) -> Vec<Finding> {
    response_time(options.get(&MAX_RESPONSE_TIME).copied(), a.resp)
        .into_iter()
        .collect()
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
