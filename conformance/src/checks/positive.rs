//! `positive_data_acceptance`: the operation's valid request succeeds.

use super::{Def, RunFacts};
use crate::registry::{Check, Family, row};
use crate::spec::Level;

/// Its registry rows ([`crate::registry::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::PositiveDataAcceptance,
        "positive_data_acceptance",
        Family::Inputs,
        Level::Must,
        "the operation's valid request (examples, contract defaults) succeeds",
        "fixed: MUST, a request the spec declares valid is the operation's contract",
    )],
    lacks,
};

fn lacks(_: Check, _: &RunFacts<'_>) -> Option<String> {
    None
}
