//! The unit of work: a case is one or more requests (steps), each with what the answer must
//! look like. Derived cases and contract-file cases share this shape, so the runner and the
//! reports do not care where a case came from.

use serde_json::Value;

use crate::registry::CheckId;
use crate::spec::{Level, RejectionShape, Style};

/// What `Authorization` header a request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMode {
    /// The run's bearer token.
    Token,
    /// No header at all.
    Missing,
    /// A header that is not `Bearer <token>`.
    Malformed,
    /// A well-formed bearer header with a token the target never issued.
    Unknown,
}

/// A request body before variables are substituted.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyTemplate {
    /// A JSON document, sent as `application/json`.
    Json(Value),
    /// A value sent in a media type other than JSON that the operation declares: form
    /// fields (`application/x-www-form-urlencoded`, `multipart/form-data`) or text
    /// (`text/*`), encoded when the request is built, after its variables are filled.
    Encoded {
        /// The media type it goes in.
        media: String,
        /// The value: an object of fields for a form, the text (or a value whose JSON
        /// text is sent) for `text/*`.
        value: Value,
    },
    /// Bytes sent as they are, for malformed-body cases.
    Raw {
        /// The `Content-Type` header.
        content_type: String,
        /// The body.
        text: String,
    },
}

/// A request before variables are substituted.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestTemplate {
    /// `operationId`.
    pub op: String,
    /// Query parameters in order; values may hold `${var}`.
    pub params: Vec<(String, Value)>,
    /// Body, if any.
    pub body: Option<BodyTemplate>,
    /// Which credentials to send.
    pub auth: AuthMode,
    /// Force the list encoding (`explode`) of array parameters.
    pub explode: Option<bool>,
    /// Force the style of parameters (an alternate encoding's).
    pub style: Option<Style>,
    /// Send with this method instead of the operation's (undeclared-method cases).
    pub method: Option<String>,
    /// Send to this path (relative to the base URL) instead of the operation's
    /// (unknown-path cases).
    pub path: Option<String>,
}

/// What the answer to a step must be.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// 2xx, and no business error reported in the body.
    Success,
    /// A rejection: a 4xx (or a 2xx whose body reports a business error, `x-business-error`);
    /// never a 5xx. The spec may fix a status and body at their own level.
    Rejected {
        /// The status the decisions fix, with its level.
        status: Option<(u16, Level)>,
        /// Body fields the decisions fix, with their level.
        body: Option<(Value, Level)>,
    },
    /// The answer to a request sent without valid credentials (`ignored_auth`): a refusal
    /// the status shows — 401, 403, or the status the target answered a deliberately bad
    /// token with in pre-flight. Any other non-success (a 404 for a path it cannot route,
    /// a 5xx) is no evidence either way.
    Refused {
        /// The status the spec fixes (`x-rejection-response`), with its level.
        status: Option<(u16, Level)>,
        /// Body fields the spec fixes, with their level.
        body: Option<(Value, Level)>,
        /// The target's observed refusal status (`PlanOptions::auth_refusal`).
        observed: Option<u16>,
    },
    /// A business-rule rejection with the spec's answer shape.
    BusinessRejected(RejectionShape),
    /// Exactly this status (a contract file's choice), at the case level.
    Status(u16),
    /// Anything (discovery); rules still apply to what comes back.
    Observe,
    /// The answer to a method the path does not declare: not a success, `405` with an
    /// `Allow` header naming the declared method (RFC 9110 §15.5.6).
    MethodNotAllowed {
        /// The declared method the `Allow` header must name.
        allowed: String,
        /// The status the spec's `x-undeclared-method` fixes.
        status: u16,
        /// Whether an `Allow` header is required.
        allow_header: bool,
    },
}

impl Expect {
    /// Whether the answer asked for is a rejection (not a success, not anything at all).
    pub fn is_rejection(&self) -> bool {
        match self {
            Expect::Success | Expect::Observe => false,
            Expect::Status(s) => !(200..300).contains(s),
            Expect::Rejected { .. }
            | Expect::Refused { .. }
            | Expect::BusinessRejected(_)
            | Expect::MethodNotAllowed { .. } => true,
        }
    }
}

/// A check on a JSON answer written in a contract file or derived by a chain.
#[derive(Debug, Clone, PartialEq)]
pub struct Assertion {
    /// JSON Pointer into the answer (`""` is the whole body).
    pub pointer: String,
    /// What must hold there.
    pub kind: AssertKind,
    /// Judged only where every earlier step of its case answered 2xx: what a generated
    /// update set must read back where the target took it, and says nothing where the
    /// target refused it for reasons of its own.
    pub after_success: bool,
}

/// The kinds of contract-file assertions.
#[derive(Debug, Clone, PartialEq)]
pub enum AssertKind {
    /// Equal to a value (variables allowed).
    Equals(Value),
    /// Present and not `""`, `[]`, `{}` or null.
    NonEmpty,
    /// Absent (or null).
    Absent,
    /// An object equal to `value` except for the listed fields.
    SameExcept {
        /// The value to compare with.
        value: Value,
        /// Fields allowed to differ.
        except: Vec<String>,
    },
    /// An array in which each of `values` appears as some item's `field`.
    Covers {
        /// The item field.
        field: String,
        /// The values that must all appear.
        values: Value,
    },
    /// An array of at most this many items.
    MaxItems(usize),
}

/// One request of a case.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The request.
    pub request: RequestTemplate,
    /// What the answer must be.
    pub expect: Expect,
    /// Variables taken from the answer: (name, JSON Pointer; `*` collects array items).
    pub capture: Vec<(String, String)>,
    /// Further checks on the answer.
    pub asserts: Vec<Assertion>,
}

/// A case: its steps run in order, sharing captured variables.
#[derive(Debug, Clone)]
pub struct Case {
    /// Stable, human-readable id (also the JUnit test name).
    pub id: String,
    /// The operation it is reported under.
    pub operation: String,
    /// The check its expectation reports under.
    pub check: CheckId,
    /// The level of its expectation.
    pub level: Level,
    /// The requests.
    pub steps: Vec<Step>,
    /// Run alone, in order with other such cases, because it may change the target's state.
    pub serial: bool,
    /// A reason known before running that the case cannot run.
    pub skip: Option<String>,
    /// Variables that must hold at least this many items, else the case is skipped.
    pub requires: Vec<(String, usize)>,
    /// The most any finding of this case counts, whatever the rule's own level, except
    /// `not_a_server_error` (DECISIONS row 20). Set to `Should` where the decisions leave
    /// the reading of the input itself to the server (characters outside the BMP, row 18),
    /// so every rule judging that answer is a SHOULD too.
    pub cap: Option<Level>,
}

impl Case {
    /// A MUST case of `check` for `operation` with these steps, run alone: what the run
    /// sends for itself (a removal, a login, a check of its own credentials) is reported
    /// under one.
    pub fn own(
        id: String,
        operation: String,
        check: crate::registry::Check,
        steps: Vec<Step>,
    ) -> Case {
        Case {
            id,
            operation,
            check: check.into(),
            level: Level::Must,
            steps,
            serial: true,
            skip: None,
            requires: Vec::new(),
            cap: None,
        }
    }
}

/// How a skip reason begins when the case lacks an input the user could give (a value no
/// example, contract default or fixture supplies): such a skip leaves a MUST check unrun,
/// and the run incomplete, rather than quietly passing.
pub const MISSING_INPUT: &str = "missing input: ";

/// Whether a skip reason is one of [`MISSING_INPUT`].
pub fn is_missing_input(reason: &str) -> bool {
    reason.starts_with(MISSING_INPUT)
}
