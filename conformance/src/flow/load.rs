//! The run's inputs: every file the command line names, read and checked before anything
//! is started or sent, so a mistake costs the user nothing on the target.

use crate::contracts::{self, Contracts};
use crate::error::HarnessError;
use crate::exchange::Exchange;
use crate::fixtures::Fixtures;
use crate::run_config::Config;
use crate::schema::Validators;
use crate::spec::Spec;
use crate::{config, known, replay, runner, selection, spec_source, verdict};

/// The fixtures used against the embedded reference server: what its data set holds.
const REFERENCE_FIXTURES: &str = include_str!("../reference_fixtures.yaml");

/// What the command line and the files it names give a run besides the spec, read and
/// checked by [`load`]: a mistake in any of them stops the run before anything is
/// started or sent.
pub(super) struct Inputs {
    pub(super) contracts: Contracts,
    /// Which contract files the run uses, as the header describes them.
    pub(super) contract_source: contracts::ContractSource,
    pub(super) selection: selection::Selection,
    pub(super) known: known::KnownFailures,
    /// The exchanges of `--replay`: a replayed run sends these instead of planning.
    pub(super) recorded: Option<Vec<Exchange>>,
    pub(super) fixtures: Fixtures,
}

impl Inputs {
    /// What the run's results are judged within.
    pub(super) fn scope(&self) -> verdict::Scope<'_> {
        verdict::Scope {
            selection: &self.selection,
            known: &self.known,
            contracts: &self.contracts,
            recorded: self.recorded.as_deref(),
        }
    }

    /// The session of a run over `spec` with these inputs: its gate is built here, once;
    /// `embedded` whether the target is the run's own reference server.
    pub(super) fn session<'a>(
        &'a self,
        config: &'a Config,
        spec: &'a Spec,
        embedded: bool,
    ) -> runner::Session<'a> {
        runner::Session::new(
            spec,
            &self.selection,
            &self.contracts,
            &self.fixtures,
            embedded,
            runner::Settings {
                seed: config.seed,
                max_examples: config.max_examples,
                max_requests: config.max_requests,
                workers: config.workers,
                anonymous: config.anonymous,
                quiet: config.quiet,
                public_headers: &config.transport.public_headers,
                held: crate::access::Held {
                    // Given, or to be obtained through the OAuth fixtures.
                    token: config.credentials.token.is_some()
                        || self.fixtures.client_id.is_some()
                        || embedded,
                    headers: &config.transport.headers,
                    public_headers: &config.transport.public_headers,
                },
            },
        )
    }
}

/// Reads and checks every file the run takes, in the order their errors are reported:
/// the spec and its schemas, the contract files, the selection (resolved against both),
/// the known failures, a record to replay and the fixtures. Nothing is started or sent
/// here, so a mistake costs the user nothing on the target.
pub(super) fn load(config: &Config) -> Result<(Spec, Validators, Inputs), HarnessError> {
    let spec = spec_source::load(&config.files)?;
    let validators = Validators::compile(&spec)?;
    // The built-in contract files, reference server and its fixtures belong to the
    // built-in spec: on another spec only `--contracts DIR` and `--fixtures` apply.
    let (contracts, contract_source) = Contracts::for_run(
        &spec,
        config.files.spec.is_none(),
        config.files.contracts.as_deref(),
    )?;
    if config.base_url.is_none() && !contract_source.builtin_operations() {
        return Err(HarnessError::Config(
            "--spec FILE (or -) needs --base-url URL: without it the run would start the \
             reference server, which serves only the built-in spec (a --spec URL gives \
             its own server)"
                .into(),
        ));
    }
    let selection = selection::Selection::resolve(&config.filters, &spec, &contracts)?;
    let known = match &config.files.known_failures {
        Some(path) => {
            let known = known::KnownFailures::load(path).map_err(HarnessError::Config)?;
            known.check_names(&contracts.registry, &spec).map_err(|e| {
                HarnessError::Config(format!("known failures {}: {e}", path.display()))
            })?;
            known
        }
        None => known::KnownFailures::default(),
    };
    // A record file is read and checked before anything is started or sent.
    let recorded = match &config.files.replay {
        Some(path) => Some(replay::load(path, &spec)?),
        None => None,
    };
    let fixtures = load_fixtures(config, &contracts)?;
    if let Some(login) = &fixtures.session {
        runner::login_operation(&spec, login)
            .map_err(|e| HarnessError::Config(format!("fixtures: {e}")))?;
    }
    runner::check_restore_values(&spec, &fixtures.restore)
        .map_err(|e| HarnessError::Config(format!("fixtures: {e}")))?;
    let inputs = Inputs {
        contracts,
        contract_source,
        selection,
        known,
        recorded,
        fixtures,
    };
    Ok((spec, validators, inputs))
}

/// The run's fixtures: `--fixtures FILE` (its keys checked against the contracts), else
/// the reference server's own data set when the run starts it, else none; the command
/// line's values (`--allow-writes`, …) win over the file's.
pub(super) fn load_fixtures(
    config: &Config,
    contracts: &Contracts,
) -> Result<Fixtures, HarnessError> {
    let fixtures = match (&config.files.fixtures, &config.base_url) {
        (Some(p), _) => {
            let f = Fixtures::load(p)?;
            config::check_fixture_keys(p, &f, contracts)?;
            f
        }
        (None, None) => Fixtures::parse(REFERENCE_FIXTURES).map_err(HarnessError::Config)?,
        (None, Some(_)) => Fixtures::default(),
    };
    Ok(fixtures.overridden_by(config))
}
