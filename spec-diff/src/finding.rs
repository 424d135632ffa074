//! One reported change, and the collection that gathers them without repeating one.

use std::collections::HashMap;

use serde::Serialize;

use crate::rules::{Kind, Level, Semver, Wire, rule};

/// One change between the two specs, under one rule.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// The rule's name.
    pub rule: &'static str,
    /// Wire, Rust, decision or version.
    pub kind: Kind,
    /// ERR, WARN or INFO.
    pub level: Level,
    /// The operations it touches (`GET /pets/{id}`), in the order met; empty for a change
    /// outside any operation.
    pub operations: Vec<String>,
    /// The component schema it is in, or the Rust item it is about.
    pub subject: Option<String>,
    /// JSON pointer of the node in the new spec (in the old one when it was removed), or
    /// the Rust item's path.
    pub pointer: String,
    /// What changed, in words.
    pub message: String,
    /// Who it breaks on the wire.
    pub wire: Wire,
    /// Whether the generated clients read through it.
    pub ours_tolerate: bool,
    /// Its effect on the generated crate (Rust findings).
    pub rust: Option<Semver>,
    /// The reason from the `--ignore` file that accepts it, if one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<String>,
}

/// Findings in the order made; a second report of the same rule at the same pointer only
/// adds its operation to the first (a component met by many operations is reported once).
#[derive(Debug, Default)]
pub struct Findings {
    list: Vec<Finding>,
    seen: HashMap<(&'static str, String), usize>,
}

impl Findings {
    /// Records a finding and returns its index.
    pub fn add(
        &mut self,
        name: &'static str,
        operation: Option<&str>,
        subject: Option<&str>,
        pointer: &str,
        message: String,
    ) -> usize {
        if let Some(&i) = self.seen.get(&(name, pointer.to_owned())) {
            self.touch(i, operation);
            return i;
        }
        let r = rule(name);
        self.list.push(Finding {
            rule: r.name,
            kind: r.kind,
            level: r.level,
            operations: operation.map(str::to_owned).into_iter().collect(),
            subject: subject.map(str::to_owned),
            pointer: pointer.to_owned(),
            message,
            wire: r.wire,
            ours_tolerate: r.ours_tolerate,
            rust: r.rust,
            ignored: None,
        });
        let i = self.list.len() - 1;
        self.seen.insert((name, pointer.to_owned()), i);
        i
    }

    /// Notes that one more operation reaches finding `i`.
    pub fn touch(&mut self, i: usize, operation: Option<&str>) {
        if let Some(op) = operation {
            let ops = &mut self.list[i].operations;
            if !ops.iter().any(|o| o == op) {
                ops.push(op.to_owned());
            }
        }
    }

    /// The findings, in the order made.
    pub fn into_vec(self) -> Vec<Finding> {
        self.list
    }
}
