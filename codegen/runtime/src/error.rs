//! The runtime every operation shares: what an answer carried ([`Response`]), why a
//! call failed ([`Error`]), and the constraint checks derived from the spec.
//!
//! Written once as ordinary Rust in the generator's workspace (`codegen/runtime`, where
//! it is compiled, linted and tested) and copied into each generated crate, which so
//! needs no support library; a crate gets only the parts its spec uses.

use std::fmt;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;

/// A documented success answer: the decoded body, with the status and headers it
/// came with.
///
/// Derefs to the body, so `response.field` reads the body's field; `into_inner()`
/// keeps only the body. `Debug` shows the header names, not their values (a
/// `Set-Cookie` may carry a credential).
#[derive(Clone)]
pub struct Response<T> {
    status: StatusCode,
    headers: HeaderMap,
    body: T,
}

impl<T> Response<T> {
    /// A response from its parts (for tests and mocks of code that takes one).
    pub fn new(status: StatusCode, headers: HeaderMap, body: T) -> Self {
        Self {
            status,
            headers,
            body,
        }
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The headers of the answer.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The decoded body.
    pub fn body(&self) -> &T {
        &self.body
    }

    /// The decoded body, dropping status and headers.
    pub fn into_inner(self) -> T {
        self.body
    }

    /// Status, headers and body.
    pub fn into_parts(self) -> (StatusCode, HeaderMap, T) {
        (self.status, self.headers, self.body)
    }

    /// The same answer with its body transformed.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Response<U> {
        Response {
            status: self.status,
            headers: self.headers,
            body: f(self.body),
        }
    }
}

impl<T> std::ops::Deref for Response<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.body
    }
}

impl<T> std::ops::DerefMut for Response<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.body
    }
}

impl<T: fmt::Debug> fmt::Debug for Response<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Response")
            .field("status", &self.status)
            .field("headers", &HeaderNames(&self.headers))
            .field("body", &self.body)
            .finish()
    }
}

/// `Debug` of a header map that lists the names only.
struct HeaderNames<'a>(&'a HeaderMap);

impl fmt::Debug for HeaderNames<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

/// Why a client call did not produce its documented success value.
///
/// `E` is the operation's enum of documented error responses. Every variant that
/// came from an answer carries its status and headers. `Display` shows the status
/// and the start of the body with what reads as a credential masked
/// ([`Error::redacted_excerpt`]); `Debug` never prints a body. Neither prints a
/// header value (it may hold a credential); read the fields for those. The URL a
/// `reqwest::Error` carries has its query values replaced by `REDACTED` (a query
/// may carry an API key), its path and query names kept.
///
/// `#[non_exhaustive]`: a newer generator may tell more cases apart, and a match
/// written today keeps compiling with a `_` arm.
#[non_exhaustive]
pub enum Error<E> {
    /// No answer arrived: the request could not be built or sent (connection
    /// refused or closed, TLS, a timeout, an invalid base URL).
    /// [`Error::is_timeout`] tells a timeout.
    Transport(reqwest::Error),
    /// The head of the answer arrived, but reading its body failed (the connection
    /// was closed or reset, or the total timeout ran out): the status and headers
    /// that came are kept, which `Transport` has no room for.
    /// [`Error::is_timeout`] tells a timeout.
    Body {
        /// The HTTP status of the answer.
        status: StatusCode,
        /// The headers of the answer.
        headers: HeaderMap,
        /// Why the body could not be read (also `source()`).
        source: reqwest::Error,
    },
    /// The client's token source could not supply a bearer token; nothing was
    /// sent.
    Token(TokenError),
    /// The request breaks a constraint of the spec and was not sent.
    Constraint(ConstraintViolation),
    /// The server answered with a documented error status; the body is decoded.
    /// A body that is not in the documented shape is still this error, with its
    /// status: `error` is then the operation's `Unreadable` variant, naming where
    /// and why, and `body` holds what came.
    Response {
        /// The HTTP status.
        status: StatusCode,
        /// The headers of the answer.
        headers: HeaderMap,
        /// The documented answer, decoded.
        error: E,
        /// The body exactly as received (at most the client's
        /// `max_response_bytes`): what the server said that the documented
        /// schema has no field for (a FastAPI `exception_message` beside a
        /// `detail` the schema names) is still there.
        body: Vec<u8>,
    },
    // @if business
    /// The server answered with a success status, but the body reports that the
    /// request was rejected (a field the spec's `x-business-error` names is
    /// non-empty). `error` is the operation's `Rejected` variant with the body.
    Business {
        /// The HTTP status (a success status on the wire).
        status: StatusCode,
        /// The headers of the answer.
        headers: HeaderMap,
        /// The wire name of the field that reports the rejection.
        field: &'static str,
        /// The decoded body, as the operation's `Rejected` variant.
        error: E,
        /// The body exactly as received.
        body: Vec<u8>,
    },
    // @end
    // @if penalty
    /// The server answered with a penalty (`x-penalty`): wait `wait`, then send the
    /// same request again with `ticket` in its `resend` field. A client with a
    /// [`RetryPolicy`] does both itself.
    Penalty {
        /// The HTTP status (a success status on the wire).
        status: StatusCode,
        /// The headers of the answer.
        headers: HeaderMap,
        /// How long the server asks to wait.
        wait: std::time::Duration,
        /// The ticket to send back (opaque; `Debug` shows its length only).
        ticket: String,
        /// The request body field the ticket goes back in.
        resend: &'static str,
    },
    // @end
    // @if captcha
    /// The server asks for a person to log in interactively (a penalty answer with a
    /// captcha): sending again cannot help, so it is never retried.
    LoginRequired {
        /// The HTTP status (a success status on the wire).
        status: StatusCode,
        /// The headers of the answer.
        headers: HeaderMap,
    },
    // @end
    /// The server answered with a status the spec does not document for this
    /// operation.
    UnexpectedStatus {
        /// The HTTP status.
        status: StatusCode,
        /// The headers of the answer.
        headers: HeaderMap,
        /// The body exactly as received.
        body: Vec<u8>,
    },
    /// The answer's body is longer than the client's cap
    /// (`Client::set_max_response_bytes`); it was not read to the end.
    BodyTooLarge {
        /// The HTTP status.
        status: StatusCode,
        /// The headers of the answer.
        headers: HeaderMap,
        /// The cap, in bytes.
        limit: usize,
    },
    /// The server answered with a success status whose body is not the documented
    /// type (a documented error status whose body does not fit is
    /// [`Error::Response`]).
    Decode {
        /// The HTTP status.
        status: StatusCode,
        /// The headers of the answer.
        headers: HeaderMap,
        /// The body exactly as received (at most the client's
        /// `max_response_bytes`; [`Error::excerpt`] gives its start as text).
        body: Vec<u8>,
        /// Where in a JSON body decoding failed: field names and list indexes
        /// from the root, as `items[3].id` (a value of the wrong type, a missing
        /// field); `.` for the root (a body that is not JSON at all or stops
        /// being JSON part-way, whose place the source's line and column give;
        /// the wrong kind of value at the top; a text body that is not UTF-8). Inside a union the path ends at the union,
        /// whose branches were all tried.
        path: String,
        /// Why the body does not decode (also `source()`; its message may quote
        /// the body).
        source: serde_json::Error,
    },
}

/// A documented error answer of one operation: the `E` of [`Error`]. Every
/// generated `…Error` enum of the client implements it.
pub trait DocumentedError {
    /// The HTTP status of the answer.
    fn status(&self) -> StatusCode;
}

