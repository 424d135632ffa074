//! `cargo xtask bench client` (`cargo bench -p trading-api --bench client`): per-request cost of the generated client beside
//! hand-written `reqwest` code making the same call (same URL, query, bearer header and
//! JSON body, the same total timeout, decoding into the same model) against the same
//! local axum server, through the same `reqwest::Client` and connection pool. Batches of sequential requests
//! alternate between the two (the order flips every round). The ratio is the median of
//! the rounds' ratios: each round pairs two batches measured back to back, so a change
//! of load on the shared machine between rounds moves both sides of a pair and cancels
//! out, where a ratio of two medians taken over the whole run would carry it. Target:
//! ratio at most 1.10.
//!
//! `cargo bench` builds it optimised; it parses its own arguments (`harness = false`).

use std::process::ExitCode;

use clap::Parser;
use std::time::{Duration, Instant};

use trading_api::models::{
    CategoryPositionLimit, UpdateContactInfoName, UpdateContactInfoResponse,
};

/// The largest acceptable generated / hand-written ratio.
const TARGET_RATIO: f64 = 1.10;

const TOKEN: &str = "bench-token";

const LIMIT: &str = r#"{"id":11,"active":true,"totalBy":"Contract","riskCategoryId":1,"contractId":3001,"productType":"Futures","productVerificationStatus":"Verified","shortLimit":50,"longLimit":50,"exposedLimit":100,"description":"Per-contract limit"}"#;

const UPDATED: &str = r#"{"errorText":"","contactInfo":{"id":1,"userId":1,"firstName":"Ada","lastName":"Lovelace","streetAddress1":"12 St James's Square","city":"London","country":"GB","phone":"+44 20 7946 0958","postCode":"SW1Y 4JH","mailingIsDifferent":false}}"#;

/// Arguments of `cargo xtask bench client`.
#[derive(Parser)]
#[command(name = "bench client")]
struct Args {
    /// Measured rounds per scenario (each round: one batch of each kind).
    #[arg(long, default_value_t = 30)]
    rounds: usize,
    /// Sequential requests per batch.
    #[arg(long, default_value_t = 200)]
    batch: usize,
    /// Upper bound on one scenario's measured phase, in seconds.
    #[arg(long, default_value_t = 30)]
    max_seconds: u64,
    /// Both sides without a total timeout: the generated client's default
    /// (`Client::DEFAULT_TIMEOUT`) switched off, and none on the hand-written call. By
    /// default both have one, since a production call without it can hang forever; the
    /// timer it arms is reqwest's own cost, the same on either side.
    #[arg(long)]
    no_timeout: bool,
    /// For profilers (`perf stat`, `valgrind --tool=callgrind`): send only this side's
    /// GET (`generated` or `hand`) for `--rounds` batches and print nothing.
    #[arg(long, value_parser = ["generated", "hand"])]
    only: Option<String>,
    /// Passed by `cargo bench` to every bench target; nothing to do here.
    #[arg(long, hide = true)]
    bench: bool,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The two ways of making a scenario's call.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scenario {
    GetItem,
    UpdateName,
}

fn contact() -> UpdateContactInfoName {
    UpdateContactInfoName::builder()
        .first_name("Ada")
        .last_name("Lovelace")
        .country("GB")
        .phone("+44 20 7946 0958")
        .build()
}

async fn generated(client: &trading_api::Client, scenario: Scenario) -> Result<(), BoxError> {
    match scenario {
        Scenario::GetItem => {
            let limit = client.get_category_position_limit(11).await?;
            std::hint::black_box(limit);
        }
        Scenario::UpdateName => {
            let answer = client.update_contact_info_name(&contact()).await?;
            std::hint::black_box(answer);
        }
    }
    Ok(())
}

async fn hand_written(
    http: &reqwest::Client,
    base: &str,
    scenario: Scenario,
    timeout: Option<Duration>,
) -> Result<(), BoxError> {
    match scenario {
        Scenario::GetItem => {
            let request = http
                .get(format!("{base}/categoryPositionLimit/item"))
                .query(&[("id", 11)])
                .bearer_auth(TOKEN);
            let response = with_timeout(request, timeout).send().await?;
            if response.status() != reqwest::StatusCode::OK {
                return Err(format!("status {}", response.status()).into());
            }
            let bytes = response.bytes().await?;
            let limit: CategoryPositionLimit = serde_json::from_slice(&bytes)?;
            std::hint::black_box(limit);
        }
        Scenario::UpdateName => {
            let request = http
                .post(format!("{base}/contactInfo/updatecontactinfoname"))
                .bearer_auth(TOKEN)
                .json(&contact());
            let response = with_timeout(request, timeout).send().await?;
            if response.status() != reqwest::StatusCode::OK {
                return Err(format!("status {}", response.status()).into());
            }
            let bytes = response.bytes().await?;
            let answer: UpdateContactInfoResponse = serde_json::from_slice(&bytes)?;
            std::hint::black_box(answer);
        }
    }
    Ok(())
}

