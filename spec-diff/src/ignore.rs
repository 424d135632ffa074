//! Known changes (`--ignore FILE`): changes a team has looked at and accepts, each with its
//! reason, like the harness's known failures. An accepted finding is still listed, marked
//! with the reason, and no longer counts for `--fail-on` or the version check; an entry
//! that accepted nothing is reported so it can be removed.
//!
//! The file is YAML, a list of entries:
//!
//! ```yaml
//! - rule: response-enum-value-added        # the rule (required)
//!   operation: GET /pets                   # optional: one of the finding's operations
//!   pointer: /components/schemas/Pet/properties/kind   # optional: exactly
//!   reason: every client we ship has the open enum (ticket API-12)
//! ```

use serde::{Deserialize, Serialize};

use crate::finding::Finding;
use crate::rules::RULES;

/// One accepted change.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The rule of the finding.
    pub rule: String,
    /// One of the operations it touches (`GET /pets`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// Its pointer (or Rust item path), exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// Why it is accepted.
    pub reason: String,
}

impl Entry {
    fn matches(&self, f: &Finding) -> bool {
        self.rule == f.rule
            && self
                .operation
                .as_ref()
                .is_none_or(|op| f.operations.iter().any(|o| o == op))
            && self.pointer.as_ref().is_none_or(|p| *p == f.pointer)
    }
}

/// The entries of an ignore file.
#[derive(Debug, Clone, Default)]
pub struct Ignore {
    entries: Vec<Entry>,
}

impl Ignore {
    /// Reads the text of an ignore file; the error says which entry is wrong and why.
    pub fn parse(text: &str) -> Result<Ignore, String> {
        let value = spec_model::yaml::to_json(text).map_err(|e| e.to_string())?;
        if value.is_null() {
            return Ok(Ignore::default());
        }
        let entries: Vec<Entry> =
            serde_json::from_value(value).map_err(|e| format!("not a list of entries: {e}"))?;
        for (i, e) in entries.iter().enumerate() {
            if !RULES.iter().any(|r| r.name == e.rule) {
                return Err(format!(
                    "entry {}: no rule named `{}` (see --list-rules)",
                    i + 1,
                    e.rule
                ));
            }
            if e.reason.trim().is_empty() {
                return Err(format!("entry {}: the reason is empty", i + 1));
            }
        }
        Ok(Ignore { entries })
    }

    /// Marks the findings an entry accepts; returns the entries that accepted none.
    pub fn apply(&self, findings: &mut [Finding]) -> Vec<Entry> {
        let mut used = vec![false; self.entries.len()];
        for f in findings.iter_mut() {
            if let Some(i) = self.entries.iter().position(|e| e.matches(f)) {
                used[i] = true;
                f.ignored = Some(self.entries[i].reason.clone());
            }
        }
        self.entries
            .iter()
            .zip(used)
            .filter(|(_, used)| !used)
            .map(|(e, _)| e.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_rule_and_empty_reason_are_refused() {
        let e = Ignore::parse("- rule: no-such-rule\n  reason: x\n").unwrap_err();
        assert!(e.contains("no-such-rule"), "{e}");
        let e = Ignore::parse("- rule: api-added\n  reason: ' '\n").unwrap_err();
        assert!(e.contains("reason is empty"), "{e}");
        let e = Ignore::parse("- rule: api-added\n").unwrap_err();
        assert!(e.contains("reason"), "{e}");
        let e = Ignore::parse("- rule: api-added\n  reason: x\n  tciket: 1\n").unwrap_err();
        assert!(e.contains("tciket"), "{e}");
        assert!(Ignore::parse("").unwrap().entries.is_empty());
    }
}
