//! What real FastAPI applications need of their clients (issue 19), on the wire: copied
//! into the crate generated from `tests/specs/fastapi_mini.yaml` by `tests/compile.rs`.
//! Each call goes to a loopback server that records the request head and answers what a
//! FastAPI server answered.
use std::io::{Read, Write};
use std::sync::mpsc;

use gen_fastapi_mini::Client;
use gen_fastapi_mini::client::PutThingResponse;
use gen_fastapi_mini::models::Tag;

/// Answers one connection per `(status line, JSON body)`, in order, and sends each
/// request's head (request line and headers) back through the channel.
fn serve(
    answers: Vec<(&'static str, &'static str)>,
) -> (String, mpsc::Receiver<String>, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (heads, received) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        for (status, body) in answers {
            let (mut s, _) = listener.accept().unwrap();
            let mut head = Vec::new();
            let mut buf = [0u8; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                let len = s.read(&mut buf).unwrap();
                assert!(len > 0, "connection closed before the end of the head");
                head.extend_from_slice(&buf[..len]);
            }
            heads.send(String::from_utf8_lossy(&head).into_owned()).unwrap();
            let answer = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            s.write_all(answer.as_bytes()).unwrap();
        }
    });
    (base, received, handle)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Parameters whose schema has no `type` (`{title: Dag Id}`, as Pydantic writes a `str`)
