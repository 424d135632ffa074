//! Operation 1, the token exchange (`POST /v1/auth/oauthtoken`, decisions 10-13), and
//! the authorization step that issues codes (`GET /oauth/authorize`, decision 14).

use std::sync::Arc;

use axum::Json;

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use trading_api::models::{OAuthToken, OAuthTokenResponse};
use trading_api::server::{
    ExchangeTokenBody, ExchangeTokenRequest, ExchangeTokenResponse, Problem,
};

use crate::codes::CodeError;
use crate::data::OAuthClient;
use crate::error::ApiError;
use crate::fault::Fault;
use crate::request::{Query, excerpt};
use crate::secret::{b64_decode, b64url, ct_str_eq, is_s256_challenge};
use crate::state::{AppState, lock};
use crate::tokens::{
    ACCESS_TOKEN_LIFETIME, Grant, IssuedPair, REFRESH_TOKEN_LIFETIME, RefreshError,
};

/// An RFC 6749 §5.2 error: answered 400 with an OAuthTokenResponse body.
pub(crate) struct OAuthError {
    code: &'static str,
    description: String,
}

impl OAuthError {
    pub(crate) fn new(code: &'static str, description: impl Into<String>) -> Self {
        OAuthError {
            code,
            description: description.into(),
        }
    }

    fn body(self) -> OAuthTokenResponse {
        OAuthTokenResponse {
            error: Some(self.code.to_string()),
            error_description: Some(self.description),
            ..Default::default()
        }
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        (StatusCode::BAD_REQUEST, Json(self.body())).into_response()
    }
}

/// Token responses must not be cached (RFC 6749 §5.1): every answer on the token path
/// and of the authorization step says so.
pub(crate) fn no_store(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    response
}

/// `POST /v1/auth/oauthtoken`.
pub(crate) async fn exchange_token(
    state: &Arc<AppState>,
    request: ExchangeTokenRequest,
) -> Result<ExchangeTokenResponse, Problem> {
    let (ExchangeTokenBody::Json(body) | ExchangeTokenBody::Form(body)) = &request.body;
    let pair = match grant(state, &request.headers, body) {
        Ok(p) => p,
        Err(e) => return Ok(ExchangeTokenResponse::BadRequest(e.body())),
    };
    state.persist_async().await?;
    let (pair, client_id, user_id) = pair;
    let now = state.clock.now();
    let id_token = id_token(user_id, &client_id, now);
    Ok(ExchangeTokenResponse::Ok(OAuthTokenResponse {
        access_token: Some(pair.access_token),
        refresh_token: Some(pair.refresh_token),
        token_type: Some(
            if state.has(Fault::TokenTypeWrong) {
                "mac"
            } else {
                "Bearer"
            }
            .to_string(),
        ),
        expires_in: Some(ACCESS_TOKEN_LIFETIME as i32),
        refresh_token_expires_in: Some(REFRESH_TOKEN_LIFETIME as i32),
        error: Some(
            if state.has(Fault::ErrorOnSuccess) {
                "none"
            } else {
                ""
            }
            .to_string(),
        ),
        error_description: Some(String::new()),
        id_token: Some(id_token),
    }))
}

