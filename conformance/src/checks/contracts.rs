//! Contract-file assertions on a step's JSON answer: equals, non-empty, absent, unchanged
//! but for some fields, covers a list, at most N items.

use serde_json::Value;

use super::rules::diff_except;
use super::{Answer, CheckOptions, Def, Finding, RunFacts, compact, non_empty, text};
use crate::case::{AssertKind, Assertion};
use crate::registry::{Check, CheckId, Family, row};
use crate::spec::Level;
use crate::vars::{Vars, pointer};

/// Judges a contract-file assertion.
pub fn assertion(
    check: &CheckId,
    level: Level,
    a: &Assertion,
    body: Option<&Value>,
    vars: &Vars,
) -> Finding {
    let at = if a.pointer.is_empty() {
        "the body".to_string()
    } else {
        a.pointer.clone()
    };
    let Some(body) = body else {
        return Finding::new(
            check,
            level,
            format!("a JSON body at {at}"),
            Err("the body is not JSON".into()),
        );
    };
    let got = pointer(body, &a.pointer);
    let sub = |v: &Value| vars.substitute(v);
    match &a.kind {
        AssertKind::Equals(v) => match sub(v) {
            Err(name) => Finding::skipped(
                check,
                level,
                format!("{at} equals {v}"),
                format!("variable {name} is not bound"),
            ),
            Ok(want) => Finding::new(
                check,
                level,
                format!("{at} equals {}", compact(&want)),
                if got.as_ref() == Some(&want) {
                    Ok(())
                } else {
                    Err(format!(
                        "{at} is {}",
                        got.as_ref().map_or("absent".into(), compact)
                    ))
                },
            ),
        },
        AssertKind::NonEmpty => Finding::new(
            check,
            level,
            format!("{at} non-empty"),
            if non_empty(got.as_ref()) {
                Ok(())
            } else {
                Err(format!("{at} is empty or missing"))
            },
        ),
        AssertKind::Absent => Finding::new(
            check,
            level,
            format!("{at} absent"),
            if got.as_ref().is_none_or(Value::is_null) {
                Ok(())
            } else {
                Err(format!("{at} is present"))
            },
        ),
        AssertKind::SameExcept { value, except } => match sub(value) {
            Err(name) => Finding::skipped(
                check,
                level,
                format!("{at} unchanged"),
                format!("variable {name} is not bound"),
            ),
            Ok(want) => {
                let ex: Vec<&str> = except.iter().map(String::as_str).collect();
                Finding::new(
                    check,
                    level,
                    format!(
                        "{at} equal to the earlier value except {}",
                        except.join(", ")
                    ),
                    match &got {
                        None => Err(format!("{at} is absent")),
                        Some(g) => diff_except(&want, g, &ex),
                    },
                )
            }
        },
        AssertKind::Covers { field, values } => match sub(values) {
            Err(name) => Finding::skipped(
                check,
                level,
                format!("every requested {field} returned"),
                format!("variable {name} is not bound"),
            ),
            Ok(want) => {
                let want: Vec<String> = want
                    .as_array()
                    .map(|a| a.iter().map(text).collect())
                    .unwrap_or_else(|| vec![text(&want)]);
                let have: Vec<String> = got
                    .as_ref()
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|i| i.get(field.as_str()).map(text))
                            .collect()
                    })
                    .unwrap_or_default();
                let missing: Vec<&String> = want.iter().filter(|w| !have.contains(w)).collect();
                Finding::new(
                    check,
                    level,
                    format!("items with {field} {want:?}"),
                    if missing.is_empty() {
                        Ok(())
                    } else {
                        Err(format!("missing {field} {missing:?}"))
                    },
                )
            }
        },
        AssertKind::MaxItems(n) => {
            let len = got.as_ref().and_then(Value::as_array).map(Vec::len);
            Finding::new(
                check,
                level,
                format!("at most {n} items at {at}"),
                match len {
                    Some(l) if l <= *n => Ok(()),
                    Some(l) => Err(format!("{l} items")),
                    None => Err(format!("{at} is not an array")),
                },
            )
        }
    }
}

/// Its registry rows ([`crate::checks::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[
        row(
            Check::Contract,
            "contract",
            Family::Contracts,
            Level::Must,
            "a contract-file case that names no check of its own",
            "the contract case's level",
        ),
        row(
            Check::Discovery,
            "discovery",
            Family::Contracts,
            Level::Must,
            "a discovery step could run (its answers get the schema/status checks)",
            "fixed: MUST, reported only when a step is skipped, saying why",
        ),
        row(
            Check::StateRestored,
            "state_restored",
            Family::Contracts,
            Level::Must,
            "the records the run's writes changed are put back to the values --fixtures `restore` gives",
            "fixed: MUST, a gate must leave a shared staging target as it found it",
        ),
    ],
    derive: None,
    lacks,
    judge: Some(judge),
    settings: &[],
};

/// The step's contract-file asserts, each on the answer's JSON body.
fn judge(a: &Answer<'_>, _: &CheckOptions) -> Vec<Finding> {
    a.step
        .asserts
        .iter()
        .map(|x| assertion(&a.case.check, a.case.level, x, a.resp.json.as_ref(), a.vars))
        .collect()
}

fn lacks(check: Check, facts: &RunFacts<'_>) -> Option<String> {
    Some(match check {
        Check::Discovery if facts.discovery_steps == 0 => {
            "the contract files have no discovery step".into()
        }
        Check::Discovery => "reported only when a discovery step cannot run; every one ran".into(),
        Check::StateRestored => {
            "the run wrote through no record that --fixtures `restore` names".into()
        }
        _ => "no contract-file case of this run reports under it".into(),
    })
}
