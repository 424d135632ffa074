//! Regression tests of review findings: each runs the harness against a target that
//! differs from the reference server in one way the findings named.

#![cfg(feature = "embedded")]

mod common;

use conformance::embedded::Embedded;
use conformance::outcome::Verdict;
use conformance::{Args, execute};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// A target that counts UTF-16 code units for the combined-length rule and otherwise
/// forwards every request to `upstream` (an origin).
async fn utf16_proxy(upstream: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // No pooling upstream: the proxy answers each connection once and must not lose a
    // request to a keep-alive race of its own.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut s, _)) = listener.accept().await else {
                return;
            };
            let (client, upstream) = (client.clone(), upstream.clone());
            tokio::spawn(async move {
                let Some((head, body)) = common::read_request(&mut s).await else {
                    return;
                };
                let mut lines = head.lines();
                let first = lines.next().unwrap_or_default().to_string();
                let mut parts = first.split(' ');
                let method = parts.next().unwrap_or("GET").to_string();
                let target = parts.next().unwrap_or("/").to_string();
                let headers: Vec<(String, String)> = lines
                    .filter_map(|l| l.split_once(':'))
                    .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
                    .collect();
                if target.ends_with("/contactInfo/updatecontactinfoname")
                    && let Ok(v) = serde_json::from_slice::<serde_json::Value>(&body)
                    && let (Some(f), Some(l)) = (v["firstName"].as_str(), v["lastName"].as_str())
                {
                    let units = f.encode_utf16().count() + l.encode_utf16().count();
                    let chars = f.chars().count() + l.chars().count();
                    if units > 60 && chars <= 60 {
                        let text = r#"{"errorText":"firstName and lastName together exceed 60 characters"}"#;
                        let answer = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                            text.len()
                        );
                        let _ = s.write_all(answer.as_bytes()).await;
                        return;
                    }
                }
                let Ok(m) = reqwest::Method::from_bytes(method.as_bytes()) else {
                    return;
                };
                let mut req = client.request(m, format!("{upstream}{target}"));
                for (k, v) in &headers {
                    if !matches!(k.as_str(), "host" | "content-length" | "connection") {
                        req = req.header(k.as_str(), v.as_str());
                    }
                }
                let Ok(resp) = req.body(body).send().await else {
                    return;
                };
                let status = resp.status();
                let mut out = format!(
                    "HTTP/1.1 {} {}\r\n",
                    status.as_u16(),
                    status.canonical_reason().unwrap_or("")
                );
                for (k, v) in resp.headers() {
                    if !matches!(
                        k.as_str(),
                        "content-length" | "transfer-encoding" | "connection"
                    ) {
                        out.push_str(&format!("{k}: {}\r\n", v.to_str().unwrap_or("")));
                    }
                }
                let bytes = resp.bytes().await.unwrap_or_default();
                out.push_str(&format!(
                    "content-length: {}\r\nconnection: close\r\n\r\n",
                    bytes.len()
                ));
                let _ = s.write_all(out.as_bytes()).await;
                let _ = s.write_all(&bytes).await;
            });
        }
    });
    format!("http://{addr}")
}

/// Args against `base_url` with the reference data set's fixtures.
fn args_against(server: &Embedded, base_url: String, dir: &tempfile::TempDir) -> Args {
    let client = server.demo_client();
    let fixtures = dir.path().join("fixtures.yaml");
    std::fs::write(
        &fixtures,
        format!(
            "allow_writes: true\nscope_names: [CME, CBOT]\nsuggest_probe_text: EQUIT\nsuggest_probe_name: Equities\nrestore:\n  updateContactInfoName: {{ firstName: Ada, lastName: Lovelace, country: GB, phone: \"+44 20 7946 0958\" }}\noauth:\n  client_id: {}\n  client_secret: {}\n  redirect_uri: {}\n  authorize_url: {}/oauth/authorize\n",
            client.client_id,
            client.client_secret,
            client.redirect_uri,
            server.origin()
        ),
    )
    .unwrap();
    let mut a = Args::defaults();
    a.base_url = Some(base_url);
    a.token = Some(server.issue_token());
    a.fixtures = Some(fixtures);
    a.quiet = true;
    a
}

