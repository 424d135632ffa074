//! `conformance mock`: the binary serves the mock on the port the OS chooses, prints the
//! URL it listens on, answers over a real socket and logs to the file it was given.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

#[tokio::test]
async fn the_binary_prints_its_url_and_answers_there() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("mock/tests/specs/routing.yaml");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("mock.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(["mock", "--port", "0", "--stateful", "--spec"])
        .arg(&spec)
        .arg("--log")
        .arg(&log)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_owned();
    assert!(url.ends_with("/api"), "the server's base path: {url}");
    let answer = reqwest::Client::new()
        .post(format!("{url}/flows/filter"))
        .send()
        .await
        .expect("the mock answers");
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(answer.text().await.unwrap(), "\"filtered\"");
    child.kill().unwrap();
    child.wait().unwrap();
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains("\"operation\":\"filterFlows\""), "{logged}");
}

#[test]
fn a_bad_spec_is_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("bad.yaml");
    std::fs::write(
        &spec,
        "openapi: 9.9.9\ninfo: {title: t, version: '1'}\npaths: {}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(["mock", "--port", "0", "--spec"])
        .arg(&spec)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.yaml") && err.contains("9.9.9"), "{err}");
}
