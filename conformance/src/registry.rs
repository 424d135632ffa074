//! The check registry: every check the harness can report, with its family, default level,
//! one-line description and where its level comes from; reports, filters and contracts use it.
//!
//! A check is named in exactly one place, its row of [`TABLE`], written in the check's own
//! module of `checks/` (see there how to add one); code names checks by [`Check`], so a
//! typo is a compile error rather than a new check. Contract files may add checks of their
//! own, but only by declaring them (`checks:` in a contract file, see
//! `conformance/contracts/README.md`); those are [`CheckId::Declared`] and listed beside the
//! built-in ones. A name that is neither is refused wherever it appears (exit 2).

use std::fmt;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use crate::spec::{Level, Rule};

/// The families checks fall into, one per room of `checks/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Every answer: status, media type, body schema, no server error.
    SchemaStatus,
    /// Derived requests, valid and invalid: the answer each must get.
    Inputs,
    /// The spec's semantic `x-rules`.
    Rules,
    /// Contract-file cases and discovery.
    Contracts,
    /// How requests travel: routes, methods, parameter encodings, replays.
    Transport,
}

impl Family {
    /// The family's name in listings.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::SchemaStatus => "schema/status",
            Family::Inputs => "inputs",
            Family::Rules => "rules",
            Family::Contracts => "contracts",
            Family::Transport => "transport",
        }
    }
}

/// A built-in check. [`Check::entry`] gives its row of [`TABLE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Check {
    /// No answer is a 5xx.
    NotAServerError,
    /// The status is one the operation declares.
    StatusCodeConformance,
    /// The Content-Type is one the status declares.
    ContentTypeConformance,
    /// The body matches the status's schema.
    ResponseSchemaConformance,
    /// The operation's valid request succeeds.
    PositiveDataAcceptance,
    /// A request breaking a constraint is rejected.
    NegativeDataRejection,
    /// Field lengths at and over their limits.
    LengthBoundaries,
    /// Combined lengths at and over their limits.
    CombinedLength,
    /// Requests without valid credentials are rejected.
    IgnoredAuth,
    /// An undeclared request media type is rejected.
    UnsupportedMediaType,
    /// A body over the spec's limit is rejected.
    PayloadTooLarge,
    /// A method the path does not take is rejected.
    UndeclaredMethod,
    /// A path the spec does not declare is rejected.
    UnknownPath,
    /// A list parameter in each of its encodings.
    AlternateEncodings,
    /// A replayed exchange gets the recorded answer.
    ReplayConsistency,
    /// `x-rules` `fields-equal`.
    FieldsEqual,
    /// `x-rules` `fields-non-empty`.
    FieldsNonEmpty,
    /// `x-rules` `fields-absent`.
    FieldsAbsent,
    /// `x-rules` `field-one-of`.
    FieldOneOf,
    /// `x-rules` `echoes-request`.
    EchoesRequest,
    /// `x-rules` `preserves-other-fields`.
    PreservesOtherFields,
    /// `x-rules` `items-field-equals-param`.
    ItemsFieldEqualsParam,
    /// `x-rules` `field-equals-param`.
    FieldEqualsParam,
    /// `x-rules` `items-field-in-param`.
    ItemsFieldInParam,
    /// `x-rules` `items-unique`.
    ItemsUnique,
    /// `x-rules` `max-items-param`.
    MaxItemsParam,
    /// `x-rules` `items-contain-param`.
    ItemsContainParam,
    /// A contract-file case that names no check of its own.
    Contract,
    /// A discovery step of the contract files.
    Discovery,
    /// An answer came within `--max-response-time`.
    ResponseTime,
    /// The records the run's writes changed were put back as they were.
    StateRestored,
    /// Enough of the selected operations reached a 2xx answer (`--min-coverage`).
    MinCoverage,
    /// What a create stored reads back (`ensure_resource_availability`).
    ResourceAvailability,
    /// After a delete, the resource is gone (`use_after_free`).
    UseAfterFree,
}

/// One row of the registry.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// The check.
    pub check: Check,
    /// The name reports, `--check` and contract files use.
    pub name: &'static str,
    /// Its family.
    pub family: Family,
    /// The level a verdict has unless the spec or the case says otherwise.
    pub level: Level,
    /// What it judges, in one line.
    pub description: &'static str,
    /// Where its level comes from.
    pub level_from: &'static str,
}

