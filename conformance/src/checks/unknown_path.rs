//! `unknown_path`: a path the spec does not declare is rejected with the declared status.

use super::{Def, RunFacts};
use crate::registry::{Check, Family, row};
use crate::spec::Level;

/// Its registry rows ([`crate::registry::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::UnknownPath,
        "unknown_path",
        Family::Transport,
        Level::Should,
        "a path the spec does not declare is rejected with the declared status",
        "spec x-unknown-path (404 at SHOULD when absent)",
    )],
    lacks,
};

fn lacks(_: Check, _: &RunFacts<'_>) -> Option<String> {
    None
}