impl<E> Error<E> {
    /// The HTTP status of the answer, when there was one.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Error::Transport(e) => e.status(),
            Error::Constraint(_) | Error::Token(_) => None,
            Error::Response { status, .. }
            | Error::Body { status, .. }
            | Error::UnexpectedStatus { status, .. }
            | Error::BodyTooLarge { status, .. }
            | Error::Decode { status, .. } => Some(*status),
            // @if business
            Error::Business { status, .. } => Some(*status),
            // @end
            // @if penalty
            Error::Penalty { status, .. } => Some(*status),
            // @end
            // @if captcha
            Error::LoginRequired { status, .. } => Some(*status),
            // @end
        }
    }

    /// The headers of the answer, when there was one.
    pub fn headers(&self) -> Option<&HeaderMap> {
        match self {
            Error::Transport(_) | Error::Constraint(_) | Error::Token(_) => None,
            Error::Response { headers, .. }
            | Error::Body { headers, .. }
            | Error::UnexpectedStatus { headers, .. }
            | Error::BodyTooLarge { headers, .. }
            | Error::Decode { headers, .. } => Some(headers),
            // @if business
            Error::Business { headers, .. } => Some(headers),
            // @end
            // @if penalty
            Error::Penalty { headers, .. } => Some(headers),
            // @end
            // @if captcha
            Error::LoginRequired { headers, .. } => Some(headers),
            // @end
        }
    }

    /// The body of the answer exactly as received, when the error came from an
    /// answer whose body was read (a documented error, an undocumented status, a
    /// body that does not decode). [`Error::excerpt`] gives the start of it as text.
    // @if business
    /// A business rejection keeps its body too.
    // @end
    pub fn body(&self) -> Option<&[u8]> {
        match self {
            Error::Response { body, .. }
            | Error::UnexpectedStatus { body, .. }
            | Error::Decode { body, .. } => Some(body),
            // @if business
            Error::Business { body, .. } => Some(body),
            // @end
            _ => None,
        }
    }

    /// The first `max_chars` characters of [`Error::body`] as text (bytes that are
    /// not UTF-8 replaced, `…` added when cut), exactly as the server sent them:
    /// nothing is masked, so a credential the body echoes is there too. `Display`
    /// shows [`Error::redacted_excerpt`] instead.
    pub fn excerpt(&self, max_chars: usize) -> Option<String> {
        let text = String::from_utf8_lossy(self.body()?);
        let mut excerpt: String = text.chars().take(max_chars).collect();
        if excerpt.len() < text.len() {
            excerpt.push('…');
        }
        Some(excerpt)
    }

    /// What `Display` shows of a non-empty [`Error::body`]: its first `max_chars`
    /// characters on one line (control characters and runs of white space become
    /// one space, `…` added when cut), with what reads as a credential replaced by
    /// `<redacted>`.
    ///
    /// In a JSON body, the value (every string, number and boolean inside it) of a
    /// property whose name holds `token`, `secret`, `password`, `passwd`,
    /// `passphrase`, `apikey`, `authorization`, `cookie`, `credential`,
    /// `privatekey` or `sessionid` (any case, `_`, `-` and `.` ignored), is `pwd`,
    /// `otp` or `pin`,
    // @if secret_fields
    /// or is a field the spec marks secret (`x-secret`, `format: password`),
    // @end
    /// is masked; so is the `input` a validation error (FastAPI, Pydantic) echoes
    /// beside a `loc` ending in such a name, and any string that is a JWT or starts
    /// with `Bearer ` or `Basic `. The body's own text is kept where the masked
    /// strings can be replaced in it; otherwise (a masked number, a string escaped
    /// two ways) it is written out again, with its properties in name order. In
    /// any other body, the word after such a name (across `=`, `:` or a quote:
    /// `api_key=…`, not `token expired`), after `Bearer` or `Basic`, and a JWT are
    /// masked.
    ///
    /// Only the body's first 64 KiB are read; a JSON body longer than that is
    /// masked as text.
    ///
    /// The masking goes by names and shapes: a secret under a name that says
    /// nothing (`{"value": …}`) is shown. Where that matters, log
    /// [`Error::status`] rather than the error.
    pub fn redacted_excerpt(&self, max_chars: usize) -> Option<String> {
        let body = self.body().filter(|body| !body.is_empty())?;
        Some(redacted_excerpt(body, max_chars))
    }

    /// The documented answer (an error status, or a business rejection where the
    /// spec declares one), decoded.
    pub fn documented(&self) -> Option<&E> {
        match self {
            Error::Response { error, .. } => Some(error),
            // @if business
            Error::Business { error, .. } => Some(error),
            // @end
            _ => None,
        }
    }

    /// Whether the call failed because a connect or total timeout ran out.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Error::Transport(e) | Error::Body { source: e, .. } if e.is_timeout())
    }

    /// How long the server asked to wait before sending again: the `Retry-After`
    /// header of the answer (seconds or an HTTP date).
    // @if penalty
    /// For a penalty, the wait it names.
    // @end
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        // @if penalty
        if let Error::Penalty { wait, .. } = self {
            return Some(*wait);
        }
        // @end
        self.headers().and_then(retry_after)
    }

    /// Whether sending the same request again may succeed: a connection that
    /// failed or closed (before the answer or during its body), an answer whose
    /// head could not be read (garbled on the wire), a timeout,
    /// `429 Too Many Requests` or `503 Service Unavailable`. Never a documented
    /// error, a constraint violation or a request that could not be built. Whether
    /// it is *safe* to send again depends on the operation as well; [`RetryPolicy`]
    /// says which it retries.
    // @if penalty
    ///
    /// A penalty (`x-penalty`) may succeed when sent again with its ticket.
    // @end
    // @if captcha
    /// [`Error::LoginRequired`] never does.
    // @end
    // @if business
    ///
    /// A business rejection (`x-business-error`) never does.
    // @end
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Transport(e) => e.is_timeout() || e.is_connect() || e.is_request(),
            Error::Body { .. } => true,
            // @if penalty
            Error::Penalty { .. } => true,
            // @end
            // @if captcha
            Error::LoginRequired { .. } => false,
            // @end
            _ => matches!(
                self.status(),
                Some(StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE)
            ),
        }
    }
}

impl<E> fmt::Debug for Error<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Transport(e) => f.debug_tuple("Transport").field(e).finish(),
            Error::Body {
                status,
                headers,
                source,
            } => answer_debug(f, "Body", status, headers)
                .field("source", source)
                .finish(),
            Error::Constraint(v) => f.debug_tuple("Constraint").field(v).finish(),
            Error::Token(e) => f.debug_tuple("Token").field(e).finish(),
            Error::Response {
                status,
                headers,
                body,
                ..
            } => answer_debug(f, "Response", status, headers)
                .field("body_bytes", &body.len())
                .finish_non_exhaustive(),
            // @if business
            Error::Business {
                status,
                headers,
                field,
                body,
                ..
            } => answer_debug(f, "Business", status, headers)
                .field("field", field)
                .field("body_bytes", &body.len())
                .finish_non_exhaustive(),
            // @end
            // @if penalty
            Error::Penalty {
                status,
                headers,
                wait,
                ticket,
                resend,
            } => answer_debug(f, "Penalty", status, headers)
                .field("wait", wait)
                .field("ticket_bytes", &ticket.len())
                .field("resend", resend)
                .finish(),
            // @end
            // @if captcha
            Error::LoginRequired { status, headers } => {
                answer_debug(f, "LoginRequired", status, headers).finish()
            }
            // @end
            Error::UnexpectedStatus {
                status,
                headers,
                body,
            } => answer_debug(f, "UnexpectedStatus", status, headers)
                .field("body_bytes", &body.len())
                .finish(),
            Error::BodyTooLarge {
                status,
                headers,
                limit,
            } => answer_debug(f, "BodyTooLarge", status, headers)
                .field("limit", limit)
                .finish(),
            Error::Decode {
                status,
                headers,
                body,
                path,
                source,
            } => answer_debug(f, "Decode", status, headers)
                .field("body_bytes", &body.len())
                .field("path", path)
                .field("source", &format_args!("{}", json_error_summary(source)))
                .finish(),
        }
    }
}