/// A row of [`TABLE`], as the module of its check writes it.
pub(crate) const fn row(
    check: Check,
    name: &'static str,
    family: Family,
    level: Level,
    description: &'static str,
    level_from: &'static str,
) -> Entry {
    Entry {
        check,
        name,
        family,
        level,
        description,
        level_from,
    }
}

/// Every built-in check, in [`Check`] order (a unit test holds the two together). The rows
/// live beside the code of their checks, one module of `checks/` per check or family; this
/// is them gathered and put in order (`checks::ALL`).
pub const TABLE: &[Entry] = &ROWS;

const ROWS: [Entry; crate::checks::ROW_COUNT] = crate::checks::table();

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

    /// The check a spec rule reports under; `None` for a rule that modifies others
    /// (`unordered`) rather than judging an answer.
    pub fn of_rule(rule: &Rule) -> Option<Check> {
        Some(match rule {
            Rule::FieldsEqual { .. } => Check::FieldsEqual,
            Rule::FieldsNonEmpty { .. } => Check::FieldsNonEmpty,
            Rule::FieldsAbsent { .. } => Check::FieldsAbsent,
            Rule::FieldOneOf { .. } => Check::FieldOneOf,
            Rule::EchoesRequest { .. } => Check::EchoesRequest,
            Rule::PreservesOtherFields { .. } => Check::PreservesOtherFields,
            Rule::ItemsFieldEqualsParam { .. } => Check::ItemsFieldEqualsParam,
            Rule::FieldEqualsParam { .. } => Check::FieldEqualsParam,
            Rule::ItemsFieldInParam { .. } => Check::ItemsFieldInParam,
            Rule::ItemsUnique { .. } => Check::ItemsUnique,
            Rule::MaxItemsParam { .. } => Check::MaxItemsParam,
            Rule::ItemsContainParam { .. } => Check::ItemsContainParam,
            Rule::Unordered { .. } => return None,
        })
    }

    /// Whether it is a rule judging each item of a list answer on its own.
    pub fn judges_each_item(self) -> bool {
        matches!(
            self,
            Check::ItemsFieldEqualsParam
                | Check::ItemsFieldInParam
                | Check::ItemsUnique
                | Check::ItemsContainParam
        )
    }

    /// Whether every answer is judged by it (so `--check` with it keeps every case), as
    /// opposed to a check that names a kind of case.
    pub fn judges_every_answer(self) -> bool {
        matches!(self.family(), Family::SchemaStatus | Family::Rules)
    }
}

/// What a result is reported under: a built-in check or one a contract file declared.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CheckId {
    /// A check of [`TABLE`].
    Builtin(Check),
    /// A check declared in a contract file's `checks:` (its name was checked at load).
    Declared(Arc<str>),
}

impl CheckId {
    /// The name reports use.
    pub fn as_str(&self) -> &str {
        match self {
            CheckId::Builtin(c) => c.name(),
            CheckId::Declared(n) => n,
        }
    }

    /// The built-in check, if it is one.
    pub fn builtin(&self) -> Option<Check> {
        match self {
            CheckId::Builtin(c) => Some(*c),
            CheckId::Declared(_) => None,
        }
    }
}

impl From<Check> for CheckId {
    fn from(c: Check) -> CheckId {
        CheckId::Builtin(c)
    }
}

impl From<&CheckId> for CheckId {
    fn from(c: &CheckId) -> CheckId {
        c.clone()
    }
}

impl PartialEq<Check> for CheckId {
    fn eq(&self, other: &Check) -> bool {
        self.builtin() == Some(*other)
    }
}

impl PartialEq<str> for CheckId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for CheckId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for CheckId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CheckId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A check a contract file declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// Its name.
    pub name: Arc<str>,
    /// What it judges, as the file says.
    pub description: String,
    /// The file that declares it.
    pub file: String,
}

/// The built-in checks and those the run's contract files declare: what `--check` and
/// contract cases may name.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    /// Checks declared by contract files, in load order.
    pub declared: Vec<Declared>,
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

    #[test]
    fn declared_checks_resolve_after_built_in_ones() {
        let r = Registry {
            declared: vec![Declared {
                name: "finds_things".into(),
                description: "d".into(),
                file: "f.yaml".into(),
            }],
        };
        assert_eq!(
            r.resolve("unknown_path"),
            Some(CheckId::Builtin(Check::UnknownPath))
        );
        assert_eq!(
            r.resolve("finds_things").map(|c| c.to_string()),
            Some("finds_things".into())
        );
        assert_eq!(r.resolve("finds_thing"), None);
    }
}