/// DECISIONS row 18: characters outside the BMP are SHOULD, so a server counting UTF-16
/// units only warns, on every check of those cases, and fails only under --strict.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn utf16_counting_server_only_warns_on_emoji() {
    let server = Embedded::spawn(Default::default()).await.unwrap();
    let proxy = utf16_proxy(server.origin()).await;
    let base = format!("{proxy}{}", &server.base_url()[server.origin().len()..]);
    let dir = tempfile::tempdir().unwrap();
    let a = args_against(&server, base.clone(), &dir);
    let out = execute(&a, Default::default())
        .await
        .expect("run completes");
    let failed: Vec<String> = out
        .results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(|r| format!("{} {} {:?} {}", r.case, r.check, r.level, r.message))
        .collect();
    assert_eq!(out.exit_code, 0, "failures: {failed:#?}");
    let totals = out.totals(false);
    assert!(totals.warnings > 0, "no warning: {failed:#?}");
    assert!(
        failed.iter().all(|f| f.contains("emoji")),
        "unexpected failures: {failed:#?}"
    );
    assert!(
        failed.iter().any(|f| !f.contains(" combined_length ")),
        "the success rules on the emoji answer are not judged: {failed:#?}"
    );

    let strict = Args { strict: true, ..a };
    let out = execute(&strict, Default::default())
        .await
        .expect("run completes");
    assert_eq!(out.exit_code, 1);
    server.shutdown().await;
}

/// A record of a whole run replayed against a second, fresh reference server differs
/// nowhere: form-encoded and JSON bodies get this run's client secret and a fresh code
/// instead of the record's placeholders.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_against_a_fresh_reference_server_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.json");
    let mut a = common::embedded_args();
    a.record = Some(rec.clone());
    let first = execute(&a, Default::default()).await.unwrap();
    assert_eq!(first.exit_code, 0, "{}", first.summary);
    let record = std::fs::read_to_string(&rec).unwrap();
    assert!(
        record.contains("redacted"),
        "the record holds no redacted secret"
    );

    let mut b = Args::defaults();
    b.base_url = None;
    b.token = None;
    b.quiet = true;
    b.replay = Some(rec);
    let again = execute(&b, Default::default()).await.unwrap();
    let failed: Vec<String> = again
        .results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(|r| format!("{} {}", r.case, r.message))
        .collect();
    assert_eq!(again.exit_code, 0, "{failed:#?}");
    let form = again
        .results
        .iter()
        .find(|r| r.case.ends_with("form-encoded-body"))
        .expect("the form-encoded exchange is replayed");
    assert_eq!(form.verdict, Verdict::Passed, "{}", form.message);
    // The refresh grant sends the refresh token this target issued in the same case.
    let refresh: Vec<_> = again
        .results
        .iter()
        .filter(|r| r.case.ends_with("refresh-token-grant"))
        .collect();
    assert!(refresh.len() >= 2, "the refresh sequence is replayed");
    for r in refresh {
        assert_eq!(
            r.verdict,
            Verdict::Passed,
            "step {:?}: {}",
            r.step,
            r.message
        );
    }
    assert!(
        !again.summary.contains("cannot fill in"),
        "a replayed exchange was skipped: {}",
        again.summary
    );
}

/// A replayed difference names where the bodies differ and carries a curl line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_difference_names_the_pointer_and_has_a_curl_line() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.json");
    let mut a = common::embedded_args();
    a.operation = vec!["getCategoryPositionLimit".into()];
    a.record = Some(rec.clone());
    execute(&a, Default::default()).await.unwrap();
    let mut b = a.clone();
    b.record = None;
    b.replay = Some(rec);
    let faulty = reference_server::Config {
        faults: vec!["item-wrong-id".parse().unwrap()],
        ..Default::default()
    };
    let diff = execute(&b, faulty).await.unwrap();
    assert_eq!(diff.exit_code, 1);
    let r = diff
        .results
        .iter()
        .find(|r| r.verdict == Verdict::Failed)
        .expect("a difference");
    assert!(r.message.contains("body differs at /"), "{}", r.message);
    assert!(
        r.curl.as_deref().is_some_and(|c| c.starts_with("curl ")),
        "{r:?}"
    );
}

fn bin() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"));
    for v in [
        "CONFORMANCE_TOKEN",
        "CONFORMANCE_BASE_URL",
        "CONFORMANCE_CLIENT_ID",
        "CONFORMANCE_CLIENT_SECRET",
        "CONFORMANCE_AUTH_CODE",
    ] {
        c.env_remove(v);
    }
    c
}

