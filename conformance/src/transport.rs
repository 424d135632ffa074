//! Sending one request and reading its answer under hard bounds: a per-request timeout that
//! covers connect, headers and body; a cap on the body size; bounded retries for `429`
//! (`Retry-After`) and for the platform's penalty answer (`p-ticket` / `p-time`, DECISIONS
//! row 23). A hostile target therefore costs at most a known time and memory per request.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::Url;

use crate::error::HarnessError;
use serde_json::Value;

/// Largest body read; more fails the request as "body too large".
pub const MAX_BODY: usize = 1 << 20;
/// Most `429`s or penalty answers honoured for one request.
const MAX_RETRIES: usize = 3;
/// Longest single wait a target may ask for.
const MAX_WAIT: Duration = Duration::from_secs(10);
/// The default run-wide wait budget (`--max-wait`).
pub const DEFAULT_WAIT_BUDGET: Duration = Duration::from_secs(30);

/// A fully built request. `Debug` masks the `Authorization` header.
#[derive(Clone)]
pub struct Request {
    /// HTTP method.
    pub method: reqwest::Method,
    /// Full URL with query.
    pub url: Url,
    /// Headers to send (with the real token).
    pub headers: Vec<(String, String)>,
    /// Body with its content type.
    pub body: Option<(String, Vec<u8>)>,
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str(),
                    if k.eq_ignore_ascii_case("authorization") {
                        "<redacted>"
                    } else {
                        v.as_str()
                    },
                )
            })
            .collect();
        f.debug_struct("Request")
            .field("method", &self.method)
            .field("url", &self.url.as_str())
            .field("headers", &headers)
            .field("body_bytes", &self.body.as_ref().map(|(_, b)| b.len()))
            .finish()
    }
}

/// What came back.
#[derive(Debug, Clone)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Headers (lower-case names).
    pub headers: Vec<(String, String)>,
    /// The body, at most [`MAX_BODY`] bytes.
    pub body: Vec<u8>,
    /// The body parsed as JSON when it is JSON.
    pub json: Option<Value>,
    /// Time until the body was read.
    pub elapsed: Duration,
    /// How many more times the request went on the wire before this answer: a `429` or
    /// penalty answer waited out, or a connection lost before any answer. A record holds
    /// every request the run sent, so it counts them (`Exchange::resent`).
    pub retries: usize,
}

impl Response {
    /// A header by lower-case name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The media type without parameters.
    pub fn media_type(&self) -> Option<String> {
        self.header("content-type").map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
    }
}

/// Why no answer could be judged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// Nothing (or not all) came back in time.
    #[error("no complete answer within {0:?}")]
    Timeout(Duration),
    /// The body exceeded the cap.
    #[error("body too large (more than {0} bytes)")]
    BodyTooLarge(usize),
    /// Connection reset, closed early, or not HTTP.
    #[error("connection failed: {0}")]
    Connection(String),
    /// No connection could be made at all: refused, no such host, no route, or a TLS
    /// handshake that failed. Kept apart from [`TransportError::Connection`] because it
    /// says nothing about an answer: the target is not there, or not as configured.
    #[error("cannot reach the target: {0}")]
    Unreachable(String),
    /// The target asked for a wait (`429` or a penalty) after the run's wait budget
    /// (`--max-wait`) was spent.
    #[error("rate limited: wait budget spent ({0})")]
    RateLimited(String),
}

/// A reusable HTTP client with the run's bounds.
#[derive(Clone)]
pub struct Transport {
    client: reqwest::Client,
    /// Keeps no idle connection, so every request it sends opens a new one.
    fresh: reqwest::Client,
    timeout: Duration,
    max_body: usize,
    /// What is left of the run's wait budget, shared by every clone and every request.
    budget: Arc<Mutex<Duration>>,
    /// `--header`s, sent with every request that does not set the header itself.
    headers: Arc<Vec<(String, String)>>,
    /// `--rate-limit`, shared by every clone.
    pacer: Option<Arc<Pacer>>,
    /// An app in this process that takes every request in place of the network.
    in_process: Option<crate::in_process::InProcess>,
}

/// How the run reaches the target beyond the defaults: headers on every request, TLS
/// trust, a proxy and a pace (`--header`, `--ca-cert`, `--insecure`, `--proxy`,
/// `--rate-limit`). Not `Debug`: header values may be secrets.
#[derive(Clone, Default)]
pub struct Options {
    /// Sent with every request that does not set the header itself.
    pub headers: Vec<(String, String)>,
    /// PEM text of extra CA certificates.
    pub ca_pem: Option<Vec<u8>>,
    /// Accept any certificate.
    pub insecure: bool,
    /// Proxy URL for every request.
    pub proxy: Option<String>,
    /// Most requests started per second.
    pub rate: Option<f64>,
    /// No request will meet TLS (an in-process target): the system's root certificates
    /// are not loaded, a start-up cost of every client otherwise.
    pub no_tls_roots: bool,
}

