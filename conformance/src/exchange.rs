//! One request the run sent and its answer, as `--record` writes it and every report
//! reads it: the lowest floor that needs it (the target's state is mined from exchanges,
//! the runner makes them, the reports read them), so each of those imports it from here.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::transport::{Response, TransportError};

/// One request and its answer, as `--record` writes them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Exchange {
    /// Case id.
    pub case: String,
    /// `operationId` of the request.
    pub operation: String,
    /// Step within the case.
    pub step: usize,
    /// HTTP method.
    pub method: String,
    /// Path and query relative to the base URL.
    pub path: String,
    /// How the request authenticated: `token`, or the literal header sent otherwise.
    pub auth: Option<String>,
    /// The header parameters sent (no `Authorization`, no `Content-Type`), secrets
    /// redacted, so that a request can be read back and sent again as it went.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
    /// Content type and body (JSON value or text), secrets redacted.
    pub body: Option<(String, Value)>,
    /// Status of the answer, or the transport error.
    pub status: Option<u16>,
    /// Transport error, when no answer came.
    pub error: Option<String>,
    /// Content type of the answer.
    pub content_type: Option<String>,
    /// The answer's body (JSON value or text), secrets redacted.
    pub response: Value,
    /// The answer's `Location` header, where it had one: a `201 Created` may name the
    /// new resource only there, so the target's state is mined from it too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// How many more times the same request went on the wire before this answer (a
    /// `429` or penalty answer waited out, a connection lost before any answer), so the
    /// record accounts for every request the target saw.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub resent: usize,
    /// Why the harness sent it outside any case (a pre-flight, a re-check of the
    /// credentials, an OAuth step); such an exchange is recorded, never replayed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<String>,
    /// Position of the case in the run (set by the step that sent it). Not recorded: a
    /// replay numbers its own cases.
    #[serde(skip)]
    pub case_index: usize,
    /// How long the answer took, from sending to the last body byte. Not recorded, so a
    /// record file of the same seed and target stays the same file.
    #[serde(skip)]
    pub elapsed: Option<std::time::Duration>,
}

impl Exchange {
    /// A request the harness sent for itself, outside any case's steps (`harness` says
    /// why), reported under `operation`: method, path and answer status, no bodies.
    pub(crate) fn aside(
        base_url: &str,
        operation: String,
        request: &crate::transport::Request,
        sent: &Result<Response, TransportError>,
        harness: String,
    ) -> Exchange {
        Exchange {
            case: "harness".into(),
            operation,
            step: 0,
            method: request.method.to_string(),
            path: request
                .url
                .as_str()
                .strip_prefix(base_url.trim_end_matches('/'))
                .unwrap_or(request.url.path())
                .to_string(),
            auth: None,
            headers: Vec::new(),
            body: None,
            status: sent.as_ref().ok().map(|r| r.status),
            error: sent.as_ref().err().map(|e| e.to_string()),
            content_type: sent.as_ref().ok().and_then(|r| r.media_type()),
            response: Value::Null,
            location: None,
            resent: sent.as_ref().map_or(0, |r| r.retries),
            harness: Some(harness),
            case_index: 0,
            elapsed: sent.as_ref().ok().map(|r| r.elapsed),
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