/// The start of the `Debug` of a variant that came with an answer: its status and
/// header names (never the values, which may hold credentials).
fn answer_debug<'a, 'b>(
    f: &'a mut fmt::Formatter<'b>,
    name: &str,
    status: &StatusCode,
    headers: &HeaderMap,
) -> fmt::DebugStruct<'a, 'b> {
    let mut debug = f.debug_struct(name);
    debug
        .field("status", status)
        .field("headers", &HeaderNames(headers));
    debug
}

impl<E> fmt::Display for Error<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Transport(e) if e.is_timeout() => write!(f, "request timed out: {e}"),
            Error::Transport(e) => write!(f, "request failed: {e}"),
            Error::Body { status, source, .. } if source.is_timeout() => {
                write!(f, "status {status}: timed out reading the body: {source}")
            }
            Error::Body { status, source, .. } => {
                write!(f, "status {status}: the body could not be read: {source}")
            }
            Error::Constraint(v) => write!(f, "request not sent: {v}"),
            Error::Token(e) => write!(f, "request not sent: {e}"),
            Error::Response { status, .. } => {
                write!(f, "documented error answer, status {status}")?;
                self.fmt_excerpt(f)
            }
            // @if business
            Error::Business { status, field, .. } => {
                write!(f, "request rejected: status {status} with a non-empty `{field}`")?;
                self.fmt_excerpt(f)
            }
            // @end
            // @if penalty
            Error::Penalty { wait, .. } => {
                write!(
                    f,
                    "penalty: the server asks to wait {} ms and send again with its ticket",
                    wait.as_millis()
                )
            }
            // @end
            // @if captcha
            Error::LoginRequired { .. } => {
                f.write_str(
                    "the server asks for a person to log in interactively (captcha); retrying cannot help",
                )
            }
            // @end
            Error::UnexpectedStatus { status, .. } => {
                write!(f, "undocumented status {status}")?;
                self.fmt_excerpt(f)
            }
            Error::BodyTooLarge { status, limit, .. } => {
                write!(f, "status {status}: body longer than the cap of {limit} bytes")
            }
            Error::Decode {
                status,
                path,
                source,
                body,
                ..
            } => {
                write!(
                    f,
                    "status {status}: body does not decode at `{path}`: {} ({} bytes of body)",
                    json_error_summary(source),
                    body.len()
                )?;
                self.fmt_excerpt(f)
            }
        }
    }
}

/// How many characters of a body `Display` shows.
const SHOWN_CHARS: usize = 300;

/// What `Display` shows in place of a value that reads as a credential.
const MASK: &str = "<redacted>";

impl<E> Error<E> {
    /// `: ` and the [`Error::redacted_excerpt`] of the body, when there is one.
    fn fmt_excerpt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.redacted_excerpt(SHOWN_CHARS) {
            Some(excerpt) => write!(f, ": {excerpt}"),
            None => Ok(()),
        }
    }
}

/// How much of a body the excerpt reads: masking parses it, and a `Display` of a
/// large body should not cost a parse of all of it. A JSON body cut here is masked
/// as text.
const EXCERPT_READS: usize = 64 * 1024;

/// [`Error::redacted_excerpt`] of `body`.
fn redacted_excerpt(body: &[u8], max_chars: usize) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(EXCERPT_READS)]);
    let masked = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(value) => mask_json(&text, value),
        Err(_) => mask_text(&text),
    };
    one_line(&masked, max_chars)
}

/// A JSON body's `text` with its credentials masked: the server's own text (and
/// order of properties) where every masked string can be replaced in it and none is
/// left after, else `value` written out again with every string that shows one of
/// them masked. A masked string of [`ANYWHERE`] characters or more is masked inside
/// other strings too (`"code x-123 was used"`); a shorter one only where it is the
/// whole string, since it may turn up by chance.
fn mask_json(text: &str, mut value: serde_json::Value) -> String {
    let mut masked = Masked::default();
    mask_value(&mut value, false, &mut masked);
    if masked.strings.is_empty() && !masked.other {
        return text.to_owned();
    }
    // Longest first, so a secret inside a longer one cannot leave the rest of it.
    masked
        .strings
        .sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    masked.strings.dedup();
    if !masked.other
        && let Some(out) = mask_in_text(text, &masked.strings)
    {
        return out;
    }
    mask_shown(&mut value, &masked.strings);
    value.to_string()
}

/// Masked strings this long are masked wherever they occur.
const ANYWHERE: usize = 6;

/// `text` with every one of `secrets` replaced in place, or `None` when one cannot
/// be found as written (escaped another way) or reading the result back still shows
/// one.
fn mask_in_text(text: &str, secrets: &[String]) -> Option<String> {
    let mut out = text.to_owned();
    for secret in secrets {
        let encoded = serde_json::Value::String(secret.clone()).to_string();
        let (find, mask) = if secret.chars().count() >= ANYWHERE {
            (&encoded[1..encoded.len() - 1], MASK.to_owned())
        } else {
            (encoded.as_str(), format!("\"{MASK}\""))
        };
        if !out.contains(find) {
            return None;
        }
        out = out.replace(find, &mask);
    }
    let back: serde_json::Value = serde_json::from_str(&out).ok()?;
    (!any_shows(&back, secrets)).then_some(out)
}

/// Whether `text` shows one of `secrets`: is one, or holds a long one.
fn shows(text: &str, secrets: &[String]) -> bool {
    secrets.iter().any(|secret| {
        text == secret || (secret.chars().count() >= ANYWHERE && text.contains(secret.as_str()))
    })
}

/// `text` with what shows one of `secrets` masked.
fn mask_str(text: &str, secrets: &[String]) -> String {
    if secrets.iter().any(|secret| secret == text) {
        return MASK.to_owned();
    }
    let mut out = text.to_owned();
    for secret in secrets.iter().filter(|s| s.chars().count() >= ANYWHERE) {
        out = out.replace(secret.as_str(), MASK);
    }
    out
}

/// Masks, in every string and property name of `value`, what shows one of `secrets`
/// (a secret echoed under another name or inside a message).
fn mask_shown(value: &mut serde_json::Value, secrets: &[String]) {
    use serde_json::Value;
    match value {
        Value::String(s) => *s = mask_str(s, secrets),
        Value::Array(items) => items.iter_mut().for_each(|item| mask_shown(item, secrets)),
        Value::Object(map) => {
            *map = std::mem::take(map)
                .into_iter()
                .map(|(name, mut item)| {
                    mask_shown(&mut item, secrets);
                    (mask_str(&name, secrets), item)
                })
                .collect();
        }
        _ => {}
    }
}

/// What [`mask_value`] masked: the strings, and whether anything else (a number, a
/// boolean) was masked, which cannot be found again in the text safely.
#[derive(Default)]
struct Masked {
    strings: Vec<String>,
    other: bool,
}

