//! This generator beside `cargo-progenitor` (oxidecomputer's OpenAPI-to-Rust generator,
//! the field's reference), on the public documents of `codegen/tests/corpus/`: whole
//! processes, since that is what a user runs, then `cargo check` of the two crates each
//! wrote, then how much of each crate fell back to untyped JSON.
//!
//! - Generation: the release `xtask codegen --crate` against `cargo-progenitor
//!   progenitor -i SPEC -o DIR -n NAME -v 0.1.0`, both invoked directly (not through
//!   `cargo`), output directory removed before every run, rounds interleaved (ours,
//!   progenitor, ours, ...) so that load on the shared machine hits both alike; the
//!   processor time of each process is printed beside its wall time, as for the check.
//! - Check: both crates are members of one workspace with one target directory; a first
//!   `cargo check` builds every dependency (and both crates), then each round touches a
//!   crate's `src/lib.rs` and times `cargo check --offline -p CRATE`, interleaved, three
//!   ways, each printed: from scratch with incremental compilation off
//!   (`CARGO_INCREMENTAL=0`), the figure the target is read against, since a user who
//!   regenerates a crate changes its sources and gets a real check; from scratch with
//!   incremental on (cargo's default for a workspace member: the crate's incremental
//!   cache is removed first, so rustc also pays for writing it); and the re-check of the
//!   unchanged crate with its cache kept, where rustc finds its cached results valid and
//!   the time measures loading and hashing that cache rather than the crate. Beside the
//!   wall time, the processor time of the check (cargo and rustc, user and system,
//!   `getrusage` of the children) is compared: on a machine shared with other builds
//!   the wall time mostly measures waiting for a core, the processor time does not.
//! - `serde_json::Value`: every Rust file of each crate's `src/` is parsed with `syn` and
//!   the schemas and fields lowered to `Value` are counted, the same way for both, with
//!   this generator's forward-compatibility fallback variants apart (see
//!   [`value_census`]).
//!
//! Progenitor refuses OpenAPI 3.1: a 3.1 document is given to it relabelled `3.0.3` in a
//! temporary copy (this generator reads the original). A document progenitor still
//! refuses (it panics on GitHub's description) is narrowed to what it reads, in a copy
//! (see [`narrow`]: operations and enum values taken out by what its messages name, run
//! after run until it generates), and then both generators are timed on that same copy;
//! the output says how many operations were dropped and why. cargo-progenitor 0.15.1 is
//! installed on first use into `target/tools/progenitor`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::{narrow, value_census};
use crate::tools::{project_root, run_checked, tools_dir};

/// The pinned version.
const VERSION: &str = "0.15.1";

/// Settings of the comparison.
pub struct Settings {
    /// Corpus file names to compare (empty: all).
    pub only: Vec<String>,
    /// Interleaved generation rounds per document and generator.
    pub process_rounds: usize,
    /// Interleaved `cargo check` rounds per document and crate.
    pub check_rounds: usize,
}

/// `cargo-progenitor` under `target/tools/progenitor/bin`, installed if missing.
fn install() -> Result<PathBuf, String> {
    let root = tools_dir().join("progenitor");
    let exe = root.join("bin").join("cargo-progenitor");
    let marker = root.join(".installed");
    let wanted = format!("cargo-progenitor {VERSION}");
    if exe.is_file() && std::fs::read_to_string(&marker).ok().as_deref() == Some(wanted.as_str()) {
        return Ok(exe);
    }
    eprintln!(
        "installing cargo-progenitor {VERSION} into {} (compiles for several minutes)",
        root.display()
    );
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run_checked(
        Command::new(cargo)
            .args([
                "install",
                "cargo-progenitor",
                "--version",
                VERSION,
                "--locked",
                "--root",
            ])
            .arg(&root),
    )?;
    std::fs::write(&marker, &wanted)
        .map_err(|e| format!("cannot write {}: {e}", marker.display()))?;
    Ok(exe)
}

/// What one generator did with one document.
enum Outcome {
    /// Generated; the crate directory holds its output.
    Wrote,
    /// Refused: the first line of what it said, and all it said (standard output, then
    /// standard error).
    Refused { first: String, said: String },
}

