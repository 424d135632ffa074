//! `--replay FILE`: re-sends the exchanges of an earlier `--record` run to another target
//! and reports, per exchange, where the two implementations answer differently (status,
//! content type, or body with secret fields masked and array order ignored).

use std::collections::HashMap;
use std::path::Path;

use reqwest::Url;
use serde_json::Value;

use crate::auth::OAuth;
use crate::error::HarnessError;
use crate::exchange::Exchange;
use crate::outcome::{CheckResult, Got, Verdict};
use crate::redact::Secrets;
use crate::registry::Check;
use crate::request::curl_line;
use crate::runner::recorded_text;
use crate::spec::{Level, Spec};
use crate::transport::{Request, Transport};

/// Reads a record file and checks each entry (see [`validate`]).
pub fn load(path: &Path, spec: &Spec) -> Result<Vec<Exchange>, HarnessError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| HarnessError::Config(format!("cannot read {}: {e}", path.display())))?;
    let exchanges: Vec<Exchange> = serde_json::from_str(&text).map_err(|e| {
        HarnessError::Config(format!("{} is not a record file: {e}", path.display()))
    })?;
    // What the recording run sent for itself (a pre-flight, a probe of the target's
    // presence, a re-check of its credentials, an OAuth step, a throwaway login) is in the
    // record so that it accounts for every request; a replay sends its own where it needs
    // them, never these. Entries keep their numbers in the file.
    let own = |e: &Exchange| e.harness.is_some() || e.case.starts_with(crate::runner::PROBE_PREFIX);
    for (i, ex) in exchanges.iter().enumerate().filter(|(_, e)| !own(e)) {
        validate(ex, spec).map_err(|(field, why)| {
            HarnessError::Config(format!(
                "record file {}: entry {i}: field `{field}`: {why}",
                path.display()
            ))
        })?;
    }
    Ok(exchanges.into_iter().filter(|e| !own(e)).collect())
}

/// What `--record` writes and a replay may send: an HTTP method, a path relative to the
/// base URL, one of the spec's operations, and header values that can be sent. Gives the
/// offending field and why.
fn validate(ex: &Exchange, spec: &Spec) -> Result<(), (&'static str, String)> {
    if reqwest::Method::from_bytes(ex.method.as_bytes()).is_err() {
        return Err(("method", format!("{:?} is not an HTTP method", ex.method)));
    }
    if !ex.path.starts_with('/') || ex.path.starts_with("//") {
        return Err((
            "path",
            format!(
                "{:?} is not a path relative to the base URL (it must start with a single '/')",
                ex.path
            ),
        ));
    }
    if Url::parse(&format!("http://x{}", ex.path)).is_err() {
        return Err(("path", format!("{:?} is not a valid URL path", ex.path)));
    }
    if spec.operation(&ex.operation).is_none() {
        let known: Vec<&str> = spec.operations.iter().map(|o| o.id.as_str()).collect();
        return Err((
            "operation",
            format!(
                "{:?} is no operation of the spec; known: {}",
                ex.operation,
                known.join(", ")
            ),
        ));
    }
    if let Some(a) = &ex.auth
        && a != "token"
        && reqwest::header::HeaderValue::from_str(a).is_err()
    {
        return Err((
            "auth",
            "cannot be sent as an Authorization header (line break or control character)".into(),
        ));
    }
    if let Some((ct, _)) = &ex.body
        && reqwest::header::HeaderValue::from_str(ct).is_err()
    {
        return Err((
            "body",
            format!("content type {ct:?} cannot be sent as a header"),
        ));
    }
    Ok(())
}

fn contains_redacted(v: &Value) -> bool {
    match v {
        Value::String(s) => {
            s.contains("<redacted>") || s.contains("$TOKEN") || s.contains("$CLIENT_SECRET")
        }
        Value::Array(a) => a.iter().any(contains_redacted),
        Value::Object(m) => m.values().any(contains_redacted),
        _ => false,
    }
}

/// Arrays sorted by their text, since order is not part of the interface.
fn canonical(v: &Value) -> Value {
    match v {
        Value::Array(a) => {
            let mut items: Vec<Value> = a.iter().map(canonical).collect();
            items.sort_by_key(|x| x.to_string());
            Value::Array(items)
        }
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, x)| (k.clone(), canonical(x))).collect())
        }
        other => other.clone(),
    }
}