/// Runs the binary, returning its exit code and stderr.
fn run(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let out = bin().arg("--quiet").args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn misspelt_fixtures_key_is_exit_2_naming_key_file_and_known_keys() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("fx.yaml");
    std::fs::write(&f, "allow_writes: true\nscope_name: [CME, CBOT]\n").unwrap();
    let (code, err) = run(&["--fixtures".as_ref(), f.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("scope_name`"), "{err}");
    assert!(err.contains("fx.yaml"), "{err}");
    assert!(
        err.contains("scope_names") && err.contains("allow_writes"),
        "{err}"
    );
    // The keys the contract files read are accepted (a dry run reads every file and
    // sends nothing).
    std::fs::write(&f, "allow_writes: true\nscope_names: [CME, CBOT]\nsuggest_probe_text: EQUIT\nsuggest_probe_name: Equities\n").unwrap();
    let (code, err) = run(&[
        "--fixtures".as_ref(),
        f.as_os_str(),
        "--base-url".as_ref(),
        "http://127.0.0.1:9/v1".as_ref(),
        "--dry-run".as_ref(),
        "--operation".as_ref(),
        "suggestRiskCategories".as_ref(),
    ]);
    assert_ne!(code, Some(2), "{err}");
}

/// A contract file in a directory of its own; returns the exit code and stderr of a run.
fn contract(text: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.yaml"), text).unwrap();
    run(&["--contracts".as_ref(), dir.path().as_os_str()])
}

#[test]
fn unbindable_variable_is_exit_2_with_file_and_line() {
    let (code, err) = contract(
        "vars:\n  category_text: e\ncases:\n  - id: a\n    level: must\n    steps:\n      - operationId: suggestRiskCategories\n        params: { t: \"${categroy_text}\", l: 3 }\n        expect: success\n",
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("bad.yaml:8") && err.contains("categroy_text"),
        "{err}"
    );
    // A captured variable of an earlier step is bindable.
    let (code, err) = contract(
        "cases:\n  - id: a\n    level: must\n    steps:\n      - operationId: suggestRiskCategories\n        params: { t: e, l: 3 }\n        expect: success\n        capture: { name: /0/name }\n      - operationId: suggestRiskCategories\n        params: { t: \"${name}\", l: 3 }\n        expect: success\n",
    );
    assert_ne!(code, Some(2), "{err}");
}

#[test]
fn pointer_to_a_field_the_answer_lacks_is_exit_2_with_file_and_line() {
    let (code, err) = contract(
        "cases:\n  - id: a\n    level: must\n    steps:\n      - operationId: exchangeToken\n        body: { grant_type: nope }\n        expect: rejected\n        assert:\n          - { pointer: /eror, equals: invalid_grant }\n",
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("bad.yaml:9") && err.contains("eror"), "{err}");
    let (code, err) = contract(
        "cases:\n  - id: a\n    level: must\n    steps:\n      - operationId: suggestRiskCategories\n        params: { t: e, l: 3 }\n        expect: success\n        capture: { n: /*/nmae }\n",
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("bad.yaml:8") && err.contains("nmae"), "{err}");
}

#[test]
fn duplicate_case_id_is_exit_2() {
    let case = "  - id: a\n    level: must\n    steps:\n      - operationId: suggestRiskCategories\n        params: { t: e, l: 3 }\n        expect: success\n";
    let (code, err) = contract(&format!("cases:\n{case}{case}"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("duplicate case id a"), "{err}");
}

/// OAuth settings come from the environment too, override the fixtures, and are never
/// printed: the terminal, the JSON report and the record hold neither value.
#[test]
fn oauth_secrets_from_the_environment_override_fixtures_and_never_print() {
    let dir = tempfile::tempdir().unwrap();
    let (json, rec) = (dir.path().join("r.json"), dir.path().join("rec.json"));
    let go = |var: &str, value: &str| {
        let out = bin()
            .env(var, value)
            .args(["--quiet", "--operation", "exchangeToken", "--json"])
            .arg(&json)
            .arg("--record")
            .arg(&rec)
            .output()
            .unwrap();
        let text = format!(
            "{}{}{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(&json).unwrap(),
            std::fs::read_to_string(&rec).unwrap()
        );
        assert!(!text.contains(value), "{var} leaked");
        (out.status.code(), text)
    };
    // The reference server refuses the wrong secret: the override took effect.
    let (code, text) = go("CONFORMANCE_CLIENT_SECRET", "wrong-secret-zz9");
    assert_eq!(code, Some(1), "{text}");
    // A given code replaces the authorize step: one exchange uses it, the rest skip.
    let (_, text) = go("CONFORMANCE_AUTH_CODE", "code-zz9-secret");
    assert!(text.contains("single-use and was already used"), "{text}");
    let help = bin().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("CONFORMANCE_CLIENT_SECRET") && help.contains("CONFORMANCE_AUTH_CODE"),
        "{help}"
    );
}

/// Failures of `alternate_encodings` show what came back and a curl line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alternate_encodings_failures_carry_the_answer_and_a_curl_line() {
    let mut a = common::embedded_args();
    a.operation = vec!["findExchangeScopes".into()];
    let faulty = reference_server::Config {
        faults: vec!["only-first-name".parse().unwrap()],
        ..Default::default()
    };
    let out = execute(&a, faulty).await.unwrap();
    let failed: Vec<_> = out
        .results
        .iter()
        .filter(|r| r.check == "alternate_encodings" && r.verdict == Verdict::Failed)
        .collect();
    assert!(!failed.is_empty(), "{}", out.summary);
    for r in failed {
        assert!(r.got.as_ref().is_some_and(|g| g.status.is_some()), "{r:?}");
        assert!(
            r.curl.as_deref().is_some_and(|c| c.starts_with("curl ")),
            "{r:?}"
        );
    }
}

