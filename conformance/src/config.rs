//! Configuration checks before anything is sent: the command line's filters, values and
//! URL, and the fixtures' keys; each problem is a [`HarnessError::Config`] (exit 2).

use std::collections::BTreeSet;
use std::path::Path;

use crate::cli::Args;
use crate::contracts::Contracts;
use crate::error::HarnessError;
use crate::fixtures::{self, Fixtures};
use crate::run_config::{Config, TransportConfig};
use crate::runner::Exchange;

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

/// Why a run judged nothing, naming what selected it.
pub fn empty_selection(
    config: &Config,
    selection: &crate::selection::Selection,
    recorded: Option<&[Exchange]>,
) -> String {
    let mut filters = Vec::new();
    if let Some(p) = &config.files.replay {
        filters.push(format!("--replay {}", p.display()));
    }
    if selection.is_narrowed() {
        filters.push(selection.describe());
    }
    let why = match recorded {
        Some([]) => " (the record file holds no exchange)".to_string(),
        _ => String::new(),
    };
    if filters.is_empty() {
        format!("the run holds no check{why}; nothing was judged")
    } else {
        format!(
            "the selection {} holds no check{why}; nothing was judged",
            filters.join(" ")
        )
    }
}

/// A top-level fixtures key must be one the fixtures or the contract files read (`vars`
/// defaults or `fixtures:` declarations); a misspelt key would otherwise only skip checks.
pub fn check_fixture_keys(
    path: &Path,
    fixtures: &Fixtures,
    contracts: &Contracts,
) -> Result<(), HarnessError> {
    let mut known: BTreeSet<String> = fixtures::KEYS.iter().map(|k| k.to_string()).collect();
    known.extend(contracts.vars.keys().cloned());
    known.extend(contracts.fixture_vars.iter().cloned());
    for k in fixtures.vars.keys() {
        if !known.contains(k) {
            return Err(HarnessError::Config(format!(
                "fixtures {}: unknown key `{k}`; known keys: {}",
                path.display(),
                known.into_iter().collect::<Vec<_>>().join(", ")
            )));
        }
    }
    Ok(())
}

/// The transport options of the command line; an unreadable CA file is a configuration
/// error.
pub fn transport_options(
    transport: &TransportConfig,
) -> Result<crate::transport::Options, HarnessError> {
    let ca_pem = match &transport.ca_cert {
        Some(p) => Some(std::fs::read(p).map_err(|e| {
            HarnessError::Config(format!("cannot read --ca-cert {}: {e}", p.display()))
        })?),
        None => None,
    };
    Ok(crate::transport::Options {
        headers: transport
            .headers
            .iter()
            .chain(&transport.public_headers)
            .cloned()
            .collect(),
        ca_pem,
        insecure: transport.insecure,
        proxy: transport.proxy.clone(),
        rate: transport.rate_limit,
    })
}
