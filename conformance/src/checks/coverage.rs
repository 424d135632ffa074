//! Every check accounted for: a registered check that judged nothing in a run is listed
//! once as not applicable, with the reason this spec or this run gives it nothing to judge,
//! so a report never drops a check silently (a `--check` selection leaves checks out on
//! purpose; the header says so).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::outcome::{CheckResult, Verdict};
use crate::registry::{Check, CheckId, Registry, TABLE};
use crate::spec::{Level, Operation, Spec};

/// What a run was given, as far as which checks can judge anything depends on it.
pub struct RunFacts<'a> {
    /// The spec.
    pub spec: &'a Spec,
    /// The operations the selection keeps.
    pub operations: Vec<&'a Operation>,
    /// A `--replay` run: only `replay_consistency` judges.
    pub replay: bool,
    /// `--max-response-time` was given.
    pub max_response_time: bool,
    /// `--min-coverage` was given.
    pub min_coverage: bool,
    /// The number of discovery steps of the contract files.
    pub discovery_steps: usize,
}

/// The `case` name of a not-applicable entry: it belongs to no case of the run.
const NOT_APPLICABLE_CASE: &str = "(not applicable)";

/// One not-applicable entry for each check `selected` keeps that has no result in
/// `results`, built-in checks first, in registry order, then those contract files declare.
pub fn not_applicable(
    results: &[CheckResult],
    registry: &Registry,
    selected: impl Fn(&CheckId) -> bool,
    facts: &RunFacts<'_>,
) -> Vec<CheckResult> {
    let judged: BTreeSet<&str> = results.iter().map(|r| r.check.as_str()).collect();
    let builtin = TABLE
        .iter()
        .map(|e| (CheckId::Builtin(e.check), e.level, reason(e.check, facts)));
    let declared = registry.declared.iter().map(|d| {
        (
            CheckId::Declared(d.name.clone()),
            Level::Must,
            format!("no contract-file case of this run names it ({})", d.file),
        )
    });
    builtin
        .chain(declared)
        .filter(|(id, _, _)| selected(id) && !judged.contains(id.as_str()))
        .map(|(check, level, message)| CheckResult {
            case_index: usize::MAX,
            step: 0,
            case: NOT_APPLICABLE_CASE.into(),
            operation: String::new(),
            check,
            level,
            verdict: Verdict::NotApplicable,
            message,
            expected: String::new(),
            got: None,
            curl: None,
            missing_input: false,
            elapsed: None,
        })
        .collect()
}

/// Why `check` judged nothing: what the spec or the run lacks, or, where the spec does
/// give it something, that no answer of this run reached it.
fn reason(check: Check, facts: &RunFacts<'_>) -> String {
    if facts.replay {
        return match check {
            Check::ReplayConsistency => "the record file holds no exchange to replay".into(),
            _ => "a --replay run re-sends recorded requests and judges only replay_consistency"
                .into(),
        };
    }
    spec_lacks(check, facts).unwrap_or_else(|| {
        "the spec gives it something to judge, but no answer of this run reached it (the skipped cases say why)".into()
    })
}

