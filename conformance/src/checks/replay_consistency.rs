//! `replay_consistency`: a re-sent recorded request gets the recorded answer (judged in
//! [`crate::replay`], which re-sends a record file's exchanges).

use super::{Def, RunFacts};
use crate::registry::{Check, Family, row};
use crate::spec::Level;

/// Its registry rows ([`crate::checks::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::ReplayConsistency,
        "replay_consistency",
        Family::Transport,
        Level::Must,
        "a re-sent recorded request gets the recorded status and body",
        "fixed: MUST, --replay asks whether the target answers as the recorded one did",
    )],
    derive: None,
    lacks,
    judge: None,
    settings: &[],
};

fn lacks(_: Check, _: &RunFacts<'_>) -> Option<String> {
    Some("judged only in a --replay run".into())
}
