//! The harness on a shared staging target: with one single-use authorization code the
//! same case gets it on every run, so the same seed and target give the same report; and
//! the run puts the contact record its write cases change back as it found it, or says it
//! could not, naming the values to put back.

#![cfg(feature = "embedded")]

mod common;

use std::path::Path;

use conformance::outcome::Verdict;
use conformance::{Args, EXIT_INCOMPLETE, execute};
use reference_server::{Config, Fault, RunningServer};
use serde_json::Value;

/// The demo user's record as the default data set holds it, in `restore:` form.
const RESTORE: &str = "restore:\n  updateContactInfoName:\n    firstName: Ada\n    lastName: Lovelace\n    country: GB\n    phone: \"+44 20 7946 0958\"\n";

/// Args against `server` as a staging target: a token, the OAuth client, the data set's
/// fixtures plus `extra`, a JSON report in `dir`.
fn staging_args(server: &RunningServer, dir: &Path, extra: &str) -> Args {
    let client = server.demo_client();
    let fixtures = dir.join("fixtures.yaml");
    std::fs::write(
        &fixtures,
        format!(
            "allow_writes: true\nscope_names: [CME, CBOT]\nsuggest_probe_text: EQUIT\nsuggest_probe_name: Equities\noauth:\n  client_id: {}\n  client_secret: {}\n  redirect_uri: {}\n  authorize_url: {}/oauth/authorize\n{extra}",
            client.client_id,
            client.client_secret,
            client.redirect_uri,
            server.origin()
        ),
    )
    .unwrap();
    let mut a = common::embedded_args();
    a.base_url = Some(server.base_url());
    a.token = Some(server.issue_token());
    a.fixtures = Some(fixtures);
    a.json = Some(dir.join("report.json"));
    a
}

/// A fresh single-use code from the server's authorization step.
async fn fresh_code(server: &RunningServer) -> String {
    let client = server.demo_client();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let resp = http
        .get(format!("{}/oauth/authorize", server.origin()))
        .query(&[
            ("response_type", "code"),
            ("client_id", client.client_id.as_str()),
            ("redirect_uri", client.redirect_uri.as_str()),
            ("state", "s"),
        ])
        .send()
        .await
        .unwrap();
    let location = resp.headers()["location"].to_str().unwrap().to_string();
    let url = reqwest::Url::parse(&location).unwrap();
    url.query_pairs()
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.into_owned())
        .expect("a code")
}

/// The JSON report without what must differ between two runs (times, durations, ids
/// of the run itself).
fn comparable(path: &Path) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.retain(|k, _| {
                    let k = k.to_ascii_lowercase();
                    ![
                        "time", "duration", "latency", "elapsed", "p50", "p95", "started",
                        "finished", "run_id",
                    ]
                    .iter()
                    .any(|w| k.contains(w))
                        && !k.ends_with("_ms")
                });
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    strip(&mut v);
    v
}

