//! The run's configuration: what the command line (and the environment) asks of a run,
//! built once from clap's [`Args`] after the checks that need nothing but the command
//! line, and held in the types the harness uses. Past [`crate::execute`] the harness reads
//! this, never `Args`: a flag reaches the rooms that use it through one conversion, and
//! each room sees only the part it needs (the selection its filters, the transport its
//! bounds, the reports their paths).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::checks::{CheckOptions, MAX_RESPONSE_TIME};
use crate::cli::Args;
use crate::error::HarnessError;

/// A run as the command line asks for it. Not `Debug`: it holds the credentials.
pub struct Config {
    /// The target's base URL, checked and without a trailing slash; `None`: the embedded
    /// reference server.
    pub base_url: Option<String>,
    /// The files the run reads.
    pub files: Files,
    /// Credentials given on the command line or in the environment.
    pub credentials: Credentials,
    /// Which operations and checks the run judges, as named on the command line.
    pub filters: Filters,
    /// Seed of generated values.
    pub seed: u64,
    /// Generated requests per operation for valid inputs (as many again for invalid ones).
    pub max_examples: usize,
    /// Most requests the contract files' discovery steps send.
    pub max_requests: usize,
    /// Cases run in parallel (1 to 256).
    pub workers: usize,
    /// How requests are sent.
    pub transport: TransportConfig,
    /// Whether SHOULD breaches fail the run.
    pub strict: bool,
    /// Whether MUST checks that could not run leave the exit code 0 instead of 3.
    pub allow_incomplete: bool,
    /// The checks' settings (`--check-option`, `--max-response-time`), typed.
    pub check_options: CheckOptions,
    /// The `min_coverage` gate, in percent.
    pub min_coverage: Option<f64>,
    /// Whether requests that may change the target's state are sent.
    pub allow_writes: bool,
    /// Whether requests that may delete or overwrite data the run did not create are sent.
    pub allow_destructive: bool,
    /// The report files to write.
    pub reports: Reports,
    /// No progress bar and no live failure lines.
    pub quiet: bool,
    /// The full table at the end.
    pub verbose: bool,
    /// Print the plan and send nothing.
    pub dry_run: bool,
    /// Test only what needs no credentials (see [`crate::access`]).
    pub anonymous: bool,
    /// The embedded reference server runs in this process, called with no socket.
    pub in_process: bool,
}

/// The files a run reads (`--spec`, `--contracts`, `--fixtures`, `--known-failures`,
/// `--replay`).
#[derive(Debug, Clone, Default)]
pub struct Files {
    /// The target's OpenAPI document (a file, an http(s) URL or `-`); `None`: the
    /// built-in spec.
    pub spec: Option<PathBuf>,
    /// The spec's name and text once read from a URL or stdin
    /// ([`crate::spec_source::prepare`]).
    pub spec_text: Option<(String, String)>,
    /// `--url-refs`: a `$ref` to a URL is fetched (`spec_model::fetch::url`).
    pub url_refs: bool,
    /// The request that fetched a `--spec` URL, for the record: the URL as shown, the
    /// status, and how many times it was sent again.
    pub spec_fetched: Option<(String, u16, usize)>,
    /// A directory of the user's contract files.
    pub contracts: Option<PathBuf>,
    /// The fixtures file.
    pub fixtures: Option<PathBuf>,
    /// The accepted failures.
    pub known_failures: Option<PathBuf>,
    /// A record file to replay instead of planning.
    pub replay: Option<PathBuf>,
}

/// Credentials and OAuth settings given on the command line or in the environment; each
/// wins over the fixtures' own. Not `Debug`: it holds secrets.
#[derive(Clone, Default)]
pub struct Credentials {
    /// Bearer token.
    pub token: Option<String>,
    /// OAuth client id.
    pub client_id: Option<String>,
    /// OAuth client secret.
    pub client_secret: Option<String>,
    /// OAuth redirect URI.
    pub redirect_uri: Option<String>,
    /// A single-use OAuth authorization code.
    pub auth_code: Option<String>,
}

