//! The project's `x-` extensions as typed values, so a malformed one fails at load time.
//! Owns: levels, `x-rules`, rejection shapes and the decision extensions of `spec/README.md`.
//!
//! [`crate::model`] holds these as fields of the OpenAPI objects they sit on; serde rejects a
//! wrong value with its JSON pointer and line like any other spec error. Keys the model does
//! not name (other `x-` keys) are ignored.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// How binding a rule, response or encoding is: MUST fails a conformance run, SHOULD warns
/// (fails under `--strict`). Where the spec names no level it is MUST.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Stated by the interface document.
    #[default]
    Must,
    /// A decision of the project (`DECISIONS.md`).
    Should,
}

impl Level {
    /// The spelling used in reports and docs: `MUST` or `SHOULD`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
        }
    }
}

/// When an `x-rules` rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum When {
    /// On answers that are a success: 2xx without a business error in the body.
    #[default]
    Success,
    /// On answers that are not.
    Failure,
}

/// One semantic rule of `x-rules`; each kind is one generic check of the harness.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case", deny_unknown_fields)]
#[allow(missing_docs)] // the fields are documented in spec/README.md's rule table
pub enum Rule {
    /// Named fields equal fixed values.
    FieldsEqual {
        #[serde(default)]
        when: When,
        /// Statuses the rule judges (all of its `when` when empty).
        #[serde(default)]
        statuses: Vec<u16>,
        fields: Map<String, Value>,
        #[serde(default)]
        level: Level,
        #[serde(default)]
        decision: Option<Value>,
        #[serde(default)]
        description: Option<String>,
    },
    /// Named fields are present and non-empty.
    FieldsNonEmpty {
        #[serde(default)]
        when: When,
        /// Statuses the rule judges (all of its `when` when empty).
        #[serde(default)]
        statuses: Vec<u16>,
        fields: Vec<String>,
        #[serde(default)]
        level: Level,
        #[serde(default)]
        decision: Option<Value>,
        #[serde(default)]
        description: Option<String>,
    },
    /// Named fields are absent or empty.
    FieldsAbsent {
        #[serde(default)]
        when: When,
        /// Statuses the rule judges (all of its `when` when empty).
        #[serde(default)]
        statuses: Vec<u16>,
        fields: Vec<String>,
        #[serde(default)]
        level: Level,
        #[serde(default)]
        decision: Option<Value>,
        #[serde(default)]
        description: Option<String>,
    },
    /// A field's value is one of a list.
    FieldOneOf {
        #[serde(default)]
        when: When,
        /// Statuses the rule judges (all of its `when` when empty).
        #[serde(default)]
        statuses: Vec<u16>,
        field: String,
        values: Vec<Value>,
        #[serde(default)]
        level: Level,
        #[serde(default)]
        decision: Option<Value>,
        #[serde(default)]
        description: Option<String>,
    },
    /// The object at `target` carries the request body's values of `fields`.
    EchoesRequest {
        #[serde(default)]
        when: When,
        target: String,
        fields: Vec<String>,
        #[serde(default)]
        level: Level,
        #[serde(default)]
        decision: Option<Value>,
        #[serde(default)]
        description: Option<String>,
    },
    /// The object at `target` keeps every field the request did not send.
    PreservesOtherFields {
        #[serde(default)]
        when: When,
        target: String,
        #[serde(default)]
        level: Level,
        #[serde(default)]
        decision: Option<Value>,
        #[serde(default)]
        description: Option<String>,
    },
    /// Every item's `field` equals the parameter's value.
    ItemsFieldEqualsParam {
        #[serde(default)]
        when: When,
        field: String,
        param: String,
        #[serde(default)]
        level: Level,
        #[serde(default)]
        decision: Option<Value>,
        #[serde(default)]
        description: Option<String>,
    },
    /// The answer's `field` equals the parameter's value.
    FieldEqualsParam {
        #[serde(default)]
        when: When,
        field: String,
        param: String,
        #[serde(default)]
        level: Level,
        #[serde(default)]
        decision: Option<Value>,
        #[serde(default)]
        description: Option<String>,
    },
    /// Every item's `field` is one of the list parameter's values.
    ItemsFieldInParam {
        #[serde(default)]
        when: When,
        field: String,
        param: String,
        #[serde(default)]
        level: Level,
        #[serde(default)]
        decision: Option<Value>,
        #[serde(default)]
        description: Option<String>,
    },
    /// No two items share a `field` value.
    ItemsUnique {
        #[serde(default)]
        when: When,
        field: String,
        #[serde(default)]
        level: Level,
        #[serde(default)]
        decision: Option<Value>,
        #[serde(default)]
        description: Option<String>,
    },
    /// At most `param` items.
    MaxItemsParam {
        #[serde(default)]
        when: When,
        param: String,
        #[serde(default)]
        level: Level,
        #[serde(default)]
        decision: Option<Value>,
        #[serde(default)]
        description: Option<String>,
    },
    /// Every item has one of `fields` containing the parameter's text.
    ItemsContainParam {
        #[serde(default)]
        when: When,
        param: String,
        fields: Vec<String>,
        #[serde(rename = "case-insensitive", default)]
        case_insensitive: bool,
        #[serde(default)]
        level: Level,
        #[serde(default)]
        decision: Option<Value>,
        #[serde(default)]
        description: Option<String>,
    },
    /// The array's order is not part of the interface: comparisons must not rely on it.
    Unordered {
        #[serde(default)]
        level: Level,
        #[serde(default)]
        decision: Option<Value>,
        #[serde(default)]
        description: Option<String>,
    },
}

