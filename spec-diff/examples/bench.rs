//! The comparison on a 1,000-operation spec against a copy with 50 changes, timed beside a
//! baseline measured in the same run (parsing the two specs with spec-model alone, and
//! generating the two crates with codegen alone), so the figure is a ratio a slower or
//! busier machine keeps.
//!
//! The corpus's largest spec, GitHub's REST description
//! (`codegen/tests/corpus/api.github.com.json`), has 767 operations; the bench makes the
//! 1,000 itself, deterministically, by copying its first path items under `/copy` (each
//! copied operation's operationId suffixed `-copy`, so methods and types stay distinct)
//! until the document holds exactly 1,000 operations. Run on a release build:
//!
//! ```sh
//! cargo run --release -p spec-diff --example bench
//! ```

use std::time::{Duration, Instant};

/// `cargo xtask diff` runs in xtask, whose allocator is mimalloc: the bench measures the
/// comparison as users run it.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use serde_json::{Value, json};

const RUNS: usize = 5;

/// Operations in the spec the bench compares.
const OPERATIONS: usize = 1000;

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

fn count_operations(spec: &Value) -> usize {
    spec["paths"].as_object().map_or(0, |p| {
        p.values()
            .map(|i| METHODS.iter().filter(|m| i.get(**m).is_some()).count())
            .sum()
    })
}

/// GitHub's description grown to exactly `OPERATIONS` operations: its path items copied,
/// in document order, under `/copy`, with `-copy` operationIds; the last copy keeps only
/// as many of its operations as are still wanted.
fn grown(spec: &Value) -> Value {
    let mut spec = spec.clone();
    let mut missing = OPERATIONS
        .checked_sub(count_operations(&spec))
        .expect("the source spec has fewer operations than wanted");
    let paths = spec["paths"].as_object().expect("paths").clone();
    let mut copies = serde_json::Map::new();
    for (path, item) in &paths {
        if missing == 0 {
            break;
        }
        let mut item = item.clone();
        for method in METHODS {
            if item.get(method).is_none() {
                continue;
            }
            if missing == 0 {
                item.as_object_mut().expect("item").remove(method);
                continue;
            }
            missing -= 1;
            let op = &mut item[method];
            let id = op["operationId"].as_str().unwrap_or(method).to_owned();
            op["operationId"] = json!(format!("{id}-copy"));
        }
        copies.insert(format!("/copy{path}"), item);
    }
    spec["paths"].as_object_mut().expect("paths").extend(copies);
    assert_eq!(count_operations(&spec), OPERATIONS);
    spec
}

/// The median wall time of each task over `RUNS` rounds; each round runs every task once,
/// so a change of the machine's load during the bench falls on all of them alike.
fn medians<const N: usize>(tasks: [&dyn Fn(); N]) -> [Duration; N] {
    let mut times = [(); N].map(|_| Vec::with_capacity(RUNS));
    for _ in 0..RUNS {
        for (task, times) in tasks.iter().zip(&mut times) {
            let start = Instant::now();
            task();
            times.push(start.elapsed());
        }
    }
    times.map(|mut t| {
        t.sort();
        t[RUNS / 2]
    })
}

/// Fifty changes (one of the ten deprecations meets an operation deprecated already, so
/// 49 show), ten of each kind, on operations spread over the document: removed
/// operations, new required and new optional query parameters, deprecations, and a new
/// documented status.
fn changed(spec: &Value) -> Value {
    let mut spec = spec.clone();
    let mut targets = Vec::new();
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_some() {
                targets.push((path.clone(), method));
            }
        }
    }
    let step = targets.len() / 50;
    for (i, (path, method)) in targets.iter().step_by(step).take(50).enumerate() {
        let item = spec["paths"][path.as_str()].as_object_mut().expect("item");
        match i % 5 {
            0 => {
                item.remove(*method);
            }
            1 | 2 => {
                let op = item[*method].as_object_mut().expect("operation");
                let params = op.entry("parameters").or_insert_with(|| json!([]));
                params.as_array_mut().expect("list").push(json!({
                    "name": format!("bench_{i}"),
                    "in": "query",
                    "required": i % 5 == 1,
                    "schema": {"type": "string"}
                }));
            }
            3 => {
                item[*method]["deprecated"] = json!(true);
            }
            _ => {
                item[*method]["responses"]["418"] = json!({"description": "a teapot"});
            }
        }
    }
    spec
}

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("codegen/tests/corpus/api.github.com.json"))
        .expect("the corpus's GitHub description");
    let value = grown(&serde_json::from_str(&text).expect("JSON"));
    let old = spec_model::Source {
        name: "api.github.com.1000.json".into(),
        text: serde_json::to_string(&value).expect("JSON"),
    };
    let new = spec_model::Source {
        name: "api.github.com.changed.json".into(),
        text: serde_json::to_string(&changed(&value)).expect("JSON"),
    };
    let operations = count_operations(&value);
    if let Some(dir) = std::env::args().nth(1) {
        // `-- DIR`: write both specs, to time `cargo xtask diff` on the same files.
        let dir = std::path::Path::new(&dir);
        std::fs::write(dir.join("old.json"), &old.text).expect("write old.json");
        std::fs::write(dir.join("new.json"), &new.text).expect("write new.json");
    }

    let report = spec_diff::diff(&old, &new, &Default::default()).expect("diff");
    let wire = report
        .findings
        .iter()
        .filter(|f| f.kind == spec_diff::rules::Kind::Wire)
        .count();

    let files = codegen::generate_str(&old.name, &old.text, "x")
        .expect("old")
        .files;
    let [diff, parse, generate, surface] = medians([
        &|| {
            spec_diff::diff(&old, &new, &Default::default()).expect("diff");
        },
        &|| {
            spec_model::parse(&old).expect("old");
            spec_model::parse(&new).expect("new");
        },
        &|| {
            codegen::generate_str(&old.name, &old.text, "x").expect("old");
            codegen::generate_str(&new.name, &new.text, "x").expect("new");
        },
        &|| {
            spec_diff::surface::surface(
                files.iter().map(|f| (f.path.as_str(), f.contents.as_str())),
            )
            .expect("parses");
        },
    ]);
    println!("every file of one crate read for its public items (syn): {surface:.2?}");
    println!(
        "spec: {} ({operations} operations), 50 changes: {} findings ({wire} wire), Rust {:?}",
        old.name,
        report.findings.len(),
        report.rust.bump
    );
    println!("median of {RUNS} rounds (each runs every measure once), wall time:");
    println!("  diff (both specs read, both crates generated and compared): {diff:.2?}");
    println!("  baseline, parse both specs only:                             {parse:.2?}");
    println!("  baseline, generate both crates only (codegen::generate_str): {generate:.2?}");
    println!(
        "  diff / parse = {:.2}, diff / generate = {:.2}",
        diff.as_secs_f64() / parse.as_secs_f64(),
        diff.as_secs_f64() / generate.as_secs_f64()
    );
}
