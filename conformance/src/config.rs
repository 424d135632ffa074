//! Configuration checks before anything is sent, on what the run read: the filters that
//! selected nothing, the fixtures' keys, the transport's files; each problem is a
//! [`HarnessError::Config`] (exit 2). The command line's own values and URL are checked
//! where it is read ([`crate::run_config`]).

use std::collections::BTreeSet;
use std::path::Path;

use crate::contracts::Contracts;
use crate::error::HarnessError;
use crate::exchange::Exchange;
use crate::fixtures::{self, Fixtures};
use crate::run_config::{Config, TransportConfig};

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
        no_tls_roots: transport.in_process.is_some(),
    })
}
