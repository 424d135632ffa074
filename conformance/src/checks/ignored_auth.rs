//! `ignored_auth`: a secured operation refuses requests without valid credentials.

use super::{Def, RunFacts};
use crate::registry::{Check, Family, row};
use crate::spec::Level;

/// Its registry rows ([`crate::registry::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::IgnoredAuth,
        "ignored_auth",
        Family::Inputs,
        Level::Must,
        "a secured operation refuses a missing, malformed or unknown bearer token: 401, 403 or the target's observed refusal (a 404 or 5xx is no evidence)",
        "spec x-rejection of the security scheme; status and body at x-rejection-response",
    )],
    lacks,
};

fn lacks(_: Check, facts: &RunFacts<'_>) -> Option<String> {
    facts.unless_any(
        |o| o.secured,
        "no operation declares a security requirement",
    )
}