/// Masks in place every scalar under a credential's name (`secret` once one is
/// passed), the `input` a validation error echoes for such a field, and every string
/// shaped like a credential.
fn mask_value(value: &mut serde_json::Value, secret: bool, masked: &mut Masked) {
    use serde_json::Value;
    match value {
        Value::String(s) if secret || credential_shaped(s) => {
            masked.strings.push(std::mem::replace(s, MASK.to_owned()));
        }
        Value::Number(_) | Value::Bool(_) if secret => {
            masked.other = true;
            *value = Value::String(MASK.to_owned());
        }
        Value::Array(items) => {
            for item in items {
                mask_value(item, secret, masked);
            }
        }
        Value::Object(map) => {
            let echoes_secret = map
                .get("loc")
                .and_then(Value::as_array)
                .and_then(|loc| loc.iter().rev().find_map(Value::as_str))
                .is_some_and(secret_name);
            for (name, item) in map.iter_mut() {
                let under = secret || secret_name(name) || (echoes_secret && name == "input");
                mask_value(item, under, masked);
            }
        }
        _ => {}
    }
}

/// Whether some string or property name in `value` shows one of `secrets`.
fn any_shows(value: &serde_json::Value, secrets: &[String]) -> bool {
    use serde_json::Value;
    match value {
        Value::String(s) => shows(s, secrets),
        Value::Array(items) => items.iter().any(|item| any_shows(item, secrets)),
        Value::Object(map) => map
            .iter()
            .any(|(name, item)| shows(name, secrets) || any_shows(item, secrets)),
        _ => false,
    }
}

/// Whether a property or field `name` reads as holding a credential.
fn secret_name(name: &str) -> bool {
    // @if secret_fields
    if crate::SECRET_FIELDS.contains(&name) {
        return true;
    }
    // @end
    let folded: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | '.' | ' '))
        .flat_map(char::to_lowercase)
        .collect();
    [
        "token",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "apikey",
        "authorization",
        "cookie",
        "credential",
        "privatekey",
        "sessionid",
    ]
    .iter()
    .any(|word| folded.contains(word))
        || matches!(folded.as_str(), "pwd" | "otp" | "pin")
}

/// Whether a string value is a credential by its shape: a JWT, or an
/// `Authorization` header's value.
fn credential_shaped(s: &str) -> bool {
    let lower = s.get(..7).map(str::to_ascii_lowercase);
    jwt(s) || lower.is_some_and(|start| start == "bearer " || start.starts_with("basic "))
}

/// Whether `word` is a JWT: three base64url parts, the first a JSON object's
/// encoding (`eyJ`).
fn jwt(word: &str) -> bool {
    word.len() >= 20
        && word.starts_with("eyJ")
        && word.split('.').count() == 3
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// A body that is not JSON with its credentials masked: the word after a
/// credential's name (across `=`, `:` or a quote, and spaces) or after
/// `Bearer`/`Basic`, and every JWT.
fn mask_text(text: &str) -> String {
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '+' | '/');
    let mut out = String::with_capacity(text.len());
    // After a credential's name, the next word is masked when `=`, `:` or a quote
    // stands between them (`password 'x'`, not `password is wrong`); after a
    // scheme, a space is enough.
    let mut mask_next = false;
    let mut after_scheme = false;
    let mut rest = text;
    while !rest.is_empty() {
        let gap = rest.find(is_word).unwrap_or(rest.len());
        let (between, tail) = rest.split_at(gap);
        if mask_next
            && (between.len() > 4
                || !between
                    .chars()
                    .all(|c| matches!(c, '=' | ':' | '"' | '\'' | ' '))
                || (!after_scheme && between.chars().all(|c| c == ' ')))
        {
            mask_next = false;
        }
        out.push_str(between);
        let end = tail.find(|c: char| !is_word(c)).unwrap_or(tail.len());
        let (word, after) = tail.split_at(end);
        if word.is_empty() {
            break;
        }
        let scheme = word.eq_ignore_ascii_case("bearer") || word.eq_ignore_ascii_case("basic");
        if (mask_next && !scheme) || jwt(word) {
            out.push_str(MASK);
            mask_next = false;
        } else {
            // `Authorization: Bearer …`: the scheme is shown, the word after it is not.
            out.push_str(word);
            mask_next = scheme || secret_name(word);
            after_scheme = scheme;
        }
        rest = after;
    }
    out
}

/// `text` on one line: control characters and runs of white space become one space;
/// at most `max_chars` characters, `…` added when cut.
fn one_line(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut space = false;
    for c in text.trim().chars() {
        if c.is_whitespace() || c.is_control() {
            space = true;
            continue;
        }
        if space {
            space = false;
            if count == max_chars {
                out.push('…');
                return out;
            }
            out.push(' ');
            count += 1;
        }
        if count == max_chars {
            out.push('…');
            return out;
        }
        out.push(c);
        count += 1;
    }
    out
}

impl<E> std::error::Error for Error<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Transport(e) | Error::Body { source: e, .. } => Some(e),
            Error::Constraint(v) => Some(v),
            Error::Decode { source, .. } => Some(source),
            Error::Token(e) => Some(e),
            Error::Response { .. }
            | Error::UnexpectedStatus { .. }
            | Error::BodyTooLarge { .. } => None,
            // @if business
            Error::Business { .. } => None,
            // @end
            // @if penalty
            Error::Penalty { .. } => None,
            // @end
            // @if captcha
            Error::LoginRequired { .. } => None,
            // @end
        }
    }
}

/// Sees every request a [`crate::Client`] sends and every answer it gets: add a
/// header, read or change the request, measure the answer. Installed with
/// `ClientBuilder::hook` or `Client::add_hook`; every clone of the client (and the
/// client a refreshing token source sends with) keeps its hooks.
///
/// Called once per attempt: a retry or a re-send after a token refresh is seen
/// again, with its attempt number. The request reaches `before_send` with its
/// credentials on it (marked sensitive): a hook that logs headers must skip
/// those. Both methods do nothing by default.
pub trait Hook: Send + Sync {
    /// Before an attempt is sent: `request` may be changed (a header added, the
    /// timeout shortened).
    fn before_send(&self, call: &CallInfo, request: &mut reqwest::Request) {
        let _ = (call, request);
    }

    /// When the head of the answer has arrived (the body is read after), or the
    /// attempt failed without one.
    fn after_receive(&self, received: &Received<'_>) {
        let _ = received;
    }
}

/// Which call a [`Hook`] is told about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallInfo {
    /// The client method (the snake-case `operationId`).
    pub operation: &'static str,
    /// The HTTP method.
    pub method: &'static str,
    /// The spec's path template (`/orders/{id}`), never the values sent.
    pub path: &'static str,
    /// 1 for the first attempt, then one more for each retry or re-send.
    pub attempt: u32,
}

/// What a [`Hook`] is told about an answer. `Debug` shows the header names only.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct Received<'a> {
    /// The call and attempt.
    pub call: CallInfo,
    /// The status, `None` when the attempt failed without an answer.
    pub status: Option<StatusCode>,
    /// The answer's headers, `None` when there was no answer.
    pub headers: Option<&'a HeaderMap>,
    /// From sending to the answer's head (or the failure).
    pub latency: std::time::Duration,
}

impl fmt::Debug for Received<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Received")
            .field("call", &self.call)
            .field("status", &self.status)
            .field("headers", &self.headers.map(HeaderNames))
            .field("latency", &self.latency)
            .finish()
    }
}