/// Runs the grant; returns the new pair, the client and the user.
fn grant(
    state: &AppState,
    headers: &HeaderMap,
    req: &OAuthToken,
) -> Result<(IssuedPair, String, i64), OAuthError> {
    let now = state.clock.now();
    match req.grant_type.as_str() {
        "authorization_code" => {
            let code = required(&req.code, "code")?;
            let client = authenticate_client(state, headers, req)?;
            let user_id = lock(&state.codes)
                .redeem(
                    code,
                    &client.client_id,
                    req.redirect_uri.as_deref(),
                    req.code_verifier.as_deref(),
                    now,
                )
                .map_err(|e: CodeError| OAuthError::new("invalid_grant", e.describe()))?;
            let grant = Grant {
                user_id,
                client_id: client.client_id.clone(),
            };
            let pair = lock(&state.tokens).issue_pair(grant, now);
            Ok((pair, client.client_id.clone(), user_id))
        }
        "refresh_token" => {
            let refresh = required(&req.refresh_token, "refresh_token")?;
            let client = authenticate_client(state, headers, req)?;
            let pair = lock(&state.tokens)
                .refresh(refresh, &client.client_id, now)
                .map_err(|e| {
                    OAuthError::new(
                        "invalid_grant",
                        match e {
                            RefreshError::Invalid => {
                                "The refresh token is unknown, expired or already used."
                            }
                            RefreshError::WrongClient => {
                                "The refresh token was issued to another client."
                            }
                        },
                    )
                })?;
            let user_id = lock(&state.tokens)
                .authenticate(&pair.access_token, now)
                .map(|g| g.user_id)
                .unwrap_or(client.user_id);
            Ok((pair, client.client_id.clone(), user_id))
        }
        "" => Err(OAuthError::new(
            "invalid_request",
            "grant_type must not be empty",
        )),
        other => Err(OAuthError::new(
            "unsupported_grant_type",
            format!(
                "grant_type {} is not supported; use authorization_code or refresh_token",
                excerpt(other)
            ),
        )),
    }
}

fn required<'a>(value: &'a Option<String>, name: &str) -> Result<&'a str, OAuthError> {
    match value.as_deref() {
        Some(v) if !v.is_empty() => Ok(v),
        _ => Err(OAuthError::new(
            "invalid_request",
            format!("{name} is required for this grant_type"),
        )),
    }
}

/// Client authentication (RFC 6749 §2.3.1): HTTP Basic (`client_id:client_secret`,
/// each form-urlencoded) or `client_id` + `client_secret` in the body, not both.
/// Secrets are compared in constant time.
fn authenticate_client<'a>(
    state: &'a AppState,
    headers: &HeaderMap,
    req: &OAuthToken,
) -> Result<&'a OAuthClient, OAuthError> {
    let invalid = || {
        OAuthError::new(
            "invalid_client",
            "Client authentication failed: unknown client or wrong secret.",
        )
    };
    let (client_id, secret) = match basic_credentials(headers)? {
        Some((id, secret)) => {
            if req.client_secret.is_some() {
                return Err(OAuthError::new(
                    "invalid_request",
                    "use one client authentication method: HTTP Basic or client_secret in the body",
                ));
            }
            if req
                .client_id
                .as_deref()
                .is_some_and(|body_id| body_id != id)
            {
                return Err(OAuthError::new(
                    "invalid_request",
                    "client_id in the body differs from the HTTP Basic credentials",
                ));
            }
            (id, secret)
        }
        None => (
            required(&req.client_id, "client_id")?.to_string(),
            req.client_secret.clone().ok_or_else(invalid)?,
        ),
    };
    let client = state.client(&client_id).ok_or_else(invalid)?;
    if ct_str_eq(&secret, &client.client_secret) {
        Ok(client)
    } else {
        Err(invalid())
    }
}