/// The request with the total timeout, as the generated client sets it (per request).
fn with_timeout(
    request: reqwest::RequestBuilder,
    timeout: Option<Duration>,
) -> reqwest::RequestBuilder {
    match timeout {
        Some(t) => request.timeout(t),
        None => request,
    }
}

/// Time per request of one batch.
async fn batch(
    n: usize,
    client: &trading_api::Client,
    http: &reqwest::Client,
    base: &str,
    scenario: Scenario,
    use_generated: bool,
) -> Result<Duration, BoxError> {
    let started = Instant::now();
    for _ in 0..n {
        if use_generated {
            generated(client, scenario).await?;
        } else {
            // The generated client's total timeout (or none), on the hand-written call too.
            hand_written(http, base, scenario, client.timeout()).await?;
        }
    }
    Ok(started.elapsed() / u32::try_from(n).unwrap_or(u32::MAX))
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

async fn serve() -> Result<(String, tokio::task::JoinHandle<()>), BoxError> {
    use axum::routing::{get, post};
    let app = axum::Router::new()
        .route(
            "/v1/categoryPositionLimit/item",
            get(|| async { ([("content-type", "application/json")], LIMIT) }),
        )
        .route(
            "/v1/contactInfo/updatecontactinfoname",
            post(|body: axum::body::Bytes| async move {
                std::hint::black_box(body);
                ([("content-type", "application/json")], UPDATED)
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let task = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("bench server stopped: {e}");
        }
    });
    Ok((format!("http://{addr}/v1"), task))
}

async fn bench(args: &Args) -> Result<bool, BoxError> {
    let (base, server) = serve().await?;
    let http = reqwest::Client::builder().build()?;
    let mut plain = trading_api::Client::with_client(base.as_str(), http.clone());
    plain.set_bearer_token(TOKEN)?;
    if args.no_timeout {
        plain.set_timeout(None);
    }
    if let Some(side) = &args.only {
        let use_generated = side == "generated";
        for _ in 0..args.rounds {
            batch(
                args.batch,
                &plain,
                &http,
                &base,
                Scenario::GetItem,
                use_generated,
            )
            .await?;
        }
        server.abort();
        return Ok(true);
    }
    // The same client with the retry policy on (nothing is retried: every answer is a
    // success), so its cost on the common path shows.
    let mut retrying = plain.clone();
    retrying.set_retry_policy(Some(trading_api::RetryPolicy::default()));
    println!(
        "per-request medians of {} alternating batches of {} sequential requests; ratio = median over rounds of generated / hand-written{}",
        args.rounds,
        args.batch,
        if args.no_timeout {
            "; no timeout on either side"
        } else {
            "; both sides with the client's default total timeout"
        }
    );
    let mut all_met = true;
    for (label, scenario, client) in [
        ("GET item, retry off", Scenario::GetItem, &plain),
        ("POST update, retry off", Scenario::UpdateName, &plain),
        ("GET item, retry on", Scenario::GetItem, &retrying),
        ("POST update, retry on", Scenario::UpdateName, &retrying),
    ] {
        // Warm-up: connections, allocator, branch predictors, for both sides.
        batch(args.batch, client, &http, &base, scenario, true).await?;
        batch(args.batch, client, &http, &base, scenario, false).await?;
        let deadline = Instant::now() + Duration::from_secs(args.max_seconds);
        let (mut gen_times, mut hand_times, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..args.rounds {
            if Instant::now() > deadline {
                break;
            }
            let generated_first = round % 2 == 0;
            let (mut g, mut h) = (Duration::ZERO, Duration::ZERO);
            for use_generated in [generated_first, !generated_first] {
                let t = batch(args.batch, client, &http, &base, scenario, use_generated).await?;
                if use_generated {
                    g = t;
                } else {
                    h = t;
                }
            }
            gen_times.push(g);
            hand_times.push(h);
            ratios.push(g.as_secs_f64() / h.as_secs_f64().max(1e-12));
        }
        let rounds = gen_times.len();
        let (g, h) = (median(gen_times), median(hand_times));
        ratios.sort_by(f64::total_cmp);
        let ratio = ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN);
        let met = ratio <= TARGET_RATIO;
        all_met &= met;
        println!(
            "{label:<28} generated {:>8.1} µs   hand-written {:>8.1} µs   ratio {ratio:.3}   target <= {TARGET_RATIO}: {}   ({rounds} rounds)",
            g.as_secs_f64() * 1e6,
            h.as_secs_f64() * 1e6,
            if met { "met" } else { "MISSED" },
        );
    }
    server.abort();
    Ok(all_met)
}

/// Runs the benchmark.
fn main() -> ExitCode {
    let args = Args::parse();
    if args.rounds == 0 || args.batch == 0 {
        eprintln!("cargo xtask bench client: --rounds and --batch must be positive");
        return ExitCode::from(2);
    }
    if cfg!(debug_assertions) {
        eprintln!("note: this is a debug build; run `cargo xtask bench client` for figures");
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(bench(&args)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
