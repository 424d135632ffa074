//! Whether the target is there at all. A base URL where nothing listens, a host name that
//! does not resolve or a TLS handshake that fails would otherwise fail every case with the
//! same transport error and blame the target for each. So before anything else is sent,
//! one `GET` of the base URL: any HTTP answer (a 404 or a 401 as well) means the target is
//! there; no connection, no HTTP answer, or none within the timeout is a configuration
//! error naming the URL and the cause. During the run, a request that could not connect,
//! or whose connection broke before its answer was read, sends that probe again: if it
//! fails too, the target went away, no further request is sent (each later one is skipped,
//! naming why), and the run ends incomplete (exit 3, unless something failed before) with
//! the last request sent before it was lost. The probes are exchanges of the run like any
//! other, so `--record` holds them.

use std::sync::Mutex;

use reqwest::Url;

use super::Context;
use crate::error::HarnessError;
use crate::exchange::Exchange;
use crate::redact::Secrets;
use crate::transport::{Request, Transport, TransportError};

/// How the case ids of the probes begin: they belong to no operation of the spec.
pub const PROBE_PREFIX: &str = "preflight/";
/// The case id of the probe sent before anything else.
pub const PREFLIGHT_CASE: &str = "preflight/reachable";
/// The case id of a probe sent again after a request could not connect.
pub const RECHECK_CASE: &str = "preflight/still-reachable";

/// What the run knows of the target's presence while it runs.
#[derive(Default)]
pub struct Watch {
    /// Why no more requests are sent, once the target went away.
    gone: Mutex<Option<String>>,
    /// Every probe sent, in the order sent.
    probes: Mutex<Vec<Exchange>>,
    /// The last request sent before the target went away (operation, method and path).
    last: Mutex<Option<String>>,
    /// One probe at a time: workers whose requests failed together wait for the one
    /// probe's verdict instead of each sending their own.
    probing: tokio::sync::Mutex<()>,
}

impl Watch {
    /// Why no more requests are sent, once the target went away.
    pub fn gone(&self) -> Option<String> {
        self.gone.lock().ok().and_then(|g| g.clone())
    }

    /// What a request not sent because the target went away says: short, the summary
    /// tells the whole story once.
    pub fn not_sent(&self) -> Option<String> {
        self.gone().map(|_| {
            "not sent: the target had gone away earlier in the run (TARGET UNREACHABLE, see the summary)".to_string()
        })
    }

    /// Notes a request about to be sent, the one a loss will name if it is the last.
    pub fn sending(&self, what: String) {
        if let Ok(mut last) = self.last.lock() {
            *last = Some(what);
        }
    }

    /// Notes a probe sent outside the run (the pre-flight one), so it is reported.
    pub fn add_probe(&self, exchange: Exchange) {
        if let Ok(mut p) = self.probes.lock() {
            p.push(exchange);
        }
    }

    /// Every probe sent so far, in the order sent.
    pub fn probes(&self) -> Vec<Exchange> {
        self.probes.lock().map(|p| p.clone()).unwrap_or_default()
    }
}

/// The probe: a `GET` of the base URL, with no credentials (the run's `--header`s go as
/// with every request), read up to the answer's head. Gives the transport's verdict and
/// the exchange to report.
async fn probe(
    transport: &Transport,
    base_url: &str,
    secrets: &Secrets,
    case: &str,
) -> Result<(Result<u16, TransportError>, Exchange), HarnessError> {
    let url = Url::parse(&format!("{}/", base_url.trim_end_matches('/'))).map_err(|e| {
        HarnessError::Config(format!(
            "the base URL {} is not a URL: {e}",
            secrets.redact_in_url(base_url)
        ))
    })?;
    let request = Request {
        method: reqwest::Method::GET,
        url,
        headers: Vec::new(),
        body: None,
    };
    let sent = transport.head_of(&request).await;
    let (status, error, content_type) = match &sent {
        Ok((status, media)) => (Some(*status), None, media.clone()),
        Err(e) => (None, Some(e.to_string()), None),
    };
    let exchange = Exchange {
        case: case.into(),
        operation: String::new(),
        step: 0,
        method: "GET".into(),
        path: "/".into(),
        auth: None,
        headers: Vec::new(),
        body: None,
        status,
        error,
        content_type,
        // Only the answer's head is read: whether anything answers is the question.
        response: serde_json::Value::Null,
        location: None,
        resent: 0,
        harness: Some("whether the target answers at all".into()),
        case_index: 0,
        // Not counted in any operation's latency: the probe belongs to none.
        elapsed: None,
    };
    Ok((sent.map(|(status, _)| status), exchange))
}

