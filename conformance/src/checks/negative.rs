//! `negative_data_rejection` and `payload_too_large`: a request breaking a constraint of
//! the spec (an input missing or mistyped, a body over `x-max-body`) is rejected.

use schema_values::MutationKind;
use serde_json::{Value, json};

use super::{Def, RunFacts};
use crate::case::{AuthMode, Case, Expect, Step};
use crate::inputs::{Defect, Inputs, Part};
use crate::plan::builder::{
    Base, Builder, constraint_level, encoded_media, malformed, raw_body_request, request,
    sends_json,
};
use crate::registry::{Check, Family, row};
use crate::spec::{Body, Level, Location, Operation, Param, Spec};

/// Its registry rows ([`crate::checks::TABLE`]).
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
    derive: Some(derive),
    lacks,
    judge: None,
    settings: &[],
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

fn derive(b: &mut Builder<'_>) {
    // A mutation of an incomplete request would not be the one defect it names.
    if b.complete {
        let (spec, op, base, inputs) = (b.spec, b.op, b.base, b.inputs);
        negative(b, spec, op, base);
        defects(b, op, base, inputs);
    }
}

/// Values of the wrong JSON type for a schema, each with whether a lenient server can read
/// it as the declared type (a number where a string is declared reads as its text); the
/// spec's `x-mistyped-input` gives each kind its level.
fn mistyped(schema: &Value) -> Vec<(Value, bool)> {
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => vec![(json!(12345), true), (json!({ "not": "a string" }), false)],
        Some("integer") | Some("number") => vec![(json!("not-a-number"), false)],
        Some("boolean") => vec![(json!("not-a-boolean"), false)],
        Some("array") | Some("object") => vec![(json!(true), false)],
        _ => Vec::new(),
    }
}

/// Invalid requests by mutation of the base one, one defect each (see
/// [`crate::inputs::Defect`]), at most `--max-examples` for the parameters and as many for
/// the body, taken round the kinds of defect so each kind is tried before any twice. The
/// defects the hand-written families above already send (a required field or parameter
/// left out, a top-level field or a parameter of the wrong type, a too-short parameter, an
/// integer below its minimum) are not sent twice.
fn defects(b: &mut Builder<'_>, op: &Operation, base: &Base, inputs: &Inputs<'_>) {
    let mut found: Vec<Defect> = Vec::new();
    for (name, value) in &base.params {
        let Some(p) = op.param(name) else { continue };
        let integer = p.schema.get("type").and_then(Value::as_str) == Some("integer");
        found.extend(inputs.param_defects(p, value).into_iter().filter(|d| {
            let covered = match d.mutation.kind {
                MutationKind::WrongType | MutationKind::TooShort => true,
                MutationKind::BelowMinimum => integer,
                _ => false,
            };
            !covered
        }));
    }
    let params_end = found.len();
    if let (Some(decl), Some(body)) = (&op.body, &base.body)
        && sends_json(decl)
    {
        found.extend(inputs.body_defects(decl, body).into_iter().filter(|d| {
            let depth = d.mutation.instance_path.matches('/').count();
            !(d.mutation.kind == MutationKind::RequiredMissing && depth == 0
                || d.mutation.kind == MutationKind::WrongType && depth == 1)
        }));
    }
    let (params, body) = found.split_at(params_end);
    let mut seen = std::collections::BTreeSet::new();
    for d in round_robin(params, inputs.max_examples)
        .into_iter()
        .chain(round_robin(body, inputs.max_examples))
    {
        let (where_, req) = match &d.part {
            Part::Body => (
                format!("body{}", d.mutation.instance_path),
                request(
                    op,
                    base.params.clone(),
                    Some(d.value.clone()),
                    AuthMode::Token,
                ),
            ),
            Part::Param(name) => {
                let mut params = base.params.clone();
                if let Some(slot) = params.iter_mut().find(|(n, _)| n == name) {
                    slot.1 = d.value.clone();
                }
                (
                    name.clone(),
                    request(op, params, base.body.clone(), AuthMode::Token),
                )
            }
        };
        let mut name = format!("defect/{where_}:{}", d.mutation.keyword);
        let mut k = 2;
        while !seen.insert(name.clone()) {
            name = format!("defect/{where_}:{}#{k}", d.mutation.keyword);
            k += 1;
        }
        // A defect in a path segment may make the path one the target does not route (its
        // 404 is as good a rejection as any); elsewhere the operation's declared status
        // for malformed input holds, no more binding than the defect itself.
        let in_path = matches!(&d.part, Part::Param(n) if op.param(n).is_some_and(|p| p.location == Location::Path));
        let expect = match malformed(op) {
            Expect::Rejected { .. } if in_path => Expect::Rejected {
                status: None,
                body: None,
            },
            Expect::Rejected { status, body } => Expect::Rejected {
                status: status.map(|(s, l)| (s, l.max(d.level))),
                body,
            },
            other => other,
        };
        b.push(name, Check::NegativeDataRejection, d.level, req, expect);
    }
}

