//! Secrets never printed: a target that echoes the bearer token into its answers, a token
//! so short it occurs inside ordinary words, and a password in the base URL.

use std::net::SocketAddr;
use std::time::Duration;

mod common;

use conformance::outcome::{CheckResult, Verdict};
use conformance::{Args, Outcome, execute};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// A target that answers every request `200` with a JSON string holding the request's
/// `Authorization` header, so schema messages quote it.
async fn spawn_echo() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        loop {
            let Ok((mut s, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let head = common::read_request_text(&mut s).await;
                let auth = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("authorization")
                            .then(|| v.trim().to_string())
                    })
                    .unwrap_or_else(|| "no authorization".into());
                let body = serde_json::Value::String(auth).to_string();
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = s.write_all(answer.as_bytes()).await;
            });
        }
    });
    addr
}

/// Every text a run shows: the terminal summary, each result's fields, and the report
/// and record files written.
fn everything_shown(out: &Outcome, files: &[&std::path::Path]) -> Vec<(String, String)> {
    let mut shown = vec![("summary".to_string(), out.summary.clone())];
    for r in &out.results {
        shown.push((format!("result {}", r.case), result_text(r)));
    }
    for f in files {
        shown.push((
            f.display().to_string(),
            std::fs::read_to_string(f).unwrap_or_default(),
        ));
    }
    shown
}

fn result_text(r: &CheckResult) -> String {
    serde_json::to_string(r).unwrap()
}

fn run_args(base_url: String, token: &str, dir: &tempfile::TempDir) -> Args {
    let mut a = Args::defaults();
    a.base_url = Some(base_url);
    a.token = Some(token.into());
    a.quiet = true;
    a.timeout = Duration::from_secs(5);
    a.json = Some(dir.path().join("report.json"));
    a.junit = Some(dir.path().join("junit.xml"));
    a.html = Some(dir.path().join("report.html"));
    a.record = Some(dir.path().join("record.json"));
    a
}

/// A target echoing the token: it shows in no problem line, JSON message, JUnit failure,
/// curl line or record, only as `$TOKEN`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echoed_token_is_redacted_everywhere() {
    let token = "eyJhbGciOi.Zm9vYmFy-s3cr3t_T0ken~42";
    let addr = spawn_echo().await;
    let dir = tempfile::tempdir().unwrap();
    let a = run_args(format!("http://{addr}/v1"), token, &dir);
    let out = execute(&a, Default::default())
        .await
        .expect("run completes");
    assert_eq!(out.exit_code, 1);
    let (json, junit, record, html) = (
        a.json.clone().unwrap(),
        a.junit.clone().unwrap(),
        a.record.clone().unwrap(),
        a.html.clone().unwrap(),
    );
    for (where_, text) in everything_shown(&out, &[&json, &junit, &record, &html]) {
        assert!(!text.is_empty(), "{where_} is empty");
        assert!(!text.contains(token), "the token leaked into {where_}");
        assert!(
            !text.contains("s3cr3t_T0ken"),
            "part of the token leaked into {where_}"
        );
    }
    assert!(
        out.results
            .iter()
            .any(|r| r.verdict == Verdict::Failed && r.message.contains("\"Bearer $TOKEN\"")),
        "no failure message quotes the echoed header: {}",
        out.summary
    );
    assert!(
        std::fs::read_to_string(&junit)
            .unwrap()
            .contains("Bearer $TOKEN")
    );
}

/// Whether every `$TOKEN` in `text` stands alone, not inside a word it cut apart.
fn placeholders_stand_alone(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices("$TOKEN").all(|(i, p)| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + p.len()).copied();
        !before.is_some_and(|b| b.is_ascii_alphanumeric())
            && !after.is_some_and(|b| b.is_ascii_alphanumeric())
    })
}

/// A one-letter token is replaced where it stands as a token, never inside URLs or
/// words of the answers, so a replay of the record finds no false difference. The echoing
/// target accepts the token (a server that rejects it stops the run at the pre-flight).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn short_token_leaves_urls_and_record_text_intact() {
    let addr = spawn_echo().await;
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("record.json");
    let mut a = common::embedded_args();
    a.base_url = Some(format!("http://{addr}/v1"));
    a.token = Some("e".into());
    a.operation = vec!["getCategoryPositionLimit".into()];
    a.record = Some(rec.clone());
    let out = execute(&a, Default::default())
        .await
        .expect("run completes");
    let curls: Vec<&str> = out
        .results
        .iter()
        .filter_map(|r| r.curl.as_deref())
        .collect();
    assert!(!curls.is_empty(), "no curl line: {}", out.summary);
    for c in &curls {
        assert!(c.contains("/categoryPositionLimit"), "URL corrupted: {c}");
        assert!(placeholders_stand_alone(c), "curl line corrupted: {c}");
        assert!(!c.contains("Bearer e\""), "token shown: {c}");
    }
    assert!(
        curls.iter().any(|c| c.contains("Bearer $TOKEN")),
        "no curl line shows the token as $TOKEN: {curls:#?}"
    );
    for (where_, text) in everything_shown(&out, &[&rec]) {
        assert!(
            placeholders_stand_alone(&text),
            "{where_} corrupted: {text}"
        );
    }
    let record = std::fs::read_to_string(&rec).unwrap();
    assert!(record.contains("categoryPositionLimit"), "{record}");

    let mut b = a.clone();
    b.record = None;
    b.replay = Some(rec);
    let again = execute(&b, Default::default())
        .await
        .expect("replay completes");
    let failed: Vec<String> = again
        .results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(|r| format!("{} {}", r.case, r.message))
        .collect();
    assert!(failed.is_empty(), "false differences: {failed:#?}");
}

/// A password in the base URL is shown as `<redacted>` in curl lines and reports.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn base_url_password_is_never_printed() {
    let password = "pa55-W0rd.base";
    let addr = spawn_echo().await;
    let dir = tempfile::tempdir().unwrap();
    let a = run_args(
        format!("http://tester:{password}@{addr}/v1"),
        "a-realistic-bearer-token-0123456789",
        &dir,
    );
    let out = execute(&a, Default::default())
        .await
        .expect("run completes");
    assert_eq!(out.exit_code, 1);
    let curl = out
        .results
        .iter()
        .find_map(|r| r.curl.clone())
        .expect("a curl line");
    assert!(
        curl.contains("tester:<redacted>@"),
        "the password is not shown redacted: {curl}"
    );
    let (json, junit, record, html) = (
        a.json.clone().unwrap(),
        a.junit.clone().unwrap(),
        a.record.clone().unwrap(),
        a.html.clone().unwrap(),
    );
    for (where_, text) in everything_shown(&out, &[&json, &junit, &record, &html]) {
        assert!(
            !text.contains(password),
            "the password leaked into {where_}"
        );
    }
}
