// @if workspace
//! The client's own part of the generated `client.rs`: the `Client` and its builder,
//! the send path (hooks, retries, the size cap, a token refused and renewed), the
//! `tracing` span, and the bearer-token sources. The generator appends this text, with
//! only the regions the spec needs, after the operation methods it writes; the two
//! share one module, so they see each other's private items. Here, `crate::spec`
//! stands for the generated part.

use crate::spec::Credentials;
// @end

/// Async client of the API.
///
/// Built from the base URL of the server, path prefix included (for example
/// `http://127.0.0.1:8080/v1`); each operation's path is appended to it. Proxies,
/// TLS settings and the connect timeout belong to the `reqwest::Client` given to
/// [`Client::with_client`]; the total timeout of each call is this client's
/// ([`Client::set_timeout`]) either way.
///
// @if credentials
/// The credentials of the spec's security schemes (a `set_…` method each) can be set
/// or replaced at any time, also while calls are in flight; each is sent only to the
/// operations that declare its scheme, and `Debug` never shows one. Every clone of a
/// client shares its credentials: setting, clearing or refreshing one through any
/// clone changes it for all.
// @end
// @if anonymous
/// No operation of the spec asks for credentials the client could send.
// @end
///
/// No call can hang: [`Client::new`] and [`Client::builder`] connect within
/// [`Client::DEFAULT_CONNECT_TIMEOUT`] and give every call
/// [`Client::DEFAULT_TIMEOUT`] in all (sending, waiting, reading the body); a call
/// that runs out is `Error::Transport` with [`crate::Error::is_timeout`]. Every
/// request says `User-Agent: <crate>/<version>` and `Accept` lists the media types
/// the operation's answers may have (where a success comes in several kinds, JSON
/// and text say, each method asks only for the kind it reads).
///
/// An answer's body is read into memory up to a cap,
/// [`Client::DEFAULT_MAX_RESPONSE_BYTES`] unless [`Client::set_max_response_bytes`]
/// says otherwise; a longer one is `Error::BodyTooLarge`. Operations that answer
/// with text or binary bodies also have a `…_stream` method that hands back the
/// unread `reqwest::Response` instead.
pub struct Client {
    base_url: String,
    http: reqwest::Client,
    // @if credentials
    credentials: std::sync::Arc<std::sync::RwLock<Credentials>>,
    // @end
    max_response_bytes: usize,
    timeout: Option<std::time::Duration>,
    retry: Option<crate::RetryPolicy>,
    /// Added to every request (`with_header`).
    headers: reqwest::header::HeaderMap,
    /// Told about every attempt.
    hooks: Vec<std::sync::Arc<dyn crate::Hook>>,
    /// Whether arguments are checked against the spec's constraints before sending.
    check_arguments: bool,
}

/// Settings of a [`Client`] before it is built: timeouts, body cap, `User-Agent`.
/// Made by [`Client::builder`].
#[derive(Clone)]
pub struct ClientBuilder {
    base_url: String,
    connect_timeout: std::time::Duration,
    timeout: Option<std::time::Duration>,
    max_response_bytes: usize,
    user_agent: String,
    retry: Option<crate::RetryPolicy>,
    hooks: Vec<std::sync::Arc<dyn crate::Hook>>,
    check_arguments: bool,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("connect_timeout", &self.connect_timeout)
            .field("timeout", &self.timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("user_agent", &self.user_agent)
            .field("retry", &self.retry)
            .field("hooks", &self.hooks.len())
            .field("check_arguments", &self.check_arguments)
            .finish()
    }
}

