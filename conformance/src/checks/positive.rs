//! `positive_data_acceptance`: the operation's valid request succeeds.

use serde_json::Value;

use super::Def;
use crate::case::{AuthMode, Expect};
use crate::inputs::Inputs;
use crate::plan::builder::{Base, Builder, encoded_media, extremes, request, sends_json};
use crate::registry::{Check, Family, row};
use crate::spec::{Level, Location, Operation};
use crate::state::Pool;

/// Its registry rows ([`crate::checks::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::PositiveDataAcceptance,
        "positive_data_acceptance",
        Family::Inputs,
        Level::Must,
        "the operation's valid request (examples, contract defaults) succeeds",
        "fixed: MUST, a request the spec declares valid is the operation's contract",
    )],
    derive: Some(derive),
    lacks: super::lacks_nothing,
    judge: None,
    settings: &[],
};

fn derive(b: &mut Builder<'_>) {
    let (op, base, inputs, pool) = (b.op, b.base, b.inputs, b.pool);
    positive(b, base);
    if b.complete {
        examples(b, op, base, inputs, pool);
    }
}

fn positive(b: &mut Builder<'_>, base: &Base) {
    let op = b.op;
    b.push(
        "positive".into(),
        Check::PositiveDataAcceptance,
        Level::Must,
        request(op, base.params.clone(), base.body.clone(), AuthMode::Token),
        base.ok(),
    );
}

/// More valid requests than the base one, up to `--max-examples` in all: optional
/// parameters sent (each with another of its values), and other bodies reaching other
/// `oneOf` branches, enum values and optional parts. Each is the generator's guess at a
/// valid request, so its answer is observed: the generic checks judge it, and a 5xx or
/// an undeclared status is a finding.
fn examples(b: &mut Builder<'_>, op: &Operation, base: &Base, inputs: &Inputs<'_>, pool: &Pool) {
    let n = inputs.max_examples.saturating_sub(1);
    if n == 0 {
        return;
    }
    let optional: Vec<(&crate::spec::Param, Vec<Value>)> = op
        .params
        .iter()
        .filter(|p| {
            p.location != Location::Path && !base.params.iter().any(|(name, _)| *name == p.name)
        })
        .map(|p| (p, inputs.param_variants(&op.id, p, n)))
        .filter(|(_, vs)| !vs.is_empty())
        .collect();
    let bodies: Vec<Value> = match (&op.body, &base.body) {
        (Some(decl), Some(_))
            if (sends_json(decl) || encoded_media(decl).is_some()) && base.generated =>
        {
            inputs
                .body_variants(&op.id, decl, n + 1)
                .into_iter()
                .skip(1)
                .map(|mut v| {
                    if let Value::Object(m) = &mut v {
                        pool.fill_references(m, &decl.schema);
                    }
                    v
                })
                .collect()
        }
        _ => Vec::new(),
    };
    // Optional headers go in one request of their own: they are most often protocol
    // headers (an API version, a request id) whose valid values the schema does not state,
    // and a target refusing a made-up one would taint every other example.
    let (headers, others): (Vec<_>, Vec<_>) = optional
        .into_iter()
        .partition(|(p, _)| p.location == Location::Header);
    if !headers.is_empty() {
        let mut params = base.params.clone();
        for (p, values) in &headers {
            params.push((p.name.clone(), values[0].clone()));
        }
        b.push(
            "example/headers".into(),
            Check::PositiveDataAcceptance,
            Level::Must,
            request(op, params, base.body.clone(), AuthMode::Token),
            Expect::Observe,
        );
    }
    let optional = others;
    // Values at the edges of what the schemas admit where they set no bound, one at a
    // time: twice the examples' budget, since each is one request and they find the most
    // server errors.
    let extremes = extremes(op, &base.params, base.body.as_ref(), inputs);
    for (at, params, body) in extremes.into_iter().take(2 * inputs.max_examples) {
        b.push(
            format!("example/extreme/{at}"),
            Check::PositiveDataAcceptance,
            Level::Must,
            request(op, params, body, AuthMode::Token),
            Expect::Observe,
        );
    }
    // Strings around what an unanchored `pattern` matches, every such parameter at once
    // (one request: they cost no budget of the edges above).
    let loose: Vec<(String, Value)> = op
        .params
        .iter()
        .filter(|p| p.location != Location::Path)
        .filter_map(|p| Some((p.name.clone(), inputs.loose_param(p)?)))
        .collect();
    if !loose.is_empty() {
        let mut params = base.params.clone();
        params.retain(|(n, _)| !loose.iter().any(|(l, _)| l == n));
        params.extend(loose);
        b.push(
            "example/extreme/loose".to_string(),
            Check::PositiveDataAcceptance,
            Level::Must,
            request(op, params, base.body.clone(), AuthMode::Token),
            Expect::Observe,
        );
    }
    for k in 0..n {
        let mut params = base.params.clone();
        for (p, values) in &optional {
            params.push((p.name.clone(), values[k % values.len()].clone()));
        }
        let body = bodies.get(k).cloned().or_else(|| base.body.clone());
        if optional.is_empty() && bodies.get(k).is_none() {
            break;
        }
        let req = request(op, params, body, AuthMode::Token);
        b.push(
            format!("example/{}", k + 1),
            Check::PositiveDataAcceptance,
            Level::Must,
            req,
            Expect::Observe,
        );
    }
}
