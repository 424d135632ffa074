//! Every check accounted for: a registered check that judged nothing in a run is listed
//! once as not applicable, with the reason this spec or this run gives it nothing to judge,
//! so a report never drops a check silently (a `--check` selection leaves checks out on
//! purpose; the header says so).

use std::collections::BTreeSet;

use super::TABLE;
use crate::outcome::{CheckResult, Verdict};
use crate::registry::{Check, CheckId, Registry};
use crate::spec::{Level, Operation, Spec};

/// What a run was given, as far as which checks can judge anything depends on it.
pub struct RunFacts<'a> {
    /// The spec.
    pub spec: &'a Spec,
    /// The operations the selection keeps.
    pub operations: Vec<&'a Operation>,
    /// A `--replay` run: only `replay_consistency` judges.
    pub replay: bool,
    /// The checks' settings the run was given (a check judged only with one lacks it).
    pub options: &'a super::CheckOptions,
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

/// What the spec or the run's options lack for `check`, when they lack something (its
/// module says what).
fn spec_lacks(check: Check, facts: &RunFacts<'_>) -> Option<String> {
    if facts.operations.is_empty() && check.entry().family != crate::registry::Family::Contracts {
        return Some("the run has no operation".into());
    }
    (super::owner(check).lacks)(check, facts)
}

impl RunFacts<'_> {
    /// `why`, unless some operation of the run `has` what a check needs.
    pub(crate) fn unless_any(&self, has: impl Fn(&Operation) -> bool, why: &str) -> Option<String> {
        (!self.operations.iter().any(|o| has(o))).then(|| why.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::spec;

    static OPTIONS: std::sync::LazyLock<super::super::CheckOptions> =
        std::sync::LazyLock::new(Default::default);

    fn facts(spec: &Spec) -> RunFacts<'_> {
        RunFacts {
            spec,
            operations: spec.operations.iter().collect(),
            replay: false,
            options: &OPTIONS,
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
