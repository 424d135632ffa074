//! `cargo xtask bench codegen`: generation time of `spec/openapi.yaml`, of the
//! platform's full published document (350 operations) and of GitHub's REST description
//! (about 1,000 operations, the stress case), each beside a baseline measured in the same
//! run: loading the same document (YAML/JSON parse into the typed spec), which any
//! generator must do. Runs are interleaved (baseline, generation, baseline, ...) and the
//! medians compared, so drift on a shared machine hits both alike. Targets: under 20 ms
//! for the spec, under 500 ms for the 350-operation document, under 2 s for GitHub's.
//! The load average is printed before and after: on a shared machine it says how much
//! the absolute times are stretched.
//!
//! With `--progenitor`, the same run then compares this generator with `cargo-progenitor`
//! on the real-world documents of `codegen/tests/corpus/` (see [`progenitor`]).
//!
//! Run it optimised: `cargo run --release -p xtask -- bench codegen`.

mod narrow;
mod progenitor;
mod value_census;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `cargo xtask bench codegen`.
#[derive(clap::Args)]
pub struct Args {
    /// Measured rounds per document (each round: one load, one full generation).
    #[arg(long, default_value_t = 30)]
    rounds: usize,
    /// Upper bound on one document's measured phase, in seconds.
    #[arg(long, default_value_t = 30)]
    max_seconds: u64,
    /// Also compare with cargo-progenitor 0.15.1 (installed on first use), whole
    /// process and `cargo check` of the crates, on the corpus documents.
    #[arg(long)]
    progenitor: bool,
    /// Corpus documents to compare (file names under `codegen/tests/corpus`; default: all).
    #[arg(long, value_delimiter = ',', requires = "progenitor")]
    corpus: Vec<String>,
    /// Interleaved whole-process generation rounds per document and generator.
    #[arg(long, default_value_t = 5)]
    process_rounds: usize,
    /// Interleaved `cargo check` rounds per document and crate (0: no check phase).
    #[arg(long, default_value_t = 3)]
    check_rounds: usize,
}

/// One document to measure, with its target.
struct Document {
    label: &'static str,
    path: PathBuf,
    target: Duration,
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Measures one document; returns whether it met its target.
fn measure(doc: &Document, args: &Args) -> Result<bool, String> {
    let text = std::fs::read_to_string(&doc.path)
        .map_err(|e| format!("cannot read {}: {e}", doc.path.display()))?;
    let source = spec_model::Source {
        name: doc.path.display().to_string(),
        text: text.clone(),
    };
    let name = doc.path.display().to_string();
    // Warm-up: one of each, which also proves the document generates.
    spec_model::parse(&source).map_err(|e| e.to_string())?;
    let files = codegen::generate_str(&name, &text, &name)
        .map_err(|e| e.to_string())?
        .files;
    let bytes: usize = files.iter().map(|f| f.contents.len()).sum();

    let deadline = Instant::now() + Duration::from_secs(args.max_seconds);
    let mut load = Vec::with_capacity(args.rounds);
    let mut generate = Vec::with_capacity(args.rounds);
    for _ in 0..args.rounds {
        if Instant::now() > deadline {
            break;
        }
        let started = Instant::now();
        let spec = spec_model::parse(&source).map_err(|e| e.to_string())?;
        load.push(started.elapsed());
        drop(spec);
        let started = Instant::now();
        let files = codegen::generate_str(&name, &text, &name).map_err(|e| e.to_string())?;
        generate.push(started.elapsed());
        drop(files);
    }
    let rounds = generate.len();
    let (load, generate) = (median(load), median(generate));
    let ratio = generate.as_secs_f64() / load.as_secs_f64().max(1e-9);
    let met = generate < doc.target;
    println!(
        "{:<28} load {:>8.2} ms   generate {:>8.2} ms   ratio {:>6.1}x   target < {:.0} ms: {}   ({rounds} rounds, {} KiB of Rust)",
        doc.label,
        ms(load),
        ms(generate),
        ratio,
        ms(doc.target),
        if met { "met" } else { "MISSED" },
        bytes / 1024,
    );
    Ok(met)
}

/// Prints the 1, 5 and 15 minute load averages (Linux's `/proc/loadavg`; elsewhere
/// nothing): the figures to read the absolute times against.
fn print_load(when: &str) {
    if let Ok(text) = std::fs::read_to_string("/proc/loadavg") {
        let averages: Vec<&str> = text.split_whitespace().take(3).collect();
        println!("load average {when}: {}", averages.join(" "));
    }
}

/// Runs the benchmark.
pub fn run(args: Args) -> ExitCode {
    if args.rounds == 0 {
        eprintln!("cargo xtask bench codegen: --rounds must be positive");
        return ExitCode::from(2);
    }
    if cfg!(debug_assertions) {
        eprintln!(
            "note: this is a debug build; run `cargo run --release -p xtask -- bench codegen` for figures"
        );
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let documents = [
        Document {
            label: "spec/openapi.yaml (6 ops)",
            path: root.join("spec/openapi.yaml"),
            target: Duration::from_millis(20),
        },
        Document {
            label: "platform document (350 ops)",
            path: root.join("codegen/tests/corpus/tradovate-openapi-2026-08-21.json"),
            target: Duration::from_millis(500),
        },
        Document {
            label: "GitHub REST (~1,000 ops)",
            path: root.join("codegen/tests/corpus/api.github.com.json"),
            target: Duration::from_secs(2),
        },
    ];
    print_load("before");
    println!("median of interleaved rounds; ratio = full generation / loading the document alone");
    let mut all_met = true;
    for doc in &documents {
        match measure(doc, &args) {
            Ok(met) => all_met &= met,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if args.progenitor {
        let settings = progenitor::Settings {
            only: args.corpus.clone(),
            process_rounds: args.process_rounds.max(1),
            check_rounds: args.check_rounds,
        };
        if let Err(e) = progenitor::run(&settings) {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    print_load("after");
    if all_met {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
