//! Operations 3-6, the read-only look-ups: `deps`, `item`, `finds` and `suggest`
//! (decisions 3-9). Arrays are ordered by id (`suggest`: by name, then id), decision 5.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use trading_api::models::{
    CategoryPositionLimit, MarketDataSubscriptionExchangeScope, RiskCategory,
};

use crate::error::ApiError;
use crate::fault::Fault;
use crate::request::{Query, bearer_token, parse_i32, parse_i64};
use crate::state::AppState;

/// The most `suggest` answers, whatever `l` asks (decision 9).
pub const SUGGEST_CAP: usize = 1000;

/// `GET /v1/categoryPositionLimit/deps?masterid=`.
pub(crate) async fn deps(State(state): State<Arc<AppState>>, request: Request) -> Response {
    respond(deps_inner(&state, request.headers(), request.uri().query()))
}

fn deps_inner(
    state: &AppState,
    headers: &HeaderMap,
    raw: Option<&str>,
) -> Result<Response, ApiError> {
    if state.has(Fault::UnknownTokenAccepted) {
        bearer_token(headers).ok_or(ApiError::Unauthorized)?;
    } else {
        state.authenticate(headers)?;
    }
    let q = Query::parse(raw);
    let master_id = match q.one("masterid")? {
        Some(v) => match parse_i64("masterid", v) {
            Ok(id) => id,
            Err(_) if state.has(Fault::UnreadableIdAccepted) => {
                return Ok(Json(Vec::<Value>::new()).into_response());
            }
            Err(e) => return Err(e),
        },
        None if state.has(Fault::MissingParamAccepted) => {
            return Ok(Json(Vec::<Value>::new()).into_response());
        }
        None => {
            return Err(ApiError::BadRequest(
                "missing query parameter: masterid".into(),
            ));
        }
    };
    let mut limits: Vec<&CategoryPositionLimit> = state
        .data
        .position_limits
        .iter()
        .filter(|l| l.risk_category_id == master_id)
        .collect();
    limits.sort_by_key(|l| l.id);
    if state.has(Fault::DepsLeaksOtherCategory) {
        limits.extend(
            state
                .data
                .position_limits
                .iter()
                .find(|l| l.risk_category_id != master_id),
        );
    }
    let mut response = if wire_faults(state) {
        let body: Vec<Value> = limits.into_iter().map(|l| limit_json(state, l)).collect();
        Json(body).into_response()
    } else {
        Json(limits).into_response()
    };
    if state.has(Fault::WrongContentType) {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    Ok(response)
}

/// `GET /v1/categoryPositionLimit/item?id=`.
pub(crate) async fn item(State(state): State<Arc<AppState>>, request: Request) -> Response {
    respond(item_inner(&state, request.headers(), request.uri().query()))
}

fn item_inner(
    state: &AppState,
    headers: &HeaderMap,
    raw: Option<&str>,
) -> Result<Response, ApiError> {
    state.authenticate(headers)?;
    let id = parse_i64("id", Query::parse(raw).required("id")?)?;
    let limits = &state.data.position_limits;
    let Some(index) = limits.iter().position(|l| l.id == Some(id)) else {
        return Err(if state.has(Fault::ServerErrorOnUnknownId) {
            ApiError::Internal("lookup failed".into())
        } else {
            ApiError::NotFound(format!("no CategoryPositionLimit with id {id}"))
        });
    };
    let index = if state.has(Fault::ItemWrongId) {
        (index + 1) % limits.len()
    } else {
        index
    };
    let limit = &limits[index];
    if wire_faults(state) {
        Ok(Json(limit_json(state, limit)).into_response())
    } else {
        Ok(Json(limit).into_response())
    }
}

/// Whether a fault rewrites limits on the wire (the clean path serialises directly).
fn wire_faults(state: &AppState) -> bool {
    state.has(Fault::EnumMisspelled)
        || state.has(Fault::RequiredFieldDropped)
        || state.has(Fault::DeepEnumMisspelled)
        || state.has(Fault::DeepRequiredFieldDropped)
}

/// Whether `limit` is the record at `from_end` places before the end of the data set: the
/// deep records the `deep-…` faults spoil, far from the first one discovery reads.
fn is_deep(state: &AppState, limit: &CategoryPositionLimit, from_end: usize) -> bool {
    let limits = &state.data.position_limits;
    limits
        .len()
        .checked_sub(from_end + 1)
        .and_then(|i| limits.get(i))
        .is_some_and(|deep| deep.id == limit.id)
}

/// A limit as sent on the wire, with the enum and required-field faults applied.
fn limit_json(state: &AppState, limit: &CategoryPositionLimit) -> Value {
    let mut value = serde_json::to_value(limit).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        let misspelled = state.has(Fault::EnumMisspelled)
            || (state.has(Fault::DeepEnumMisspelled) && is_deep(state, limit, 0));
        if misspelled && let Some(Value::String(s)) = map.get_mut("totalBy") {
            *s = s.to_lowercase();
        }
        if state.has(Fault::RequiredFieldDropped)
            || (state.has(Fault::DeepRequiredFieldDropped) && is_deep(state, limit, 1))
        {
            map.remove("active");
        }
    }
    value
}