/// Placeholders a record holds instead of secret values.
const PLACEHOLDERS: &[&str] = &["<redacted>", "$TOKEN", "$CLIENT_SECRET", "$CODE"];

fn has_placeholder(s: &str) -> bool {
    PLACEHOLDERS.iter().any(|p| s.contains(p))
}

/// What a replayed request's secrets are replaced with: this run's credentials, one
/// fresh authorization code per recorded case (a case that sends its code twice sends the
/// same code twice here too), and the refresh token this target issued earlier in the
/// same case (records never hold the recorded target's).
struct Fill<'a> {
    token: Option<&'a str>,
    client_secret: Option<&'a str>,
    code: Option<String>,
    refresh_token: Option<&'a str>,
}

impl Fill<'_> {
    /// The value for field `name` recorded as `v`; `None` when it stays unknown.
    fn value(&self, name: Option<&str>, v: &str) -> String {
        if matches!(v, "<redacted>" | "$CODE" | "$CLIENT_SECRET") {
            let fresh = match (name, v) {
                (Some("client_secret"), _) | (_, "$CLIENT_SECRET") => self.client_secret,
                (Some("refresh_token"), "<redacted>") => self.refresh_token,
                // A code sent again later in its case (`oauth.last_code`) is recorded
                // redacted; it is the case's code.
                (Some("code"), "<redacted>") => self.code.as_deref(),
                (_, "$CODE") => self.code.as_deref(),
                _ => None,
            };
            if let Some(f) = fresh {
                return f.to_string();
            }
        }
        let mut out = v.to_string();
        if let Some(t) = self.token {
            out = out.replace("$TOKEN", t);
        }
        if let Some(c) = self.client_secret {
            out = out.replace("$CLIENT_SECRET", c);
        }
        if let Some(c) = &self.code {
            out = out.replace("$CODE", c);
        }
        out
    }

    fn json(&self, name: Option<&str>, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.value(name, s)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.json(None, x)).collect()),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, x)| (k.clone(), self.json(Some(k), x)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// The body bytes to send, or `None` when a secret could not be filled in.
    fn body(&self, content_type: &str, v: &Value) -> Option<Vec<u8>> {
        let bytes = match v {
            Value::String(s) if content_type.starts_with("application/x-www-form-urlencoded") => {
                let pairs: Vec<(String, String)> = form_urlencoded_pairs(s)
                    .into_iter()
                    .map(|(k, x)| {
                        let filled = self.value(Some(&k), &x);
                        (k, filled)
                    })
                    .collect();
                if pairs.iter().any(|(_, x)| has_placeholder(x)) {
                    return None;
                }
                let mut u = Url::parse("http://x/").expect("static URL");
                u.query_pairs_mut().extend_pairs(pairs);
                u.query().unwrap_or("").as_bytes().to_vec()
            }
            Value::String(s) if !content_type.contains("json") => {
                let filled = self.value(None, s);
                if has_placeholder(&filled) {
                    return None;
                }
                filled.into_bytes()
            }
            Value::String(s) if serde_json::from_str::<Value>(s).is_err() => {
                let filled = self.value(None, s);
                if has_placeholder(&filled) {
                    return None;
                }
                filled.into_bytes()
            }
            other => {
                let filled = self.json(None, other);
                if contains_redacted(&filled) {
                    return None;
                }
                if content_type.contains("json") {
                    serde_json::to_vec(&filled).unwrap_or_default()
                } else {
                    // A form or multipart body is recorded as its fields: encoded again
                    // the way the run encoded it (same boundary).
                    crate::encode::body(content_type, &filled).1
                }
            }
        };
        Some(bytes)
    }
}

fn form_urlencoded_pairs(text: &str) -> Vec<(String, String)> {
    Url::parse(&format!("http://x/?{text}"))
        .map(|u| {
            u.query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        })
        .unwrap_or_default()
}

fn needs_code(ct: &str, v: &Value) -> bool {
    match v {
        Value::String(s) if ct.starts_with("application/x-www-form-urlencoded") => {
            form_urlencoded_pairs(s)
                .iter()
                .any(|(_, x)| x.contains("$CODE"))
        }
        Value::String(s) => s.contains("$CODE"),
        Value::Object(m) => m.values().any(|x| needs_code(ct, x)),
        Value::Array(a) => a.iter().any(|x| needs_code(ct, x)),
        _ => false,
    }
}

