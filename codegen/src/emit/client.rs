//! `client.rs`: the async client, one method per operation, and each operation's
//! response and error enums.

use std::collections::HashMap;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::auth;
use super::checks;
use super::docs;
use super::multipart;
use super::types::{argument, ident, is_copy, owned};
use crate::ir::{
    Api, Body, BodyKind, ListEncoding, Method, Operation, Param, ParamLocation, PathPart, Payload,
    ResponseDef, StatusMatch, Ty, TypeDef,
};
use crate::lower::inner_named;

/// What the operation methods use of the private helpers, so that only those are emitted.
#[derive(Default)]
struct Uses {
    path: bool,
    joined_query: bool,
    /// `object_pairs`: some query parameter is an object.
    object_pairs: bool,
    /// `push_object_query`: some object goes as exploded `form` or `deepObject`.
    object_query: bool,
    label: bool,
    matrix: bool,
    /// `object_style`: some path or header parameter is an object.
    object_style: bool,
    /// Some operation has `x-penalty`: `execute` takes each operation's penalty shape.
    penalty: bool,
    /// Some path has a parameter: `dot_segment` checks what it became.
    dots: bool,
    /// `JsonText`: some query parameter is described by `content` (JSON text).
    json_text: bool,
}

impl Uses {
    /// The parts of the runtime's `encode.rs` that the operations call (see
    /// `runtime::Needs`).
    fn runtime_parts(&self) -> Vec<&'static str> {
        [
            ("path", self.path),
            ("joined_query", self.joined_query),
            ("object_pairs", self.object_pairs),
            ("object_query", self.object_query),
            ("label", self.label),
            ("matrix", self.matrix),
            ("object_style", self.object_style),
            ("dots", self.dots),
            ("json_text", self.json_text),
        ]
        .into_iter()
        .filter_map(|(name, used)| used.then_some(name))
        .collect()
    }
}

