//! The generated client on the wire: every operation against an in-test axum server on
//! 127.0.0.1:0 that records what it receives and answers what the test tells it to.
//! Checks the exact request (method, path, query, headers, JSON body) and the decoding of
//! every kind of answer.

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::IntoResponse;
use serde_json::{Value, json};
use trading_api::models::{OAuthToken, ProductType, TotalBy, UpdateContactInfoName};
use trading_api::{Client, Constraint, Error};

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: Method,
    path: String,
    query: Option<String>,
    authorization: Option<String>,
    content_type: Option<String>,
    body: Bytes,
}

impl Seen {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
}

#[derive(Default)]
struct Shared {
    seen: Vec<Seen>,
    answer: (u16, String),
}

/// A server that records requests and replies with the configured status and body.
struct Recorder {
    shared: Arc<Mutex<Shared>>,
    base_url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Recorder {
    async fn start() -> Self {
        let shared = Arc::new(Mutex::new(Shared {
            seen: Vec::new(),
            answer: (200, "{}".into()),
        }));
        let state = shared.clone();
        let app = axum::Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let state = state.clone();
                async move {
                    let header = |name: &str| {
                        headers
                            .get(name)
                            .map(|v| v.to_str().unwrap_or("<non-ascii>").to_owned())
                    };
                    let mut shared = state.lock().unwrap();
                    shared.seen.push(Seen {
                        method,
                        path: uri.path().to_owned(),
                        query: uri.query().map(str::to_owned),
                        authorization: header("authorization"),
                        content_type: header("content-type"),
                        body,
                    });
                    let (status, body) = shared.answer.clone();
                    (
                        StatusCode::from_u16(status).unwrap(),
                        [("content-type", "application/json")],
                        body,
                    )
                        .into_response()
                }
            },
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self {
            shared,
            base_url: format!("http://{addr}/v1"),
            task,
        }
    }

    fn answer(&self, status: u16, body: impl Into<String>) {
        self.shared.lock().unwrap().answer = (status, body.into());
    }

    fn take(&self) -> Vec<Seen> {
        std::mem::take(&mut self.shared.lock().unwrap().seen)
    }

    fn only(&self) -> Seen {
        let mut seen = self.take();
        assert_eq!(seen.len(), 1, "exactly one request expected: {seen:?}");
        seen.remove(0)
    }

