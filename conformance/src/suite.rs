//! The harness as a library: the run the `conformance` binary makes, built in code and
//! pointed at a URL or at an app in the same process (any `tower::Service` over
//! `http::Request`, an `axum::Router` among them), for a developer's own `cargo test`.
//!
//! ```
//! use axum::{Json, Router, routing::get};
//! use serde_json::json;
//!
//! let spec = r#"
//! openapi: 3.1.0
//! info: {title: Hello, version: "1"}
//! paths:
//!   /hello:
//!     get:
//!       operationId: hello
//!       responses:
//!         "200":
//!           description: a greeting
//!           content: {application/json: {schema: {type: object, required: [greeting], properties: {greeting: {type: string}}}}}
//! "#;
//! let app = Router::new().route("/hello", get(|| async { Json(json!({"greeting": "hi"})) }));
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! conformance::Suite::spec_text("hello.yaml", spec)
//!     .run_service(app)
//!     .await
//!     .expect("the run completes")
//!     .assert_conforms();
//! # });
//! ```
//!
//! The rules of a run over the network hold in process: nothing that changes state is
//! sent unless the suite says [`Suite::allow_writes`] (an app in the test's process is
//! usually the developer's own, but that is for the test to say), what the run creates is
//! removed, and a check that could not run leaves the run incomplete, which
//! [`Outcome::assert_conforms`] fails, as CI would.

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::Args;
use crate::error::HarnessError;
use crate::in_process::{InProcess, IntoInProcess, ORIGIN};
use crate::outcome::{EXIT_INCOMPLETE, Outcome};
use crate::run_config::Config;
use crate::spec_source;

/// A conformance run, built in code: the spec, what to judge, what the run may do, and
/// the credentials; [`Suite::run`] sends it to a URL, [`Suite::run_service`] to an app in
/// this process. Defaults are the binary's (seed, examples per operation, checks), quiet.
#[derive(Clone)]
pub struct Suite {
    args: Args,
    spec_text: Option<(String, String)>,
}

impl std::fmt::Debug for Suite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token and headers may be secrets: only the spec's name shows.
        f.debug_struct("Suite")
            .field(
                "spec",
                &self
                    .spec_text
                    .as_ref()
                    .map(|(name, _)| name.clone())
                    .or_else(|| self.args.spec.as_ref().map(|p| p.display().to_string())),
            )
            .finish_non_exhaustive()
    }
}

impl Suite {
    fn new() -> Suite {
        let mut args = Args::defaults();
        args.quiet = true;
        Suite {
            args,
            spec_text: None,
        }
    }

    /// A run of the built-in spec and contracts (the trading platform's six operations),
    /// as `conformance` with no `--spec` makes it; [`Suite::run_embedded`] runs it against
    /// the reference server.
    pub fn builtin() -> Suite {
        Suite::new()
    }

    /// A run over the OpenAPI document (YAML or JSON) in `path`.
    pub fn spec_file(path: impl Into<PathBuf>) -> Suite {
        let mut s = Suite::new();
        s.args.spec = Some(path.into());
        s
    }

    /// A run over the document at an `http(s)` URL, fetched with the suite's headers and
    /// token when the run starts. For [`Suite::run_service`], a URL under
    /// `http://in-process` is fetched from the app itself (`http://in-process/openapi.json`
    /// for an app that serves its spec at `/openapi.json`).
    pub fn spec_url(url: &str) -> Suite {
        Suite::spec_file(url)
    }

    /// A run over the document `text`; `name` is how reports name it.
    pub fn spec_text(name: &str, text: &str) -> Suite {
        let mut s = Suite::new();
        s.args.spec = Some(PathBuf::from(name));
        s.spec_text = Some((name.to_string(), text.to_string()));
        s
    }

    /// Judges only this operation (by `operationId`); call again for more.
    pub fn operation(mut self, id: &str) -> Suite {
        self.args.operation.push(id.to_string());
        self
    }

    /// Leaves this operation out.
    pub fn exclude_operation(mut self, id: &str) -> Suite {
        self.args.exclude_operation.push(id.to_string());
        self
    }

    /// Runs only this check (a name of `conformance --list-checks`); call again for more.
    pub fn check(mut self, name: &str) -> Suite {
        self.args.check.push(name.to_string());
        self
    }

    /// Leaves this check out.
    pub fn exclude_check(mut self, name: &str) -> Suite {
        self.args.exclude_check.push(name.to_string());
        self
    }

    /// A bearer token for the operations whose security takes one.
    pub fn token(mut self, token: &str) -> Suite {
        self.args.token = Some(token.to_string());
        self
    }

    /// A header sent with every request (a credential such as an API key: never shown in
    /// a report).
    pub fn header(mut self, name: &str, value: &str) -> Suite {
        self.args
            .headers
            .push((name.to_string(), value.to_string()));
        self
    }

    /// The fixtures file (`--fixtures`): restore values, a throwaway session, variables.
    pub fn fixtures(mut self, path: impl Into<PathBuf>) -> Suite {
        self.args.fixtures = Some(path.into());
        self
    }

    /// A directory of contract files (`--contracts`).
    pub fn contracts(mut self, dir: impl Into<PathBuf>) -> Suite {
        self.args.contracts = Some(dir.into());
        self
    }

    /// Sends requests that create or change records (`--allow-writes`); what the run
    /// creates it removes at the end.
    pub fn allow_writes(mut self) -> Suite {
        self.args.allow_writes = true;
        self
    }

    /// Also sends requests that may delete or overwrite data the run did not create
    /// (`--allow-destructive`), after every other case.
    pub fn allow_destructive(mut self) -> Suite {
        self.args.allow_writes = true;
        self.args.allow_destructive = true;
        self
    }

