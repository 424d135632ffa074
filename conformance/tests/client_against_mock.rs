//! The client generated from a spec against the mock of the same spec: every operation
//! of the crate is called and every answer decoded (issue 31's proof, on Prefect 3.9.1's
//! 188 operations, its 51 `GET`s among them).
//!
//! Each operation's test (written into the generated crate, one `#[tokio::test]` per
//! operation) makes these calls, with arguments generated from their schemas by the
//! harness's value generator (`schema_values`, request direction, a seed per operation)
//! and passed in the form each method takes (`codegen::emit::json_calls`):
//! - the required arguments only, the mock's default answer (its examples or a value
//!   from the schema with a fixed seed): a success, decoded;
//! - every argument, optional ones too, with `Prefer: dynamic=true` (a value generated
//!   afresh from the response schema): a success, decoded;
//! - for each error status the operation declares, `Prefer: code=N`: `Error::Response`
//!   with that status and the documented body decoded (not its `Unreadable` variant).
//!
//! The mock validates each request too, so a value the client encodes otherwise than
//! the spec says comes back as a 4xx where a success was asked, and fails the test.

mod generated_crate;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use codegen::emit::json_calls::{self, Slot};
use codegen::ir::{Method, Operation, StatusMatch};
use schema_values::{Direction, Generator};

const CRATE: &str = "gen-mock-client";
const LIB: &str = "gen_mock_client";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// What the generated tests share: the client of one `Prefer` header, the JSON reader of
/// `json_calls`' bindings and the judge of one answer.
const SUPPORT: &str = r#"#![allow(deprecated, unused_mut)]
//! Every operation of the crate against the mock of its spec (written by
//! `conformance/tests/client_against_mock.rs`; the mock's URL is in `MOCK_URL`).

use __LIB__::{Client, Error};

fn client(prefer: &str) -> Client {
    let mut headers = reqwest::header::HeaderMap::new();
    if !prefer.is_empty() {
        headers.insert("prefer", prefer.parse().expect("a header value"));
    }
    // A redirect the mock answers is the answer judged, not a request to follow.
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .default_headers(headers)
        .build()
        .expect("an HTTP client");
    Client::with_client(std::env::var("MOCK_URL").expect("MOCK_URL"), http)
}

fn value<T: serde::de::DeserializeOwned>(json: &str) -> T {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{json} as {}: {e}", std::any::type_name::<T>()))
}

/// `None` when the answer is the one asked for: a decoded success (`status` `None`), or
/// the documented error of `status` with its body decoded.
fn judge<T, E: std::fmt::Debug>(
    call: &str,
    status: Option<u16>,
    answer: Result<T, Error<E>>,
) -> Option<String> {
    match (status, answer) {
        (None, Ok(_)) => None,
        (Some(asked), Err(Error::Response { status, error, .. }))
            if status.as_u16() == asked && !format!("{error:?}").starts_with("Unreadable") =>
        {
            None
        }
        (_, Ok(_)) => Some(format!("{call}: a success where {status:?} was asked")),
        (_, Err(error)) => Some(format!("{call}: {error} ({error:?})")),
    }
}
"#;

/// The judge's own teeth, written after the operations' tests, on the first read that
/// declares a JSON success and a JSON error: the mock's documented error where a success
/// is asked, a success whose body is not JSON and the error with a body that is not JSON
/// (both from a one-shot loopback server) each come as the error they are and are
/// reported.
const CONTROL: &str = r#"
/// The URL of a loopback server that answers one request with `status` and `body`.
fn once(status: u16, body: &'static [u8]) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut stream, _) = listener.accept().unwrap();
        let mut head = [0u8; 8192];
        let _ = stream.read(&mut head);
        let head = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(body);
    });
    url
}

