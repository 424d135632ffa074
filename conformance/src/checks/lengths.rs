//! `length_boundaries` and `combined_length`: string fields at and one over their length
//! limits (`maxLength`, `minLength`, `pattern`, `x-combined-max-length`).

use serde_json::{Map, Value};

use super::{Def, RunFacts};
use crate::case::{AuthMode, Expect};
use crate::plan::builder::{Base, Builder, Patterns, predict, request};
use crate::registry::{Check, Family, row};
use crate::spec::{Level, Operation};

/// Its registry rows ([`crate::checks::TABLE`]).
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
    derive: Some(derive),
    lacks,
    judge: None,
    settings: &[],
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

fn derive(b: &mut Builder<'_>) {
    if b.complete {
        let (op, base, non_bmp) = (b.op, b.base, b.spec.decisions.non_bmp);
        lengths(b, op, base, non_bmp);
    }
}

const ASCII: &[char] = &[
    'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'k', 'm', 'n', 'p', 'r', 's', 't', 'w',
];
const LATIN: &[char] = &['é', 'ß', 'ü', 'ñ', 'ø', 'å'];
const CJK: &[char] = &['中', '文', '字', '名', '姓'];
const EMOJI: &[char] = &['😀', '🚀', '🎉', '🦀'];

fn lengths(b: &mut Builder<'_>, op: &Operation, base: &Base, non_bmp: Level) {
    let (Some(decl), Some(Value::Object(body))) = (&op.body, &base.body) else {
        return;
    };
    let rng = &mut *b.rng;
    let mut variants: Vec<(String, Check, Map<String, Value>, Level)> = Vec::new();
    let with = |pairs: &[(&str, String)]| {
        let mut m = body.clone();
        for (k, v) in pairs {
            m.insert((*k).to_string(), Value::String(v.clone()));
        }
        m
    };
    for (f, schema) in decl.properties() {
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
            let max = max as usize;
            for (label, alphabet, n) in [
                ("ascii", ASCII, max),
                ("ascii", ASCII, max + 1),
                ("cjk", CJK, max),
                ("latin", LATIN, max + 1),
            ] {
                let v = rng.string(alphabet, n);
                variants.push((
                    format!("{f}={n}-{label}"),
                    Check::LengthBoundaries,
                    with(&[(&f, v)]),
                    Level::Must,
                ));
            }
        }
        if schema
            .get("minLength")
            .and_then(Value::as_u64)
            .is_some_and(|m| m > 0)
        {
            variants.push((
                format!("{f}=empty"),
                Check::LengthBoundaries,
                with(&[(&f, String::new())]),
                Level::Must,
            ));
        }
        if schema.get("pattern").is_some() {
            variants.push((
                format!("{f}=blank"),
                Check::LengthBoundaries,
                with(&[(&f, "   ".into())]),
                Level::Must,
            ));
        }
    }
    for rule in &decl.combined {
        if rule.fields.is_empty() {
            continue;
        }
        for (label, alphabet, level) in [
            ("ascii", ASCII, Level::Must),
            ("latin", LATIN, Level::Must),
            ("cjk", CJK, Level::Must),
            ("emoji", EMOJI, non_bmp),
        ] {
            for total in [rule.max, rule.max + 1] {
                let k = rule.fields.len();
                let pairs: Vec<(&str, String)> = rule
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let share = total / k + usize::from(i < total % k);
                        (f.as_str(), rng.string(alphabet, share))
                    })
                    .collect();
                variants.push((
                    format!("combined={total}-{label}"),
                    Check::CombinedLength,
                    with(&pairs),
                    level,
                ));
            }
        }
    }
    let mut patterns = Patterns::default();
    for (name, check, m, level) in variants {
        let bodyv = Value::Object(m);
        let (expect, predicted_level) = predict(op, &bodyv, &mut patterns);
        let expect = match expect {
            Expect::Success => base.ok(),
            other => other,
        };
        let beyond_bmp = bodyv.to_string().chars().any(|c| u32::from(c) > 0xFFFF);
        let level = level.max(predicted_level);
        b.push(
            name,
            check,
            level,
            request(op, base.params.clone(), Some(bodyv), AuthMode::Token),
            expect,
        );
        // Characters outside the Basic Multilingual Plane: every verdict on such an answer
        // (the case's own and the success rules applied to it) is capped at the spec's
        // `x-non-bmp` level, whatever the rule's own level.
        if beyond_bmp
            && non_bmp == Level::Should
            && let Some(c) = b.cases.last_mut()
        {
            c.cap = Some(non_bmp);
        }
    }
}
