//! Helpers shared by the harness's test crates: reading a request off a raw socket, for
//! the hand-written targets (hostile, echoing, proxying) the tests stand up on
//! 127.0.0.1:0.

// Each test crate uses a part of this module.
#![allow(dead_code)]

use std::time::Duration;

use conformance::Args;
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// Reads one request: head and body (up to its content-length, bounded).
pub async fn read_request(s: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16384];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut chunk))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_string();
            let len = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0)
                .min(4 << 20);
            while buf.len() < end + 4 + len {
                let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut chunk))
                    .await
                    .ok()?
                    .ok()?;
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            let body = buf[end + 4..].to_vec();
            return Some((head, body));
        }
        if buf.len() > 1 << 20 {
            return None;
        }
    }
}

/// The request as text, head and body (empty when none came), for targets that only
/// look at it.
pub async fn read_request_text(s: &mut TcpStream) -> String {
    match read_request(s).await {
        Some((head, body)) => format!("{head}\r\n\r\n{}", String::from_utf8_lossy(&body)),
        None => String::new(),
    }
}

/// Arguments of a quiet run against the embedded reference server, whatever
/// `CONFORMANCE_*` variables the environment holds: in this process with no socket
/// (`--in-process`), so the many runs of the tests cost no port and no connection; the
/// run over loopback is the binary's default, and `tests/in_process.rs` holds the two to
/// the same verdicts. A test that sets `base_url` runs against that URL instead.
pub fn embedded_args() -> Args {
    let mut a = Args::defaults();
    a.base_url = None;
    a.token = None;
    a.quiet = true;
    a.in_process = true;
    a
}

/// Asserts that a JSON report holds a passed `state_restored` result whose expected
/// values name the demo user (`Lovelace`): the record was put back, and the report says so.
pub fn assert_restored_in(report: &serde_json::Value) {
    let restored: Vec<&serde_json::Value> = report["results"]
        .as_array()
        .expect("a results array")
        .iter()
        .filter(|r| r["check"] == "state_restored")
        .collect();
    assert!(
        restored.iter().any(|r| r["verdict"] == "passed"
            && r["expected"]
                .as_str()
                .is_some_and(|e| e.contains("Lovelace"))),
        "no passed state_restored naming the original values: {restored:#?}"
    );
}
