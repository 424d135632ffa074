//! `response_size`, a check judged on every answer with a setting of its own
//! (`--check-option max-response-size=BYTES`), against a stub target on 127.0.0.1 that
//! answers one operation with a large body and every other with a small one.

mod common;

use std::net::SocketAddr;

use axum::Router;
use axum::http::{StatusCode, Uri};
use conformance::execute;
use conformance::outcome::Verdict;
use conformance::spec::Level;

/// The large body's size, well over the limit the test sets.
const LARGE: usize = 5_000;
/// The limit the test sets: the small body is under it.
const LIMIT: usize = 1_000;

/// A target answering 404 to everything, with a body of [`LARGE`] bytes under
/// `large_path` and a short one elsewhere.
async fn stub(large_path: &'static str) -> SocketAddr {
    let router = Router::new().fallback(move |uri: Uri| async move {
        let body = if uri.path().contains(large_path) {
            let pad = "x".repeat(LARGE - r#"{"errorText":""}"#.len());
            format!(r#"{{"errorText":"{pad}"}}"#)
        } else {
            r#"{"errorText":"not here"}"#.to_string()
        };
        (
            StatusCode::NOT_FOUND,
            [("content-type", "application/json")],
            body,
        )
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    addr
}

/// The answers of the one operation with a large body breach `response_size` (a SHOULD
/// check), every other answer passes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_body_fails_response_size_there_and_only_there() {
    let addr = stub("/riskCategory/suggest").await;
    let mut a = common::embedded_args();
    a.base_url = Some(format!("http://{addr}/v1"));
    a.token = Some("t".into());
    a.check_options = vec![format!("max-response-size={LIMIT}")];
    let out = execute(&a, Default::default()).await.unwrap();
    let sized: Vec<_> = out
        .results
        .iter()
        .filter(|r| r.check.as_str() == "response_size")
        .collect();
    let large = |op: &str| op == "suggestRiskCategories";
    assert!(sized.iter().any(|r| large(&r.operation)));
    assert!(sized.iter().any(|r| !large(&r.operation)));
    for r in &sized {
        let failed = r.verdict == Verdict::Failed;
        assert_eq!(failed, large(&r.operation), "{} {}", r.case, r.message);
        assert_eq!(r.level, Level::Should);
        if failed {
            assert_eq!(r.expected, format!("a body of at most {LIMIT} bytes"));
            assert!(
                r.message
                    .contains(&format!("{LARGE} bytes, over the {LIMIT}")),
                "{}",
                r.message
            );
        }
    }
}

/// Without the setting the check judges nothing and says why; an unknown setting, or
/// one whose value is not a number, stops the run before anything is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn response_size_is_judged_only_with_its_setting_and_a_bad_one_is_refused() {
    let mut a = common::embedded_args();
    a.check = vec!["response_size".into(), "not_a_server_error".into()];
    let out = execute(&a, Default::default()).await.unwrap();
    let sized: Vec<_> = out
        .results
        .iter()
        .filter(|r| r.check.as_str() == "response_size")
        .collect();
    assert_eq!(sized.len(), 1, "{}", out.summary);
    assert_eq!(sized[0].verdict, Verdict::NotApplicable);
    assert!(sized[0].message.contains("max-response-size=BYTES"));

    for bad in [
        "max-response-sise=10",
        "max-response-size=ten",
        "max-response-size",
    ] {
        a.check_options = vec![bad.into()];
        let e = execute(&a, Default::default()).await.err().unwrap();
        assert!(e.to_string().contains("--check-option"), "{bad}: {e}");
    }
}