/// At most `n` defects, one of each kind in turn.
fn round_robin(defects: &[Defect], n: usize) -> Vec<&Defect> {
    let mut kinds: Vec<MutationKind> = Vec::new();
    for d in defects {
        if !kinds.contains(&d.mutation.kind) {
            kinds.push(d.mutation.kind);
        }
    }
    let mut queues: Vec<Vec<&Defect>> = kinds
        .iter()
        .map(|k| {
            defects
                .iter()
                .filter(|d| d.mutation.kind == *k)
                .rev()
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    while out.len() < n && queues.iter().any(|q| !q.is_empty()) {
        for q in &mut queues {
            if out.len() < n
                && let Some(d) = q.pop()
            {
                out.push(d);
            }
        }
    }
    out
}

/// The hand-written invalid requests of `op`, each breaking one thing of the base
/// request: a required parameter left out, a parameter of the wrong type or out of its
/// bounds, a required body field left out, a body field of the wrong type, a body that is
/// not JSON, and one over the spec's `x-max-body`.
fn negative(b: &mut Builder<'_>, spec: &Spec, op: &Operation, base: &Base) {
    missing_params(b, op, base);
    for p in &op.params {
        for (name, value, level) in param_variants(spec, p) {
            // The bad value goes in whether or not the base request sends the parameter:
            // a case whose defect never reaches the wire proves nothing.
            let mut params = base.params.clone();
            match params.iter_mut().find(|(n, _)| *n == p.name) {
                Some(slot) => slot.1 = value.clone(),
                None => params.push((p.name.clone(), value.clone())),
            }
            b.push(
                name,
                Check::NegativeDataRejection,
                level,
                request(op, params, base.body.clone(), AuthMode::Token),
                malformed(op),
            );
        }
    }
    let (Some(decl), Some(Value::Object(body))) = (&op.body, &base.body) else {
        return;
    };
    missing_fields(b, op, base, decl, body);
    mistyped_fields(b, spec, op, base, decl, body);
    unparsable_body(b, op, base);
    payload_too_large(b, spec, op, base, body);
}

/// Each required parameter left out (but a path one).
fn missing_params(b: &mut Builder<'_>, op: &Operation, base: &Base) {
    // A path parameter cannot be left out: without its segment the request goes to
    // another path, which `unknown_path` covers.
    for p in op
        .params
        .iter()
        .filter(|p| p.required && p.location != Location::Path)
    {
        let params: Vec<_> = base
            .params
            .iter()
            .filter(|(n, _)| *n != p.name)
            .cloned()
            .collect();
        b.push(
            format!("missing-param/{}", p.name),
            Check::NegativeDataRejection,
            Level::Must,
            request(op, params, base.body.clone(), AuthMode::Token),
            malformed(op),
        );
    }
}

/// The bad values of parameter `p`, each named and with its level: of the wrong type,
/// below its minimum, shorter than its minimum length.
fn param_variants(spec: &Spec, p: &Param) -> Vec<(String, Value, Level)> {
    let mut variants = Vec::new();
    // In a query string only numbers and booleans can have the wrong type: any text is
    // a valid string (and a valid item of a string list).
    let scalar = matches!(
        p.schema.get("type").and_then(Value::as_str),
        Some("integer" | "number" | "boolean")
    );
    // A query value is text, so only an unreadable one is mistyped (`masterid=abc`).
    for (bad, _) in mistyped(&p.schema)
        .into_iter()
        .filter(|(_, coercible)| scalar && !coercible)
    {
        variants.push((
            format!("mistyped-param/{}", p.name),
            bad,
            spec.decisions.mistyped.1,
        ));
    }
    if p.schema.get("type").and_then(Value::as_str) == Some("integer")
        && let Some(min) = p.schema.get("minimum").and_then(Value::as_i64)
    {
        variants.push((
            format!("below-minimum/{}", p.name),
            json!(min - 1),
            constraint_level(&p.schema, "minimum"),
        ));
    }
    if p.schema
        .get("minLength")
        .and_then(Value::as_u64)
        .is_some_and(|m| m > 0)
    {
        variants.push((
            format!("too-short/{}", p.name),
            json!(""),
            constraint_level(&p.schema, "minLength"),
        ));
    }
    variants
}

/// Each required field of the body left out.
fn missing_fields(
    b: &mut Builder<'_>,
    op: &Operation,
    base: &Base,
    decl: &Body,
    body: &serde_json::Map<String, Value>,
) {
    for f in decl.required() {
        let mut m = body.clone();
        m.remove(&f);
        b.push(
            format!("missing-field/{f}"),
            Check::NegativeDataRejection,
            Level::Must,
            request(
                op,
                base.params.clone(),
                Some(Value::Object(m)),
                AuthMode::Token,
            ),
            malformed(op),
        );
    }
}

/// Each field of the body with a value of the wrong type (a coercible one at its own
/// level).
fn mistyped_fields(
    b: &mut Builder<'_>,
    spec: &Spec,
    op: &Operation,
    base: &Base,
    decl: &Body,
    body: &serde_json::Map<String, Value>,
) {
    for (f, schema) in decl.properties() {
        let schema = crate::spec::resolve(&spec.doc, &schema)
            .cloned()
            .unwrap_or(schema);
        // A form carries text only: a number in a string field, or any coercible value,
        // arrives as a valid one.
        let form = encoded_media(decl).is_some();
        let text_field = schema.get("type").and_then(Value::as_str) == Some("string");
        for (bad, coercible) in mistyped(&schema) {
            if form && (coercible || text_field) {
                continue;
            }
            let (kind, level) = if coercible {
                ("coercible-field", spec.decisions.mistyped.0)
            } else {
                ("mistyped-field", spec.decisions.mistyped.1)
            };
            let mut m = body.clone();
            m.insert(f.clone(), bad);
            b.push(
                format!("{kind}/{f}"),
                Check::NegativeDataRejection,
                level,
                request(
                    op,
                    base.params.clone(),
                    Some(Value::Object(m)),
                    AuthMode::Token,
                ),
                malformed(op),
            );
        }
    }
}

/// A body that is not JSON at all.
fn unparsable_body(b: &mut Builder<'_>, op: &Operation, base: &Base) {
    b.cases.push(Case {
        id: format!("{}/unparsable-body", op.id),
        operation: op.id.clone(),
        check: Check::NegativeDataRejection.into(),
        level: Level::Must,
        steps: vec![Step {
            request: raw_body_request(op, base, "application/json", "{\"unterminated\": ".into()),
            expect: malformed(op),
            capture: Vec::new(),
            asserts: Vec::new(),
        }],
        serial: op.writes(),
        skip: None,
        requires: Vec::new(),
        cap: None,
    });
}

/// A body far over the spec's `x-max-body`, where the operation declares the status that
/// answers it.
fn payload_too_large(
    b: &mut Builder<'_>,
    spec: &Spec,
    op: &Operation,
    base: &Base,
    body: &serde_json::Map<String, Value>,
) {
    // A body far over the spec's `x-max-body` (valid JSON padded with spaces), where the
    // operation declares the status that answers it.
    if let Some((limit, status, level)) = spec.decisions.max_body
        && op
            .response(status)
            .is_some_and(|r| r.status == status.to_string())
    {
        let mut text = Value::Object(body.clone()).to_string();
        text.push_str(&" ".repeat(limit * PAYLOAD_FACTOR));
        let request = raw_body_request(op, base, "application/json", text);
        let expect = Expect::Rejected {
            status: Some((status, level)),
            body: None,
        };
        b.push(
            "payload-too-large".into(),
            Check::PayloadTooLarge,
            level,
            request,
            expect,
        );
    }
}

/// Padding in the payload-too-large case, in multiples of the spec's `x-max-body`: far
/// enough over that any limit near it triggers, yet (for a limit of some KiB) small enough
/// to sit in loopback socket buffers, so a server that answers before reading it all is
/// still heard.
const PAYLOAD_FACTOR: usize = 4;
