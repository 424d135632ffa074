//! `length_boundaries` and `combined_length`: string fields at and one over their length
//! limits (`maxLength`, `minLength`, `pattern`, `x-combined-max-length`).

use serde_json::Value;

use super::{Def, RunFacts};
use crate::registry::{Check, Family, row};
use crate::spec::Level;

/// Its registry rows ([`crate::registry::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[
        row(
            Check::LengthBoundaries,
            "length_boundaries",
            Family::Inputs,
            Level::Must,
            "string fields at and one over maxLength, empty and blank, in several alphabets",
            "spec x-constraint-levels of the keyword; capped by x-non-bmp",
        ),
        row(
            Check::CombinedLength,
            "combined_length",
            Family::Inputs,
            Level::Must,
            "fields whose lengths add up to and one over an x-combined-max-length",
            "spec x-combined-max-length level; non-BMP variants at x-non-bmp",
        ),
    ],
    lacks,
};

fn lacks(check: Check, facts: &RunFacts<'_>) -> Option<String> {
    if check == Check::CombinedLength {
        return facts.unless_any(
            |o| o.body.as_ref().is_some_and(|b| !b.combined.is_empty()),
            "no request body states x-combined-max-length",
        );
    }
    facts.unless_any(
        |o| {
            o.body.as_ref().is_some_and(|b| {
                b.properties().iter().any(|(_, s)| {
                    s.get("maxLength").is_some()
                        || s.get("pattern").is_some()
                        || s.get("minLength")
                            .and_then(Value::as_u64)
                            .is_some_and(|m| m > 0)
                })
            })
        },
        "no request body field states maxLength, minLength or pattern",
    )
}
