//! The harness against a real application no one here wrote: Prefect server 3.9.1 from
//! PyPI (OpenAPI 3.1, 188 operations, no security declared, operations under `/api`).
//! Ignored in a plain test run because it needs Prefect: `cargo xtask prefect` installs the
//! pinned release into `target/tools/prefect-3.9.1/` and runs these tests with its
//! executable in `PREFECT_BIN`. Each test starts its own server (loopback port chosen by
//! the OS, SQLite data in a temp dir), creates a user's data through Prefect's API, points
//! the `conformance` binary at the spec the server serves, and judges the run from
//! outside: Prefect's data read back behind the harness's back, Prefect's own access log,
//! the record file and the JSON report.
//!
//! 1. Without `--allow-writes` nothing may change: the seed data and every collection are
//!    as before, and no request other than GET/HEAD/OPTIONS reached the server.
//! 2. With `--allow-writes` the run may create, but leaves no trace: what it created is
//!    gone at the end, and the data it did not create is untouched.
//! 3. Every MUST failure of a run with writes is pinned (`prefect_support::expected`),
//!    each with its reason, which the test checks on its own from the record, the spec and
//!    a fresh request.
//!
//! In every run a 5xx answer must fail the run (exit 1, a failed `not_a_server_error`).

mod prefect_support;

use std::collections::BTreeSet;

use prefect_support::expected::{EXPECTED_MUST_FAILURES, Why};
use prefect_support::{Api, Prefect, Run, Seed, differences, run_harness, scratch, snapshot};
use serde_json::Value;

/// Panics with every problem found, one per line, or prints that there were none.
fn assert_none(what: &str, problems: Vec<String>) {
    assert!(
        problems.is_empty(),
        "{what}: {} problem(s)\n{}",
        problems.len(),
        problems.join("\n")
    );
    eprintln!("{what}: ok");
}

/// The run sent requests and judged answers: a run that sent nothing proves nothing.
fn evidence_problems(run: &Run) -> Vec<String> {
    let passed = run.report["totals"]["passed"].as_u64().unwrap_or(0);
    let answered = run.record.iter().filter(|x| x["status"].is_u64()).count();
    eprintln!(
        "the run sent {} requests ({answered} answered); totals {}",
        run.record.len(),
        run.report["totals"]
    );
    let mut out = Vec::new();
    if answered == 0 {
        out.push("no request of the run was answered".to_string());
    }
    if passed == 0 {
        out.push("no check passed: the run judged nothing".to_string());
    }
    out
}

#[test]
#[ignore = "needs Prefect server: run `cargo xtask prefect`"]
fn without_allow_writes_no_write_reaches_prefect_and_its_data_is_untouched() {
    let dir = scratch("no-writes");
    let prefect = Prefect::start(&dir);
    let api = Api::new(&prefect.api);
    let seed = Seed::create(&api);
    let before = snapshot(&api);

    prefect.mark("harness-start");
    let run = run_harness(&prefect, &dir, &[]);
    prefect.mark("harness-end");

    let mut problems = run.exit_problems();
    problems.extend(evidence_problems(&run));
    problems.extend(
        run.writes_sent()
            .into_iter()
            .map(|w| format!("the record shows a write sent without permission: {w}")),
    );
    // Prefect's own access log, not the harness's word: what reached the server.
    problems.extend(
        prefect
            .requests_between("harness-start", "harness-end")
            .into_iter()
            .filter(|(method, _)| !matches!(method.as_str(), "GET" | "HEAD" | "OPTIONS"))
            .map(|(method, path)| format!("Prefect's access log shows a write: {method} {path}")),
    );
    problems.extend(seed.damage(&api));
    problems.extend(differences(&before, &snapshot(&api)));
    problems.extend(run.server_error_problems());
    assert_none(
        "a run without --allow-writes against Prefect with a user's data",
        problems,
    );
}

