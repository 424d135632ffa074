//! The harness against hostile targets on 127.0.0.1:0: a server that hangs, drops
//! connections, answers slowly, speaks garbage, sends the wrong content type or many
//! megabytes. Every run must complete with exit 1 (never panic, never hang), and the
//! transport must honour `429 Retry-After` and the platform's `p-ticket` penalty.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

mod common;

use conformance::outcome::Verdict;
use conformance::transport::{Request, Transport, TransportError};
use conformance::{Args, execute};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

/// How the hostile server answers.
#[derive(Clone, Copy, Debug)]
enum Hostile {
    Hang,
    Drop,
    SlowBody,
    Garbage,
    WrongContentType,
    Huge,
    HugeChunked,
    /// Always `429` with `Retry-After: 100000`.
    RateLimited,
}

async fn respond(mut s: TcpStream, how: Hostile) {
    let _ = common::read_request_text(&mut s).await;
    match how {
        Hostile::Hang => tokio::time::sleep(Duration::from_secs(30)).await,
        Hostile::Drop => drop(s),
        Hostile::SlowBody => {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n[").await;
            for _ in 0..30 {
                tokio::time::sleep(Duration::from_millis(500)).await;
                if s.write_all(b" ").await.is_err() {
                    return;
                }
            }
        }
        Hostile::Garbage => {
            let _ = s
                .write_all(b"\x00\x01NOT HTTP AT ALL\r\n\r\n\xff\xfe")
                .await;
        }
        Hostile::RateLimited => {
            let _ = s
                .write_all(b"HTTP/1.1 429 Too Many Requests\r\nretry-after: 100000\r\ncontent-length: 0\r\n\r\n")
                .await;
        }
        Hostile::WrongContentType => {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 5\r\n\r\nhello").await;
        }
        Hostile::Huge => {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 52428800\r\n\r\n").await;
            let block = vec![b' '; 1 << 16];
            for _ in 0..800 {
                if s.write_all(&block).await.is_err() {
                    return;
                }
            }
        }
        Hostile::HugeChunked => {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n").await;
            let block = vec![b' '; 1 << 16];
            for _ in 0..800 {
                let head = format!("{:x}\r\n", block.len());
                if s.write_all(head.as_bytes()).await.is_err()
                    || s.write_all(&block).await.is_err()
                    || s.write_all(b"\r\n").await.is_err()
                {
                    return;
                }
            }
        }
    }
}

async fn spawn_hostile(how: Hostile) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        for _ in 0..10_000 {
            let Ok((s, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(respond(s, how));
        }
    });
    addr
}

