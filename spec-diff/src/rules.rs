//! Every rule a finding can be reported under, as data: its name, kind, level, one line
//! saying what it detects, and what it does on the wire and to the generated crate.
//!
//! `cargo xtask diff --list-rules` prints this table, the README lists it, and each rule
//! has a pair of focused specs under `spec-diff/tests/pairs/<name>/` (a test fails on a
//! rule without one). Names follow oasdiff's where both tools detect the same change.

use serde::Serialize;

/// What a change is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// What goes over HTTP: requests clients send, answers they read.
    Wire,
    /// The public API of the crate `cargo xtask codegen` emits.
    Rust,
    /// The project's own decision levels and `x-` rules (MUST/SHOULD, decision rows).
    Decision,
    /// The spec's `info.version` against what changed.
    Version,
}

/// How serious a finding is, as oasdiff grades them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    /// Breaks someone: a request refused, an answer unreadable, a build broken.
    Err,
    /// May break someone, or needs a human's look.
    Warn,
    /// Compatible; listed so the change log is complete.
    Info,
}

impl Level {
    /// `ERR`, `WARN` or `INFO`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Err => "ERR",
            Level::Warn => "WARN",
            Level::Info => "INFO",
        }
    }
}

/// Who a wire change breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Wire {
    /// Nobody: old clients and servers keep working together.
    None,
    /// Existing clients: a request they send may now be refused.
    Requests,
    /// Existing clients reading answers: a server of the new spec may send what they
    /// cannot read (a new enum value, a new branch, a wider type, a missing field).
    Answers,
}

impl Wire {
    /// Words for reports.
    pub fn describe(self) -> &'static str {
        match self {
            Wire::None => "compatible on the wire",
            Wire::Requests => "requests existing clients send may be refused",
            Wire::Answers => "answers may no longer fit what existing clients read",
        }
    }
}

/// A change to a crate's public API under Cargo's semver rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Semver {
    /// Breaks a dependent's build.
    Major,
    /// Adds to the API.
    Minor,
    /// Docs or private code only.
    Patch,
}

impl Semver {
    /// `major`, `minor` or `patch`.
    pub fn as_str(self) -> &'static str {
        match self {
            Semver::Major => "major",
            Semver::Minor => "minor",
            Semver::Patch => "patch",
        }
    }
}

/// One rule.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Rule {
    /// Stable name, used by `--ignore` files.
    pub name: &'static str,
    /// What it is about.
    pub kind: Kind,
    /// How serious.
    pub level: Level,
    /// One line saying what it detects.
    pub description: &'static str,
    /// Who it breaks on the wire (`Wire::None` for Rust and decision rules).
    pub wire: Wire,
    /// Whether the clients this generator emits are built to read through it (open enums
    /// with a fallback, unions with a fallback, unknown fields ignored), so it breaks
    /// other clients but not ours. A claim, not a verdict: each finding is judged against
    /// the old crate's own types ([`crate::finding::Ours`]).
    pub ours_tolerate: bool,
    /// Its effect on the generated crate, for Rust rules.
    pub rust: Option<Semver>,
}

const fn wire(
    name: &'static str,
    level: Level,
    wire: Wire,
    ours_tolerate: bool,
    description: &'static str,
) -> Rule {
    Rule {
        name,
        kind: Kind::Wire,
        level,
        description,
        wire,
        ours_tolerate,
        rust: None,
    }
}

const fn rust(name: &'static str, semver: Semver, description: &'static str) -> Rule {
    Rule {
        name,
        kind: Kind::Rust,
        level: match semver {
            Semver::Major => Level::Err,
            Semver::Minor | Semver::Patch => Level::Info,
        },
        description,
        wire: Wire::None,
        ours_tolerate: true,
        rust: Some(semver),
    }
}

const fn decision(name: &'static str, level: Level, description: &'static str) -> Rule {
    Rule {
        name,
        kind: Kind::Decision,
        level,
        description,
        wire: Wire::None,
        ours_tolerate: true,
        rust: None,
    }
}

use Level::{Err, Info, Warn};
use Wire::{Answers, Requests};