#[test]
#[ignore = "needs Prefect server: run `cargo xtask prefect`"]
fn with_allow_writes_the_run_removes_what_it_created_and_leaves_the_rest() {
    let dir = scratch("allow-writes");
    let prefect = Prefect::start(&dir);
    let api = Api::new(&prefect.api);
    let seed = Seed::create(&api);
    let before = snapshot(&api);

    let contracts = creating_contracts(&dir);
    let run = run_harness(
        &prefect,
        &dir,
        &["--allow-writes", "--contracts", path_arg(&contracts)],
    );

    let mut problems = run.exit_problems();
    problems.extend(evidence_problems(&run));
    // Writes were allowed: the run must have created something, or "nothing left behind"
    // checks nothing. Created: a POST or PUT answered 2xx with an id Prefect did not hold.
    let known: BTreeSet<&str> = before
        .values()
        .flat_map(|records| records.keys().map(String::as_str))
        .collect();
    let created: Vec<(&str, &str)> = run
        .record
        .iter()
        .filter(|x| matches!(x["method"].as_str(), Some("POST" | "PUT")))
        .filter(|x| {
            x["status"]
                .as_u64()
                .is_some_and(|s| (200..300).contains(&s))
        })
        .filter_map(|x| Some((x["path"].as_str()?, x["response"]["id"].as_str()?)))
        .filter(|(_, id)| !known.contains(id))
        .collect();
    eprintln!("records the run created: {}", created.len());
    if created.is_empty() {
        problems.push(
            "with writes allowed the run created nothing (no POST or PUT answered 2xx with a new id)"
                .into(),
        );
    }
    // Beyond the snapshot's collections: each record created at `/things/` that the spec
    // can read back at `/things/{id}` must be gone there too.
    let mut read_back = 0;
    for (path, id) in &created {
        let url = format!("{}{id}", path.split('?').next().unwrap_or(path));
        if !run.spec_has_get(&url) {
            continue;
        }
        read_back += 1;
        let (status, body) = api.get(&url);
        if status != 404 {
            problems.push(format!("left behind: GET {url} answers {status} {body}"));
        }
    }
    eprintln!("created records read back by id: {read_back}");
    problems.extend(seed.damage(&api));
    problems.extend(differences(&before, &snapshot(&api)));
    problems.extend(run.server_error_problems());
    assert_none(
        "a run with --allow-writes against Prefect with a user's data",
        problems,
    );
}

#[test]
#[ignore = "needs Prefect server: run `cargo xtask prefect`"]
fn every_must_failure_on_prefect_is_pinned_and_rechecked() {
    let dir = scratch("failures");
    let prefect = Prefect::start(&dir);
    let api = Api::new(&prefect.api);
    Seed::create(&api);

    // Writes allowed and two creates given their bodies: the run reaches the most of
    // Prefect it can today, so the most of its verdicts are pinned.
    let contracts = creating_contracts(&dir);
    let run = run_harness(
        &prefect,
        &dir,
        &["--allow-writes", "--contracts", path_arg(&contracts)],
    );
    assert_none("how the run ended", run.exit_problems());
    assert_none("evidence", evidence_problems(&run));
    assert_none("5xx answers", run.server_error_problems());

    let failed = run.results("failed");
    let got: BTreeSet<(String, String)> = failed
        .iter()
        .map(|r| (text(r, "case"), text(r, "check")))
        .collect();
    let want: BTreeSet<(String, String)> = EXPECTED_MUST_FAILURES
        .iter()
        .map(|(c, k, _)| (c.to_string(), k.to_string()))
        .collect();
    let unexpected: Vec<_> = got.difference(&want).collect();
    let missing: Vec<_> = want.difference(&got).collect();
    assert!(
        unexpected.is_empty() && missing.is_empty(),
        "the MUST failures on Prefect changed\n  unexpected ({}): {unexpected:#?}\n  expected but did not happen ({}): {missing:#?}",
        unexpected.len(),
        missing.len()
    );

    let mut problems = Vec::new();
    for (case, check, why) in EXPECTED_MUST_FAILURES {
        let result = failed
            .iter()
            .find(|r| r["case"] == *case && r["check"] == *check)
            .expect("every pinned failure was reported (compared above)");
        if let Err(e) = recheck(&run, &api, result, *why) {
            problems.push(format!("{case} {check} ({why:?}): {e}"));
        }
    }
    let own = EXPECTED_MUST_FAILURES
        .iter()
        .filter(|(_, _, why)| !matches!(why, Why::Departure(_)))
        .count();
    eprintln!(
        "{} MUST failures, as pinned: {} true departures of Prefect's, {own} the harness's own",
        failed.len(),
        failed.len() - own
    );
    assert_eq!(
        own, 0,
        "a pinned failure is the harness's own: every failure it reports must be Prefect's"
    );
    assert_none("every pinned failure re-checked with its reason", problems);
}

