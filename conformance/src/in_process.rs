//! An app in the harness's own process as the run's target: any `tower::Service` that
//! takes an `http::Request` and answers an `http::Response` (an `axum::Router` is one),
//! called directly, with no socket and no port. Everything above the transport is the
//! same as over the network: the requests are built, judged and recorded as they are for a
//! URL, and their URLs keep the host `in-process` so a curl line still shows the path and
//! the query.
//!
//! The bounds of the network transport hold here too: the run's timeout covers the call
//! and the reading of the body, a body over the cap fails the request, and a handler that
//! panics fails its request (the panic is caught where the call is awaited) instead of
//! the run.

#[cfg(test)]
use std::convert::Infallible;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::FutureExt;
use http_body_util::{BodyExt, Full};
use tower::util::BoxCloneSyncService;
use tower::{Service, ServiceExt};

/// One request as the app gets it: the transport builds it, so this room needs nothing
/// of the transport's.
pub(crate) struct Call<'a> {
    /// The method.
    pub method: &'a str,
    /// The URL (its path and query become the URI, its host and port the `Host`).
    pub url: &'a reqwest::Url,
    /// Headers, the request's own first.
    pub headers: Vec<(&'a str, &'a str)>,
    /// The body with its content type.
    pub body: Option<(&'a str, &'a [u8])>,
}

/// The app's answer, read whole.
pub(crate) struct Answer {
    /// Status code.
    pub status: u16,
    /// Headers, lower-case names.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// From the call to the body's end.
    pub elapsed: Duration,
}

/// Why no answer came.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Not within the timeout.
    Timeout,
    /// More than the cap.
    TooLarge,
    /// The app failed, panicked, or its body broke; or the request could not be built.
    Broken(String),
}

/// The boxed error of a service or a body.
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The base URL of an in-process target: no host resolves to it, so a request the
/// transport did not route to the app cannot reach anything else.
pub const ORIGIN: &str = "http://in-process";

/// The body an in-process app's answer is read through.
type AnswerBody = http_body_util::combinators::UnsyncBoxBody<Bytes, BoxError>;

/// An in-process app, ready to be called from any task.
#[derive(Clone)]
pub struct InProcess {
    service: BoxCloneSyncService<http::Request<Full<Bytes>>, http::Response<AnswerBody>, BoxError>,
}

impl std::fmt::Debug for InProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InProcess")
    }
}

/// What can be a target in process: any `tower::Service` over `http::Request`, cloneable
/// and sendable, whose answers' bodies give bytes (an `axum::Router` is one). Implemented
/// for every such service; [`crate::Suite::run_service`] and the per-operation tests take
/// it.
pub trait IntoInProcess {
    /// The app, ready to be called from any task.
    fn into_in_process(self) -> InProcess;
}

impl<S, B> IntoInProcess for S
where
    S: Service<http::Request<Full<Bytes>>, Response = http::Response<B>>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    fn into_in_process(self) -> InProcess {
        fn boxed<E: Into<BoxError>>(e: E) -> BoxError {
            e.into()
        }
        let service = self
            .map_err(boxed::<S::Error>)
            .map_response(|r: http::Response<B>| {
                r.map(|b| b.map_err(boxed::<B::Error>).boxed_unsync())
            });
        InProcess {
            service: BoxCloneSyncService::new(service),
        }
    }
}

impl InProcess {
    /// Wraps `service`: it is called with each request's method, URI (path and query),
    /// headers and whole body, and its answer's body is read to its end.
    pub fn new(service: impl IntoInProcess) -> InProcess {
        service.into_in_process()
    }

    /// Hands `call` to the app and reads the answer within `timeout` and `max_body` bytes.
    pub(crate) async fn send(
        &self,
        call: Call<'_>,
        timeout: Duration,
        max_body: usize,
    ) -> Result<Answer, Failure> {
        let started = Instant::now();
        let request = build(call)?;
        let service = self.service.clone();
        let call = std::panic::AssertUnwindSafe(async move {
            let answer = service
                .oneshot(request)
                .await
                .map_err(|e| Failure::Broken(format!("the in-process app failed: {e}")))?;
            let (parts, mut body) = answer.into_parts();
            let mut read = Vec::new();
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|e| {
                    Failure::Broken(format!("the in-process app's body failed: {e}"))
                })?;
                if let Ok(data) = frame.into_data() {
                    if read.len() + data.len() > max_body {
                        return Err(Failure::TooLarge);
                    }
                    read.extend_from_slice(&data);
                }
            }
            Ok::<_, Failure>((parts, read))
        });
        // A handler that panics fails this request, not the run.
        let (parts, body) = match tokio::time::timeout(timeout, call.catch_unwind()).await {
            Err(_) => return Err(Failure::Timeout),
            Ok(Err(_)) => {
                return Err(Failure::Broken(
                    "the in-process app panicked while answering".to_string(),
                ));
            }
            Ok(Ok(answer)) => answer?,
        };
        let headers = parts
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        Ok(Answer {
            status: parts.status.as_u16(),
            headers,
            body,
            elapsed: started.elapsed(),
        })
    }
}

