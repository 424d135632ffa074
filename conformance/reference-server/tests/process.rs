//! The server as a process: `--data FILE` replaces the data set, and the logs carry
//! the request line, status and latency but never a token, code or secret.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

use common::raw;
use reference_server::data::DEFAULT_DATA;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_name_requests_but_never_secrets_and_data_file_replaces_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.yaml");
    std::fs::write(
        &data,
        DEFAULT_DATA.replace("name: Eurex", "name: Xetra Only"),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_reference-server"))
        .args(["--port", "0", "--data"])
        .arg(&data)
        .env("RUST_LOG", "debug")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut banner = String::new();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (mut base, mut token) = (String::new(), String::new());
    for line in lines.by_ref().take(20) {
        let line = line.unwrap();
        banner.push_str(&line);
        if let Some(v) = line.strip_prefix("base URL:") {
            base = v.trim().to_string();
        }
        if let Some(v) = line.strip_prefix("bearer token:") {
            token = v.trim().to_string();
            break;
        }
    }
    assert!(banner.contains("client_secret: demo-secret"), "{banner}");
    let origin = base.trim_end_matches("/v1").to_string();

    // The data file is in force.
    let found: serde_json::Value = raw()
        .get(format!(
            "{base}/marketDataSubscriptionExchangeScope/finds?names=Xetra%20Only&names=Eurex"
        ))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(found, json!([{"id": 8, "name": "Xetra Only"}]));

    // A whole OAuth exchange, so codes and issued tokens pass through the server.
    let code =
        common::authorization_code(&origin, "demo-client", "http://127.0.0.1:3000/callback").await;
    let issued: serde_json::Value = raw()
        .post(format!("{base}/auth/oauthtoken"))
        .json(&json!({"grant_type": "authorization_code", "code": code, "redirect_uri": "http://127.0.0.1:3000/callback", "client_id": "demo-client", "client_secret": "demo-secret"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let access = issued["access_token"].as_str().unwrap().to_string();
    let refresh = issued["refresh_token"].as_str().unwrap().to_string();
    let status = raw()
        .get(format!("{base}/categoryPositionLimit/item?id=11"))
        .bearer_auth(&access)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status.as_u16(), 200);

    child.kill().unwrap();
    child.wait().unwrap();
    let mut logs = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut logs)
        .unwrap();
    assert!(
        logs.contains("/v1/categoryPositionLimit/item") && logs.contains("200"),
        "{logs}"
    );
    assert!(logs.contains("latency_us"), "{logs}");
    for secret in [&token, &access, &refresh, &code, &"demo-secret".to_string()] {
        assert!(!logs.contains(secret.as_str()), "a secret reached the logs");
    }
}

#[test]
fn a_bad_data_file_stops_the_binary_with_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("bad.yaml");
    std::fs::write(
        &data,
        DEFAULT_DATA.replace(
            "    active: true\n    totalBy: Contract\n",
            "    active: maybe\n    totalBy: Contract\n",
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_reference-server"))
        .args(["--port", "0", "--data"])
        .arg(&data)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.yaml") && err.contains("line"), "{err}");
}