/// A user's contract directory that gives the bodies of two creates (a flow and a
/// variable), so that a run allowed to write creates records of its own and the cleanup
/// has something to remove. The harness cannot build request bodies from schemas yet; a
/// user would give them this way.
fn creating_contracts(dir: &std::path::Path) -> std::path::PathBuf {
    let contracts = dir.join("contracts");
    std::fs::create_dir_all(&contracts).expect("create the contracts dir");
    std::fs::write(
        contracts.join("creates.yaml"),
        "defaults:\n  create_flow_flows__post:\n    body: { name: conformance-made-flow, tags: [made-by-the-run] }\n  create_variable_variables__post:\n    body: { name: conformance_made_variable, value: made-by-the-run }\n",
    )
    .expect("write the contract file");
    contracts
}

fn path_arg(p: &std::path::Path) -> &str {
    p.to_str().expect("a UTF-8 temp path")
}

fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_default().to_string()
}

/// The query parameter names of a recorded path (`/x?a=1&b=2` gives a and b).
fn query_names(path: &str) -> BTreeSet<String> {
    path.split_once('?')
        .map(|(_, q)| {
            q.split('&')
                .filter_map(|kv| kv.split('=').next())
                .filter(|k| !k.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether the operation declares `status` among its responses (exactly, by class such as
/// `4XX`, or with `default`).
fn declares(op: &Value, status: u16) -> bool {
    let Some(responses) = op["responses"].as_object() else {
        return false;
    };
    let class = format!("{}XX", status / 100);
    responses
        .keys()
        .any(|k| k == &status.to_string() || k.eq_ignore_ascii_case(&class) || k == "default")
}

/// Checks one pinned failure on its own: that its reason holds (from the recorded request
/// and the spec), and that the same request, sent again by this test, gets the answer the
/// harness judged.
fn recheck(run: &Run, api: &Api, result: &Value, why: Why) -> Result<(), String> {
    let case = text(result, "case");
    let step = result["step"].as_u64().unwrap_or(0);
    let reported = result["got"]["status"]
        .as_u64()
        .ok_or("the failure carries no answer status")?;
    let x = run
        .exchange(&case, step)
        .ok_or("the record holds no exchange for this case and step")?;
    let method = x["method"].as_str().ok_or("no method recorded")?;
    let path = x["path"].as_str().ok_or("no path recorded")?;
    let op = run
        .operation(x["operation"].as_str().unwrap_or_default())
        .ok_or("the recorded operation is not in the spec")?;
    let body = x["body"].as_array().map(|pair| {
        (
            pair[0].as_str().unwrap_or("application/json").to_string(),
            pair[1].clone(),
        )
    });
    match why {
        Why::Placeholder if !(path.contains("%7B") && path.contains("%7D")) => {
            return Err(format!("{path} holds no literal {{placeholder}}"));
        }
        Why::NoBody if op["requestBody"]["required"] != true || body.is_some() => {
            return Err(format!(
                "the spec requires a body: {}; one was sent: {}",
                op["requestBody"]["required"],
                body.is_some()
            ));
        }
        Why::NoRequiredQuery => {
            let sent = query_names(path);
            let missing = op["parameters"].as_array().into_iter().flatten().any(|p| {
                p["in"] == "query"
                    && p["required"] == true
                    && !sent.contains(p["name"].as_str().unwrap_or_default())
            });
            if !missing {
                return Err(format!("{path} sends every required query parameter"));
            }
        }
        Why::BadValueNotSent(param) if query_names(path).contains(param) => {
            return Err(format!("{path} does send {param}"));
        }
        _ => {}
    }
    let (status, answer) = api.send(method, path, body.as_ref().map(|(ct, v)| (ct.as_str(), v)));
    if u64::from(status) != reported {
        return Err(format!(
            "{method} {path} sent again got {status}, the run got {reported}: {answer}"
        ));
    }
    if let Why::Departure(_) = why {
        let check = text(result, "check");
        let holds = match check.as_str() {
            "not_a_server_error" => status >= 500,
            "positive_data_acceptance" => !(200..300).contains(&status),
            "negative_data_rejection" => (200..300).contains(&status),
            "length_boundaries" => !(200..300).contains(&status),
            "status_code_conformance" => !declares(op, status),
            _ => true,
        };
        if !holds {
            return Err(format!(
                "{method} {path} sent again got {status}, which does not break {check}"
            ));
        }
    }
    Ok(())
}