/// Every JUnit test case name is unique within its suite (a case) in a clean run, and no
/// case appears as two suites: a CI UI keys its lines by suite and name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn junit_test_case_names_are_unique() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.xml");
    let mut a = common::embedded_args();
    a.junit = Some(path.clone());
    let out = execute(&a, Default::default()).await.unwrap();
    assert_eq!(out.exit_code, 0);
    let xml = std::fs::read_to_string(path).unwrap();
    let report = quick_junit::Report::deserialize_from_str(&xml).unwrap();
    let total: usize = report.test_suites.iter().map(|s| s.test_cases.len()).sum();
    assert!(total > 300);
    let mut suites: Vec<&str> = report.test_suites.iter().map(|s| s.name.as_str()).collect();
    suites.sort_unstable();
    let count = suites.len();
    suites.dedup();
    assert_eq!(suites.len(), count, "a case split over two suites");
    for s in &report.test_suites {
        let mut names: Vec<&str> = s.test_cases.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(
            names.len(),
            n,
            "duplicate test case names in {}",
            s.name.as_str()
        );
    }
}

/// A base URL that is not http(s) is a usage error, not a run of transport failures.
#[test]
fn non_http_base_url_is_exit_2() {
    for url in ["ftp://127.0.0.1/v1", "file:///tmp/v1", "127.0.0.1:8080/v1"] {
        let (code, err) = run(&["--base-url".as_ref(), url.as_ref()]);
        assert_eq!(code, Some(2), "{url}: {err}");
        assert!(err.contains("--base-url"), "{url}: {err}");
    }
}

