//! The reference implementation of the trading platform's six operations: the
//! conformance run's embedded default, the generated client's test partner, and a
//! target for independent tools (Schemathesis, curl).
//!
//! It is an implementation like any other: it implements the server generated from the
//! spec (`trading_api::server::Api`, served by its router), speaks only through the
//! generated types, answers every decision of `spec/DECISIONS.md` (MUST and SHOULD), and
//! can be switched into seeded bugs ([`Fault`]) to prove that the harness notices them.
//!
//! ```no_run
//! # async fn demo() -> Result<(), reference_server::ServerError> {
//! let server = reference_server::spawn(reference_server::Config::default()).await?;
//! let token = server.issue_token();
//! println!("{} {}", server.base_url(), token.len());
//! server.shutdown().await;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

mod api;
mod app;
pub mod cli;
mod clock;
mod codes;
mod contract;
pub mod data;
mod error;
mod fault;
mod handlers;
mod name_rules;
mod penalty;
mod persist;
mod request;
mod secret;
mod serve;
mod state;
mod tokens;
mod unread_body;
mod wire_faults;

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use trading_api::models::ContactInfo;

pub use error::ServerError;
pub use fault::{Fault, UnknownFault};
pub use penalty::Penalties;
pub use request::max_body;
pub use tokens::ACCESS_TOKEN_LIFETIME;

use state::{AppState, lock};
use tokens::Grant;

/// How to start the server.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where to listen; the default is `127.0.0.1:0`, a port the OS picks.
    pub addr: SocketAddr,
    /// A data file replacing the embedded default set.
    pub data: Option<PathBuf>,
    /// A state file that keeps contact updates and tokens across restarts.
    pub state: Option<PathBuf>,
    /// Seeded bugs to switch on (none for a conformant server).
    pub faults: Vec<Fault>,
    /// How long a client may take to send a request's headers, and then its body
    /// (408 beyond); [`DEFAULT_READ_TIMEOUT`] unless set.
    pub read_timeout: std::time::Duration,
    /// The penalty switch: answer penalties and `429`s as the platform does (off when
    /// `None`; see [`Penalties`]).
    pub penalties: Option<Penalties>,
}

/// The default of [`Config::read_timeout`].
pub const DEFAULT_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

impl Default for Config {
    fn default() -> Self {
        Config {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            data: None,
            state: None,
            faults: Vec::new(),
            read_timeout: DEFAULT_READ_TIMEOUT,
            penalties: None,
        }
    }
}

/// The demo OAuth client's registration, for driving the authorization flow.
#[derive(Clone, PartialEq, Eq)]
pub struct DemoClient {
    /// The client id.
    pub client_id: String,
    /// The client secret (demo data; still redacted by `Debug`).
    pub client_secret: String,
    /// The client's first registered redirect URI.
    pub redirect_uri: String,
}

impl fmt::Debug for DemoClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DemoClient")
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("redirect_uri", &self.redirect_uri)
            .finish()
    }
}

/// A server running on the current tokio runtime. Dropping it stops the server too;
/// [`RunningServer::shutdown`] also waits for it.
pub struct RunningServer {
    addr: SocketAddr,
    handle: Handle,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

/// The server's state as its tests reach it, the same whether the app serves on a port
/// ([`RunningServer`]) or is called in process ([`InProcessServer`]).
#[derive(Clone)]
pub struct Handle {
    state: Arc<AppState>,
}

/// The server's app without a socket: its router, with every layer a served request
/// passes (penalties included) but the connection's own (the read timeout, closing a
/// connection whose body was not read), for a caller that hands it requests directly
/// (`conformance::Suite::run_service`, the embedded run in process).
pub struct InProcessServer {
    handle: Handle,
    router: axum::Router,
}

impl fmt::Debug for InProcessServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InProcessServer").finish_non_exhaustive()
    }
}

/// The app `config` describes: its data (and state) loaded, its router built.
fn build(config: &Config) -> Result<(Handle, axum::Router), ServerError> {
    let data = match &config.data {
        Some(path) => data::DataSet::load(path)?,
        None => data::DataSet::embedded()?,
    };
    let state = AppState::new(
        data,
        config.state.clone(),
        &config.faults,
        config.read_timeout,
    )?;
    let router = penalty::layer(app::router(Arc::clone(&state)), config.penalties.as_ref());
    Ok((Handle { state }, router))
}

