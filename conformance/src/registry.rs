//! The check registry's vocabulary: every check the harness can report, with its family, default level,
//! one-line description and where its level comes from; reports, filters and contracts use it.
//!
//! A check is named in exactly one place, its row of `checks::TABLE`, written in the
//! check's own module of `checks/` (see there how to add one); code names checks by [`Check`], so a
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

/// A built-in check. `Check::entry` (in `checks`, which gathers the rows) gives its row.
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
    /// An answer's body is at most `--check-option max-response-size`.
    ResponseSize,
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

impl Check {
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
}

/// What a result is reported under: a built-in check or one a contract file declared.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CheckId {
    /// A built-in check (a row of `checks::TABLE`).
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

#[cfg(test)]
mod tests {
    use super::*;

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