impl ClientBuilder {
    /// How long connecting (TCP and TLS) may take;
    /// [`Client::DEFAULT_CONNECT_TIMEOUT`] unless set.
    pub fn connect_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long a whole call may take, from sending to the end of the body;
    /// [`Client::DEFAULT_TIMEOUT`] unless set. `None` lets a call wait forever.
    pub fn timeout(mut self, timeout: Option<std::time::Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// The largest answer body read into memory;
    /// [`Client::DEFAULT_MAX_RESPONSE_BYTES`] unless set.
    pub fn max_response_bytes(mut self, limit: usize) -> Self {
        self.max_response_bytes = limit;
        self
    }

    /// Sends failed calls again as `policy` says (see [`crate::RetryPolicy`]); off
    /// unless set.
    pub fn retry_policy(mut self, policy: crate::RetryPolicy) -> Self {
        self.retry = Some(policy);
        self
    }

    /// Adds a hook that sees every request and answer (see [`crate::Hook`]); hooks
    /// run in the order they were added.
    pub fn hook(mut self, hook: std::sync::Arc<dyn crate::Hook>) -> Self {
        self.hooks.push(hook);
        self
    }

    /// Whether each method checks its arguments against the spec's constraints
    /// (string lengths, `pattern`s the `regex` crate reads, numeric ranges, list
    /// sizes, combined lengths) before sending; on unless set.
    /// See [`Client::set_check_arguments`].
    pub fn check_arguments(mut self, check: bool) -> Self {
        self.check_arguments = check;
        self
    }

    /// The `User-Agent` header; [`Client::DEFAULT_USER_AGENT`] unless set.
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// The client.
    ///
    /// # Errors
    ///
    /// When `reqwest` cannot build its client (no TLS backend, or a `User-Agent`
    /// an HTTP header cannot carry).
    pub fn build(self) -> Result<Client, reqwest::Error> {
        let http = reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .user_agent(self.user_agent)
            .build()?;
        let mut client = Client::with_client(self.base_url, http);
        client.timeout = self.timeout;
        client.max_response_bytes = self.max_response_bytes;
        client.retry = self.retry;
        client.hooks = self.hooks;
        client.check_arguments = self.check_arguments;
        Ok(client)
    }
}

impl Client {
    /// A client with the default settings (see [`Client::builder`]).
    ///
    /// # Errors
    ///
    /// When `reqwest` cannot build its client (no TLS backend).
    pub fn new(base_url: impl Into<String>) -> Result<Self, reqwest::Error> {
        Self::builder(base_url).build()
    }

    /// Settings for a client of `base_url`, starting from the defaults.
    pub fn builder(base_url: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.into(),
            connect_timeout: Self::DEFAULT_CONNECT_TIMEOUT,
            timeout: Some(Self::DEFAULT_TIMEOUT),
            max_response_bytes: Self::DEFAULT_MAX_RESPONSE_BYTES,
            user_agent: Self::DEFAULT_USER_AGENT.to_owned(),
            retry: None,
            hooks: Vec::new(),
            check_arguments: true,
        }
    }

    /// A client that sends through the caller's `reqwest::Client`: its connect
    /// timeout, proxies, TLS settings and `User-Agent` apply. The total timeout of
    /// each call is still [`Client::DEFAULT_TIMEOUT`] unless
    /// [`Client::set_timeout`] says otherwise.
    // @if server_path
    ///
    /// The spec serves the API under [`Client::SERVER_PATH`] (a relative `servers`
    /// URL): it is joined to `base_url` unless that already ends with it, so a base
    /// URL written with or without that path reaches the same operations.
    // @end
    pub fn with_client(base_url: impl Into<String>, http: reqwest::Client) -> Self {
        let mut base_url = base_url.into();
        while base_url.ends_with('/') {
            base_url.pop();
        }
        // @if server_path
        if !base_url.ends_with(Self::SERVER_PATH) {
            base_url.push_str(Self::SERVER_PATH);
        }
        // @end
        Self {
            base_url,
            http,
            // @if credentials
            credentials: std::sync::Arc::new(std::sync::RwLock::new(Credentials::default())),
            // @end
            max_response_bytes: Self::DEFAULT_MAX_RESPONSE_BYTES,
            timeout: Some(Self::DEFAULT_TIMEOUT),
            retry: None,
            headers: reqwest::header::HeaderMap::new(),
            hooks: Vec::new(),
            check_arguments: true,
        }
    }

    /// The default time connecting may take: 10 seconds.
    pub const DEFAULT_CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

    /// The default time a whole call may take: 30 seconds.
    pub const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

    /// The default `User-Agent`: this crate's name and version.
    pub const DEFAULT_USER_AGENT: &'static str =
        concat!(env!("CARGO_PKG_NAME"), "/", env!("CARGO_PKG_VERSION"));

    /// The default cap on the size of an answer's body read into memory: 64 MiB.
    pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

    /// Sets the largest answer body (in bytes) a method reads into memory; a
    /// longer one fails with `Error::BodyTooLarge` without being read further.
    pub fn set_max_response_bytes(&mut self, limit: usize) {
        self.max_response_bytes = limit;
    }

    /// The largest answer body a method reads into memory.
    pub fn max_response_bytes(&self) -> usize {
        self.max_response_bytes
    }

    /// Sets how long a whole call may take (`None`: no limit).
    pub fn set_timeout(&mut self, timeout: Option<std::time::Duration>) {
        self.timeout = timeout;
    }

    /// How long a whole call may take (`None`: no limit).
    pub fn timeout(&self) -> Option<std::time::Duration> {
        self.timeout
    }

    /// Sets (or with `None` switches off) the retry policy.
    pub fn set_retry_policy(&mut self, policy: Option<crate::RetryPolicy>) {
        self.retry = policy;
    }