fn args_for(addr: SocketAddr) -> Args {
    let mut a = Args::defaults();
    a.base_url = Some(format!("http://{addr}/v1"));
    a.token = Some("hostile-test-token".into());
    a.quiet = true;
    a.timeout = Duration::from_millis(500);
    a.workers = 16;
    a
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_targets_give_failures_not_hangs() {
    for how in [
        Hostile::Hang,
        Hostile::Drop,
        Hostile::SlowBody,
        Hostile::Garbage,
        Hostile::WrongContentType,
        Hostile::Huge,
        Hostile::HugeChunked,
    ] {
        let addr = spawn_hostile(how).await;
        let mut args = args_for(addr);
        // Targets that answer at once get a generous timeout, so a loaded CI machine cannot
        // turn their failure into a timeout; the slow ones a short one, to stay fast.
        if !matches!(how, Hostile::Hang | Hostile::SlowBody) {
            args.timeout = Duration::from_secs(3);
        }
        let run = execute(&args, Default::default());
        let out = tokio::time::timeout(Duration::from_secs(60), run)
            .await
            .unwrap_or_else(|_| panic!("{how:?}: the run did not complete"));
        // A target that gives no HTTP answer at all (silence, a dropped connection, bytes
        // that are not HTTP), not even to the probe of its base URL sent before anything
        // else, is no target: one configuration error says so, instead of a failure per
        // case. Those that answer in HTTP, however badly, are judged.
        if matches!(how, Hostile::Hang | Hostile::Drop | Hostile::Garbage) {
            let e = out
                .err()
                .unwrap_or_else(|| panic!("{how:?}: the run went on"));
            let text = e.to_string();
            let cause = match how {
                Hostile::Hang => "no answer within 0.5 s",
                _ => "the connection failed",
            };
            assert!(
                matches!(e, conformance::HarnessError::Config(_))
                    && text.contains("no HTTP answer from")
                    && text.contains(cause),
                "{how:?}: {text}"
            );
            continue;
        }
        let out = out.unwrap_or_else(|e| panic!("{how:?}: {e}"));
        assert_eq!(out.exit_code, 1, "{how:?}");
        let failed: Vec<&str> = out
            .results
            .iter()
            .filter(|r| r.verdict == Verdict::Failed)
            .map(|r| r.check.as_str())
            .collect();
        let expected = match how {
            Hostile::WrongContentType => "content_type_conformance",
            _ => "not_a_server_error",
        };
        assert!(failed.contains(&expected), "{how:?}: {failed:?}");
        if matches!(how, Hostile::Huge | Hostile::HugeChunked) {
            assert!(
                out.results
                    .iter()
                    .any(|r| r.message.contains("body too large")),
                "{how:?}"
            );
        }
        if matches!(how, Hostile::WrongContentType) {
            assert!(failed.contains(&"response_schema_conformance"));
        }
        assert!(
            !out.summary.contains("hostile-test-token"),
            "the token leaked into the report"
        );
    }
}

/// A target that always answers `429 Retry-After: 100000` costs at most the run's wait
/// budget: once spent, each such answer is a failure instead of another wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limited_target_spends_the_wait_budget_then_fails() {
    let addr = spawn_hostile(Hostile::RateLimited).await;
    let mut args = args_for(addr);
    args.timeout = Duration::from_secs(3);
    args.max_wait = Duration::from_secs(2);
    let out = tokio::time::timeout(Duration::from_secs(60), execute(&args, Default::default()))
        .await
        .expect("the run completes within the wait budget")
        .expect("the run completes");
    assert_eq!(out.exit_code, 1);
    assert!(
        out.results.iter().any(|r| r.verdict == Verdict::Failed
            && r.message.contains("rate limited: wait budget spent")),
        "{}",
        out.summary
    );
}