#[tokio::test]
async fn control_a_wrong_or_unreadable_answer_is_reported() {
    {
        let client = client("code=__STATUS__");
        __BINDINGS__
        let answer = __CALL__.await;
        let err = answer.as_ref().err();
        assert!(matches!(err, Some(Error::Response { status, .. }) if status.as_u16() == __STATUS__), "{err:?}");
        assert!(judge("control", None, answer).is_some(), "an error answer passed for a success");
    }
    {
        let client = __LIB__::Client::new(once(200, b"{")).unwrap();
        __BINDINGS__
        let answer = __CALL__.await;
        let err = answer.as_ref().err();
        assert!(matches!(err, Some(Error::Decode { .. })), "{err:?}");
        assert!(judge("control", None, answer).is_some(), "an unreadable success passed");
    }
    {
        let client = __LIB__::Client::new(once(__STATUS__, b"{")).unwrap();
        __BINDINGS__
        let answer = __CALL__.await;
        let err = answer.as_ref().err();
        assert!(matches!(err, Some(Error::Response { .. })), "{err:?}");
        assert!(judge("control", Some(__STATUS__), answer).is_some(), "an unreadable error passed");
    }
}
"#;

/// How the operations came out: the test file and what it holds.
struct Written {
    text: String,
    tests: usize,
    calls: usize,
    /// How many of the calls ask for a success.
    successes: usize,
    gets: usize,
    /// `operationId`-less names of the operations not called, each with the reason.
    not_called: Vec<String>,
}

/// The JSON text of a value for `slot`, generated from its schema: always for a required
/// one, for an optional one when `optional`.
fn generate(
    generator: &Generator<'_>,
    doc: &serde_json::Value,
    slot: Slot<'_>,
    optional: bool,
    seed: u64,
) -> Option<String> {
    if !slot.required() && !optional {
        return None;
    }
    let pointer = slot.schema()?;
    let node = doc.pointer(pointer)?;
    let value = generator.generate_at(node, pointer, seed).ok()?;
    Some(value.to_string())
}

/// The statuses of the error answers `op` declares, as `Prefer: code=` asks for them.
fn error_statuses(op: &Operation) -> Vec<u16> {
    op.responses
        .iter()
        .filter(|r| r.declared)
        .filter_map(|r| match r.status {
            StatusMatch::Code(code) if code >= 400 => Some(code),
            StatusMatch::Class(class) if class >= 4 => Some(class * 100),
            _ => None,
        })
        .collect()
}

/// What the mock answers `op` without `Prefer: code=` (its rule, `spec_mock::answer`):
/// `None` for a success (the lowest declared 2xx, or 200 for `2XX` or `default`), else
/// the lowest declared status, which the client reads as a documented answer that is
/// not a success (a `101` WebSocket upgrade, say).
fn default_status(op: &Operation) -> Option<u16> {
    let declared = || op.responses.iter().filter(|r| r.declared);
    let success = declared().any(|r| match r.status {
        StatusMatch::Code(code) => (200..300).contains(&code),
        StatusMatch::Class(class) => class == 2,
        StatusMatch::Default => true,
    });
    if success {
        return None;
    }
    declared()
        .filter_map(|r| match r.status {
            StatusMatch::Code(code) => Some(code),
            _ => None,
        })
        .min()
}

/// One block of a test: bind the arguments, call, judge.
fn block(
    out: &mut String,
    call: &json_calls::Call,
    label: &str,
    prefer: &str,
    status: Option<u16>,
) {
    out.push_str("    {\n");
    for b in &call.bindings {
        let _ = writeln!(out, "        {b}");
    }
    let _ = writeln!(
        out,
        "        let client = client({prefer:?});\n        \
         failures.extend(judge({label:?}, {status:?}, {}.await));\n    }}",
        call.expression
    );
}