    /// The retry policy, if one is set.
    pub fn retry_policy(&self) -> Option<&crate::RetryPolicy> {
        self.retry.as_ref()
    }

    /// Switches the client-side checks of arguments against the spec's constraints
    /// on (the default) or off. Off, an argument the spec forbids is sent as given
    /// and the server's own answer is what the caller gets: a documented error
    /// status, for instance. For a test of the server's rules, or when a server has
    /// relaxed a rule before its spec caught up. A path segment that would resolve
    /// to `.` or `..` is refused either way: it would send the request to another
    /// resource.
    // @if business
    ///
    /// Where the server rejects in a success body (`x-business-error`), that answer
    /// is `Error::Business`.
    // @end
    pub fn set_check_arguments(&mut self, check: bool) {
        self.check_arguments = check;
    }

    /// Whether arguments are checked against the spec's constraints before sending.
    pub fn check_arguments(&self) -> bool {
        self.check_arguments
    }

    /// Adds a hook that sees every request and answer of this client and of the
    /// clones made from now on (see [`crate::Hook`]).
    pub fn add_hook(&mut self, hook: std::sync::Arc<dyn crate::Hook>) {
        self.hooks.push(hook);
    }

    /// A clone of the client that adds `name: value` to every request it sends
    /// (replacing a header of that name the client would set, `Accept` say):
    /// `client.with_header(name, key).create_thing(…)` gives one call an
    /// idempotency key or a tenant header. The clone shares the credentials and
    /// connections; `Debug` shows the header's name, not its value.
    #[must_use]
    pub fn with_header(
        &self,
        name: reqwest::header::HeaderName,
        value: reqwest::header::HeaderValue,
    ) -> Self {
        let mut client = self.clone();
        client.headers.insert(name, value);
        client
    }

    /// [`Client::with_header`] for several headers at once.
    #[must_use]
    pub fn with_headers(&self, headers: reqwest::header::HeaderMap) -> Self {
        let mut client = self.clone();
        for (name, value) in headers.iter() {
            client.headers.insert(name, value.clone());
        }
        client
    }

    /// The base URL, without a trailing slash.
    // @if server_path
    /// [`Client::SERVER_PATH`] is joined to it (see [`Client::with_client`]).
    // @end
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The `reqwest::Client` requests go through.
    pub fn http_client(&self) -> &reqwest::Client {
        &self.http
    }

    // @if refreshing
    /// The client's settings (hooks, extra headers, timeouts, retry policy, body
    /// cap, connections) with credentials of its own: what a refreshing token
    /// source sends with, so that installing the source in this client makes no
    /// reference cycle.
    pub(crate) fn detached(&self) -> Self {
        let mut client = self.clone();
        client.credentials = std::sync::Arc::new(std::sync::RwLock::new(Credentials::default()));
        client
    }
    // @end
}

// @if answer
impl Client {
    /// Builds a request with the client's `Accept`, extra headers and total timeout.
    #[allow(clippy::result_large_err)] // the `Error` of the public methods
    fn prepare<E>(
        &self,
        request: reqwest::RequestBuilder,
        accept: &'static str,
    ) -> Result<reqwest::Request, crate::Error<E>> {
        let mut request = request.build().map_err(crate::Error::transport)?;
        if !accept.is_empty() {
            request.headers_mut().insert(
                reqwest::header::ACCEPT,
                reqwest::header::HeaderValue::from_static(accept),
            );
        }
        for (name, value) in self.headers.iter() {
            request.headers_mut().insert(name, value.clone());
        }
        if let Some(timeout) = self.timeout {
            *request.timeout_mut() = Some(timeout);
        }
        Ok(request)
    }

    /// Sends a request and hands the answer to the operation's `answer`: the only
    /// part of sending that is generic over the operation's types. With the
    /// `tracing` feature the whole call (retries included) is one span.
    async fn execute<T, E>(
        &self,
        request: reqwest::RequestBuilder,
        mut call: Call,
        answer: impl FnOnce(crate::error::Answer) -> Result<crate::Response<T>, crate::Error<E>>,
    ) -> Result<crate::Response<T>, crate::Error<E>> {
        let traced = Traced::start(&call);
        let outcome = async {
            let request = self.prepare(request, call.accept)?;
            match self.exchange(request, &mut call).await {
                Ok(read) => answer(read),
                // A 429 or 503 not retried (no policy, or it ran out): decoded as usual.
                Err(crate::Error::UnexpectedStatus {
                    status,
                    headers,
                    body,
                }) => answer(crate::error::Answer {
                    status,
                    headers,
                    body,
                }),
                Err(error) => Err(error.widen()),
            }
        };
        let outcome = traced.run(outcome).await;
        traced.finish(
            outcome
                .as_ref()
                .map_or_else(crate::Error::status, |ok| Some(ok.status())),
        );
        outcome
    }