/// Spaces request starts evenly: each takes the next free slot, so no burst ever exceeds
/// the rate (a token bucket would allow one).
#[derive(Debug)]
struct Pacer {
    interval: Duration,
    next: tokio::sync::Mutex<tokio::time::Instant>,
}

impl Pacer {
    async fn wait_turn(&self) {
        let start = {
            let mut next = self.next.lock().await;
            let now = tokio::time::Instant::now();
            let start = (*next).max(now);
            *next = start + self.interval;
            start
        };
        tokio::time::sleep_until(start).await;
    }
}

impl Transport {
    /// A client that follows no redirects (a redirect is an answer to judge, not to chase).
    pub fn new(timeout: Duration) -> Result<Transport, HarnessError> {
        Transport::with_options(timeout, &Options::default())
    }

    /// Like [`Transport::new`], reaching the target as `options` say; a CA file without a
    /// certificate or an unusable proxy URL is a configuration error.
    pub fn with_options(timeout: Duration, options: &Options) -> Result<Transport, HarnessError> {
        let certs = match &options.ca_pem {
            Some(pem) => reqwest::Certificate::from_pem_bundle(pem).map_err(|e| {
                HarnessError::Config(format!("cannot read the CA certificates: {e}"))
            })?,
            None => Vec::new(),
        };
        if options.ca_pem.is_some() && certs.is_empty() {
            return Err(HarnessError::Config(
                "the CA certificate file holds no PEM certificate".into(),
            ));
        }
        let proxy = match &options.proxy {
            Some(url) => Some(
                reqwest::Proxy::all(url.as_str())
                    .map_err(|e| HarnessError::Config(format!("cannot use proxy {url}: {e}")))?,
            ),
            None => None,
        };
        let build = |idle: usize| {
            let mut b = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .connect_timeout(timeout)
                .pool_max_idle_per_host(idle)
                .tls_danger_accept_invalid_certs(options.insecure);
            b = if options.no_tls_roots {
                b.tls_certs_only(certs.clone())
            } else {
                b.tls_certs_merge(certs.clone())
            };
            if let Some(p) = &proxy {
                b = b.proxy(p.clone());
            }
            b.build().map_err(HarnessError::HttpClient)
        };
        Ok(Transport {
            client: build(32)?,
            fresh: build(0)?,
            timeout,
            max_body: MAX_BODY,
            budget: Arc::new(Mutex::new(DEFAULT_WAIT_BUDGET)),
            headers: Arc::new(options.headers.clone()),
            pacer: options.rate.map(|rate| {
                Arc::new(Pacer {
                    interval: Duration::from_secs_f64(1.0 / rate),
                    next: tokio::sync::Mutex::new(tokio::time::Instant::now()),
                })
            }),
            in_process: None,
        })
    }

    /// The same transport handing every request to `app` in this process instead of the
    /// network (its bounds, headers, wait budget and pace unchanged).
    pub fn with_in_process(self, app: crate::in_process::InProcess) -> Transport {
        Transport {
            in_process: Some(app),
            ..self
        }
    }

    /// Sets the run-wide budget of time spent waiting for `429` and penalty answers; once
    /// spent, an answer asking for a wait fails the request instead.
    pub fn with_wait_budget(self, budget: Duration) -> Transport {
        Transport {
            budget: Arc::new(Mutex::new(budget)),
            ..self
        }
    }

    /// The same transport (its connections, bounds, wait budget and pace) sending these
    /// headers on every request in place of the run's `--header`s: a request sent with a
    /// session of the run's own must not carry the user's credentials beside it.
    pub fn with_headers(&self, headers: Vec<(String, String)>) -> Transport {
        Transport {
            headers: Arc::new(headers),
            ..self.clone()
        }
    }

    /// Takes up to `want` (itself capped at [`MAX_WAIT`]) from the budget; `None` when the
    /// budget is spent.
    fn take_wait(&self, want: Duration) -> Option<Duration> {
        let want = want.min(MAX_WAIT);
        if want.is_zero() {
            return Some(want);
        }
        let mut left = self.budget.lock().ok()?;
        if left.is_zero() {
            return None;
        }
        let granted = want.min(*left);
        *left -= granted;
        Some(granted)
    }

    /// Overrides the body cap (tests).
    pub fn with_max_body(mut self, max: usize) -> Transport {
        self.max_body = max;
        self
    }