/// The tokens of `client.rs`, and the parts of the runtime's `encode.rs` they call.
pub fn emit(api: &Api) -> (TokenStream, Vec<&'static str>) {
    let models = quote!(crate::models::);
    let validating: Vec<&str> = api
        .types
        .iter()
        .filter_map(|t| match t {
            TypeDef::Struct(s) if s.validates => Some(s.name.as_str()),
            _ => None,
        })
        .collect();
    let mut uses = Uses {
        penalty: api.operations.iter().any(|op| op.penalty.is_some()),
        ..Uses::default()
    };
    let boxed = Boxed::of(api);
    let shapes = ErrorShapes::of(&api.operations);
    let mut all_methods = Vec::new();
    let mut enums = Vec::new();
    for (i, op) in api.operations.iter().enumerate() {
        // Lowering named the operation around the client's own methods, printed here.
        debug_assert!(!crate::names::CLIENT_METHODS.contains(&op.name.as_str()));
        all_methods.push(methods(op, api, &models, &validating, &mut uses));
        enums.push(op_enums(op, &models, &boxed, &shapes, i));
    }
    let parts = uses.runtime_parts();
    // The encoders live in the runtime's `encode.rs` (copied when some operation calls
    // one); a glob import, since which of them this file calls depends on the spec.
    let encoders = (!parts.is_empty()).then(|| {
        quote!(
            use crate::encode::*;
        )
    });
    let (penalty_field, penalty_pass) = if uses.penalty {
        (
            quote! {
                /// The operation's penalty shape (`x-penalty`), if it has one.
                penalty: Option<&'static crate::penalty::PenaltyShape>,
            },
            quote!(call.penalty),
        )
    } else {
        (TokenStream::new(), TokenStream::new())
    };
    let bearer = auth::bearer(api);
    let token_field = bearer.then(|| {
        quote! {
            /// The token a source gave for this call, to be told if the server refuses it.
            token: Option<Sourced>,
        }
    });
    let or_token = bearer.then(|| quote!(|| call.token.is_some()));
    let again_mut = bearer.then(|| quote!(mut));
    let refusal_doc = if bearer {
        "; when the server refuses (`401`) a token that came from a token source, the source is \
         told (`TokenSource::invalidate`), asked again, and the request re-sent once with the \
         new token (a second `401`, the same token, or a request whose body cannot be \
         re-sent is returned as it is; a source that fails then is `Error::Token`)"
    } else {
        ""
    };
    let exchange_doc = docs::outer(&format!(
        "Sends a request and reads the answer up to the size cap; with a retry policy, sends \
         it again while the policy allows (a penalty's resend carries its ticket){refusal_doc}. \
         Not generic, so every operation shares one copy."
    ));
    // A penalty is sent again with its ticket (`x-penalty`).
    let resend_step = uses.penalty.then(|| {
        quote! {
            if let crate::Error::Penalty { ticket, resend, .. } = error
                && !crate::penalty::with_ticket(&mut next, resend, ticket)
            {
                return outcome;
            }
        }
    });
    let again_next = if uses.penalty {
        quote!(mut next)
    } else {
        quote!(next)
    };
    let refusal_step = bearer.then(|| {
        quote! {
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
                        next.headers_mut().insert(reqwest::header::AUTHORIZATION, value);
                        request = next;
                        continue;
                    }
                    Ok(_) => return outcome,
                    Err(error) => return Err(crate::Error::Token(error)),
                }
            }
        }
    });
    let only = api
        .operations
        .iter()
        .any(|op| {
            simple_success(op).is_some() || twins(op).iter().any(|t| simple_success(t).is_some())
        })
        .then(|| {
            quote! {
            /// `execute` for an operation that documents one success and nothing else.
            #[allow(clippy::result_large_err)] // the closure returns the methods' `Error`
            async fn only<T, E>(
                &self,
                request: reqwest::RequestBuilder,
                call: Call,
                decode: fn(&[u8]) -> Result<T, serde_json::Error>,
            ) -> Result<crate::Response<T>, crate::Error<E>> {
                self.execute(request, call, |answer| answer.only(decode)).await
            }
            }
        });
    let execute = (!api.operations.is_empty()).then(|| {
        quote! {
            /// Builds a request with the client's `Accept`, extra headers and total timeout.
            #[allow(clippy::result_large_err)] // the `Error` of the public methods
            fn prepare<E>(&self, request: reqwest::RequestBuilder, accept: &'static str) -> Result<reqwest::Request, crate::Error<E>> {
                let mut request = request.build().map_err(crate::Error::transport)?;
                if !accept.is_empty() {
                    request
                        .headers_mut()
                        .insert(reqwest::header::ACCEPT, reqwest::header::HeaderValue::from_static(accept));
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
                        Err(crate::Error::UnexpectedStatus { status, headers, body }) => {
                            answer(crate::error::Answer { status, headers, body })
                        }
                        Err(error) => Err(error.widen()),
                    }
                };
                let outcome = traced.run(outcome).await;
                traced.finish(outcome.as_ref().map_or_else(crate::Error::status, |ok| Some(ok.status())));
                outcome
            }

            #only

            /// Sends one attempt: the hooks see the request before and the answer's head
            /// after (with the latency so far).
            async fn send(&self, mut request: reqwest::Request, call: &Call, attempt: u32) -> Result<reqwest::Response, reqwest::Error> {
                let info = crate::CallInfo { operation: call.operation, method: call.method, path: call.path, attempt };
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
                Traced::attempt(attempt, outcome.as_ref().ok().map(reqwest::Response::status), latency);
                outcome
            }

            #exchange_doc
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
                    let #again_mut again = (self.retry.is_some() #or_token).then(|| request.try_clone()).flatten();
                    let outcome = match self.send(request, call, sent).await {
                        Ok(response) => match crate::error::Answer::read(response, self.max_response_bytes).await {
                            Ok(read) => read.screen(#penalty_pass),
                            Err(error) => Err(error),
                        },
                        Err(error) => Err(crate::Error::transport(error)),
                    };
                    sent += 1;
                    #refusal_step
                    let (Err(error), Some(policy), Some(#again_next)) = (&outcome, &self.retry, again) else {
                        return outcome;
                    };
                    let Some(wait) = policy.delay(error, idempotent, attempt, waited) else {
                        return outcome;
                    };
                    #resend_step
                    tokio::time::sleep(wait).await;
                    waited += wait;
                    attempt += 1;
                    request = next;
                }
            }
        }
    });
    let call_items =
        (!api.operations.is_empty()).then(|| call_items(&penalty_field, token_field.as_ref()));
    let detached = (!auth::refreshing(api).is_empty()).then(|| {
        quote! {
            /// The client's settings (hooks, extra headers, timeouts, retry policy, body
            /// cap, connections) with credentials of its own: what a refreshing token
            /// source sends with, so that installing the source in this client makes no
            /// reference cycle.
            pub(crate) fn detached(&self) -> Self {
                let mut client = self.clone();
                client.credentials = std::sync::Arc::new(std::sync::RwLock::new(Credentials::default()));
                client
            }
        }
    });
    let credentials_doc = auth::client_doc(api);
    let credentials = auth::field(api);
    let credentials_init = auth::field_init(api);
    let credentials_clone = auth::field_clone(api);
    let credentials_debug = auth::field_debug(api);
    let credential_methods = auth::client_methods(api);
    let (server_doc, server_join, server_const, base_url_doc) = server_items(api);
    let credential_items = auth::items(api);
    let form_items = multipart::items(api, &models);
    let tokens = quote! {
        //! The async client: one method per operation of the spec.

        #encoders

        /// Async client of the API.
        ///
        /// Built from the base URL of the server, path prefix included (for example
        /// `http://127.0.0.1:8080/v1`); each operation's path is appended to it. Proxies,
        /// TLS settings and the connect timeout belong to the `reqwest::Client` given to
        /// [`Client::with_client`]; the total timeout of each call is this client's
        /// ([`Client::set_timeout`]) either way.
        ///
        #credentials_doc
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
            #credentials
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
            /// (string lengths, numeric ranges, list sizes, combined lengths; not
            /// `pattern`, which is left to the server) before sending; on unless set.
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
            #server_doc
            pub fn with_client(base_url: impl Into<String>, http: reqwest::Client) -> Self {
                let mut base_url = base_url.into();
                while base_url.ends_with('/') {
                    base_url.pop();
                }
                #server_join
                Self {
                    base_url,
                    http,
                    #credentials_init
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
            pub const DEFAULT_USER_AGENT: &'static str = concat!(env!("CARGO_PKG_NAME"), "/", env!("CARGO_PKG_VERSION"));

            /// The default cap on the size of an answer's body read into memory: 64 MiB.
            pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

            #server_const

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
            /// status, or `Error::Business` where the server rejects in a success body. For
            /// a test of the server's rules, or when a server has relaxed a rule before its
            /// spec caught up. A path segment that would resolve to `.` or `..` is refused
            /// either way: it would send the request to another resource.
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
            /// `client.with_header(name, key).place_order(…)` gives one call an
            /// idempotency key or a tenant header. The clone shares the credentials and
            /// connections; `Debug` shows the header's name, not its value.
            #[must_use]
            pub fn with_header(&self, name: reqwest::header::HeaderName, value: reqwest::header::HeaderValue) -> Self {
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

            #execute

            #detached

            #base_url_doc
            pub fn base_url(&self) -> &str {
                &self.base_url
            }

            /// The `reqwest::Client` requests go through.
            pub fn http_client(&self) -> &reqwest::Client {
                &self.http
            }

            #credential_methods

            #(#all_methods)*
        }

        impl Clone for Client {
            fn clone(&self) -> Self {
                Self {
                    base_url: self.base_url.clone(),
                    http: self.http.clone(),
                    #credentials_clone
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
                f.debug_struct("Client")
                    .field("base_url", &self.base_url)
                    .field("timeout", &self.timeout)
                    .field("max_response_bytes", &self.max_response_bytes)
                    .field("retry", &self.retry)
                    .field("headers", &self.headers.keys().collect::<Vec<_>>())
                    .field("hooks", &self.hooks.len())
                    .field("check_arguments", &self.check_arguments)
                    #credentials_debug
                    .finish_non_exhaustive()
            }
        }

        #call_items

        #credential_items

        #form_items

        #(#enums)*
    };
    (tokens, parts)
}

/// What the client does with a relative server URL of the spec (`/api`): the
/// `SERVER_PATH` constant, its joining to the base URL in `with_client` (where every
/// constructor ends), and the docs that say so. The path is appended unless the base URL
/// already ends with it, so that both `http://host` and `http://host/api` (how a user
/// who read the spec's URL would write it) reach `http://host/api/…`; a proxy's prefix
/// (`http://gateway/prefect`) is kept before it.
fn server_items(api: &Api) -> (TokenStream, TokenStream, TokenStream, TokenStream) {
    let Some(path) = &api.server_path else {
        return (
            TokenStream::new(),
            TokenStream::new(),
            TokenStream::new(),
            docs::outer("The base URL, without a trailing slash."),
        );
    };
    let doc = docs::outer(&format!(
        "The spec serves the API under `{path}` (a relative `servers` URL): it is joined \
         to `base_url` unless that already ends with it, so `http://host:4200` and \
         `http://host:4200{path}` both send to `http://host:4200{path}/…`."
    ));
    // After the constructor's own paragraph.
    let doc = quote!(#[doc = ""] #doc);
    let join = quote! {
        if !base_url.ends_with(Self::SERVER_PATH) {
            base_url.push_str(Self::SERVER_PATH);
        }
    };
    let constant_doc = docs::outer(&format!(
        "The path the spec's relative `servers` URL gives (`{path}`), joined to the base \
         URL a client is made with (see [`Client::with_client`])."
    ));
    let constant = quote! {
        #constant_doc
        pub const SERVER_PATH: &'static str = #path;
    };
    let base_doc = docs::outer(&format!(
        "The base URL, without a trailing slash, with [`Client::SERVER_PATH`] (`{path}`) \
         joined."
    ));
    (doc, join, constant, base_doc)
}

/// The models a success enum holds behind a `Box`: structs and unions (through aliases).
///
/// A success enum has several variants, often a model beside a body-less `204`, and clippy
/// (`large_enum_variant`) rejects an enum whose largest variant outweighs the next by 200
/// bytes. Sizes are unknown at generation time (they depend on the field types' layouts),
/// so every struct or union payload is boxed, as clippy suggests: one allocation per call,
/// nothing beside the HTTP exchange, and every success enum stays a few words whatever the
/// spec's models weigh. Lists, maps, strings and string enums are already small and stay
/// inline (`Box<Vec<_>>` is clippy's `box_collection`).
struct Boxed<'a>(std::collections::HashSet<&'a str>);

impl<'a> Boxed<'a> {
    fn of(api: &'a Api) -> Self {
        let find = |name: &str| api.types.iter().find(|t| t.name() == name);
        let mut set = std::collections::HashSet::new();
        for t in &api.types {
            let mut current = t;
            // Aliases are followed a bounded number of steps (a cycle is not a model).
            for _ in 0..api.types.len() {
                match current {
                    TypeDef::Struct(_) | TypeDef::Union(_) => {
                        set.insert(t.name());
                        break;
                    }
                    TypeDef::Alias(a) => match &a.ty {
                        Ty::Named(n) => match find(n) {
                            Some(next) => current = next,
                            None => break,
                        },
                        _ => break,
                    },
                    TypeDef::Enum(_) => break,
                }
            }
        }
        Boxed(set)
    }

    /// Whether this response's body is held boxed in a success enum.
    fn holds(&self, r: &ResponseDef) -> bool {
        matches!(&r.payload, Payload::Json(Ty::Named(n)) if self.0.contains(n.as_str()))
    }
}

/// The Rust type of a response payload.
fn payload_type(p: &Payload, models: &TokenStream) -> Option<TokenStream> {
    match p {
        Payload::None => None,
        Payload::Json(ty) => Some(owned(ty, models)),
        Payload::Text => Some(quote!(String)),
        Payload::Bytes => Some(quote!(Vec<u8>)),
    }
}

fn success_enum_name(op: &Operation) -> proc_macro2::Ident {
    format_ident!("{}Response", op.type_prefix)
}

fn error_enum_name(op: &Operation) -> proc_macro2::Ident {
    format_ident!("{}Error", op.type_prefix)
}

fn successes(op: &Operation) -> Vec<&ResponseDef> {
    op.responses
        .iter()
        .filter(|r| r.status.is_success())
        .collect()
}

fn failures(op: &Operation) -> Vec<&ResponseDef> {
    op.responses
        .iter()
        .filter(|r| !r.status.is_success())
        .collect()
}

/// Whether a variant carries the status: classes and `default` cover several, and an
/// exact status that `http` has no constant for is carried rather than built from a
/// number (which could fail, as far as the compiler knows).
fn carries_status(r: &ResponseDef) -> bool {
    match r.status {
        StatusMatch::Code(c) => status_const(c).is_none(),
        _ => true,
    }
}

/// Whether an operation's only success is `(StatusCode, T)`: when it covers several
/// statuses. An exact one, even one `http` has no constant for, needs no status of its
/// own (`Response` has it), and is read by `Answer::only` or the business check.
fn lone_success_carries_status(r: &ResponseDef) -> bool {
    !matches!(r.status, StatusMatch::Code(_))
}

/// The name of the `http::StatusCode` constant of `code`, for the statuses every `http`
/// 1.x names (`EARLY_HINTS` and `TOO_EARLY` came later and are left out, so the generated
/// crate builds with any `http` that `reqwest` accepts).
fn status_const(code: u16) -> Option<&'static str> {
    Some(match code {
        100 => "CONTINUE",
        101 => "SWITCHING_PROTOCOLS",
        102 => "PROCESSING",
        200 => "OK",
        201 => "CREATED",
        202 => "ACCEPTED",
        203 => "NON_AUTHORITATIVE_INFORMATION",
        204 => "NO_CONTENT",
        205 => "RESET_CONTENT",
        206 => "PARTIAL_CONTENT",
        207 => "MULTI_STATUS",
        208 => "ALREADY_REPORTED",
        226 => "IM_USED",
        300 => "MULTIPLE_CHOICES",
        301 => "MOVED_PERMANENTLY",
        302 => "FOUND",
        303 => "SEE_OTHER",
        304 => "NOT_MODIFIED",
        305 => "USE_PROXY",
        307 => "TEMPORARY_REDIRECT",
        308 => "PERMANENT_REDIRECT",
        400 => "BAD_REQUEST",
        401 => "UNAUTHORIZED",
        402 => "PAYMENT_REQUIRED",
        403 => "FORBIDDEN",
        404 => "NOT_FOUND",
        405 => "METHOD_NOT_ALLOWED",
        406 => "NOT_ACCEPTABLE",
        407 => "PROXY_AUTHENTICATION_REQUIRED",
        408 => "REQUEST_TIMEOUT",
        409 => "CONFLICT",
        410 => "GONE",
        411 => "LENGTH_REQUIRED",
        412 => "PRECONDITION_FAILED",
        413 => "PAYLOAD_TOO_LARGE",
        414 => "URI_TOO_LONG",
        415 => "UNSUPPORTED_MEDIA_TYPE",
        416 => "RANGE_NOT_SATISFIABLE",
        417 => "EXPECTATION_FAILED",
        418 => "IM_A_TEAPOT",
        421 => "MISDIRECTED_REQUEST",
        422 => "UNPROCESSABLE_ENTITY",
        423 => "LOCKED",
        424 => "FAILED_DEPENDENCY",
        426 => "UPGRADE_REQUIRED",
        428 => "PRECONDITION_REQUIRED",
        429 => "TOO_MANY_REQUESTS",
        431 => "REQUEST_HEADER_FIELDS_TOO_LARGE",
        451 => "UNAVAILABLE_FOR_LEGAL_REASONS",
        500 => "INTERNAL_SERVER_ERROR",
        501 => "NOT_IMPLEMENTED",
        502 => "BAD_GATEWAY",
        503 => "SERVICE_UNAVAILABLE",
        504 => "GATEWAY_TIMEOUT",
        505 => "HTTP_VERSION_NOT_SUPPORTED",
        506 => "VARIANT_ALSO_NEGOTIATES",
        507 => "INSUFFICIENT_STORAGE",
        508 => "LOOP_DETECTED",
        510 => "NOT_EXTENDED",
        511 => "NETWORK_AUTHENTICATION_REQUIRED",
        _ => return None,
    })
}

/// A response or error enum of an operation.
fn response_enum(
    name: &proc_macro2::Ident,
    doc: &str,
    responses: &[&ResponseDef],
    models: &TokenStream,
    boxed: Option<&Boxed>,
    private: TokenStream,
    open: bool,
) -> TokenStream {
    let doc = docs::outer(doc);
    // An error enum gains a variant whenever the spec documents one more error status:
    // `#[non_exhaustive]` keeps the callers' matches compiling then (they need a `_` arm).
    let non_exhaustive = open.then(|| quote!(#[non_exhaustive]));
    let variants = responses.iter().map(|r| {
        let v = ident(&r.variant);
        let vdoc = docs::outer(&r.doc);
        let payload = payload_type(&r.payload, models);
        let payload = match boxed {
            Some(b) if b.holds(r) => payload.map(|t| quote!(Box<#t>)),
            _ => payload,
        };
        match (carries_status(r), payload) {
            (false, None) => quote!(#vdoc #v,),
            (false, Some(t)) => quote!(#vdoc #v(#t),),
            (true, None) => quote!(#vdoc #v {
                /// The HTTP status.
                status: reqwest::StatusCode
            },),
            (true, Some(t)) if r.payload == Payload::Bytes => quote!(#vdoc #v {
                /// The HTTP status.
                status: reqwest::StatusCode,
                /// The body as received.
                body: #t
            },),
            (true, Some(t)) => quote!(#vdoc #v {
                /// The HTTP status.
                status: reqwest::StatusCode,
                /// The decoded body.
                body: #t
            },),
        }
    });
    let arms = responses.iter().map(|r| {
        let v = ident(&r.variant);
        let has_payload = r.payload != Payload::None;
        let constant = match r.status {
            StatusMatch::Code(c) => status_const(c).map(|name| format_ident!("{}", name)),
            _ => None,
        };
        match (constant, has_payload) {
            (Some(c), false) => quote!(Self::#v => reqwest::StatusCode::#c,),
            (Some(c), true) => quote!(Self::#v(_) => reqwest::StatusCode::#c,),
            (None, _) => quote!(Self::#v { status, .. } => *status,),
        }
    });
    let status_fn = if responses.is_empty() {
        quote!(match *self {})
    } else {
        quote!(match self { #(#arms)* })
    };
    // Bodies are held inline as the spec nests them (the same choice as the unions of
    // `models.rs`): boxing would cost every match for the sake of size. Only an enum with
    // a `Rejected` variant (a whole success body beside small error bodies) needs saying.
    let allow = responses
        .iter()
        .any(|r| r.variant == "Rejected" && r.media.is_empty())
        .then(|| quote!(#[allow(clippy::large_enum_variant)]));
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq)]
        #allow
        #non_exhaustive
        pub enum #name {
            #(#variants)*
        }

        impl #name {
            /// The HTTP status of the answer.
            pub fn status(&self) -> reqwest::StatusCode {
                #status_fn
            }

            #private
        }
    }
}

/// The documented error answers of an operation: its error statuses, then the
/// business rejection (`x-business-error`) if it checks one.
fn error_responses(op: &Operation) -> Vec<ResponseDef> {
    let mut errors: Vec<ResponseDef> = failures(op).into_iter().cloned().collect();
    errors.extend(rejected_variant(op));
    errors
}

/// The error enum of every operation, one enum per distinct shape.
///
/// Most operations of a large spec document the same errors (every operation of nexus
/// answers `4XX` and `5XX` with the same `Error` body; every one of the platform
/// document's answers no documented error at all). An enum per operation repeated the
/// same enum, its derives and its impls hundreds of times, which was about a fifth of the
/// `cargo check` of nexus's crate. Operations whose errors have the same shape (the same
/// variants, statuses, bodies and docs) share one enum; each keeps its own name as a
/// type alias, so a caller names and matches `VpcViewError` as before.
struct ErrorShapes {
    /// Per operation (spec order): the enum's name and whether the operation is the
    /// first of its shape (which emits the enum).
    by_op: Vec<(proc_macro2::Ident, bool)>,
    /// Per operation: how many operations share its shape.
    users: Vec<usize>,
}

impl ErrorShapes {
    fn of(operations: &[Operation]) -> Self {
        let keys: Vec<String> = operations
            .iter()
            .map(|op| {
                let parts: Vec<_> = error_responses(op)
                    .iter()
                    .map(|r| {
                        (
                            r.variant.clone(),
                            r.doc.clone(),
                            format!("{:?}", r.status),
                            format!("{:?}", r.payload),
                            r.media.is_empty(),
                        )
                    })
                    .collect();
                format!("{parts:?}")
            })
            .collect();
        let mut count: HashMap<&str, usize> = HashMap::new();
        for k in &keys {
            *count.entry(k).or_default() += 1;
        }
        // A shared name must not be an operation's own type name nor a fixed item of
        // the module.
        let mut taken: std::collections::HashSet<String> = operations
            .iter()
            .flat_map(|op| {
                [
                    error_enum_name(op).to_string(),
                    success_enum_name(op).to_string(),
                ]
            })
            .chain(["Client", "ClientBuilder", "Call", "Traced", "Sourced"].map(str::to_owned))
            .collect();
        let mut named: HashMap<&str, proc_macro2::Ident> = HashMap::new();
        let mut by_op = Vec::new();
        let mut users = Vec::new();
        for (op, key) in operations.iter().zip(&keys) {
            let n = count[key.as_str()];
            users.push(n);
            if n == 1 {
                by_op.push((error_enum_name(op), true));
                continue;
            }
            if let Some(name) = named.get(key.as_str()) {
                by_op.push((name.clone(), false));
                continue;
            }
            let errors = error_responses(op);
            let base = if errors.is_empty() {
                "NoDocumentedError".to_owned()
            } else {
                let variants: String = errors.iter().map(|r| r.variant.as_str()).collect();
                format!("{variants}Error")
            };
            let mut name = base.clone();
            let mut suffix = 2;
            while taken.contains(&name) {
                name = format!("{base}{suffix}");
                suffix += 1;
            }
            taken.insert(name.clone());
            let name = format_ident!("{}", name);
            named.insert(key, name.clone());
            by_op.push((name, true));
        }
        ErrorShapes { by_op, users }
    }
}

fn op_enums(
    op: &Operation,
    models: &TokenStream,
    boxed: &Boxed,
    shapes: &ErrorShapes,
    index: usize,
) -> TokenStream {
    let method = &op.name;
    let mut out = TokenStream::new();
    let ok = successes(op);
    if ok.len() > 1 {
        let doc = format!("Documented success answers of [`Client::{method}`].");
        out.extend(response_enum(
            &success_enum_name(op),
            &doc,
            &ok,
            models,
            Some(boxed),
            TokenStream::new(),
            false,
        ));
    }
    let (name, first) = &shapes.by_op[index];
    let shared = shapes.users[index] > 1;
    if *first {
        let doc = if shared {
            format!(
                "Documented error answers shared by the {} operations that document the same \
                 errors (the first is [`Client::{method}`]); each names it by an alias of its own.",
                shapes.users[index]
            )
        } else {
            format!("Documented error answers of [`Client::{method}`].")
        };
        let errors = error_responses(op);
        let errors: Vec<&ResponseDef> = errors.iter().collect();
        out.extend(response_enum(
            name,
            &doc,
            &errors,
            models,
            None,
            failure_fn(op),
            true,
        ));
        out.extend(quote! {
            impl crate::DocumentedError for #name {
                fn status(&self) -> reqwest::StatusCode {
                    #name::status(self)
                }
            }
        });
    }
    if shared {
        let alias = error_enum_name(op);
        let doc = docs::outer(&format!(
            "Documented error answers of [`Client::{method}`] (an enum several operations share)."
        ));
        out.extend(quote! {
            #doc
            pub type #alias = #name;
        });
    }
    out.extend(answer_fn(op, models, boxed));
    for twin in twins(op) {
        out.extend(answer_fn(&twin, models, boxed));
    }
    out
}

/// The success type of an operation.
fn success_type(op: &Operation, models: &TokenStream) -> TokenStream {
    let ok = successes(op);
    match ok.as_slice() {
        [] => quote!(()),
        [one] if !lone_success_carries_status(one) => {
            payload_type(&one.payload, models).unwrap_or(quote!(()))
        }
        [one] => {
            let t = payload_type(&one.payload, models).unwrap_or(quote!(()));
            quote!((reqwest::StatusCode, #t))
        }
        _ => {
            let name = success_enum_name(op);
            quote!(#name)
        }
    }
}

/// The pattern of a status match arm.
fn status_pattern(s: &StatusMatch) -> TokenStream {
    match s {
        StatusMatch::Code(c) => {
            let c = Literal::u16_unsuffixed(*c);
            quote!(#c)
        }
        StatusMatch::Class(c) => {
            let lo = Literal::u16_unsuffixed(c * 100);
            let hi = Literal::u16_unsuffixed(c * 100 + 99);
            quote!(#lo..=#hi)
        }
        StatusMatch::Default => quote!(_),
    }
}

/// The runtime decoder of a payload (`crate::error::json` and its siblings).
fn decoder(p: &Payload) -> TokenStream {
    match p {
        Payload::None => quote!(crate::error::empty),
        Payload::Json(_) => quote!(crate::error::json),
        Payload::Text => quote!(crate::error::text),
        Payload::Bytes => quote!(crate::error::bytes),
    }
}

/// The closure (or variant constructor) putting a decoded body into `enum_name::variant`,
/// boxing it first when `boxed`.
fn wrap(r: &ResponseDef, enum_name: &TokenStream, boxed: bool) -> TokenStream {
    let v = ident(&r.variant);
    if boxed {
        return if carries_status(r) {
            quote!(|body| #enum_name::#v { status, body: Box::new(body) })
        } else {
            quote!(|body| #enum_name::#v(Box::new(body)))
        };
    }
    match (carries_status(r), r.payload == Payload::None) {
        (false, true) => quote!(|()| #enum_name::#v),
        (false, false) => quote!(#enum_name::#v),
        (true, true) => quote!(|()| #enum_name::#v { status }),
        (true, false) => quote!(|body| #enum_name::#v { status, body }),
    }
}

/// `{ let status = …; expr }` when a variant carries the status, else `expr`.
fn with_status(r: &ResponseDef, expr: TokenStream) -> TokenStream {
    if carries_status(r) {
        quote!({
            let status = answer.status;
            #expr
        })
    } else {
        expr
    }
}

/// Responses in match order: exact statuses before classes before `default`.
fn match_order<'a>(responses: impl Iterator<Item = &'a ResponseDef>) -> Vec<&'a ResponseDef> {
    let mut ordered: Vec<&ResponseDef> = responses.collect();
    ordered.sort_by_key(|r| match r.status {
        StatusMatch::Code(_) => 0,
        StatusMatch::Class(_) => 1,
        StatusMatch::Default => 2,
    });
    ordered
}

/// Whether the operation checks its success body for a business rejection: the lowering
/// resolved `x-business-error` only for one success with an exact status.
fn checks_business(op: &Operation) -> bool {
    !op.business.is_empty()
}

/// The `Rejected` variant of the error enum: a success status whose body reports a
/// rejection (`x-business-error`).
fn rejected_variant(op: &Operation) -> Option<ResponseDef> {
    let ok = successes(op);
    let first = ok.first().filter(|_| checks_business(op))?;
    let fields: Vec<String> = op
        .business
        .iter()
        .map(|f| format!("`{}`", f.wire))
        .collect();
    Some(ResponseDef {
        status: StatusMatch::Class(2),
        variant: "Rejected".to_owned(),
        doc: format!(
            "A success status whose body reports that the request was rejected: {} is \
             non-empty (`x-business-error`). Comes as `Error::Business`.",
            fields.join(" or ")
        ),
        payload: first.payload.clone(),
        media: Vec::new(),
    })
}

/// The one documented answer of an operation that documents nothing else, when it is a
/// success with an exact status and no business check: such an operation (the
/// common case) needs no code of its own to read its answer, only `Answer::only`.
/// (A penalty is screened before any operation's own code.)
pub(super) fn simple_success(op: &Operation) -> Option<&ResponseDef> {
    match op.responses.as_slice() {
        [one]
            if matches!(one.status, StatusMatch::Code(c) if (200..300).contains(&c))
                && op.business.is_empty() =>
        {
            Some(one)
        }
        _ => None,
    }
}

/// The name of the private function that turns an answer of the operation into its
/// result (every method of the operation, one per body encoding, shares it).
fn answer_fn_name(op: &Operation) -> proc_macro2::Ident {
    format_ident!("{}_answer", op.name.trim_start_matches("r#"))
}

/// The private function that turns an answer of the operation into its result: a free
/// function, since the error enum may be shared by operations with other successes.
fn answer_fn(op: &Operation, models: &TokenStream, boxed: &Boxed) -> TokenStream {
    if simple_success(op).is_some() {
        return TokenStream::new();
    }
    let err = error_enum_name(op);
    let fn_name = answer_fn_name(op);
    let ok = successes(op);
    let ok_type = success_type(op, models);
    let ok_name = success_enum_name(op);
    let ok_path = quote!(#ok_name);
    let mut ok_arms = Vec::new();
    for r in match_order(ok.iter().copied()) {
        // A lone success stands for every `2xx`: a server that answers `201` where the
        // spec says `200` has still done what was asked, and an error would invite a
        // retry that does it twice. The lowering gives an operation with no success, or
        // several, a `2XX` catch-all of its own.
        let pat = if ok.len() == 1 {
            status_pattern(&StatusMatch::Class(2))
        } else if r.status == StatusMatch::Class(2) {
            // After exact `2xx` arms a `200..=299` range overlaps them (clippy's
            // `match_overlapping_arm`); a guard says the same.
            quote!(_ if answer.status.is_success())
        } else {
            status_pattern(&r.status)
        };
        let dec = decoder(&r.payload);
        let expr = if ok.len() > 1 {
            let wrap = wrap(r, &ok_path, boxed.holds(r));
            quote!(answer.success_with(#dec, #wrap))
        } else if lone_success_carries_status(r) {
            let none = r.payload == Payload::None;
            let wrap = if none {
                quote!(|()| (status, ()))
            } else {
                quote!(|body| (status, body))
            };
            quote!(answer.success_with(#dec, #wrap))
        } else if checks_business(op) {
            let fields = op.business.iter().map(|f| {
                let name = ident(&f.name);
                let wire = &f.wire;
                if f.explicit_null {
                    quote!((#wire, body.#name.as_ref().and_then(Option::as_deref)))
                } else if f.optional {
                    quote!((#wire, body.#name.as_deref()))
                } else {
                    quote!((#wire, Some(body.#name.as_str())))
                }
            });
            let t = payload_type(&r.payload, models);
            quote!(answer.success_unless(
                #dec,
                |body: &#t| crate::business::first_reported(&[#(#fields),*]),
                |status, body| #err::Rejected { status, body },
            ))
        } else {
            quote!(answer.success(#dec))
        };
        // A variant of a success enum, or a lone success over several statuses, is built
        // with the status it came with.
        let carried = if ok.len() > 1 {
            carries_status(r)
        } else {
            lone_success_carries_status(r)
        };
        let expr = if carried { with_status(r, expr) } else { expr };
        ok_arms.push(quote!(#pat => #expr,));
    }
    let otherwise = if failures(op).is_empty() {
        quote!(answer.unexpected())
    } else {
        quote!(#err::failure(answer))
    };
    let answer_body = if ok_arms.is_empty() {
        quote!(Err(#otherwise))
    } else {
        quote!(match answer.status.as_u16() {
            #(#ok_arms)*
            _ => Err(#otherwise),
        })
    };
    let doc = docs::outer(&format!(
        "Turns an answer of [`Client::{}`] into its result.",
        op.name
    ));
    // `result_large_err`: the public methods return the same `Error` (the lint does not
    // look at `async fn`s); it carries the answer's headers and decoded body by design.
    quote! {
        #doc
        #[allow(clippy::result_large_err)]
        fn #fn_name(answer: crate::error::Answer) -> Result<crate::Response<#ok_type>, crate::Error<#err>> {
            #answer_body
        }
    }
}

/// The private function of an error enum that turns an answer that is not a documented
/// success into the error (the streaming twin calls it once it knows the answer is not a
/// success). It depends on the error statuses only, so a shared enum has one.
fn failure_fn(op: &Operation) -> TokenStream {
    let failures = match_order(failures(op).into_iter());
    let this = quote!(Self);
    let fail_arm = |r: &ResponseDef| {
        let dec = decoder(&r.payload);
        let wrap = wrap(r, &this, false);
        with_status(r, quote!(answer.documented(#dec, #wrap)))
    };
    let has_default = failures.iter().any(|r| r.status == StatusMatch::Default);
    let failure_body = match failures.as_slice() {
        [] => return TokenStream::new(),
        // A lone catch-all arm is clippy's `match_single_binding`.
        [only] if only.status == StatusMatch::Default => fail_arm(only),
        _ => {
            let arms = failures.iter().map(|r| {
                let pat = status_pattern(&r.status);
                let expr = fail_arm(r);
                quote!(#pat => #expr,)
            });
            let rest = (!has_default).then(|| quote!(_ => answer.unexpected(),));
            quote!(match answer.status.as_u16() {
                #(#arms)*
                #rest
            })
        }
    };
    quote! {
        /// Turns an answer that is not a documented success into the operation's error.
        #[allow(clippy::result_large_err)]
        fn failure(answer: crate::error::Answer) -> crate::Error<Self> {
            #failure_body
        }
    }
}

/// The `Accept` header of an operation: every media type its answers may have but its
/// negotiation twins' ones, in spec order, or empty when none is documented.
fn accept(op: &Operation) -> String {
    let mut seen: Vec<&str> = Vec::new();
    // What a negotiation twin asks for, the main method does not: a server choosing
    // `text/plain` from the list would answer text where JSON is decoded.
    let twins: Vec<&String> = op.negotiated.iter().flat_map(|n| &n.media).collect();
    for r in &op.responses {
        for m in &r.media {
            if !seen.iter().any(|s| s.eq_ignore_ascii_case(m))
                && !twins.iter().any(|t| t.eq_ignore_ascii_case(m))
            {
                seen.push(m);
            }
        }
    }
    seen.join(", ")
}

fn param_type(p: &Param, models: &TokenStream) -> TokenStream {
    let t = argument(&p.ty, models);
    if p.required { t } else { quote!(Option<#t>) }
}

/// Statements adding one parameter to `request`.
fn add_param(p: &Param) -> TokenStream {
    let name = ident(&p.name);
    let wire = &p.wire;
    let value = quote!(value);
    let put = match (&p.location, &p.ty, &p.list) {
        // `JsonText` serializes while reqwest encodes the query: an error is the
        // builder's, as for a JSON body, and comes out as `Error::Transport`.
        (ParamLocation::Query, _, ListEncoding::JsonText) => quote! {
            request = request.query(&[(#wire, JsonText(#value))]);
        },
        (ParamLocation::Query, Ty::Vec(_), ListEncoding::Repeat) => quote! {
            request = request.query(&#value.iter().map(|item| (#wire, item)).collect::<Vec<_>>());
        },
        // Appended to the URL before the request is built: see `add_joined_query`.
        (ParamLocation::Query, Ty::Vec(_), ListEncoding::Join(_)) => return TokenStream::new(),
        (ParamLocation::Query, _, ListEncoding::ObjectForm { .. } | ListEncoding::DeepObject) => {
            return TokenStream::new();
        }
        (ParamLocation::Query, _, _) => quote! {
            request = request.query(&[(#wire, #value)]);
        },
        // An object with no set property expands to nothing: no header rather than an
        // empty one.
        (ParamLocation::Header, _, ListEncoding::ObjectStyled { explode, .. }) => quote! {
            let expanded = object_style("", #wire, value, #explode, false);
            if !expanded.is_empty() {
                request = request.header(#wire, expanded);
            }
        },
        (ParamLocation::Header, Ty::Vec(_), list) => {
            let sep = match list {
                ListEncoding::Join(s) => s.clone(),
                _ => ",".to_owned(),
            };
            quote! {
                let joined = #value.iter().map(ToString::to_string).collect::<Vec<_>>().join(#sep);
                request = request.header(#wire, joined);
            }
        }
        (ParamLocation::Header, _, _) => quote! {
            request = request.header(#wire, #value.to_string());
        },
        (ParamLocation::Cookie, Ty::Vec(_), _) => quote! {
            let joined = #value.iter().map(|item| encode_path_segment(&item.to_string())).collect::<Vec<_>>().join(",");
            cookies.push(format!("{}={joined}", #wire));
        },
        (ParamLocation::Cookie, Ty::String, _) => quote! {
            cookies.push(format!("{}={}", #wire, encode_path_segment(#value)));
        },
        (ParamLocation::Cookie, _, _) => quote! {
            cookies.push(format!("{}={}", #wire, encode_path_segment(&#value.to_string())));
        },
        (ParamLocation::Path, _, _) => return TokenStream::new(),
    };
    if p.required {
        quote!({ let value = #name; #put })
    } else {
        quote!(if let Some(value) = #name { #put })
    }
}

/// Whether a parameter is written into the URL's query by hand: a list sent as one joined
/// value (`names=A,B`) or an object.
fn is_joined_query(p: &Param) -> bool {
    matches!(
        (&p.location, &p.ty, &p.list),
        (ParamLocation::Query, Ty::Vec(_), ListEncoding::Join(_))
    ) || (p.location == ParamLocation::Query && p.list.is_object())
}

/// Statements appending a joined query list to `url`. The separator has to stay literal
/// while each item is percent-encoded (an item holding a comma stays one item), which
/// `RequestBuilder::query` cannot do: it would encode the separator too.
///
/// An object goes through its JSON form (see the emitted `object_pairs`), so structs and
/// maps share one path; brackets of `deepObject` stay literal as OpenAPI writes them.
fn add_joined_query(p: &Param) -> TokenStream {
    let name = ident(&p.name);
    let wire = &p.wire;
    let put = match &p.list {
        ListEncoding::Join(sep) => {
            // A space cannot stand in a URL; `spaceDelimited` sends it encoded.
            let sep = if sep == " " { "%20" } else { sep.as_str() };
            quote! {
                push_joined_query(&mut url, #wire, value.iter().map(ToString::to_string), #sep);
            }
        }
        ListEncoding::ObjectForm { explode: true } => quote! {
            push_object_query(&mut url, None, value);
        },
        ListEncoding::ObjectForm { explode: false } => quote! {
            push_joined_query(&mut url, #wire, object_pairs(value).into_iter().flat_map(|(key, item)| [key, item]), ",");
        },
        ListEncoding::DeepObject => quote! {
            push_object_query(&mut url, Some(#wire), value);
        },
        _ => return TokenStream::new(),
    };
    if p.required {
        quote!({ let value = #name; #put })
    } else {
        quote!(if let Some(value) = #name { #put })
    }
}

/// Statements checking a parameter's constraints.
fn check_param(p: &Param) -> TokenStream {
    let name = ident(&p.name);
    let v = quote!(v);
    let body = checks::statements(checks::Context::Client, &v, &p.ty, &p.checks, &p.wire);
    if body.is_empty() {
        return body;
    }
    if p.required {
        quote!(if self.check_arguments { let v = #name; #body })
    } else {
        quote!(if self.check_arguments && let Some(v) = #name { #body })
    }
}

/// The refusal of a path whose parameters made a whole segment `.` or `..` (which URL
/// parsing would resolve away), naming the parameters of that segment; nothing for a
/// path without parameters. Encoded values never hold `/`, so the segments of the built
/// path are the template's.
fn dot_segment_check(op: &Operation, uses: &mut Uses) -> TokenStream {
    let mut segments: Vec<Vec<&str>> = vec![Vec::new()];
    for part in &op.path {
        match part {
            PathPart::Literal(text) => {
                let mut pieces = text.split('/');
                pieces.next();
                segments.extend(pieces.map(|_| Vec::new()));
            }
            PathPart::Param(name) => {
                let wire = op
                    .params
                    .iter()
                    .find(|p| &p.name == name)
                    .map_or(name.as_str(), |p| p.wire.as_str());
                let last = segments.last_mut().expect("starts with one segment");
                if !last.contains(&wire) {
                    last.push(wire);
                }
            }
        }
    }
    let arms: Vec<TokenStream> = segments
        .iter()
        .enumerate()
        .filter(|(_, names)| !names.is_empty())
        .map(|(i, names)| {
            let i = Literal::usize_unsuffixed(i);
            quote!(Some(#i) => vec![#(#names),*],)
        })
        .collect();
    if arms.is_empty() {
        return TokenStream::new();
    }
    uses.dots = true;
    quote! {
        let fields = match dot_segment(&url[self.base_url.len()..]) {
            #(#arms)*
            _ => Vec::new(),
        };
        if !fields.is_empty() {
            return Err(crate::Error::Constraint(crate::ConstraintViolation {
                fields,
                constraint: crate::Constraint::DotSegment,
            }));
        }
    }
}

/// Statements binding the encoded path parameters, and the expression of the URL.
fn url_expr(op: &Operation, uses: &mut Uses) -> (TokenStream, TokenStream) {
    let mut fmt = String::from("{}");
    let mut args = vec![quote!(self.base_url)];
    let mut lets = TokenStream::new();
    for part in &op.path {
        match part {
            PathPart::Literal(text) => fmt.push_str(&text.replace('{', "{{").replace('}', "}}")),
            PathPart::Param(name) => {
                uses.path = true;
                if op
                    .path
                    .iter()
                    .take_while(|p| !std::ptr::eq(*p, part))
                    .any(|p| p == part)
                {
                    // Named twice in the path: encoded once, used twice.
                    fmt.push_str("{}");
                    let n = ident(name);
                    args.push(quote!(#n));
                    continue;
                }
                fmt.push_str("{}");
                let n = ident(name);
                // The encoded value shadows the argument: no other name can collide.
                let local = n.clone();
                let p = op.params.iter().find(|p| &p.name == name);
                if let Some(styled) = p.and_then(|p| styled_path_param(p, uses)) {
                    lets.extend(quote!(let #local = #styled;));
                    args.push(quote!(#local));
                    continue;
                }
                lets.extend(match p.map(|p| &p.ty) {
                    // `simple` style: items encoded one by one, joined by literal commas.
                    Some(Ty::Vec(item)) if **item == Ty::String => quote! {
                        let #local = #n
                            .iter()
                            .map(|item| encode_path_segment(item))
                            .collect::<Vec<_>>()
                            .join(",");
                    },
                    Some(Ty::Vec(_)) => quote! {
                        let #local = #n
                            .iter()
                            .map(|item| encode_path_segment(&item.to_string()))
                            .collect::<Vec<_>>()
                            .join(",");
                    },
                    Some(Ty::String) => quote!(let #local = encode_path_segment(#n);),
                    _ => quote!(let #local = encode_path_segment(&#n.to_string());),
                });
                args.push(quote!(#local));
            }
        }
    }
    (lets, quote!(format!(#fmt, #(#args),*)))
}

/// The expression of a `label` or `matrix` path parameter's expansion, or `None` for
/// `simple` style.
fn styled_path_param(p: &Param, uses: &mut Uses) -> Option<TokenStream> {
    let n = ident(&p.name);
    if let ListEncoding::ObjectStyled { style, explode } = p.list {
        uses.object_pairs = true;
        uses.object_style = true;
        let lead = style.lead();
        let name = percent_encode(&p.wire);
        return Some(quote!(object_style(#lead, #name, #n, #explode, true)));
    }
    let items = match &p.ty {
        Ty::Vec(item) if **item == Ty::String => {
            quote!(&#n.iter().map(|item| encode_path_segment(item)).collect::<Vec<_>>())
        }
        Ty::Vec(_) => {
            quote!(&#n.iter().map(|item| encode_path_segment(&item.to_string())).collect::<Vec<_>>())
        }
        Ty::String => quote!(&[encode_path_segment(#n)]),
        _ => quote!(&[encode_path_segment(&#n.to_string())]),
    };
    match p.list {
        ListEncoding::Label { explode } => {
            uses.label = true;
            Some(quote!(label_style(#items, #explode)))
        }
        ListEncoding::Matrix { explode } => {
            uses.matrix = true;
            let name = percent_encode(&p.wire);
            Some(quote!(matrix_style(#name, #items, #explode)))
        }
        _ => None,
    }
}

/// The runtime's `encode_path_segment`, at generation time (for names fixed by the
/// spec): every byte but RFC 3986's unreserved characters escaped.
fn percent_encode(value: &str) -> String {
    const RESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(value, RESERVED).to_string()
}

/// The private `Call` (what the send path knows of an operation) and `Traced` (its
/// `tracing` span, behind the generated crate's `tracing` feature).
fn call_items(penalty_field: &TokenStream, token_field: Option<&TokenStream>) -> TokenStream {
    quote! {
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
            #penalty_field
            #token_field
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
            fn run<F: std::future::Future>(&self, future: F) -> impl std::future::Future<Output = F::Output> {
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
    }
}

/// Which of an operation's methods is printed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavour {
    /// Reads and decodes the whole answer.
    Decoded,
    /// Returns the `reqwest::Response` of a success (any `2xx`) unread.
    Stream,
}

/// The method's name, doc line and HTTP verb.
fn http_verb(m: Method) -> &'static str {
    match m {
        Method::Get => "GET",
        Method::Put => "PUT",
        Method::Post => "POST",
        Method::Delete => "DELETE",
        Method::Options => "OPTIONS",
        Method::Head => "HEAD",
        Method::Patch => "PATCH",
        Method::Trace => "TRACE",
    }
}

/// Every method of one operation: the main one, one per other body encoding, and the
/// streaming twin.
fn methods(
    op: &Operation,
    api: &Api,
    models: &TokenStream,
    validating: &[&str],
    uses: &mut Uses,
) -> TokenStream {
    let mut out = method(
        op,
        api,
        &op.name,
        op.body.as_ref(),
        Flavour::Decoded,
        models,
        validating,
        uses,
    );
    for (name, body) in &op.other_bodies {
        out.extend(method(
            op,
            api,
            name,
            Some(body),
            Flavour::Decoded,
            models,
            validating,
            uses,
        ));
    }
    if let Some(name) = &op.stream {
        out.extend(method(
            op,
            api,
            name,
            op.body.as_ref(),
            Flavour::Stream,
            models,
            validating,
            uses,
        ));
    }
    for twin in twins(op) {
        out.extend(method(
            &twin,
            api,
            &twin.name,
            twin.body.as_ref(),
            Flavour::Decoded,
            models,
            validating,
            uses,
        ));
    }
    out
}

/// The content-negotiation twins of an operation ([`Operation::negotiated`]), each as an
/// operation of its own that the method emitter prints like any other: the same name for
/// its types (so it shares the error enum), one success, any `2xx`, read as text or
/// bytes, and the twin's media types as its only answers' media types (its `Accept`). The
/// error answers keep their bodies and decoding; their media types are left out of the
/// `Accept`, which would otherwise let a server pick JSON for the success too.
pub(super) fn twins(op: &Operation) -> Vec<Operation> {
    op.negotiated
        .iter()
        .map(|n| {
            let media = n
                .media
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let read = if n.payload == Payload::Text {
                "as text (a body that is not UTF-8 is `Error::Decode`)"
            } else {
                "as the bytes received"
            };
            let mut responses: Vec<ResponseDef> = failures(op)
                .into_iter()
                .map(|r| ResponseDef {
                    media: Vec::new(),
                    ..r.clone()
                })
                .collect();
            responses.push(ResponseDef {
                status: StatusMatch::Code(200),
                variant: "Ok".to_owned(),
                doc: format!("A success in {media}."),
                payload: n.payload.clone(),
                media: n.media.clone(),
            });
            Operation {
                name: n.name.clone(),
                doc: format!(
                    "{}\n\nThe {media} form of [`Client::{}`]: asks for {media} (`Accept`) \
                     and returns the body of a success (any `2xx`) {read}.",
                    op.doc, op.name
                ),
                other_bodies: Vec::new(),
                stream: None,
                negotiated: Vec::new(),
                responses,
                business: Vec::new(),
                ..op.clone()
            }
        })
        .collect()
}

/// The argument type of a body.
fn body_type(b: &Body, models: &TokenStream) -> TokenStream {
    match (b.kind, b.required) {
        (BodyKind::Text, true) => quote!(impl Into<String>),
        (BodyKind::Text, false) => quote!(Option<String>),
        (BodyKind::Binary, true) => quote!(impl Into<reqwest::Body>),
        (BodyKind::Binary, false) => quote!(Option<reqwest::Body>),
        (BodyKind::Multipart, required) => {
            let name = ident(b.form.as_ref().map_or("FilePart", |f| f.name.as_str()));
            if required {
                quote!(#name)
            } else {
                quote!(Option<#name>)
            }
        }
        (BodyKind::Json | BodyKind::Form, required) => {
            let t = match &b.ty {
                Ty::Vec(inner) => {
                    let inner = owned(inner, models);
                    quote!(&[#inner])
                }
                Ty::String => quote!(&str),
                other => {
                    let t = owned(other, models);
                    if is_copy(other) { t } else { quote!(&#t) }
                }
            };
            if required { t } else { quote!(Option<#t>) }
        }
    }
}

/// Statements putting the body on `request`.
fn add_body(b: &Body) -> TokenStream {
    let media = &b.media;
    let content_type = quote!(.header(reqwest::header::CONTENT_TYPE, #media));
    let put = match b.kind {
        BodyKind::Json => {
            let arg = if is_copy(&b.ty) {
                quote!(&body)
            } else {
                quote!(body)
            };
            // `json` sets `application/json` only when no Content-Type is set yet.
            let ct = (essence_is_plain_json(media))
                .then(TokenStream::new)
                .unwrap_or(content_type);
            quote!(request = request #ct .json(#arg);)
        }
        BodyKind::Form => {
            let arg = if is_copy(&b.ty) {
                quote!(&body)
            } else {
                quote!(body)
            };
            quote!(request = request.form(#arg);)
        }
        BodyKind::Text if b.required => quote!(request = request #content_type .body(body.into());),
        BodyKind::Text | BodyKind::Binary => quote!(request = request #content_type .body(body);),
        // `multipart` sets `Content-Type` with the boundary itself.
        BodyKind::Multipart => multipart::add_form(b),
    };
    if b.required {
        put
    } else {
        quote!(if let Some(body) = body { #put })
    }
}

/// Whether a JSON media type is plain `application/json` (which `RequestBuilder::json`
/// sets itself).
fn essence_is_plain_json(media: &str) -> bool {
    media
        .split(';')
        .next()
        .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"))
}

#[allow(clippy::too_many_arguments)]
fn method(
    op: &Operation,
    api: &Api,
    method_name: &str,
    body: Option<&Body>,
    flavour: Flavour,
    models: &TokenStream,
    validating: &[&str],
    uses: &mut Uses,
) -> TokenStream {
    let name = ident(method_name);
    let http = http_verb(op.method);
    let mut doc = op.doc.clone();
    doc.push_str(&format!("\n\n`{http} {}`.", op.path_template));
    doc.push_str(&auth::method_doc(op, api));
    if let Some(b) = body.filter(|_| op.body.is_some()) {
        let all: Vec<(&String, &Body)> = std::iter::once((&op.name, op.body.as_ref().unwrap_or(b)))
            .chain(op.other_bodies.iter().map(|(n, b)| (n, b)))
            .collect();
        if all.len() > 1 {
            doc.push_str(&format!(
                "\n\nThis method sends the body as `{}`. The spec offers several encodings; each \
                 has a method of its own so that every signature takes exactly what its \
                 encoding needs: {}.",
                b.media,
                all.iter()
                    .map(|(n, b)| format!("[`Client::{n}`] (`{}`)", b.media))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if !op.negotiated.is_empty() && flavour == Flavour::Decoded {
        let twins: Vec<String> = op
            .negotiated
            .iter()
            .map(|n| {
                let media: Vec<String> = n.media.iter().map(|m| format!("`{m}`")).collect();
                format!("{} from [`Client::{}`]", media.join(", "), n.name)
            })
            .collect();
        let own = accept(op);
        let own = if own.is_empty() {
            "no `Accept`".to_owned()
        } else {
            format!("`Accept: {own}`")
        };
        doc.push_str(&format!(
            "\n\nThis method sends {own} and decodes that answer; the spec also offers {}.",
            twins.join(", ")
        ));
    }
    if flavour == Flavour::Stream {
        doc.push_str(&format!(
            "\n\nThe streaming form of [`Client::{}`]: on a success (any `2xx`) the \
             `reqwest::Response` comes back unread (read it with `chunk()` as it arrives, no \
             size cap applies); an error answer is read and decoded as usual. The \
             `reqwest::Response` and the errors of reading it are `reqwest`'s own: their URL \
             keeps its query, so do not print them where a query credential must not show.",
            op.name
        ));
    }
    let arg_docs: Vec<String> = op
        .params
        .iter()
        .map(|p| format!("- `{}`: {}", p.name, p.doc.replace('\n', " ")))
        .chain(body.map(|b| {
            let mut line = format!("- `body`: {}", b.doc.replace('\n', " "));
            if b.kind == BodyKind::Binary {
                // Streaming needs a reqwest feature this crate does not turn on for everyone.
                line.push_str(
                    " Any bytes (`Vec<u8>`, `bytes::Bytes`, `&'static [u8]`, `String`), or a \
                     stream through `reqwest::Body::wrap_stream` once your own `Cargo.toml` \
                     turns on reqwest's `stream` feature.",
                );
            }
            line
        }))
        .collect();
    if !arg_docs.is_empty() {
        doc.push_str("\n\n# Arguments\n\n");
        doc.push_str(&arg_docs.join("\n"));
    }
    let body_validates = body
        .filter(|b| matches!(b.kind, BodyKind::Json | BodyKind::Form))
        .and_then(|b| inner_named(&b.ty))
        .is_some_and(|named| validating.contains(&named));
    let checks_arguments = op.params.iter().any(|p| !check_param(p).is_empty()) || body_validates;
    doc.push_str("\n\n# Errors\n\n");
    if checks_arguments {
        doc.push_str(
            "`Error::Constraint` when an argument breaks the spec's constraints (nothing is \
             sent), ",
        );
    }
    if checks_business(op) {
        doc.push_str("`Error::Business` for a success status whose body reports a rejection, ");
    }
    doc.push_str(
        "`Error::Response` for a documented error status, and `Error::Transport` (a \
         timeout included), `Error::Body`, `Error::UnexpectedStatus`, `Error::Decode` or \
         `Error::BodyTooLarge` otherwise.",
    );
    let doc = docs::outer(&doc);
    let method_const = format_ident!("{}", http);
    let params = op.params.iter().map(|p| {
        let n = ident(&p.name);
        let t = param_type(p, models);
        quote!(#n: #t)
    });
    let body_arg = body.map(|b| {
        let t = body_type(b, models);
        quote!(body: #t)
    });
    let argc = op.params.len() + usize::from(body.is_some()) + 1;
    let allow = (argc > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let deprecated = op
        .deprecated
        .then(|| quote!(#[deprecated = "deprecated by the spec"]));
    let body_check = body.filter(|_| body_validates).map(|b| {
        let check = match &b.ty {
            Ty::Vec(_) => quote!(for item in body.iter() {
                item.validate().map_err(crate::Error::Constraint)?;
            }),
            _ => quote!(body.validate().map_err(crate::Error::Constraint)?;),
        };
        // Each check tests the switch itself: one `if self.check_arguments` around a
        // lone `if let` is clippy's `collapsible_if`.
        if b.required {
            quote!(if self.check_arguments { #check })
        } else {
            quote!(if self.check_arguments && let Some(body) = body { #check })
        }
    });
    let param_checks: Vec<TokenStream> = op.params.iter().map(check_param).collect();
    let argument_checks = quote!(#body_check #(#param_checks)*);
    let (path_lets, url) = url_expr(op, uses);
    if op.params.iter().any(|p| {
        p.location == ParamLocation::Header && matches!(p.list, ListEncoding::ObjectStyled { .. })
    }) {
        // `object_style` is shared with paths, where it percent-encodes.
        uses.path = true;
        uses.object_pairs = true;
        uses.object_style = true;
    }
    uses.json_text |= op.params.iter().any(|p| p.list == ListEncoding::JsonText);
    let add_params = op.params.iter().map(add_param);
    let has_cookies = op
        .params
        .iter()
        .any(|p| p.location == ParamLocation::Cookie)
        || auth::sends_cookie(op, api);
    if has_cookies {
        uses.path = true;
    }
    let cookie_vec = has_cookies.then(|| quote!(let mut cookies: Vec<String> = Vec::new();));
    // One `Cookie` header for every cookie parameter (RFC 6265 §5.4), values
    // percent-encoded so that none can end a pair early.
    let cookie_header = has_cookies.then(|| {
        quote! {
            if !cookies.is_empty() {
                request = request.header(reqwest::header::COOKIE, cookies.join("; "));
            }
        }
    });
    let joined: Vec<TokenStream> = op
        .params
        .iter()
        .filter(|p| is_joined_query(p))
        .map(add_joined_query)
        .collect();
    let dots = dot_segment_check(op, uses);
    let url_binding = if joined.is_empty() {
        quote!(let url = #url; #dots)
    } else {
        uses.path = true;
        for p in op.params.iter().filter(|p| is_joined_query(p)) {
            match p.list {
                ListEncoding::ObjectForm { explode: true } | ListEncoding::DeepObject => {
                    uses.object_pairs = true;
                    uses.object_query = true;
                }
                ListEncoding::ObjectForm { explode: false } => {
                    uses.object_pairs = true;
                    uses.joined_query = true;
                }
                _ => uses.joined_query = true,
            }
        }
        quote!(let mut url = #url; #dots #(#joined)*)
    };
    let add_body = body.map(add_body);
    let authorize = auth::sends(op).then(|| auth::authorize(op, api, has_cookies));
    let err = error_enum_name(op);
    let mutable = if op
        .params
        .iter()
        .any(|p| p.location != ParamLocation::Path && !is_joined_query(p))
        || body.is_some()
        || auth::sends(op)
    {
        quote!(mut)
    } else {
        TokenStream::new()
    };
    let accept = accept(op);
    // The operation's penalty shape, when the client screens answers for penalties.
    let penalty = uses.penalty.then(|| match &op.penalty {
        Some(p) => {
            let (ticket, wait, resend) = (&p.ticket, &p.wait, &p.resend);
            let captcha = match &p.captcha {
                Some(c) => quote!(Some(#c)),
                None => quote!(None),
            };
            quote! {
                penalty: Some(&crate::penalty::PenaltyShape {
                    ticket: #ticket,
                    wait: #wait,
                    captcha: #captcha,
                    resend: #resend,
                }),
            }
        }
        None => quote!(penalty: None,),
    });
    let token = match (auth::bearer(api), auth::sends(op)) {
        (true, true) => quote!(token,),
        (true, false) => quote!(token: None,),
        (false, _) => TokenStream::new(),
    };
    let operation = &op.name;
    let path_template = &op.path_template;
    let call = quote! {
        let call = Call {
            operation: #operation,
            method: #http,
            path: #path_template,
            accept: #accept,
            #penalty
            #token
        };
    };
    let (ret, finish) = match flavour {
        Flavour::Decoded => {
            let ok = success_type(op, models);
            (
                quote!(crate::Response<#ok>),
                match simple_success(op) {
                    Some(r) => {
                        let dec = decoder(&r.payload);
                        quote!(self.only(request, call, #dec).await)
                    }
                    None => {
                        let answer = answer_fn_name(op);
                        quote!(self.execute(request, call, #answer).await)
                    }
                },
            )
        }
        Flavour::Stream => {
            let stream_failure = if failures(op).is_empty() {
                quote!(Err(answer.unexpected()))
            } else {
                quote!(Err(#err::failure(answer)))
            };
            (
                quote!(reqwest::Response),
                quote! {
                    let traced = Traced::start(&call);
                    let outcome: Result<reqwest::Response, crate::Error<#err>> = traced.run(async {
                        let request = self.prepare(request, call.accept)?;
                        let response = self.send(request, &call, 1).await.map_err(crate::Error::transport)?;
                        // Every `2xx` is a success (see `answer_fn`).
                        if response.status().is_success() {
                            return Ok(response);
                        }
                        let answer = crate::error::Answer::read(response, self.max_response_bytes).await?;
                        #stream_failure
                    }).await;
                    traced.finish(outcome.as_ref().map_or_else(crate::Error::status, |response| Some(response.status())));
                    outcome
                },
            )
        }
    };
    quote! {
        #doc
        #allow
        #deprecated
        pub async fn #name(&self, #(#params,)* #body_arg) -> Result<#ret, crate::Error<#err>> {
            #argument_checks
            #path_lets
            #url_binding
            let #mutable request = self.http.request(reqwest::Method::#method_const, url);
            #cookie_vec
            #(#add_params)*
            #authorize
            #cookie_header
            #add_body
            #call
            #finish
        }
    }
}