    // @if only
    /// `execute` for an operation that documents one success and nothing else.
    #[allow(clippy::result_large_err)] // the closure returns the methods' `Error`
    async fn only<T, E>(
        &self,
        request: reqwest::RequestBuilder,
        call: Call,
        decode: fn(&[u8]) -> Result<T, crate::error::Undecodable>,
    ) -> Result<crate::Response<T>, crate::Error<E>> {
        self.execute(request, call, |answer| answer.only(decode))
            .await
    }
    // @end

    /// Sends one attempt: the hooks see the request before and the answer's head
    /// after (with the latency so far).
    async fn send(
        &self,
        mut request: reqwest::Request,
        call: &Call,
        attempt: u32,
    ) -> Result<reqwest::Response, reqwest::Error> {
        let info = crate::CallInfo {
            operation: call.operation,
            method: call.method,
            path: call.path,
            attempt,
        };
        for hook in self.hooks.iter() {
            hook.before_send(&info, &mut request);
        }
        let started = std::time::Instant::now();
        let outcome = self.http.execute(request).await;
        let latency = started.elapsed();
        if !self.hooks.is_empty() {
            let received = crate::Received {
                call: info,
                status: outcome.as_ref().ok().map(reqwest::Response::status),
                headers: outcome.as_ref().ok().map(reqwest::Response::headers),
                latency,
            };
            for hook in self.hooks.iter() {
                hook.after_receive(&received);
            }
        }
        Traced::attempt(
            attempt,
            outcome.as_ref().ok().map(reqwest::Response::status),
            latency,
        );
        outcome
    }

    /// Sends a request and reads the answer up to the size cap; with a retry policy,
    /// sends it again while the policy allows. Not generic, so every operation
    /// shares one copy.
    // @if penalty
    /// A penalty's resend carries its ticket.
    // @end
    // @if bearer
    ///
    /// When the server refuses (`401`) a token that came from a token source, the
    /// source is told (`TokenSource::invalidate`), asked again, and the request
    /// re-sent once with the new token (a second `401`, the same token, or a request
    /// whose body cannot be re-sent is returned as it is; a source that fails then
    /// is `Error::Token`).
    // @end
    async fn exchange(
        &self,
        mut request: reqwest::Request,
        call: &mut Call,
    ) -> Result<crate::error::Answer, crate::Error<std::convert::Infallible>> {
        let idempotent = request.method().is_idempotent();
        let mut attempt = 1;
        let mut sent = 1;
        let mut waited = std::time::Duration::ZERO;
        loop {
            // A copy to send again: for a retry, or for a token refused (`bearer`).
            let resendable = self.retry.is_some();
            // @if bearer
            let resendable = resendable || call.token.is_some();
            // @end
            let again = resendable.then(|| request.try_clone()).flatten();
            let outcome = match self.send(request, call, sent).await {
                Ok(response) => {
                    match crate::error::Answer::read(response, self.max_response_bytes).await {
                        Ok(read) => screen(
                            read,
                            // @if penalty
                            call.penalty,
                            // @end
                        ),
                        Err(error) => Err(error),
                    }
                }
                Err(error) => Err(crate::Error::transport(error)),
            };
            sent += 1;
            // @if bearer
            let mut again = again;
            if let Ok(answer) = &outcome
                && answer.status == reqwest::StatusCode::UNAUTHORIZED
                && let Some(refused) = call.token.take()
                && let Some(mut next) = again.take()
            {
                // `call.token` is now `None`: a second refusal is returned.
                refused.source.invalidate(&refused.token).await;
                match refused.source.token().await {
                    Ok(Some(fresh)) if fresh != refused.token => {
                        let value = bearer_header(&fresh).map_err(crate::Error::Token)?;
                        next.headers_mut()
                            .insert(reqwest::header::AUTHORIZATION, value);
                        request = next;
                        continue;
                    }
                    Ok(_) => return outcome,
                    Err(error) => return Err(crate::Error::Token(error)),
                }
            }
            // @end
            let (Err(error), Some(policy), Some(next)) = (&outcome, &self.retry, again) else {
                return outcome;
            };
            let Some(wait) = policy.delay(error, idempotent, attempt, waited) else {
                return outcome;
            };
            // @if penalty
            let mut next = next;
            if let crate::Error::Penalty { ticket, resend, .. } = error
                && !crate::penalty::with_ticket(&mut next, resend, ticket)
            {
                return outcome;
            }
            // @end
            tokio::time::sleep(wait).await;
            waited += wait;
            attempt += 1;
            request = next;
        }
    }
}
// @end