/// How a business-rule breach is answered (`rejection:` of `x-combined-max-length`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RejectionShape {
    /// Status of the rejection.
    pub status: u16,
    /// Field that must be non-empty.
    #[serde(rename = "non-empty", default)]
    pub non_empty: Option<String>,
    /// Field that must be absent.
    #[serde(default)]
    pub absent: Option<String>,
    /// How binding this shape is.
    #[serde(default)]
    pub level: Level,
}

/// `x-rejection` of a security scheme: what a server must never do with a request that
/// lacks valid credentials.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rejection {
    /// How binding the rule is.
    #[serde(default)]
    pub level: Level,
    /// The decision row behind it.
    #[serde(default)]
    pub decision: Option<Value>,
    /// The class of statuses that is never an acceptable answer (`2xx`).
    pub never: StatusClass,
}

/// `x-rejection-response` of a security scheme: the answer expected to a request without
/// valid credentials.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RejectionResponse {
    /// The status.
    pub status: u16,
    /// How binding status and body are.
    #[serde(default)]
    pub level: Level,
    /// The decision row behind it.
    #[serde(default)]
    pub decision: Option<Value>,
    /// The JSON body.
    #[serde(default)]
    pub body: Option<Value>,
}

/// A class of HTTP statuses, written `2xx` … `5xx`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusClass(pub u16);

impl StatusClass {
    /// Whether `status` is in the class.
    pub fn contains(self, status: u16) -> bool {
        status / 100 == self.0
    }
}

impl<'de> Deserialize<'de> for StatusClass {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let digit = text
            .strip_suffix("xx")
            .or_else(|| text.strip_suffix("XX"))
            .and_then(|d| d.parse::<u16>().ok())
            .filter(|d| (1..=5).contains(d));
        digit.map(StatusClass).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "expected a status class `1xx` … `5xx`, got `{text}`"
            ))
        })
    }
}

/// `x-server-errors` (root): a class of statuses no answer may have, whatever was sent.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerErrors {
    /// The forbidden class (`5xx`).
    pub never: StatusClass,
    /// How binding the rule is.
    #[serde(default)]
    pub level: Level,
    /// The decision row behind it.
    #[serde(default)]
    pub decision: Option<Value>,
}

/// `x-unknown-path` and `x-undeclared-method` (root): how a server answers a path the
/// spec does not declare, or a method a declared path does not take.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndeclaredRoute {
    /// The expected status (`404`, `405`).
    pub status: u16,
    /// Whether the answer must carry an `Allow` header naming the declared methods.
    #[serde(rename = "allow-header", default)]
    pub allow_header: bool,
    /// How binding status (and header) are.
    #[serde(default)]
    pub level: Level,
    /// The decision row behind it.
    #[serde(default)]
    pub decision: Option<Value>,
}

/// `x-undeclared-status` (root): how binding it is that every answer has a status its
/// operation declares (OpenAPI does not require a document to list every status).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndeclaredStatus {
    /// The level of a verdict on an answer whose status the operation does not declare.
    pub level: Level,
    /// The decision row behind it.
    #[serde(default)]
    pub decision: Option<Value>,
}

/// `x-max-body` (root): the largest request body a server must accept, and the answer
/// to a larger one.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyLimit {
    /// The limit in bytes.
    pub bytes: u64,
    /// The status of the answer to a larger body.
    pub status: u16,
    /// How binding limit and status are.
    #[serde(default)]
    pub level: Level,
    /// The decision row behind it.
    #[serde(default)]
    pub decision: Option<Value>,
}

/// `x-mistyped-input` (root): how binding the rejection of an input of the wrong type is,
/// split by whether a lenient server can read it as the declared type: a number where a
/// string is declared reads as its text (a lenient server coerces it, and accepting it is
/// a lesser breach), while a value no reading turns into the declared type (`abc` for an
/// integer, an object for a string) is garbage whose acceptance hides a client bug.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MistypedInput {
    /// The level of "rejected" for a value a lenient server can coerce.
    pub coercible: Level,
    /// The level of "rejected" for a value that cannot be read as the declared type.
    pub unreadable: Level,
    /// The decision row behind it.
    #[serde(default)]
    pub decision: Option<Value>,
    /// Why.
    #[serde(default)]
    pub description: Option<String>,
}

