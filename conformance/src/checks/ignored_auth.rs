//! `ignored_auth`: a secured operation refuses requests without valid credentials.

use super::{Def, RunFacts};
use crate::registry::{Check, Family, row};
use crate::spec::Level;
use serde_json::Value;

use crate::case::{AuthMode, Expect};
use crate::plan::{Base, Builder, request};
use crate::spec::{Location, Operation, Spec};

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
    derive: Some(derive),
    lacks,
};

fn lacks(_: Check, facts: &RunFacts<'_>) -> Option<String> {
    facts.unless_any(
        |o| o.secured,
        "no operation declares a security requirement",
    )
}

fn derive(b: &mut Builder<'_>) {
    let (spec, op, base, observed) = (b.spec, b.op, b.base, b.opts.auth_refusal);
    ignored_auth(b, spec, op, base, observed);
}

fn example_params(op: &Operation) -> Vec<(String, Value)> {
    op.params
        .iter()
        .filter_map(|p| p.example.clone().map(|v| (p.name.clone(), v)))
        .collect()
}

/// Requests without valid credentials to a secured operation: each must be refused, and a
/// pass needs a refusal the status shows (see `Expect::Refused`). `observed` is the status
/// the target refused a deliberately bad token with in pre-flight.
fn ignored_auth(
    b: &mut Builder<'_>,
    spec: &Spec,
    op: &Operation,
    base: &Base,
    observed: Option<u16>,
) {
    if !op.secured {
        return;
    }
    let rej = &spec.auth_rejection;
    let expect = Expect::Refused {
        status: rej.status,
        body: rej
            .body
            .clone()
            .map(|v| (v, rej.status.map_or(Level::Should, |(_, l)| l))),
        observed,
    };
    // The spec's examples; a path value only the base has (a contract default, or one the
    // target's answers gave) rather than none: without it the request would go to a
    // literal `{placeholder}` and its 404 would show nothing about credentials.
    let mut params = example_params(op);
    for (name, value) in &base.params {
        let in_path = op.param(name).is_some_and(|p| p.location == Location::Path);
        if in_path && !params.iter().any(|(n, _)| n == name) {
            params.push((name.clone(), value.clone()));
        }
    }
    let body = op
        .body
        .as_ref()
        .and_then(|d| d.example.clone())
        .or_else(|| base.body.clone());
    for (name, mode) in [
        ("no-header", AuthMode::Missing),
        ("malformed-header", AuthMode::Malformed),
        ("unknown-token", AuthMode::Unknown),
    ] {
        b.push(
            format!("ignored-auth/{name}"),
            Check::IgnoredAuth,
            rej.level,
            request(op, params.clone(), body.clone(), mode),
            expect.clone(),
        );
    }
}
