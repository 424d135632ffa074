//! The `tracing` feature: one span per call with operation, method, path template,
//! status and latency, captured by a `tracing-subscriber` writing into a buffer; no
//! token, header value or body appears in it. Run with `--features tracing`.

use std::io::Write;
use std::sync::{Arc, Mutex};

use axum::http::HeaderMap;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::fmt::format::FmtSpan;
use trading_api::Client;
use trading_api::models::UpdateContactInfoName;

/// A `MakeWriter` into a shared buffer.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Buffer {
    type Writer = Buffer;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

const TOKEN: &str = "secret-token-xyz";
const NAME: &str = "Secret-Firstname";

#[tokio::test]
async fn a_call_is_one_span_with_its_operation_status_and_latency_and_no_secret() {
    let app = axum::Router::new()
        .route(
            "/v1/categoryPositionLimit/deps",
            get(|| async {
                (
                    [
                        ("content-type", "application/json"),
                        ("set-cookie", "session=cookie-secret"),
                    ],
                    "[]",
                )
            }),
        )
        .route(
            "/v1/contactInfo/updatecontactinfoname",
            post(|_: HeaderMap| async {
                (
                    [("content-type", "application/json")],
                    r#"{"errorText":"name refused: Secret-Firstname"}"#,
                )
                    .into_response()
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let server = tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let buffer = Buffer::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(buffer.clone())
        .with_max_level(tracing::Level::TRACE)
        .with_span_events(FmtSpan::CLOSE)
        .with_ansi(false)
        .finish();
    let guard = tracing::subscriber::set_default(subscriber);
    let client = Client::new(base_url).unwrap();
    client.set_bearer_token(TOKEN).unwrap();
    client.list_category_position_limits(7).await.unwrap();
    let body = UpdateContactInfoName::builder()
        .first_name(NAME)
        .last_name("Lovelace")
        .country("GB")
        .phone("+44")
        .build();
    let rejected = client.update_contact_info_name(&body).await.unwrap_err();
    assert_eq!(rejected.status(), Some(reqwest::StatusCode::OK));
    drop(guard);
    server.abort();

    let output = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    let closes: Vec<&str> = output.lines().filter(|l| l.contains("close")).collect();
    assert_eq!(closes.len(), 2, "one span per call:\n{output}");
    for (line, operation, method, path) in [
        (
            closes[0],
            "list_category_position_limits",
            "GET",
            "/categoryPositionLimit/deps",
        ),
        (
            closes[1],
            "update_contact_info_name",
            "POST",
            "/contactInfo/updatecontactinfoname",
        ),
    ] {
        for field in [
            format!("operation=\"{operation}\""),
            format!("method=\"{method}\""),
            format!("path=\"{path}\""),
            "status=200".to_owned(),
            "latency_ms=".to_owned(),
        ] {
            assert!(line.contains(&field), "{field} missing from {line}");
        }
    }
    assert!(
        output.contains("attempt=1"),
        "an event per attempt:\n{output}"
    );
    for secret in [TOKEN, NAME, "cookie-secret", "Lovelace", "+44"] {
        assert!(!output.contains(secret), "{secret} in:\n{output}");
    }
}
