//! `ensure_resource_availability` and `use_after_free`: what a create stored reads back,
//! and after a delete the resource is gone (the chains of [`crate::plan`]'s state room).

use super::{Def, RunFacts};
use crate::registry::{Check, Family, row};
use crate::spec::Level;

/// Its registry rows ([`crate::registry::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[
        row(
            Check::ResourceAvailability,
            "ensure_resource_availability",
            Family::Inputs,
            Level::Must,
            "a resource the run created reads back (2xx) with the plain values it was created or updated with (inferred create → read → update chains; --allow-writes)",
            "fixed: MUST, a create that answered a success has stored what it says it stored",
        ),
        row(
            Check::UseAfterFree,
            "use_after_free",
            Family::Inputs,
            Level::Must,
            "after a delete that answered a success, a read of the same resource is refused (4xx), not served (inferred create → delete → read chains; --allow-writes)",
            "fixed: MUST, a delete that answered a success has deleted",
        ),
    ],
    lacks,
};

fn lacks(_: Check, _: &RunFacts<'_>) -> Option<String> {
    Some(
        "no create of the run answered with an id whose read or delete the spec has (chains need --allow-writes)"
            .into(),
    )
}
