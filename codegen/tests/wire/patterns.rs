//! A value that breaks its `pattern` is refused before anything is sent, with an error
//! naming the parameter or field and the pattern; a value that matches goes out.
//! Copied into the crate generated from `tests/specs/patterns.yaml` by `tests/compile.rs`.
use std::io::{Read, Write};

use gen_patterns::models::Dag;
use gen_patterns::{Constraint, Error};

/// Answers `n` connections with 204 and returns each request line.
fn serve(n: usize) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        (0..n)
            .map(|_| {
                let (mut s, _) = listener.accept().unwrap();
                let mut buf = [0u8; 8192];
                let len = s.read(&mut buf).unwrap();
                s.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n").unwrap();
                let head = String::from_utf8_lossy(&buf[..len]).into_owned();
                head.lines().next().unwrap_or_default().to_owned()
            })
            .collect()
    });
    (base, handle)
}

/// The field and pattern of a refusal, and its `Display`.
fn refusal<E: std::fmt::Debug>(result: Result<gen_patterns::Response<()>, Error<E>>) -> (Vec<&'static str>, &'static str, String) {
    match result {
        Err(Error::Constraint(v)) => match v.constraint {
            Constraint::Pattern { pattern } => (v.fields.clone(), pattern, v.to_string()),
            other => panic!("another constraint: {other:?}"),
        },
        other => panic!("not refused before sending: {other:?}"),
    }
}

#[test]
fn a_value_breaking_its_pattern_is_refused_before_sending() {
    // One connection: only the last call, whose values all match, reaches the server.
    let (base, server) = serve(1);
    let client = gen_patterns::Client::new(base).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let dag = Dag::new("etl");

        let (fields, pattern, shown) = refusal(client.put_dag("etl job", None, None, None, &dag).await);
        assert_eq!(fields, ["dag_id"]);
        assert_eq!(pattern, "^[a-zA-Z0-9_.-]+$");
        assert_eq!(shown, "dag_id: does not match the pattern `^[a-zA-Z0-9_.-]+$`");

        let (fields, pattern, _) =
            refusal(client.put_dag("etl", Some("manual__2026-1-01"), None, None, &dag).await);
        assert_eq!((fields.as_slice(), pattern), (["run"].as_slice(), r"^manual__\d{4}-\d{2}-\d{2}$"));

        let (fields, pattern, _) = refusal(client.put_dag("etl", None, Some("tenant-1"), None, &dag).await);
        assert_eq!((fields.as_slice(), pattern), (["X-Tenant"].as_slice(), "^t-[0-9]+$"));

        // A body field: `[a-z]` is not anchored, so it needs one lower-case letter somewhere.
        let (fields, pattern, _) = refusal(client.put_dag("etl", None, None, None, &Dag::new("ETL-1")).await);
        assert_eq!((fields.as_slice(), pattern), (["name"].as_slice(), "[a-z]"));

        // Matching values go out; `owner`'s look-around pattern is not checked (a warning).
        client
            .put_dag("etl_v2.1", Some("manual__2026-01-31"), Some("t-7"), Some("root"), &Dag::new("ETL-x"))
            .await
            .unwrap();
    });
    let lines = server.join().unwrap();
    assert_eq!(lines, ["PUT /dags/etl_v2.1?run=manual__2026-01-31&owner=root HTTP/1.1"]);
}

#[test]
fn checks_off_sends_what_breaks_a_pattern() {
    let (base, server) = serve(1);
    let mut client = gen_patterns::Client::new(base).unwrap();
    client.set_check_arguments(false);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        client.put_dag("etl", Some("nightly"), None, None, &Dag::new("ETL")).await.unwrap();
    });
    assert_eq!(server.join().unwrap(), ["PUT /dags/etl?run=nightly HTTP/1.1"]);
}