/// The JSON Pointer of the first value where `a` and `b` differ (both canonical).
fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let here = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                match y.get(k) {
                    None => return Some(here),
                    Some(w) => {
                        if let Some(d) = first_difference(v, w, &here) {
                            return Some(d);
                        }
                    }
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(v, w, &format!("{at}/{i}")) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| format!("{at}/{}", x.len().min(y.len())))
        }
        (x, y) if x == y => None,
        _ => Some(at.to_string()),
    }
}

fn shown(v: Option<&Value>) -> String {
    v.map_or("absent".into(), excerpt)
}

/// Re-sends every exchange and compares.
pub async fn replay(
    exchanges: &[Exchange],
    base_url: &str,
    token: Option<&str>,
    transport: &Transport,
    secrets: &Secrets,
    oauth: &OAuth,
) -> Vec<CheckResult> {
    let mut out = Vec::new();
    let mut codes: HashMap<String, Option<String>> = HashMap::new();
    // The latest refresh token this target issued, per case.
    let mut refresh_tokens: HashMap<String, String> = HashMap::new();
    for (i, ex) in exchanges.iter().enumerate() {
        let mut result = CheckResult {
            case_index: i,
            step: ex.step,
            case: ex.case.clone(),
            operation: ex.operation.clone(),
            check: Check::ReplayConsistency.into(),
            level: Level::Must,
            verdict: Verdict::Passed,
            message: String::new(),
            expected: format!(
                "status {} and the same body as the recorded target",
                ex.status.map_or("none".into(), |s| s.to_string())
            ),
            got: None,
            curl: None,
            missing_input: false,
            elapsed: None,
        };
        let mut fill = Fill {
            token,
            client_secret: oauth.client.as_ref().map(|c| c.client_secret.as_str()),
            code: None,
            refresh_token: refresh_tokens.get(&ex.case).map(String::as_str),
        };
        if let Some((ct, b)) = &ex.body
            && needs_code(ct, b)
            && !codes.contains_key(&ex.case)
        {
            let code = oauth.fresh_code(transport).await.ok();
            codes.insert(ex.case.clone(), code);
        }
        fill.code = codes.get(&ex.case).cloned().flatten();
        let (req, shown_auth) = match recorded_request(ex, base_url, token, secrets, &fill) {
            Ok(made) => made,
            Err(why) => {
                result.verdict = Verdict::Skipped;
                result.message = why;
                out.push(result);
                continue;
            }
        };
        let mut curl = curl_line(&req, shown_auth.as_deref(), None, secrets);
        if let Some(c) = &fill.code {
            curl = curl.replace(c.as_str(), "$CODE");
        }
        let answer = transport.send(&req).await;
        if let Ok(resp) = &answer
            && let Some(issued) = resp
                .json
                .as_ref()
                .and_then(|j| j.get("refresh_token"))
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
        {
            refresh_tokens.insert(ex.case.clone(), issued.to_string());
        }
        let diff = difference(ex, answer, secrets, &mut result);
        if let Some(d) = diff {
            result.verdict = Verdict::Failed;
            result.message = d;
            result.curl = Some(curl);
        }
        out.push(result);
    }
    out.into_iter().map(|r| secrets.redact_result(r)).collect()
}

