//! Recording: the exchange `--record` writes for each step, with every secret redacted
//! (credentials, `x-secret` fields, fresh codes) and bodies bounded for the report.

use serde_json::Value;

use super::Context;
use super::codes::{LAST_CODE_VAR, needs_code};
use crate::case::{BodyTemplate, Case, Step};
pub use crate::exchange::Exchange;
use crate::redact::Secrets;
use crate::request::Built;
use crate::transport::{Response, TransportError};
use crate::vars::Vars;

/// The most bytes of a non-JSON answer body a record file (or a replay's report) keeps:
/// a cap on report size, not the spec's request-body limit (`x-max-body`).
pub const RECORDED_BODY_CAP: usize = 64 * 1024;

/// A non-JSON body as recorded: its first [`RECORDED_BODY_CAP`] bytes, secrets redacted;
/// a body that is not text ([`crate::binary`]) as its media type, size and first bytes,
/// so that a record (and a replay's report) never holds raw binary.
pub fn recorded_text(secrets: &Secrets, media_type: Option<&str>, body: &[u8]) -> Value {
    if let Some(binary) = crate::binary::shown(media_type, body, RECORDED_BODY_CAP, secrets) {
        return Value::String(binary);
    }
    Value::String(secrets.redact(&String::from_utf8_lossy(
        &body[..body.len().min(RECORDED_BODY_CAP)],
    )))
}

/// A recorded JSON body: an `x-secret` field keeps a value the case spelled literally (it
/// is no secret, and a replay must send it as it is), the step's fresh authorization code
/// becomes `$CODE` (a replay fetches its own), and any other secret `<redacted>`.
fn record_json(secrets: &Secrets, v: &Value, tpl: Option<&Value>, code: Option<&str>) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let t = tpl.and_then(|t| t.get(k));
                    let out = match x {
                        Value::String(s) if code == Some(s.as_str()) => "$CODE".into(),
                        Value::String(s) if secrets.is_secret_field(k) && !s.is_empty() => {
                            match t {
                                Some(Value::String(lit)) if !lit.contains("${") => {
                                    Value::String(s.clone())
                                }
                                _ => "<redacted>".into(),
                            }
                        }
                        other => record_json(secrets, other, t, code),
                    };
                    (k.clone(), out)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| record_json(secrets, x, None, code))
                .collect(),
        ),
        Value::String(s) if code == Some(s.as_str()) => "$CODE".into(),
        Value::String(s) => Value::String(secrets.redact(s)),
        other => other.clone(),
    }
}