/// The client id and secret of an `Authorization: Basic` header, if there is one;
/// a Basic header that does not decode is `invalid_client`.
fn basic_credentials(headers: &HeaderMap) -> Result<Option<(String, String)>, OAuthError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let malformed = || {
        OAuthError::new(
            "invalid_client",
            "The Authorization header is not valid HTTP Basic credentials.",
        )
    };
    // Only Basic authenticates a client here; another scheme (a bearer token sent to
    // every operation alike) is not client authentication and is ignored.
    let Some((scheme, encoded)) = value.to_str().ok().and_then(|v| v.split_once(' ')) else {
        return Ok(None);
    };
    if !scheme.eq_ignore_ascii_case("basic") {
        return Ok(None);
    }
    let decoded = b64_decode(encoded.trim()).ok_or_else(malformed)?;
    let text = String::from_utf8(decoded).map_err(|_| malformed())?;
    let (id, secret) = text.split_once(':').ok_or_else(malformed)?;
    let unescape = |s: &str| -> String {
        form_urlencoded::parse(format!("v={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    Ok(Some((unescape(id), unescape(secret))))
}

/// An unsigned OpenID Connect ID token (`alg: none`): it names the user and client
/// and carries nothing secret, but has the shape clients expect.
fn id_token(user_id: i64, client_id: &str, now: u64) -> String {
    let header = b64url(br#"{"alg":"none","typ":"JWT"}"#);
    let claims = serde_json::json!({
        "iss": "reference-server",
        "sub": user_id.to_string(),
        "aud": client_id,
        "iat": now,
        "exp": now.saturating_add(ACCESS_TOKEN_LIFETIME),
    });
    format!("{header}.{}.", b64url(claims.to_string().as_bytes()))
}

/// `GET /oauth/authorize`: auto-approves for the client's user and redirects back with
/// a code. Problems with the client or redirect URI are answered here (never redirected
/// to an unverified URI, RFC 6749 §4.1.2.1); the others travel in the redirect.
pub(crate) async fn authorize(
    State(state): State<Arc<AppState>>,
    RawQuery(raw): RawQuery,
) -> Response {
    match authorize_inner(&state, raw.as_deref()) {
        Ok(location) | Err(AuthorizeError::Redirect(location)) => redirect(&location),
        Err(AuthorizeError::Direct(e)) => e.into_response(),
    }
}

enum AuthorizeError {
    Direct(ApiError),
    Redirect(String),
}

impl From<ApiError> for AuthorizeError {
    fn from(e: ApiError) -> Self {
        AuthorizeError::Direct(e)
    }
}

fn authorize_inner(state: &AppState, raw: Option<&str>) -> Result<String, AuthorizeError> {
    let q = Query::parse(raw);
    let client_id = q.required("client_id")?;
    let redirect_uri = q.required("redirect_uri")?;
    let client = state
        .client(client_id)
        .ok_or_else(|| ApiError::BadRequest(format!("unknown client_id {}", excerpt(client_id))))?;
    if !client.redirect_uris.iter().any(|u| u == redirect_uri) {
        return Err(ApiError::BadRequest(format!(
            "redirect_uri {} is not registered for this client",
            excerpt(redirect_uri)
        ))
        .into());
    }
    let st = q.one("state")?;
    let fail = |error: &str, description: &str| {
        AuthorizeError::Redirect(with_params(
            redirect_uri,
            &[
                ("error", Some(error)),
                ("error_description", Some(description)),
                ("state", st),
            ],
        ))
    };
    if q.one("response_type")? != Some("code") {
        return Err(fail(
            "unsupported_response_type",
            "response_type must be code",
        ));
    }
    let challenge = q.one("code_challenge")?;
    let method = q.one("code_challenge_method")?;
    let challenge = match (challenge, method) {
        (None, None) => None,
        (Some(c), Some("S256")) if is_s256_challenge(c) => Some(c.to_string()),
        (Some(_), Some("S256")) => {
            return Err(fail(
                "invalid_request",
                "code_challenge is not an S256 challenge",
            ));
        }
        (Some(_), _) => {
            return Err(fail(
                "invalid_request",
                "code_challenge_method must be S256",
            ));
        }
        (None, Some(_)) => {
            return Err(fail(
                "invalid_request",
                "code_challenge_method without code_challenge",
            ));
        }
    };
    let now = state.clock.now();
    let code = lock(&state.codes).issue(
        &client.client_id,
        redirect_uri,
        challenge,
        client.user_id,
        now,
    );
    Ok(with_params(
        redirect_uri,
        &[("code", Some(code.as_str())), ("state", st)],
    ))
}

/// Appends query parameters to a registered redirect URI.
fn with_params(uri: &str, params: &[(&str, Option<&str>)]) -> String {
    let mut ser = form_urlencoded::Serializer::new(String::new());
    for (k, v) in params {
        if let Some(v) = v {
            ser.append_pair(k, v);
        }
    }
    let sep = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{sep}{}", ser.finish())
}

fn redirect(location: &str) -> Response {
    match HeaderValue::from_str(location) {
        Ok(v) => {
            let mut r = StatusCode::FOUND.into_response();
            r.headers_mut().insert(header::LOCATION, v);
            no_store(r)
        }
        Err(_) => ApiError::BadRequest("redirect_uri cannot be used in a Location header".into())
            .into_response(),
    }
}