    fn client(&self) -> Client {
        let client = Client::new(self.base_url.as_str()).unwrap();
        client.set_bearer_token("tok-123").unwrap();
        client
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn grant(grant_type: &str) -> OAuthToken {
    OAuthToken {
        grant_type: grant_type.into(),
        code: None,
        redirect_uri: None,
        client_id: None,
        client_secret: None,
        http_auth: None,
        refresh_token: None,
        code_verifier: None,
        resource: None,
        assertion: None,
    }
}

fn limit_json(total_by: &str) -> Value {
    json!({
        "id": 11, "active": true, "totalBy": total_by, "riskCategoryId": 1,
        "contractId": 3001, "productType": "Futures", "productVerificationStatus": "Verified",
        "shortLimit": 50, "longLimit": 50, "exposedLimit": 100, "description": "Per-contract limit",
        "someFieldFromANewerServer": [1, 2, 3]
    })
}

#[tokio::test]
async fn exchange_token_sends_json_without_authorization() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(
        200,
        json!({"access_token": "AT", "refresh_token": "RT", "token_type": "Bearer",
               "expires_in": 5400, "refresh_token_expires_in": 5400, "error": "", "error_description": ""})
        .to_string(),
    );
    let request = OAuthToken {
        code: Some("the-code".into()),
        client_id: Some("demo-client".into()),
        client_secret: Some("s3cret".into()),
        redirect_uri: Some("http://127.0.0.1:3000/callback".into()),
        ..grant("authorization_code")
    };
    let token = client.exchange_token(&request).await.unwrap();
    let seen = server.only();
    assert_eq!(seen.method, Method::POST);
    assert_eq!(seen.path, "/v1/auth/oauthtoken");
    assert_eq!(seen.query, None);
    assert_eq!(
        seen.authorization, None,
        "the token exchange carries no Authorization"
    );
    assert_eq!(seen.content_type.as_deref(), Some("application/json"));
    assert_eq!(
        seen.json(),
        json!({"grant_type": "authorization_code", "code": "the-code",
               "redirect_uri": "http://127.0.0.1:3000/callback", "client_id": "demo-client",
               "client_secret": "s3cret"})
    );
    assert_eq!(token.access_token.as_deref(), Some("AT"));
    assert_eq!(token.expires_in, Some(5400));
    assert_eq!(token.error.as_deref(), Some(""));

    // Secrets never show in Debug, their presence does.
    let shown = format!("{request:?} {token:?}");
    for secret in ["the-code", "s3cret", "\"AT\"", "\"RT\""] {
        assert!(!shown.contains(secret), "{secret} leaked: {shown}");
    }
    assert!(
        shown.contains("<redacted>") && shown.contains("demo-client"),
        "{shown}"
    );
}

#[tokio::test]
async fn exchange_token_decodes_the_documented_400_body() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(
        400,
        r#"{"error":"invalid_grant","error_description":"expired"}"#,
    );
    let request = grant("authorization_code");
    match client.exchange_token(&request).await {
        Err(Error::Response(trading_api::client::ExchangeTokenError::BadRequest(body))) => {
            assert_eq!(body.error.as_deref(), Some("invalid_grant"));
            assert_eq!(body.access_token, None);
        }
        other => panic!("expected the documented 400, got {other:?}"),
    }
    server.answer(415, r#"{"errorText":"unsupported"}"#);
    let err = client.exchange_token(&request).await.unwrap_err();
    match err {
        Error::Response(e) => assert_eq!(e.status(), 415),
        other => panic!("expected 415, got {other:?}"),
    }
}

#[tokio::test]
async fn update_contact_info_name_sends_bearer_and_body() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(
        200,
        json!({"errorText": "", "contactInfo": {"id": 1, "userId": 1, "firstName": "Ada",
               "lastName": "Lovelace", "streetAddress1": "12 St James's Square", "city": "London",
               "country": "GB", "phone": "+44", "mailingIsDifferent": false}})
        .to_string(),
    );
    let body = UpdateContactInfoName {
        first_name: "Ada".into(),
        last_name: "Lovelace".into(),
        country: "GB".into(),
        phone: "+44".into(),
    };
    let answer = client.update_contact_info_name(&body).await.unwrap();
    let seen = server.only();
    assert_eq!(seen.method, Method::POST);
    assert_eq!(seen.path, "/v1/contactInfo/updatecontactinfoname");
    assert_eq!(seen.authorization.as_deref(), Some("Bearer tok-123"));
    assert_eq!(
        seen.json(),
        json!({"firstName": "Ada", "lastName": "Lovelace", "country": "GB", "phone": "+44"})
    );
    let info = answer.contact_info.unwrap();
    assert_eq!(
        (info.user_id, info.street_address1.as_str()),
        (1, "12 St James's Square")
    );
    assert_eq!(info.mailing_is_different, Some(false));
    assert_eq!(info.street_address2, None);

