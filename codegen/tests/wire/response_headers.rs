//! The generated server of `tests/specs/server/response_headers.yaml` on the wire: each
//! answer's declared headers arrive as the implementation set them, in `simple` style (a
//! list joined by commas, an object's properties as `key=value` pairs, an enum as its wire
//! value), an optional header left `None` is not sent, the headers the spec declares but
//! the server does not write (`Content-Type`, `Content-Length`) are the body's own, and a
//! value no header can carry is a 500 problem, never a panic or a header sent broken.

use gen_response_headers::models::{Error, GetRateOkXTier, GetRateOkXWindow, Rate};
use gen_response_headers::server::*;
use serde_json::{Value, json};

struct Rates;

fn rate(id: i64) -> Rate {
    serde_json::from_value(json!({"id": id, "value": 1.5})).unwrap()
}

fn message(m: &str) -> Error {
    serde_json::from_value(json!({ "message": m })).unwrap()
}

impl Api for Rates {
    async fn get_rate(&self, r: GetRateRequest) -> Result<GetRateResponse, Problem> {
        Ok(match r.id {
            // Every header set.
            1 => GetRateResponse::Ok {
                body: rate(1),
                headers: GetRateOkHeaders {
                    x_rate_limit: 99,
                    x_request_id: Some("req-1".to_owned()),
                    x_tags: Some(vec!["a".to_owned(), "b c".to_owned()]),
                    x_codes: vec![1, 2, 3],
                    x_tier: Some(GetRateOkXTier::Paid),
                    x_window: Some(GetRateOkXWindow {
                        from: Some(10),
                        to: Some(20),
                    }),
                },
            },
            // Only the required ones.
            2 => GetRateResponse::Ok {
                body: rate(2),
                headers: GetRateOkHeaders {
                    x_rate_limit: 0,
                    x_request_id: None,
                    x_tags: None,
                    x_codes: Vec::new(),
                    x_tier: None,
                    x_window: Some(GetRateOkXWindow::default()),
                },
            },
            // A value no header can carry.
            3 => GetRateResponse::Ok {
                body: rate(3),
                headers: GetRateOkHeaders {
                    x_rate_limit: 1,
                    x_request_id: Some("line\r\nSet-Cookie: evil=1".to_owned()),
                    x_tags: None,
                    x_codes: vec![1],
                    x_tier: None,
                    x_window: None,
                },
            },
            4 => GetRateResponse::Ok {
                body: rate(4),
                headers: GetRateOkHeaders {
                    x_rate_limit: 1,
                    x_request_id: None,
                    x_tags: Some(vec!["café".to_owned()]),
                    x_codes: vec![1],
                    x_tier: None,
                    x_window: None,
                },
            },
            _ => GetRateResponse::NotFound(message("no such rate")),
        })
    }

    async fn delete_rate(&self, r: DeleteRateRequest) -> Result<DeleteRateResponse, Problem> {
        if r.id == 404 {
            return Ok(DeleteRateResponse::NotFound);
        }
        Ok(DeleteRateResponse::NoContent {
            headers: DeleteRateNoContentHeaders {
                x_request_id: Some(format!("del-{}", r.id)),
                x_deleted_at: "2026-01-02T03:04:05Z".to_owned(),
            },
        })
    }

    async fn create_rate(&self, r: CreateRateRequest) -> Result<CreateRateResponse, Problem> {
        if r.body.value < 0.0 {
            return Ok(CreateRateResponse::Default {
                status: axum::http::StatusCode::CONFLICT,
                body: message("negative"),
                // Every header of this answer is optional: the struct has `Default`.
                headers: CreateRateDefaultHeaders::default(),
            });
        }
        Ok(CreateRateResponse::Created {
            headers: CreateRateCreatedHeaders {
                location: format!("/rates/{}", r.body.id),
            },
            body: r.body,
        })
    }
}

async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router(Rates)).await.unwrap() });
    format!("http://{addr}")
}

fn header<'a>(r: &'a reqwest::Response, name: &str) -> Option<&'a str> {
    r.headers().get(name).map(|v| v.to_str().unwrap())
}

#[tokio::test]
async fn the_declared_headers_arrive_on_the_wire() {
    let base = serve().await;
    let http = reqwest::Client::new();

    let r = http.get(format!("{base}/rates/1")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-rate-limit"), Some("99"));
    assert_eq!(header(&r, "x-request-id"), Some("req-1"));
    assert_eq!(header(&r, "x-tags"), Some("a,b c"), "a list, joined by commas");
    assert_eq!(header(&r, "x-codes"), Some("1,2,3"));
    assert_eq!(header(&r, "x-tier"), Some("paid"), "an enum as its wire value");
    assert_eq!(header(&r, "x-window"), Some("from=10,to=20"), "an object, exploded");
    assert_eq!(header(&r, "content-type"), Some("application/json"), "the body's own");
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"id": 1, "value": 1.5}));

    let r = http.get(format!("{base}/rates/2")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-rate-limit"), Some("0"));
    assert_eq!(header(&r, "x-codes"), Some(""), "an empty required list is an empty value");
    for absent in ["x-request-id", "x-tags", "x-tier", "x-window"] {
        assert_eq!(header(&r, absent), None, "{absent}: not set, not sent");
    }

    let r = http.get(format!("{base}/rates/9")).send().await.unwrap();
    assert_eq!(r.status(), 404, "an answer without headers is as it was");
    assert_eq!(header(&r, "x-rate-limit"), None);

    let r = http.delete(format!("{base}/rates/5")).send().await.unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(header(&r, "x-request-id"), Some("del-5"));
    assert_eq!(header(&r, "x-deleted-at"), Some("2026-01-02T03:04:05Z"));
    assert_eq!(r.bytes().await.unwrap().len(), 0, "headers and no body");
    let r = http.delete(format!("{base}/rates/404")).send().await.unwrap();
    assert_eq!(r.status(), 404);

    let r = http
        .post(format!("{base}/rates"))
        .json(&json!({"id": 7, "value": 2.0}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    assert_eq!(header(&r, "location"), Some("/rates/7"));
    let r = http
        .post(format!("{base}/rates"))
        .json(&json!({"id": 7, "value": -1.0}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 409, "the `default` answer's status");
    assert_eq!(header(&r, "x-request-id"), None);
    assert_eq!(r.json::<Value>().await.unwrap()["message"], "negative");
}

#[tokio::test]
async fn a_value_no_header_can_carry_is_a_500_problem() {
    let base = serve().await;
    let http = reqwest::Client::new();
    for (id, name) in [(3, "X-Request-Id"), (4, "X-Tags")] {
        let r = http.get(format!("{base}/rates/{id}")).send().await.unwrap();
        assert_eq!(r.status(), 500, "{name}");
        assert_eq!(header(&r, "content-type"), Some("application/problem+json"));
        assert_eq!(header(&r, "set-cookie"), None, "no header smuggled in");
        assert_eq!(header(&r, "x-rate-limit"), None, "none of the answer's headers");
        let problem: Value = r.json().await.unwrap();
        assert!(
            problem["detail"].as_str().unwrap().contains(&format!("`{name}`")),
            "{problem}"
        );
    }
}