    /// Sends a request, honouring `429` and penalty answers a bounded number of times.
    pub async fn send(&self, req: &Request) -> Result<Response, TransportError> {
        let mut req = req.clone();
        let mut retries = 0;
        loop {
            let resp = self.send_once(&req).await?;
            retries += resp.retries;
            if retries >= MAX_RETRIES {
                return Ok(Response { retries, ..resp });
            }
            if resp.status == 429 {
                let asked = resp.header("retry-after").unwrap_or("").trim().to_string();
                let wait = asked
                    .parse::<u64>()
                    .map_or(Duration::from_secs(1), Duration::from_secs);
                let Some(wait) = self.take_wait(wait) else {
                    return Err(TransportError::RateLimited(format!(
                        "429 with Retry-After: {asked}"
                    )));
                };
                tokio::time::sleep(wait).await;
                retries += 1;
                continue;
            }
            if let Some((ticket, wait)) = penalty(&resp) {
                let Some(wait) = self.take_wait(wait) else {
                    return Err(TransportError::RateLimited(format!(
                        "penalty answer with p-time {:.1}s",
                        wait.as_secs_f64()
                    )));
                };
                tokio::time::sleep(wait).await;
                add_ticket(&mut req, &ticket);
                retries += 1;
                continue;
            }
            return Ok(Response { retries, ..resp });
        }
    }

    /// Whether anything answers `req` within the timeout: the status and media type of the
    /// answer once its head has come, its body left unread (a target that trickles its
    /// body is there all the same). A pace set by `--rate-limit` applies; no retry.
    pub async fn head_of(&self, req: &Request) -> Result<(u16, Option<String>), TransportError> {
        if let Some(app) = &self.in_process {
            if let Some(p) = &self.pacer {
                p.wait_turn().await;
            }
            let r = self.call_in_process(app, req).await?;
            return Ok((r.status, r.media_type()));
        }
        if let Some(p) = &self.pacer {
            p.wait_turn().await;
        }
        let mut builder = self.fresh.request(req.method.clone(), req.url.clone());
        for (k, v) in self.headers.iter() {
            builder = builder.header(k, v);
        }
        match tokio::time::timeout(self.timeout, builder.send()).await {
            Err(_) => Err(TransportError::Timeout(self.timeout)),
            Ok(Err(e)) => Err(match unreachable(&e) {
                Some(cause) => TransportError::Unreachable(cause),
                None if e.is_timeout() => TransportError::Timeout(self.timeout),
                None => TransportError::Connection(describe(&e)),
            }),
            Ok(Ok(resp)) => Ok((
                resp.status().as_u16(),
                resp.headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .map(|v| {
                        v.split(';')
                            .next()
                            .unwrap_or("")
                            .trim()
                            .to_ascii_lowercase()
                    }),
            )),
        }
    }

    /// One exchange, kept free of a race that belongs to no one: a server may close an
    /// idle keep-alive connection just as the client reuses it, and the request is lost
    /// with "connection closed before message completed". So a request that is not
    /// idempotent (RFC 9110 §9.2.2) always goes on a new connection, and an idempotent one
    /// that fails before any answer arrives is sent once more on a new connection, as Go's
    /// and browsers' clients do. A target that drops connections fails both times.
    async fn send_once(&self, req: &Request) -> Result<Response, TransportError> {
        if let Some(app) = &self.in_process {
            if let Some(p) = &self.pacer {
                p.wait_turn().await;
            }
            return self.call_in_process(app, req).await;
        }
        if !req.method.is_idempotent() {
            return self.exchange(&self.fresh, req).await.map_err(Into::into);
        }
        match self.exchange(&self.client, req).await {
            Err(Exchange::BeforeAnswer(_)) => self
                .exchange(&self.fresh, req)
                .await
                .map(|r| Response { retries: 1, ..r }),
            other => other,
        }
        .map_err(TransportError::from)
    }

