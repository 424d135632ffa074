//! Known failures (`--known-failures FILE`): failures a team has ticketed and accepted for
//! a while. A matching failure is reported as known and does not fail the run; an entry
//! past its expiry date matches nothing, so its failure fails the run again; an entry that
//! matched no failure is reported so it can be removed.
//!
//! The file is YAML, a list of entries:
//!
//! ```yaml
//! - check: response_schema_conformance   # what fails: a check, a case, an operation
//!   operation: listCategoryPositionLimits #   (at least one; all given must match)
//!   reason: totalBy is lower-cased by the v2.3 serializer
//!   ticket: TRADE-1234
//!   expires: 2026-12-31                   # optional: the last day it is accepted
//! ```

use std::path::Path;

use chrono::NaiveDate;
use serde::Deserialize;

use crate::outcome::{CheckResult, Verdict};

/// One accepted failure.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The check that fails.
    #[serde(default)]
    pub check: Option<String>,
    /// The case id that fails.
    #[serde(default)]
    pub case: Option<String>,
    /// The operation the failure is reported under.
    #[serde(default)]
    pub operation: Option<String>,
    /// Why it is accepted.
    pub reason: String,
    /// Where it is tracked.
    pub ticket: String,
    /// The last day the entry is accepted (`YYYY-MM-DD`, UTC).
    #[serde(default)]
    pub expires: Option<NaiveDate>,
}

impl Entry {
    fn matches(&self, r: &CheckResult) -> bool {
        let eq = |want: &Option<String>, got: &str| want.as_deref().is_none_or(|w| w == got);
        eq(&self.check, r.check.as_str())
            && eq(&self.case, &r.case)
            && eq(&self.operation, &r.operation)
    }

    /// How the entry is named in notes: its ticket and what it selects.
    fn label(&self) -> String {
        let what: Vec<String> = [
            ("check", &self.check),
            ("case", &self.case),
            ("operation", &self.operation),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} {v}")))
        .collect();
        format!("{} ({})", self.ticket, what.join(", "))
    }
}

/// The entries of a known-failures file.
#[derive(Debug, Clone, Default)]
pub struct KnownFailures {
    entries: Vec<Entry>,
}

