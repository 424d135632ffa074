//! The generated client on the wire: every operation against an in-test axum server on
//! 127.0.0.1:0 that records what it receives and answers what the test tells it to.
//! Checks the exact request (method, path, query, headers, JSON body) and the decoding of
//! every kind of answer: a table drives every operation through every response status the
//! spec documents for it, undecodable bodies on those statuses, and statuses it does not
//! document.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::IntoResponse;
use serde_json::{Value, json};
use trading_api::client::{
    ExchangeTokenError, FindExchangeScopesError, GetCategoryPositionLimitError,
    ListCategoryPositionLimitsError, SuggestRiskCategoriesError, UpdateContactInfoNameError,
};
use trading_api::models::{OAuthToken, ProductType, TotalBy, UpdateContactInfoName};
use trading_api::{Client, Constraint, Error};

/// The bearer token [`Recorder::client`] sets, and so the one secured requests must carry.
const TOKEN: &str = "tok-123";

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: Method,
    path: String,
    query: Option<String>,
    /// Every header as received: an absent or a repeated header is visible, not just the
    /// first value of a few chosen ones.
    headers: HeaderMap,
    body: Bytes,
}

/// The exact request an operation must send. One value states all of it, so no test can
/// check the parts it remembered and forget the rest.
struct Expected<'a> {
    method: Method,
    path: &'a str,
    /// The raw query string as sent (order and encoding included), `None` for no `?` at all.
    query: Option<&'a str>,
    /// The token of a secured operation. `None` for `security: []`: no `Authorization` may
    /// be sent, even though the client holds a token.
    bearer: Option<&'a str>,
    /// The JSON body. `None` for a request without one, which then sends no Content-Type.
    body: Option<Value>,
}

impl Seen {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }

    /// Every value of header `name`, in order: empty when absent, several when repeated.
    fn header(&self, name: &str) -> Vec<&str> {
        self.headers
            .get_all(name)
            .iter()
            .map(|value| value.to_str().unwrap_or("<non-ascii>"))
            .collect()
    }

    /// Asserts this is exactly the `expected` request: method, path, raw query,
    /// Authorization, Content-Type and body. JSON bodies compare as parsed values, so key
    /// order and whitespace are free but every key and value, nulls included, is not.
    /// A failure points at the calling test.
    #[track_caller]
    fn assert_is(&self, expected: &Expected) {
        let what = format!("{} {}", expected.method, expected.path);
        assert_eq!(self.method, expected.method, "method of {what}");
        assert_eq!(self.path, expected.path, "path of {what}");
        assert_eq!(self.query.as_deref(), expected.query, "query of {what}");
        let authorization = expected.bearer.map(|token| format!("Bearer {token}"));
        assert_eq!(
            self.header("authorization"),
            Vec::from_iter(authorization.as_deref()),
            "Authorization of {what}"
        );
        match &expected.body {
            Some(body) => {
                assert_eq!(
                    self.header("content-type"),
                    ["application/json"],
                    "Content-Type of {what}"
                );
                assert_eq!(&self.json(), body, "body of {what}");
            }
            None => {
                assert_eq!(
                    self.header("content-type"),
                    Vec::<&str>::new(),
                    "{what} has no body, so no Content-Type"
                );
                assert!(
                    self.body.is_empty(),
                    "{what} sends no body: {:?}",
                    self.body
                );
            }
        }
    }
}

/// What the server answers: status, content type and raw body bytes.
#[derive(Clone)]
struct Answer {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
}

