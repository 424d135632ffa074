//! `response_time`: every answer arrives within `--max-response-time`.

use super::{Def, RunFacts};
use crate::registry::{Check, Family, row};
use crate::spec::Level;

/// Its registry rows ([`crate::registry::TABLE`]).
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