/// A server that answers the first `n` requests with `first` and the rest with a JSON
/// `[]`, recording every request it saw.
async fn spawn_scripted(
    first: &'static str,
    n: usize,
) -> (SocketAddr, Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let count = Arc::new(AtomicUsize::new(0));
    let log = seen.clone();
    tokio::spawn(async move {
        for _ in 0..1000 {
            let Ok((mut s, _)) = listener.accept().await else {
                return;
            };
            let (log, count) = (log.clone(), count.clone());
            tokio::spawn(async move {
                for _ in 0..10 {
                    let req = common::read_request_text(&mut s).await;
                    if req.is_empty() {
                        return;
                    }
                    log.lock().unwrap().push(req);
                    let answer = if count.fetch_add(1, Ordering::SeqCst) < n {
                        first.to_string()
                    } else {
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n[]".to_string()
                    };
                    if s.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (addr, seen)
}

fn get(addr: SocketAddr, path: &str) -> Request {
    Request {
        method: reqwest::Method::GET,
        url: format!("http://{addr}{path}").parse().expect("url"),
        headers: Vec::new(),
        body: None,
    }
}

#[tokio::test]
async fn retry_after_is_honoured_a_bounded_number_of_times() {
    let t = Transport::new(Duration::from_secs(5)).unwrap();
    let (addr, seen) = spawn_scripted(
        "HTTP/1.1 429 Too Many Requests\r\nretry-after: 0\r\ncontent-length: 0\r\n\r\n",
        2,
    )
    .await;
    let r = t.send(&get(addr, "/x")).await.unwrap();
    assert_eq!((r.status, r.retries), (200, 2));
    assert_eq!(seen.lock().unwrap().len(), 3);
    let (addr, seen) = spawn_scripted(
        "HTTP/1.1 429 Too Many Requests\r\nretry-after: 0\r\ncontent-length: 0\r\n\r\n",
        100,
    )
    .await;
    let r = t.send(&get(addr, "/x")).await.unwrap();
    assert_eq!(r.status, 429, "gives up and reports the 429");
    assert_eq!(seen.lock().unwrap().len(), 4, "one try and three retries");
}

#[tokio::test]
async fn penalty_waits_and_resends_with_the_ticket() {
    let t = Transport::new(Duration::from_secs(5)).unwrap();
    let penalty = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 34\r\n\r\n{\"p-ticket\":\"tkt-1\",\"p-time\":0.2}  ";
    let (addr, seen) = spawn_scripted(penalty, 1).await;
    let started = std::time::Instant::now();
    let r = t.send(&get(addr, "/v1/x?a=1")).await.unwrap();
    assert_eq!((r.status, r.retries), (200, 1));
    assert!(
        started.elapsed() >= Duration::from_millis(200),
        "waited p-time"
    );
    let second = seen.lock().unwrap()[1].clone();
    assert!(
        second.starts_with("GET /v1/x?a=1&p-ticket=tkt-1 "),
        "{second}"
    );
    let (addr, seen) = spawn_scripted(penalty, 1).await;
    let mut post = get(addr, "/v1/y");
    post.method = reqwest::Method::POST;
    post.body = Some(("application/json".into(), br#"{"a":1}"#.to_vec()));
    let r = t.send(&post).await.unwrap();
    assert_eq!(r.status, 200);
    assert!(seen.lock().unwrap()[1].contains(r#""p-ticket":"tkt-1""#));
}

#[tokio::test]
async fn body_cap_and_timeout_are_errors() {
    let t = Transport::new(Duration::from_millis(300))
        .unwrap()
        .with_max_body(1024);
    let addr = spawn_hostile(Hostile::HugeChunked).await;
    assert_eq!(
        t.send(&get(addr, "/")).await.unwrap_err(),
        TransportError::BodyTooLarge(1024)
    );
    let addr = spawn_hostile(Hostile::Hang).await;
    assert!(matches!(
        t.send(&get(addr, "/")).await.unwrap_err(),
        TransportError::Timeout(_)
    ));
}

/// A target that answers the first request of every connection (promising keep-alive)
/// and closes the connection, unanswered, when a second request arrives on it: the
/// race of a server closing an idle connection just as the client reuses it. No request
/// may be lost to it; a target that drops every request still fails.
#[tokio::test]
async fn a_closed_keep_alive_connection_loses_no_request() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = connections.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                if common::read_request_text(&mut s).await.is_empty() {
                    return;
                }
                let ok = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\n{}";
                let _ = s.write_all(ok.as_bytes()).await;
                let _ = common::read_request_text(&mut s).await;
            });
        }
    });
    let t = Transport::new(Duration::from_secs(5)).unwrap();
    for round in 0..5 {
        let r = t.send(&get(addr, "/v1/x")).await;
        assert_eq!(r.map(|r| r.status), Ok(200), "GET, round {round}");
        let mut post = get(addr, "/v1/y");
        post.method = reqwest::Method::POST;
        post.body = Some(("application/json".into(), b"{}".to_vec()));
        let r = t.send(&post).await;
        assert_eq!(r.map(|r| r.status), Ok(200), "POST, round {round}");
    }
    // Every POST had a connection of its own; every GET but the first was resent.
    assert!(connections.load(Ordering::SeqCst) >= 10);

    let addr = spawn_hostile(Hostile::Drop).await;
    assert!(matches!(
        t.send(&get(addr, "/")).await.unwrap_err(),
        TransportError::Connection(_)
    ));
}