/// A recorded form body, by the same rules as [`record_json`].
fn record_form(secrets: &Secrets, text: &str, tpl: &str, code: Option<&str>) -> String {
    let pairs_of = |t: &str| -> Vec<(String, String)> {
        reqwest::Url::parse(&format!("http://x/?{t}"))
            .map(|u| {
                u.query_pairs()
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let literal: Vec<(String, String)> = pairs_of(tpl);
    let pairs: Vec<(String, String)> = pairs_of(text)
        .into_iter()
        .map(|(k, v)| {
            let out = if code == Some(v.as_str()) {
                "$CODE".to_string()
            } else if secrets.is_secret_field(&k)
                && !v.is_empty()
                && !literal
                    .iter()
                    .any(|(lk, lv)| *lk == k && !lv.contains("${"))
            {
                "<redacted>".to_string()
            } else {
                v
            };
            (k, out)
        })
        .collect();
    let mut u = reqwest::Url::parse("http://x/").expect("static URL");
    u.query_pairs_mut().extend_pairs(pairs);
    u.query().unwrap_or("").to_string()
}

pub(super) fn exchange_of(
    ctx: &Context,
    case: &Case,
    step_no: usize,
    step: &Step,
    built: &Built,
    sent: &Result<Response, TransportError>,
    vars: &Vars,
) -> Exchange {
    let url = built.request.url.as_str();
    let path = url
        .strip_prefix(ctx.base_url.trim_end_matches('/'))
        .unwrap_or(url)
        .to_string();
    let auth = built
        .request
        .headers
        .iter()
        .find(|(k, _)| k == "authorization")
        .map(|(_, v)| {
            if ctx
                .token
                .as_deref()
                .is_some_and(|t| v == &format!("Bearer {t}"))
            {
                "token".to_string()
            } else {
                // The token as the header's credential, exactly; anything else is free text.
                match v.split_once(' ') {
                    Some((scheme, cred)) if ctx.token.as_deref() == Some(cred) => {
                        format!("{scheme} $TOKEN")
                    }
                    _ => ctx.secrets.redact(v),
                }
            }
        });
    let code = match (needs_code(&step.request), vars.get(LAST_CODE_VAR)) {
        (true, Some(Value::String(c))) => Some(c.as_str()),
        _ => None,
    };
    let body = built.request.body.as_ref().map(|(ct, bytes)| {
        let v = match (&built.body, &step.request.body) {
            (Some(j), Some(BodyTemplate::Json(t))) => record_json(&ctx.secrets, j, Some(t), code),
            (Some(j), _) => ctx.secrets.redact_json(j),
            (None, Some(BodyTemplate::Raw { text, .. }))
                if ct.starts_with("application/x-www-form-urlencoded") =>
            {
                Value::String(ctx.secrets.redact_in_url(&record_form(
                    &ctx.secrets,
                    &String::from_utf8_lossy(bytes),
                    text,
                    code,
                )))
            }
            (None, _) => {
                let text = String::from_utf8_lossy(bytes);
                let text = code.map_or(text.to_string(), |c| text.replace(c, "$CODE"));
                Value::String(ctx.secrets.redact_text(ct, &text))
            }
        };
        (ct.clone(), v)
    });
    let (status, error, content_type, response) = match sent {
        Ok(r) => (
            Some(r.status),
            None,
            r.media_type(),
            match &r.json {
                Some(j) => ctx.secrets.redact_json(j),
                None => recorded_text(&ctx.secrets, r.media_type().as_deref(), &r.body),
            },
        ),
        Err(e) => (None, Some(e.to_string()), None, Value::Null),
    };
    let headers = built
        .request
        .headers
        .iter()
        .filter(|(k, _)| !k.eq_ignore_ascii_case("authorization"))
        .map(|(k, v)| (k.clone(), ctx.secrets.redact(v)))
        .collect();
    Exchange {
        case: case.id.clone(),
        operation: step.request.op.clone(),
        step: step_no,
        method: built.request.method.to_string(),
        path,
        auth,
        headers,
        body,
        status,
        error,
        content_type,
        response,
        location: sent
            .as_ref()
            .ok()
            .and_then(|r| r.header("location"))
            .map(|l| ctx.secrets.redact_in_url(l)),
        resent: sent.as_ref().map_or(0, |r| r.retries),
        harness: None,
        case_index: 0,
        elapsed: sent.as_ref().ok().map(|r| r.elapsed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn secrets() -> Secrets {
        let mut s = Secrets::new(["client_secret".to_string(), "code".to_string()].into());
        s.add("tok-123", "$TOKEN");
        s
    }

    #[test]
    fn json_bodies_keep_literals_mask_codes_and_redact_secrets() {
        let sent = json!({
            "client_secret": "from-a-variable",
            "code": "fresh-code",
            "nested": [{"client_secret": "deep"}],
            "note": "bearer tok-123",
            "literal": {"client_secret": "spelled-out"}
        });
        let tpl = json!({
            "client_secret": "${oauth.client_secret}",
            "code": "${oauth.code}",
            "literal": {"client_secret": "spelled-out"}
        });
        let got = record_json(&secrets(), &sent, Some(&tpl), Some("fresh-code"));
        assert_eq!(got["client_secret"], "<redacted>");
        assert_eq!(got["code"], "$CODE");
        assert_eq!(got["nested"][0]["client_secret"], "<redacted>");
        assert_eq!(got["note"], "bearer $TOKEN");
        assert_eq!(
            got["literal"]["client_secret"], "spelled-out",
            "a value the case spelled is no secret, and a replay must send it"
        );
    }

    #[test]
    fn form_bodies_follow_the_same_rules() {
        let got = record_form(
            &secrets(),
            "client_secret=s3cret&code=fresh-code&grant_type=authorization_code",
            "client_secret=${oauth.client_secret}&code=${oauth.code}&grant_type=authorization_code",
            Some("fresh-code"),
        );
        assert_eq!(
            got,
            "client_secret=%3Credacted%3E&code=%24CODE&grant_type=authorization_code"
        );
    }

    #[test]
    fn text_bodies_are_cut_at_the_report_cap_and_redacted() {
        let mut body = b"tok-123 ".to_vec();
        body.extend(std::iter::repeat_n(b'x', RECORDED_BODY_CAP * 2));
        let Value::String(text) = recorded_text(&secrets(), Some("text/plain"), &body) else {
            panic!("a text body records as a string");
        };
        assert!(text.starts_with("$TOKEN "), "{}", &text[..20]);
        assert_eq!(
            text.len(),
            RECORDED_BODY_CAP - "tok-123".len() + "$TOKEN".len()
        );
    }
}
