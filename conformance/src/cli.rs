//! The command line of the `conformance` binary (`cargo xtask conformance` runs that
//! binary and passes its arguments through untouched, so the two cannot differ). It is
//! the only place a flag is parsed: `run_config` turns [`Args`] into the typed
//! configuration the floors below read.

use std::path::PathBuf;
use std::time::Duration;

/// The seed used when none is given, so two plain runs send the same cases.
pub const DEFAULT_SEED: u64 = 20_260_821;

/// Arguments of a conformance run. Not `Debug`: it holds the token.
#[derive(clap::Args, Clone)]
pub struct Args {
    /// Base URL of the target, with the prefix its paths sit under (e.g.
    /// http://host:8080/api). Without it the built-in spec's reference server is started
    /// in-process on a free port (built-in spec only: another spec needs a URL, which a
    /// --spec URL gives from its `servers`).
    #[arg(long, env = "CONFORMANCE_BASE_URL")]
    pub base_url: Option<String>,
    /// Bearer token sent to the operations the spec secures (never printed). Credentials are opaque:
    /// a base64url token may begin with `-`, so they are never read as options.
    #[arg(
        long,
        env = "CONFORMANCE_TOKEN",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    pub token: Option<String>,
    /// OAuth client id, for contract files that obtain a token through the
    /// authorization-code flow (the built-in ones do); overrides the fixtures'
    /// oauth.client_id.
    #[arg(long, env = "CONFORMANCE_CLIENT_ID", allow_hyphen_values = true)]
    pub client_id: Option<String>,
    /// OAuth client secret, with --client-id (overrides the fixtures' oauth.client_secret;
    /// never printed).
    #[arg(
        long,
        env = "CONFORMANCE_CLIENT_SECRET",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    pub client_secret: Option<String>,
    /// OAuth redirect URI, with --client-id (overrides the fixtures' oauth.redirect_uri).
    #[arg(long, env = "CONFORMANCE_REDIRECT_URI")]
    pub redirect_uri: Option<String>,
    /// A single-use OAuth authorization code, with --client-id (overrides the fixtures'
    /// oauth.code; never printed).
    #[arg(
        long,
        env = "CONFORMANCE_AUTH_CODE",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    pub auth_code: Option<String>,
    /// YAML file of what the harness cannot find out from the target: allow_writes, the
    /// values the contract files read (their `fixtures:` names), restore values, and the
    /// oauth.* settings. The built-in reference server's own fixtures apply only to it.
    #[arg(long)]
    pub fixtures: Option<PathBuf>,
    /// Only these operations (repeatable or comma-separated): the operationId, or for an
    /// operation without one the name the generated client gives it (`get_items_id` for
    /// `GET /items/{id}`).
    #[arg(long, value_delimiter = ',')]
    pub operation: Vec<String>,
    /// Leave these operations out (repeatable or comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub exclude_operation: Vec<String>,
    /// Only the operations carrying one of these tags of the spec (repeatable or
    /// comma-separated; adds to --operation).
    #[arg(long, value_delimiter = ',')]
    pub tag: Vec<String>,
    /// Leave out the operations carrying one of these tags (repeatable or comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub exclude_tag: Vec<String>,
    /// Only these checks (repeatable or comma-separated; `--list-checks` names them).
    #[arg(long, value_delimiter = ',')]
    pub check: Vec<String>,
    /// Leave these checks out (repeatable or comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub exclude_check: Vec<String>,
    /// Most requests the contract files' discovery steps send (an `each` step sweeps over
    /// what the target holds); what they cannot read within the budget is reported as a
    /// skipped sweep.
    #[arg(long, default_value_t = 5000)]
    pub max_requests: usize,
    /// Generated requests per operation for valid inputs, and as many again for invalid
    /// ones (each one defect in a valid request): optional parameters sent, other
    /// `oneOf` branches and enum values, defects of every kind the schemas allow. 0 sends
    /// only the base request and the hand-written negative cases.
    #[arg(long, default_value_t = crate::inputs::DEFAULT_MAX_EXAMPLES)]
    pub max_examples: usize,
    /// Exit 0 rather than 3 when MUST checks could not run for want of a credential or
    /// fixture (the run is still reported as incomplete).
    #[arg(long)]
    pub allow_incomplete: bool,
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
    /// Write a self-contained HTML report here (no network fetches: open it from a CI
    /// artifact).
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Write every request the run sends here, with its answer (secrets redacted), for
    /// `--replay` against another target: the cases, discovery, pre-flight, cleanup, and
    /// what the harness sent for itself (OAuth steps, credential re-checks, throwaway
    /// logins; marked `harness`, never replayed); a request sent again after a 429 or a
    /// lost connection is counted in its entry's `resent`.
    #[arg(long, conflicts_with = "replay")]
    pub record: Option<PathBuf>,
    /// Re-send the exchanges of a `--record` file to the target and report differences.
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// The target's OpenAPI 3.0 or 3.1 document (YAML or JSON): a file, `-` for standard
    /// input, or an http(s) URL fetched with the run's -H headers, --token (as a bearer
    /// token) and transport options. Without --base-url, a URL's spec is run against its
    /// first `servers` URL resolved against the spec's URL (none: the URL's origin); a
    /// fetch that fails is exit 2. An operation the harness cannot use (a dangling `$ref`,
    /// a path parameter missing from its path) is left out and listed in the run header
    /// with where and why [default: the spec built into the binary, spec/openapi.yaml].
    #[arg(long, value_name = "FILE|URL|-")]
    pub spec: Option<PathBuf>,
    /// Fetch each `$ref` of the spec to an `http(s)` URL (and a relative `$ref` of a spec
    /// read from a URL, against that URL) instead of refusing it. Those documents are
    /// fetched without the run's headers or token, which are the target's.
    #[arg(long)]
    pub url_refs: bool,
    /// Directory of your own contract files (`*.yaml`, loaded in file-name order): cases,
    /// sequences and discovery steps beyond what the spec says. They are added to the
    /// built-in contract files where those apply (the built-in spec, or a spec that has
    /// every operation they name; the run header says which); a file named like a
    /// built-in one replaces it. Without it a foreign spec runs on the spec alone.
    #[arg(long, value_name = "DIR")]
    pub contracts: Option<PathBuf>,
    /// A YAML file of accepted failures (check, case or operation; reason; ticket;
    /// optional `expires` date): a matching failure is reported as known and does not fail
    /// the run until the entry expires.
    #[arg(long, value_name = "FILE")]
    pub known_failures: Option<PathBuf>,
    /// Print only the run header, one line per failing (operation, check) pair (its first
    /// failing case and message, at most 40 lines, then a count of the rest) and the
    /// verdict (the notes explaining the exit code, each note's list cut to 10 items, then
    /// the totals line): no progress bar, no live lines, no bodies. Details are in
    /// --json/--html/--junit.
    #[arg(long)]
    pub quiet: bool,
    /// Print the full table by operation and check at the end (a clean run otherwise
    /// prints one line per operation).
    #[arg(long, conflicts_with = "quiet")]
    pub verbose: bool,
    /// Most milliseconds an answer may take (sending to the last body byte): a slower one
    /// breaches the SHOULD check `response_time` (a failure under `--strict`).
    #[arg(long, value_name = "MS", value_parser = parse_millis)]
    pub max_response_time: Option<Duration>,
    /// A setting of a check, `NAME=VALUE` (repeatable), as the check's line in
    /// --list-checks names it: `max-response-size=BYTES` for `response_size`, say. Each
    /// check declares its own settings; an unknown name is refused, and the error lists
    /// every known one.
    #[arg(long = "check-option", value_name = "NAME=VALUE")]
    pub check_options: Vec<String>,
    /// Least share of the selected operations, in percent, that must get a 2xx answer:
    /// below it the MUST check `min_coverage` fails the run, so a gate cannot pass on an
    /// API it never reached. Every run reports its coverage, with or without it.
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    pub min_coverage: Option<f64>,
    /// Runs only shard I of N (1-based): the selected operations, in the order of their
    /// ids, are dealt round-robin to N shards, so N CI jobs split one run with no
    /// operation in two of them; `conformance merge` joins their JSON reports.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// A header sent with every request, `NAME:VALUE` (repeatable; an API key, a tenant).
    /// Its value is a secret: reports and curl lines show `$NAME` instead (see
    /// `--public-header`).
    #[arg(short = 'H', long = "header", value_name = "NAME:VALUE", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,
    /// Like `--header`, for a value that is not secret and may be printed.
    #[arg(long = "public-header", value_name = "NAME:VALUE", value_parser = parse_header)]
    pub public_headers: Vec<(String, String)>,
    /// A PEM file of CA certificates the target's TLS certificate may chain to, beside the
    /// built-in roots (a staging server with a private CA).
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
    /// Accept any TLS certificate of the target (self-signed, expired, wrong name).
    #[arg(long)]
    pub insecure: bool,
    /// Send every request through this proxy (`http://`, `https://` or `socks5://` URL;
    /// without it the usual `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` variables apply).
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,
    /// Start at most this many requests per second, evenly spaced, so that a staging
    /// server's rate limiter is never hit: `10`, `10/s` or `600/m`.
    #[arg(long, value_name = "N/s", value_parser = parse_rate)]
    pub rate_limit: Option<f64>,
    /// Print every check the run can report (name, family, level, where the level comes
    /// from, what it judges), with the contract files' own, and exit without a run.
    #[arg(long)]
    pub list_checks: bool,
    /// Send requests that may change the target's state: any method but GET, HEAD and
    /// OPTIONS, and operations that end or change a session or credential (logout,
    /// revoke, password). Updates and deletes still go only to what the run created, or
    /// to a record `restore:` in --fixtures names. Without it they are skipped and counted.
    /// The embedded reference server is the run's own and takes writes without it.
    #[arg(long)]
    pub allow_writes: bool,
    /// With --allow-writes, also send requests that may delete or overwrite data the run
    /// did not create: bulk deletes, collection-wide updates, resets, and updates or
    /// deletes of resources named by the spec's examples.
    #[arg(long, requires = "allow_writes")]
    pub allow_destructive: bool,
    /// Run the embedded reference server in this process with no socket: each request
    /// goes straight to its router (no --base-url).
    #[arg(long, conflicts_with = "base_url")]
    pub in_process: bool,
    /// Test only what needs no credentials: with no --token, -H or OAuth fixtures, a spec
    /// whose selected operations require credentials is otherwise a configuration error
    /// (exit 2). Cases that would send credentials to such an operation are reported not
    /// applicable, once per operation; `ignored_auth` (no or bad credentials on purpose)
    /// still runs.
    #[arg(long, conflicts_with = "token")]
    pub anonymous: bool,
    /// Print the plan (operation, method, case, what it does to the target, and why a
    /// case would be skipped) and send nothing, not even to discover or log in (a --spec
    /// URL is still fetched: the plan is made from it). It ends with how many requests the
    /// first pass sends and what the target's answers may add (later passes, removals,
    /// restores, session-ending cases).
    #[arg(long)]
    pub dry_run: bool,
}