/// Runs a generator once into a fresh `out`; the wall and processor time of the whole
/// process.
fn generate(cmd: &mut Command, out: &Path) -> Result<(Took, Outcome), String> {
    if out.exists() {
        std::fs::remove_dir_all(out).map_err(|e| format!("cannot clear {}: {e}", out.display()))?;
    }
    let cpu_before = children_cpu();
    let started = Instant::now();
    let output = cmd
        .output()
        .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    let took = Took {
        wall: started.elapsed(),
        cpu: cpu_before
            .zip(children_cpu())
            .map(|(b, a)| a.saturating_sub(b)),
    };
    if output.status.success() {
        return Ok((took, Outcome::Wrote));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let mut lines = stderr.lines();
    let first = lines
        .find(|l| l.contains("error") || l.contains("Error") || l.contains("panicked"))
        .or_else(|| stderr.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("no message")
        .trim();
    let mut first = first.to_owned();
    // A panic's message is on the line after `panicked at FILE:LINE:COLUMN:`.
    if first.contains("panicked at")
        && let Some(message) = lines.next()
    {
        first = format!("panicked: {}", message.trim());
    }
    if first.len() > 160 {
        let mut cut = 160;
        while !first.is_char_boundary(cut) {
            cut -= 1;
        }
        first.truncate(cut);
        first.push('…');
    }
    let said = format!("{}\n{stderr}", String::from_utf8_lossy(&output.stdout));
    Ok((took, Outcome::Refused { first, said }))
}

/// The input progenitor gets: the document itself, or a copy relabelled 3.0.3 when it
/// is OpenAPI 3.1 (which progenitor refuses outright).
fn progenitor_input(spec: &Path, scratch: &Path) -> Result<(PathBuf, bool), String> {
    let text = std::fs::read_to_string(spec)
        .map_err(|e| format!("cannot read {}: {e}", spec.display()))?;
    let is_json = spec.extension().is_some_and(|e| e == "json");
    let version = if is_json {
        serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("openapi")?.as_str().map(str::to_owned))
    } else {
        text.lines()
            .find_map(|l| l.strip_prefix("openapi:"))
            .map(|v| v.trim().trim_matches(['"', '\'']).to_owned())
    };
    if !version.is_some_and(|v| v.starts_with("3.1")) {
        return Ok((spec.to_owned(), false));
    }
    let relabelled = if is_json {
        let mut value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", spec.display()))?;
        value["openapi"] = serde_json::Value::from("3.0.3");
        serde_json::to_string(&value).map_err(|e| e.to_string())?
    } else {
        text.lines()
            .map(|l| {
                if l.starts_with("openapi:") {
                    "openapi: 3.0.3"
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let copy = scratch.join(spec.file_name().unwrap_or_default());
    std::fs::write(&copy, relabelled)
        .map_err(|e| format!("cannot write {}: {e}", copy.display()))?;
    Ok((copy, true))
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A document both generators wrote a crate for, ready for the check phase.
struct Pair {
    label: String,
    ours: String,
    theirs: String,
}

/// The processor time (user and system) of this process's waited-for children so far,
/// from `getrusage(RUSAGE_CHILDREN)`, to the microsecond. `/proc/self/stat`'s `cutime`
/// and `cstime` (read before) count Linux's 100 ticks a second: too coarse for a 15 ms
/// generation, where one tick either way moved a small document's ratio from 0.25 to
/// 0.43. `None` elsewhere than Unix.
#[cfg(unix)]
fn children_cpu() -> Option<Duration> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` only writes the `rusage` it is pointed at, which lives for the
    // call; all zeroes is a valid value of that plain C struct, and on success the
    // kernel has filled it.
    let usage = unsafe {
        if libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) != 0 {
            return None;
        }
        usage.assume_init()
    };
    let time = |t: libc::timeval| -> Option<Duration> {
        Some(
            Duration::from_secs(u64::try_from(t.tv_sec).ok()?)
                + Duration::from_micros(u64::try_from(t.tv_usec).ok()?),
        )
    };
    Some(time(usage.ru_utime)? + time(usage.ru_stime)?)
}

#[cfg(not(unix))]
fn children_cpu() -> Option<Duration> {
    None
}

/// The median wall time of some runs.
fn wall(took: &[Took]) -> Duration {
    median(took.iter().map(|t| t.wall).collect())
}

/// The median processor time of some runs, when every run's is known.
fn cpu(took: &[Took]) -> Option<Duration> {
    took.iter()
        .map(|t| t.cpu)
        .collect::<Option<Vec<_>>>()
        .map(median)
}

/// What one process took: wall time, and processor time when known.
#[derive(Clone, Copy)]
struct Took {
    wall: Duration,
    cpu: Option<Duration>,
}

/// How a round checks a crate (see the module's documentation).
#[derive(Clone, Copy)]
enum CheckMode {
    /// From scratch, incremental compilation off: the figure the target is read against.
    Scratch,
    /// From scratch, incremental compilation on (the crate's cache removed first).
    ScratchIncremental,
    /// The unchanged crate again, its incremental cache kept.
    Recheck,
}

impl CheckMode {
    const ALL: [CheckMode; 3] = [
        CheckMode::Scratch,
        CheckMode::ScratchIncremental,
        CheckMode::Recheck,
    ];

    fn describe(self) -> &'static str {
        match self {
            CheckMode::Scratch => "from scratch (CARGO_INCREMENTAL=0)",
            CheckMode::ScratchIncremental => {
                "from scratch with incremental on (the crate's cache removed first)"
            }
            CheckMode::Recheck => {
                "re-check of the unchanged crate, incremental cache kept (measures the cache)"
            }
        }
    }

    fn incremental(self) -> &'static str {
        match self {
            CheckMode::Scratch => "0",
            CheckMode::ScratchIncremental | CheckMode::Recheck => "1",
        }
    }
}

/// Removes a crate's incremental cache (`debug/incremental/NAME-HASH`).
fn forget_incremental(target: &Path, package: &str) -> Result<(), String> {
    let dir = target.join("debug/incremental");
    let prefix = format!("{}-", package.replace('-', "_"));
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            std::fs::remove_dir_all(entry.path())
                .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// `cargo check` of one crate of the workspace; its duration.
fn check(
    cargo: &std::ffi::OsStr,
    ws: &Path,
    target: &Path,
    package: &str,
    mode: CheckMode,
) -> Result<Took, String> {
    let lib = ws.join(package).join("src/lib.rs");
    let file = std::fs::File::options()
        .append(true)
        .open(&lib)
        .map_err(|e| format!("{}: {e}", lib.display()))?;
    file.set_modified(std::time::SystemTime::now())
        .map_err(|e| format!("cannot touch {}: {e}", lib.display()))?;
    drop(file);
    if let CheckMode::ScratchIncremental = mode {
        forget_incremental(target, package)?;
    }
    let cpu_before = children_cpu();
    let started = Instant::now();
    let output = Command::new(cargo)
        .args(["check", "--offline", "--quiet", "-p", package])
        .current_dir(ws)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_INCREMENTAL", mode.incremental())
        .env_remove("RUSTFLAGS")
        .output()
        .map_err(|e| format!("cannot start cargo: {e}"))?;
    let wall = started.elapsed();
    let cpu = children_cpu()
        .zip(cpu_before)
        .map(|(after, before)| after.saturating_sub(before));
    if !output.status.success() {
        return Err(format!(
            "cargo check -p {package} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(Took { wall, cpu })
}

/// A crate name for a document: `PREFIX-` and its stem in lower case and dashes.
fn crate_name(prefix: &str, file: &str) -> String {
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("{prefix}-{stem}")
}

/// Runs the comparison; prints one block per document.
pub fn run(settings: &Settings) -> Result<(), String> {
    let exe = install()?;
    let ours_exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let root = project_root();
    let corpus = root.join("codegen/tests/corpus");
    let files = corpus_files(&corpus, settings)?;
    let target = tools_dir().parent().map(Path::to_owned).unwrap_or_default();
    let bench_dir = target.join("bench-codegen");
    if bench_dir.exists() {
        std::fs::remove_dir_all(&bench_dir).map_err(|e| format!("{}: {e}", bench_dir.display()))?;
    }
    let ws = bench_dir.join("ws");
    let inputs = bench_dir.join("inputs");
    std::fs::create_dir_all(&inputs).map_err(|e| e.to_string())?;

    println!(
        "whole process, median of {} interleaved rounds; ratio = ours / progenitor (below 1: ours is faster)",
        settings.process_rounds
    );
    let mut pairs = Vec::new();
    let places = Places {
        exe: &exe,
        ours_exe: &ours_exe,
        corpus: &corpus,
        inputs: &inputs,
        ws: &ws,
    };
    for file in &files {
        pairs.extend(compare_generation(file, &places, settings)?);
    }
    if pairs.is_empty() || settings.check_rounds == 0 {
        return Ok(());
    }
    compare_builds(&pairs, &root, &ws, &target, settings)
}

/// The corpus documents the run compares (all, or those `settings.only` names), sorted.
fn corpus_files(corpus: &Path, settings: &Settings) -> Result<Vec<String>, String> {
    let mut files: Vec<String> = std::fs::read_dir(corpus)
        .map_err(|e| format!("{}: {e}", corpus.display()))?
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json") || n.ends_with(".yaml"))
        .filter(|n| settings.only.is_empty() || settings.only.contains(n))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no corpus document matches {:?}", settings.only));
    }
    Ok(files)
}

/// Where a generation comparison finds its programs and documents and writes its crates.
struct Places<'a> {
    /// The progenitor binary.
    exe: &'a Path,
    /// This xtask, which runs our generator.
    ours_exe: &'a Path,
    /// The corpus folder.
    corpus: &'a Path,
    /// Where progenitor's copies of the documents go.
    inputs: &'a Path,
    /// The workspace the generated crates go in.
    ws: &'a Path,
}

/// At most this many rounds of narrowing (one progenitor run each) before the bench
/// gives up on a document.
const NARROWING_ROUNDS: usize = 100;

/// How a document was narrowed for progenitor.
struct Narrowed {
    /// Operations in the document progenitor was first given.
    operations: usize,
    /// Operations dropped, by reason, in the order first met.
    dropped: Vec<(String, Vec<String>)>,
    /// String enums trimmed of values differing only in case and punctuation.
    enums: usize,
    /// Progenitor runs it took.
    rounds: usize,
}

/// Narrows `input` (the document as progenitor was given it, which it refused saying
/// `said`) by [`narrow::step`] until `run` (progenitor on the copy, written by `run`)
/// generates; what was taken out. An error when no rule reads what progenitor said, or
/// when it still refuses after [`NARROWING_ROUNDS`] runs.
fn narrow_until_taken(
    input: &Path,
    said: &str,
    run: &mut dyn FnMut(&serde_json::Value) -> Result<Outcome, String>,
) -> Result<Narrowed, String> {
    let text = std::fs::read_to_string(input)
        .map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let source = spec_model::Source {
        name: input.display().to_string(),
        text,
    };
    let mut doc = spec_model::to_value(&source).map_err(|e| e.to_string())?;
    let mut narrowed = Narrowed {
        operations: narrow::count_operations(&doc),
        dropped: Vec::new(),
        enums: 0,
        rounds: 0,
    };
    let mut said = said.to_owned();
    while narrowed.rounds < NARROWING_ROUNDS {
        let Some(step) = narrow::step(&mut doc, &said) else {
            let first = said
                .lines()
                .find(|l| l.contains("panicked") || l.contains("rror"))
                .map(|l| format!(": {}", l.trim()))
                .unwrap_or_default();
            return Err(format!(
                "progenitor refuses the copy narrowed in {} rounds, and no narrowing rule reads what it said{first}\n{said}",
                narrowed.rounds
            ));
        };
        match step {
            narrow::Step::Dropped { why, operations } => {
                match narrowed.dropped.iter_mut().find(|(w, _)| *w == why) {
                    Some((_, ops)) => ops.extend(operations),
                    None => narrowed.dropped.push((why, operations)),
                }
            }
            narrow::Step::EnumsTrimmed(n) => narrowed.enums += n,
        }
        narrowed.rounds += 1;
        match run(&doc)? {
            Outcome::Wrote => return Ok(narrowed),
            Outcome::Refused { said: again, .. } => said = again,
        }
    }
    Err(format!(
        "progenitor still refuses the copy after {NARROWING_ROUNDS} rounds of narrowing"
    ))
}

/// Says what was taken out of the copy both generators are then timed on.
fn print_narrowing(narrowed: &Narrowed, copy: &Path) {
    let dropped: usize = narrowed.dropped.iter().map(|(_, ops)| ops.len()).sum();
    println!(
        "  narrowed to what progenitor reads, in {} runs of it: {dropped} of {} operations dropped, {} left; both generators timed on that copy ({})",
        narrowed.rounds,
        narrowed.operations,
        narrowed.operations - dropped,
        copy.display()
    );
    for (why, ops) in &narrowed.dropped {
        let shown: Vec<&str> = ops.iter().take(4).map(String::as_str).collect();
        let more = if ops.len() > shown.len() { ", ..." } else { "" };
        println!(
            "    {:>4} dropped: {why} ({}{more})",
            ops.len(),
            shown.join(", ")
        );
    }
    if narrowed.enums > 0 {
        println!(
            "    {:>4} string enums kept only the first of values equal but for case and punctuation (typify: not unique variant names)",
            narrowed.enums
        );
    }
}

/// Generates one corpus document with both generators, times them over the rounds and
/// prints the result; the pair of crates to check, or `None` when either refuses it.
fn compare_generation(
    file: &String,
    places: &Places<'_>,
    settings: &Settings,
) -> Result<Option<Pair>, String> {
    let Places {
        exe,
        ours_exe,
        corpus,
        inputs,
        ws,
    } = *places;
    let spec = corpus.join(file);
    let (prog_input, relabelled) = progenitor_input(&spec, inputs)?;
    let ours_name = crate_name("ours", file);
    let theirs_name = crate_name("prog", file);
    let ours_dir = ws.join(&ours_name);
    let theirs_dir = ws.join(&theirs_name);
    let ours_for = |spec: &Path| {
        let mut cmd = Command::new(ours_exe);
        cmd.arg("codegen")
            .arg("--spec")
            .arg(spec)
            .arg("--crate")
            .arg(&ours_dir)
            .args(["--name", &ours_name]);
        cmd
    };
    let theirs_for = |input: &Path| {
        let mut cmd = Command::new(exe);
        cmd.args(["progenitor", "-i"])
            .arg(input)
            .arg("-o")
            .arg(&theirs_dir)
            .args(["-n", &theirs_name, "-v", "0.1.0"])
            // A refusal is a panic: its message is what the narrowing reads, a backtrace
            // only slows it.
            .env("RUST_BACKTRACE", "0");
        cmd
    };
    let note = if relabelled {
        " (3.1 relabelled 3.0.3 for progenitor)"
    } else {
        ""
    };
    println!("{file}{note}");
    // Warm-up: one run each, which also tells whether each takes the document.
    let (_, mut ours_outcome) = generate(&mut ours_for(&spec), &ours_dir)?;
    let (_, mut theirs_outcome) = generate(&mut theirs_for(&prog_input), &theirs_dir)?;
    let (mut ours_input, mut theirs_input) = (spec.clone(), prog_input.clone());
    if let (Outcome::Wrote, Outcome::Refused { first, said }) = (&ours_outcome, &theirs_outcome) {
        println!("  progenitor refuses it as it is: {first}");
        let copy = inputs.join(format!("{}.narrowed.json", crate_name("for", file)));
        let mut run = |doc: &serde_json::Value| -> Result<Outcome, String> {
            // Pretty, as the published documents are: the line-oriented parts of a
            // generator (locating its warnings) see the layout they would.
            let text = serde_json::to_string_pretty(doc).map_err(|e| e.to_string())?;
            std::fs::write(&copy, text)
                .map_err(|e| format!("cannot write {}: {e}", copy.display()))?;
            Ok(generate(&mut theirs_for(&copy), &theirs_dir)?.1)
        };
        let narrowed =
            narrow_until_taken(&prog_input, said, &mut run).map_err(|e| format!("{file}: {e}"))?;
        print_narrowing(&narrowed, &copy);
        (ours_input, theirs_input) = (copy.clone(), copy);
        ours_outcome = generate(&mut ours_for(&ours_input), &ours_dir)?.1;
        theirs_outcome = Outcome::Wrote;
    }
    let (mut ours_cmd, mut theirs_cmd) = (ours_for(&ours_input), theirs_for(&theirs_input));
    match (&ours_outcome, &theirs_outcome) {
        (Outcome::Wrote, Outcome::Wrote) => {}
        _ => {
            for (who, outcome) in [("ours", &ours_outcome), ("progenitor", &theirs_outcome)] {
                match outcome {
                    Outcome::Wrote => println!("  {who:<10} generates"),
                    Outcome::Refused { first, .. } => println!("  {who:<10} refuses: {first}"),
                }
            }
            println!("  not compared: both must generate");
            for dir in [&ours_dir, &theirs_dir] {
                let _ = std::fs::remove_dir_all(dir);
            }
            return Ok(None);
        }
    }
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..settings.process_rounds {
        let (took, outcome) = generate(&mut ours_cmd, &ours_dir)?;
        if let Outcome::Refused { first, .. } = outcome {
            return Err(format!("{file}: ours failed on a later round: {first}"));
        }
        ours.push(took);
        let (took, outcome) = generate(&mut theirs_cmd, &theirs_dir)?;
        if let Outcome::Refused { first, .. } = outcome {
            return Err(format!(
                "{file}: progenitor failed on a later round: {first}"
            ));
        }
        theirs.push(took);
    }
    let (ours_wall, theirs_wall) = (wall(&ours), wall(&theirs));
    println!(
        "  generate   ours {:>9.1} ms   progenitor {:>9.1} ms   ratio {:.2}",
        ms(ours_wall),
        ms(theirs_wall),
        ours_wall.as_secs_f64() / theirs_wall.as_secs_f64().max(1e-9)
    );
    if let (Some(ours_cpu), Some(theirs_cpu)) = (cpu(&ours), cpu(&theirs)) {
        println!(
            "  cpu        ours {:>9.1} ms   progenitor {:>9.1} ms   ratio {:.2}   (processor time, user + system)",
            ms(ours_cpu),
            ms(theirs_cpu),
            ours_cpu.as_secs_f64() / theirs_cpu.as_secs_f64().max(1e-9)
        );
    }
    let ours_values = value_census::count(&ours_dir.join("src"))?;
    let theirs_values = value_census::count(&theirs_dir.join("src"))?;
    println!(
        "  serde_json::Value, schemas and fields lowered   ours {}   progenitor {}   (fallback variants: ours {}, progenitor {})",
        ours_values.lowered, theirs_values.lowered, ours_values.fallbacks, theirs_values.fallbacks
    );
    Ok(Some(Pair {
        label: file.clone(),
        ours: ours_name,
        theirs: theirs_name,
    }))
}

/// Checks every generated pair in one workspace, in each check mode, and prints the
/// medians.
fn compare_builds(
    pairs: &[Pair],
    root: &Path,
    ws: &Path,
    target: &Path,
    settings: &Settings,
) -> Result<(), String> {
    // One workspace holds every crate; the workspace's lock file is the starting point so
    // that the dependencies this project already uses are not resolved afresh.
    let members: Vec<String> = pairs
        .iter()
        .flat_map(|p| [format!("\"{}\"", p.ours), format!("\"{}\"", p.theirs)])
        .collect();
    std::fs::write(
        ws.join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
            members.join(", ")
        ),
    )
    .map_err(|e| e.to_string())?;
    std::fs::copy(root.join("Cargo.lock"), ws.join("Cargo.lock")).map_err(|e| e.to_string())?;
    let check_target = target.join("bench-codegen-check");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("building the dependencies of every crate (cargo check --workspace) ...");
    // A crate that does not compile fails this step; it is reported per crate below.
    let _ = Command::new(&cargo)
        .args(["check", "--workspace", "--keep-going", "--quiet"])
        .current_dir(ws)
        .env("CARGO_TARGET_DIR", &check_target)
        // Dependencies are never incremental, so the rounds find them up to date whichever
        // way they check; the crates start with no incremental cache.
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("RUSTFLAGS")
        .status();
    for mode in CheckMode::ALL {
        println!(
            "cargo check of the generated crate alone, {} (dependencies built), median of {} interleaved rounds; ratio = ours / progenitor",
            mode.describe(),
            settings.check_rounds
        );
        if let CheckMode::Recheck = mode {
            // One unmeasured check of each crate writes the cache the rounds then find.
            for pair in pairs {
                let _ = check(&cargo, ws, &check_target, &pair.ours, mode);
                let _ = check(&cargo, ws, &check_target, &pair.theirs, mode);
            }
        }
        for pair in pairs {
            compare_checks(&cargo, ws, &check_target, pair, mode, settings.check_rounds);
        }
    }
    Ok(())
}

/// Times `rounds` interleaved checks of one pair of crates and prints the medians.
fn compare_checks(
    cargo: &std::ffi::OsStr,
    ws: &Path,
    target: &Path,
    pair: &Pair,
    mode: CheckMode,
    rounds: usize,
) {
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..rounds {
        match (
            check(cargo, ws, target, &pair.ours, mode),
            check(cargo, ws, target, &pair.theirs, mode),
        ) {
            (Ok(a), Ok(b)) => {
                ours.push(a);
                theirs.push(b);
            }
            (Err(e), _) | (_, Err(e)) => {
                let first = e.lines().find(|l| l.contains("error")).unwrap_or("").trim();
                println!("{:<36} check   not compared: {first}", pair.label);
                return;
            }
        }
    }
    let (ours_wall, theirs_wall) = (wall(&ours), wall(&theirs));
    println!(
        "{:<36} check   ours {:>7.2} s   progenitor {:>7.2} s   ratio {:.2}",
        pair.label,
        ours_wall.as_secs_f64(),
        theirs_wall.as_secs_f64(),
        ours_wall.as_secs_f64() / theirs_wall.as_secs_f64().max(1e-9)
    );
    if let (Some(ours_cpu), Some(theirs_cpu)) = (cpu(&ours), cpu(&theirs)) {
        println!(
            "{:<36} cpu     ours {:>7.2} s   progenitor {:>7.2} s   ratio {:.2}",
            "",
            ours_cpu.as_secs_f64(),
            theirs_cpu.as_secs_f64(),
            ours_cpu.as_secs_f64() / theirs_cpu.as_secs_f64().max(1e-9)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_childs_processor_time_is_counted_once_it_is_waited_for() {
        let before = children_cpu().expect("getrusage answers for the children");
        let status = Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"])
            .status()
            .unwrap();
        assert!(status.success());
        let spent = children_cpu().unwrap() - before;
        assert!(
            spent >= Duration::from_millis(20) && spent < Duration::from_secs(60),
            "{spent:?}"
        );
    }

    #[test]
    fn a_3_1_document_is_relabelled_for_progenitor_only() {
        let dir = std::env::temp_dir().join(format!("xtask-progenitor-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let spec = dir.join("spec.json");
        std::fs::write(&spec, r#"{"openapi": "3.1.0", "info": {}}"#).unwrap();
        let copies = dir.join("copies");
        std::fs::create_dir_all(&copies).unwrap();
        let (input, relabelled) = progenitor_input(&spec, &copies).unwrap();
        assert!(relabelled);
        let copy: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&input).unwrap()).unwrap();
        assert_eq!(copy["openapi"], "3.0.3");
        assert!(std::fs::read_to_string(&spec).unwrap().contains("3.1.0"));
        std::fs::write(&spec, r#"{"openapi": "3.0.3"}"#).unwrap();
        assert_eq!(
            progenitor_input(&spec, &copies).unwrap(),
            (spec.clone(), false)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