// @if answer
/// What the retry loop looks at before the operation decodes anything: a
/// `429`/`503` comes back as `Error::UnexpectedStatus` (turned back into an answer
/// if not retried), and so does a penalty where the operation has one.
///
/// Here rather than on `Answer` in `error.rs`: it names the penalty's shape, and
/// `penalty.rs` builds on `error.rs`, so `error.rs` naming it back would close a circle.
#[allow(clippy::result_large_err)]
fn screen(
    answer: crate::error::Answer,
    // @if penalty
    penalty: Option<&crate::penalty::PenaltyShape>,
    // @end
) -> Result<crate::error::Answer, crate::Error<std::convert::Infallible>> {
    // @if penalty
    let answer = match penalty {
        Some(shape) => answer.unless_penalty(shape)?,
        None => answer,
    };
    // @end
    if matches!(
        answer.status,
        reqwest::StatusCode::TOO_MANY_REQUESTS | reqwest::StatusCode::SERVICE_UNAVAILABLE
    ) {
        return Err(crate::Error::UnexpectedStatus {
            status: answer.status,
            headers: answer.headers,
            body: answer.body,
        });
    }
    Ok(answer)
}
// @end

impl Clone for Client {
    fn clone(&self) -> Self {
        Self {
            base_url: self.base_url.clone(),
            http: self.http.clone(),
            // @if credentials
            credentials: std::sync::Arc::clone(&self.credentials),
            // @end
            max_response_bytes: self.max_response_bytes,
            timeout: self.timeout,
            retry: self.retry.clone(),
            headers: self.headers.clone(),
            hooks: self.hooks.clone(),
            check_arguments: self.check_arguments,
        }
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut f = f.debug_struct("Client");
        f.field("base_url", &self.base_url)
            .field("timeout", &self.timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("retry", &self.retry)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("hooks", &self.hooks.len())
            .field("check_arguments", &self.check_arguments);
        // @if credentials
        f.field("credentials", &*read_credentials(&self.credentials));
        // @end
        f.finish_non_exhaustive()
    }
}

// @if answer
/// What the send path knows of the operation being called: fixed by the spec,
/// except the token a source gave.
struct Call {
    /// The client method (the snake-case `operationId`).
    operation: &'static str,
    /// The HTTP method.
    method: &'static str,
    /// The spec's path template, never the values sent.
    path: &'static str,
    /// The `Accept` header (empty: none).
    accept: &'static str,
    // @if penalty
    /// The operation's penalty shape (`x-penalty`), if it has one.
    penalty: Option<&'static crate::penalty::PenaltyShape>,
    // @end
    // @if bearer
    /// The token a source gave for this call, to be told if the server refuses it.
    token: Option<Sourced>,
    // @end
}

/// One call's span with the `tracing` feature: operation, method and path
/// template when it starts, status and latency when it ends, an event per attempt;
/// never a header value, a query value or a body. Without the feature it holds
/// nothing and does nothing.
struct Traced {
    #[cfg(feature = "tracing")]
    span: tracing::Span,
    #[cfg(feature = "tracing")]
    started: std::time::Instant,
}

impl Traced {
    /// The span of `call`, opened now.
    fn start(call: &Call) -> Self {
        #[cfg(feature = "tracing")]
        {
            Self {
                span: tracing::info_span!(
                    "call",
                    operation = call.operation,
                    method = call.method,
                    path = call.path,
                    status = tracing::field::Empty,
                    latency_ms = tracing::field::Empty,
                ),
                started: std::time::Instant::now(),
            }
        }
        #[cfg(not(feature = "tracing"))]
        {
            let _ = call;
            Self {}
        }
    }

    /// `future` inside the span. Without the feature, `future` itself: not an
    /// `async fn`, so that a call without tracing builds and moves no future
    /// around its own.
    fn run<F: std::future::Future>(
        &self,
        future: F,
    ) -> impl std::future::Future<Output = F::Output> {
        #[cfg(feature = "tracing")]
        {
            tracing::Instrument::instrument(future, self.span.clone())
        }
        #[cfg(not(feature = "tracing"))]
        {
            future
        }
    }

    /// Records the outcome's status (if an answer came) and the latency.
    fn finish(&self, status: Option<reqwest::StatusCode>) {
        #[cfg(feature = "tracing")]
        {
            let latency_ms = self.started.elapsed().as_secs_f64() * 1e3;
            if let Some(status) = status {
                self.span.record("status", status.as_u16());
            }
            self.span.record("latency_ms", latency_ms);
        }
        #[cfg(not(feature = "tracing"))]
        let _ = status;
    }

