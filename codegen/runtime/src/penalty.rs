//! Penalty answers (`x-penalty`): a success whose body asks the client to wait and send
//! the same request again with a ticket, or (with a captcha) asks a person to log in.
//!
//! Copied into a generated crate only when some operation of its spec declares
//! `x-penalty`; the `Error` variants it returns are copied with it.

use crate::error::{Answer, Error};

/// Wire names of a penalty answer's fields (`x-penalty`).
pub(crate) struct PenaltyShape {
    /// Answer field holding the ticket.
    pub(crate) ticket: &'static str,
    /// Answer field holding the seconds to wait.
    pub(crate) wait: &'static str,
    /// Answer field that is `true` when a person must log in.
    pub(crate) captcha: Option<&'static str>,
    /// Request body field the ticket goes back in.
    pub(crate) resend: &'static str,
}

impl Answer {
    /// The answer itself, unless it is a success whose body is a penalty
    /// (`Error::Penalty`) or asks for a person to log in
    /// (`Error::LoginRequired`).
    #[allow(clippy::result_large_err)]
    pub(crate) fn unless_penalty<E>(self, shape: &PenaltyShape) -> Result<Self, Error<E>> {
        let mentions = |name: &str| {
            let quoted = format!("\"{name}\"");
            self.body
                .windows(quoted.len())
                .any(|w| w == quoted.as_bytes())
        };
        // Most answers are no penalty: look for the names before parsing.
        if !self.status.is_success()
            || !(mentions(shape.ticket) || shape.captcha.is_some_and(mentions))
        {
            return Ok(self);
        }
        let Ok(serde_json::Value::Object(fields)) = serde_json::from_slice(&self.body) else {
            return Ok(self);
        };
        // @if captcha
        if shape
            .captcha
            .and_then(|c| fields.get(c))
            .and_then(serde_json::Value::as_bool)
            == Some(true)
        {
            return Err(Error::LoginRequired {
                status: self.status,
                headers: self.headers,
            });
        }
        // @end
        let Some(ticket) = fields
            .get(shape.ticket)
            .and_then(serde_json::Value::as_str)
            .filter(|t| !t.is_empty())
        else {
            return Ok(self);
        };
        let wait = fields
            .get(shape.wait)
            .and_then(serde_json::Value::as_f64)
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(std::time::Duration::from_secs_f64)
            .unwrap_or_default();
        Err(Error::Penalty {
            status: self.status,
            headers: self.headers,
            wait,
            ticket: ticket.to_owned(),
            resend: shape.resend,
        })
    }
}

/// Puts `ticket` into the `field` of the request's body for a penalty's resend: a
/// JSON object gains the field, a form gains the pair. `false` when the body is
/// neither (or a stream), so the request cannot carry it.
pub(crate) fn with_ticket(request: &mut reqwest::Request, field: &str, ticket: &str) -> bool {
    let form = request
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    let Some(bytes) = request.body().and_then(reqwest::Body::as_bytes) else {
        return false;
    };
    let body = if form {
        let mut body = bytes.to_vec();
        if !body.is_empty() {
            body.push(b'&');
        }
        let pair = format!(
            "{}={}",
            crate::encode::encode_path_segment(field),
            crate::encode::encode_path_segment(ticket)
        );
        body.extend_from_slice(pair.as_bytes());
        body
    } else {
        let Ok(serde_json::Value::Object(mut object)) = serde_json::from_slice(bytes) else {
            return false;
        };
        object.insert(
            field.to_owned(),
            serde_json::Value::String(ticket.to_owned()),
        );
        match serde_json::to_vec(&object) {
            Ok(body) => body,
            Err(_) => return false,
        }
    };
    request
        .headers_mut()
        .remove(reqwest::header::CONTENT_LENGTH);
    *request.body_mut() = Some(reqwest::Body::from(body));
    true
}