/// Why a probe's failure means the target cannot be reached, in plain words.
fn cause(e: &TransportError) -> String {
    match e {
        TransportError::Unreachable(cause) => cause.clone(),
        TransportError::Timeout(d) => format!("no answer within {} s", d.as_secs_f64()),
        TransportError::Connection(why) => format!("the connection failed ({why})"),
        other => other.to_string(),
    }
}

/// Sends the pre-flight probe: any HTTP answer lets the run go on and gives the exchange
/// to report; no connection or no answer in time is a configuration error in one line,
/// naming the URL (its password redacted) and the cause.
pub async fn preflight(
    transport: &Transport,
    base_url: &str,
    secrets: &Secrets,
) -> Result<Exchange, HarnessError> {
    let (answer, exchange) = probe(transport, base_url, secrets, PREFLIGHT_CASE).await?;
    match answer {
        Ok(_) => Ok(exchange),
        Err(e) => Err(HarnessError::Config(format!(
            "pre-flight: no HTTP answer from {}: {}; nothing was sent (check --base-url)",
            secrets.redact_in_url(base_url),
            cause(&e)
        ))),
    }
}

/// Whether a failed request is one the target's absence explains: no connection, or one
/// that broke before the answer was read whole. A timeout, a body too large or a spent
/// wait budget are answers (or their lack) of a target that is there.
pub fn may_be_gone(e: &TransportError) -> bool {
    matches!(
        e,
        TransportError::Unreachable(_) | TransportError::Connection(_)
    )
}

/// After a request failed as [`may_be_gone`] says: probes the base URL once; if that fails
/// too, marks the target gone, naming `failed` and the last request sent before. Returns
/// whether it is gone.
pub async fn recheck(ctx: &Context, failed: &str, error: &TransportError) -> bool {
    let _one = ctx.reach.probing.lock().await;
    if ctx.reach.gone().is_some() {
        return true;
    }
    let Ok((answer, exchange)) =
        probe(&ctx.transport, &ctx.base_url, &ctx.secrets, RECHECK_CASE).await
    else {
        return false;
    };
    ctx.reach.add_probe(exchange);
    let lost = match answer {
        Ok(_) => return false,
        Err(e) => cause(&e),
    };
    let last = ctx.reach.last.lock().ok().and_then(|l| l.clone());
    let why = format!(
        "TARGET UNREACHABLE: {} went away during the run: {failed} failed ({error}) and a GET of the base URL then failed too ({lost}); the last request sent was {}; no request was sent after it",
        ctx.secrets.redact_in_url(&ctx.base_url),
        last.unwrap_or_else(|| failed.to_string())
    );
    if let Ok(mut gone) = ctx.reach.gone.lock()
        && gone.is_none()
    {
        // A path may carry a value the run keeps secret.
        *gone = Some(ctx.secrets.redact(&why));
    }
    true
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn any_answer_means_there_and_a_closed_port_is_one_line_naming_url_and_cause() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            // Bounded: one probe.
            if let Ok((mut s, _)) = listener.accept().await {
                let mut buf = [0u8; 1024];
                let _ = tokio::io::AsyncReadExt::read(&mut s, &mut buf).await;
                let _ = s
                    .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
                    .await;
            }
        });
        let t = Transport::new(Duration::from_secs(5)).unwrap();
        let secrets = Secrets::new(Default::default());
        let there = preflight(&t, &format!("http://{addr}/api"), &secrets)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(there.status, Some(404));
        assert_eq!(there.case, PREFLIGHT_CASE);

        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        let url = format!("http://user:hunter2@127.0.0.1:{port}/api");
        let mut secrets = Secrets::new(Default::default());
        secrets.add_url_password(&url);
        let e = preflight(&t, &url, &secrets).await.unwrap_err().to_string();
        assert!(!e.contains('\n'), "{e}");
        assert!(e.contains("connection refused"), "{e}");
        assert!(e.contains(&format!("127.0.0.1:{port}/api")), "{e}");
        assert!(!e.contains("hunter2"), "{e}");
    }

    #[test]
    fn only_a_missing_connection_may_mean_the_target_is_gone() {
        assert!(may_be_gone(&TransportError::Unreachable("x".into())));
        assert!(may_be_gone(&TransportError::Connection("reset".into())));
        assert!(!may_be_gone(&TransportError::Timeout(Duration::from_secs(
            1
        ))));
        assert!(!may_be_gone(&TransportError::BodyTooLarge(1)));
    }
}