/// The app without a socket: loads the data (and state) file and builds the router;
/// nothing listens. `config.addr` and `config.read_timeout` (a connection's) do not apply.
pub fn in_process(config: Config) -> Result<InProcessServer, ServerError> {
    let (handle, router) = build(&config)?;
    Ok(InProcessServer { handle, router })
}

impl InProcessServer {
    /// The router to hand requests to (a clone: every clone serves the same state).
    pub fn router(&self) -> axum::Router {
        self.router.clone()
    }

    /// The server's state, as its tests reach it.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }
}

impl fmt::Debug for RunningServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunningServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// Starts the server: loads the data (and state) file, binds, and serves in a task.
pub async fn spawn(config: Config) -> Result<RunningServer, ServerError> {
    let (handle, app) = build(&config)?;
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .map_err(|source| ServerError::Bind {
            addr: config.addr,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| ServerError::Bind {
        addr: config.addr,
        source,
    })?;
    let stopped = handle.state.stopped();
    let task =
        tokio::spawn(
            async move { serve::serve(listener, app, config.read_timeout, stopped).await },
        );
    tracing::info!(%addr, faults = ?config.faults, "reference server listening");
    Ok(RunningServer {
        addr,
        handle,
        task: Some(task),
    })
}

impl RunningServer {
    /// The base URL including `/v1`, e.g. `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.origin())
    }

    /// The origin, e.g. `http://127.0.0.1:PORT` (the authorization step lives here).
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The socket address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The server's state, as its tests reach it.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// The demo OAuth client.
    pub fn demo_client(&self) -> DemoClient {
        self.handle.demo_client()
    }

    /// A fresh bearer token for the demo client's user ([`Handle::issue_token`]).
    pub fn issue_token(&self) -> String {
        self.handle.issue_token()
    }

    /// Test hook: the stored contact record of a user ([`Handle::contact_record`]).
    pub fn contact_record(&self, user_id: i64) -> Option<ContactInfo> {
        self.handle.contact_record(user_id)
    }

    /// Test hook: moves the server's clock forward ([`Handle::advance_clock`]).
    pub fn advance_clock(&self, by: Duration) {
        self.handle.advance_clock(by)
    }

    /// Stops accepting connections and waits (at most 5 s, then aborts) for the
    /// requests in flight.
    pub async fn shutdown(mut self) {
        self.handle.state.stop();
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(Duration::from_secs(5), &mut task)
                .await
                .is_err()
        {
            task.abort();
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.handle.state.stop();
    }
}

impl Handle {
    /// The demo OAuth client.
    pub fn demo_client(&self) -> DemoClient {
        let c = self.state.demo_client();
        DemoClient {
            client_id: c.client_id.clone(),
            client_secret: c.client_secret.clone(),
            redirect_uri: c.redirect_uris[0].clone(),
        }
    }

    /// A fresh bearer token for the demo client's user, valid [`ACCESS_TOKEN_LIFETIME`]
    /// seconds; persisted at once when there is a state file.
    pub fn issue_token(&self) -> String {
        let c = self.state.demo_client();
        let grant = Grant {
            user_id: c.user_id,
            client_id: c.client_id.clone(),
        };
        let now = self.state.clock.now();
        let token = lock(&self.state.tokens).issue_access(grant, now);
        if let Err(e) = self.state.persist() {
            tracing::error!(error = %e, "cannot persist the issued token");
        }
        token
    }

    /// Test hook: the stored contact record of a user, read directly (the six
    /// operations cannot read it without changing it, DECISIONS row 17).
    pub fn contact_record(&self, user_id: i64) -> Option<ContactInfo> {
        lock(&self.state.contacts).get(&user_id).cloned()
    }

    /// Test hook: moves the server's clock forward, to expire tokens and codes.
    pub fn advance_clock(&self, by: Duration) {
        self.state.clock.advance(by.as_secs());
    }
}