fn write_tests(api: &codegen::ir::Api, doc: &serde_json::Value) -> Written {
    let generator = Generator::new(doc).with_direction(Direction::Request);
    let mut text = SUPPORT.replace("__LIB__", LIB);
    let (mut tests, mut calls, mut successes, mut gets) = (0, 0, 0, 0);
    let mut not_called = Vec::new();
    let mut control = None;
    for (index, op) in api.operations.iter().enumerate() {
        let seed = index as u64;
        let required = json_calls::call(op, LIB, &mut |slot| {
            generate(&generator, doc, slot, false, seed)
        });
        let Some(required) = required else {
            not_called.push(format!(
                "{}: a required argument has no value generated from its schema or no JSON form",
                op.name
            ));
            continue;
        };
        let every = json_calls::call(op, LIB, &mut |slot| {
            generate(&generator, doc, slot, true, seed)
        })
        .expect("the required arguments had values a moment ago");
        let name = op.name.trim_start_matches("r#");
        let _ = writeln!(
            text,
            "\n#[tokio::test]\nasync fn call_{name}() {{\n    let mut failures: Vec<String> = Vec::new();"
        );
        let default = default_status(op);
        block(
            &mut text,
            &required,
            &format!("{name}, required arguments"),
            "",
            default,
        );
        block(
            &mut text,
            &every,
            &format!("{name}, every argument, Prefer: dynamic=true"),
            "dynamic=true",
            default,
        );
        calls += 2;
        successes += if default.is_none() { 2 } else { 0 };
        for status in error_statuses(op) {
            block(
                &mut text,
                &required,
                &format!("{name}, Prefer: code={status}"),
                &format!("code={status}"),
                Some(status),
            );
            calls += 1;
        }
        text.push_str("    assert!(failures.is_empty(), \"{}\", failures.join(\"\\n\"));\n}\n");
        tests += 1;
        gets += usize::from(op.method == Method::Get);
        // The control calls the first read whose success has a JSON body and which
        // declares an error status.
        let json_success = op.responses.iter().any(|r| {
            r.declared && matches!(r.status, StatusMatch::Code(200..=299)) && r.schema.is_some()
        });
        let json_error = op.responses.iter().find_map(|r| match r.status {
            StatusMatch::Code(code) if code >= 400 && r.declared && r.schema.is_some() => {
                Some(code)
            }
            StatusMatch::Class(class) if class >= 4 && r.declared && r.schema.is_some() => {
                Some(class * 100)
            }
            _ => None,
        });
        if control.is_none()
            && op.method == Method::Get
            && json_success
            && let Some(status) = json_error
        {
            control = Some(
                CONTROL
                    .replace("__STATUS__", &status.to_string())
                    .replace("__BINDINGS__", &required.bindings.join("\n        "))
                    .replace("__CALL__", &required.expression),
            );
        }
    }
    text.push_str(
        &control
            .expect("a read with a JSON success and a JSON error, for the control")
            .replace("__LIB__", LIB),
    );
    tests += 1;
    Written {
        text,
        tests,
        calls,
        successes,
        gets,
        not_called,
    }
}

/// Serves the mock of `spec` on a loopback port from a thread of its own, logging every
/// exchange to `log`; its URL with the spec's base path.
fn start_mock(spec: &Path, log: &Path) -> String {
    let mock = spec_mock::Mock::from_path(spec)
        .unwrap_or_else(|e| panic!("{e}"))
        .seed(7)
        .log_to_path(log)
        .unwrap();
    let base = mock.base_path().to_owned();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}{base}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, mock.router()).await.unwrap();
        });
    });
    url
}

