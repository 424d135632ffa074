//! The command line, shared by the crate's `conformance` binary and `cargo xtask
//! conformance` so both take the same arguments.

use std::path::PathBuf;
use std::time::Duration;

/// The seed used when none is given, so two plain runs send the same cases.
pub const DEFAULT_SEED: u64 = 20_260_821;

/// Arguments of a conformance run. Not `Debug`: it holds the token.
#[derive(clap::Args, Clone)]
pub struct Args {
    /// Base URL of the target including the version prefix (e.g. http://host:8080/v1).
    /// Without it, the reference server is started in-process on a free port.
    #[arg(long, env = "CONFORMANCE_BASE_URL")]
    pub base_url: Option<String>,
    /// Bearer token for the secured operations (never printed).
    #[arg(long, env = "CONFORMANCE_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// OAuth client id (overrides the fixtures' oauth.client_id).
    #[arg(long, env = "CONFORMANCE_CLIENT_ID")]
    pub client_id: Option<String>,
    /// OAuth client secret (overrides the fixtures' oauth.client_secret; never printed).
    #[arg(long, env = "CONFORMANCE_CLIENT_SECRET", hide_env_values = true)]
    pub client_secret: Option<String>,
    /// OAuth redirect URI (overrides the fixtures' oauth.redirect_uri).
    #[arg(long, env = "CONFORMANCE_REDIRECT_URI")]
    pub redirect_uri: Option<String>,
    /// A single-use authorization code (overrides the fixtures' oauth.code; never printed).
    #[arg(long, env = "CONFORMANCE_AUTH_CODE", hide_env_values = true)]
    pub auth_code: Option<String>,
    /// YAML file of target data the harness cannot discover (scope names, allow_writes,
    /// oauth.client_id / client_secret / redirect_uri / code / authorize_url).
    #[arg(long)]
    pub fixtures: Option<PathBuf>,
    /// Only these operations (operationId; repeatable).
    #[arg(long)]
    pub operation: Vec<String>,
    /// Only these checks (repeatable).
    #[arg(long)]
    pub check: Vec<String>,
    /// Count SHOULD breaches as failures.
    #[arg(long)]
    pub strict: bool,
    /// Cases run in parallel (writes always run one at a time).
    #[arg(long, default_value_t = 8)]
    pub workers: usize,
    /// Per-request timeout in seconds (connect, headers and body).
    #[arg(long, default_value = "5", value_parser = parse_seconds)]
    pub timeout: Duration,
    /// Most seconds the whole run spends waiting on `429 Retry-After` and penalty
    /// (`p-time`) answers, shared by all requests (each single wait is also capped at 10 s);
    /// once spent, such an answer is a failure.
    #[arg(long, default_value = "30", value_parser = parse_budget)]
    pub max_wait: Duration,
    /// Seed of generated values: the same seed and target give the same cases.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Write a JUnit XML report here.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Write a JSON report here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write every exchange here (secrets redacted), for `--replay` against another target.
    #[arg(long, conflicts_with = "replay")]
    pub record: Option<PathBuf>,
    /// Re-send the exchanges of a `--record` file to the target and report differences.
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// The OpenAPI document [default: spec/openapi.yaml, built into the binary].
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// Directory of contract files [default: conformance/contracts/*.yaml, built into the
    /// binary].
    #[arg(long, value_name = "DIR")]
    pub contracts: Option<PathBuf>,
    /// No progress bar and no live failure lines (the summary is still printed).
    #[arg(long)]
    pub quiet: bool,
    /// Print every check the run can report (name, family, level, where the level comes
    /// from, what it judges), with the contract files' own, and exit without a run.
    #[arg(long)]
    pub list_checks: bool,
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    let secs: f64 = s
        .parse()
        .map_err(|_| format!("not a number of seconds: {s}"))?;
    if !(secs > 0.0 && secs <= 3600.0) {
        return Err(format!(
            "the timeout must be more than 0 and at most 3600 seconds (got {s})"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn parse_budget(s: &str) -> Result<Duration, String> {
    let secs: f64 = s
        .parse()
        .map_err(|_| format!("not a number of seconds: {s}"))?;
    if !(0.0..=3600.0).contains(&secs) {
        return Err("the wait budget must be between 0 and 3600 seconds".into());
    }
    Ok(Duration::from_secs_f64(secs))
}

impl Args {
    /// Defaults as the command line would give them, for embedding and tests.
    pub fn defaults() -> Args {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Wrapper {
            #[command(flatten)]
            args: Args,
        }
        Wrapper::parse_from(["conformance"]).args
    }
}
