//! The check registry: every check the harness can report, with its family, default level,
//! one-line description and where its level comes from; reports, filters and contracts use it.
//!
//! A check is named in exactly one place, [`TABLE`]; code names checks by [`Check`], so a
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
#[derive(Debug)]
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

const fn row(
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

use Family as F;
use Level::{Must, Should};

/// Every built-in check, in [`Check`] order (a unit test holds the two together).
pub const TABLE: &[Entry] = &[
    row(
        Check::NotAServerError,
        "not_a_server_error",
        F::SchemaStatus,
        Must,
        "no answer is a 5xx, and an answer comes within the timeout",
        "spec x-server-errors (MUST when absent: a 5xx fails on any spec); fixed MUST for no answer at all",
    ),
    row(
        Check::StatusCodeConformance,
        "status_code_conformance",
        F::SchemaStatus,
        Must,
        "the status is one the operation declares (not judged: the 401/403 of a request sent without credentials on purpose, the unknown-path and undeclared-method probes)",
        "spec x-level of the declared response; spec x-undeclared-status for any other (MUST when absent)",
    ),
    row(
        Check::ContentTypeConformance,
        "content_type_conformance",
        F::SchemaStatus,
        Must,
        "the Content-Type is one the status declares",
        "spec x-level of the declared response",
    ),
    row(
        Check::ResponseSchemaConformance,
        "response_schema_conformance",
        F::SchemaStatus,
        Must,
        "the body matches the declared schema of its status and media type",
        "spec x-level of the declared response",
    ),
    row(
        Check::PositiveDataAcceptance,
        "positive_data_acceptance",
        F::Inputs,
        Must,
        "the operation's valid request (examples, contract defaults) succeeds",
        "fixed: MUST, a request the spec declares valid is the operation's contract",
    ),
    row(
        Check::NegativeDataRejection,
        "negative_data_rejection",
        F::Inputs,
        Must,
        "a request missing, mistyping or breaking a constrained input is rejected",
        "spec x-constraint-levels of the broken keyword (MUST when absent); status at the 400 response's x-level",
    ),
    row(
        Check::LengthBoundaries,
        "length_boundaries",
        F::Inputs,
        Must,
        "string fields at and one over maxLength, empty and blank, in several alphabets",
        "spec x-constraint-levels of the keyword; capped by x-non-bmp",
    ),
    row(
        Check::CombinedLength,
        "combined_length",
        F::Inputs,
        Must,
        "fields whose lengths add up to and one over an x-combined-max-length",
        "spec x-combined-max-length level; non-BMP variants at x-non-bmp",
    ),
    row(
        Check::IgnoredAuth,
        "ignored_auth",
        F::Inputs,
        Must,
        "a secured operation refuses a missing, malformed or unknown bearer token: 401, 403 or the target's observed refusal (a 404 or 5xx is no evidence)",
        "spec x-rejection of the security scheme; status and body at x-rejection-response",
    ),
    row(
        Check::UnsupportedMediaType,
        "unsupported_media_type",
        F::Inputs,
        Must,
        "a body in a media type the operation does not take is rejected with a 4xx",
        "fixed: MUST reject, an undeclared body is not the operation's input; 415 at its x-level where the operation declares it",
    ),
    row(
        Check::PayloadTooLarge,
        "payload_too_large",
        F::Inputs,
        Must,
        "a body far over the spec's limit is rejected with the declared status",
        "spec x-max-body (not applicable without it)",
    ),
    row(
        Check::UndeclaredMethod,
        "undeclared_method",
        F::Transport,
        Should,
        "a method the path does not take is rejected, with Allow where the spec asks",
        "spec x-undeclared-method (405 with Allow at SHOULD when absent)",
    ),
    row(
        Check::UnknownPath,
        "unknown_path",
        F::Transport,
        Should,
        "a path the spec does not declare is rejected with the declared status",
        "spec x-unknown-path (404 at SHOULD when absent)",
    ),
    row(
        Check::AlternateEncodings,
        "alternate_encodings",
        F::Transport,
        Must,
        "a list parameter sent in each encoding the spec allows is answered correctly",
        "spec x-encoding-levels of the parameter (not applicable without x-alternate-encodings)",
    ),
    row(
        Check::ReplayConsistency,
        "replay_consistency",
        F::Transport,
        Must,
        "a re-sent recorded request gets the recorded status and body",
        "fixed: MUST, --replay asks whether the target answers as the recorded one did",
    ),
    row(
        Check::FieldsEqual,
        "fields_equal",
        F::Rules,
        Must,
        "x-rules fields-equal: body fields hold the stated values",
        "spec rule level",
    ),
    row(
        Check::FieldsNonEmpty,
        "fields_non_empty",
        F::Rules,
        Must,
        "x-rules fields-non-empty: body fields are present and non-empty",
        "spec rule level",
    ),
    row(
        Check::FieldsAbsent,
        "fields_absent",
        F::Rules,
        Must,
        "x-rules fields-absent: body fields are absent or null",
        "spec rule level",
    ),
    row(
        Check::FieldOneOf,
        "field_one_of",
        F::Rules,
        Must,
        "x-rules field-one-of: a body field holds one of the stated values",
        "spec rule level",
    ),
    row(
        Check::EchoesRequest,
        "echoes_request",
        F::Rules,
        Must,
        "x-rules echoes-request: the answer holds the fields the request set",
        "spec rule level",
    ),
    row(
        Check::PreservesOtherFields,
        "preserves_other_fields",
        F::Rules,
        Must,
        "x-rules preserves-other-fields: an update leaves the fields it did not set",
        "spec rule level",
    ),
    row(
        Check::ItemsFieldEqualsParam,
        "items_field_equals_param",
        F::Rules,
        Must,
        "x-rules items-field-equals-param: every item's field equals a parameter",
        "spec rule level",
    ),
    row(
        Check::FieldEqualsParam,
        "field_equals_param",
        F::Rules,
        Must,
        "x-rules field-equals-param: a body field equals a parameter",
        "spec rule level",
    ),
    row(
        Check::ItemsFieldInParam,
        "items_field_in_param",
        F::Rules,
        Must,
        "x-rules items-field-in-param: every item's field is one of a list parameter's values",
        "spec rule level",
    ),
    row(
        Check::ItemsUnique,
        "items_unique",
        F::Rules,
        Must,
        "x-rules items-unique: no two items share a field's value",
        "spec rule level",
    ),
    row(
        Check::MaxItemsParam,
        "max_items_param",
        F::Rules,
        Must,
        "x-rules max-items-param: at most a parameter's number of items",
        "spec rule level",
    ),
    row(
        Check::ItemsContainParam,
        "items_contain_param",
        F::Rules,
        Must,
        "x-rules items-contain-param: every item's field contains a parameter's text",
        "spec rule level",
    ),
    row(
        Check::Contract,
        "contract",
        F::Contracts,
        Must,
        "a contract-file case that names no check of its own",
        "the contract case's level",
    ),
    row(
        Check::Discovery,
        "discovery",
        F::Contracts,
        Must,
        "a discovery step could run (its answers get the schema/status checks)",
        "fixed: MUST, reported only when a step is skipped, saying why",
    ),
    row(
        Check::ResponseTime,
        "response_time",
        F::SchemaStatus,
        Should,
        "every answer arrives within --max-response-time (judged only when it is given)",
        "fixed: SHOULD, the spec states no latency bound: a slow answer is a quality breach the run's owner sets, not a broken contract (--strict makes it fail)",
    ),
    row(
        Check::StateRestored,
        "state_restored",
        F::Contracts,
        Must,
        "the records the run's writes changed are put back to the values --fixtures `restore` gives",
        "fixed: MUST, a gate must leave a shared staging target as it found it",
    ),
    row(
        Check::MinCoverage,
        "min_coverage",
        F::Inputs,
        Must,
        "at least --min-coverage percent of the selected operations got a 2xx answer (judged only when it is given)",
        "fixed: MUST, a gate that never reached the API has judged nothing",
    ),
    row(
        Check::ResourceAvailability,
        "ensure_resource_availability",
        F::Inputs,
        Must,
        "a resource the run created reads back (2xx) with the plain values it was created or updated with (inferred create → read → update chains; --allow-writes)",
        "fixed: MUST, a create that answered a success has stored what it says it stored",
    ),
    row(
        Check::UseAfterFree,
        "use_after_free",
        F::Inputs,
        Must,
        "after a delete that answered a success, a read of the same resource is refused (4xx), not served (inferred create → delete → read chains; --allow-writes)",
        "fixed: MUST, a delete that answered a success has deleted",
    ),
];

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
