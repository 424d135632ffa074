//! RFC 9457 problem details: the answer where the spec declares none for what happened
//! (an unknown path, a method the path does not take, a request that breaks its
//! operation and an operation without a declared body for that).

use serde_json::{Value, json};

use crate::validate::Violation;

/// The media type of a problem.
pub(crate) const MEDIA: &str = "application/problem+json";

/// A problem's body: `status`, a `title` for the status, `detail`, and, for a request
/// that breaks its operation, each violation with where it is.
pub(crate) fn body(status: u16, detail: &str, errors: &[Violation]) -> Value {
    let title = http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Error");
    let mut out =
        json!({"type": "about:blank", "title": title, "status": status, "detail": detail});
    if !errors.is_empty() {
        out["errors"] = errors
            .iter()
            .map(|e| {
                json!({"in": e.location, "name": e.name, "pointer": e.pointer, "message": e.message})
            })
            .collect();
    }
    out
}
