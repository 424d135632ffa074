//! Sending one request to a mock's router in process and reading the answer back.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use axum::Router;
use axum::body::Body;
use http::{HeaderMap, Request};
use serde_json::Value;
use tower::ServiceExt;

/// A synthetic spec of `tests/specs/`.
pub fn spec(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/specs")
        .join(name)
}

/// The mock of a synthetic spec, stateless.
pub fn mock(name: &str) -> spec_mock::Mock {
    spec_mock::Mock::from_path(&spec(name)).expect("the spec is read")
}

/// An answer as a test reads it.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub text: String,
}

impl Answer {
    /// The body as JSON (`Null` when it is none).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Sends `method uri` with `headers` and `body`.
pub async fn send(
    router: &Router,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut req = Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = router
        .clone()
        .oneshot(req.body(Body::from(body.to_owned())).unwrap())
        .await
        .expect("the router answers");
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    Answer {
        status,
        headers,
        text: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// `GET uri`.
pub async fn get(router: &Router, uri: &str) -> Answer {
    send(router, "GET", uri, &[], "").await
}

/// `method uri` with a JSON body.
pub async fn json(router: &Router, method: &str, uri: &str, body: &Value) -> Answer {
    send(
        router,
        method,
        uri,
        &[("content-type", "application/json")],
        &body.to_string(),
    )
    .await
}