    /// Generated requests per operation for valid inputs (`--max-examples`).
    pub fn max_examples(mut self, n: usize) -> Suite {
        self.args.max_examples = n;
        self
    }

    /// The seed of generated values (`--seed`): the same seed, the same requests.
    pub fn seed(mut self, seed: u64) -> Suite {
        self.args.seed = seed;
        self
    }

    /// Cases run at once (`--workers`).
    pub fn workers(mut self, n: usize) -> Suite {
        self.args.workers = n;
        self
    }

    /// Per-request timeout (`--timeout`).
    pub fn timeout(mut self, timeout: Duration) -> Suite {
        self.args.timeout = timeout;
        self
    }

    /// SHOULD-level breaches fail the run too (`--strict`).
    pub fn strict(mut self) -> Suite {
        self.args.strict = true;
        self
    }

    /// MUST checks that could not run (a missing credential or fixture) leave the run
    /// passing instead of incomplete (`--allow-incomplete`).
    pub fn allow_incomplete(mut self) -> Suite {
        self.args.allow_incomplete = true;
        self
    }

    /// Also writes the JSON report to `path` (`--json`).
    pub fn json_report(mut self, path: impl Into<PathBuf>) -> Suite {
        self.args.json = Some(path.into());
        self
    }

    /// Also writes the JUnit XML report to `path` (`--junit`).
    pub fn junit_report(mut self, path: impl Into<PathBuf>) -> Suite {
        self.args.junit = Some(path.into());
        self
    }

    /// The spec's operation ids, in the document's order, read now (a file or text; a URL
    /// spec is fetched only by a run): what a test harness lists as one test each.
    pub fn operations(&self) -> Result<Vec<String>, HarnessError> {
        let config = self.config()?;
        if config.files.spec_text.is_none()
            && let Some(path) = &config.files.spec
            && spec_source::location(path)? != spec_source::Location::File
        {
            return Err(HarnessError::Config(
                "the operations of a spec read from a URL or stdin are known only once a run has fetched it"
                    .into(),
            ));
        }
        let spec = spec_source::load(&config.files)?;
        Ok(spec.operations.iter().map(|o| o.id.clone()).collect())
    }

    /// Runs against the server at `base_url`.
    pub async fn run(mut self, base_url: &str) -> Result<Outcome, HarnessError> {
        self.args.base_url = Some(base_url.to_string());
        let mut config = self.config()?;
        spec_source::prepare(&mut config).await?;
        crate::flow::run(&config, Default::default()).await
    }

    /// Runs against `service`, called in this process for every request: no socket, no
    /// port. Its requests' URLs are `http://in-process` and the path of the spec's first
    /// server (`servers: [{url: /api}]` → `/api/things`), which is where the app's routes
    /// must be.
    pub async fn run_service(self, service: impl IntoInProcess) -> Result<Outcome, HarnessError> {
        self.run_in_process(service.into_in_process()).await
    }

    /// Runs against the embedded reference server started with `server` (its faults, its
    /// data): on a loopback port, or with `in_process` called in this process with no
    /// socket, as `conformance --in-process` does.
    pub async fn run_embedded(
        mut self,
        server: crate::embedded::ServerConfig,
        in_process: bool,
    ) -> Result<Outcome, HarnessError> {
        self.args.in_process = in_process;
        let mut config = self.config()?;
        spec_source::prepare(&mut config).await?;
        crate::flow::run(&config, server).await
    }

    /// [`Suite::run_service`] with the app already wrapped.
    pub async fn run_in_process(self, app: InProcess) -> Result<Outcome, HarnessError> {
        let mut config = self.config()?;
        config.transport.in_process = Some(app);
        spec_source::prepare(&mut config).await?;
        let text = match &config.files.spec_text {
            Some((_, text)) => Some(text.clone()),
            None => config
                .files
                .spec
                .as_ref()
                .and_then(|p| std::fs::read_to_string(p).ok()),
        };
        let origin = reqwest::Url::parse(&format!("{ORIGIN}/")).expect("a valid origin");
        let server = match &text {
            Some(text) => spec_source::server_of(text, &origin),
            None => origin.clone(),
        };
        config.base_url = Some(crate::run_config::base_url(&format!(
            "{ORIGIN}{}",
            server.path()
        ))?);
        crate::flow::run(&config, Default::default()).await
    }

    /// Whether the suite's selection keeps operation `id`.
    pub(crate) fn selects(&self, id: &str) -> bool {
        (self.args.operation.is_empty() || self.args.operation.iter().any(|o| o == id))
            && !self.args.exclude_operation.iter().any(|o| o == id)
    }

    /// Whether SHOULD breaches fail.
    pub(crate) fn is_strict(&self) -> bool {
        self.args.strict
    }

    /// Whether MUST checks that could not run are accepted.
    pub(crate) fn takes_incomplete(&self) -> bool {
        self.args.allow_incomplete
    }

    fn config(&self) -> Result<Config, HarnessError> {
        let mut config = Config::from_args(&self.args)?;
        if let Some(text) = &self.spec_text {
            config.files.spec_text = Some(text.clone());
        }
        Ok(config)
    }
}

impl Outcome {
    /// Panics unless the run passed: with every failure as the terminal shows it (check,
    /// level, what was expected, what came, the curl line), or with why the run is
    /// incomplete (a check that could not run for want of an input).
    #[track_caller]
    pub fn assert_conforms(&self) {
        match self.exit_code {
            0 => {}
            EXIT_INCOMPLETE => panic!(
                "the conformance run is incomplete: checks could not run (Suite::allow_incomplete accepts that)\n{}",
                self.summary
            ),
            _ => panic!("the target does not conform to its spec\n{}", self.summary),
        }
    }
}
