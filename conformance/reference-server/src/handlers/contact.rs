//! Operation 2, the contact-name update (`POST /v1/contactInfo/updatecontactinfoname`,
//! decisions 15-19). The record is replaced under one lock, so concurrent updates never
//! interleave, and it is persisted before the answer, so an acknowledged update
//! survives a crash. A rejected update never touches the record.

use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use trading_api::models::{UpdateContactInfoName, UpdateContactInfoResponse};

use crate::error::ApiError;
use crate::fault::Fault;
use crate::request::{read_body, require_media_type};
use crate::state::{AppState, lock};
use crate::validate::{Verdict, check_names};

/// `POST /v1/contactInfo/updatecontactinfoname`.
pub(crate) async fn update_contact_info_name(
    State(state): State<Arc<AppState>>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    match update(&state, &parts.headers, body).await {
        Ok(r) => r,
        Err(e) => e.into_response(),
    }
}

async fn update(
    state: &Arc<AppState>,
    headers: &HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let grant = state.authenticate(headers)?;
    require_media_type(headers, &["application/json"])?;
    let mut bytes = read_body(headers, body, state.read_timeout).await?;
    if state.has(Fault::NumbersCoercedToText) {
        bytes = numbers_as_text(&bytes).unwrap_or(bytes);
    }
    let request: UpdateContactInfoName = serde_json::from_slice(&bytes).map_err(|e| {
        ApiError::BadRequest(format!(
            "the JSON body does not match UpdateContactInfoName: {e}"
        ))
    })?;
    match check_names(&request, &state.faults) {
        Verdict::Accept => {}
        Verdict::Malformed(text) => return Err(ApiError::BadRequest(text)),
        Verdict::Rejected(text) => {
            let body = UpdateContactInfoResponse {
                error_text: Some(text),
                contact_info: None,
            };
            return Ok(Json(body).into_response());
        }
    }
    if state.has(Fault::ContactRefusesOldName) && renames_back(state, grant.user_id, &request) {
        let body = UpdateContactInfoResponse {
            error_text: Some("firstName was used before: choose another".into()),
            contact_info: None,
        };
        return Ok(Json(body).into_response());
    }
    let clobber = state.has(Fault::UpdateClobbersAddress);
    let keep_names = state.has(Fault::UpdateKeepsOldNames);
    let UpdateContactInfoName {
        first_name,
        last_name,
        country,
        phone,
        ..
    } = request;
    let (previous, updated) = {
        let mut contacts = lock(&state.contacts);
        let Some(record) = contacts.get_mut(&grant.user_id) else {
            return Err(ApiError::NotFound(
                "the authenticated user has no contact record".into(),
            ));
        };
        // The old record is only needed to undo a change the state file refused.
        let previous = state.persists().then(|| record.clone());
        if clobber {
            record.street_address1 = format!("{first_name} {last_name}");
            record.city = country.clone();
        }
        if !keep_names {
            record.first_name = first_name;
            record.last_name = last_name;
        }
        record.country = country;
        record.phone = phone;
        (previous, record.clone())
    };
    if let Err(e) = state.persist_async().await {
        // Not acknowledged, so not kept: put the record back unless a later update
        // has already replaced it.
        let mut contacts = lock(&state.contacts);
        if let Some(previous) = previous
            && contacts.get(&grant.user_id) == Some(&updated)
        {
            contacts.insert(grant.user_id, previous);
        }
        return Err(e);
    }
    let body = UpdateContactInfoResponse {
        error_text: Some(String::new()),
        contact_info: Some(updated),
    };
    Ok(Json(body).into_response())
}

/// Whether `request` gives a renamed record the first name it had in the data set.
fn renames_back(state: &AppState, user_id: i64, request: &UpdateContactInfoName) -> bool {
    let original = state.data.contacts().remove(&user_id);
    let current = lock(&state.contacts).get(&user_id).cloned();
    matches!((original, current), (Some(o), Some(c))
        if c.first_name != o.first_name && request.first_name == o.first_name)
}

/// The body with each top-level number replaced by its text, as a lenient server reads it
/// (`None` when the body is not a JSON object: the strict reading reports it).
fn numbers_as_text(bytes: &[u8]) -> Option<axum::body::Bytes> {
    let serde_json::Value::Object(mut body) = serde_json::from_slice(bytes).ok()? else {
        return None;
    };
    for v in body.values_mut() {
        if let serde_json::Value::Number(n) = v {
            *v = serde_json::Value::String(n.to_string());
        }
    }
    serde_json::to_vec(&body).ok().map(Into::into)
}