/// `GET /v1/marketDataSubscriptionExchangeScope/finds?names=`; both `names=A&names=B`
/// and `names=A,B` (decision 6). Repeated values are taken as they are; a single value
/// with a comma is read both ways (see `finds_inner`).
pub(crate) async fn finds(State(state): State<Arc<AppState>>, request: Request) -> Response {
    respond(finds_inner(
        &state,
        request.headers(),
        request.uri().query(),
    ))
}

fn finds_inner(
    state: &AppState,
    headers: &HeaderMap,
    raw: Option<&str>,
) -> Result<Response, ApiError> {
    state.authenticate(headers)?;
    let q = Query::parse(raw);
    let values = q.all("names");
    if values.is_empty() {
        return Err(ApiError::BadRequest(
            "missing query parameter: names".into(),
        ));
    }
    // A repeated parameter (`names=A&names=B`, the declared encoding) is taken
    // literally. A single value may be the comma form (`names=A,B`, DECISIONS row 6)
    // or one name that holds a comma: it stands for its parts and for itself, and
    // since unknown names are ignored, both readings are answered.
    let mut names: Vec<&str> = match values.as_slice() {
        [single] if single.contains(',') => single.split(',').chain([*single]).collect(),
        _ => values,
    };
    if state.has(Fault::OnlyFirstName) {
        names.truncate(1);
    }
    let mut found: Vec<&MarketDataSubscriptionExchangeScope> = state
        .data
        .exchange_scopes
        .iter()
        .filter(|s| names.contains(&s.name.as_str()))
        .collect();
    found.sort_by_key(|s| s.id);
    Ok(Json(found).into_response())
}

/// `GET /v1/riskCategory/suggest?t=&l=`: case-insensitive substring of `name`.
pub(crate) async fn suggest(State(state): State<Arc<AppState>>, request: Request) -> Response {
    if state.has(Fault::Stall) {
        // Slow, but not slower than the server's own shutdown.
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(30)) => {}
            () = state.stopped() => {}
        }
    }
    respond(suggest_inner(
        &state,
        request.headers(),
        request.uri().query(),
    ))
}

fn suggest_inner(
    state: &AppState,
    headers: &HeaderMap,
    raw: Option<&str>,
) -> Result<Response, ApiError> {
    if !state.has(Fault::AuthNotEnforced) {
        state.authenticate(headers)?;
    }
    let q = Query::parse(raw);
    let t = q.required("t")?;
    let l = parse_i32("l", q.required("l")?)?;
    if t.is_empty() {
        return Err(ApiError::BadRequest(
            "query parameter t must not be empty".into(),
        ));
    }
    let Ok(limit) = usize::try_from(l) else {
        return Err(ApiError::BadRequest(format!(
            "query parameter l must not be negative, got {l}"
        )));
    };
    let limit = limit.min(SUGGEST_CAP);
    let needle = t.to_lowercase();
    let mut found: Vec<&RiskCategory> = state
        .data
        .risk_categories
        .iter()
        .filter(|c| {
            if state.has(Fault::SuggestCaseSensitive) {
                c.name.contains(t)
            } else {
                c.name.to_lowercase().contains(&needle)
            }
        })
        .collect();
    found.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
    if !state.has(Fault::LimitIgnored) {
        found.truncate(limit);
    }
    Ok(Json(found).into_response())
}

fn respond(result: Result<Response, ApiError>) -> Response {
    result.unwrap_or_else(IntoResponse::into_response)
}