    // The business-level rejection is a 200 with errorText and no contactInfo.
    server.answer(200, r#"{"errorText":"too long"}"#);
    let rejected = client.update_contact_info_name(&body).await.unwrap();
    assert_eq!(rejected.error_text.as_deref(), Some("too long"));
    assert!(rejected.contact_info.is_none());
}

#[tokio::test]
async fn constraints_are_checked_before_sending() {
    let server = Recorder::start().await;
    let client = server.client();
    let name = |first: &str, last: &str| UpdateContactInfoName {
        first_name: first.into(),
        last_name: last.into(),
        country: "GB".into(),
        phone: "1".into(),
    };
    // 65 characters of one field: the field's maxLength, counted in chars, not bytes.
    let long = "é".repeat(65);
    match client.update_contact_info_name(&name(&long, "x")).await {
        Err(Error::Constraint(v)) => {
            assert_eq!(v.fields, ["firstName"]);
            assert_eq!(
                v.constraint,
                Constraint::MaxLength {
                    max: 64,
                    actual: 65
                }
            );
            assert!(!v.is_combined());
        }
        other => panic!("expected a maxLength violation, got {other:?}"),
    }
    // 64 two-byte characters are within maxLength; 30 + 31 break the combined rule.
    assert!(
        name(&"é".repeat(64), "")
            .validate()
            .is_err_and(|v| v.fields == ["lastName"])
    );
    match client
        .update_contact_info_name(&name(&"a".repeat(30), &"b".repeat(31)))
        .await
    {
        Err(Error::Constraint(v)) => {
            assert!(v.is_combined());
            assert_eq!(v.fields, ["firstName", "lastName"]);
            assert_eq!(
                v.constraint,
                Constraint::CombinedMaxLength {
                    max: 60,
                    actual: 61
                }
            );
        }
        other => panic!("expected the combined rule, got {other:?}"),
    }
    assert!(name(&"a".repeat(30), &"b".repeat(30)).validate().is_ok());
    match client.suggest_risk_categories("equit", -1).await {
        Err(Error::Constraint(v)) => assert_eq!(v.fields, ["l"]),
        other => panic!("expected a minimum violation, got {other:?}"),
    }
    match client.suggest_risk_categories("", 1).await {
        Err(Error::Constraint(v)) => {
            assert_eq!(v.constraint, Constraint::MinLength { min: 1, actual: 0 });
        }
        other => panic!("expected a minLength violation, got {other:?}"),
    }
    match client.find_exchange_scopes(&[]).await {
        Err(Error::Constraint(v)) => {
            assert_eq!(v.constraint, Constraint::MinItems { min: 1, actual: 0 });
        }
        other => panic!("expected a minItems violation, got {other:?}"),
    }
    assert!(
        server.take().is_empty(),
        "nothing may be sent when a constraint fails"
    );
}

#[tokio::test]
async fn list_category_position_limits_keeps_unknown_enum_values() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(
        200,
        json!([limit_json("Contract"), limit_json("PerMoonPhase")]).to_string(),
    );
    let limits = client.list_category_position_limits(1).await.unwrap();
    let seen = server.only();
    assert_eq!(seen.method, Method::GET);
    assert_eq!(seen.path, "/v1/categoryPositionLimit/deps");
    assert_eq!(seen.query.as_deref(), Some("masterid=1"));
    assert_eq!(seen.authorization.as_deref(), Some("Bearer tok-123"));
    assert!(seen.body.is_empty());
    assert_eq!(limits.len(), 2);
    assert_eq!(limits[0].total_by, TotalBy::Contract);
    assert_eq!(limits[0].product_type, Some(ProductType::Futures));
    assert_eq!(limits[1].total_by, TotalBy::Unknown("PerMoonPhase".into()));
    // The unknown value round-trips unchanged.
    let back = serde_json::to_value(&limits[1]).unwrap();
    assert_eq!(back["totalBy"], "PerMoonPhase");
    assert_eq!(limits[1].total_by.to_string(), "PerMoonPhase");
    assert_eq!("Contract".parse::<TotalBy>(), Ok(TotalBy::Contract));

    server.answer(401, r#"{"errorText":"Access is denied"}"#);
    match client.list_category_position_limits(1).await {
        Err(Error::Response(
            trading_api::client::ListCategoryPositionLimitsError::Unauthorized(e),
        )) => {
            assert_eq!(e.error_text, "Access is denied");
        }
        other => panic!("expected 401, got {other:?}"),
    }
}

#[tokio::test]
async fn get_category_position_limit_decodes_every_kind_of_answer() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(200, limit_json("Overall").to_string());
    let limit = client.get_category_position_limit(11).await.unwrap();
    let seen = server.only();
    assert_eq!(
        (seen.method, seen.path.as_str()),
        (Method::GET, "/v1/categoryPositionLimit/item")
    );
    assert_eq!(seen.query.as_deref(), Some("id=11"));
    assert_eq!(limit.id, Some(11));
    assert_eq!(limit.total_by, TotalBy::Overall);