/// The case the one code went to, as the other code cases name it.
fn code_holder(out: &conformance::Outcome) -> String {
    let holders: std::collections::BTreeSet<&str> = out
        .results
        .iter()
        .filter_map(|r| r.message.split("goes to case `").nth(1))
        .filter_map(|rest| rest.split('`').next())
        .collect();
    assert_eq!(holders.len(), 1, "one holder named: {holders:?}");
    holders.into_iter().next().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_code_goes_to_the_same_case_and_the_report_is_the_same_on_every_run() {
    let server = reference_server::spawn(Config::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut a = staging_args(&server, dir.path(), RESTORE);
    a.workers = 8;
    let mut first: Option<(String, Value, Vec<String>)> = None;
    for run in 0..5 {
        a.auth_code = Some(fresh_code(&server).await);
        let out = execute(&a, Config::default()).await.expect("run completes");
        let holder = code_holder(&out);
        // The holder ran with the code: none of its results lacks an input.
        assert!(
            out.results
                .iter()
                .filter(|r| r.case == holder)
                .all(|r| !r.missing_input && r.verdict != Verdict::Skipped),
            "run {run}: {holder} did not get the code"
        );
        let order: Vec<String> = out.results.iter().map(|r| r.case.clone()).collect();
        let report = comparable(a.json.as_ref().unwrap());
        match &first {
            None => first = Some((holder, report, order)),
            Some((h, r, o)) => {
                assert_eq!(&holder, h, "run {run}: the code went to another case");
                assert_eq!(&order, o, "run {run}: other cases or another order");
                assert_eq!(&report, r, "run {run}: another report");
            }
        }
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_contact_record_is_put_back_after_a_run() {
    let server = reference_server::spawn(Config::default()).await.unwrap();
    let original = server.contact_record(1).expect("the demo user's record");
    let dir = tempfile::tempdir().unwrap();

    // Without the values to put it back, --allow-writes alone does not change a record
    // the run did not create: the update's cases are skipped, naming the flag that sends
    // them, and the record is untouched.
    let out = execute(&staging_args(&server, dir.path(), ""), Config::default())
        .await
        .expect("run completes");
    assert_eq!(server.contact_record(1).as_ref(), Some(&original));
    let update: Vec<_> = out
        .results
        .iter()
        .filter(|r| r.operation == "updateContactInfoName")
        // A GET of the update's path (the undeclared-method probe) changes nothing.
        .filter(|r| r.check != "undeclared_method" && !r.case.contains("undeclared-method/GET"))
        .collect();
    assert!(!update.is_empty());
    assert!(
        update
            .iter()
            .all(|r| r.verdict == Verdict::Skipped && r.message.contains("--allow-destructive")),
        "{}",
        out.summary
    );

    // With --allow-destructive and still no values, the run writes, cannot put the record
    // back, says so and is incomplete; the record is indeed left changed.
    let out = execute(
        &staging_args(&server, dir.path(), "allow_destructive: true\n"),
        Config::default(),
    )
    .await
    .expect("run completes");
    assert_eq!(out.exit_code, EXIT_INCOMPLETE, "{}", out.summary);
    assert!(out.summary.contains("NOT RESTORED: "), "{}", out.summary);
    assert_ne!(server.contact_record(1).as_ref(), Some(&original));

    let out = execute(
        &staging_args(&server, dir.path(), RESTORE),
        Config::default(),
    )
    .await
    .expect("run completes");
    assert_eq!(out.exit_code, 0, "{}", out.summary);
    assert_eq!(
        server.contact_record(1),
        Some(original),
        "record not put back"
    );
    assert!(
        out.summary.contains("contactInfo record restored to "),
        "{}",
        out.summary
    );
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    common::assert_restored_in(&json);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_restore_fails_the_run_and_names_the_values_to_put_back() {
    let config = || Config {
        faults: vec![Fault::ContactRefusesOldName],
        ..Config::default()
    };
    let server = reference_server::spawn(config()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = execute(&staging_args(&server, dir.path(), RESTORE), config())
        .await
        .expect("run completes");
    assert_eq!(out.exit_code, 1, "{}", out.summary);
    let values =
        r#"{"firstName":"Ada","lastName":"Lovelace","country":"GB","phone":"+44 20 7946 0958"}"#;
    assert!(out.summary.contains("RESTORE FAILED: "), "{}", out.summary);
    assert!(out.summary.contains(values), "{}", out.summary);
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert!(
        json["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["check"] == "state_restored"
                && r["verdict"] == "failed"
                && r["message"].as_str().unwrap().contains(values)),
        "the JSON report names the values"
    );
    server.shutdown().await;
}

#[test]
fn restore_values_are_checked_against_the_spec_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    for (restore, says) in [
        (
            "restore:\n  listCategoryPositionLimits: {masterid: 1}\n",
            "changes nothing",
        ),
        (
            "restore:\n  updateContactInfoName: {firstName: Ada}\n",
            "lastName",
        ),
        (
            "restore:\n  updateContactInfoName: {firstName: Ada, lastName: L, country: GB, phone: \"1\", city: X}\n",
            "restore.updateContactInfoName.city",
        ),
        (
            "restore: [updateContactInfoName]\n",
            "restore must be a mapping",
        ),
    ] {
        let f = dir.path().join("fx.yaml");
        std::fs::write(&f, format!("allow_writes: true\n{restore}")).unwrap();
        let mut a = common::embedded_args();
        a.base_url = Some("http://127.0.0.1:9/v1".into());
        a.fixtures = Some(f);
        let rt = tokio::runtime::Runtime::new().unwrap();
        let err = match rt.block_on(execute(&a, Config::default())) {
            Err(e) => e.to_string(),
            Ok(o) => panic!("{restore}: ran, exit {}", o.exit_code),
        };
        assert!(err.contains(says), "{restore}: {err}");
    }
}