/// `x-non-bmp` (root): how binding the handling of characters outside the Basic
/// Multilingual Plane is (their length, whether they are accepted at all).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NonBmp {
    /// The level of every verdict on a request carrying such characters.
    pub level: Level,
    /// The decision row behind it.
    #[serde(default)]
    pub decision: Option<Value>,
    /// Why.
    #[serde(default)]
    pub description: Option<String>,
}

/// `x-effect` (operation): what a request to the operation does to the server's state,
/// said explicitly where the method and words would mislead (a `GET` that logs out, a
/// `POST` that only searches). Test tools read it to decide what they may send to a
/// server they were not allowed to change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    /// Changes nothing (a search sent as `POST` included).
    Read,
    /// A `POST` whose words say it only asks (count, filter, search, validate): it creates
    /// and changes nothing by its name, but only the spec's author can promise that
    /// (`x-effect: read`), so test tools send it only where writes are allowed.
    Query,
    /// Creates something new that the caller can delete again.
    Create,
    /// Changes or deletes one existing resource.
    Update,
    /// May delete or overwrite data the caller did not create (a bulk delete, a reset).
    Destructive,
    /// Ends or changes a session or credential (logout, revoke, password change).
    Session,
}

/// `x-business-error` (operation): body fields of a 2xx answer that report a failure when
/// non-empty. Such an answer is a failure, not a success, for every rule and expectation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BusinessError {
    /// The fields; any one non-empty makes the answer a failure.
    pub fields: Vec<String>,
    /// The decision row behind it.
    #[serde(default)]
    pub decision: Option<Value>,
    /// Why.
    #[serde(default)]
    pub description: Option<String>,
}

/// `x-penalty` (operation): how a `2xx` answer says "too many requests: wait, then send
/// the same request again with this ticket", the penalty mechanism some platforms use
/// instead of `429`. The fields are wire names of top-level fields of the answer's JSON
/// body (they need not be declared in its schema) and of the request's body.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Penalty {
    /// Answer field holding the ticket; its presence (a non-empty string) makes the
    /// answer a penalty.
    pub ticket: String,
    /// Answer field holding how many seconds to wait before sending again.
    pub wait: String,
    /// Answer field that is `true` when a person must solve a captcha (log in
    /// interactively): such an answer is never retried.
    #[serde(default)]
    pub captcha: Option<String>,
    /// Request body field the ticket is sent back in on the next attempt.
    pub resend: String,
    /// The decision row behind it.
    #[serde(default)]
    pub decision: Option<Value>,
    /// Why.
    #[serde(default)]
    pub description: Option<String>,
}

/// `x-token-refresh` (security scheme of a bearer token): how a client renews the token
/// through one of the spec's operations with a refresh grant. The generator reads it to
/// emit a token source that refreshes itself; every name is a wire name of the spec.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TokenRefresh {
    /// The `operationId` of the token operation (its request body is JSON).
    pub operation_id: String,
    /// Fixed fields of the refresh request body (`{grant_type: refresh_token}`).
    #[serde(default)]
    pub grant: Map<String, Value>,
    /// The body field that carries the refresh token; the answer field of a rotated one.
    pub refresh_token: String,
    /// The answer field with the new access token.
    pub access_token: String,
    /// The answer field with the access token's lifetime in seconds, when there is one.
    #[serde(default)]
    pub expires_in: Option<String>,
}

/// One entry of `x-constructors` (object schema of a request body): a named way to build
/// the model, for bodies whose meaning depends on a discriminating value the schema does
/// not express as an enum (a `grant_type` of several grants). The generator emits an
/// associated function `name(args…)` that sets the `fixed` fields and takes `args` in
/// order; every name is a wire name of the schema's properties.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Constructor {
    /// The Rust name of the associated function (snake case, e.g. `authorization_code`).
    pub name: RustName,
    /// Rustdoc of the function.
    #[serde(default)]
    pub description: Option<String>,
    /// Fields set to a fixed value (a string, number or boolean).
    #[serde(default)]
    pub fixed: Map<String, Value>,
    /// Fields the function takes as arguments, in order.
    #[serde(default)]
    pub args: Vec<String>,
}

/// A Rust name chosen in the spec (`x-rust-name` of a parameter, a constructor's `name`):
/// lower-case ASCII letters, digits and underscores, not starting with a digit. Checked at
/// load time so a typo fails with its place; the generator still escapes keywords and
/// makes it unique in its scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustName(pub String);