    /// An event for one attempt, inside the call's span.
    fn attempt(attempt: u32, status: Option<reqwest::StatusCode>, latency: std::time::Duration) {
        #[cfg(feature = "tracing")]
        tracing::debug!(
            attempt,
            status = status.map(|s| s.as_u16()),
            latency_ms = latency.as_secs_f64() * 1e3,
            "answer"
        );
        #[cfg(not(feature = "tracing"))]
        let _ = (attempt, status, latency);
    }
}
// @end

// @if credentials
/// Reads the credentials (a panic elsewhere while they were written leaves them
/// usable: each write is one assignment).
fn read_credentials(
    lock: &std::sync::RwLock<Credentials>,
) -> std::sync::RwLockReadGuard<'_, Credentials> {
    lock.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Locks the credentials for a change.
fn write_credentials(
    lock: &std::sync::RwLock<Credentials>,
) -> std::sync::RwLockWriteGuard<'_, Credentials> {
    lock.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A credential that cannot be sent. Neither `Display` nor `Debug` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidCredential {
    scheme: &'static str,
    reason: &'static str,
}

impl InvalidCredential {
    /// The security scheme, as the spec names it.
    pub fn scheme(&self) -> &'static str {
        self.scheme
    }
}

impl std::fmt::Display for InvalidCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the credential of security scheme `{}` cannot be sent: {}",
            self.scheme, self.reason
        )
    }
}

impl std::error::Error for InvalidCredential {}
// @end

// @if bearer
/// The future a [`TokenSource`] answers with.
pub type TokenFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// Supplies the bearer token of a security scheme, asked before each request that
/// sends it (set with the client's `set_…_source` methods). Implement it to take
/// tokens from elsewhere (a vault, another process); a fixed token needs no source
/// (the scheme's `set_…` method takes one).
pub trait TokenSource: Send + Sync {
    /// The token to send now; `Ok(None)` sends the request without one.
    ///
    /// # Errors
    ///
    /// When no token can be had (a refresh failed); the call then fails with
    /// `Error::Token` without sending.
    fn token(&self) -> TokenFuture<'_, Result<Option<String>, crate::TokenError>>;

    /// Told that the server refused `token` (`401`): a source that can renew
    /// drops it, so that the next [`TokenSource::token`] renews. Does nothing by
    /// default. The client calls it when a secured call is answered `401`, then
    /// asks [`TokenSource::token`] again and re-sends the call once if the token
    /// changed; a source may be told by several tasks at once about the same
    /// token, and should renew once (as the refreshing sources do).
    fn invalidate<'a>(&'a self, _token: &'a str) -> TokenFuture<'a, ()> {
        Box::pin(async {})
    }
}

/// A token a source gave for one call, with the source (told if the server refuses
/// the token). Never shown.
struct Sourced {
    /// The source asked.
    source: std::sync::Arc<dyn TokenSource>,
    /// The token it gave.
    token: String,
}

/// `Bearer <token>`, marked sensitive (left out of `Debug` by `http`).
fn bearer_header(token: &str) -> Result<reqwest::header::HeaderValue, crate::TokenError> {
    let mut value =
        reqwest::header::HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
            crate::TokenError::new("the token source gave a token an HTTP header cannot carry")
        })?;
    value.set_sensitive(true);
    Ok(value)
}

/// A bearer scheme's credential: a fixed token or a source asked per request.
enum Bearer {
    /// `Bearer <token>`, marked sensitive.
    Fixed(reqwest::header::HeaderValue),
    /// Asked before each request.
    Source(std::sync::Arc<dyn TokenSource>),
}
// @end

// @if refreshing
/// When a token valid for `lifetime` from `from` is renewed: `margin` before its
/// end, or half-way when it lives less than twice the margin.
fn renew_at(
    from: std::time::Instant,
    lifetime: std::time::Duration,
    margin: std::time::Duration,
) -> std::time::Instant {
    from + lifetime - margin.min(lifetime / 2)
}

/// The tokens a refreshing source holds. Never shown.
struct RefreshState {
    /// The access token, while it may be sent.
    access: Option<String>,
    /// The refresh token (replaced when the server rotates it).
    refresh: String,
    /// When the access token is to be renewed (`None`: when the server refuses it).
    renew_at: Option<std::time::Instant>,
}

impl RefreshState {
    /// The access token, unless it is time to renew it.
    fn fresh(&self) -> Option<String> {
        let due = self
            .renew_at
            .is_some_and(|at| std::time::Instant::now() >= at);
        self.access.clone().filter(|_| !due)
    }
}

