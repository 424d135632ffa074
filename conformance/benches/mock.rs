//! `cargo xtask bench mock`: throughput of `conformance mock` beside Stoplight Prism's
//! `prism mock` on the same spec (`spec/openapi.yaml`), same request, same load: each
//! server a process of its own on 127.0.0.1, driven by 16 concurrent connections for a
//! fixed time after a warm-up. Prints requests per second of each and the ratio (the
//! machine drifts; the ratio is what BENCHMARKS.md keeps). xtask installs Prism and names
//! it in `PRISM_BIN`; `MOCK_BENCH_SECONDS` sets the measured time (10 s).
//!
//! `MOCK_BENCH_BASELINE=FILE` measures a second `conformance` binary (an older build) the
//! same way, between the two, so that a change to the mock is compared within one run
//! rather than across runs the machine's other load tells apart; `MOCK_BENCH_ROUNDS=N`
//! repeats the whole sequence N times (1).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Concurrent connections of the load.
const CONCURRENCY: usize = 16;
/// The request measured: a read with a query parameter, a bearer token and an example
/// answer, which both mocks validate and answer from the spec.
const PATH: &str = "/categoryPositionLimit/deps?masterid=1";

/// A server process, killed (by its own handle) when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Waits until `url` answers 200 (within 60 s).
async fn ready(client: &reqwest::Client, url: &str) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        let sent = client.get(url).bearer_auth("bench").send().await;
        if sent.is_ok_and(|r| r.status() == 200) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("{url} did not answer 200 within 60 s");
}

/// Requests per second answered 200 over `seconds`, and how many were not.
async fn load(client: &reqwest::Client, url: &str, seconds: u64) -> (f64, u64) {
    let ok = Arc::new(AtomicU64::new(0));
    let bad = Arc::new(AtomicU64::new(0));
    let until = Instant::now() + Duration::from_secs(seconds);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..CONCURRENCY {
        let (client, url, ok, bad) = (client.clone(), url.to_owned(), ok.clone(), bad.clone());
        tasks.push(tokio::spawn(async move {
            while Instant::now() < until {
                let answered = match client.get(&url).bearer_auth("bench").send().await {
                    Ok(r) => r.status() == 200 && r.bytes().await.is_ok(),
                    Err(_) => false,
                };
                let counter = if answered { &ok } else { &bad };
                counter.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    for t in tasks {
        t.await.expect("a load task");
    }
    let rate = ok.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64();
    (rate, bad.load(Ordering::Relaxed))
}

fn start(cmd: &mut Command) -> Server {
    Server(
        cmd.stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts"),
    )
}

#[tokio::main]
async fn main() {
    let Some(prism) = std::env::var_os("PRISM_BIN").map(PathBuf::from) else {
        eprintln!("needs Stoplight Prism: run `cargo xtask bench mock`");
        std::process::exit(2);
    };
    let seconds: u64 = std::env::var("MOCK_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let rounds: usize = std::env::var("MOCK_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let baseline = std::env::var_os("MOCK_BENCH_BASELINE").map(PathBuf::from);
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.yaml");
    let client = reqwest::Client::new();
    let mut servers: Vec<(&str, PathBuf)> = vec![(
        "conformance mock",
        PathBuf::from(env!("CARGO_BIN_EXE_conformance")),
    )];
    if let Some(old) = baseline {
        servers.push(("baseline mock", old));
    }
    servers.push(("prism mock", prism));
    for round in 1..=rounds {
        if rounds > 1 {
            println!("round {round} of {rounds}");
        }
        let mut rates = Vec::new();
        for (name, exe) in &servers {
            let port = free_port();
            let _server = match *name {
                "prism mock" => start(
                    Command::new(exe)
                        .args(["mock", "-h", "127.0.0.1", "-p", &port.to_string()])
                        .arg(&spec),
                ),
                _ => start(
                    Command::new(exe)
                        .args(["mock", "--port", &port.to_string(), "--spec"])
                        .arg(&spec),
                ),
            };
            let url = format!("http://127.0.0.1:{port}{PATH}");
            ready(&client, &url).await;
            load(&client, &url, 1).await;
            let (rate, bad) = load(&client, &url, seconds).await;
            println!("{name:<17} {rate:>9.0} requests/s ({bad} not 200) over {seconds} s");
            rates.push(rate);
        }
        let prism_rate = rates[rates.len() - 1];
        println!(
            "conformance mock / prism mock: {:.1}x the requests per second ({CONCURRENCY} connections, GET {PATH})",
            rates[0] / prism_rate
        );
        if servers.len() == 3 {
            println!(
                "baseline mock / prism mock: {:.1}x; conformance mock / baseline mock: {:.2}x",
                rates[1] / prism_rate,
                rates[0] / rates[1]
            );
        }
    }
}