/// `NAME:VALUE`, with a header name HTTP accepts and a value it can carry.
fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .ok_or_else(|| "expected NAME:VALUE".to_string())?;
    let name = name.trim();
    let value = value.trim();
    reqwest::header::HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| format!("`{name}` is not a valid header name"))?;
    reqwest::header::HeaderValue::from_str(value)
        .map_err(|_| format!("the value of `{name}` holds characters a header cannot carry"))?;
    Ok((name.to_ascii_lowercase(), value.to_string()))
}

/// Requests per second from `N`, `N/s` or `N/m`.
fn parse_rate(s: &str) -> Result<f64, String> {
    let (n, per) = match s.split_once('/') {
        Some((n, unit)) => (
            n,
            match unit.trim() {
                "s" | "sec" | "second" => 1.0,
                "m" | "min" | "minute" => 60.0,
                other => return Err(format!("unknown unit `{other}`: use /s or /m")),
            },
        ),
        None => (s, 1.0),
    };
    let n: f64 = n
        .trim()
        .parse()
        .map_err(|_| format!("not a number of requests: {n}"))?;
    let rate = n / per;
    if !(rate > 0.0 && rate <= 10_000.0) {
        return Err(format!(
            "the rate must be above 0 and at most 10000/s (got {s})"
        ));
    }
    Ok(rate)
}