/// What a [`RefreshingTokenSource`] needs of the spec's `x-token-refresh`: the wire
/// names of the grant and of the answer's fields, and the call of the token operation.
/// The generator writes one per security scheme that declares a refresh.
pub trait RefreshGrant: Send + Sync + 'static {
    /// The source's name, as `Debug` shows it.
    const NAME: &'static str;
    /// Fixed body fields of the refresh request (`grant_type: refresh_token`).
    const GRANT: &'static [(&'static str, &'static str)];
    /// Body field of the refresh token, and answer field of a rotated one.
    const REFRESH_TOKEN: &'static str;
    /// Answer field of the access token.
    const ACCESS_TOKEN: &'static str;
    /// Answer field of the access token's lifetime in seconds, if the spec names one.
    const EXPIRES_IN: Option<&'static str>;

    /// Sends `body` (the grant, as JSON) through the token operation of `client` and
    /// returns the answer's body as JSON.
    fn call(
        client: &Client,
        body: serde_json::Value,
    ) -> TokenFuture<'_, Result<serde_json::Value, crate::TokenError>>;
}

/// A [`TokenSource`] that renews the access token through the token operation with
/// the refresh grant the spec declares (`x-token-refresh`, described by `G`): before
/// the token's lifetime runs out, less a margin, and when it is told the server
/// refused the token ([`TokenSource::invalidate`]). One refresh at a time: tasks that
/// need a token while a refresh runs wait for its result instead of starting their
/// own. Every clone of the client it is installed in shares it. `Debug` shows no
/// token.
pub struct RefreshingTokenSource<G> {
    /// The caller's client without its credentials, for the token operation.
    client: Client,
    /// Body fields the caller adds to every refresh (client id and secret).
    fields: serde_json::Map<String, serde_json::Value>,
    /// How long before the end of its lifetime a token is renewed.
    margin: std::time::Duration,
    /// The tokens; held across a refresh, which makes refreshes one at a time.
    state: tokio::sync::Mutex<RefreshState>,
    /// The spec's grant.
    grant: std::marker::PhantomData<fn() -> G>,
}

impl<G: RefreshGrant> RefreshingTokenSource<G> {
    /// How long before the end of its lifetime a token is renewed, unless
    /// [`Self::with_margin`] says otherwise: 60 s.
    pub const DEFAULT_MARGIN: std::time::Duration = std::time::Duration::from_secs(60);

    /// A source that renews with `refresh_token` through `client`'s token
    /// operation. It keeps a copy of `client` as it is now: base URL, connections,
    /// timeouts, body cap, retry policy, extra headers and hooks, all but the
    /// credentials (so that installing the source in `client` makes no reference
    /// cycle). The first token comes from a refresh, unless
    /// [`Self::with_access_token`] gives one.
    pub fn new(client: &Client, refresh_token: impl Into<String>) -> Self {
        Self {
            client: client.detached(),
            fields: serde_json::Map::new(),
            margin: Self::DEFAULT_MARGIN,
            state: tokio::sync::Mutex::new(RefreshState {
                access: None,
                refresh: refresh_token.into(),
                renew_at: None,
            }),
            grant: std::marker::PhantomData,
        }
    }

    /// Starts with an access token already obtained (by the first token exchange),
    /// valid for `expires_in` from now (`None`: until the server refuses it).
    #[must_use]
    pub fn with_access_token(
        mut self,
        access_token: impl Into<String>,
        expires_in: Option<std::time::Duration>,
    ) -> Self {
        let margin = self.margin;
        let state = self.state.get_mut();
        state.access = Some(access_token.into());
        state.renew_at =
            expires_in.map(|lifetime| renew_at(std::time::Instant::now(), lifetime, margin));
        self
    }

    /// Adds a field to the body of every refresh request (the client id and secret
    /// the token operation may ask for). The grant fields of the spec and the refresh
    /// token are set by the source and win over one of the same name.
    #[must_use]
    pub fn with_field(
        mut self,
        name: impl Into<String>,
        value: impl Into<serde_json::Value>,
    ) -> Self {
        self.fields.insert(name.into(), value.into());
        self
    }

    /// How long before the end of its lifetime a token is renewed; a lifetime
    /// shorter than twice the margin is renewed half-way.
    #[must_use]
    pub fn with_margin(mut self, margin: std::time::Duration) -> Self {
        self.margin = margin;
        self
    }

    /// Renews the token now, whatever its lifetime, and returns it (after a
    /// refresh already running, if any).
    ///
    /// # Errors
    ///
    /// When the token operation fails or its answer holds no access token.
    pub async fn refresh(&self) -> Result<String, crate::TokenError> {
        let mut state = self.state.lock().await;
        self.renew(&mut state).await
    }

