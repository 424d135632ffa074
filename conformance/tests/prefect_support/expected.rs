//! The MUST failures the harness reports on Prefect server 3.9.1 with `--allow-writes` and
//! a user's contract file that gives two creates their bodies (the run of
//! `every_must_failure_on_prefect_is_pinned_and_rechecked`), pinned so that a new or a
//! vanished failure fails the test.
//!
//! Each entry says why it fails, and the test checks that reason on its own (from the
//! record file, the spec and a fresh request), so that an entry cannot hide a different
//! failure.

/// Why a (case, check) pair fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The harness's own false failure: a `{name}` path template went out literally
    /// (`%7Bname%7D`), so Prefect answered 404 (or 422 where the parameter is a UUID).
    #[allow(
        dead_code,
        reason = "none is pinned: the harness skips what it cannot fill"
    )]
    Placeholder,
    /// The harness's own false failure: the operation requires a body and none was sent,
    /// so Prefect answered 422.
    #[allow(
        dead_code,
        reason = "none is pinned: a case without its body is skipped"
    )]
    NoBody,
    /// The harness's own false failure: a required query parameter was not sent, so
    /// Prefect answered 422.
    #[allow(dead_code, reason = "none is pinned: such a case is skipped")]
    NoRequiredQuery,
    /// The harness's own false failure: a negative case whose bad value was never put into
    /// the request (the named query parameter is absent), so Prefect rightly accepted it.
    #[allow(dead_code, reason = "none is pinned: such a case is not planned")]
    BadValueNotSent(&'static str),
    /// A true departure of Prefect's from its spec, re-checked with a fresh request.
    Departure(&'static str),
}

use Why::*;

/// (case, check, why). Every one is a departure of Prefect's from the spec it serves;
/// before issue 17's fixes the same target gave 136 MUST failures, all of them the
/// harness's own (97 literal `{placeholder}`s, 33 missing bodies, 4 missing required query
/// parameters, 2 negative cases that never sent their bad value).
#[rustfmt::skip]
pub const EXPECTED_MUST_FAILURES: &[(&str, &str, Why)] = &[
    ("create_flow_flows__post/positive", "status_code_conformance", Departure("a new flow is answered 201; the spec declares only 200 and 422")),
    ("create_flow_flows__post/name=blank", "status_code_conformance", Departure("a new flow is answered 201; the spec declares only 200 and 422")),
    ("create_variable_variables__post/name=255-cjk", "length_boundaries", Departure("the spec allows any string of up to 255 characters as a name; Prefect refuses what is not lowercase ASCII, digits, dashes or underscores with 422")),
    ("validate_template_templates_validate_post/positive", "status_code_conformance", Departure("answered 204; the spec declares only 200 and 422")),
    ("validate_template_templates_validate_post/unsupported-media-type", "status_code_conformance", Departure("a text/plain body is answered 204; the spec declares only 200 and 422")),
    ("validate_template_automations_templates_validate_post/positive", "status_code_conformance", Departure("answered 204; the spec declares only 200 and 422")),
    ("validate_template_automations_templates_validate_post/unsupported-media-type", "status_code_conformance", Departure("a text/plain body is answered 204; the spec declares only 200 and 422")),
];
