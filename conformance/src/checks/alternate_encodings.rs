//! `alternate_encodings`: a list parameter sent in each encoding the spec allows, judged
//! across the steps of its case: one verdict per encoding level, not one per step.

use super::{Def, RunFacts};
use crate::case::{AssertKind, Assertion, AuthMode, Case, RequestTemplate, Step};
use crate::outcome::{CheckResult, Got, Verdict};
use crate::plan::builder::{Base, Builder, request};
use crate::registry::{Check, Family, row};
use crate::spec::{Level, Operation, Rule, Spec, Style};

/// How one step of an encodings case went, with what came back when it failed.
pub struct StepVerdict {
    /// The step got an answer and no check of it failed.
    pub ok: bool,
    /// The first failure's message.
    pub why: Option<String>,
    /// What came back for the first failure.
    pub got: Option<Got>,
    /// The curl line of the first failure.
    pub curl: Option<String>,
}

/// Judges a list parameter sent in each encoding: answering one of them correctly, and
/// answering the declared one, each at the level of the parameter's `x-encoding-levels`;
/// which ones the target accepts is reported either way.
pub fn judge_encodings(
    spec: &Spec,
    case: &Case,
    index: usize,
    step_ok: &[StepVerdict],
) -> Vec<CheckResult> {
    let declared = spec
        .operation(&case.operation)
        .and_then(|o| o.params.iter().find(|p| !p.alternates.is_empty()));
    let param = declared.map_or("list", |p| p.name.as_str());
    let (any_level, declared_level) =
        declared.map_or((Level::Must, Level::Must), |p| p.encoding_levels);
    let accepted: Vec<String> = case
        .steps
        .iter()
        .zip(step_ok)
        .map(|(s, v)| {
            let (ok, why) = (&v.ok, &v.why);
            let style = s.request.style.or(declared.map(|p| p.style));
            let explode = s.request.explode.or(declared.map(|p| p.explode));
            let shape = match (style.unwrap_or(Style::Form), explode.unwrap_or(true)) {
                (Style::Form, false) => format!("form, explode=false ({param}=A,B)"),
                (Style::Form, true) => format!("form, explode=true ({param}=A&{param}=B)"),
                (other, explode) => format!("{}, explode={explode}", other.as_str()),
            };
            let verdict = if *ok {
                "accepted".to_string()
            } else {
                format!(
                    "not answered correctly ({})",
                    why.clone().unwrap_or_default()
                )
            };
            format!("{shape}: {verdict}")
        })
        .collect();
    let summary = accepted.join("; ");
    // A failure shows the answer and the curl line of `step` (the first step that failed
    // among those the verdict is about).
    let mk = |level: Level, ok: bool, expected: &str, step: Option<usize>| {
        let shown = step
            .filter(|_| !ok)
            .and_then(|i| step_ok.get(i).map(|v| (i, v)));
        CheckResult {
            case_index: index,
            step: shown.map_or(0, |(i, _)| i),
            case: case.id.clone(),
            operation: case.operation.clone(),
            check: Check::AlternateEncodings.into(),
            level,
            verdict: if ok { Verdict::Passed } else { Verdict::Failed },
            message: summary.clone(),
            expected: expected.into(),
            got: shown.and_then(|(_, v)| v.got.clone()),
            curl: shown.and_then(|(_, v)| v.curl.clone()),
            missing_input: false,
            elapsed: None,
        }
    };
    let first_failed = step_ok.iter().position(|v| !v.ok);
    vec![
        mk(
            any_level,
            step_ok.iter().any(|v| v.ok),
            "one of the list encodings answered correctly",
            first_failed,
        ),
        mk(
            declared_level,
            step_ok.first().is_some_and(|v| v.ok),
            "the declared encoding answered correctly",
            Some(0),
        ),
    ]
}

/// Its registry rows ([`crate::checks::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::AlternateEncodings,
        "alternate_encodings",
        Family::Transport,
        Level::Must,
        "a list parameter sent in each encoding the spec allows is answered correctly",
        "spec x-encoding-levels of the parameter (not applicable without x-alternate-encodings)",
    )],
    derive: Some(derive),
    lacks,
    judge: None,
    settings: &[],
};

fn lacks(_: Check, facts: &RunFacts<'_>) -> Option<String> {
    facts.unless_any(
        |o| o.params.iter().any(|p| !p.alternates.is_empty()),
        "no parameter states x-alternate-encodings",
    )
}

fn derive(b: &mut Builder<'_>) {
    if b.complete {
        let (op, base) = (b.op, b.base);
        encodings(b, op, base);
    }
}

fn encodings(b: &mut Builder<'_>, op: &Operation, base: &Base) {
    for p in &op.params {
        if p.alternates.is_empty() {
            continue;
        }
        let Some((_, value)) = base.params.iter().find(|(n, _)| *n == p.name) else {
            continue;
        };
        let field = op.rules.iter().find_map(|r| match r {
            Rule::ItemsFieldInParam { field, param, .. } if *param == p.name => Some(field.clone()),
            _ => None,
        });
        let asserts: Vec<Assertion> = field
            .map(|f| Assertion {
                pointer: String::new(),
                kind: AssertKind::Covers {
                    field: f,
                    values: value.clone(),
                },
                after_success: false,
            })
            .into_iter()
            .collect();
        let mut steps = vec![Step {
            request: RequestTemplate {
                explode: Some(p.explode),
                style: Some(p.style),
                ..request(op, base.params.clone(), base.body.clone(), AuthMode::Token)
            },
            expect: base.ok(),
            capture: Vec::new(),
            asserts: asserts.clone(),
        }];
        for alt in &p.alternates {
            steps.push(Step {
                request: RequestTemplate {
                    explode: Some(alt.explode),
                    style: Some(alt.style),
                    ..request(op, base.params.clone(), base.body.clone(), AuthMode::Token)
                },
                expect: base.ok(),
                capture: Vec::new(),
                asserts: asserts.clone(),
            });
        }
        b.cases.push(Case {
            id: format!("{}/encodings/{}", op.id, p.name),
            operation: op.id.clone(),
            check: Check::AlternateEncodings.into(),
            level: Level::Must,
            steps,
            serial: op.writes(),
            skip: None,
            requires: Vec::new(),
            cap: None,
        });
    }
}