/// The operations and checks the command line names (`--operation`, `--tag`, `--check`,
/// their `--exclude-…`, and `--shard`), resolved against the spec and the registry by
/// [`crate::selection::Selection::resolve`].
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// Only these operations.
    pub operations: Vec<String>,
    /// Leave these operations out.
    pub exclude_operations: Vec<String>,
    /// Only the operations with these tags.
    pub tags: Vec<String>,
    /// Leave out the operations with these tags.
    pub exclude_tags: Vec<String>,
    /// Only these checks.
    pub checks: Vec<String>,
    /// Leave these checks out.
    pub exclude_checks: Vec<String>,
    /// Only this shard of the selected operations.
    pub shard: Option<Shard>,
}

/// Shard `index` of `count` (1-based, `--shard I/N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, from 1.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

/// How requests are sent: bounds, extra headers, TLS, proxy and rate.
#[derive(Clone)]
pub struct TransportConfig {
    /// Per-request timeout.
    pub timeout: Duration,
    /// What the whole run may spend waiting on `429` and penalty answers.
    pub max_wait: Duration,
    /// Headers sent with every request whose values are secrets (`--header`).
    pub headers: Vec<(String, String)>,
    /// Headers sent with every request whose values may be printed (`--public-header`).
    pub public_headers: Vec<(String, String)>,
    /// A PEM file of extra CA certificates.
    pub ca_cert: Option<PathBuf>,
    /// Accept any TLS certificate.
    pub insecure: bool,
    /// A proxy for every request.
    pub proxy: Option<String>,
    /// Most requests started per second.
    pub rate_limit: Option<f64>,
    /// An app in this process that takes every request instead of the network
    /// ([`crate::Suite::run_service`]); never set from the command line.
    pub in_process: Option<crate::in_process::InProcess>,
}

/// The report files to write (`--junit`, `--json`, `--html`, `--record`).
#[derive(Debug, Clone, Default)]
pub struct Reports {
    /// JUnit XML.
    pub junit: Option<PathBuf>,
    /// JSON.
    pub json: Option<PathBuf>,
    /// HTML.
    pub html: Option<PathBuf>,
    /// Every exchange, for `--replay`.
    pub record: Option<PathBuf>,
}

impl Reports {
    /// The files asked for.
    pub fn paths(&self) -> Vec<&Path> {
        [&self.junit, &self.json, &self.html, &self.record]
            .into_iter()
            .flatten()
            .map(|p| p.as_path())
            .collect()
    }
}

impl Config {
    /// The configuration of `args`, once the command line alone is found sound
    /// ([`check_args`]: values in range, flags that go together, a token a header
    /// can carry; `--base-url` an http(s) URL with a host). Problems of the files it names
    /// are found when they are read.
    pub fn from_args(args: &Args) -> Result<Config, HarnessError> {
        check_args(args)?;
        let base_url = args.base_url.as_deref().map(base_url).transpose()?;
        Ok(Config {
            base_url,
            files: Files {
                spec: args.spec.clone(),
                spec_text: None,
                url_refs: args.url_refs,
                spec_fetched: None,
                contracts: args.contracts.clone(),
                fixtures: args.fixtures.clone(),
                known_failures: args.known_failures.clone(),
                replay: args.replay.clone(),
            },
            credentials: Credentials {
                token: args.token.clone(),
                client_id: args.client_id.clone(),
                client_secret: args.client_secret.clone(),
                redirect_uri: args.redirect_uri.clone(),
                auth_code: args.auth_code.clone(),
            },
            filters: Filters {
                operations: args.operation.clone(),
                exclude_operations: args.exclude_operation.clone(),
                tags: args.tag.clone(),
                exclude_tags: args.exclude_tag.clone(),
                checks: args.check.clone(),
                exclude_checks: args.exclude_check.clone(),
                shard: args.shard.map(|(index, count)| Shard { index, count }),
            },
            seed: args.seed,
            max_examples: args.max_examples,
            max_requests: args.max_requests,
            workers: args.workers,
            transport: TransportConfig {
                timeout: args.timeout,
                max_wait: args.max_wait,
                headers: args.headers.clone(),
                public_headers: args.public_headers.clone(),
                ca_cert: args.ca_cert.clone(),
                insecure: args.insecure,
                proxy: args.proxy.clone(),
                rate_limit: args.rate_limit,
                in_process: None,
            },
            strict: args.strict,
            allow_incomplete: args.allow_incomplete,
            check_options: check_options(args)?,
            min_coverage: args.min_coverage,
            allow_writes: args.allow_writes,
            allow_destructive: args.allow_destructive,
            reports: Reports {
                junit: args.junit.clone(),
                json: args.json.clone(),
                html: args.html.clone(),
                record: args.record.clone(),
            },
            quiet: args.quiet,
            verbose: args.verbose,
            dry_run: args.dry_run,
            anonymous: args.anonymous,
            in_process: args.in_process,
        })
    }
}