/// `Retry-After` as a wait: delay-seconds, or an HTTP date (zero once it has passed).
fn retry_after(headers: &HeaderMap) -> Option<std::time::Duration> {
    let value = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(std::time::Duration::from_secs(seconds));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or_default(),
    )
}

/// When a client sends a failed call again: opt in with `Client::set_retry_policy`
/// or `ClientBuilder::retry_policy`.
///
/// Retried: `429 Too Many Requests` (the server did not act on the request) for
/// every operation; connection failures (refused, or closed or reset before the
/// answer or during its body), timeouts and `503 Service Unavailable` only for
/// idempotent methods (`GET`, `PUT`, `DELETE`, `HEAD`, `OPTIONS`, `TRACE`), since a
/// `POST` may have been acted on. Each wait is the server's (`Retry-After`) or else
/// exponential backoff with jitter: a wait between half and all of
/// `initial_backoff × 2^(n-1)` (capped at `max_backoff`) before retry `n`. Never
/// retried: a documented error, a request that could not be built. When the
/// attempts or the total wait budget run out, the last error comes back with its
/// status and headers. Streaming (`…_stream`) methods are never retried.
// @if penalty
///
/// A penalty answer (`x-penalty`) is retried for every operation, after the wait
/// it names, and sent again with its ticket.
// @end
// @if captcha
/// A captcha ([`Error::LoginRequired`]) is never retried.
// @end
// @if business
///
/// A business rejection (`x-business-error`) is never retried.
// @end
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    max_attempts: u32,
    initial_backoff: std::time::Duration,
    max_backoff: std::time::Duration,
    budget: std::time::Duration,
}

impl Default for RetryPolicy {
    /// 4 attempts, backoff from 200 ms up to 10 s, at most 60 s of waiting in all.
    fn default() -> Self {
        Self {
            max_attempts: 4,
            initial_backoff: std::time::Duration::from_millis(200),
            max_backoff: std::time::Duration::from_secs(10),
            budget: std::time::Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// How many times a call is sent at most, the first included (at least 1).
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// The first backoff (doubled each attempt) when the server names no wait.
    pub fn initial_backoff(mut self, backoff: std::time::Duration) -> Self {
        self.initial_backoff = backoff;
        self
    }

    /// The longest single backoff.
    pub fn max_backoff(mut self, backoff: std::time::Duration) -> Self {
        self.max_backoff = backoff;
        self
    }

    /// The most time a call may spend waiting between attempts, in all; a wait
    /// that would pass it is not made and the last error is returned.
    pub fn budget(mut self, budget: std::time::Duration) -> Self {
        self.budget = budget;
        self
    }
}

// @if answer
/// An answer read into memory (up to the client's cap), before it is decoded.
pub(crate) struct Answer {
    /// The HTTP status.
    pub(crate) status: StatusCode,
    /// The headers.
    pub(crate) headers: HeaderMap,
    /// The body as received.
    pub(crate) body: Vec<u8>,
}

impl Answer {
    /// Reads the body of `response`, at most `limit` bytes: a declared or actual
    /// length over it is `Error::BodyTooLarge`, and reading stops there.
    pub(crate) async fn read<E>(
        mut response: reqwest::Response,
        limit: usize,
    ) -> Result<Self, Error<E>> {
        let status = response.status();
        let too_large = |response: reqwest::Response| Error::BodyTooLarge {
            status,
            headers: response.headers().clone(),
            limit,
        };
        if response
            .content_length()
            .is_some_and(|length| length > limit as u64)
        {
            return Err(too_large(response));
        }
        let mut body = Vec::new();
        loop {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(source) => {
                    return Err(Error::Body {
                        status,
                        headers: std::mem::take(response.headers_mut()),
                        source: redacted(source),
                    });
                }
            };
            if body.len() + chunk.len() > limit {
                return Err(too_large(response));
            }
            body.extend_from_slice(&chunk);
        }
        let headers = std::mem::take(response.headers_mut());
        Ok(Self {
            status,
            headers,
            body,
        })
    }
}

impl<E> Error<E> {
    /// `Error::Transport` with the error's URL [`redacted`]: every
    /// `reqwest::Error` the client keeps goes through here or `redacted`.
    pub(crate) fn transport(error: reqwest::Error) -> Self {
        Error::Transport(redacted(error))
    }
}

/// `error` with the query values of its URL replaced by `REDACTED` (names and
/// path kept): `reqwest::Error`'s `Display` and `Debug` print the URL, and a query
/// may carry a credential (an `apiKey` scheme `in: query`) or other private values.
pub(crate) fn redacted(mut error: reqwest::Error) -> reqwest::Error {
    if let Some(url) = error.url_mut()
        && url.query().is_some()
    {
        let names: Vec<String> = url
            .query_pairs()
            .map(|(name, _)| name.into_owned())
            .collect();
        url.query_pairs_mut()
            .clear()
            .extend_pairs(names.iter().map(|name| (name.as_str(), "REDACTED")));
    }
    error
}

impl RetryPolicy {
    /// How long to wait before attempt `attempt + 1` after `error`, having waited
    /// `waited` so far; `None` when the call must not be sent again.
    pub(crate) fn delay<E>(
        &self,
        error: &Error<E>,
        idempotent: bool,
        attempt: u32,
        waited: std::time::Duration,
    ) -> Option<std::time::Duration> {
        if attempt >= self.max_attempts {
            return None;
        }
        let safe = match error {
            // @if penalty
            Error::Penalty { .. } => true,
            // @end
            Error::Transport(_) | Error::Body { .. } => idempotent && error.is_retryable(),
            _ => match error.status() {
                Some(StatusCode::TOO_MANY_REQUESTS) => true,
                Some(StatusCode::SERVICE_UNAVAILABLE) => idempotent,
                _ => false,
            },
        };
        if !safe {
            return None;
        }
        let wait = error.retry_after().unwrap_or_else(|| self.backoff(attempt));
        (waited + wait <= self.budget).then_some(wait)
    }

    /// Exponential backoff with jitter: a random point in the upper half of
    /// `initial × 2^(attempt-1)`, capped at `max_backoff`.
    fn backoff(&self, attempt: u32) -> std::time::Duration {
        use std::hash::{BuildHasher, Hasher};
        let exp = self
            .initial_backoff
            .saturating_mul(1 << attempt.saturating_sub(1).min(16));
        let full = exp.min(self.max_backoff);
        // A fresh `RandomState` is randomly keyed: enough to spread clients apart.
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u32(attempt);
        let fraction = (hasher.finish() % 1000) as u32;
        full / 2 + full / 2 * fraction / 1000
    }
}

impl Error<std::convert::Infallible> {
    /// The same error as an error of an operation (none of these carries a
    /// documented answer).
    pub(crate) fn widen<E>(self) -> Error<E> {
        match self {
            Error::Transport(e) => Error::Transport(e),
            Error::Body {
                status,
                headers,
                source,
            } => Error::Body {
                status,
                headers,
                source,
            },
            Error::Constraint(v) => Error::Constraint(v),
            Error::Token(e) => Error::Token(e),
            Error::Response { error, .. } => match error {},
            // @if business
            Error::Business { error, .. } => match error {},
            // @end
            // @if penalty
            Error::Penalty {
                status,
                headers,
                wait,
                ticket,
                resend,
            } => Error::Penalty {
                status,
                headers,
                wait,
                ticket,
                resend,
            },
            // @end
            // @if captcha
            Error::LoginRequired { status, headers } => Error::LoginRequired { status, headers },
            // @end
            Error::UnexpectedStatus {
                status,
                headers,
                body,
            } => Error::UnexpectedStatus {
                status,
                headers,
                body,
            },
            Error::BodyTooLarge {
                status,
                headers,
                limit,
            } => Error::BodyTooLarge {
                status,
                headers,
                limit,
            },
            Error::Decode {
                status,
                headers,
                body,
                path,
                source,
            } => Error::Decode {
                status,
                headers,
                body,
                path,
                source,
            },
        }
    }
}

// `result_large_err`: these build the `Error` the public `async` methods return (which
// the lint does not look at); it carries the answer's headers and body by design.
#[allow(clippy::result_large_err)]
impl Answer {
    // @if undecodable
    /// `Error::Decode` for this answer.
    pub(crate) fn undecodable<E>(self, failure: Undecodable) -> Error<E> {
        Error::Decode {
            status: self.status,
            headers: self.headers,
            body: self.body,
            path: failure.path,
            source: failure.source,
        }
    }
    // @end

