//! `min_coverage`: enough of the selected operations reached a 2xx (judged once per run, in
//! [`crate::coverage`]).

use super::{Def, RunFacts};
use crate::registry::{Check, Family, row};
use crate::spec::Level;

/// Its registry rows ([`crate::checks::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::MinCoverage,
        "min_coverage",
        Family::Inputs,
        Level::Must,
        "at least --min-coverage percent of the selected operations got a 2xx answer (judged only when it is given)",
        "fixed: MUST, a gate that never reached the API has judged nothing",
    )],
    derive: None,
    lacks,
    judge: None,
    settings: &[],
};

fn lacks(_: Check, facts: &RunFacts<'_>) -> Option<String> {
    (!facts.min_coverage).then(|| "judged only with --min-coverage".into())
}