/// The table, in the order `--list-rules` prints it.
#[rustfmt::skip]
pub const RULES: &[Rule] = &[
    // Operations.
    wire("api-removed-without-deprecation", Err, Requests, false, "an operation was removed without being deprecated first"),
    wire("api-removed-after-deprecation", Warn, Requests, false, "a deprecated operation was removed"),
    wire("api-added", Info, Wire::None, true, "an operation was added"),
    wire("api-deprecated", Info, Wire::None, true, "an operation became deprecated"),
    wire("api-operation-id-changed", Warn, Wire::None, true, "an operation's operationId changed (generated method names follow it)"),
    wire("api-security-added", Err, Requests, false, "an operation that could be called without credentials now requires some"),
    wire("api-security-alternative-removed", Err, Requests, false, "a set of credentials an operation accepted is no longer accepted"),
    wire("api-security-alternative-added", Info, Wire::None, true, "an operation accepts one more set of credentials"),
    wire("security-scheme-changed", Err, Requests, false, "a security scheme sends its credential another way (type, scheme, header or query name)"),
    // Parameters.
    wire("new-required-request-parameter", Err, Requests, false, "a required parameter was added"),
    wire("new-optional-request-parameter", Info, Wire::None, true, "an optional parameter was added"),
    wire("request-parameter-removed", Warn, Requests, false, "a parameter was removed (a server may refuse or ignore it)"),
    wire("request-parameter-became-required", Err, Requests, false, "an optional parameter became required"),
    wire("request-parameter-became-optional", Info, Wire::None, true, "a required parameter became optional"),
    wire("request-parameter-encoding-changed", Err, Requests, false, "a parameter's style or explode changed, so its value is written differently"),
    // Request bodies.
    wire("new-required-request-body", Err, Requests, false, "a required request body was added"),
    wire("new-optional-request-body", Info, Wire::None, true, "an optional request body was added"),
    wire("request-body-became-required", Err, Requests, false, "an optional request body became required"),
    wire("request-body-removed", Warn, Requests, false, "the request body was removed"),
    wire("request-body-media-type-removed", Err, Requests, false, "a media type the request body could be sent as was removed"),
    wire("request-body-media-type-added", Info, Wire::None, true, "the request body can be sent as one more media type"),
    // Schemas of what clients send (parameters and request bodies).
    wire("request-type-changed", Err, Requests, false, "the type (or format) of a value clients send changed other than by widening"),
    wire("request-type-widened", Info, Wire::None, true, "a value clients send accepts more types (integer to number, a type added)"),
    wire("request-nullable-removed", Err, Requests, false, "a value clients send may no longer be null"),
    wire("request-enum-value-removed", Err, Requests, false, "an enum value clients could send was removed"),
    wire("request-enum-value-added", Info, Wire::None, true, "an enum value clients may send was added"),
    wire("request-max-length-decreased", Err, Requests, false, "maxLength of a value clients send was lowered or set"),
    wire("request-min-length-increased", Err, Requests, false, "minLength of a value clients send was raised or set"),
    wire("request-maximum-decreased", Err, Requests, false, "the upper bound of a number clients send was lowered or set, as an inclusive maximum"),
    wire("request-minimum-increased", Err, Requests, false, "the lower bound of a number clients send was raised or set, as an inclusive minimum"),
    wire("request-exclusive-maximum-decreased", Err, Requests, false, "the upper bound of a number clients send was lowered, set or made exclusive (exclusiveMaximum)"),
    wire("request-exclusive-minimum-increased", Err, Requests, false, "the lower bound of a number clients send was raised, set or made exclusive (exclusiveMinimum)"),
    wire("request-multiple-of-changed", Err, Requests, false, "multipleOf of a number clients send was set, or changed so that values it allowed are refused"),
    wire("request-max-items-decreased", Err, Requests, false, "maxItems of a list clients send was lowered or set"),
    wire("request-min-items-increased", Err, Requests, false, "minItems of a list clients send was raised or set"),
    wire("request-unique-items-set", Err, Requests, false, "a list clients send must now hold unique items (uniqueItems)"),
    wire("request-max-properties-decreased", Err, Requests, false, "maxProperties of an object clients send was lowered or set"),
    wire("request-min-properties-increased", Err, Requests, false, "minProperties of an object clients send was raised or set"),
    wire("request-pattern-added", Err, Requests, false, "a string clients send must now match a pattern"),
    wire("request-pattern-changed", Err, Requests, false, "the pattern of a string clients send changed and refuses a string the old one took (the report names it; or no string could be made from the old pattern to tell)"),
    wire("request-pattern-rewritten", Info, Wire::None, true, "the pattern of a string clients send changed, and none of the strings generated from the old one is refused by the new one"),
    wire("request-additional-properties-restricted", Err, Requests, false, "an object clients send may no longer carry properties its schema does not name (additionalProperties: false)"),
    wire("request-limits-relaxed", Info, Wire::None, true, "a length, range, item, property-count, multipleOf, uniqueItems, pattern or additionalProperties limit of a value clients send was relaxed or dropped"),
    wire("new-required-request-property", Err, Requests, false, "a required property was added to what clients send"),
    wire("new-optional-request-property", Info, Wire::None, true, "an optional property was added to what clients send"),
    wire("request-property-became-required", Err, Requests, false, "an optional property clients send became required"),
    wire("request-property-removed", Warn, Requests, false, "a property clients send was removed (a server may refuse or ignore it)"),
    wire("request-one-of-branch-removed", Err, Requests, false, "a oneOf/anyOf branch clients could send was removed"),
    wire("request-one-of-branch-added", Info, Wire::None, true, "clients may send one more oneOf/anyOf branch"),
    // Responses.
    wire("response-success-status-removed", Err, Answers, false, "a success status was removed"),
    wire("response-non-success-status-removed", Warn, Answers, true, "an error status was removed"),
    wire("response-status-added", Info, Answers, true, "a status was added: old clients see an undocumented status"),
    wire("response-media-type-removed", Err, Answers, false, "a media type an answer came in was removed"),
    wire("response-media-type-added", Info, Wire::None, true, "an answer may come in one more media type"),
    // Schemas of what clients read (response bodies).
    wire("response-type-changed", Err, Answers, false, "the type (or format) of a value clients read changed"),
    wire("response-became-nullable", Err, Answers, false, "a value clients read may now be null"),
    wire("response-enum-value-added", Warn, Answers, true, "an enum value clients read was added (open enums keep it; closed ones fail)"),
    wire("response-enum-value-removed", Info, Wire::None, true, "an enum value clients read will no longer come"),
    wire("response-required-property-removed", Err, Answers, false, "a required property of an answer was removed"),
    wire("response-optional-property-removed", Warn, Answers, true, "an optional property of an answer was removed"),
    wire("response-property-became-optional", Err, Answers, false, "a required property of an answer became optional"),
    wire("response-property-added", Info, Answers, true, "a property was added to an answer (unknown fields are ignored)"),
    wire("response-one-of-branch-added", Warn, Answers, true, "an answer may be one more oneOf/anyOf branch (our unions keep it in their fallback)"),
    wire("response-one-of-branch-removed", Info, Wire::None, true, "an answer will no longer be one of its oneOf/anyOf branches"),
    wire("response-limits-widened", Warn, Answers, true, "a length, range, item, property-count, multipleOf, uniqueItems, pattern or additionalProperties limit of a value clients read was relaxed or changed (ours do not check answers' limits)"),
    // The generated crate, from the code codegen emits.
    rust("rust-item-removed", Semver::Major, "a public type, function, method, constant or trait impl was removed"),
    rust("rust-item-added", Semver::Minor, "a public item was added"),
    rust("rust-item-renamed", Semver::Major, "a public type was renamed: the same fields or variants under another name"),
    rust("rust-item-kind-changed", Semver::Major, "a public item changed kind (a struct became an enum or an alias)"),
    rust("rust-fn-signature-changed", Semver::Major, "a public function's or method's arguments or return type changed"),
    rust("rust-alias-changed", Semver::Major, "a public type alias points at another type"),
    rust("rust-field-removed", Semver::Major, "a public field was removed"),
    rust("rust-field-type-changed", Semver::Major, "a public field's type changed"),
    rust("rust-field-added-exhaustive", Semver::Major, "a public field was added to a struct users can build with a literal"),
    rust("rust-field-added-non-exhaustive", Semver::Minor, "a public field was added to a #[non_exhaustive] struct"),
    rust("rust-variant-removed", Semver::Major, "an enum variant was removed"),
    rust("rust-variant-changed", Semver::Major, "an enum variant's data changed"),
    rust("rust-variant-added-exhaustive", Semver::Major, "a variant was added to an exhaustive enum (users' matches stop compiling)"),
    rust("rust-variant-added-non-exhaustive", Semver::Minor, "a variant was added to a #[non_exhaustive] enum"),
    rust("rust-non-exhaustive-added", Semver::Major, "a struct or enum became #[non_exhaustive]"),
    rust("rust-non-exhaustive-removed", Semver::Minor, "a struct or enum is no longer #[non_exhaustive]"),
    rust("rust-trait-impl-removed", Semver::Major, "a type lost a trait implementation (a derive among them)"),
    rust("rust-trait-impl-added", Semver::Minor, "a type gained a trait implementation"),
    rust("rust-docs-or-private-changed", Semver::Patch, "the emitted code changed without a change of the public API (docs, bodies)"),
    // The project's decisions.
    decision("decision-level-loosened", Warn, "a MUST became a SHOULD: servers that break it now only warn"),
    decision("decision-level-tightened", Warn, "a SHOULD became a MUST: servers that only warned now fail"),
    decision("decision-changed", Info, "the decision row behind a level changed"),
    decision("project-rule-added", Info, "an x- rule of the project was added"),
    decision("project-rule-removed", Warn, "an x- rule of the project was removed: it is no longer checked"),
    decision("project-rule-changed", Warn, "an x- rule of the project says something else now"),
    // The spec's version.
    Rule {
        name: "api-version-not-bumped",
        kind: Kind::Version,
        level: Warn,
        description: "a change that breaks existing clients came without a major bump of info.version",
        wire: Wire::None,
        ours_tolerate: true,
        rust: None,
    },
];

/// The rule of that name. Panics on a name not in the table: every finding is made
/// with a literal name, and a test checks each against the table.
pub fn rule(name: &str) -> &'static Rule {
    RULES
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no rule named {name}"))
}
