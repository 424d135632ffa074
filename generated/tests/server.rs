//! The generated server half (`src/server.rs`, feature `server`) on the wire: a small
//! implementation of two operations served by the generated `router` on 127.0.0.1:0,
//! called by the generated client (the same reading of the spec on both ends) and by raw
//! requests that break the spec one constraint at a time, each of which must get the
//! operation's declared 400 in the spec's error schema before the implementation sees it;
//! then the protocol's own answers (404, 405 with `Allow`, 413, 415), the 501 of an
//! operation left unwritten and the 500 of one that panics.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use trading_api::Client;
use trading_api::models::{CategoryPositionLimit, ContactInfo, UpdateContactInfoName};
use trading_api::server::{
    Api, Credentials, GetCategoryPositionLimitRequest, GetCategoryPositionLimitResponse,
    ListCategoryPositionLimitsRequest, ListCategoryPositionLimitsResponse, Operation, Problem,
    UpdateContactInfoNameRequest, UpdateContactInfoNameResponse, router_with,
};

/// Two operations written (and a third that panics), the rest left to the trait's 501; every request the
/// implementation sees is kept, so a test can prove a refused one never reached it.
#[derive(Default, Clone)]
struct Small {
    seen: Arc<Mutex<Vec<String>>>,
}

impl Api for Small {
    async fn list_category_position_limits(
        &self,
        request: ListCategoryPositionLimitsRequest,
    ) -> Result<ListCategoryPositionLimitsResponse, Problem> {
        self.seen
            .lock()
            .unwrap()
            .push(format!("deps {}", request.masterid));
        let token = request
            .credentials
            .bearer_auth
            .as_ref()
            .map(|t| t.expose().to_owned());
        let limit: CategoryPositionLimit = serde_json::from_value(json!({
            "id": 7, "active": true, "totalBy": "Contract",
            "riskCategoryId": request.masterid, "description": token.unwrap_or_default()
        }))
        .expect("a limit");
        Ok(ListCategoryPositionLimitsResponse::Ok(vec![limit]))
    }

    async fn update_contact_info_name(
        &self,
        request: UpdateContactInfoNameRequest,
    ) -> Result<UpdateContactInfoNameResponse, Problem> {
        self.seen
            .lock()
            .unwrap()
            .push(format!("contact {}", request.body.first_name));
        let info: ContactInfo = serde_json::from_value(json!({
            "id": 1, "userId": 9, "streetAddress1": "1 Main St", "city": "London", "firstName": request.body.first_name, "lastName": request.body.last_name,
            "country": request.body.country, "phone": request.body.phone
        }))
        .expect("a contact");
        let body = serde_json::from_value(json!({"errorText": "", "contactInfo": info}))
            .expect("an answer");
        Ok(UpdateContactInfoNameResponse::Ok(body))
    }

    /// An implementation's bug: the router must still answer, and go on serving.
    async fn get_category_position_limit(
        &self,
        request: GetCategoryPositionLimitRequest,
    ) -> Result<GetCategoryPositionLimitResponse, Problem> {
        panic!("a bug in the implementation (id {})", request.id)
    }
}

/// Refuses, before anything is judged, a request of an operation that asks for a
/// credential and sent none; writes no operation itself.
struct Guarded;

impl Api for Guarded {
    async fn authorize(
        &self,
        operation: Operation,
        credentials: &Credentials,
    ) -> Result<(), Problem> {
        let anonymous = operation.security.is_empty() || operation.security.contains(&&[][..]);
        if anonymous || credentials.bearer_auth.is_some() {
            return Ok(());
        }
        Err(Problem::new(
            axum::http::StatusCode::UNAUTHORIZED,
            format!("{} asks for {:?}", operation.method, operation.security),
        ))
    }
}

#[tokio::test]
async fn authorize_answers_before_the_request_is_judged() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router_with(Guarded, 4096)).await });
    let http = reqwest::Client::new();
    let broken = format!("{base}/categoryPositionLimit/deps?masterid=not-a-number");
    let r = http.get(&broken).send().await.unwrap();
    assert_eq!(
        r.status(),
        401,
        "no credential: refused before the masterid is judged"
    );
    let problem: Value = r.json().await.unwrap();
    assert_eq!(
        problem["detail"], "list_category_position_limits asks for [[\"bearerAuth\"]]",
        "{problem}"
    );
    let r = http.get(&broken).bearer_auth("t").send().await.unwrap();
    assert_eq!(r.status(), 400, "with one, the request is judged");
    // The token exchange asks for no credential (`security: []`): judged at once.
    let r = http
        .post(format!("{base}/auth/oauthtoken"))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
}

/// The router served on a loopback port of the OS's choosing, with a small body limit.
async fn serve(api: Small) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, router_with(api, 4096)).await.unwrap();
    });
    format!("http://{addr}")
}