/// What the spec or the run's options lack for `check`, when they lack something.
fn spec_lacks(check: Check, facts: &RunFacts<'_>) -> Option<String> {
    let ops = &facts.operations;
    let any = |f: &dyn Fn(&Operation) -> bool| ops.iter().any(|o| f(o));
    let none = |f: &dyn Fn(&Operation) -> bool, why: &str| (!any(f)).then(|| why.to_string());
    if ops.is_empty() && check.entry().family != crate::registry::Family::Contracts {
        return Some("the run has no operation".into());
    }
    match check {
        Check::NotAServerError | Check::StatusCodeConformance | Check::PositiveDataAcceptance => {
            None
        }
        Check::ContentTypeConformance | Check::ResponseSchemaConformance => none(
            &|o| o.responses.iter().any(|r| !r.content.is_empty()),
            "no declared response of the run's operations has content",
        ),
        Check::NegativeDataRejection => none(
            &|o| {
                o.body.is_some()
                    || o.params
                        .iter()
                        .any(|p| p.required || constrained(&p.schema))
            },
            "no operation has a required or constrained parameter or a request body",
        ),
        Check::LengthBoundaries => none(
            &|o| {
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
        ),
        Check::CombinedLength => none(
            &|o| o.body.as_ref().is_some_and(|b| !b.combined.is_empty()),
            "no request body states x-combined-max-length",
        ),
        Check::IgnoredAuth => none(
            &|o| o.secured,
            "no operation declares a security requirement",
        ),
        Check::UnsupportedMediaType => {
            none(&|o| o.body.is_some(), "no operation takes a request body")
        }
        Check::PayloadTooLarge => match facts.spec.decisions.max_body {
            None => {
                Some("the spec states no x-max-body (a body limit and the status beyond it)".into())
            }
            Some((_, status, _)) => none(
                &|o| o.body.is_some() && o.responses.iter().any(|r| r.status == status.to_string()),
                &format!("no operation with a request body declares x-max-body's status {status}"),
            ),
        },
        Check::UndeclaredMethod | Check::UnknownPath => None,
        Check::AlternateEncodings => none(
            &|o| o.params.iter().any(|p| !p.alternates.is_empty()),
            "no parameter states x-alternate-encodings",
        ),
        Check::ReplayConsistency => Some("judged only in a --replay run".into()),
        Check::Contract => Some("no contract-file case of this run reports under it".into()),
        Check::Discovery => Some(if facts.discovery_steps == 0 {
            "the contract files have no discovery step".into()
        } else {
            "reported only when a discovery step cannot run; every one ran".into()
        }),
        Check::ResponseTime => {
            (!facts.max_response_time).then(|| "judged only with --max-response-time".into())
        }
        Check::MinCoverage => {
            (!facts.min_coverage).then(|| "judged only with --min-coverage".into())
        }
        Check::StateRestored => {
            Some("the run wrote through no record that --fixtures `restore` names".into())
        }
        Check::ResourceAvailability | Check::UseAfterFree => Some(
            "no create of the run answered with an id whose read or delete the spec has (chains need --allow-writes)"
                .into(),
        ),
        rule => {
            let kind = rule.name().replace('_', "-");
            none(
                &|o| o.rules.iter().any(|r| Check::of_rule(r) == Some(rule)),
                &format!("no operation states an x-rules {kind} rule"),
            )
        }
    }
}

/// Whether a parameter's schema gives a negative case something to break.
fn constrained(schema: &Value) -> bool {
    matches!(
        schema.get("type").and_then(Value::as_str),
        Some("integer" | "number" | "boolean")
    ) || schema.get("minimum").is_some()
        || schema.get("minLength").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::spec;

    fn facts(spec: &Spec) -> RunFacts<'_> {
        RunFacts {
            spec,
            operations: spec.operations.iter().collect(),
            replay: false,
            max_response_time: false,
            min_coverage: false,
            discovery_steps: 1,
        }
    }

    #[test]
    fn each_check_without_a_result_is_listed_once_with_its_reason() {
        let spec = Spec::parse(
            r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "paths": {"/items": {"get": {"operationId": "listItems",
                  "responses": {"200": {"description": "ok"}}}}}}"#,
        )
        .unwrap();
        let na = not_applicable(&[], &Registry::default(), |_| true, &facts(&spec));
        let names: Vec<&str> = na.iter().map(|r| r.check.as_str()).collect();
        assert_eq!(names.len(), TABLE.len(), "every check once: {names:?}");
        let why = |c: &str| &na.iter().find(|r| r.check == c).unwrap().message;
        assert!(why("payload_too_large").contains("x-max-body"));
        assert!(why("ignored_auth").contains("security"));
        assert!(why("fields_equal").contains("fields-equal"));
        assert!(why("replay_consistency").contains("--replay"));
        assert!(why("unknown_path").contains("no answer of this run reached it"));
        assert!(na.iter().all(|r| r.verdict == Verdict::NotApplicable));
    }

    #[test]
    fn a_check_with_a_result_or_left_out_by_the_selection_is_not_listed() {
        let spec = spec();
        let ran = CheckResult {
            check: Check::UnknownPath.into(),
            verdict: Verdict::Passed,
            ..not_applicable(&[], &Registry::default(), |_| true, &facts(&spec))[0].clone()
        };
        let na = not_applicable(
            &[ran],
            &Registry::default(),
            |c| *c != CheckId::Builtin(Check::ResponseTime),
            &facts(&spec),
        );
        assert!(na.iter().all(|r| r.check != Check::UnknownPath));
        assert!(na.iter().all(|r| r.check != Check::ResponseTime));
        assert!(na.iter().any(|r| r.check == Check::ReplayConsistency));
    }
}