    server.answer(
        404,
        r#"{"errorText":"no CategoryPositionLimit with id 999"}"#,
    );
    let err = client.get_category_position_limit(999).await.unwrap_err();
    assert!(matches!(
        &err,
        Error::Response(trading_api::client::GetCategoryPositionLimitError::NotFound(e))
            if e.error_text.contains("999")
    ));

    server.answer(500, "secret-bearing internal trace");
    match client.get_category_position_limit(1).await {
        Err(e @ Error::UnexpectedStatus { .. }) => {
            assert_eq!(e.status(), Some(500));
            assert!(
                !format!("{e:?} {e}").contains("secret-bearing"),
                "raw bodies stay out of Debug"
            );
            let Error::UnexpectedStatus { body, .. } = e else {
                unreachable!()
            };
            assert_eq!(body, "secret-bearing internal trace");
        }
        other => panic!("expected an undocumented status, got {other:?}"),
    }

    server.answer(200, r#"{"id": "eleven"}"#);
    match client.get_category_position_limit(1).await {
        Err(Error::Decode { status, body, .. }) => {
            assert_eq!(status, 200);
            assert_eq!(body, r#"{"id": "eleven"}"#);
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
    server.answer(404, "not json");
    assert!(matches!(
        client.get_category_position_limit(1).await,
        Err(Error::Decode { status: 404, .. })
    ));
}

#[tokio::test]
async fn find_exchange_scopes_repeats_the_name() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(
        200,
        r#"[{"id":1,"name":"CME"},{"id":2,"name":"CBOT","bundleOf":"X"}]"#,
    );
    let scopes = client
        .find_exchange_scopes(&["CME", "CBOT", "a b&c"])
        .await
        .unwrap();
    let seen = server.only();
    assert_eq!(seen.path, "/v1/marketDataSubscriptionExchangeScope/finds");
    assert_eq!(
        seen.query.as_deref(),
        Some("names=CME&names=CBOT&names=a+b%26c")
    );
    assert_eq!(scopes[1].bundle_of.as_deref(), Some("X"));
}

#[tokio::test]
async fn suggest_risk_categories_sends_t_and_l() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(
        200,
        r#"[{"id":1,"name":"Equities","riskCredit":250000.0,"organizationId":1}]"#,
    );
    let found = client.suggest_risk_categories("equit", 10).await.unwrap();
    let seen = server.only();
    assert_eq!(seen.path, "/v1/riskCategory/suggest");
    assert_eq!(seen.query.as_deref(), Some("t=equit&l=10"));
    assert_eq!(found[0].risk_credit, Some(250000.0));
}

#[tokio::test]
async fn bearer_token_can_be_replaced_and_cleared() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(200, "[]");
    client.set_bearer_token("second").unwrap();
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(
        server.only().authorization.as_deref(),
        Some("Bearer second")
    );
    client.clear_bearer_token();
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(server.only().authorization, None);
    assert!(client.set_bearer_token("bad\ntoken").is_err());
    client.set_bearer_token("hidden-token").unwrap();
    let shown = format!("{client:?}");
    assert!(
        !shown.contains("hidden-token") && shown.contains("<redacted>"),
        "{shown}"
    );
}

#[tokio::test]
async fn transport_failures_are_their_own_kind() {
    // Bind, learn the port, close: nothing listens there any more.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let client = Client::new(format!("http://{addr}/v1/")).unwrap();
    assert_eq!(client.base_url(), format!("http://{addr}/v1"));
    assert!(matches!(
        client.get_category_position_limit(1).await,
        Err(Error::Transport(_))
    ));
}