    // @if success
    /// A documented success: the decoded body with status and headers.
    pub(crate) fn success<B, E>(
        self,
        decode: impl FnOnce(&[u8]) -> Result<B, Undecodable>,
    ) -> Result<Response<B>, Error<E>> {
        match decode(&self.body) {
            Ok(body) => Ok(Response {
                status: self.status,
                headers: self.headers,
                body,
            }),
            Err(source) => Err(self.undecodable(source)),
        }
    }
    // @end

    // @if success_with
    /// A documented success, its body put into the operation's success type.
    pub(crate) fn success_with<B, T, E>(
        self,
        decode: impl FnOnce(&[u8]) -> Result<B, Undecodable>,
        wrap: impl FnOnce(B) -> T,
    ) -> Result<Response<T>, Error<E>> {
        match decode(&self.body) {
            Ok(body) => Ok(Response {
                status: self.status,
                headers: self.headers,
                body: wrap(body),
            }),
            Err(source) => Err(self.undecodable(source)),
        }
    }
    // @end

    // @if documented
    /// A documented error answer: `Error::Response` with the decoded body. A body
    /// that is not in the documented shape is still that documented error, with
    /// its status: `unreadable` makes the operation's `Unreadable` variant from the
    /// status, the path and the reason (`None` where the decoder cannot fail: bytes,
    /// or no body documented).
    pub(crate) fn documented<B, E>(
        self,
        decode: impl FnOnce(&[u8]) -> Result<B, Undecodable>,
        wrap: impl FnOnce(B) -> E,
        unreadable: Option<fn(StatusCode, String, String) -> E>,
    ) -> Error<E> {
        let error = match (decode(&self.body), unreadable) {
            (Ok(decoded), _) => wrap(decoded),
            (Err(failure), Some(unreadable)) => unreadable(
                self.status,
                failure.path,
                json_error_summary(&failure.source),
            ),
            (Err(failure), None) => return self.undecodable(failure),
        };
        Error::Response {
            status: self.status,
            headers: self.headers,
            error,
            body: self.body,
        }
    }
    // @end

    // @if only
    /// The answer of an operation that documents one success and nothing else:
    /// any `2xx` decoded as that success (`Response::status` tells which it
    /// was), any other status `Error::UnexpectedStatus`.
    pub(crate) fn only<B, E>(
        self,
        decode: impl FnOnce(&[u8]) -> Result<B, Undecodable>,
    ) -> Result<Response<B>, Error<E>> {
        if !self.status.is_success() {
            return Err(Error::UnexpectedStatus {
                status: self.status,
                headers: self.headers,
                body: self.body,
            });
        }
        match decode(&self.body) {
            Ok(body) => Ok(Response {
                status: self.status,
                headers: self.headers,
                body,
            }),
            Err(source) => Err(self.undecodable(source)),
        }
    }
    // @end

    // @if unexpected
    /// A status the spec does not document: the body kept as received.
    pub(crate) fn unexpected<E>(self) -> Error<E> {
        Error::UnexpectedStatus {
            status: self.status,
            headers: self.headers,
            body: self.body,
        }
    }
    // @end
}
// @end

// @if undecodable
/// Why a body did not decode, and where: what a decoder gives
/// [`Answer::undecodable`] for `Error::Decode`.
#[derive(Debug)]
pub(crate) struct Undecodable {
    /// The path to the value that does not fit (see `Error::Decode`).
    path: String,
    /// The serde error.
    source: serde_json::Error,
}

impl From<serde_json::Error> for Undecodable {
    /// A failure of the body as a whole.
    fn from(source: serde_json::Error) -> Self {
        Self {
            path: ".".to_owned(),
            source,
        }
    }
}
// @end

// @if json
/// Decodes a JSON body, tracking the path to a value that does not fit
/// (`serde_path_to_error`), so `Error::Decode` names the field.
pub(crate) fn json<B: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<B, Undecodable> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        // Where the text stopped being JSON, the path's last name is whatever key the
        // body was writing (`{"secret": ` gives `secret`): body text, which `Display`
        // and `Debug` never show. The line and column of the source say where instead.
        let path = match error.inner().classify() {
            serde_json::error::Category::Data => error.path().to_string(),
            _ => ".".to_owned(),
        };
        Undecodable {
            path,
            source: error.into_inner(),
        }
    })?;
    // Only whitespace may follow the value (as `serde_json::from_slice` checks).
    deserializer.end()?;
    Ok(value)
}
// @end

// @if text
/// A text body as a string. Bytes that are not UTF-8 fail, naming the first bad
/// byte, and are never replaced: a text the client cannot read exactly is not
/// passed on as if it were (the error keeps the bytes).
pub(crate) fn text(bytes: &[u8]) -> Result<String, Undecodable> {
    String::from_utf8(bytes.to_vec()).map_err(|error| {
        let at = error.utf8_error().valid_up_to();
        Undecodable::from(<serde_json::Error as serde::de::Error>::custom(
            format_args!("the text body is not UTF-8 (first bad byte at offset {at})"),
        ))
    })
}
// @end

// @if bytes
/// A body of any other media type, as received; never fails.
pub(crate) fn bytes(bytes: &[u8]) -> Result<Vec<u8>, Undecodable> {
    Ok(bytes.to_vec())
}
// @end

// @if empty
/// An answer documented without a body: whatever came is ignored.
pub(crate) fn empty(_: &[u8]) -> Result<(), Undecodable> {
    Ok(())
}
// @end

/// Where and what kind of JSON error, without serde_json's message (which quotes
/// the offending value).
fn json_error_summary(e: &serde_json::Error) -> String {
    // An error made outside the parser (`text`'s "not UTF-8") has no position, and
    // its message is the runtime's own, with no body text in it.
    if e.line() == 0 {
        return e.to_string();
    }
    // The date-time reader's own words quote at most a date-time (see `DateTimeText`).
    let message = e.to_string();
    if message.starts_with(DATE_TIME_REFUSED) {
        return message;
    }
    let kind = match e.classify() {
        serde_json::error::Category::Io => "an I/O error",
        serde_json::error::Category::Syntax => "not JSON",
        serde_json::error::Category::Data => "a value of the wrong type or shape",
        serde_json::error::Category::Eof => "the body ends early",
    };
    format!("{kind} at line {} column {}", e.line(), e.column())
}

/// How the date-time reader's refusal starts, so that `Display` may show it whole.
const DATE_TIME_REFUSED: &str = "not an RFC 3339 date-time";

/// A value that breaks a constraint of the spec.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstraintViolation {
    /// Wire names of the field(s) or parameter(s) at fault: one for a single-field
    /// constraint, all of them for a combined rule.
    pub fields: Vec<&'static str>,
    /// The constraint, its limit and the value's measure.
    pub constraint: Constraint,
}