/// A token that cannot be an HTTP header value (or an empty one) is a usage error at
/// start-up, not a run of MUST failures blamed on the target; the token is never printed.
#[test]
fn token_that_cannot_be_sent_is_exit_2_and_not_printed() {
    for token in [
        "ab\ncd-zz9-secret",
        "ab\rcd-zz9-secret",
        "ab cd-zz9-secret",
        "",
        " ",
    ] {
        let out = bin()
            .args(["--quiet", "--operation", "suggestRiskCategories", "--token"])
            .arg(token)
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(2), "{token:?}: {stdout}{stderr}");
        assert!(stderr.contains("--token"), "{token:?}: {stderr}");
        assert!(
            !stdout.contains("zz9-secret") && !stderr.contains("zz9-secret"),
            "{token:?} printed: {stdout}{stderr}"
        );
    }
    // The same from the environment.
    let out = bin()
        .env("CONFORMANCE_TOKEN", "ab\ncd-zz9-secret")
        .args(["--quiet", "--operation", "suggestRiskCategories"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Nothing passes by default: a selection that yields no check is exit 2 naming the
/// filters, not `0 passed, 0 failed, 0 skipped` and exit 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selection_with_no_check_is_exit_2_naming_the_filters() {
    let mut a = common::embedded_args();
    a.check = vec!["ignored_auth".into()];
    a.operation = vec!["exchangeToken".into()];
    let err = match execute(&a, Default::default()).await {
        Ok(o) => panic!("exit {} with {}", o.exit_code, o.summary),
        Err(e) => e,
    };
    assert!(matches!(err, conformance::HarnessError::Config(_)), "{err}");
    let err = err.to_string();
    assert!(
        err.contains("holds no check")
            && err.contains("--check ignored_auth")
            && err.contains("--operation exchangeToken"),
        "{err}"
    );
    // The binary: exit 2.
    let (code, err) = run(&[
        "--check".as_ref(),
        "ignored_auth".as_ref(),
        "--operation".as_ref(),
        "exchangeToken".as_ref(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    // A record file with no exchange: exit 2 too.
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.json");
    std::fs::write(&rec, "[]").unwrap();
    let (code, err) = run(&["--replay".as_ref(), rec.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("holds no check") && err.contains("--replay"),
        "{err}"
    );
}

/// An edited record file is checked entry by entry when loaded: a method that is no HTTP
/// method, an operation the spec lacks and a path that is not below the base URL are exit 2
/// naming the entry and the field, and nothing is sent.
#[test]
fn replay_rejects_malformed_record_entries() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.json");
    let out = bin()
        .args([
            "--quiet",
            "--operation",
            "getCategoryPositionLimit",
            "--record",
        ])
        .arg(&rec)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let good: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    assert!(good.as_array().unwrap().len() > 2);
    // The unedited record replays cleanly.
    let (code, err) = run(&["--replay".as_ref(), rec.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    let edited = dir.path().join("edited.json");
    // The second entry a replay would send (the record also holds the OAuth steps'
    // requests, which a replay never sends).
    let entry = good
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, e)| e.get("harness").is_none())
        .nth(1)
        .map(|(i, _)| i)
        .unwrap();
    for (field, value) in [
        ("method", "GE T"),
        ("operation", "nope"),
        ("path", "http://evil.example/x"),
        ("path", "v1/positionlimits"),
        ("path", "//evil.example/x"),
    ] {
        let mut doc = good.clone();
        doc[entry][field] = value.into();
        std::fs::write(&edited, serde_json::to_string(&doc).unwrap()).unwrap();
        let (code, err) = run(&["--replay".as_ref(), edited.as_os_str()]);
        assert_eq!(code, Some(2), "{field} {value:?}: {err}");
        assert!(
            err.contains(&format!("entry {entry}")) && err.contains(&format!("`{field}`")),
            "{field} {value:?}: {err}"
        );
    }
}

/// `--record` with `--replay` would write an empty record: a usage error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn record_with_replay_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let (rec, out) = (dir.path().join("rec.json"), dir.path().join("out.json"));
    std::fs::write(&rec, "[]").unwrap();
    let (code, err) = run(&[
        "--replay".as_ref(),
        rec.as_os_str(),
        "--record".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--record") && err.contains("--replay"),
        "{err}"
    );
    assert!(!out.exists(), "a record was written");
    // Embedders calling `execute` get the same answer.
    let mut a = common::embedded_args();
    a.replay = Some(rec);
    a.record = Some(out.clone());
    let err = execute(&a, Default::default())
        .await
        .err()
        .expect("an error");
    assert!(err.to_string().contains("--record"), "{err}");
    assert!(!out.exists(), "a record was written");
}

/// The JSON report's per-result verdict agrees with its totals and with JUnit: a SHOULD
/// breach is `warning` in a plain run and `failed` under `--strict`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_verdict_of_a_should_breach_is_warning_unless_strict() {
    let dir = tempfile::tempdir().unwrap();
    for strict in [false, true] {
        let path = dir.path().join(format!("r-{strict}.json"));
        let mut a = common::embedded_args();
        a.strict = strict;
        a.operation = vec!["suggestRiskCategories".into()];
        a.json = Some(path.clone());
        let faulty = reference_server::Config {
            faults: vec!["suggest-case-sensitive".parse().unwrap()],
            ..Default::default()
        };
        let out = execute(&a, faulty).await.unwrap();
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let results = doc["results"].as_array().unwrap();
        let count = |v: &str| results.iter().filter(|r| r["verdict"] == v).count() as u64;
        let totals = &doc["totals"];
        for v in ["passed", "failed", "skipped"] {
            assert_eq!(Some(count(v)), totals[v].as_u64(), "strict {strict}: {v}");
        }
        assert_eq!(
            Some(count("warning")),
            totals["warnings"].as_u64(),
            "strict {strict}"
        );
        let breaches: Vec<&serde_json::Value> = results
            .iter()
            .filter(|r| r["check"] == "suggest_matching" && r["level"] == "should")
            .filter(|r| r["verdict"] != "passed")
            .collect();
        assert!(!breaches.is_empty(), "{}", out.summary);
        let want = if strict { "failed" } else { "warning" };
        assert!(
            breaches.iter().all(|r| r["verdict"] == want),
            "{breaches:#?}"
        );
        assert_eq!(out.exit_code, u8::from(strict), "{}", out.summary);
    }
}

/// `--timeout` says what it accepts.
#[test]
fn timeout_message_says_what_is_accepted() {
    for t in ["0", "3601", "-1", "NaN"] {
        let (code, err) = run(&[format!("--timeout={t}").as_ref()]);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("more than 0 and at most 3600") && !err.contains("between 0 and"),
            "{t}: {err}"
        );
    }
}
