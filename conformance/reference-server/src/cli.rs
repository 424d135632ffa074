//! The command line shared by the `reference-server` binary and `cargo xtask serve`:
//! start, print what a user needs to `curl` at once, serve until Ctrl-C.

use std::io::Write as _;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use crate::{Config, Fault, RunningServer, ServerError, spawn};

/// Arguments of `serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0 lets the OS pick one).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// A data file (YAML) replacing the embedded default data set.
    #[arg(long, value_name = "FILE")]
    pub data: Option<PathBuf>,
    /// A state file that keeps contact updates and tokens across restarts.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Switch on a seeded bug (testing the conformance harness); repeatable.
    #[arg(long = "fault", value_name = "NAME", hide = true)]
    pub faults: Vec<Fault>,
    /// Seconds a client may take to send a request's headers, and then its body.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::DEFAULT_READ_TIMEOUT.as_secs_f64(), value_parser = parse_seconds)]
    pub read_timeout: f64,
    /// Answer as the platform does when it limits a client: every Nth request of each
    /// operation (the first included) gets a penalty (`200` with `p-ticket`, `p-time`;
    /// the token exchange) or `429` with `Retry-After` (the others). 0: off.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub penalty_every: u32,
    /// Seconds a penalty or `429` asks the client to wait (`p-time`; `Retry-After` in whole
    /// seconds, rounded down).
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0, value_parser = parse_wait)]
    pub penalty_wait: f64,
    /// Penalty answers ask for a captcha (`p-captcha: true`): a person must log in.
    #[arg(long)]
    pub penalty_captcha: bool,
}

fn parse_wait(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..=3600.0).contains(&s) => Ok(s),
        _ => Err("a number of seconds from 0 to 3600".into()),
    }
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 3600.0 => Ok(s),
        _ => Err("a number of seconds above 0 and at most 3600".into()),
    }
}

impl ServeArgs {
    /// The server configuration these arguments describe.
    pub fn config(&self) -> Config {
        Config {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, self.port)),
            data: self.data.clone(),
            state: self.state.clone(),
            faults: self.faults.clone(),
            read_timeout: std::time::Duration::from_secs_f64(self.read_timeout),
            penalties: (self.penalty_every > 0).then(|| crate::Penalties {
                every: self.penalty_every,
                wait: std::time::Duration::from_secs_f64(self.penalty_wait),
                captcha: self.penalty_captcha,
            }),
        }
    }
}

/// Logs to stderr; `RUST_LOG` overrides the default `info`.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// Starts the server, prints the banner and serves until Ctrl-C.
pub async fn serve(args: &ServeArgs) -> Result<(), ServerError> {
    let server = spawn(args.config()).await?;
    let token = server.issue_token();
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(banner(&server, &token).as_bytes());
    let _ = out.flush();
    drop(out);
    let _ = tokio::signal::ctrl_c().await;
    server.shutdown().await;
    Ok(())
}

/// What `serve` prints: the base URL, the demo client and a ready token. The demo
/// client's secret is demo data from the data file, printed on purpose; the token is
/// printed here once, for the user, and never logged.
pub fn banner(server: &RunningServer, token: &str) -> String {
    let client = server.demo_client();
    format!(
        "reference server running\n\
         base URL:      {base}\n\
         authorize:     {origin}/oauth/authorize\n\
         client_id:     {id}\n\
         client_secret: {secret}\n\
         redirect_uri:  {redirect}\n\
         bearer token:  {token}\n\
         try:           curl -H 'Authorization: Bearer {token}' '{base}/riskCategory/suggest?t=equit&l=5'\n\
         Press Ctrl-C to stop.\n",
        base = server.base_url(),
        origin = server.origin(),
        id = client.client_id,
        secret = client.client_secret,
        redirect = client.redirect_uri,
    )
}
