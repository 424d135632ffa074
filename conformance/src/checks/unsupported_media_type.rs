//! `unsupported_media_type`: a body in a media type the operation does not take is
//! rejected.

use super::{Def, RunFacts};
use crate::registry::{Check, Family, row};
use crate::spec::Level;

/// Its registry rows ([`crate::registry::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::UnsupportedMediaType,
        "unsupported_media_type",
        Family::Inputs,
        Level::Must,
        "a body in a media type the operation does not take is rejected with a 4xx",
        "fixed: MUST reject, an undeclared body is not the operation's input; 415 at its x-level where the operation declares it",
    )],
    lacks,
};

fn lacks(_: Check, facts: &RunFacts<'_>) -> Option<String> {
    facts.unless_any(|o| o.body.is_some(), "no operation takes a request body")
}
