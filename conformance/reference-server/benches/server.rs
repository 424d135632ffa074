//! `cargo xtask bench server` (`cargo bench -p reference-server --bench server`): throughput and latency of the reference server's `item`,
//! `suggest` and `updatecontactinfoname` beside a minimal axum handler that returns a
//! constant JSON body, measured in the same run by the same bounded loopback load
//! generator, so the ratio says what the server's own work costs. GET operations are
//! compared with the handler's GET, the POST update with its POST (which reads the same
//! body). Target: every operation reaches at least 0.7 of the handler's throughput.
//!
//! `cargo bench` builds it optimised; it parses its own arguments (`harness = false`).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;

/// The throughput ratio the reference server should reach against the baseline.
const TARGET_RATIO: f64 = 0.7;

/// Arguments of `cargo xtask bench server`.
#[derive(Parser)]
#[command(name = "bench server")]
struct Args {
    /// Measured requests per scenario (after the warm-up).
    #[arg(long, default_value_t = 20_000)]
    requests: usize,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 32)]
    concurrency: usize,
    /// Rounds: each round runs every scenario once with its share of the requests, so
    /// that load from elsewhere on a shared machine falls on all scenarios alike.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Upper bound on one scenario's measured phase, in seconds.
    #[arg(long, default_value_t = 30)]
    max_seconds: u64,
    /// Passed by `cargo bench` to every bench target; nothing to do here.
    #[arg(long, hide = true)]
    bench: bool,
}

/// One scenario's figures.
struct Figures {
    completed: usize,
    errors: usize,
    elapsed: Duration,
    p50: Duration,
    p99: Duration,
}

