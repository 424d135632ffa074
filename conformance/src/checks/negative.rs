//! `negative_data_rejection` and `payload_too_large`: a request breaking a constraint of
//! the spec (an input missing or mistyped, a body over `x-max-body`) is rejected.

use serde_json::Value;

use super::{Def, RunFacts};
use crate::registry::{Check, Family, row};
use crate::spec::Level;

/// Its registry rows ([`crate::registry::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[
        row(
            Check::NegativeDataRejection,
            "negative_data_rejection",
            Family::Inputs,
            Level::Must,
            "a request missing, mistyping or breaking a constrained input is rejected",
            "spec x-constraint-levels of the broken keyword (MUST when absent); status at the 400 response's x-level",
        ),
        row(
            Check::PayloadTooLarge,
            "payload_too_large",
            Family::Inputs,
            Level::Must,
            "a body far over the spec's limit is rejected with the declared status",
            "spec x-max-body (not applicable without it)",
        ),
    ],
    lacks,
};

fn lacks(check: Check, facts: &RunFacts<'_>) -> Option<String> {
    if check == Check::PayloadTooLarge {
        return match facts.spec.decisions.max_body {
            None => {
                Some("the spec states no x-max-body (a body limit and the status beyond it)".into())
            }
            Some((_, status, _)) => facts.unless_any(
                |o| o.body.is_some() && o.responses.iter().any(|r| r.status == status.to_string()),
                &format!("no operation with a request body declares x-max-body's status {status}"),
            ),
        };
    }
    facts.unless_any(
        |o| {
            o.body.is_some()
                || o.params
                    .iter()
                    .any(|p| p.required || constrained(&p.schema))
        },
        "no operation has a required or constrained parameter or a request body",
    )
}

/// Whether a parameter's schema gives a negative case something to break.
fn constrained(schema: &Value) -> bool {
    matches!(
        schema.get("type").and_then(Value::as_str),
        Some("integer" | "number" | "boolean")
    ) || schema.get("minimum").is_some()
        || schema.get("minLength").is_some()
}