impl<'de> Deserialize<'de> for RustName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        let valid = name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            && name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            && name != "_";
        if valid {
            Ok(RustName(name))
        } else {
            Err(serde::de::Error::custom(format!(
                "`{name}` is not a snake_case Rust name (a-z, 0-9, _; not starting with a digit)"
            )))
        }
    }
}

/// `x-encoding-levels` (parameter): how binding it is that a server answers the encodings
/// of a list parameter (the declared one and those of `x-alternate-encodings`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EncodingLevels {
    /// That at least one of the encodings is answered correctly.
    pub any: Level,
    /// That the declared encoding is answered correctly.
    pub declared: Level,
    /// The decision row behind the split.
    #[serde(default)]
    pub decision: Option<Value>,
}

/// `x-constraint-levels`: the level of individual validation keywords of a schema.
pub type ConstraintLevels = IndexMap<String, Level>;

impl Rule {
    /// The rule's level.
    pub fn level(&self) -> Level {
        match self {
            Rule::FieldsEqual { level, .. }
            | Rule::FieldsNonEmpty { level, .. }
            | Rule::FieldsAbsent { level, .. }
            | Rule::FieldOneOf { level, .. }
            | Rule::EchoesRequest { level, .. }
            | Rule::PreservesOtherFields { level, .. }
            | Rule::ItemsFieldEqualsParam { level, .. }
            | Rule::FieldEqualsParam { level, .. }
            | Rule::ItemsFieldInParam { level, .. }
            | Rule::ItemsUnique { level, .. }
            | Rule::MaxItemsParam { level, .. }
            | Rule::ItemsContainParam { level, .. }
            | Rule::Unordered { level, .. } => *level,
        }
    }

    /// The statuses a field rule is limited to (empty: every status of its `when`).
    pub fn statuses(&self) -> &[u16] {
        match self {
            Rule::FieldsEqual { statuses, .. }
            | Rule::FieldsNonEmpty { statuses, .. }
            | Rule::FieldsAbsent { statuses, .. }
            | Rule::FieldOneOf { statuses, .. } => statuses,
            _ => &[],
        }
    }

    /// Which answers the rule judges; `None` for `unordered`, which judges none (it tells
    /// comparisons to ignore order).
    pub fn when(&self) -> Option<When> {
        match self {
            Rule::FieldsEqual { when, .. }
            | Rule::FieldsNonEmpty { when, .. }
            | Rule::FieldsAbsent { when, .. }
            | Rule::FieldOneOf { when, .. }
            | Rule::EchoesRequest { when, .. }
            | Rule::PreservesOtherFields { when, .. }
            | Rule::ItemsFieldEqualsParam { when, .. }
            | Rule::FieldEqualsParam { when, .. }
            | Rule::ItemsFieldInParam { when, .. }
            | Rule::ItemsUnique { when, .. }
            | Rule::MaxItemsParam { when, .. }
            | Rule::ItemsContainParam { when, .. } => Some(*when),
            Rule::Unordered { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Source, parse};

    fn src(text: &str) -> Source {
        Source {
            name: "t.yaml".into(),
            text: text.into(),
        }
    }

    const HEAD: &str = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n";

    #[test]
    fn the_project_spec_reads_with_every_extension_typed() {
        let text = include_str!("../openapi.yaml");
        let spec = parse(&src(text)).expect("the project spec parses");
        let op = spec.paths["/auth/oauthtoken"].post.as_ref().unwrap();
        assert_eq!(op.rules.len(), 6);
        let scheme = &spec.components.security_schemes["bearerAuth"];
        assert_eq!(scheme.rejection_response.as_ref().unwrap().status, 401);
        assert!(scheme.rejection.as_ref().unwrap().never.contains(204));
    }

    #[test]
    fn unknown_extensions_are_ignored() {
        let text = format!("{HEAD}      x-whatever: {{a: 1}}\n      responses: {{}}\n");
        parse(&src(&text)).expect("unknown x- keys are ignored");
    }

    #[test]
    fn a_malformed_level_names_pointer_and_line() {
        let text = format!(
            "{HEAD}      responses:\n        '200':\n          description: ok\n          x-level: maybe\n"
        );
        let err = parse(&src(&text)).unwrap_err().to_string();
        assert!(
            err.contains("/paths/~1a/get/responses/200/x-level"),
            "{err}"
        );
        assert!(err.starts_with("t.yaml:9:"), "{err}");
    }

    #[test]
    fn a_malformed_rule_names_its_pointer() {
        let text = format!(
            "{HEAD}      responses: {{}}\n      x-rules:\n        - rule: fields-equal\n          fields: [a]\n"
        );
        let err = parse(&src(&text)).unwrap_err().to_string();
        assert!(err.contains("/paths/~1a/get/x-rules/0"), "{err}");
    }
}