impl ConstraintViolation {
    /// Whether a rule over several fields was broken (`x-combined-max-length`)
    /// rather than a constraint of one field.
    pub fn is_combined(&self) -> bool {
        matches!(self.constraint, Constraint::CombinedMaxLength { .. })
    }
}

impl fmt::Display for ConstraintViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fields = self.fields.join(" + ");
        match &self.constraint {
            Constraint::MaxLength { max, actual } => {
                write!(f, "{fields}: length {actual} is over maxLength {max}")
            }
            Constraint::MinLength { min, actual } => {
                write!(f, "{fields}: length {actual} is under minLength {min}")
            }
            Constraint::CombinedMaxLength { max, actual } => {
                write!(f, "{fields}: combined length {actual} is over {max}")
            }
            Constraint::Minimum { min, actual } => {
                write!(f, "{fields}: {actual} is under minimum {min}")
            }
            Constraint::Maximum { max, actual } => {
                write!(f, "{fields}: {actual} is over maximum {max}")
            }
            Constraint::MinItems { min, actual } => {
                write!(f, "{fields}: {actual} items is under minItems {min}")
            }
            Constraint::MaxItems { max, actual } => {
                write!(f, "{fields}: {actual} items is over maxItems {max}")
            }
            Constraint::Pattern { pattern } => {
                write!(f, "{fields}: does not match the pattern `{pattern}`")
            }
            Constraint::DotSegment => {
                write!(
                    f,
                    "{fields}: a path segment of `.` or `..` would be resolved away by the URL (reaching another path)"
                )
            }
        }
    }
}

impl std::error::Error for ConstraintViolation {}
/// Which constraint was broken. Lengths are counted in the unit the spec names
/// (Unicode scalar values unless it says otherwise). More keywords may be checked in
/// later versions, so a `match` needs a `_` arm.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Constraint {
    /// `maxLength` of one string.
    MaxLength {
        /// The limit.
        max: u64,
        /// The value's length.
        actual: u64,
    },
    /// `minLength` of one string.
    MinLength {
        /// The limit.
        min: u64,
        /// The value's length.
        actual: u64,
    },
    /// `x-combined-max-length`: the lengths of several strings added up.
    CombinedMaxLength {
        /// The limit.
        max: u64,
        /// The sum of the lengths.
        actual: u64,
    },
    /// `minimum` of a number.
    Minimum {
        /// The limit.
        min: f64,
        /// The value.
        actual: f64,
    },
    /// `maximum` of a number.
    Maximum {
        /// The limit.
        max: f64,
        /// The value.
        actual: f64,
    },
    /// `minItems` of a list.
    MinItems {
        /// The limit.
        min: u64,
        /// The number of items.
        actual: u64,
    },
    /// `maxItems` of a list.
    MaxItems {
        /// The limit.
        max: u64,
        /// The number of items.
        actual: u64,
    },
    /// `pattern` of one string: the value does not match the regular expression
    /// anywhere (checked with the `regex` crate).
    Pattern {
        /// The spec's regular expression.
        pattern: &'static str,
    },
    /// Path parameters whose values make a whole path segment `.` or `..`. URL
    /// parsing (RFC 3986 §5.2.4, and the WHATWG URL standard, which also reads
    /// `%2E` as a dot) removes such a segment, so the request would reach another
    /// path; percent-encoding cannot keep it, so it is refused.
    DotSegment,
}

/// A bearer token that cannot be sent: it holds characters an HTTP header cannot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidBearerToken;

impl fmt::Display for InvalidBearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the bearer token contains characters an HTTP header cannot carry")
    }
}

impl std::error::Error for InvalidBearerToken {}
/// Why a token source (`client::TokenSource`) has no token to give: the refresh
/// failed, or a token it got cannot be sent. Shows no token.
#[derive(Debug)]
pub struct TokenError {
    source: Box<dyn std::error::Error + Send + Sync>,
}

impl TokenError {
    /// Wraps why the source failed (an error or a message); its `Display` must
    /// not show a token.
    pub fn new(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self {
            source: source.into(),
        }
    }
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no bearer token: {}", self.source)
    }
}

impl std::error::Error for TokenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

// @if tolerant
/// A scalar that tolerant decoding (the generator's `--tolerant`) reads from the JSON
/// scalars real servers commonly send in its place, where no data is lost. A model
/// field calls one of the `lenient…` readers below through `#[serde(deserialize_with)]`.
///
/// - A string field takes a number as its decimal text (`7` is `"7"`, `1.5` is
///   `"1.5"`).
/// - An integer field takes a string that is exactly an integer's decimal text (`"12"`,
///   `"-3"`; not `"012"`, `"+3"`, `"1.0"` or `"12 "`); a number field one that parses as
///   a finite number (`"1.5"`, `"2"`).
/// - A list of such scalars reads each item so (`[7, "8"]` in a list of strings is
///   `["7", "8"]`); a `null` item still fails.
/// - `null` in a field with the spec's `default` is that default; in an optional field
///   `None` (as strict decoding does already).
///
/// Anything else fails as strict decoding would, naming the field.
pub(crate) trait Lenient: Sized {
    /// What the field declares, for the error message.
    const EXPECTING: &'static str;
    /// From a negative or small integer; `None` refuses it.
    fn from_i64(v: i64) -> Option<Self>;
    /// From a non-negative integer; `None` refuses it.
    fn from_u64(v: u64) -> Option<Self>;
    /// From a number with a fraction or exponent; `None` refuses it.
    fn from_f64(v: f64) -> Option<Self>;
    /// From a string; `None` refuses it.
    fn from_text(v: &str) -> Option<Self>;
}

/// The visitor of a [`Lenient`] scalar: `T` from what the wire holds, `None` for `null`.
struct LenientVisitor<T>(std::marker::PhantomData<T>);

impl<T: Lenient> serde::de::Visitor<'_> for LenientVisitor<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
        T::from_i64(v)
            .map(Some)
            .ok_or_else(|| E::invalid_type(serde::de::Unexpected::Signed(v), &self))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        T::from_u64(v)
            .map(Some)
            .ok_or_else(|| E::invalid_type(serde::de::Unexpected::Unsigned(v), &self))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
        T::from_f64(v)
            .map(Some)
            .ok_or_else(|| E::invalid_type(serde::de::Unexpected::Float(v), &self))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        T::from_text(v)
            .map(Some)
            .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(v), &self))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// A [`Lenient`] scalar, or `None` for `null`.
fn read_lenient<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Lenient,
{
    deserializer.deserialize_any(LenientVisitor(std::marker::PhantomData))
}

impl Lenient for String {
    const EXPECTING: &'static str = "a string (or, read tolerantly, a number)";
    fn from_i64(v: i64) -> Option<Self> {
        Some(v.to_string())
    }
    fn from_u64(v: u64) -> Option<Self> {
        Some(v.to_string())
    }
    fn from_f64(v: f64) -> Option<Self> {
        // serde_json's spelling (`1.5`, `100.0`), as the number came.
        serde_json::Number::from_f64(v).map(|n| n.to_string())
    }
    fn from_text(v: &str) -> Option<Self> {
        Some(v.to_owned())
    }
}

/// An integer's decimal text, exactly (so that writing it back gives the same text).
fn exact_integer<T: std::str::FromStr + ToString>(v: &str) -> Option<T> {
    v.parse::<T>().ok().filter(|n| n.to_string() == v)
}

