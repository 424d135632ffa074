//! How the harness reaches a staging target: headers on every request (secret unless said
//! otherwise), a pace that a rate limiter never sees exceeded, a proxy, and TLS with a
//! private CA or none at all. Each is proven against a stub on 127.0.0.1 that records
//! what reached it.

mod common;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::Router;
use axum::http::{HeaderMap, Uri};
use conformance::{Args, execute};

/// What a stub saw: per request, its URI as received and its headers.
#[derive(Default)]
struct Seen {
    requests: Vec<(Instant, String, HeaderMap)>,
}

type Shared = Arc<Mutex<Seen>>;

/// A router that answers `404` with a JSON body to everything and records each request.
fn recording_router(seen: Shared) -> Router {
    Router::new().fallback(move |uri: Uri, headers: HeaderMap| {
        let seen = seen.clone();
        async move {
            seen.lock()
                .unwrap()
                .requests
                .push((Instant::now(), uri.to_string(), headers));
            (
                axum::http::StatusCode::NOT_FOUND,
                [("content-type", "application/json")],
                r#"{"errorText":"not here"}"#,
            )
        }
    })
}

async fn spawn_plain(seen: Shared) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, recording_router(seen)).await.unwrap();
    });
    addr
}

fn args(base_url: String) -> Args {
    let mut a = common::embedded_args();
    a.base_url = Some(base_url);
    // The stubs issue no credentials: the run sends what needs none (the unsecured
    // operations, and `ignored_auth`'s requests to the secured ones).
    a.anonymous = true;
    a.timeout = std::time::Duration::from_secs(5);
    a
}

fn everything_written(dir: &std::path::Path, summary: &str) -> String {
    let mut all = summary.to_string();
    for f in ["report.json", "junit.xml", "report.html"] {
        all.push_str(&std::fs::read_to_string(dir.join(f)).unwrap());
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_reach_every_request_and_secret_values_are_never_shown() {
    let seen = Shared::default();
    let addr = spawn_plain(seen.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(format!("http://{addr}/v1"));
    a.headers = vec![("x-api-key".into(), "k3y-s3cr3t-0042".into())];
    a.public_headers = vec![("x-tenant".into(), "acme".into())];
    a.json = Some(dir.path().join("report.json"));
    a.junit = Some(dir.path().join("junit.xml"));
    a.html = Some(dir.path().join("report.html"));
    let out = execute(&a, Default::default())
        .await
        .expect("run completes");

    let seen = seen.lock().unwrap();
    assert!(
        seen.requests.len() > 5,
        "the stub saw {} requests",
        seen.requests.len()
    );
    for (_, uri, headers) in &seen.requests {
        assert_eq!(headers["x-api-key"], "k3y-s3cr3t-0042", "{uri}");
        assert_eq!(headers["x-tenant"], "acme", "{uri}");
    }
    let written = everything_written(dir.path(), &out.summary);
    assert!(
        !written.contains("k3y-s3cr3t"),
        "the header's value was printed"
    );
    let curls: Vec<&String> = out.results.iter().filter_map(|r| r.curl.as_ref()).collect();
    assert!(!curls.is_empty());
    for c in curls {
        assert!(c.contains("'x-api-key: $X_API_KEY'"), "{c}");
        assert!(c.contains("'x-tenant: acme'"), "{c}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_spaces_request_starts() {
    let seen = Shared::default();
    let addr = spawn_plain(seen.clone()).await;
    let mut a = args(format!("http://{addr}/v1"));
    a.rate_limit = Some(50.0);
    let _ = execute(&a, Default::default()).await;
    let seen = seen.lock().unwrap();
    let n = seen.requests.len();
    assert!(n >= 5, "too few requests to judge the pace: {n}");
    let first = seen.requests.first().unwrap().0;
    let last = seen.requests.last().unwrap().0;
    // n starts 20 ms apart take at least (n - 1) × 20 ms; a little slack for the clock of
    // the stub, which sees arrivals, not starts.
    let least = std::time::Duration::from_millis(20 * (n as u64 - 1) * 9 / 10);
    assert!(
        last - first >= least,
        "{n} requests arrived within {:?}; at 50/s they need at least {least:?}",
        last - first
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_carries_every_request() {
    let seen = Shared::default();
    let proxy = spawn_plain(seen.clone()).await;
    // Nothing listens on the target: only the proxy can answer.
    let mut a = args("http://127.0.0.1:9/v1".into());
    a.proxy = Some(format!("http://{proxy}"));
    let _ = execute(&a, Default::default()).await;
    let seen = seen.lock().unwrap();
    assert!(
        !seen.requests.is_empty(),
        "no request went through the proxy"
    );
    for (_, uri, _) in &seen.requests {
        assert!(
            uri.starts_with("http://127.0.0.1:9/v1/"),
            "the proxy got {uri}, not an absolute URI of the target"
        );
    }
}

/// A TLS stub with a certificate for 127.0.0.1 signed by nobody; returns its address and
/// the certificate's PEM.
async fn spawn_tls(seen: Shared) -> (SocketAddr, String) {
    use tokio_rustls::rustls;
    let key = rcgen::KeyPair::generate().unwrap();
    let params =
        rcgen::CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()]).unwrap();
    let cert = params.self_signed(&key).unwrap();
    let pem = cert.pem();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![cert.der().clone()],
        rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
    )
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = recording_router(seen);
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            let router = router.clone();
            tokio::spawn(async move {
                // A client that refuses the certificate ends the handshake: nothing to serve.
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = hyper_util::service::TowerToHyperService::new(router);
                let _ = hyper_util::server::conn::auto::Builder::new(
                    hyper_util::rt::TokioExecutor::new(),
                )
                .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                .await;
            });
        }
    });
    (addr, pem)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_target_needs_its_ca_or_insecure() {
    let seen = Shared::default();
    let (addr, pem) = spawn_tls(seen.clone()).await;
    let base = format!("https://127.0.0.1:{}/v1", addr.port());
    let count = |seen: &Shared| seen.lock().unwrap().requests.len();

    // Untrusted: no request gets through, and the pre-flight probe stops the run in one
    // configuration error naming the TLS cause.
    let err = execute(&args(base.clone()), Default::default())
        .await
        .err()
        .expect("an untrusted certificate is a configuration error");
    assert_eq!(count(&seen), 0);
    let text = err.to_string();
    assert!(
        matches!(err, conformance::HarnessError::Config(_))
            && text.contains("no HTTP answer from https://127.0.0.1:")
            && text.contains(": TLS: ")
            && text.contains("certificate"),
        "{text}"
    );

    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, &pem).unwrap();
    let mut trusted = args(base.clone());
    trusted.ca_cert = Some(ca);
    let _ = execute(&trusted, Default::default())
        .await
        .expect("run completes");
    let with_ca = count(&seen);
    assert!(with_ca > 0, "--ca-cert: no request reached the TLS target");

    let mut insecure = args(base);
    insecure.insecure = true;
    let _ = execute(&insecure, Default::default())
        .await
        .expect("run completes");
    assert!(
        count(&seen) > with_ca,
        "--insecure: no request reached the TLS target"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreadable_ca_file_is_a_configuration_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("not-a-cert.pem");
    std::fs::write(&bad, "hello").unwrap();
    for ca in [dir.path().join("missing.pem"), bad] {
        let mut a = args("https://127.0.0.1:9/v1".into());
        a.ca_cert = Some(ca.clone());
        let err = execute(&a, Default::default())
            .await
            .err()
            .unwrap_or_else(|| panic!("{} was accepted", ca.display()));
        assert!(matches!(err, conformance::HarnessError::Config(_)), "{err}");
    }
}