/// are strings: the operation exists and sends them as text.
#[test]
fn untyped_parameters_are_sent_as_strings() {
    let (base, heads, server) = serve(vec![("200 OK", r#"{"dag_run_id":"r1"}"#)]);
    let client = Client::new(base).unwrap();
    runtime().block_on(async {
        let run = client
            .trigger("etl daily", Some("by hand"), Some("nightly"))
            .await
            .unwrap();
        assert_eq!(run["dag_run_id"], "r1");
    });
    let head = heads.recv().unwrap();
    assert!(
        head.starts_with("POST /dags/etl%20daily/dagRuns?note=by+hand HTTP/1.1\r\n"),
        "{head}"
    );
    assert!(head.contains("\r\nx-run-label: nightly\r\n"), "{head}");
    server.join().unwrap();
}

/// A path parameter the template does not contain is no argument: the call sends the
/// template's own.
#[test]
fn a_stray_path_parameter_is_not_an_argument() {
    let (base, heads, server) = serve(vec![("200 OK", r#"{"name":"a/b"}"#)]);
    let client = Client::new(base).unwrap();
    runtime().block_on(async {
        let tag = client.get_tag("a/b").await.unwrap();
        assert_eq!(tag.name, "a/b");
    });
    let head = heads.recv().unwrap();
    assert!(head.starts_with("GET /tags/a%2Fb HTTP/1.1\r\n"), "{head}");
    server.join().unwrap();
}

/// Any `2xx` is a success: FastAPI answers `201` where the spec says `200`, and the
/// resource was created; an error there would invite a retry that creates it twice.
#[test]
fn an_undeclared_success_status_is_a_success() {
    let (base, _heads, server) = serve(vec![
        ("201 Created", r#"{"actions":[],"nodes":[]}"#),
        ("202 Accepted", r#"{"queued":true}"#),
        ("201 Created", r#"{"name":"new"}"#),
        ("204 No Content", ""),
        ("404 Not Found", r#"{"name":"gone"}"#),
    ]);
    let client = Client::new(base).unwrap();
    runtime().block_on(async {
        // One documented success (`200`): a `201` decodes with its schema.
        let created = client
            .create_thing(&Default::default())
            .await
            .unwrap();
        assert_eq!(created.status().as_u16(), 201);
        assert!(created.actions.is_empty());

        // Several documented successes: an undocumented one keeps its bytes and status.
        let tag = Tag::new("t".to_owned());
        match client.put_thing("a", &tag).await.unwrap().into_inner() {
            PutThingResponse::OtherSuccess { status, body } => {
                assert_eq!(status.as_u16(), 202);
                assert_eq!(body, br#"{"queued":true}"#);
            }
            other => panic!("expected OtherSuccess, got {other:?}"),
        }
        match client.put_thing("a", &tag).await.unwrap().into_inner() {
            PutThingResponse::Created(tag) => assert_eq!(tag.name, "new"),
            other => panic!("expected Created, got {other:?}"),
        }

        // No documented success: a `2xx` is one all the same, its body as received.
        let deleted = client.delete_thing("a").await.unwrap();
        assert_eq!(deleted.status().as_u16(), 204);
        assert_eq!(deleted.into_inner(), (reqwest::StatusCode::NO_CONTENT, Vec::new()));
        // And an error stays an error.
        assert_eq!(
            client.delete_thing("b").await.unwrap_err().status().map(|s| s.as_u16()),
            Some(404)
        );
    });
    server.join().unwrap();
}

/// Pydantic's discriminator is a `const` with a `default`, left out of `required`: it is
/// the union's tag all the same. Each branch decodes by its tag (never by the first
/// branch whose optional fields happen to fit) and encodes back to the same JSON.
#[test]
fn unions_tagged_by_an_optional_const_decode_by_the_tag_and_round_trip() {
    use gen_fastapi_mini::models::{Automation, AutomationActionsItem, PauseDeploymentSource};
    let value = serde_json::json!({
        "actions": [
            {"type": "do-nothing"},
            {"type": "pause-deployment", "source": "inferred"},
            {"type": "pause-deployment", "source": "selected"}
        ],
        "nodes": [["3fa85f64-5717-4562-b3fc-2c963f66afa6", 1]]
    });
    let automation: Automation = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(serde_json::to_value(&automation).unwrap(), value);
    // `prefixItems` of two: a tuple, its `format: uuid` item a `uuid::Uuid`.
    let node: uuid::Uuid = "3fa85f64-5717-4562-b3fc-2c963f66afa6".parse().unwrap();
    assert_eq!(automation.nodes, vec![(node, 1)]);
    assert_eq!(automation.actions[0], AutomationActionsItem::DoNothing);
    match &automation.actions[1] {
        AutomationActionsItem::PauseDeployment(pause) => assert_eq!(
            pause.source,
            PauseDeploymentSource::Inferred
        ),
        other => panic!("expected PauseDeployment, got {other:?}"),
    }
    // Without its tag, or with one no branch has, a value is kept whole, not read as
    // whichever branch comes first.
    for kept in [
        serde_json::json!({"source": "inferred"}),
        serde_json::json!({"type": "run-deployment", "source": "inferred"}),
    ] {
        let decoded: AutomationActionsItem = serde_json::from_value(kept.clone()).unwrap();
        assert_eq!(decoded, AutomationActionsItem::Unknown(kept.clone()));
        assert_eq!(serde_json::to_value(&decoded).unwrap(), kept);
    }
}

/// A query parameter described by `content: {application/json: …}` goes as its JSON
/// text, percent-encoded, whatever its type.
#[test]
fn content_parameters_are_json_text_in_the_query() {
    use gen_fastapi_mini::models::ListThingsFilter;
    let (base, heads, server) = serve(vec![("200 OK", "[]"), ("200 OK", r#"[{"name":"x"}]"#)]);
    let client = Client::new(base).unwrap();
    runtime().block_on(async {
        let filter = ListThingsFilter {
            name: Some("a&b".to_owned()),
            tags: Some(vec!["x".to_owned()]),
        };
        let found = client.list_things(Some(&filter), &["-name"]).await.unwrap();
        assert!(found.is_empty());
        let found = client.list_things(None, &[]).await.unwrap();
        assert_eq!(found[0].name, "x");
    });
    let head = heads.recv().unwrap();
    let target = head.split(' ').nth(1).unwrap();
    let (path, query) = target.split_once('?').unwrap();
    assert_eq!(path, "/things");
    let pairs: Vec<(String, String)> = query
        .split('&')
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap();
            (k.to_owned(), percent_decode(v))
        })
        .collect();
    assert_eq!(
        pairs,
        [
            ("filter".to_owned(), r#"{"name":"a&b","tags":["x"]}"#.to_owned()),
            ("order".to_owned(), r#"["-name"]"#.to_owned()),
        ]
    );
    let head = heads.recv().unwrap();
    assert!(head.starts_with("GET /things?order=%5B%5D HTTP/1.1\r\n"), "{head}");
    server.join().unwrap();
}

/// `application/x-www-form-urlencoded` decoding of one query value (`+` is a space).
fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 2;
            }
            other => out.push(other),
        }
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// `put_thing` answered `422` with `body` by a server that takes one connection: the
/// error it gives.
fn put_thing_answered_422(
    body: &'static str,
    tag: &Tag,
) -> gen_fastapi_mini::Error<gen_fastapi_mini::client::PutThingError> {
    let (base, _heads, server) = serve(vec![("422 Unprocessable Entity", body)]);
    let client = Client::new(base).unwrap();
    let err = runtime().block_on(client.put_thing("a", tag)).unwrap_err();
    server.join().unwrap();
    err
}

/// An error answer keeps its body as received beside the decoded value: FastAPI
/// applications answer a `422` whose fields the documented `HTTPValidationError` does
/// not name, and the server's message must still be readable, in `Display` too; `Debug`
/// shows no body.
#[test]
fn an_error_body_the_schema_does_not_describe_is_kept() {
    use gen_fastapi_mini::Error;
    use gen_fastapi_mini::client::PutThingError;
    const BODY: &str = r#"{"exception_message":"String should match pattern","exception_detail":[{"loc":["body","name"]}]}"#;
    let err = put_thing_answered_422(BODY, &Tag::new("t".to_owned()));
    match &err {
        Error::Response {
            status,
            error: PutThingError::UnprocessableContent(decoded),
            ..
        } => {
            assert_eq!(status.as_u16(), 422);
            assert_eq!(decoded.detail, None);
        }
        other => panic!("expected the documented 422, got {other:?}"),
    }
    assert_eq!(err.body(), Some(BODY.as_bytes()));
    assert_eq!(
        err.excerpt(49).as_deref(),
        Some(r#"{"exception_message":"String should match pattern…"#)
    );
    assert_eq!(
        err.to_string(),
        format!("documented error answer, status 422 Unprocessable Entity: {BODY}")
    );
    assert!(!format!("{err:?}").contains("exception"), "{err:?}");
}

/// A documented error status whose body does not fit its schema (`detail` an object
/// where the spec says a list) is still that documented error, with its status: the
/// operation's `Unreadable` variant names where and why, the body is kept and `Display`
/// shows it.
#[test]
fn a_documented_error_in_another_shape_is_still_that_error() {
    use gen_fastapi_mini::Error;
    use gen_fastapi_mini::client::PutThingError;
    const BODY: &str = r#"{"detail": {"message": "name taken"}}"#;
    let err = put_thing_answered_422(BODY, &Tag::new("t".to_owned()));
    match &err {
        Error::Response {
            status,
            error: PutThingError::Unreadable { status: s, path, reason },
            body,
            ..
        } => {
            assert_eq!((status.as_u16(), s.as_u16()), (422, 422));
            assert_eq!(path, "detail");
            assert!(reason.starts_with("a value of the wrong type or shape"), "{reason}");
            assert_eq!(body, BODY.as_bytes());
        }
        other => panic!("expected the documented 422, got {other:?}"),
    }
    assert_eq!(err.status().map(|s| s.as_u16()), Some(422));
    assert!(err.to_string().contains("name taken"), "{err}");
}

/// A `SecretStr` field (`format: password`) is a credential whatever its name: `Debug`
/// of the model hides it, and so does the body `Display` shows when a 422 echoes it back
/// (as FastAPI does, in `input` and the request body).
#[test]
fn a_secret_str_field_never_shows_in_debug_or_display() {
    const BODY: &str = r#"{"detail": [{"loc": ["body", "webhook_key"], "msg": "String should have at most 8 characters", "input": "wk-secret-1"}], "request_body": {"name": "t", "webhook_key": "wk-secret-1"}}"#;
    let tag = Tag::new("t".to_owned()).with_webhook_key("wk-secret-1".to_owned());
    assert!(!format!("{tag:?}").contains("wk-secret-1"), "{tag:?}");
    let err = put_thing_answered_422(BODY, &tag);
    let shown = err.to_string();
    assert!(
        shown.contains("String should have at most 8 characters"),
        "{shown}"
    );
    assert!(!shown.contains("wk-secret-1"), "{shown}");
    assert!(shown.contains(r#""input": "<redacted>""#), "{shown}");
}

/// Serves `count` connections, each answered by what its `Accept` asks for, as a
/// negotiating FastAPI route does: `text/plain` gets `text`, anything else `json`. Sends
/// back each request's `Accept`.
fn serve_negotiating(
    count: usize,
    json: &'static str,
    text: &'static str,
) -> (String, mpsc::Receiver<String>, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (accepts, received) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        for _ in 0..count {
            let (mut s, _) = listener.accept().unwrap();
            let mut head = Vec::new();
            let mut buf = [0u8; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                let len = s.read(&mut buf).unwrap();
                assert!(len > 0, "connection closed before the end of the head");
                head.extend_from_slice(&buf[..len]);
            }
            let head = String::from_utf8_lossy(&head).into_owned();
            let accept = head
                .lines()
                .find_map(|l| l.strip_prefix("accept: "))
                .unwrap_or("")
                .to_owned();
            let (content_type, body) = if accept == "text/plain" {
                ("text/plain; charset=utf-8", text)
            } else {
                ("application/json", json)
            };
            accepts.send(accept).unwrap();
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            s.write_all(answer.as_bytes()).unwrap();
        }
    });
    (base, received, handle)
}

/// An `accept` header parameter choosing between JSON and `text/plain` of one `200`
/// (issue 19's `get_source`): the JSON method asks for JSON only, so a negotiating server
/// never hands it text it would fail to decode, and `get_source_text` gets the text.
#[test]
fn content_negotiation_gives_a_json_method_and_a_text_twin() {
    let (base, accepts, server) =
        serve_negotiating(2, r#"{"content":"print(1)"}"#, "print(1)\n");
    let client = Client::new(base).unwrap();
    runtime().block_on(async {
        let source = client.get_source().await.unwrap();
        assert_eq!(source.content.as_deref(), Some("print(1)"));
        let text = client.get_source_text().await.unwrap();
        assert_eq!(text.status().as_u16(), 200);
        assert_eq!(text.into_inner(), "print(1)\n");
    });
    assert_eq!(accepts.recv().unwrap(), "application/json");
    assert_eq!(accepts.recv().unwrap(), "text/plain");
    server.join().unwrap();
}