impl KnownFailures {
    /// Reads and checks a file; the error names the file and what is wrong.
    pub fn load(path: &Path) -> Result<KnownFailures, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read known failures {}: {e}", path.display()))?;
        KnownFailures::parse(&text).map_err(|e| format!("known failures {}: {e}", path.display()))
    }

    /// Parses the YAML text of a file.
    pub fn parse(text: &str) -> Result<KnownFailures, String> {
        let entries: Vec<Entry> = spec_model::yaml::from_str(text).map_err(|e| e.to_string())?;
        for (i, e) in entries.iter().enumerate() {
            let n = i + 1;
            if e.check.is_none() && e.case.is_none() && e.operation.is_none() {
                return Err(format!(
                    "entry {n} names no check, case or operation: it would accept every failure"
                ));
            }
            if e.ticket.trim().is_empty() || e.reason.trim().is_empty() {
                return Err(format!("entry {n} needs a non-empty ticket and reason"));
            }
        }
        Ok(KnownFailures { entries })
    }

    /// Checks that every entry names a check the run can report and an operation of the
    /// spec: a typo would otherwise accept nothing and go unnoticed until it expires.
    pub fn check_names(
        &self,
        registry: &crate::registry::Registry,
        spec: &crate::spec::Spec,
    ) -> Result<(), String> {
        for (i, e) in self.entries.iter().enumerate() {
            if let Some(c) = &e.check
                && registry.resolve(c).is_none()
            {
                return Err(format!("entry {}: no such check `{c}`", i + 1));
            }
            if let Some(op) = &e.operation
                && spec.operation(op).is_none()
            {
                return Err(format!("entry {}: no such operation `{op}`", i + 1));
            }
        }
        Ok(())
    }

    /// Turns each failure an unexpired entry matches into a known one (the first matching
    /// entry names it), and returns notes for the summary: entries that matched no failure
    /// and expired entries whose failure counts again.
    pub fn apply(&self, results: &mut [CheckResult], today: NaiveDate) -> Vec<String> {
        let mut used = vec![false; self.entries.len()];
        for r in results.iter_mut().filter(|r| r.verdict == Verdict::Failed) {
            let Some((i, e)) = self.entries.iter().enumerate().find(|(_, e)| e.matches(r)) else {
                continue;
            };
            used[i] = true;
            match e.expires {
                Some(last) if last < today => {
                    r.message = format!(
                        "{} (known failure {} expired on {last})",
                        r.message, e.ticket
                    );
                }
                _ => {
                    r.verdict = Verdict::Known;
                    r.message = format!("known failure {}: {}; {}", e.ticket, e.reason, r.message);
                }
            }
        }
        let mut notes = Vec::new();
        for (e, used) in self.entries.iter().zip(used) {
            if !used {
                notes.push(format!(
                    "known failure {} did not fail in this run: remove it if it is fixed",
                    e.label()
                ));
            } else if let Some(last) = e.expires.filter(|last| *last < today) {
                notes.push(format!(
                    "known failure {} expired on {last}: its failures fail the run again",
                    e.label()
                ));
            }
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Check;
    use crate::spec::Level;

    fn failed(case: &str, check: &str) -> CheckResult {
        CheckResult {
            case_index: 0,
            step: 0,
            case: case.into(),
            operation: case.split('/').next().unwrap().into(),
            check: Check::parse(check).expect("a registered check").into(),
            level: Level::Must,
            verdict: Verdict::Failed,
            message: "bad".into(),
            expected: String::new(),
            got: None,
            curl: None,
            missing_input: false,
            elapsed: None,
        }
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    const FILE: &str = "
- check: response_schema_conformance
  operation: listCategoryPositionLimits
  reason: totalBy lower-cased
  ticket: TRADE-1
- case: getCategoryPositionLimit/positive
  reason: old record
  ticket: TRADE-2
  expires: 2026-01-31
- check: echoes_request
  reason: fixed long ago
  ticket: TRADE-3
";

    #[test]
    fn matching_failures_become_known_expired_ones_fail_and_unused_are_named() {
        let known = KnownFailures::parse(FILE).unwrap();
        let mut results = vec![
            failed(
                "listCategoryPositionLimits/positive",
                "response_schema_conformance",
            ),
            failed("listCategoryPositionLimits/positive", "not_a_server_error"),
            failed("getCategoryPositionLimit/positive", "field_equals_param"),
        ];
        let notes = known.apply(&mut results, day("2026-11-23"));
        assert_eq!(results[0].verdict, Verdict::Known);
        assert!(
            results[0]
                .message
                .starts_with("known failure TRADE-1: totalBy")
        );
        assert_eq!(
            results[1].verdict,
            Verdict::Failed,
            "another check is not covered"
        );
        assert_eq!(results[2].verdict, Verdict::Failed, "the entry expired");
        assert!(results[2].message.contains("TRADE-2 expired on 2026-01-31"));
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].contains("TRADE-2 (case getCategoryPositionLimit/positive) expired"));
        assert!(notes[1].contains("TRADE-3 (check echoes_request) did not fail"));
    }

    #[test]
    fn an_entry_is_accepted_through_its_last_day() {
        let known = KnownFailures::parse(FILE).unwrap();
        let mut results = vec![failed(
            "getCategoryPositionLimit/positive",
            "field_equals_param",
        )];
        known.apply(&mut results, day("2026-01-31"));
        assert_eq!(results[0].verdict, Verdict::Known);
    }

    #[test]
    fn malformed_files_are_refused_with_the_reason() {
        for (text, why) in [
            (
                "- reason: r\n  ticket: T\n",
                "names no check, case or operation",
            ),
            ("- check: c\n  reason: r\n", "ticket"),
            ("- check: c\n  reason: ''\n  ticket: T\n", "non-empty"),
            (
                "- check: c\n  reason: r\n  ticket: T\n  expires: soon\n",
                "expires",
            ),
            (
                "- check: c\n  reason: r\n  ticket: T\n  owner: me\n",
                "owner",
            ),
        ] {
            let err = KnownFailures::parse(text).unwrap_err();
            assert!(err.contains(why), "{text:?}: {err}");
        }
    }
}
