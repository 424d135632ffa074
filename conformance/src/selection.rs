//! What a run judges: the operations and checks the command line selects (`--operation`,
//! `--tag`, `--check`) less those it excludes (`--exclude-…`), checked against the spec
//! and the check registry before anything is sent.

use std::collections::BTreeSet;

use crate::contracts::Contracts;
use crate::error::HarnessError;
use crate::registry::{Check, CheckId};
use crate::run_config::{Filters, Shard};
use crate::spec::Spec;

/// The operations and checks a run judges.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// The operations asked for (`--operation`, and those of `--tag`); `None`: every one.
    only_operations: Option<BTreeSet<String>>,
    /// Operations left out (`--exclude-operation`, and those of `--exclude-tag`).
    excluded_operations: BTreeSet<String>,
    /// The checks asked for; empty: every one.
    only_checks: Vec<CheckId>,
    /// Checks left out.
    excluded_checks: Vec<CheckId>,
    /// How the command line said it, for the run header.
    described: Vec<String>,
}

impl Selection {
    /// Resolves the names the command line's filters give; an unknown operation, tag or
    /// check is a configuration error naming the known ones.
    pub fn resolve(
        filters: &Filters,
        spec: &Spec,
        contracts: &Contracts,
    ) -> Result<Selection, HarnessError> {
        let operation = |flag: &str, id: &String| {
            spec.operation(id).map(|o| o.id.clone()).ok_or_else(|| {
                let known: Vec<&str> = spec.operations.iter().map(|o| o.id.as_str()).collect();
                HarnessError::Config(format!(
                    "{flag} {id}: no such operation; known: {}",
                    known.join(", ")
                ))
            })
        };
        let tagged = |flag: &str, tag: &String| {
            let ops: Vec<String> = spec
                .operations
                .iter()
                .filter(|o| o.tags.contains(tag))
                .map(|o| o.id.clone())
                .collect();
            if ops.is_empty() {
                let mut known: Vec<&str> = spec
                    .operations
                    .iter()
                    .flat_map(|o| o.tags.iter().map(String::as_str))
                    .collect();
                known.sort_unstable();
                known.dedup();
                return Err(HarnessError::Config(format!(
                    "{flag} {tag}: no operation has this tag; tags: {}",
                    known.join(", ")
                )));
            }
            Ok(ops)
        };
        let check = |flag: &str, name: &String| {
            contracts.registry.resolve(name).ok_or_else(|| {
                HarnessError::Config(format!(
                    "{flag} {name}: no such check; known: {}",
                    contracts.registry.names().join(", ")
                ))
            })
        };
        let mut only = BTreeSet::new();
        for id in &filters.operations {
            only.insert(operation("--operation", id)?);
        }
        for tag in &filters.tags {
            only.extend(tagged("--tag", tag)?);
        }
        let mut excluded = BTreeSet::new();
        for id in &filters.exclude_operations {
            excluded.insert(operation("--exclude-operation", id)?);
        }
        for tag in &filters.exclude_tags {
            excluded.extend(tagged("--exclude-tag", tag)?);
        }
        let only_checks = filters
            .checks
            .iter()
            .map(|c| check("--check", c))
            .collect::<Result<Vec<_>, _>>()?;
        let excluded_checks = filters
            .exclude_checks
            .iter()
            .map(|c| check("--exclude-check", c))
            .collect::<Result<Vec<_>, _>>()?;
        let mut only_operations =
            (!filters.operations.is_empty() || !filters.tags.is_empty()).then_some(only);
        let mut described = Vec::new();
        if let Some(Shard { index: i, count: n }) = filters.shard {
            // Dealt round-robin over the selection in id order: every shard gets its share
            // however the ids cluster, and the same ids always fall the same way.
            let mut selected: Vec<&str> = spec
                .operations
                .iter()
                .map(|o| o.id.as_str())
                .filter(|id| {
                    only_operations.as_ref().is_none_or(|o| o.contains(*id))
                        && !excluded.contains(*id)
                })
                .collect();
            selected.sort_unstable();
            let total = selected.len();
            let mine: BTreeSet<String> = selected
                .into_iter()
                .enumerate()
                .filter(|(k, _)| k % n == i - 1)
                .map(|(_, id)| id.to_string())
                .collect();
            described.push(format!(
                "--shard {i}/{n} ({} of {total} operations)",
                mine.len()
            ));
            only_operations = Some(mine);
        }
        for (flag, values) in [
            ("--operation", &filters.operations),
            ("--tag", &filters.tags),
            ("--exclude-operation", &filters.exclude_operations),
            ("--exclude-tag", &filters.exclude_tags),
            ("--check", &filters.checks),
            ("--exclude-check", &filters.exclude_checks),
        ] {
            if !values.is_empty() {
                described.push(format!("{flag} {}", values.join(",")));
            }
        }
        Ok(Selection {
            only_operations,
            excluded_operations: excluded,
            only_checks,
            excluded_checks,
            described,
        })
    }

    /// Whether the operation's cases run and its results count.
    pub fn operation(&self, id: &str) -> bool {
        self.only_operations.as_ref().is_none_or(|o| o.contains(id))
            && !self.excluded_operations.contains(id)
    }

    /// Whether a check's results count.
    pub fn check(&self, c: &CheckId) -> bool {
        (self.only_checks.is_empty() || self.only_checks.contains(c))
            && !self.excluded_checks.contains(c)
    }

    /// Whether a case reported under `check` must run: every case runs when a selected
    /// check judges every answer (the answers of all cases feed it).
    pub fn runs_case_of(&self, check: &CheckId) -> bool {
        self.only_checks.is_empty()
            || self.only_checks.contains(check)
            || self
                .only_checks
                .iter()
                .any(|c| c.builtin().is_some_and(Check::judges_every_answer))
    }

    /// The selection as the command line gave it (`all operations and checks` when it
    /// gave none).
    pub fn describe(&self) -> String {
        if self.described.is_empty() {
            "all operations and checks".into()
        } else {
            self.described.join(" ")
        }
    }

    /// Whether the command line narrowed the run at all.
    pub fn is_narrowed(&self) -> bool {
        !self.described.is_empty()
    }
}