/// Generates the client of `spec`, writes its tests and runs them against the mock;
/// `min_reads`: how many `GET` operations the crate has at least (a guard against a
/// reading that lost operations).
fn every_operation_against_the_mock(spec: &Path, min_reads: usize) {
    let shown = spec.file_name().unwrap().to_str().unwrap();
    let text = std::fs::read_to_string(spec).unwrap();
    let options = codegen::Options {
        crate_name: Some(CRATE.to_owned()),
        ..codegen::Options::default()
    };
    let generated =
        codegen::generate_str_with(shown, &text, shown, &options).unwrap_or_else(|e| panic!("{e}"));
    let source = spec_model::Source {
        name: shown.to_owned(),
        text: text.clone(),
    };
    let parsed = spec_model::parse(&source).unwrap();
    let (api, _) =
        codegen::lower::lower_with(&parsed, &options).unwrap_or_else(|e| panic!("{e:?}"));
    let doc = spec_model::to_value(&source).unwrap();
    let written = write_tests(&api, &doc);
    // `DUMP_CALLS=FILE` keeps the test file, which lives in a temporary crate.
    if let Some(out) = std::env::var_os("DUMP_CALLS") {
        std::fs::write(out, &written.text).unwrap();
    }
    let all_gets = api
        .operations
        .iter()
        .filter(|op| op.method == Method::Get)
        .count();
    eprintln!(
        "{} operations ({} GET) in the crate, {} left out by the generator; {} tests with {} calls; not called: {:#?}",
        api.operations.len(),
        all_gets,
        generated.left_out.len(),
        written.tests,
        written.calls,
        written.not_called
    );
    // Every read operation is called: none was left out of the crate or of the tests.
    assert!(all_gets >= min_reads, "{all_gets} GET operations");
    assert_eq!(written.gets, all_gets, "{:#?}", written.not_called);
    assert!(
        generated.left_out.is_empty(),
        "operations left out of the crate: {:?}",
        generated.left_out
    );

    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("mock.jsonl");
    let url = start_mock(spec, &log);
    let workspace = generated_crate::write(
        dir.path(),
        CRATE,
        shown,
        &generated,
        "tokio = { version = \"1\", features = [\"rt\", \"macros\"] }\n",
        ("against_mock", &written.text),
    );
    let output = generated_crate::cargo(
        &workspace,
        &["test", "--offline", "--test", "against_mock"],
        &[("MOCK_URL", &url)],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the generated client against the mock:\n{stdout}\n{stderr}"
    );
    // Every test ran: a filter that ran none would exit 0 too.
    let expected = format!("test result: ok. {} passed", written.tests);
    assert!(
        stdout.contains(&expected),
        "expected `{expected}`:\n{stdout}"
    );

    // The calls reached the mock, each routed to an operation: as many exchanges as
    // calls (the control's first call among them; its others go to its own servers),
    // every operation of the crate met.
    let log = std::fs::read_to_string(&log).unwrap();
    let exchanges: Vec<serde_json::Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(exchanges.len(), written.calls + 1, "{log}");
    let operations: std::collections::BTreeSet<&str> = exchanges
        .iter()
        .map(|e| {
            e["operation"]
                .as_str()
                .unwrap_or_else(|| panic!("unrouted: {e}"))
        })
        .collect();
    assert_eq!(operations.len(), api.operations.len());
    let successes = exchanges
        .iter()
        .filter(|e| {
            e["status"]
                .as_u64()
                .is_some_and(|s| (200..300).contains(&s))
        })
        .count();
    assert_eq!(successes, written.successes, "the successes asked for");
}

#[test]
fn the_prefect_client_calls_every_operation_of_the_mock_and_decodes_every_answer() {
    let spec = root().join("conformance/values/tests/specs/prefect-3.9.1-openapi.json");
    every_operation_against_the_mock(&spec, 51);
}

/// A second stack (dropshot, Rust) whose document nobody here wrote.
#[test]
fn the_propolis_client_calls_every_operation_of_the_mock_and_decodes_every_answer() {
    every_operation_against_the_mock(&root().join("codegen/tests/corpus/propolis-server.json"), 1);
}

/// The argument forms `json_calls` writes, each met at least once (a list of strings
/// positional and behind a builder, text, binary, form and list bodies).
#[test]
fn a_client_takes_every_argument_form_from_json() {
    every_operation_against_the_mock(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/specs/argument_forms.yaml"),
        2,
    );
}