/// The `http::Request` of `call`: its URL's path and query as the URI, its host as `Host`,
/// its headers, and its body with its content type.
fn build(call: Call<'_>) -> Result<http::Request<Full<Bytes>>, Failure> {
    let bad = |e: &dyn std::fmt::Display| Failure::Broken(format!("cannot build the request: {e}"));
    let mut uri = call.url.path().to_string();
    if let Some(q) = call.url.query() {
        uri.push('?');
        uri.push_str(q);
    }
    let method = http::Method::from_bytes(call.method.as_bytes()).map_err(|e| bad(&e))?;
    let mut builder = http::Request::builder().method(method).uri(uri);
    if let Some(host) = call.url.host_str() {
        let host = match call.url.port() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_string(),
        };
        builder = builder.header(http::header::HOST, host);
    }
    for (k, v) in call.headers {
        builder = builder.header(k, v);
    }
    let body = match call.body {
        Some((ctype, bytes)) => {
            builder = builder.header(http::header::CONTENT_TYPE, ctype);
            Bytes::copy_from_slice(bytes)
        }
        None => Bytes::new(),
    };
    builder.body(Full::new(body)).map_err(|e| bad(&e))
}

/// A service that answers every request with `status` and an empty body (tests).
#[cfg(test)]
pub(crate) fn answering(status: u16) -> InProcess {
    InProcess::new(tower::service_fn(
        move |_req: http::Request<Full<Bytes>>| async move {
            Ok::<_, Infallible>(
                http::Response::builder()
                    .status(status)
                    .body(Full::new(Bytes::new()))
                    .unwrap(),
            )
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(path: &str) -> reqwest::Url {
        reqwest::Url::parse(&format!("{ORIGIN}{path}")).unwrap()
    }

    fn get(url: &reqwest::Url) -> Call<'_> {
        Call {
            method: "GET",
            url,
            headers: vec![("accept", "application/json"), ("x-extra", "1")],
            body: None,
        }
    }

    fn body(text: &'static [u8]) -> http::Response<Full<Bytes>> {
        http::Response::new(Full::new(Bytes::from_static(text)))
    }

    #[tokio::test]
    async fn the_app_sees_the_path_query_headers_and_host() {
        let app = InProcess::new(tower::service_fn(
            |req: http::Request<Full<Bytes>>| async move {
                let seen = format!(
                    "{} {} host={} accept={} x={}",
                    req.method(),
                    req.uri(),
                    req.headers()["host"].to_str().unwrap(),
                    req.headers()["accept"].to_str().unwrap(),
                    req.headers()["x-extra"].to_str().unwrap(),
                );
                Ok::<_, Infallible>(http::Response::new(Full::new(Bytes::from(seen))))
            },
        ));
        let at = url("/v1/things?a=1&b=x%20y");
        let r = app
            .send(get(&at), Duration::from_secs(5), 1 << 20)
            .await
            .unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(
            String::from_utf8(r.body).unwrap(),
            "GET /v1/things?a=1&b=x%20y host=in-process accept=application/json x=1"
        );
    }

    #[tokio::test]
    async fn a_panic_a_hang_and_a_flood_each_fail_their_request_only() {
        let at = url("/");
        let panics = InProcess::new(tower::service_fn(
            |_req: http::Request<Full<Bytes>>| async move {
                if true {
                    panic!("handler bug");
                }
                Ok::<_, Infallible>(body(b""))
            },
        ));
        let e = panics.send(get(&at), Duration::from_secs(5), 1 << 20).await;
        assert!(
            matches!(&e, Err(Failure::Broken(why)) if why.contains("panicked")),
            "{:?}",
            e.err()
        );
        let hangs = InProcess::new(tower::service_fn(
            |_req: http::Request<Full<Bytes>>| async move {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Ok::<_, Infallible>(body(b""))
            },
        ));
        let e = hangs
            .send(get(&at), Duration::from_millis(50), 1 << 20)
            .await;
        assert!(matches!(e, Err(Failure::Timeout)), "{:?}", e.err());
        let floods = InProcess::new(tower::service_fn(
            |_req: http::Request<Full<Bytes>>| async move { Ok::<_, Infallible>(body(&[b'x'; 4096])) },
        ));
        let e = floods.send(get(&at), Duration::from_secs(5), 1024).await;
        assert!(matches!(e, Err(Failure::TooLarge)), "{:?}", e.err());
        let fine = answering(204)
            .send(get(&at), Duration::from_secs(5), 1024)
            .await;
        assert_eq!(fine.map(|a| a.status).ok(), Some(204));
    }
}
