//! One JSON line per exchange: time, method, path, query, the request's headers, the
//! operation, status and duration. Credentials never reach the line: `Authorization`,
//! `Proxy-Authorization` and `Cookie`, and every header and query parameter a security
//! scheme of the spec names, show as `<redacted>`.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::HeaderMap;
use serde_json::{Map, Value, json};

use crate::api::Secrets;
use crate::params::query_pairs;

/// What a redacted value shows.
pub(crate) const REDACTED: &str = "<redacted>";

/// Where lines go, shared by every request.
#[derive(Clone)]
pub(crate) struct Log {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Log {
    pub fn new(out: Box<dyn Write + Send>) -> Log {
        Log {
            out: Arc::new(Mutex::new(out)),
        }
    }

    /// Writes one exchange's line (a failed write is dropped: logging never fails a
    /// request).
    pub fn exchange(&self, line: &Exchange<'_>, secrets: &Secrets) {
        let text = line.to_json(secrets).to_string();
        let mut out = self
            .out
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
}

/// One exchange, as logged.
pub(crate) struct Exchange<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub headers: &'a HeaderMap,
    pub operation: Option<&'a str>,
    pub status: u16,
    pub duration: Duration,
}

impl Exchange<'_> {
    fn to_json(&self, secrets: &Secrets) -> Value {
        let mut headers = Map::new();
        for (name, value) in self.headers {
            let n = name.as_str();
            let shown = if secrets.headers.iter().any(|s| s == n) {
                REDACTED.to_owned()
            } else {
                String::from_utf8_lossy(value.as_bytes()).into_owned()
            };
            headers.insert(n.to_owned(), Value::String(shown));
        }
        let query = self.query.map(|q| {
            query_pairs(q)
                .into_iter()
                .map(|(k, v)| {
                    let v = if secrets.query.contains(&k) {
                        REDACTED.to_owned()
                    } else {
                        v
                    };
                    let k = spec_model::encode::percent_encode(&k);
                    format!("{k}={v}")
                })
                .collect::<Vec<_>>()
                .join("&")
        });
        let time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        json!({
            "time_ms": time,
            "method": self.method,
            "path": self.path,
            "query": query,
            "headers": headers,
            "operation": self.operation,
            "status": self.status,
            "duration_ms": self.duration.as_secs_f64() * 1000.0,
        })
    }
}
