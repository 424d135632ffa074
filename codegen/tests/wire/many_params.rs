//! Each setter of a request builder reaches the wire, read off a loopback socket: every
//! one of `get_task_instances`'s 50 optional parameters set at once, then none (only the
//! four required ones go out); a required body given to the method making the builder
//! and an optional one given to a setter. Copied into the crate generated from
//! `tests/specs/many_params.yaml` by `tests/compile.rs`.
use std::io::{Read, Write};

use gen_many_params::models::{GetTaskInstancesMapIndexMode, GetTaskInstancesSort, GetTaskInstancesStateItem, Task};

/// One request as received: its request line, headers (names lower-cased) and body.
struct Received {
    line: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Received {
    /// The path, and the query's pairs as sent (still percent-encoded), sorted.
    fn target(&self) -> (String, Vec<String>) {
        let target = self.line.split(' ').nth(1).unwrap();
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let mut pairs: Vec<String> = query.split('&').filter(|p| !p.is_empty()).map(str::to_owned).collect();
        pairs.sort();
        (path.to_owned(), pairs)
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Answers `n` connections with a JSON 200 and returns each request.
fn serve(n: usize) -> (String, std::thread::JoinHandle<Vec<Received>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        (0..n)
            .map(|_| {
                let (mut s, _) = listener.accept().unwrap();
                let mut buf = Vec::new();
                let mut chunk = [0u8; 8192];
                let head_end = loop {
                    let len = s.read(&mut chunk).unwrap();
                    assert!(len > 0, "connection closed before the head ended");
                    buf.extend_from_slice(&chunk[..len]);
                    if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        break at;
                    }
                };
                let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
                let mut lines = head.lines();
                let line = lines.next().unwrap().to_owned();
                let headers: Vec<(String, String)> = lines
                    .filter_map(|l| l.split_once(':'))
                    .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
                    .collect();
                let length: usize = headers
                    .iter()
                    .find(|(n, _)| n == "content-length")
                    .map_or(0, |(_, v)| v.parse().unwrap());
                while buf.len() < head_end + 4 + length {
                    let len = s.read(&mut chunk).unwrap();
                    buf.extend_from_slice(&chunk[..len]);
                }
                let body = String::from_utf8_lossy(&buf[head_end + 4..head_end + 4 + length]).into_owned();
                s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}")
                    .unwrap();
                Received { line, headers, body }
            })
            .collect()
    });
    (base, handle)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