/// `I/N` with 1 ≤ I ≤ N (`--shard`).
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (i, n) = text
        .split_once('/')
        .ok_or_else(|| format!("not I/N: {text:?}"))?;
    let i: usize = i.trim().parse().map_err(|_| format!("not I/N: {text:?}"))?;
    let n: usize = n.trim().parse().map_err(|_| format!("not I/N: {text:?}"))?;
    if n == 0 || i == 0 || i > n {
        return Err(format!("shard {i}/{n}: I must be between 1 and N"));
    }
    Ok((i, n))
}

/// A percentage from 0 to 100 (`--min-coverage`).
fn parse_percent(text: &str) -> Result<f64, String> {
    let p: f64 = text
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("not a percentage: {text:?}"))?;
    if (0.0..=100.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("{p} is not between 0 and 100"))
    }
}

fn parse_millis(s: &str) -> Result<Duration, String> {
    match s.parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err(format!(
            "`{s}` is not a whole number of milliseconds above 0"
        )),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_name_colon_value() {
        assert_eq!(
            parse_header("X-Api-Key: abc:def").unwrap(),
            ("x-api-key".to_string(), "abc:def".to_string())
        );
        assert!(parse_header("no-colon").is_err());
        assert!(parse_header("bad name:v").is_err());
        assert!(parse_header("x:line\nbreak").is_err());
    }

    #[test]
    fn lists_take_commas_or_repeats() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Wrapper {
            #[command(flatten)]
            args: Args,
        }
        let a = Wrapper::parse_from([
            "conformance",
            "--exclude-operation",
            "a,b",
            "--exclude-operation",
            "c",
            "--check",
            "x,y",
            "--tag",
            "Risks",
        ])
        .args;
        assert_eq!(a.exclude_operation, ["a", "b", "c"]);
        assert_eq!(a.check, ["x", "y"]);
        assert_eq!(a.tag, ["Risks"]);
    }

    /// One token in 64 that a base64url generator draws begins with `-`: it is the
    /// token's value, not an unknown option.
    #[test]
    fn credentials_that_begin_with_a_hyphen_are_values() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Wrapper {
            #[command(flatten)]
            args: Args,
        }
        let a = Wrapper::try_parse_from([
            "conformance",
            "--token",
            "-WxYz",
            "--client-id",
            "-id",
            "--client-secret",
            "--secret",
            "--auth-code",
            "-code",
            "--quiet",
        ])
        .unwrap_or_else(|e| panic!("{e}"))
        .args;
        assert_eq!(a.token.as_deref(), Some("-WxYz"));
        assert_eq!(a.client_id.as_deref(), Some("-id"));
        assert_eq!(a.client_secret.as_deref(), Some("--secret"));
        assert_eq!(a.auth_code.as_deref(), Some("-code"));
        assert!(a.quiet);
    }

    #[test]
    fn rate_takes_a_unit() {
        assert_eq!(parse_rate("10").unwrap(), 10.0);
        assert_eq!(parse_rate("10/s").unwrap(), 10.0);
        assert_eq!(parse_rate("600/m").unwrap(), 10.0);
        assert!(parse_rate("0").is_err());
        assert!(parse_rate("5/h").is_err());
        assert!(parse_rate("x/s").is_err());
    }
}
