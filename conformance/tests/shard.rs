//! `--shard I/N` and `conformance merge`: three shards of the embedded run, merged, give
//! the same results, totals and coverage as the run in one piece; reports that are not
//! shards of one run are refused.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn conformance(args: &[&str], dir: &Path) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .env_remove("CONFORMANCE_BASE_URL")
        .env_remove("CONFORMANCE_TOKEN")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run the conformance binary");
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// (case, check, step, verdict) of every result, sorted.
fn verdicts(doc: &Value) -> Vec<(String, String, u64, String)> {
    let mut v: Vec<_> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["case"].as_str().unwrap().to_string(),
                r["check"].as_str().unwrap().to_string(),
                r["step"].as_u64().unwrap(),
                r["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn three_shards_merged_are_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (code, out) = conformance(
        &["--quiet", "--json", "full.json", "--min-coverage", "100"],
        d,
    );
    assert_eq!(code, Some(0), "{out}");
    let mut ops_per_shard = Vec::new();
    for i in 1..=3 {
        let shard = format!("{i}/3");
        let file = format!("s{i}.json");
        let (code, out) = conformance(
            &[
                "--quiet",
                "--shard",
                &shard,
                "--json",
                &file,
                "--min-coverage",
                "100",
            ],
            d,
        );
        assert_eq!(code, Some(0), "{out}");
        assert!(
            out.contains(&format!("--shard {i}/3 (2 of 6 operations)")),
            "{out}"
        );
        let doc = json(&d.join(&file));
        let ran: Vec<String> = doc["coverage"]["per_operation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["operation"].as_str().unwrap().to_string())
            .collect();
        ops_per_shard.push(ran);
    }
    let mut all: Vec<&String> = ops_per_shard.iter().flatten().collect();
    all.sort();
    all.dedup();
    assert_eq!(
        all.len(),
        6,
        "every operation in exactly one shard: {ops_per_shard:?}"
    );

    let (code, out) = conformance(
        &[
            "merge",
            "s1.json",
            "s2.json",
            "s3.json",
            "--json",
            "merged.json",
            "--junit",
            "merged.xml",
            "--html",
            "merged.html",
        ],
        d,
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("3 shards merged"), "{out}");
    let (full, merged) = (json(&d.join("full.json")), json(&d.join("merged.json")));
    assert_eq!(verdicts(&merged), verdicts(&full));
    assert_eq!(merged["totals"], full["totals"]);
    assert_eq!(
        merged["coverage"]["reached_2xx"],
        full["coverage"]["reached_2xx"]
    );
    assert_eq!(
        merged["coverage"]["declared_seen"],
        full["coverage"]["declared_seen"]
    );
    assert_eq!(merged["exit_code"], 0);
    // `--min-coverage` judged once, on the whole run's coverage.
    let gates: Vec<&Value> = merged["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["check"] == "min_coverage")
        .collect();
    assert_eq!(gates.len(), 1, "{gates:?}");
    assert_eq!(gates[0]["verdict"], "passed");
    let xml = std::fs::read_to_string(d.join("merged.xml")).unwrap();
    assert!(xml.contains("operations_reached_2xx"), "{xml}");
    assert!(
        std::fs::read_to_string(d.join("merged.html"))
            .unwrap()
            .contains("<h1>PASSED</h1>")
    );
}

#[test]
fn reports_that_are_not_shards_of_one_run_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (file, shard, seed) in [("a.json", "1/2", "1"), ("b.json", "2/2", "2")] {
        let (code, out) = conformance(
            &["--quiet", "--shard", shard, "--seed", seed, "--json", file],
            d,
        );
        assert_eq!(code, Some(0), "{out}");
    }
    // The same shard twice: its operations would count twice.
    let (code, out) = conformance(&["merge", "a.json", "a.json"], d);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("shard 1/2 is given twice"), "{out}");
    // A shard missing: not the whole run.
    let (code, out) = conformance(&["merge", "a.json"], d);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("shard(s) 2/2 missing"), "{out}");
    // Another seed: not the same run.
    let (code, out) = conformance(&["merge", "a.json", "b.json"], d);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("another spec or seed"), "{out}");
    // Not a report at all.
    std::fs::write(d.join("c.json"), "{}").unwrap();
    let (code, out) = conformance(&["merge", "c.json"], d);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("not a conformance JSON report"), "{out}");
}

#[test]
fn a_shard_out_of_range_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["0/3", "4/3", "1/0", "x"] {
        let (code, out) = conformance(&["--shard", bad], dir.path());
        assert_eq!(code, Some(2), "{bad}: {out}");
    }
}
