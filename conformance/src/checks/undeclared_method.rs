//! `undeclared_method`: a method the path does not take is rejected, with `Allow` where
//! the spec asks.

use super::{Def, RunFacts};
use crate::registry::{Check, Family, row};
use crate::spec::Level;

/// Its registry rows ([`crate::registry::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::UndeclaredMethod,
        "undeclared_method",
        Family::Transport,
        Level::Should,
        "a method the path does not take is rejected, with Allow where the spec asks",
        "spec x-undeclared-method (405 with Allow at SHOULD when absent)",
    )],
    lacks,
};

fn lacks(_: Check, _: &RunFacts<'_>) -> Option<String> {
    None
}