    /// One exchange with an app in this process: the run's headers where the request
    /// does not set them, and the transport's bounds.
    async fn call_in_process(
        &self,
        app: &crate::in_process::InProcess,
        req: &Request,
    ) -> Result<Response, TransportError> {
        use crate::in_process::{Call, Failure};
        let mut headers: Vec<(&str, &str)> = req
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        for (k, v) in self.headers.iter() {
            if !req.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(k)) {
                headers.push((k, v));
            }
        }
        let call = Call {
            method: req.method.as_str(),
            url: &req.url,
            headers,
            body: req.body.as_ref().map(|(t, b)| (t.as_str(), b.as_slice())),
        };
        match app.send(call, self.timeout, self.max_body).await {
            Ok(a) => Ok(Response {
                status: a.status,
                json: serde_json::from_slice(&a.body).ok(),
                headers: a.headers,
                body: a.body,
                elapsed: a.elapsed,
                retries: 0,
            }),
            Err(Failure::Timeout) => Err(TransportError::Timeout(self.timeout)),
            Err(Failure::TooLarge) => Err(TransportError::BodyTooLarge(self.max_body)),
            Err(Failure::Broken(why)) => Err(TransportError::Connection(why)),
        }
    }

    async fn exchange(
        &self,
        client: &reqwest::Client,
        req: &Request,
    ) -> Result<Response, Exchange> {
        if let Some(p) = &self.pacer {
            p.wait_turn().await;
        }
        let started = Instant::now();
        let work = async {
            let mut builder = client.request(req.method.clone(), req.url.clone());
            for (k, v) in &req.headers {
                builder = builder.header(k, v);
            }
            for (k, v) in self.headers.iter() {
                if !req.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(k)) {
                    builder = builder.header(k, v);
                }
            }
            if let Some((ctype, bytes)) = &req.body {
                builder = builder.header("content-type", ctype).body(bytes.clone());
            }
            let mut resp = builder.send().await.map_err(|e| match unreachable(&e) {
                // A connection that could not be made is no keep-alive race: resending
                // cannot help.
                Some(cause) => Exchange::Later(TransportError::Unreachable(cause)),
                None => Exchange::BeforeAnswer(describe(&e)),
            })?;
            let status = resp.status().as_u16();
            let headers: Vec<(String, String)> = resp
                .headers()
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_str().to_string(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect();
            if resp
                .content_length()
                .is_some_and(|n| n > self.max_body as u64)
            {
                return Err(TransportError::BodyTooLarge(self.max_body).into());
            }
            let mut body = Vec::new();
            while let Some(chunk) = resp
                .chunk()
                .await
                .map_err(|e| TransportError::Connection(describe(&e)))?
            {
                if body.len() + chunk.len() > self.max_body {
                    return Err(TransportError::BodyTooLarge(self.max_body).into());
                }
                body.extend_from_slice(&chunk);
            }
            let json = serde_json::from_slice(&body).ok();
            Ok(Response {
                status,
                headers,
                body,
                json,
                elapsed: started.elapsed(),
                retries: 0,
            })
        };
        match tokio::time::timeout(self.timeout, work).await {
            Ok(r) => r,
            Err(_) => Err(TransportError::Timeout(self.timeout).into()),
        }
    }
}

/// How one exchange failed: before any answer (the only case worth resending) or later.
enum Exchange {
    BeforeAnswer(String),
    Later(TransportError),
}

impl From<TransportError> for Exchange {
    fn from(e: TransportError) -> Exchange {
        Exchange::Later(e)
    }
}

impl From<Exchange> for TransportError {
    fn from(e: Exchange) -> TransportError {
        match e {
            Exchange::BeforeAnswer(why) => TransportError::Connection(why),
            Exchange::Later(e) => e,
        }
    }
}

/// Why no connection could be made, in plain words, when that is what `e` is: `connection
/// refused`, `no such host`, `no route to host`, `TLS: …` (the handshake's own reason). A
/// timeout is not classified here: the run's timeout reports it.
fn unreachable(e: &reqwest::Error) -> Option<String> {
    if !e.is_connect() || e.is_timeout() {
        return None;
    }
    let mut chain: Vec<&(dyn std::error::Error + 'static)> = Vec::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        chain.push(s);
        source = s.source();
    }
    Some(connect_cause(&chain))
}

