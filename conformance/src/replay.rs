//! `--replay FILE`: re-sends the exchanges of an earlier `--record` run to another target
//! and reports, per exchange, where the two implementations answer differently (status,
//! content type, or body with secret fields masked and array order ignored).

use std::path::Path;

use reqwest::Url;
use serde_json::Value;

use crate::error::HarnessError;
use crate::outcome::{CheckResult, Got, Verdict};
use crate::request::Secrets;
use crate::runner::Exchange;
use crate::spec::Level;
use crate::transport::{Request, Transport};

/// The check name differences are reported under.
pub const CHECK: &str = "replay_consistency";

/// Reads a record file.
pub fn load(path: &Path) -> Result<Vec<Exchange>, HarnessError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| HarnessError::Config(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| HarnessError::Config(format!("{} is not a record file: {e}", path.display())))
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

/// Re-sends every exchange and compares.
pub async fn replay(
    exchanges: &[Exchange],
    base_url: &str,
    token: Option<&str>,
    transport: &Transport,
    secrets: &Secrets,
) -> Vec<CheckResult> {
    let mut out = Vec::new();
    for (i, ex) in exchanges.iter().enumerate() {
        let mut result = CheckResult {
            case_index: i,
            step: ex.step,
            case: ex.case.clone(),
            operation: ex.operation.clone(),
            check: CHECK.into(),
            level: Level::Must,
            verdict: Verdict::Passed,
            message: String::new(),
            expected: format!(
                "status {} and the same body as the recorded target",
                ex.status.map_or("none".into(), |s| s.to_string())
            ),
            got: None,
            curl: None,
        };
        if ex.body.as_ref().is_some_and(|(_, b)| contains_redacted(b)) {
            result.verdict = Verdict::Skipped;
            result.message =
                "the recorded request carried secrets, which records never hold".into();
            out.push(result);
            continue;
        }
        let url = match Url::parse(&format!("{}{}", base_url.trim_end_matches('/'), ex.path)) {
            Ok(u) => u,
            Err(e) => {
                result.verdict = Verdict::Skipped;
                result.message = format!("bad recorded path {}: {e}", ex.path);
                out.push(result);
                continue;
            }
        };
        let mut headers = Vec::new();
        match (ex.auth.as_deref(), token) {
            (Some("token"), Some(t)) => {
                headers.push(("authorization".to_string(), format!("Bearer {t}")))
            }
            (Some("token"), None) => {
                result.verdict = Verdict::Skipped;
                result.message = "the exchange needs a bearer token: give --token".into();
                out.push(result);
                continue;
            }
            (Some(literal), t) => headers.push((
                "authorization".to_string(),
                t.map_or(literal.to_string(), |t| literal.replace("$TOKEN", t)),
            )),
            (None, _) => {}
        }
        let body = ex.body.as_ref().map(|(ct, v)| {
            let bytes = match v {
                Value::String(s) if !ct.contains("json") => s.clone().into_bytes(),
                Value::String(s) if serde_json::from_str::<Value>(s).is_err() => {
                    s.clone().into_bytes()
                }
                other => serde_json::to_vec(other).unwrap_or_default(),
            };
            (ct.clone(), bytes)
        });
        let method =
            reqwest::Method::from_bytes(ex.method.as_bytes()).unwrap_or(reqwest::Method::GET);
        let req = Request {
            method,
            url,
            headers,
            body,
        };
        let diff = match transport.send(&req).await {
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
                        Value::String(secrets.redact(&String::from_utf8_lossy(
                            &resp.body[..resp.body.len().min(64 * 1024)],
                        )))
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
                } else if canonical(&now_body) != canonical(&ex.response) {
                    Some(format!(
                        "body differs: {} here, {} recorded",
                        excerpt(&now_body),
                        excerpt(&ex.response)
                    ))
                } else {
                    None
                }
            }
        };
        if let Some(d) = diff {
            result.verdict = Verdict::Failed;
            result.message = d;
        }
        out.push(result);
    }
    out
}

fn excerpt(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 200 {
        format!("{}…", &s[..s.floor_char_boundary(200)])
    } else {
        s
    }
}