impl Lenient for i64 {
    const EXPECTING: &'static str = "an integer (or, read tolerantly, its decimal text)";
    fn from_i64(v: i64) -> Option<Self> {
        Some(v)
    }
    fn from_u64(v: u64) -> Option<Self> {
        v.try_into().ok()
    }
    fn from_f64(_: f64) -> Option<Self> {
        None
    }
    fn from_text(v: &str) -> Option<Self> {
        exact_integer(v)
    }
}

impl Lenient for i32 {
    const EXPECTING: &'static str = "a 32-bit integer (or, read tolerantly, its decimal text)";
    fn from_i64(v: i64) -> Option<Self> {
        v.try_into().ok()
    }
    fn from_u64(v: u64) -> Option<Self> {
        v.try_into().ok()
    }
    fn from_f64(_: f64) -> Option<Self> {
        None
    }
    fn from_text(v: &str) -> Option<Self> {
        exact_integer(v)
    }
}

// Integers as floats: what serde's own `f64` and `f32` accept from JSON.
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
impl Lenient for f64 {
    const EXPECTING: &'static str = "a number (or, read tolerantly, its decimal text)";
    fn from_i64(v: i64) -> Option<Self> {
        Some(v as f64)
    }
    fn from_u64(v: u64) -> Option<Self> {
        Some(v as f64)
    }
    fn from_f64(v: f64) -> Option<Self> {
        Some(v)
    }
    fn from_text(v: &str) -> Option<Self> {
        v.parse::<f64>().ok().filter(|x| x.is_finite())
    }
}

#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
impl Lenient for f32 {
    const EXPECTING: &'static str = "a number (or, read tolerantly, its decimal text)";
    fn from_i64(v: i64) -> Option<Self> {
        Some(v as f32)
    }
    fn from_u64(v: u64) -> Option<Self> {
        Some(v as f32)
    }
    fn from_f64(v: f64) -> Option<Self> {
        Some(v as f32)
    }
    fn from_text(v: &str) -> Option<Self> {
        v.parse::<f32>().ok().filter(|x| x.is_finite())
    }
}

// @if tolerant_required
/// A required scalar, read tolerantly; `null` fails (there is no value to give).
pub(crate) fn lenient<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Lenient,
{
    read_lenient(deserializer)?.ok_or_else(|| {
        <D::Error as serde::de::Error>::invalid_type(serde::de::Unexpected::Unit, &"a value")
    })
}
// @end

// @if tolerant_optional
/// An optional scalar, read tolerantly; `null` is `None`.
pub(crate) fn lenient_option<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Lenient,
{
    read_lenient(deserializer)
}
// @end

// @if tolerant_default
/// A scalar with the spec's `default`, read tolerantly; `null` is `default()`.
pub(crate) fn lenient_or<'de, D, T>(deserializer: D, default: fn() -> T) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Lenient,
{
    Ok(read_lenient(deserializer)?.unwrap_or_else(default))
}
// @end

// @if tolerant_item
/// One item of a list of scalars, read tolerantly; `null` fails (a list of this type
/// has no room for it).
struct LenientItem<T>(T);

impl<'de, T: Lenient> serde::Deserialize<'de> for LenientItem<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read_lenient(deserializer)?.map(LenientItem).ok_or_else(|| {
            <D::Error as serde::de::Error>::invalid_type(serde::de::Unexpected::Unit, &T::EXPECTING)
        })
    }
}

// @end

// @if tolerant_list
/// A required list of scalars, each item read tolerantly (integer ids in a list the
/// spec declares of strings).
pub(crate) fn lenient_list<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Lenient,
{
    let items = <Vec<LenientItem<T>> as serde::Deserialize>::deserialize(deserializer)?;
    Ok(items.into_iter().map(|LenientItem(item)| item).collect())
}

// @end

// @if tolerant_list_option
/// An optional list of scalars, each item read tolerantly; `null` is `None`.
pub(crate) fn lenient_list_option<'de, D, T>(deserializer: D) -> Result<Option<Vec<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Lenient,
{
    let items = <Option<Vec<LenientItem<T>>> as serde::Deserialize>::deserialize(deserializer)?;
    Ok(items.map(|items| items.into_iter().map(|LenientItem(item)| item).collect()))
}
// @end

// @end

// @if date_time
/// A `format: date-time` value of an answer. serde's reader of chrono's type says only
/// "premature end of input" of a date-time without its UTC offset
/// (`2026-11-27T23:19:25.390423`, which real servers send); this one says what is
/// wrong, and reads such a value as UTC where the crate was generated with `--tolerant`
/// ([`crate::OFFSETLESS_DATE_TIME_AS_UTC`]). Anything else reads as serde's reader would.
struct DateTimeText(chrono::DateTime<chrono::FixedOffset>);

impl<'de> serde::Deserialize<'de> for DateTimeText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(deserializer)?;
        if let Ok(value) = text.parse::<chrono::DateTime<chrono::FixedOffset>>() {
            return Ok(DateTimeText(value));
        }
        // With `Z` appended it reads: the text is a date-time that lacks only its offset,
        // so quoting it shows no more than a date-time.
        match format!("{text}Z").parse::<chrono::DateTime<chrono::FixedOffset>>() {
            Ok(utc) if crate::OFFSETLESS_DATE_TIME_AS_UTC => Ok(DateTimeText(utc)),
            Ok(_) => Err(<D::Error as serde::de::Error>::custom(format_args!(
                "{DATE_TIME_REFUSED} (no UTC offset): `{text}`"
            ))),
            Err(_) => Err(<D::Error as serde::de::Error>::custom(DATE_TIME_REFUSED)),
        }
    }
}
// @end

// @if date_time_required
/// A required `format: date-time` field of an answer (see [`DateTimeText`]).
pub(crate) fn date_time<'de, D>(
    deserializer: D,
) -> Result<chrono::DateTime<chrono::FixedOffset>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Ok(<DateTimeText as serde::Deserialize>::deserialize(deserializer)?.0)
}
// @end

// @if date_time_optional
/// An optional `format: date-time` field of an answer; `null` is `None`.
pub(crate) fn date_time_option<'de, D>(
    deserializer: D,
) -> Result<Option<chrono::DateTime<chrono::FixedOffset>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Ok(<Option<DateTimeText> as serde::Deserialize>::deserialize(deserializer)?.map(|v| v.0))
}
// @end

// @if date_time_list
/// A required list of `format: date-time` values of an answer.
pub(crate) fn date_time_list<'de, D>(
    deserializer: D,
) -> Result<Vec<chrono::DateTime<chrono::FixedOffset>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let items = <Vec<DateTimeText> as serde::Deserialize>::deserialize(deserializer)?;
    Ok(items.into_iter().map(|v| v.0).collect())
}
// @end

// @if date_time_list_option
/// An optional list of `format: date-time` values of an answer; `null` is `None`.
pub(crate) fn date_time_list_option<'de, D>(
    deserializer: D,
) -> Result<Option<Vec<chrono::DateTime<chrono::FixedOffset>>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let items = <Option<Vec<DateTimeText>> as serde::Deserialize>::deserialize(deserializer)?;
    Ok(items.map(|items| items.into_iter().map(|v| v.0).collect()))
}
// @end

// @if tolerant_null
/// A value of any other type with the spec's `default`: `null` is `default()`.
pub(crate) fn null_or<'de, D, T>(deserializer: D, default: fn() -> T) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    Ok(<Option<T> as serde::Deserialize>::deserialize(deserializer)?.unwrap_or_else(default))
}
// @end