struct Shared {
    seen: Vec<Seen>,
    answer: Answer,
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
            answer: Answer {
                status: 200,
                content_type: "application/json",
                body: b"{}".to_vec(),
            },
        }));
        let state = shared.clone();
        let app = axum::Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let state = state.clone();
                async move {
                    let mut shared = state.lock().unwrap();
                    shared.seen.push(Seen {
                        method,
                        path: uri.path().to_owned(),
                        query: uri.query().map(str::to_owned),
                        headers,
                        body,
                    });
                    let Answer {
                        status,
                        content_type,
                        body,
                    } = shared.answer.clone();
                    (
                        StatusCode::from_u16(status).unwrap(),
                        [("content-type", content_type)],
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

    /// Answers `status` with a JSON content type and `body`.
    fn answer(&self, status: u16, body: impl Into<String>) {
        self.answer_raw(status, "application/json", body.into());
    }

    /// Answers `status` with any content type and any bytes.
    fn answer_raw(&self, status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) {
        self.shared.lock().unwrap().answer = Answer {
            status,
            content_type,
            body: body.into(),
        };
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
        client.set_bearer_token(TOKEN).unwrap();
        client
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn grant(grant_type: &str) -> OAuthToken {
    OAuthToken::new(grant_type)
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
    let request = OAuthToken::authorization_code(
        "the-code",
        "demo-client",
        "s3cret",
        "http://127.0.0.1:3000/callback",
    );
    let token = client.exchange_token(&request).await.unwrap();
    server.only().assert_is(&Expected {
        method: Method::POST,
        path: "/v1/auth/oauthtoken",
        query: None,
        // `security: []`: the token the client holds must stay off this request.
        bearer: None,
        body: Some(json!({
            "grant_type": "authorization_code", "code": "the-code",
            "redirect_uri": "http://127.0.0.1:3000/callback", "client_id": "demo-client",
            "client_secret": "s3cret"
        })),
    });
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
async fn exchange_token_form_sends_the_same_grant_form_encoded() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(
        200,
        json!({"access_token": "AT", "token_type": "Bearer"}).to_string(),
    );
    let request = grant("authorization_code")
        .with_code("the code&more")
        .with_client_id("demo-client");
    let token = client.exchange_token_form(&request).await.unwrap();
    let seen = server.only();
    assert_eq!(seen.method, Method::POST);
    assert_eq!(seen.path, "/v1/auth/oauthtoken");
    assert_eq!(seen.query, None);
    assert_eq!(seen.header("authorization"), Vec::<&str>::new());
    assert_eq!(
        seen.header("content-type"),
        ["application/x-www-form-urlencoded"]
    );
    assert_eq!(
        std::str::from_utf8(&seen.body).unwrap(),
        "grant_type=authorization_code&code=the+code%26more&client_id=demo-client"
    );
    assert_eq!(token.access_token.as_deref(), Some("AT"));
}

/// An error's `Display` shows the status and the start of what the server said, with
/// the fields the spec marks `x-secret` (here the authorization code) masked, also
/// where a message quotes them; `Debug` shows no body at all.
#[tokio::test]
async fn an_error_shows_the_servers_words_without_the_secrets_it_echoes() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(
        400,
        json!({"error": "invalid_grant",
               "error_description": "code the-code-77 was already used",
               "code": "the-code-77", "client_secret": "s3cret"})
        .to_string(),
    );
    let request = OAuthToken::authorization_code(
        "the-code-77",
        "demo-client",
        "s3cret",
        "http://127.0.0.1:3000/callback",
    );
    let err = client.exchange_token(&request).await.unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.starts_with("documented error answer, status 400 Bad Request: {"),
        "{shown}"
    );
    assert!(shown.contains(r#""error":"invalid_grant""#), "{shown}");
    assert!(
        shown.contains("code <redacted> was already used"),
        "{shown}"
    );
    let debug = format!("{err:?}");
    for secret in ["the-code-77", "s3cret"] {
        assert!(!shown.contains(secret), "{secret} in Display: {shown}");
        assert!(!debug.contains(secret), "{secret} in Debug: {debug}");
    }
    // The body itself is kept, exactly as sent, for a caller who asks for it.
    assert!(err.excerpt(1_000).unwrap().contains("the-code-77"));
}

#[tokio::test]
async fn an_answer_over_the_size_cap_is_refused_unread() {
    let server = Recorder::start().await;
    let mut client = server.client();
    assert_eq!(
        client.max_response_bytes(),
        Client::DEFAULT_MAX_RESPONSE_BYTES
    );
    client.set_max_response_bytes(16);
    server.answer(200, format!("[{}]", "1,".repeat(20) + "1"));
    match client.list_category_position_limits(1).await {
        Err(
            err @ Error::BodyTooLarge {
                status: StatusCode::OK,
                limit: 16,
                ..
            },
        ) => {
            assert_eq!(err.status(), Some(StatusCode::OK));
            assert_eq!(
                err.headers().unwrap()["content-type"],
                "application/json",
                "the headers of a refused answer are kept"
            );
        }
        other => panic!("expected BodyTooLarge, got {other:?}"),
    }
    // At the cap exactly, the body is read.
    server.answer(200, "[]");
    client.set_max_response_bytes(2);
    assert_eq!(
        client
            .list_category_position_limits(1)
            .await
            .unwrap()
            .into_inner(),
        []
    );
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
    let body = UpdateContactInfoName::builder()
        .first_name("Ada")
        .last_name("Lovelace")
        .country("GB")
        .phone("+44")
        .build();
    let answer = client.update_contact_info_name(&body).await.unwrap();
    server.only().assert_is(&Expected {
        method: Method::POST,
        path: "/v1/contactInfo/updatecontactinfoname",
        query: None,
        bearer: Some(TOKEN),
        body: Some(
            json!({"firstName": "Ada", "lastName": "Lovelace", "country": "GB", "phone": "+44"}),
        ),
    });
    let info = answer.into_inner().contact_info.unwrap();
    assert_eq!(
        (info.user_id, info.street_address1.as_str()),
        (1, "12 St James's Square")
    );
    assert_eq!(info.mailing_is_different, Some(false));
    assert_eq!(info.street_address2, None);

    // The business-level rejection is a 200 with errorText and no contactInfo: an error
    // (`x-business-error`), carrying the decoded body, status and headers.
    server.answer(200, r#"{"errorText":"too long"}"#);
    match client.update_contact_info_name(&body).await {
        Err(
            ref err @ Error::Business {
                status,
                ref headers,
                field,
                error:
                    UpdateContactInfoNameError::Rejected {
                        status: s,
                        ref body,
                    },
                body: ref raw,
            },
        ) => {
            assert_eq!(
                (status, s, field),
                (StatusCode::OK, StatusCode::OK, "errorText")
            );
            assert_eq!(raw.as_slice(), br#"{"errorText":"too long"}"#);
            assert_eq!(err.body(), Some(raw.as_slice()));
            assert_eq!(headers["content-type"], "application/json");
            assert_eq!(body.error_text.as_deref(), Some("too long"));
            assert!(body.contact_info.is_none());
            assert_eq!(
                err.to_string(),
                r#"request rejected: status 200 OK with a non-empty `errorText`: {"errorText":"too long"}"#
            );
        }
        other => panic!("expected Error::Business, got {other:?}"),
    }
}

#[tokio::test]
async fn constraints_are_checked_before_sending() {
    let server = Recorder::start().await;
    let client = server.client();
    let name = |first: &str, last: &str| {
        UpdateContactInfoName::builder()
            .first_name(first)
            .last_name(last)
            .country("GB")
            .phone("1")
            .build()
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
async fn with_checks_off_the_arguments_reach_the_server_and_its_answer_is_the_error() {
    let server = Recorder::start().await;
    let mut client = server.client();
    assert!(client.check_arguments());
    client.set_check_arguments(false);
    assert!(!client.check_arguments());
    // The combined rule broken (70 > 60): sent as given, and the server's rejection in a
    // 200 body is `Error::Business`.
    server.answer(200, r#"{"errorText":"names too long"}"#);
    let long = UpdateContactInfoName::builder()
        .first_name("a".repeat(40))
        .last_name("b".repeat(30))
        .country("GB")
        .phone("1")
        .build();
    match client.update_contact_info_name(&long).await {
        Err(Error::Business { field, .. }) => assert_eq!(field, "errorText"),
        other => panic!("expected Error::Business, got {other:?}"),
    }
    let seen = server.only();
    let body: Value = serde_json::from_slice(&seen.body).unwrap();
    assert_eq!(body["firstName"], "a".repeat(40));
    // A parameter below its minimum goes out too; the server's 400 is the error.
    server.answer(400, r#"{"errorText":"l must be positive"}"#);
    match client.suggest_risk_categories("equit", -1).await {
        Err(err @ Error::Response { .. }) => {
            assert_eq!(err.status(), Some(StatusCode::BAD_REQUEST))
        }
        other => panic!("expected the server's 400, got {other:?}"),
    }
    assert_eq!(server.only().query.as_deref(), Some("t=equit&l=-1"));
    // The switch is the client's own: a builder sets it too, clones keep it.
    let built = Client::builder(server.base_url.as_str())
        .check_arguments(false)
        .build()
        .unwrap();
    assert!(!built.clone().check_arguments());
    assert!(
        Client::new(server.base_url.as_str())
            .unwrap()
            .check_arguments()
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
    server.only().assert_is(&Expected {
        method: Method::GET,
        path: "/v1/categoryPositionLimit/deps",
        query: Some("masterid=1"),
        bearer: Some(TOKEN),
        body: None,
    });
    assert_eq!(limits.len(), 2);
    assert_eq!(limits[0].total_by, TotalBy::Contract);
    assert_eq!(limits[0].product_type, Some(ProductType::Futures));
    assert_eq!(limits[1].total_by, TotalBy::Unknown("PerMoonPhase".into()));
    // The unknown value round-trips unchanged.
    let back = serde_json::to_value(&limits[1]).unwrap();
    assert_eq!(back["totalBy"], "PerMoonPhase");
    assert_eq!(limits[1].total_by.to_string(), "PerMoonPhase");
    assert_eq!("Contract".parse::<TotalBy>(), Ok(TotalBy::Contract));
}

#[tokio::test]
async fn get_category_position_limit_sends_the_id() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(200, limit_json("Overall").to_string());
    let limit = client.get_category_position_limit(11).await.unwrap();
    server.only().assert_is(&Expected {
        method: Method::GET,
        path: "/v1/categoryPositionLimit/item",
        query: Some("id=11"),
        bearer: Some(TOKEN),
        body: None,
    });
    assert_eq!(limit.id, Some(11));
    assert_eq!(limit.total_by, TotalBy::Overall);
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
    server.only().assert_is(&Expected {
        method: Method::GET,
        path: "/v1/marketDataSubscriptionExchangeScope/finds",
        // One `names=` per item, in order, form-encoded.
        query: Some("names=CME&names=CBOT&names=a+b%26c"),
        bearer: Some(TOKEN),
        body: None,
    });
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
    server.only().assert_is(&Expected {
        method: Method::GET,
        path: "/v1/riskCategory/suggest",
        query: Some("t=equit&l=10"),
        bearer: Some(TOKEN),
        body: None,
    });
    assert_eq!(found[0].risk_credit, Some(250000.0));
}

#[tokio::test]
async fn bearer_token_can_be_replaced_and_cleared() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(200, "[]");
    client.set_bearer_token("second").unwrap();
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(server.only().header("authorization"), ["Bearer second"]);
    client.clear_bearer_token();
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(
        server.only().header("authorization"),
        Vec::<&str>::new(),
        "a cleared token sends no Authorization"
    );
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

#[tokio::test]
async fn a_stalled_server_fails_with_a_timeout_within_the_configured_time() {
    // Accepts connections and never answers: without a timeout the call would hang.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stall = tokio::spawn(async move {
        let mut held = Vec::new();
        loop {
            let (socket, _) = listener.accept().await.unwrap();
            held.push(socket);
        }
    });
    let limit = std::time::Duration::from_millis(300);
    let client = Client::builder(format!("http://{addr}/v1"))
        .timeout(Some(limit))
        .build()
        .unwrap();
    assert_eq!(client.timeout(), Some(limit));
    let started = std::time::Instant::now();
    let err = client.get_category_position_limit(1).await.unwrap_err();
    let took = started.elapsed();
    assert!(err.is_timeout(), "{err:?}");
    assert!(err.to_string().starts_with("request timed out"), "{err}");
    assert!(
        took >= limit && took < limit * 10,
        "timed out after {took:?}, configured {limit:?}"
    );
    // The setter applies to a client built around the caller's reqwest::Client too.
    let mut client = Client::with_client(format!("http://{addr}/v1"), reqwest::Client::new());
    assert_eq!(client.timeout(), Some(Client::DEFAULT_TIMEOUT));
    client.set_timeout(Some(limit));
    let started = std::time::Instant::now();
    assert!(
        client
            .list_category_position_limits(1)
            .await
            .unwrap_err()
            .is_timeout()
    );
    assert!(started.elapsed() < limit * 10);
    stall.abort();
}

#[test]
fn defaults_cannot_hang_and_are_documented_values() {
    let client = Client::new("http://127.0.0.1:9/v1").unwrap();
    assert_eq!(client.timeout(), Some(std::time::Duration::from_secs(30)));
    assert_eq!(
        Client::DEFAULT_CONNECT_TIMEOUT,
        std::time::Duration::from_secs(10)
    );
    assert_eq!(
        Client::DEFAULT_USER_AGENT,
        format!("trading-api/{}", env!("CARGO_PKG_VERSION"))
    );
    let shown = format!("{client:?}");
    assert!(shown.contains("timeout: Some(30s)"), "{shown}");
}

#[tokio::test]
async fn every_request_names_the_crate_and_accepts_the_documented_media_types() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(200, "[]");
    client.list_category_position_limits(1).await.unwrap();
    let seen = server.only();
    assert_eq!(
        seen.header("user-agent"),
        [format!("trading-api/{}", env!("CARGO_PKG_VERSION")).as_str()]
    );
    assert_eq!(seen.header("accept"), ["application/json"]);
    // A builder's User-Agent replaces the default.
    let client = Client::builder(server.base_url.as_str())
        .user_agent("my-app/2.0")
        .build()
        .unwrap();
    client.set_bearer_token(TOKEN).unwrap();
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(server.only().header("user-agent"), ["my-app/2.0"]);
}

#[tokio::test]
async fn status_and_headers_come_with_successes_and_errors() {
    let server = Recorder::start().await;
    let client = server.client();
    server.answer(200, limit_json("Overall").to_string());
    let limit = client.get_category_position_limit(11).await.unwrap();
    assert_eq!(limit.status(), StatusCode::OK);
    assert_eq!(limit.headers()["content-type"], "application/json");
    // Deref reaches the body's fields; into_parts hands everything back.
    assert_eq!(limit.id, Some(11));
    let (status, headers, body) = limit.into_parts();
    assert_eq!((status, body.id), (StatusCode::OK, Some(11)));
    assert!(headers.contains_key("content-length"));

    server.answer(404, error_body("no such id").to_string());
    let err = client.get_category_position_limit(999).await.unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::NOT_FOUND));
    assert_eq!(err.headers().unwrap()["content-type"], "application/json");
    assert!(matches!(
        err.documented(),
        Some(GetCategoryPositionLimitError::NotFound(body)) if body.error_text == "no such id"
    ));
    // Display names the status and shows the start of the body.
    assert_eq!(
        err.to_string(),
        r#"documented error answer, status 404 Not Found: {"errorText":"no such id"}"#
    );

    // A body that does not decode keeps the serde error as `source()`, for error chains.
    server.answer(200, "{\"id\": \"not a number\"}");
    let err = client.get_category_position_limit(11).await.unwrap_err();
    let source = std::error::Error::source(&err).expect("Decode has a source");
    assert!(
        source.downcast_ref::<serde_json::Error>().is_some(),
        "{source}"
    );
    // Display says where it failed, and shows the body it could not read.
    assert!(
        err.to_string()
            .ends_with(r#"at `id`: a value of the wrong type or shape at line 1 column 21 (22 bytes of body): {"id": "not a number"}"#),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------
// The status table: every (operation, documented status) pair, decoded on the wire.
// ---------------------------------------------------------------------------------------

/// The six operations, each called with valid arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    ExchangeToken,
    UpdateContactInfoName,
    ListCategoryPositionLimits,
    GetCategoryPositionLimit,
    FindExchangeScopes,
    SuggestRiskCategories,
}

impl Op {
    const ALL: [Op; 6] = [
        Op::ExchangeToken,
        Op::UpdateContactInfoName,
        Op::ListCategoryPositionLimits,
        Op::GetCategoryPositionLimit,
        Op::FindExchangeScopes,
        Op::SuggestRiskCategories,
    ];

    fn operation_id(self) -> &'static str {
        match self {
            Op::ExchangeToken => "exchangeToken",
            Op::UpdateContactInfoName => "updateContactInfoName",
            Op::ListCategoryPositionLimits => "listCategoryPositionLimits",
            Op::GetCategoryPositionLimit => "getCategoryPositionLimit",
            Op::FindExchangeScopes => "findExchangeScopes",
            Op::SuggestRiskCategories => "suggestRiskCategories",
        }
    }

    /// Calls the operation once and reduces whatever comes back to an [`Outcome`].
    async fn call(self, client: &Client) -> Outcome {
        match self {
            Op::ExchangeToken => outcome(client.exchange_token(&grant("refresh_token")).await),
            Op::UpdateContactInfoName => {
                let body = UpdateContactInfoName::builder()
                    .first_name("Ada")
                    .last_name("Lovelace")
                    .country("GB")
                    .phone("+44")
                    .build();
                outcome(client.update_contact_info_name(&body).await)
            }
            Op::ListCategoryPositionLimits => {
                outcome(client.list_category_position_limits(1).await)
            }
            Op::GetCategoryPositionLimit => outcome(client.get_category_position_limit(11).await),
            Op::FindExchangeScopes => outcome(client.find_exchange_scopes(&["CME"]).await),
            Op::SuggestRiskCategories => outcome(client.suggest_risk_categories("equit", 10).await),
        }
    }
}

/// What one call produced, in a form a table can state exactly.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// The success value, serialized back to JSON.
    Ok(Value),
    /// `Error::Response`: the variant's `status()`, its name, and its decoded body.
    Response(u16, &'static str, Value),
    /// `Error::Business`: the field that reports the rejection and the decoded body.
    Business(u16, &'static str, Value),
    /// `Error::UnexpectedStatus` with its raw body, byte for byte.
    UnexpectedStatus(u16, Vec<u8>),
    /// `Error::Decode` with its raw body, byte for byte.
    Decode(u16, Vec<u8>),
    /// `Error::Response` holding the operation's `Unreadable` variant (a documented
    /// error status whose body does not fit), with its raw body, byte for byte.
    Unreadable(u16, Vec<u8>),
    /// Anything else (transport, constraint): never expected here.
    Other(String),
}

/// Names the variant of a documented-error enum and serializes its decoded body. The
/// enums are `#[non_exhaustive]`, so the match needs a `_` arm: a variant this table does
/// not name fails the test when it comes.
trait Documented: std::fmt::Debug {
    fn parts(&self) -> (u16, &'static str, Value);
}

macro_rules! documented {
    ($($ty:ident { $($variant:ident),+ $(,)? } $(+ $rejected:ident)?)+) => {$(
        impl Documented for $ty {
            fn parts(&self) -> (u16, &'static str, Value) {
                match self {
                    $(
                        $ty::$variant(body) => (
                            self.status().as_u16(),
                            stringify!($variant),
                            serde_json::to_value(body).unwrap(),
                        ),
                    )+
                    $(
                        $ty::$rejected { body, .. } => (
                            self.status().as_u16(),
                            stringify!($rejected),
                            serde_json::to_value(body).unwrap(),
                        ),
                    )?
                    $ty::Unreadable { path, reason, .. } => (
                        self.status().as_u16(),
                        "Unreadable",
                        json!({"path": path, "reason": reason}),
                    ),
                    other => panic!("a variant the table does not name: {other:?}"),
                }
            }
        }
    )+};
}

documented! {
    ExchangeTokenError { BadRequest, PayloadTooLarge, UnsupportedMediaType } + Rejected
    UpdateContactInfoNameError { BadRequest, Unauthorized, PayloadTooLarge, UnsupportedMediaType } + Rejected
    GetCategoryPositionLimitError { BadRequest, Unauthorized, NotFound }
    // `ListCategoryPositionLimitsError`, `FindExchangeScopesError` and
    // `SuggestRiskCategoriesError` document the same errors: they are aliases of one
    // shared enum, so one impl covers the three (a second would conflict).
    ListCategoryPositionLimitsError { BadRequest, Unauthorized }
}

// The sharing itself: each alias is the one enum (this fails to compile otherwise).
const _: fn(FindExchangeScopesError) -> ListCategoryPositionLimitsError = |e| e;
const _: fn(SuggestRiskCategoriesError) -> ListCategoryPositionLimitsError = |e| e;

fn outcome<T: serde::Serialize, E: Documented + trading_api::DocumentedError>(
    result: Result<trading_api::Response<T>, Error<E>>,
) -> Outcome {
    let err = match result {
        Ok(value) => {
            // Status and headers come with every success.
            assert!(value.status().is_success(), "{}", value.status());
            assert_eq!(value.headers()["content-type"], "application/json");
            return Outcome::Ok(serde_json::to_value(value.into_inner()).unwrap());
        }
        Err(err) => err,
    };
    // Every raw body the table sends on an error path contains "secret": none of it may
    // reach Debug. Display ends with the start of the body (none of the table's bodies
    // holds a credential's name or shape, so nothing in them is masked).
    let debug = format!("{err:?}");
    assert!(!debug.contains("secret"), "a raw body leaked: {debug}");
    if let Some(body) = err.body().filter(|body| !body.is_empty()) {
        let shown = err.to_string();
        let text = String::from_utf8_lossy(body);
        assert!(shown.ends_with(&format!(": {}", text.trim())), "{shown}");
    }
    let status = err.status().map(|s| s.as_u16());
    // Every error that came from an answer carries its headers.
    if !matches!(err, Error::Transport(_) | Error::Constraint(_)) {
        assert!(
            err.headers()
                .is_some_and(|h| h.contains_key("content-type")),
            "{err:?}"
        );
    }
    match err {
        Error::Response {
            error, body: raw, ..
        } => {
            let (s, name, body) = error.parts();
            assert_eq!(
                status,
                Some(s),
                "Error::status of a documented error answer"
            );
            if name == "Unreadable" {
                // Where and why, never the body's text.
                assert!(!body.to_string().contains("secret"), "{body}");
                return Outcome::Unreadable(s, raw);
            }
            Outcome::Response(s, name, body)
        }
        Error::Business { field, error, .. } => {
            let (s, name, body) = error.parts();
            assert_eq!((status, name), (Some(s), "Rejected"));
            Outcome::Business(s, field, body)
        }
        Error::UnexpectedStatus {
            status: s, body, ..
        } => {
            assert_eq!(status, Some(s.as_u16()));
            Outcome::UnexpectedStatus(s.as_u16(), body)
        }
        Error::Decode {
            status: s, body, ..
        } => {
            assert_eq!(status, Some(s.as_u16()));
            Outcome::Decode(s.as_u16(), body)
        }
        other => Outcome::Other(format!("{other:?}")),
    }
}

/// One documented (operation, status) pair: the body the server sends and what the
/// client must make of it.
struct Row {
    op: Op,
    status: u16,
    wire: Value,
    expect: Outcome,
}

fn error_body(text: &str) -> Value {
    json!({ "errorText": text })
}

/// A documented error answer whose body is an `ErrorResponse`.
fn error_row(op: Op, status: u16, variant: &'static str, text: &str) -> Row {
    // A newer server's extra field is ignored.
    let mut wire = error_body(text);
    wire["traceId"] = json!("t-1");
    Row {
        op,
        status,
        wire,
        expect: Outcome::Response(status, variant, error_body(text)),
    }
}

/// The common error answers of the four bearer-secured GETs.
fn get_error_rows(op: Op) -> [Row; 2] {
    [
        error_row(op, 400, "BadRequest", "missing query parameter: masterid"),
        error_row(op, 401, "Unauthorized", "Access is denied"),
    ]
}

fn without_unknown(mut value: Value) -> Value {
    value
        .as_object_mut()
        .unwrap()
        .shift_remove("someFieldFromANewerServer");
    value
}

/// Every status the spec documents for every operation, with a body of the documented
/// type and the exact decoded result.
fn table() -> Vec<Row> {
    use Op::*;
    let token = json!({
        "access_token": "AT", "refresh_token": "RT", "token_type": "Bearer",
        "expires_in": 5400, "refresh_token_expires_in": 5400,
        "id_token": "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", "error": "", "error_description": ""
    });
    let invalid_grant = json!({
        "error": "invalid_grant",
        "error_description": "The authorization code is unknown, expired or already used."
    });
    let contact = json!({
        "errorText": "",
        "contactInfo": {"id": 1, "userId": 1, "firstName": "Ada", "lastName": "Lovelace",
                        "streetAddress1": "12 St James's Square", "city": "London",
                        "country": "GB", "phone": "+44", "mailingIsDifferent": false}
    });
    let scopes = json!([{"id": 1, "name": "CME"}, {"id": 2, "name": "CBOT", "bundleOf": "X"}]);
    let categories =
        json!([{"id": 1, "name": "Equities", "riskCredit": 250000.0, "organizationId": 1}]);

    let mut rows = vec![
        Row {
            op: ExchangeToken,
            status: 200,
            wire: token.clone(),
            expect: Outcome::Ok(token),
        },
        Row {
            op: ExchangeToken,
            status: 400,
            wire: invalid_grant.clone(),
            expect: Outcome::Response(400, "BadRequest", invalid_grant),
        },
        // A 200 whose `error` is set is a failed exchange (`x-business-error`), not a token.
        Row {
            op: ExchangeToken,
            status: 200,
            wire: json!({"error": "invalid_grant", "error_description": ""}),
            expect: Outcome::Business(
                200,
                "error",
                json!({"error": "invalid_grant", "error_description": ""}),
            ),
        },
        Row {
            op: ExchangeToken,
            status: 200,
            wire: json!({"error": "", "error_description": "refused"}),
            expect: Outcome::Business(
                200,
                "error_description",
                json!({"error": "", "error_description": "refused"}),
            ),
        },
        error_row(ExchangeToken, 413, "PayloadTooLarge", "body over 64 KiB"),
        error_row(ExchangeToken, 415, "UnsupportedMediaType", "text/xml"),
        Row {
            op: UpdateContactInfoName,
            status: 200,
            wire: contact.clone(),
            expect: Outcome::Ok(contact),
        },
        // The business-level rejection is a 200 too: errorText set, no contactInfo. The
        // spec's `x-business-error` makes it an error.
        Row {
            op: UpdateContactInfoName,
            status: 200,
            wire: json!({"errorText": "names too long"}),
            expect: Outcome::Business(200, "errorText", json!({"errorText": "names too long"})),
        },
        error_row(
            UpdateContactInfoName,
            400,
            "BadRequest",
            "phone is required",
        ),
        error_row(
            UpdateContactInfoName,
            401,
            "Unauthorized",
            "Access is denied",
        ),
        error_row(
            UpdateContactInfoName,
            413,
            "PayloadTooLarge",
            "body over 64 KiB",
        ),
        error_row(
            UpdateContactInfoName,
            415,
            "UnsupportedMediaType",
            "text/xml",
        ),
        Row {
            op: ListCategoryPositionLimits,
            status: 200,
            wire: json!([limit_json("Contract"), limit_json("PerMoonPhase")]),
            expect: Outcome::Ok(json!([
                without_unknown(limit_json("Contract")),
                without_unknown(limit_json("PerMoonPhase"))
            ])),
        },
        Row {
            op: ListCategoryPositionLimits,
            status: 200,
            wire: json!([]),
            expect: Outcome::Ok(json!([])),
        },
        Row {
            op: GetCategoryPositionLimit,
            status: 200,
            wire: limit_json("Overall"),
            expect: Outcome::Ok(without_unknown(limit_json("Overall"))),
        },
        error_row(
            GetCategoryPositionLimit,
            404,
            "NotFound",
            "no CategoryPositionLimit with id 999999",
        ),
        Row {
            op: FindExchangeScopes,
            status: 200,
            wire: scopes.clone(),
            expect: Outcome::Ok(scopes),
        },
        Row {
            op: SuggestRiskCategories,
            status: 200,
            wire: categories.clone(),
            expect: Outcome::Ok(categories),
        },
    ];
    for op in [
        ListCategoryPositionLimits,
        GetCategoryPositionLimit,
        FindExchangeScopes,
        SuggestRiskCategories,
    ] {
        rows.extend(get_error_rows(op));
    }
    rows.sort_by_key(|row| (row.op, row.status));
    rows
}

/// The statuses the table covers, per operation.
fn table_statuses() -> BTreeMap<Op, BTreeSet<u16>> {
    let mut statuses: BTreeMap<Op, BTreeSet<u16>> = BTreeMap::new();
    for row in table() {
        statuses.entry(row.op).or_default().insert(row.status);
    }
    statuses
}

/// The response statuses spec/openapi.yaml documents per operationId, from the parsed
/// YAML: every operation under `paths` that has an `operationId`, with the keys of its
/// `responses` mapping (quoted or bare) as status codes.
fn spec_statuses() -> BTreeMap<String, BTreeSet<u16>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/openapi.yaml");
    let text = std::fs::read_to_string(path).expect("spec/openapi.yaml is readable");
    let spec: serde_yaml::Value = serde_yaml::from_str(&text).expect("the spec parses");
    let mut found: BTreeMap<String, BTreeSet<u16>> = BTreeMap::new();
    let paths = spec["paths"].as_mapping().expect("the spec has paths");
    for item in paths.values() {
        for operation in item
            .as_mapping()
            .expect("a path item is a mapping")
            .values()
        {
            let Some(id) = operation["operationId"].as_str() else {
                continue;
            };
            let responses = operation["responses"]
                .as_mapping()
                .expect("an operation has responses");
            let statuses = responses.keys().map(|key| {
                let key = key
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| key.as_u64().expect("a status code").to_string());
                key.parse::<u16>().expect("a numeric status code")
            });
            found.entry(id.to_owned()).or_default().extend(statuses);
        }
    }
    found
}

#[test]
fn the_table_covers_every_status_the_spec_documents() {
    let spec = spec_statuses();
    let table: BTreeMap<String, BTreeSet<u16>> = table_statuses()
        .into_iter()
        .map(|(op, statuses)| (op.operation_id().to_owned(), statuses))
        .collect();
    assert_eq!(spec.len(), 6, "six operations in the spec: {spec:?}");
    assert_eq!(
        table, spec,
        "table (left) against spec/openapi.yaml (right)"
    );
    assert_eq!(
        spec["updateContactInfoName"],
        BTreeSet::from([200, 400, 401, 413, 415])
    );
    assert_eq!(
        spec["getCategoryPositionLimit"],
        BTreeSet::from([200, 400, 401, 404])
    );
}

#[tokio::test]
async fn every_documented_status_decodes_to_its_variant() {
    let server = Recorder::start().await;
    let client = server.client();
    for row in table() {
        server.answer(row.status, row.wire.to_string());
        let got = row.op.call(&client).await;
        assert_eq!(got, row.expect, "{:?} answered {}", row.op, row.status);
        assert_eq!(server.take().len(), 1, "one request, no retry");
    }
}

/// A body that is not the documented type: on a success status `Error::Decode`, on a
/// documented error status still that error (`Error::Response` with the operation's
/// `Unreadable` variant), each with the body byte for byte.
#[tokio::test]
async fn undecodable_bodies_on_documented_statuses_are_decode_errors() {
    let server = Recorder::start().await;
    let client = server.client();
    // serde_json quotes a string where an object belongs: that must not reach Display.
    let bodies: [(&str, &[u8]); 6] = [
        ("application/json", b"\"secret-token\""),
        ("text/html", b"<html>secret-bearing proxy page</html>"),
        ("application/json", b"true"),
        ("application/json", b""),
        ("application/json", b"{\"secret\": "),
        ("application/json", b"\xffsecret\xfe"),
    ];
    for (op, statuses) in table_statuses() {
        for status in statuses {
            for (content_type, body) in bodies {
                server.answer_raw(status, content_type, body);
                let got = op.call(&client).await;
                let expected = if status < 300 {
                    Outcome::Decode(status, body.to_vec())
                } else {
                    Outcome::Unreadable(status, body.to_vec())
                };
                assert_eq!(
                    got, expected,
                    "{op:?} answered {status} {content_type} {body:?}"
                );
                server.take();
            }
        }
    }
}

#[tokio::test]
async fn undocumented_statuses_keep_the_raw_body() {
    let server = Recorder::start().await;
    let client = server.client();
    // Well-formed error bodies too: an undocumented status is never decoded.
    let candidates = [
        304, 400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500, 502, 503,
    ];
    let documented = table_statuses();
    let mut checked = 0;
    for op in Op::ALL {
        for status in candidates {
            if documented[&op].contains(&status) {
                continue;
            }
            let body = match status {
                204 | 304 => String::new(),
                _ => error_body("secret-bearing internal trace").to_string(),
            };
            server.answer(status, body.clone());
            let got = op.call(&client).await;
            assert_eq!(
                got,
                Outcome::UnexpectedStatus(status, body.into_bytes()),
                "{op:?} {status}"
            );
            checked += 1;
        }
        // Non-JSON, non-UTF-8 bytes come back exactly as sent.
        server.answer_raw(500, "text/plain", b"secret \xff trace".as_slice());
        assert_eq!(
            op.call(&client).await,
            Outcome::UnexpectedStatus(500, b"secret \xff trace".to_vec()),
            "{op:?}"
        );
        server.take();
    }
    // exchangeToken documents no 401 and the list operations no 404: both are covered.
    assert!(checked >= 6 * 10, "{checked}");
}

/// Any `2xx` is a success, documented or not: read as the documented success (decoded,
/// a business rejection, or `Error::Decode` when the body does not fit its schema, such
/// as the empty body of a `204`), never `Error::UnexpectedStatus`.
#[tokio::test]
async fn undocumented_successes_are_read_as_the_documented_one() {
    let server = Recorder::start().await;
    let client = server.client();
    let documented = table_statuses();
    let mut checked = 0;
    for op in Op::ALL {
        for status in [201, 202, 204] {
            if documented[&op].contains(&status) {
                continue;
            }
            let body = match status {
                204 => String::new(),
                _ => error_body("secret-bearing internal trace").to_string(),
            };
            server.answer(status, body.clone());
            let got = op.call(&client).await;
            match &got {
                Outcome::Ok(_) | Outcome::Business(..) => {}
                Outcome::Decode(s, bytes) if *s == status && *bytes == body.as_bytes() => {}
                other => panic!("{op:?} {status}: {other:?}"),
            }
            checked += 1;
        }
        server.take();
    }
    assert!(checked >= 6 * 3, "{checked}");
}

// ---------------------------------------------------------------------------------------
// Rate limits and penalties: a server that answers from a script, one answer per request.
// ---------------------------------------------------------------------------------------

/// One scripted answer: status, extra headers, JSON body.
type Scripted = (u16, Vec<(&'static str, String)>, String);

/// A server that answers the scripted answers in order (the last one again once they run
/// out) and records every request.
struct Script {
    seen: Arc<Mutex<Vec<Seen>>>,
    base_url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Script {
    async fn start(answers: Vec<Scripted>) -> Self {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let queue = Arc::new(Mutex::new(std::collections::VecDeque::from(answers)));
        let record = seen.clone();
        let app = axum::Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let (record, queue) = (record.clone(), queue.clone());
                async move {
                    record.lock().unwrap().push(Seen {
                        method,
                        path: uri.path().to_owned(),
                        query: uri.query().map(str::to_owned),
                        headers,
                        body,
                    });
                    let mut queue = queue.lock().unwrap();
                    let (status, extra, body) = if queue.len() > 1 {
                        queue.pop_front().unwrap()
                    } else {
                        queue.front().cloned().unwrap()
                    };
                    let mut response = (
                        StatusCode::from_u16(status).unwrap(),
                        [("content-type", "application/json")],
                        body,
                    )
                        .into_response();
                    for (name, value) in extra {
                        response.headers_mut().insert(name, value.parse().unwrap());
                    }
                    response
                }
            },
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self {
            seen,
            base_url: format!("http://{addr}/v1"),
            task,
        }
    }

    fn client(&self, policy: Option<trading_api::RetryPolicy>) -> Client {
        let mut client = Client::new(self.base_url.as_str()).unwrap();
        client.set_bearer_token(TOKEN).unwrap();
        client.set_retry_policy(policy);
        client
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn too_many(retry_after: &str) -> Scripted {
    (
        429,
        vec![("retry-after", retry_after.to_owned())],
        error_body("slow down").to_string(),
    )
}

fn ok_empty_list() -> Scripted {
    (200, Vec::new(), "[]".to_owned())
}

fn token_json() -> String {
    json!({"access_token": "AT", "token_type": "Bearer", "expires_in": 5400, "error": "", "error_description": ""})
        .to_string()
}

#[test]
fn retry_after_reads_seconds_and_http_dates() {
    let with = |value: &str| {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", value.parse().unwrap());
        Error::<()>::UnexpectedStatus {
            status: StatusCode::TOO_MANY_REQUESTS,
            headers,
            body: Vec::new(),
        }
    };
    assert_eq!(
        with("120").retry_after(),
        Some(std::time::Duration::from_secs(120))
    );
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(90);
    let wait = with(&httpdate::fmt_http_date(later)).retry_after().unwrap();
    assert!(
        wait > std::time::Duration::from_secs(85) && wait <= std::time::Duration::from_secs(90),
        "{wait:?}"
    );
    // A date in the past means "now"; garbage means no wait was given.
    assert_eq!(
        with("Wed, 21 Oct 2015 07:28:00 GMT").retry_after(),
        Some(std::time::Duration::ZERO)
    );
    assert_eq!(with("soon").retry_after(), None);
    assert!(with("1").is_retryable());
}

#[tokio::test]
async fn a_429_is_retried_after_retry_after_in_both_forms() {
    for as_date in [false, true] {
        let retry_after = if as_date {
            let later = std::time::SystemTime::now() + std::time::Duration::from_secs(2);
            httpdate::fmt_http_date(later)
        } else {
            "1".to_owned()
        };
        let server = Script::start(vec![too_many(&retry_after), ok_empty_list()]).await;
        let client = server.client(Some(trading_api::RetryPolicy::default()));
        let started = std::time::Instant::now();
        let limits = client.list_category_position_limits(1).await.unwrap();
        assert!(limits.is_empty());
        assert_eq!(server.seen().len(), 2, "one retry after {retry_after}");
        let took = started.elapsed();
        // The date form has one-second resolution: it waits between 1 and 2 seconds.
        assert!(
            took >= std::time::Duration::from_millis(900)
                && took < std::time::Duration::from_secs(5),
            "{retry_after}: {took:?}"
        );
    }
}

#[tokio::test]
async fn a_429_whose_wait_passes_the_budget_is_reported_with_its_headers() {
    let server = Script::start(vec![too_many("30")]).await;
    let policy = trading_api::RetryPolicy::default().budget(std::time::Duration::from_secs(1));
    let client = server.client(Some(policy));
    let started = std::time::Instant::now();
    let err = client.list_category_position_limits(1).await.unwrap_err();
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(server.seen().len(), 1, "a 30 s wait is over the 1 s budget");
    assert_eq!(err.status(), Some(StatusCode::TOO_MANY_REQUESTS));
    assert_eq!(err.headers().unwrap()["retry-after"], "30");
    assert_eq!(err.retry_after(), Some(std::time::Duration::from_secs(30)));
    assert!(err.is_retryable());

    // Attempts run out too: three sends, then the last 429 comes back.
    let server = Script::start(vec![too_many("0")]).await;
    let client = server.client(Some(trading_api::RetryPolicy::default().max_attempts(3)));
    let err = client.list_category_position_limits(1).await.unwrap_err();
    assert_eq!(server.seen().len(), 3);
    assert_eq!(err.status(), Some(StatusCode::TOO_MANY_REQUESTS));

    // Without a policy nothing is retried.
    let server = Script::start(vec![too_many("0"), ok_empty_list()]).await;
    let client = server.client(None);
    assert!(client.list_category_position_limits(1).await.is_err());
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn a_503_is_retried_for_a_get_but_never_for_a_post() {
    let unavailable = (503, Vec::new(), error_body("maintenance").to_string());
    let fast = trading_api::RetryPolicy::default()
        .initial_backoff(std::time::Duration::from_millis(10))
        .max_backoff(std::time::Duration::from_millis(20));
    let server = Script::start(vec![unavailable.clone(), ok_empty_list()]).await;
    let client = server.client(Some(fast.clone()));
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(server.seen().len(), 2);

    let server = Script::start(vec![unavailable, ok_empty_list()]).await;
    let client = server.client(Some(fast));
    let body = UpdateContactInfoName::builder()
        .first_name("Ada")
        .last_name("Lovelace")
        .country("GB")
        .phone("+44")
        .build();
    let err = client.update_contact_info_name(&body).await.unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::SERVICE_UNAVAILABLE));
    assert_eq!(server.seen().len(), 1, "a POST may have been acted on");
}

#[tokio::test]
async fn a_penalty_is_waited_out_and_resent_with_its_ticket() {
    let penalty = (
        200,
        Vec::new(),
        json!({"p-ticket": "ticket-1", "p-time": 1, "p-captcha": false}).to_string(),
    );
    let request = grant("authorization_code")
        .with_code("the-code")
        .with_client_id("demo-client");
    // Without a policy the penalty is an error that says how long to wait.
    let server = Script::start(vec![penalty.clone()]).await;
    let err = server
        .client(None)
        .exchange_token(&request)
        .await
        .unwrap_err();
    match &err {
        Error::Penalty {
            status,
            wait,
            ticket,
            resend,
            ..
        } => {
            assert_eq!(
                (*status, *wait, ticket.as_str(), *resend),
                (
                    StatusCode::OK,
                    std::time::Duration::from_secs(1),
                    "ticket-1",
                    "p-ticket"
                )
            );
        }
        other => panic!("expected a penalty, got {other:?}"),
    }
    assert_eq!(err.retry_after(), Some(std::time::Duration::from_secs(1)));
    assert!(err.is_retryable());
    assert!(!format!("{err:?} {err}").contains("ticket-1"), "{err:?}");

    // With one, the call waits p-time and sends the same body plus the ticket.
    let server = Script::start(vec![penalty.clone(), (200, Vec::new(), token_json())]).await;
    let client = server.client(Some(trading_api::RetryPolicy::default()));
    let started = std::time::Instant::now();
    let token = client.exchange_token(&request).await.unwrap();
    assert!(started.elapsed() >= std::time::Duration::from_millis(950));
    assert_eq!(token.access_token.as_deref(), Some("AT"));
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    let first = seen[0].json();
    let mut second = seen[1].json();
    assert_eq!(second["p-ticket"], "ticket-1");
    second.as_object_mut().unwrap().remove("p-ticket");
    assert_eq!(
        first, second,
        "the resend is the same request plus the ticket"
    );

    // The form encoding gets the ticket as one more pair.
    let server = Script::start(vec![penalty, (200, Vec::new(), token_json())]).await;
    let client = server.client(Some(trading_api::RetryPolicy::default()));
    client.exchange_token_form(&request).await.unwrap();
    let seen = server.seen();
    assert_eq!(
        std::str::from_utf8(&seen[1].body).unwrap(),
        "grant_type=authorization_code&code=the-code&client_id=demo-client&p-ticket=ticket-1"
    );
}

#[tokio::test]
async fn a_captcha_is_never_retried() {
    let captcha = (
        200,
        Vec::new(),
        json!({"p-ticket": "ticket-2", "p-time": 0, "p-captcha": true}).to_string(),
    );
    let server = Script::start(vec![captcha, (200, Vec::new(), token_json())]).await;
    let client = server.client(Some(trading_api::RetryPolicy::default()));
    let err = client
        .exchange_token(&grant("refresh_token"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::LoginRequired { .. }), "{err:?}");
    assert!(!err.is_retryable());
    assert!(err.to_string().contains("log in"), "{err}");
    assert_eq!(server.seen().len(), 1);
}

// ---------------------------------------------------------------------------------------
// Connections that fail: a raw TCP server that reads each request and then does what the
// test says with that connection.
// ---------------------------------------------------------------------------------------

/// What the raw server does with one connection, after reading the whole request.
#[derive(Clone)]
enum Raw {
    /// Closes the connection without a byte of answer.
    Close,
    /// Writes these bytes, then closes.
    Send(&'static [u8]),
}

/// A 200 with a JSON list and `connection: close`.
const RAW_OK: &[u8] =
    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n[]";

/// A 200 whose head promises 100 bytes of body; 6 come before the connection closes.
const RAW_CUT: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\nx-request-id: r-1\r\n\r\n[{\"id\"";

/// A raw server that treats its connections as `script` says (the last entry again once it
/// runs out); returns the base URL and the number of connections accepted so far.
async fn raw_server(script: Vec<Raw>) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let accepted = count.clone();
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            let n = accepted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let what = script[n.min(script.len() - 1)].clone();
            tokio::spawn(async move {
                // The head, then as many body bytes as it declares.
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                let head_end = loop {
                    if let Some(i) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                        break i + 4;
                    }
                    let len = socket.read(&mut buf).await.unwrap();
                    if len == 0 {
                        return;
                    }
                    request.extend_from_slice(&buf[..len]);
                };
                let head = String::from_utf8_lossy(&request[..head_end]).to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map_or(0, |v| v.trim().parse().unwrap());
                while request.len() < head_end + length {
                    let len = socket.read(&mut buf).await.unwrap();
                    if len == 0 {
                        return;
                    }
                    request.extend_from_slice(&buf[..len]);
                }
                if let Raw::Send(bytes) = what {
                    socket.write_all(bytes).await.unwrap();
                    socket.flush().await.unwrap();
                }
                // Dropped: closed.
            });
        }
    });
    (format!("http://{addr}/v1"), count)
}

/// Fast backoff, so that retries cost milliseconds.
fn fast_retries() -> trading_api::RetryPolicy {
    trading_api::RetryPolicy::default()
        .initial_backoff(std::time::Duration::from_millis(10))
        .max_backoff(std::time::Duration::from_millis(20))
}

#[tokio::test]
async fn a_get_whose_connection_closes_without_an_answer_is_retried() {
    let (base, connections) = raw_server(vec![Raw::Close, Raw::Send(RAW_OK)]).await;
    let client = Client::builder(base)
        .retry_policy(fast_retries())
        .build()
        .unwrap();
    client.set_bearer_token(TOKEN).unwrap();
    let limits = client.list_category_position_limits(1).await.unwrap();
    assert!(limits.is_empty());
    assert_eq!(connections.load(std::sync::atomic::Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_post_whose_connection_closes_without_an_answer_is_not_retried() {
    let (base, connections) = raw_server(vec![Raw::Close, Raw::Send(RAW_OK)]).await;
    let client = Client::builder(base)
        .retry_policy(fast_retries())
        .build()
        .unwrap();
    client.set_bearer_token(TOKEN).unwrap();
    let body = UpdateContactInfoName::builder()
        .first_name("Ada")
        .last_name("Lovelace")
        .country("GB")
        .phone("+44")
        .build();
    let err = client.update_contact_info_name(&body).await.unwrap_err();
    assert!(matches!(err, Error::Transport(_)), "{err:?}");
    assert_eq!(err.status(), None);
    // Sending again might succeed, but a POST may have been acted on: the policy does not.
    assert!(err.is_retryable());
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(
        connections.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "a POST is sent once"
    );
}

#[tokio::test]
async fn a_body_cut_short_keeps_the_status_and_headers_of_its_head() {
    let (base, connections) = raw_server(vec![Raw::Send(RAW_CUT)]).await;
    let client = Client::new(base).unwrap();
    client.set_bearer_token(TOKEN).unwrap();
    let err = client.list_category_position_limits(1).await.unwrap_err();
    let Error::Body {
        status,
        ref headers,
        ref source,
    } = err
    else {
        panic!("expected Error::Body, got {err:?}");
    };
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["x-request-id"], "r-1");
    assert!(!source.is_timeout());
    assert_eq!(err.status(), Some(StatusCode::OK));
    assert_eq!(err.headers().unwrap()["x-request-id"], "r-1");
    assert!(!err.is_timeout());
    assert!(err.is_retryable());
    assert!(std::error::Error::source(&err).is_some());
    assert!(
        err.to_string()
            .starts_with("status 200 OK: the body could not be read"),
        "{err}"
    );
    let debug = format!("{err:?}");
    assert!(
        debug.starts_with("Body {") && debug.contains("x-request-id"),
        "{debug}"
    );
    // Header values are never shown.
    assert!(!debug.contains("r-1"), "{debug}");
    assert_eq!(connections.load(std::sync::atomic::Ordering::SeqCst), 1);

    // A GET cut short is sent again under a retry policy.
    let (base, connections) = raw_server(vec![Raw::Send(RAW_CUT), Raw::Send(RAW_OK)]).await;
    let client = Client::builder(base)
        .retry_policy(fast_retries())
        .build()
        .unwrap();
    client.set_bearer_token(TOKEN).unwrap();
    client.list_category_position_limits(1).await.unwrap();
    assert_eq!(connections.load(std::sync::atomic::Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_transport_error_shows_no_query_value() {
    // Bind, learn the port, close: the connection is refused.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let client = Client::new(format!("http://{addr}/v1")).unwrap();
    client.set_bearer_token(TOKEN).unwrap();
    let err = client
        .suggest_risk_categories("private-words", 7)
        .await
        .unwrap_err();
    let Error::Transport(ref source) = err else {
        panic!("expected Error::Transport, got {err:?}");
    };
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains("private-words"), "{shown}");
    assert!(!shown.contains("=7"), "{shown}");
    // The path and the parameters' names stay, for the reader of a log.
    assert!(shown.contains("t=REDACTED&l=REDACTED"), "{shown}");
    assert!(
        source
            .url()
            .unwrap()
            .as_str()
            .ends_with("?t=REDACTED&l=REDACTED"),
        "{:?}",
        source.url()
    );

    // A body cut short: its error's URL is redacted too.
    let (base, _) = raw_server(vec![Raw::Send(RAW_CUT)]).await;
    let client = Client::new(base).unwrap();
    client.set_bearer_token(TOKEN).unwrap();
    let err = client
        .suggest_risk_categories("private-words", 7)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Body { .. }), "{err:?}");
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains("private-words"), "{shown}");
}

/// Records when each attempt is sent.
#[derive(Default)]
struct Clock(Mutex<Vec<std::time::Instant>>);

impl trading_api::Hook for Clock {
    fn before_send(&self, _: &trading_api::CallInfo, _: &mut reqwest::Request) {
        self.0.lock().unwrap().push(std::time::Instant::now());
    }
}

#[tokio::test]
async fn backoff_waits_between_half_and_all_of_its_doubling_capped_step() {
    // No `Retry-After`: the waits are the policy's. Retry n waits between half and all of
    // `initial × 2^(n-1)`, capped at `max_backoff`: 25-50 ms, then 50-100 ms five times.
    // Uncapped, the sixth would wait 800-1600 ms: far enough from the capped bound that a
    // loaded machine's late timers (given 600 ms here) cannot blur the two.
    let unavailable = (503, Vec::new(), error_body("maintenance").to_string());
    let mut script = vec![unavailable; 6];
    script.push(ok_empty_list());
    let server = Script::start(script).await;
    let mut client = server.client(Some(
        trading_api::RetryPolicy::default()
            .max_attempts(7)
            .initial_backoff(std::time::Duration::from_millis(50))
            .max_backoff(std::time::Duration::from_millis(100)),
    ));
    let clock = Arc::new(Clock::default());
    client.add_hook(clock.clone());
    client.list_category_position_limits(1).await.unwrap();
    let sent = clock.0.lock().unwrap().clone();
    assert_eq!(sent.len(), 7);
    let ms = std::time::Duration::from_millis;
    // A wait can only come out longer than the policy's (a round trip, a late timer),
    // never shorter.
    let slack = ms(600);
    let steps = [ms(50), ms(100), ms(100), ms(100), ms(100), ms(100)];
    for (i, full) in steps.into_iter().enumerate() {
        let gap = sent[i + 1] - sent[i];
        assert!(
            gap >= full / 2 && gap <= full + slack,
            "retry {}: waited {gap:?}, expected {:?} to {full:?}",
            i + 1,
            full / 2
        );
    }
}