    /// One refresh, with the lock held.
    async fn renew(&self, state: &mut RefreshState) -> Result<String, crate::TokenError> {
        let started = std::time::Instant::now();
        let mut body = self.fields.clone();
        for (name, value) in G::GRANT {
            body.insert((*name).to_owned(), serde_json::Value::from(*value));
        }
        body.insert(
            G::REFRESH_TOKEN.to_owned(),
            serde_json::Value::from(state.refresh.clone()),
        );
        let answer = G::call(&self.client, serde_json::Value::Object(body)).await?;
        let access = answer
            .get(G::ACCESS_TOKEN)
            .and_then(serde_json::Value::as_str)
            .filter(|token| !token.is_empty())
            .ok_or_else(|| {
                crate::TokenError::new(format!(
                    "the token operation's answer has no `{}`",
                    G::ACCESS_TOKEN
                ))
            })?
            .to_owned();
        if let Some(rotated) = answer
            .get(G::REFRESH_TOKEN)
            .and_then(serde_json::Value::as_str)
            .filter(|token| !token.is_empty())
        {
            state.refresh = rotated.to_owned();
        }
        let lifetime = G::EXPIRES_IN
            .and_then(|field| answer.get(field))
            .and_then(|v| v.as_u64().or_else(|| v.as_str()?.parse().ok()))
            .map(std::time::Duration::from_secs);
        state.renew_at = lifetime.map(|lifetime| renew_at(started, lifetime, self.margin));
        state.access = Some(access.clone());
        Ok(access)
    }
}

impl<G: RefreshGrant> TokenSource for RefreshingTokenSource<G> {
    fn token(&self) -> TokenFuture<'_, Result<Option<String>, crate::TokenError>> {
        Box::pin(async move {
            let mut state = self.state.lock().await;
            match state.fresh() {
                Some(access) => Ok(Some(access)),
                None => self.renew(&mut state).await.map(Some),
            }
        })
    }

    fn invalidate<'a>(&'a self, token: &'a str) -> TokenFuture<'a, ()> {
        Box::pin(async move {
            let mut state = self.state.lock().await;
            // A token renewed meanwhile is kept: one refusal, one refresh.
            if state.access.as_deref() == Some(token) {
                state.access = None;
            }
        })
    }
}

impl<G: RefreshGrant> std::fmt::Debug for RefreshingTokenSource<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(G::NAME)
            .field("base_url", &self.client.base_url())
            .field("margin", &self.margin)
            .finish_non_exhaustive()
    }
}
// @end

// @if file_part
/// A file sent as one part of a `multipart/form-data` body: its bytes, and the file
/// name and content type to declare (none unless set). `Debug` shows only the size.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct FilePart {
    /// The file's contents.
    pub bytes: Vec<u8>,
    /// The `filename` of the part's `Content-Disposition`.
    pub file_name: Option<String>,
    /// The part's `Content-Type` (`application/octet-stream` is what servers assume
    /// without one).
    pub content_type: Option<String>,
}

impl FilePart {
    /// A part holding `bytes`, with no file name or content type.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            bytes: bytes.into(),
            file_name: None,
            content_type: None,
        }
    }

    /// Declares the file name.
    #[must_use]
    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.file_name = Some(name.into());
        self
    }

    /// Declares the content type (`image/png`).
    #[must_use]
    pub fn content_type(mut self, content_type: impl Into<String>) -> Self {
        self.content_type = Some(content_type.into());
        self
    }

    /// The `reqwest` part; a content type that is not a valid MIME type is an error
    /// of the request (`Error::Transport`), as `reqwest` reports it.
    fn into_part(self) -> Result<reqwest::multipart::Part, reqwest::Error> {
        let mut part = reqwest::multipart::Part::bytes(self.bytes);
        if let Some(name) = self.file_name {
            part = part.file_name(name);
        }
        match self.content_type {
            Some(content_type) => part.mime_str(&content_type),
            None => Ok(part),
        }
    }
}

impl std::fmt::Debug for FilePart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilePart")
            .field("bytes", &self.bytes.len())
            .field("file_name", &self.file_name)
            .field("content_type", &self.content_type)
            .finish()
    }
}
// @end

// @if json_part
/// A part holding `value` as JSON (`application/json`). Models and
/// `serde_json::Value` have string keys only, so serializing cannot fail.
fn json_part<T: serde::Serialize>(value: &T) -> reqwest::multipart::Part {
    let json = serde_json::to_string(value).unwrap_or_default();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::CONTENT_TYPE,
        reqwest::header::HeaderValue::from_static("application/json"),
    );
    reqwest::multipart::Part::text(json).headers(headers)
}
// @end
