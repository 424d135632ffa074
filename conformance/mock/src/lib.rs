//! A mock server of any OpenAPI document (3.0, 3.1, or Swagger 2.0), read at start-up:
//! no code is generated or compiled. It answers each declared operation from the spec's
//! examples or with values generated from its schemas, judges every request against the
//! spec first, and, in stateful mode, keeps what creates send.
//!
//! ```no_run
//! # async fn run() -> Result<(), spec_mock::Error> {
//! let mock = spec_mock::Mock::from_path(std::path::Path::new("openapi.yaml"))?.stateful(true);
//! let app: axum::Router = mock.router(); // or: mock.serve("127.0.0.1:4010".parse().unwrap())
//! # Ok(()) }
//! ```
//!
//! **Routing.** The path of the spec's first `servers` URL (`/api`, or the path of an
//! absolute URL, its variables at their defaults) is the base. A request path under it
//! is matched with the base removed first; a path not under it, or one that matches
//! nothing once the base is removed, is matched as it is. So `/api/flows/` and `/flows/`
//! both reach `/flows/` of a spec served at `/api`, and a spec that itself declares
//! `/api/x` is still answered at `/api/x` when it declares no `/x`. Literal segments rank
//! above parameters (`routes`' rules). An unknown path is a 404 and a method the path does
//! not take a 405 with `Allow`, both as RFC 9457 problem details.
//!
//! **Requests** are judged in this order: body size (413 past [`Mock::body_limit`], 1 MiB
//! by default), credentials (401 when no alternative of the operation's security is
//! present; a bearer token must equal [`Mock::accept_token`]'s when one is set), the
//! body's media type (415), then every parameter, decoded by its `style` and `explode`
//! as `spec_model::encode` lays it out, and the body, against their schemas (see
//! `answer` for which status a refusal takes). Answers and `Prefer` are described in the
//! `answer` module, stateful inference in `records` (and both in the crate's README).

#![warn(missing_docs)]

mod answer;
mod api;
mod coerce;
mod error;
mod log;
mod multipart;
mod operations;
mod params;
mod prefer;
mod problem;
mod reading;
mod records;
mod routes;
mod service;
mod stateful;
mod validate;
mod write_only;

use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

pub use error::Error;

/// The default limit on a request body: 1 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 1 << 20;

/// A mock of one document, configured and then turned into a router.
pub struct Mock {
    api: api::Api,
    stateful: bool,
    log: Option<log::Log>,
    body_limit: usize,
    token: Option<String>,
}

impl std::fmt::Debug for Mock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The accepted token is a secret: only whether one is set shows.
        f.debug_struct("Mock")
            .field("spec", &self.api.name)
            .field("stateful", &self.stateful)
            .field("body_limit", &self.body_limit)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .finish_non_exhaustive()
    }
}

impl Mock {
    /// A mock of the document at `path` (YAML or JSON; files it refers to are read too).
    pub fn from_path(path: &Path) -> Result<Mock, Error> {
        Mock::from_source(spec_model::bundle::load(path)?)
    }

    /// A mock of a document already parsed.
    pub fn from_document(doc: serde_json::Value) -> Result<Mock, Error> {
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        Mock::from_source(spec_model::Source {
            name: "document".to_owned(),
            text,
        })
    }

    fn from_source(source: spec_model::Source) -> Result<Mock, Error> {
        Ok(Mock {
            api: api::Api::load(source)?,
            stateful: false,
            log: None,
            body_limit: DEFAULT_BODY_LIMIT,
            token: None,
        })
    }

    /// Whether creates are kept and reads answer them (see the crate's docs).
    #[must_use]
    pub fn stateful(mut self, on: bool) -> Mock {
        self.stateful = on;
        self
    }

    /// Logs every exchange as one JSON line to `out`.
    #[must_use]
    pub fn log_to(mut self, out: impl Write + Send + 'static) -> Mock {
        self.log = Some(log::Log::new(Box::new(out)));
        self
    }

    /// Logs every exchange as one JSON line, appended to the file at `path`.
    pub fn log_to_path(self, path: &Path) -> Result<Mock, Error> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(self.log_to(file))
    }

    /// The largest request body taken; a larger one is refused with 413.
    #[must_use]
    pub fn body_limit(mut self, bytes: usize) -> Mock {
        self.body_limit = bytes;
        self
    }

    /// The one bearer token accepted where an operation's security takes one; without
    /// it any non-empty token is.
    #[must_use]
    pub fn accept_token(mut self, token: impl Into<String>) -> Mock {
        self.token = Some(token.into());
        self
    }

    /// Seeds the values generated afresh (created records, `Prefer: dynamic=true`) from
    /// `seed` instead of the system's randomness, so that two runs answer alike.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Mock {
        self.api.reseed(seed);
        self
    }

    /// The server's base path (the first `servers` URL's path), `""` for none.
    pub fn base_path(&self) -> &str {
        &self.api.base
    }

    /// The mock as an axum router answering every request.
    pub fn router(self) -> axum::Router {
        let roles = records::roles(&self.api.templates);
        let app = Arc::new(service::App {
            api: self.api,
            roles,
            store: self.stateful.then(records::Store::default),
            log: self.log,
            body_limit: self.body_limit,
            token: self.token,
        });
        axum::Router::new().fallback(move |req: axum::extract::Request| {
            let app = Arc::clone(&app);
            async move { service::handle(app, req).await }
        })
    }

    /// Serves the mock on `addr` until Ctrl-C, printing the URL it listens on.
    pub async fn serve(self, addr: SocketAddr) -> Result<(), Error> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        println!(
            "mock of {} listening on http://{local}{}",
            self.api.name, self.api.base
        );
        let router = self.router();
        axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        Ok(())
    }
}
