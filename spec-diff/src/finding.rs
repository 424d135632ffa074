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
    /// Whether the clients generated from the old spec read through it, as judged from
    /// that crate's own decoding rules (answers only).
    pub ours: Ours,
    /// Its effect on the generated crate (Rust findings).
    pub rust: Option<Semver>,
    /// The reason from the `--ignore` file that accepts it, if one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<String>,
}

/// What a wire change does to the clients generated from the old spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ours {
    /// Nothing: the change is compatible, or not about the wire.
    Unaffected,
    /// They read the new answers: the old crate's types decode them (an open enum, a
    /// union's fallback, an `Option`, unknown fields skipped).
    ReadsThrough,
    /// They are broken too: a request they send may be refused, or an answer may not
    /// decode into the old crate's type.
    Breaks,
    /// Not judged: the old crate could not be generated, or the place of the change has
    /// no type of its own in it.
    NotJudged,
}

/// Findings in the order made; a second report of the same rule at the same pointer only
/// adds its operation to the first (a component met by many operations is reported once).
#[derive(Debug, Default)]
pub struct Findings {
    list: Vec<Finding>,
    seen: HashMap<(&'static str, String), usize>,
    /// For each finding, the place in the old document the change is judged at (the
    /// node whose old type decides whether old clients read the new answer).
    olds: Vec<Option<String>>,
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
            ours: match r.wire {
                // Judged later from the old crate's types; until then nothing is claimed.
                Wire::Answers => Ours::NotJudged,
                Wire::Requests => Ours::Breaks,
                Wire::None => Ours::Unaffected,
            },
            rust: r.rust,
            ignored: None,
        });
        self.olds.push(None);
        let i = self.list.len() - 1;
        self.seen.insert((name, pointer.to_owned()), i);
        i
    }

    /// Records where in the old document finding `i` is judged, unless already known.
    pub fn old_at(&mut self, i: usize, pointer: &str) {
        self.olds[i].get_or_insert_with(|| pointer.to_owned());
    }

    /// Decides what each answer finding does to the old spec's clients, from the place
    /// in the old document it is judged at.
    pub fn judge(&mut self, reads: impl Fn(&Finding, &str) -> Option<bool>) {
        for (f, old) in self.list.iter_mut().zip(&self.olds) {
            if f.wire != Wire::Answers {
                continue;
            }
            f.ours = match old.as_deref().and_then(|at| reads(f, at)) {
                Some(true) => Ours::ReadsThrough,
                Some(false) => Ours::Breaks,
                None => Ours::NotJudged,
            };
        }
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