/// The recorded exchange `ex` as a request to `base_url`, with this run's credentials
/// and the recorded secrets filled in, and the `Authorization` line its curl shows; or
/// why it cannot be sent again (the exchange is then skipped).
fn recorded_request(
    ex: &Exchange,
    base_url: &str,
    token: Option<&str>,
    secrets: &Secrets,
    fill: &Fill<'_>,
) -> Result<(Request, Option<String>), String> {
    let url = match Url::parse(&format!("{}{}", base_url.trim_end_matches('/'), ex.path)) {
        // Only a path below the base URL is sent (`load` checked this too).
        Ok(_) if !ex.path.starts_with('/') || ex.path.starts_with("//") => {
            return Err(format!(
                "bad recorded path {}: not below the base URL",
                ex.path
            ));
        }
        Ok(u) => u,
        Err(e) => {
            return Err(format!("bad recorded path {}: {e}", ex.path));
        }
    };
    let mut headers = Vec::new();
    let mut shown_auth = None;
    match (ex.auth.as_deref(), token) {
        // Sent with a throwaway session by the recording run: a replay never sends a
        // session-ending request with its own credentials.
        (Some(crate::runner::SESSION_AUTH), _) => {
            return Err("the exchange ended or changed a session, sent with a throwaway account's session: a replay does not send it with its own credentials".into());
        }
        (Some("token"), Some(t)) => {
            headers.push(("authorization".to_string(), format!("Bearer {t}")));
            shown_auth = Some("Authorization: Bearer $TOKEN".to_string());
        }
        (Some("token"), None) => {
            return Err("the exchange needs a bearer token: give --token".into());
        }
        (Some(literal), t) => {
            headers.push((
                "authorization".to_string(),
                t.map_or(literal.to_string(), |t| literal.replace("$TOKEN", t)),
            ));
            shown_auth = Some(format!("Authorization: {literal}"));
        }
        (None, _) => {}
    }
    // The recorded header parameters (and cookies) go again, their secrets filled in
    // as the body's are; the body's media type comes with the body, and credentials
    // from this run's own (above).
    let mut unfilled = false;
    for (name, value) in &ex.headers {
        // The headers this run's own `--header`s set go as this run gives them.
        let own = secrets
            .headers()
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case(name));
        if own
            || ["authorization", "content-type", "content-length", "host"]
                .iter()
                .any(|h| name.eq_ignore_ascii_case(h))
        {
            continue;
        }
        let value = fill.value(Some(name), value);
        unfilled |= has_placeholder(&value);
        headers.push((name.clone(), value));
    }
    if unfilled {
        return Err(
            "a recorded header carried secrets this run cannot fill in (records never hold them)"
                .into(),
        );
    }
    let body = match &ex.body {
        None => None,
        Some((ct, v)) => match fill.body(ct, v) {
            Some(bytes) => Some((ct.clone(), bytes)),
            None => {
                return Err("the recorded request carried secrets this run cannot fill in (records never hold them)".into());
            }
        },
    };
    // `load` checked the method; an exchange built otherwise is skipped rather than
    // sent with another method.
    let Ok(method) = reqwest::Method::from_bytes(ex.method.as_bytes()) else {
        return Err(format!("bad recorded method {:?}", ex.method));
    };
    Ok((
        Request {
            method,
            url,
            headers,
            body,
        },
        shown_auth,
    ))
}

/// How this run's `answer` differs from the recorded exchange `ex` (status, media type,
/// then the first differing place in the body), noting what came back in `result`.
fn difference(
    ex: &Exchange,
    answer: Result<crate::transport::Response, crate::transport::TransportError>,
    secrets: &Secrets,
    result: &mut CheckResult,
) -> Option<String> {
    match answer {
        Err(e) => {
            result.got = Some(Got {
                status: None,
                headers: Vec::new(),
                body: String::new(),
                error: Some(e.to_string()),
            });
            Some(format!("no answer: {e}"))
        }
        Ok(resp) => {
            let now_body = resp
                .json
                .as_ref()
                .map(|j| secrets.redact_json(j))
                .unwrap_or_else(|| {
                    recorded_text(secrets, resp.media_type().as_deref(), &resp.body)
                });
            result.got = Some(Got {
                status: Some(resp.status),
                headers: Vec::new(),
                body: now_body.to_string().chars().take(600).collect(),
                error: None,
            });
            if Some(resp.status) != ex.status {
                Some(format!(
                    "status {} here, {} recorded",
                    resp.status,
                    ex.status.map_or("none".into(), |s| s.to_string())
                ))
            } else if resp.media_type() != ex.content_type {
                Some(format!(
                    "content type {:?} here, {:?} recorded",
                    resp.media_type(),
                    ex.content_type
                ))
            } else {
                let (now, then) = (canonical(&now_body), canonical(&ex.response));
                first_difference(&now, &then, "").map(|at| {
                    format!(
                        "body differs at {}: {} here, {} recorded",
                        if at.is_empty() {
                            "the root (\"\")"
                        } else {
                            at.as_str()
                        },
                        shown(now.pointer(&at)),
                        shown(then.pointer(&at))
                    )
                })
            }
        }
    }
}

fn excerpt(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 200 {
        format!("{}…", &s[..s.floor_char_boundary(200)])
    } else {
        s
    }
}