impl Figures {
    fn throughput(&self) -> f64 {
        self.completed as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// What one request of a scenario is.
#[derive(Clone)]
enum Target {
    Get(String),
    PostJson(String, String),
}

/// Runs the benchmark.
fn main() -> ExitCode {
    let args = Args::parse();
    if args.requests == 0 || args.concurrency == 0 {
        eprintln!("cargo xtask bench server: --requests and --concurrency must be positive");
        return ExitCode::from(2);
    }
    if cfg!(debug_assertions) {
        eprintln!("note: this is a debug build; run `cargo xtask bench server` for figures");
    }
    // Servers and load generator on separate runtimes, two threads each, so that
    // neither starves the other's scheduler; on a 2-core machine they still share
    // the cores, equally for the baseline and the reference server.
    let servers = match multi_thread(2) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let load = match multi_thread(2) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let baseline_addr = match servers.block_on(start_baseline()) {
        Ok(a) => a,
        Err(e) => return fail(&e),
    };
    let server =
        match servers.block_on(reference_server::spawn(reference_server::Config::default())) {
            Ok(s) => s,
            Err(e) => return fail(&format!("cannot start the reference server: {e}")),
        };
    let token = server.issue_token();
    let base = server.base_url();
    let update_body =
        r#"{"firstName":"Ada","lastName":"Lovelace","country":"GB","phone":"+44 20 7946 0958"}"#;
    let scenarios: Vec<(&str, Target)> = vec![
        (
            "baseline GET (constant JSON)",
            Target::Get(format!("http://{baseline_addr}/const")),
        ),
        (
            "baseline POST (constant JSON)",
            Target::PostJson(
                format!("http://{baseline_addr}/const"),
                update_body.to_string(),
            ),
        ),
        (
            "item",
            Target::Get(format!("{base}/categoryPositionLimit/item?id=11")),
        ),
        (
            "suggest",
            Target::Get(format!("{base}/riskCategory/suggest?t=equit&l=10")),
        ),
        (
            "updatecontactinfoname",
            Target::PostJson(
                format!("{base}/contactInfo/updatecontactinfoname"),
                update_body.to_string(),
            ),
        ),
    ];
    let rounds = args.rounds.max(1);
    let per_round = (args.requests / rounds).max(1);
    println!(
        "reference server vs minimal axum handler: {} requests per scenario in {rounds} rounds, {} in flight, loopback",
        per_round * rounds,
        args.concurrency
    );
    let mut samples: Vec<Sample> = scenarios.iter().map(|_| Sample::default()).collect();
    for round in 0..rounds {
        for ((_, target), sample) in scenarios.iter().zip(samples.iter_mut()) {
            let s = load.block_on(measure(
                target.clone(),
                &token,
                per_round,
                round == 0,
                &args,
            ));
            sample.add(s);
        }
    }
    servers.block_on(server.shutdown());
    let results: Vec<(&str, Figures)> = scenarios
        .iter()
        .zip(samples)
        .map(|((name, _), s)| (*name, s.figures()))
        .collect();

    let (get_baseline, post_baseline) = (results[0].1.throughput(), results[1].1.throughput());
    println!(
        "{:<30} {:>9} {:>7} {:>10} {:>10} {:>10} {:>7}",
        "scenario", "requests", "errors", "req/s", "p50", "p99", "ratio"
    );
    let mut below = Vec::new();
    for ((name, f), (_, target)) in results.iter().zip(&scenarios) {
        // Each operation is compared with the baseline of its own method.
        let baseline = match target {
            Target::Get(_) => get_baseline,
            Target::PostJson(..) => post_baseline,
        };
        let ratio = f.throughput() / baseline;
        println!(
            "{:<30} {:>9} {:>7} {:>10.0} {:>10} {:>10} {:>7.2}",
            name,
            f.completed,
            f.errors,
            f.throughput(),
            micros(f.p50),
            micros(f.p99),
            ratio
        );
        if !name.starts_with("baseline") && (ratio < TARGET_RATIO || f.errors > 0) {
            below.push(*name);
        }
    }
    if below.is_empty() {
        println!("every operation reaches at least {TARGET_RATIO} of the baseline's throughput");
        ExitCode::SUCCESS
    } else {
        println!(
            "below the {TARGET_RATIO} target or with errors: {}",
            below.join(", ")
        );
        ExitCode::from(1)
    }
}

fn micros(d: Duration) -> String {
    format!("{} µs", d.as_micros())
}

fn fail(message: &str) -> ExitCode {
    eprintln!("cargo xtask bench server: {message}");
    ExitCode::from(2)
}

fn multi_thread(threads: usize) -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start an async runtime: {e}"))
}

/// The minimal handler: a constant JSON body the size of an `item` answer.
async fn start_baseline() -> Result<SocketAddr, String> {
    const BODY: &str = r#"{"active":true,"totalBy":"Contract","riskCategoryId":1,"id":11,"contractId":3001,"productType":"Futures","productVerificationStatus":"Verified","shortLimit":50,"longLimit":50,"exposedLimit":100,"description":"Per-contract limit"}"#;
    // GET answers the constant; POST reads the whole body first and answers the same,
    // the fair partner of a POST operation (the load generator pays for the body too).
    let constant = || async {
        (
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            BODY,
        )
    };
    let app = axum::Router::new().route(
        "/const",
        axum::routing::get(constant).post(move |_body: axum::body::Bytes| constant()),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot bind the baseline: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(addr)
}

/// The raw measurements of one scenario, summed over rounds.
#[derive(Default)]
struct Sample {
    latencies: Vec<Duration>,
    errors: usize,
    elapsed: Duration,
}

impl Sample {
    fn add(&mut self, other: Sample) {
        self.latencies.extend(other.latencies);
        self.errors += other.errors;
        self.elapsed += other.elapsed;
    }

    fn figures(mut self) -> Figures {
        self.latencies.sort_unstable();
        let l = &self.latencies;
        let pct = |p: f64| -> Duration {
            if l.is_empty() {
                return Duration::ZERO;
            }
            let i = ((l.len() as f64 * p).ceil() as usize).clamp(1, l.len()) - 1;
            l[i]
        };
        Figures {
            completed: l.len(),
            errors: self.errors,
            elapsed: self.elapsed,
            p50: pct(0.50),
            p99: pct(0.99),
        }
    }
}

/// Optionally warms up, then sends `requests` requests with `concurrency` in flight,
/// stopping early at `max_seconds`.
async fn measure(
    target: Target,
    token: &str,
    requests: usize,
    warm_up: bool,
    args: &Args,
) -> Sample {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(args.concurrency)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("reqwest builds a plain HTTP client");
    let warmup = if warm_up {
        (args.requests / 20).clamp(100, 2_000)
    } else {
        args.concurrency * 4
    };
    let _ = run_load(
        &http,
        &target,
        token,
        warmup,
        args.concurrency,
        Duration::from_secs(10),
    )
    .await;
    let started = Instant::now();
    let (latencies, errors) = run_load(
        &http,
        &target,
        token,
        requests,
        args.concurrency,
        Duration::from_secs(args.max_seconds),
    )
    .await;
    Sample {
        latencies,
        errors,
        elapsed: started.elapsed(),
    }
}

/// The bounded load loop: `total` tickets shared by `concurrency` workers, each
/// stopping at the deadline. Returns the latencies of successful requests and the
/// number of failed ones.
async fn run_load(
    http: &reqwest::Client,
    target: &Target,
    token: &str,
    total: usize,
    concurrency: usize,
    limit: Duration,
) -> (Vec<Duration>, usize) {
    let tickets = Arc::new(AtomicUsize::new(total));
    let deadline = Instant::now() + limit;
    let mut workers = Vec::with_capacity(concurrency);
    for _ in 0..concurrency {
        let (http, target, token, tickets) = (
            http.clone(),
            target.clone(),
            token.to_string(),
            Arc::clone(&tickets),
        );
        workers.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0usize;
            while Instant::now() < deadline
                && tickets
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                    .is_ok()
            {
                let request = match &target {
                    Target::Get(url) => http.get(url),
                    Target::PostJson(url, body) => http
                        .post(url)
                        .header("content-type", "application/json")
                        .body(body.clone()),
                };
                let sent = Instant::now();
                match request.bearer_auth(&token).send().await {
                    Ok(r) if r.status().is_success() => match r.bytes().await {
                        Ok(_) => latencies.push(sent.elapsed()),
                        Err(_) => errors += 1,
                    },
                    _ => errors += 1,
                }
            }
            (latencies, errors)
        }));
    }
    let mut all = Vec::with_capacity(total);
    let mut errors = 0;
    for w in workers {
        if let Ok((l, e)) = w.await {
            all.extend(l);
            errors += e;
        }
    }
    (all, errors)
}
