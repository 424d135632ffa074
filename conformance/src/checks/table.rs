//! The registry's table: every built-in check's row, gathered from the check modules
//! (`checks::ALL`) and put in [`Check`] order, and what reads it. The vocabulary (the
//! [`Check`] names, [`Entry`], [`Registry`] of declared checks) lives below in
//! `registry`, which every floor may name; what needs the rows lives here, above the
//! check modules that write them.

use crate::registry::{Check, CheckId, Entry, Family, Registry};

/// Every built-in check, in [`Check`] order (a unit test holds the two together). The rows
/// live beside the code of their checks, one module of `checks/` per check or family; this
/// is them gathered and put in order (`checks::ALL`).
pub const TABLE: &[Entry] = &ROWS;

const ROWS: [Entry; super::ROW_COUNT] = super::table();

impl Check {
    /// Its row of the registry.
    pub fn entry(self) -> &'static Entry {
        &TABLE[self as usize]
    }

    /// The name reports use.
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// Its family.
    pub fn family(self) -> Family {
        self.entry().family
    }

    /// The built-in check of this name.
    pub fn parse(name: &str) -> Option<Check> {
        TABLE.iter().find(|e| e.name == name).map(|e| e.check)
    }

    /// Whether every answer is judged by it (so `--check` with it keeps every case), as
    /// opposed to a check that names a kind of case.
    pub fn judges_every_answer(self) -> bool {
        matches!(self.family(), Family::SchemaStatus | Family::Rules)
    }
}

impl Registry {
    /// The check of this name.
    pub fn resolve(&self, name: &str) -> Option<CheckId> {
        Check::parse(name).map(CheckId::Builtin).or_else(|| {
            self.declared
                .iter()
                .find(|d| &*d.name == name)
                .map(|d| CheckId::Declared(d.name.clone()))
        })
    }

    /// Every name, built-in first, for messages.
    pub fn names(&self) -> Vec<&str> {
        TABLE
            .iter()
            .map(|e| e.name)
            .chain(self.declared.iter().map(|d| &*d.name))
            .collect()
    }

    /// The registry as a table, one check a line: name, family, level, where the level
    /// comes from, and what it judges (what `--list-checks` prints).
    pub fn render(&self) -> String {
        let mut rows: Vec<[String; 5]> = vec![[
            "check".into(),
            "family".into(),
            "level".into(),
            "level from".into(),
            "judges".into(),
        ]];
        for e in TABLE {
            rows.push([
                e.name.into(),
                e.family.as_str().into(),
                e.level.as_str().into(),
                e.level_from.into(),
                e.description.into(),
            ]);
        }
        for d in &self.declared {
            rows.push([
                d.name.to_string(),
                Family::Contracts.as_str().into(),
                "case".into(),
                format!("the contract case's level ({})", d.file),
                d.description.clone(),
            ]);
        }
        let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
        let (w0, w1, w2) = (width(0), width(1), width(2));
        let mut out = String::new();
        for r in &rows {
            let line = format!(
                "{:w0$}  {:w1$}  {:w2$}  {}\n{:w0$}  {:w1$}  {:w2$}    {}",
                r[0], r[1], r[2], r[4], "", "", "", r[3]
            );
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_check_order_and_names_are_unique() {
        for (i, e) in TABLE.iter().enumerate() {
            assert_eq!(e.check as usize, i, "{} is out of place", e.name);
            assert_eq!(Check::parse(e.name), Some(e.check));
        }
        let mut names: Vec<&str> = TABLE.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TABLE.len());
    }
}