/// The cause of a failed connection read from its error chain (outermost first): the
/// operating system's error kind where one is there, else the words of the resolver or
/// the TLS library; the innermost message when neither says more.
fn connect_cause(chain: &[&(dyn std::error::Error + 'static)]) -> String {
    use std::io::ErrorKind;
    for e in chain {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            match io.kind() {
                ErrorKind::ConnectionRefused => return "connection refused".into(),
                ErrorKind::HostUnreachable => return "no route to host".into(),
                ErrorKind::NetworkUnreachable => return "network unreachable".into(),
                ErrorKind::AddrNotAvailable => return "address not available".into(),
                _ => {}
            }
        }
    }
    let innermost = chain.last().map(|e| e.to_string()).unwrap_or_default();
    let all: Vec<String> = chain.iter().map(|e| e.to_string().to_lowercase()).collect();
    let said = |words: &[&str]| all.iter().any(|m| words.iter().any(|w| m.contains(w)));
    if said(&[
        "dns error",
        "failed to lookup",
        "name or service not known",
        "no such host",
        "nodename nor servname",
    ]) {
        format!("no such host ({innermost})")
    } else if said(&[
        "certificate",
        "tls",
        "handshake",
        "alert",
        "corrupt message",
        "invalid peer",
    ]) {
        format!("TLS: {innermost}")
    } else if innermost.is_empty() {
        "cannot connect".into()
    } else {
        innermost
    }
}

/// The error chain in one line, without the URL (which reports show already).
fn describe(e: &reqwest::Error) -> String {
    let mut msg = e.without_url_ref().to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}

trait WithoutUrl {
    fn without_url_ref(&self) -> String;
}

impl WithoutUrl for reqwest::Error {
    fn without_url_ref(&self) -> String {
        if self.is_timeout() {
            "timed out".into()
        } else if self.is_connect() {
            "cannot connect".into()
        } else if self.is_body() || self.is_decode() {
            "broken body".into()
        } else {
            "request failed".into()
        }
    }
}

/// The platform's penalty answer: `200` with `p-ticket` and `p-time` (seconds).
fn penalty(resp: &Response) -> Option<(String, Duration)> {
    if resp.status != 200 {
        return None;
    }
    let obj = resp.json.as_ref()?.as_object()?;
    let ticket = obj.get("p-ticket")?.as_str()?.to_string();
    let secs = obj.get("p-time")?.as_f64()?;
    Some((
        ticket,
        Duration::from_secs_f64(secs.clamp(0.0, MAX_WAIT.as_secs_f64())),
    ))
}

/// Resends with the ticket: in the JSON body when there is one, else in the query.
fn add_ticket(req: &mut Request, ticket: &str) {
    if let Some((ctype, bytes)) = &mut req.body
        && ctype.starts_with("application/json")
        && let Ok(Value::Object(mut m)) = serde_json::from_slice::<Value>(bytes)
    {
        m.insert("p-ticket".into(), Value::String(ticket.to_string()));
        *bytes = serde_json::to_vec(&m).unwrap_or_default();
        return;
    }
    let pairs: Vec<(String, String)> = req
        .url
        .query_pairs()
        .filter(|(k, _)| k != "p-ticket")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    req.url
        .query_pairs_mut()
        .clear()
        .extend_pairs(pairs)
        .append_pair("p-ticket", ticket);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request for `url`, with nothing else.
    fn get(url: &str) -> Request {
        Request {
            method: reqwest::Method::GET,
            url: Url::parse(url).unwrap(),
            headers: Vec::new(),
            body: None,
        }
    }

    #[test]
    fn a_cause_is_read_from_the_os_error_kind_before_any_words() {
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "os error 111");
        let chain: Vec<&(dyn std::error::Error + 'static)> = vec![&refused];
        assert_eq!(connect_cause(&chain), "connection refused");
        let dns = std::io::Error::other(
            "failed to lookup address information: Name or service not known",
        );
        let chain: Vec<&(dyn std::error::Error + 'static)> = vec![&dns];
        assert!(connect_cause(&chain).starts_with("no such host ("));
        let tls = std::io::Error::other("invalid peer certificate: UnknownIssuer");
        let chain: Vec<&(dyn std::error::Error + 'static)> = vec![&tls];
        assert_eq!(
            connect_cause(&chain),
            "TLS: invalid peer certificate: UnknownIssuer"
        );
        let other = std::io::Error::other("something else");
        let chain: Vec<&(dyn std::error::Error + 'static)> = vec![&other];
        assert_eq!(connect_cause(&chain), "something else");
    }

    #[tokio::test]
    async fn a_port_where_nothing_listens_is_unreachable_at_once() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let t = Transport::new(Duration::from_secs(5)).unwrap();
        let started = Instant::now();
        let e = t
            .send(&get(&format!("http://127.0.0.1:{port}/")))
            .await
            .unwrap_err();
        assert_eq!(e, TransportError::Unreachable("connection refused".into()));
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[tokio::test]
    async fn a_tls_handshake_with_a_plain_http_server_is_unreachable_by_tls() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            // Bounded: the test sends one request, the client may retry once.
            for _ in 0..2 {
                let Ok((mut s, _)) = listener.accept().await else {
                    return;
                };
                let _ = s
                    .write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
                    .await;
            }
        });
        let t = Transport::new(Duration::from_secs(5)).unwrap();
        let e = t.send(&get(&format!("https://{addr}/"))).await.unwrap_err();
        match e {
            TransportError::Unreachable(cause) => assert!(cause.starts_with("TLS: "), "{cause}"),
            other => panic!("{other:?}"),
        }
    }
}