#[test]
fn every_setter_reaches_the_wire() {
    let (base, server) = serve(2);
    let client = gen_many_params::Client::new(base).unwrap();
    runtime().block_on(async {
        client
            .get_task_instances("my dag", "run/1", 25, "req-1")
            .limit(10)
            .offset(20)
            .order_by("-start_date")
            .execution_date_gte("2026-01-01T00:00:00Z")
            .execution_date_lte("2026-01-02T00:00:00Z")
            .start_date_gte("sd-gte")
            .start_date_lte("sd-lte")
            .end_date_gte("ed-gte")
            .end_date_lte("ed-lte")
            .updated_at_gte("ua-gte")
            .updated_at_lte("ua-lte")
            .logical_date_gte("ld-gte")
            .logical_date_lte("ld-lte")
            .run_after_gte("ra-gte")
            .run_after_lte("ra-lte")
            .duration_gte(1.5)
            .duration_lte(9.25)
            .state([GetTaskInstancesStateItem::Running, GetTaskInstancesStateItem::Failed])
            .pool(["p1", "p 2"])
            .queue(vec![String::from("q1")])
            .executor(["e1", "e,2"])
            .map_index([0, 3])
            .try_number([1, 2])
            .operator(["op"])
            .map_index_mode(GetTaskInstancesMapIndexMode::Mapped)
            .task_display_name_pattern("%extract%")
            .include_downstream(true)
            .include_upstream(false)
            .only_failed(true)
            .only_running(false)
            .version_number([7])
            .hostname("worker-1")
            .pid(4242)
            .priority_weight_gte(-1)
            .priority_weight_lte(99)
            .trigger_id(9_000_000_000)
            .rendered_fields(true)
            .sort(GetTaskInstancesSort::Desc)
            .fields(["a", "b"])
            .cursor("c&=")
            .task_group_id("tg")
            .external_executor_id("ext")
            .note("a note")
            .rendered_map_index("rmi")
            .dag_version(3)
            .run_id_pattern("manual_%")
            .x_trace_id("trace-1")
            .x_priority(5)
            .x_tags(["t1", "t2"])
            .x_dry_run(true)
            .send()
            .await
            .unwrap();
        client.get_task_instances("d", "r", 1, "req-2").send().await.unwrap();
    });
    let requests = server.join().unwrap();

    let (path, query) = requests[0].target();
    assert_eq!(path, "/dags/my%20dag/dagRuns/run%2F1/taskInstances");
    let mut expected: Vec<String> = [
        "pageSize=25",
        "limit=10",
        "offset=20",
        "order_by=-start_date",
        "execution_date_gte=2026-01-01T00%3A00%3A00Z",
        "execution_date_lte=2026-01-02T00%3A00%3A00Z",
        "start_date_gte=sd-gte",
        "start_date_lte=sd-lte",
        "end_date_gte=ed-gte",
        "end_date_lte=ed-lte",
        "updated_at_gte=ua-gte",
        "updated_at_lte=ua-lte",
        "logical_date_gte=ld-gte",
        "logical_date_lte=ld-lte",
        "run_after_gte=ra-gte",
        "run_after_lte=ra-lte",
        "duration_gte=1.5",
        "duration_lte=9.25",
        "state=running",
        "state=failed",
        "pool=p1",
        "pool=p+2",
        "queue=q1",
        "executor=e1,e%2C2",
        "map_index=0",
        "map_index=3",
        "try_number=1|2",
        "operator=op",
        "mapIndexMode=mapped",
        "task_display_name_pattern=%25extract%25",
        "include_downstream=true",
        "include_upstream=false",
        "only_failed=true",
        "only_running=false",
        "version_number=7",
        "hostname=worker-1",
        "pid=4242",
        "priority_weight_gte=-1",
        "priority_weight_lte=99",
        "trigger_id=9000000000",
        "rendered_fields=true",
        "sort=desc",
        "fields=a%20b",
        "cursor=c%26%3D",
        "task_group_id=tg",
        "external_executor_id=ext",
        "note=a+note",
        "rendered_map_index=rmi",
        "dag_version=3",
        "run_id_pattern=manual_%25",
    ]
    .map(str::to_owned)
    .to_vec();
    expected.sort();
    assert_eq!(query, expected);
    // The required `pageSize`, the 46 optional query parameters (the other 4 are
    // headers), and the second items of the three repeated lists.
    assert_eq!(expected.len(), 1 + 46 + 3);
    let first = &requests[0];
    assert_eq!(first.header("x-request-id"), Some("req-1"));
    assert_eq!(first.header("x-trace-id"), Some("trace-1"));
    assert_eq!(first.header("x-priority"), Some("5"));
    assert_eq!(first.header("x-tags"), Some("t1,t2"));
    assert_eq!(first.header("x-dry-run"), Some("true"));

    // Nothing set: only the required parameters go out.
    let second = &requests[1];
    let (path, query) = second.target();
    assert_eq!(path, "/dags/d/dagRuns/r/taskInstances");
    assert_eq!(query, ["pageSize=1"]);
    assert_eq!(second.header("x-request-id"), Some("req-2"));
    for name in ["x-trace-id", "x-priority", "x-tags", "x-dry-run"] {
        assert_eq!(second.header(name), None, "{name}");
    }
}

#[test]
fn bodies_go_through_the_builder() {
    let (base, server) = serve(3);
    let client = gen_many_params::Client::new(base).unwrap();
    runtime().block_on(async {
        client
            .post_tasks("d", Task::new("t"))
            .a("x")
            .b(2)
            .client2("c")
            .send2("s")
            .send()
            .await
            .unwrap();
        client.put_notes("d").c(true).d(["1", "2"]).body("hello").send().await.unwrap();
        client.put_notes("d").send().await.unwrap();
    });
    let requests = server.join().unwrap();
    assert_eq!(requests[0].line, "POST /dags/d/tasks?a=x&b=2&client=c&send=s HTTP/1.1");
    assert_eq!(requests[0].body, r#"{"name":"t"}"#);
    assert_eq!(requests[1].line, "PUT /dags/d/notes?c=true&d=1&d=2 HTTP/1.1");
    assert_eq!(requests[1].body, "hello");
    assert_eq!(requests[2].line, "PUT /dags/d/notes HTTP/1.1");
    assert_eq!(requests[2].body, "");
}
