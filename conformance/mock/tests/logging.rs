//! The exchange log: one JSON line per request with method, path, query, status and
//! duration, and no credential's value (the `Authorization` and `Cookie` headers and the
//! header and query keys the spec's security schemes name). Also: credentials are
//! required where the operation's security says so.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use common::{mock, send};
use serde_json::Value;

/// A log target the test can read back.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buffer {
    fn lines(&self) -> Vec<Value> {
        let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

#[tokio::test]
async fn every_exchange_is_a_line_without_any_secret() {
    let log = Buffer::default();
    let app = mock("secured.yaml").log_to(log.clone()).router();
    let a = send(
        &app,
        "GET",
        "/secret?q=1&api_key=hunter2",
        &[
            ("authorization", "Bearer s3cr3t-token"),
            ("x-api-key", "k3y"),
            ("cookie", "sid=c00kie"),
            ("user-agent", "t"),
        ],
        "",
    )
    .await;
    assert_eq!(a.status, 200);
    send(&app, "GET", "/nowhere", &[], "").await;
    let lines = log.lines();
    assert_eq!(lines.len(), 2);
    let text = serde_json::to_string(&lines).unwrap();
    for secret in ["s3cr3t-token", "k3y", "c00kie", "hunter2"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    assert!(lines[0]["duration_ms"].as_f64().unwrap() >= 0.0);
    let mut first = lines[0].clone();
    first["duration_ms"] = Value::from("<elapsed>");
    first["time_ms"] = Value::from("<time>");
    insta::assert_yaml_snapshot!(first);
    assert_eq!(
        (lines[1]["status"].as_u64(), lines[1]["operation"].as_str()),
        (Some(404), None)
    );
}

#[tokio::test]
async fn credentials_are_required_where_the_spec_says() {
    let app = mock("secured.yaml").accept_token("right").router();
    let get = |headers: &'static [(&'static str, &'static str)]| {
        let app = app.clone();
        async move { send(&app, "GET", "/secret", headers, "").await.status }
    };
    assert_eq!(get(&[]).await, 401);
    assert_eq!(
        get(&[("authorization", "Token right")]).await,
        401,
        "not a bearer token"
    );
    assert_eq!(get(&[("authorization", "Bearer wrong")]).await, 401);
    assert_eq!(get(&[("authorization", "Bearer right")]).await, 200);
    assert_eq!(
        get(&[("x-api-key", "anything")]).await,
        200,
        "the other alternative"
    );
    assert_eq!(
        send(&app, "GET", "/open", &[], "").await.status,
        200,
        "security: []"
    );
}