/// The checks' settings: `--check-option NAME=VALUE`, with `--max-response-time` (a flag
/// of its own, older than `--check-option`) folded in as the setting it is.
fn check_options(args: &Args) -> Result<CheckOptions, HarnessError> {
    let mut options = CheckOptions::parse(args.check_options.iter().map(String::as_str))
        .map_err(HarnessError::Config)?;
    if let Some(limit) = args.max_response_time {
        if options.has(&MAX_RESPONSE_TIME) {
            return Err(HarnessError::Config(
                "--max-response-time and --check-option max-response-time=MS are the same setting: give one".into(),
            ));
        }
        options.set_value(&MAX_RESPONSE_TIME, limit);
    }
    Ok(options)
}

/// Arguments that cannot go together or are out of range.
pub fn check_args(args: &Args) -> Result<(), HarnessError> {
    check_header_values(args)?;
    if args.record.is_some() && args.replay.is_some() {
        return Err(HarnessError::Config(
            "--record cannot be combined with --replay (a replay sends no new exchanges to record)"
                .into(),
        ));
    }
    if args.workers == 0 || args.workers > 256 {
        return Err(HarnessError::Config(
            "--workers must be between 1 and 256".into(),
        ));
    }
    Ok(())
}

/// The `--base-url` as the run uses it: an http(s) URL with a host, no trailing slash.
pub fn base_url(given: &str) -> Result<String, HarnessError> {
    let parsed = reqwest::Url::parse(given)
        .map_err(|e| HarnessError::Config(format!("--base-url {given}: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(HarnessError::Config(format!(
            "--base-url {given}: must be an http:// or https:// URL with a host (got scheme `{}`)",
            parsed.scheme()
        )));
    }
    Ok(given.trim_end_matches('/').to_string())
}

/// Values given on the command line (or in the environment) that go into request headers
/// must be valid there: a token that cannot be sent would otherwise fail every secured
/// check and blame the target. The messages never show the value.
fn check_header_values(args: &Args) -> Result<(), HarnessError> {
    if let Some(t) = &args.token {
        if t.trim().is_empty() {
            return Err(HarnessError::Config(
                "--token (or CONFORMANCE_TOKEN) is empty: give the bearer token or leave it out"
                    .into(),
            ));
        }
        // A bearer token is visible ASCII with no spaces (RFC 6750 `b64token`); anything
        // else cannot be sent as it is, or not as the target would read it.
        if reqwest::header::HeaderValue::from_str(&format!("Bearer {t}")).is_err()
            || !t.bytes().all(|b| b.is_ascii_graphic())
        {
            return Err(HarnessError::Config(
                "--token (or CONFORMANCE_TOKEN) cannot be sent in an Authorization header: \
                 it may hold only visible ASCII characters, with no spaces, line breaks or \
                 control characters (value not shown)"
                    .into(),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_checked_once_and_typed() {
        let mut args = Args::defaults();
        args.base_url = Some("http://localhost:8080/api/".into());
        args.shard = Some((2, 3));
        args.junit = Some("out.xml".into());
        let config = Config::from_args(&args).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            config.base_url.as_deref(),
            Some("http://localhost:8080/api")
        );
        assert_eq!(config.filters.shard, Some(Shard { index: 2, count: 3 }));
        assert_eq!(config.reports.paths(), [Path::new("out.xml")]);
        assert_eq!(config.transport.timeout, Duration::from_secs(5));

        args.workers = 0;
        assert!(Config::from_args(&args).is_err());
        args.workers = 8;
        args.base_url = Some("ftp://host".into());
        assert!(Config::from_args(&args).is_err());
    }
}