#[tokio::test]
async fn the_generated_client_calls_the_generated_server() {
    let api = Small::default();
    let base = serve(api.clone()).await;
    let client = Client::new(base).unwrap();
    client.set_bearer_auth("tok-1").unwrap();
    let limits = client
        .list_category_position_limits(42)
        .await
        .expect("a success the client decodes")
        .into_inner();
    assert_eq!(limits.len(), 1);
    assert_eq!(limits[0].risk_category_id, 42);
    assert_eq!(
        limits[0].description.as_deref(),
        Some("tok-1"),
        "the credential reaches the implementation"
    );
    let body = UpdateContactInfoName::builder()
        .first_name("Ada")
        .last_name("Lovelace")
        .country("GB")
        .phone("+44 20 7946 0000")
        .build();
    let answer = client
        .update_contact_info_name(&body)
        .await
        .expect("a success")
        .into_inner();
    assert_eq!(answer.contact_info.unwrap().first_name, "Ada");
    assert_eq!(
        *api.seen.lock().unwrap(),
        ["deps 42", "contact Ada"],
        "each call reached the implementation once"
    );
}

/// Every constraint kind the spec's two operations hold, broken alone: each answer is the
/// declared 400 in the spec's `ErrorResponse` (a non-empty `errorText`), and none reached
/// the implementation.
#[tokio::test]
async fn a_request_breaking_each_constraint_gets_the_declared_400() {
    let api = Small::default();
    let base = serve(api.clone()).await;
    let http = reqwest::Client::new();
    let valid = json!({"firstName": "Ada", "lastName": "Lovelace", "country": "GB", "phone": "1"});
    let with = |k: &str, v: Value| {
        let mut b = valid.clone();
        b[k] = v;
        b
    };
    let mut without = valid.clone();
    without.as_object_mut().unwrap().remove("phone");
    let cases: Vec<(&str, reqwest::RequestBuilder)> = vec![
        (
            "a required query parameter missing",
            http.get(format!("{base}/categoryPositionLimit/deps")),
        ),
        (
            "a query value of the wrong type",
            http.get(format!("{base}/categoryPositionLimit/deps?masterid=abc")),
        ),
        (
            "an integer past int64",
            http.get(format!(
                "{base}/categoryPositionLimit/deps?masterid=9223372036854775808"
            )),
        ),
        (
            "a required body field missing",
            http.post(format!("{base}/contactInfo/updatecontactinfoname"))
                .json(&without),
        ),
        (
            "a body field of the wrong type",
            http.post(format!("{base}/contactInfo/updatecontactinfoname"))
                .json(&with("country", json!(5))),
        ),
        (
            "a string over its maxLength",
            http.post(format!("{base}/contactInfo/updatecontactinfoname"))
                .json(&with("firstName", json!("x".repeat(65)))),
        ),
        (
            "a string under its minLength",
            http.post(format!("{base}/contactInfo/updatecontactinfoname"))
                .json(&with("firstName", json!(""))),
        ),
        (
            "a body that is not JSON",
            http.post(format!("{base}/contactInfo/updatecontactinfoname"))
                .header("content-type", "application/json")
                .body("{"),
        ),
        (
            "no body where one is required",
            http.post(format!("{base}/contactInfo/updatecontactinfoname")),
        ),
    ];
    for (what, request) in cases {
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 400, "{what}");
        assert_eq!(
            response.headers()["content-type"],
            "application/json",
            "{what}: the declared media type"
        );
        let body: Value = response.json().await.unwrap();
        let text = body["errorText"].as_str().unwrap_or_default();
        assert!(
            !text.is_empty(),
            "{what}: the spec's ErrorResponse, got {body}"
        );
    }
    assert!(
        api.seen.lock().unwrap().is_empty(),
        "no refused request reached the implementation"
    );
}

#[tokio::test]
async fn the_protocol_answers_come_before_the_implementation() {
    let api = Small::default();
    let base = serve(api.clone()).await;
    let http = reqwest::Client::new();
    let contact = format!("{base}/contactInfo/updatecontactinfoname");

    let r = http.get(format!("{base}/nowhere")).send().await.unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(r.headers()["content-type"], "application/problem+json");

    let r = http.delete(&contact).send().await.unwrap();
    assert_eq!(r.status(), 405);
    assert_eq!(r.headers()["allow"], "POST");
    let problem: Value = r.json().await.unwrap();
    assert_eq!(problem["status"], 405, "problem details: {problem}");

    let r = http
        .post(&contact)
        .header("content-type", "text/plain")
        .body("firstName=Ada")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 415);

    let r = http
        .post(&contact)
        .header("content-type", "application/json")
        .body(format!("{{\"firstName\": \"{}\"}}", "x".repeat(5000)))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413, "past the router's 4096-byte limit");

    let r = http
        .get(format!("{base}/riskCategory/suggest?t=a&l=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 501, "an operation left to the trait's default");
    let problem: Value = r.json().await.unwrap();
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("suggest_risk_categories"),
        "{problem}"
    );
    assert!(api.seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_panicking_implementation_answers_500_and_the_server_goes_on() {
    let base = serve(Small::default()).await;
    let http = reqwest::Client::new();
    let r = http
        .get(format!("{base}/categoryPositionLimit/item?id=3"))
        .send()
        .await
        .expect("an answer, not a dropped connection");
    assert_eq!(r.status(), 500);
    assert_eq!(r.headers()["content-type"], "application/problem+json");
    let problem: Value = r.json().await.unwrap();
    assert_eq!(problem["status"], 500, "{problem}");
    let r = http
        .get(format!("{base}/categoryPositionLimit/deps?masterid=4"))
        .bearer_auth("t")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "the next request is served");
}
