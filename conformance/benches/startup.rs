//! `cargo bench -p conformance --bench startup`: how soon a run on a large foreign spec
//! prints its header and sends its first request, from process start (target: both
//! within 1 s on an optimised build), beside the process-start baseline measured in the
//! same run: the same binary printing `--help`.
//!
//! The spec is the generator corpus's `nexus.json` (193 operations, OpenAPI 3.0.3, none of
//! the built-in spec's). The target is a listener on 127.0.0.1:0 in this process that
//! notes when the first connection comes and answers every request 404; the run is
//! stopped once it has printed its header and sent a request. Rounds alternate baseline
//! and run, and the medians are compared.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;

/// From process start to the header printed and to the first request sent.
const TARGET: Duration = Duration::from_secs(1);
/// Most a single run may take to print its header and send a request.
const ROUND_BOUND: Duration = Duration::from_secs(60);

/// Arguments of the bench.
#[derive(Parser)]
#[command(name = "bench startup")]
struct Args {
    /// Rounds (each a baseline and a run); the median of each is reported.
    #[arg(long, default_value_t = 9)]
    rounds: usize,
    /// The spec to start on, absolute or from the workspace root [default:
    /// codegen/tests/corpus/nexus.json].
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Passed by `cargo bench` to every bench target; nothing to do here.
    #[arg(long, hide = true)]
    bench: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("bench startup: {e}");
            ExitCode::from(2)
        }
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Serves 404 to every request on a free loopback port; `first` gets the instant of the
/// first connection after it is reset to `None`.
fn listen(first: Arc<Mutex<Option<Instant>>>) -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let now = Instant::now();
            if let Ok(mut first) = first.lock() {
                first.get_or_insert(now);
            }
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
            let mut buf = [0u8; 8192];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(
                b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
        }
    });
    Ok(port)
}

/// One timed run: (header printed, first request received), from spawn.
fn one_run(
    bin: &str,
    spec: &std::path::Path,
    port: u16,
    first: &Arc<Mutex<Option<Instant>>>,
) -> Result<(Duration, Duration), String> {
    *first.lock().map_err(|e| e.to_string())? = None;
    let start = Instant::now();
    let mut child = Command::new(bin)
        .arg("--spec")
        .arg(spec)
        .args(["--base-url", &format!("http://127.0.0.1:{port}")])
        .args(["--timeout", "2"])
        .env_remove("CONFORMANCE_TOKEN")
        .env_remove("CONFORMANCE_BASE_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {bin}: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    // The header ends with its credentials line; the rest is read and dropped, so the
    // run never writes into a closed pipe.
    let (header_tx, header_rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            match line {
                Ok(l) if l.trim_start().starts_with("credentials:") => {
                    let _ = header_tx.send(Instant::now());
                }
                Ok(_) => {}
                Err(_) => return,
            }
        }
    });
    let sent = loop {
        if let Some(t) = *first.lock().map_err(|e| e.to_string())? {
            break Some(t);
        }
        if start.elapsed() > ROUND_BOUND || child.try_wait().ok().flatten().is_some() {
            break None;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let header = header_rx
        .recv_timeout(ROUND_BOUND.saturating_sub(start.elapsed()))
        .ok();
    // Our own child, stopped by its handle once it has shown what is measured.
    let exited = child.try_wait().ok().flatten();
    let _ = child.kill();
    let _ = child.wait();
    let _ = reader.join();
    match (header, sent) {
        (Some(h), Some(s)) => Ok((h - start, s - start)),
        (h, s) => Err(format!(
            "the run did not show both (header printed: {}, request sent: {}){}",
            h.is_some(),
            s.is_some(),
            exited.map_or_else(String::new, |e| format!("; it exited: {e}"))
        )),
    }
}

fn help(bin: &str) -> Result<Duration, String> {
    let start = Instant::now();
    let status = Command::new(bin)
        .arg("--help")
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("cannot start {bin}: {e}"))?;
    if !status.success() {
        return Err(format!("{bin} --help: {status}"));
    }
    Ok(start.elapsed())
}

fn run(args: &Args) -> Result<bool, String> {
    let bin = env!("CARGO_BIN_EXE_conformance");
    // `cargo bench` runs this in the crate's directory: paths are read from the root.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let spec = root.join(
        args.spec
            .clone()
            .unwrap_or_else(|| PathBuf::from("codegen/tests/corpus/nexus.json")),
    );
    let first = Arc::new(Mutex::new(None));
    let port = listen(first.clone())?;
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "startup of a run on {} ({profile} build, {cores} cores, load {})",
        spec.display(),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let (mut base, mut heads, mut sends) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..args.rounds.max(1) {
        base.push(help(bin)?);
        let (h, s) = one_run(bin, &spec, port, &first)?;
        heads.push(h);
        sends.push(s);
    }
    let (b, h, s) = (median(base), median(heads), median(sends));
    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
    let ratio = |d: Duration| d.as_secs_f64() / b.as_secs_f64().max(1e-9);
    println!(
        "| Measure (median of {}) | Time | × `--help` |",
        args.rounds.max(1)
    );
    println!("|---|---|---|");
    println!("| `--help` (process start, baseline) | {} | 1.0 |", ms(b));
    println!("| header printed | {} | {:.1} |", ms(h), ratio(h));
    println!("| first request received | {} | {:.1} |", ms(s), ratio(s));
    let met = h <= TARGET && s <= TARGET;
    println!(
        "target: header and first request within {} ms: {}",
        TARGET.as_millis(),
        if met { "met" } else { "MISSED" }
    );
    Ok(met)
}
