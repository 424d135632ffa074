//! Operation 2, the contact-name update (`POST /v1/contactInfo/updatecontactinfoname`,
//! decisions 15-19). The record is replaced under one lock, so concurrent updates never
//! interleave, and it is persisted before the answer, so an acknowledged update
//! survives a crash. A rejected update never touches the record.

use std::sync::Arc;

use trading_api::models::{ErrorResponse, UpdateContactInfoName, UpdateContactInfoResponse};
use trading_api::server::{Problem, UpdateContactInfoNameRequest, UpdateContactInfoNameResponse};

use crate::contract::unauthorized;
use crate::fault::Fault;
use crate::name_rules::{Verdict, check_names};
use crate::state::{AppState, lock};

/// `POST /v1/contactInfo/updatecontactinfoname`.
pub(crate) async fn update_contact_info_name(
    state: &Arc<AppState>,
    request: UpdateContactInfoNameRequest,
) -> Result<UpdateContactInfoNameResponse, Problem> {
    let grant = request
        .credentials
        .bearer_auth
        .as_ref()
        .and_then(|t| state.grant(t.expose()))
        .ok_or_else(unauthorized)?;
    let request = request.body;
    match check_names(&request, &state.faults) {
        Verdict::Accept => {}
        Verdict::Malformed(text) => {
            return Ok(UpdateContactInfoNameResponse::BadRequest(ErrorResponse {
                error_text: text,
            }));
        }
        Verdict::Rejected(text) => return Ok(rejected(text)),
    }
    if state.has(Fault::ContactRefusesOldName) && renames_back(state, grant.user_id, &request) {
        return Ok(rejected("firstName was used before: choose another".into()));
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
            return Err(Problem::new(
                axum::http::StatusCode::NOT_FOUND,
                "the authenticated user has no contact record",
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
    Ok(UpdateContactInfoNameResponse::Ok(
        UpdateContactInfoResponse {
            error_text: Some(String::new()),
            contact_info: Some(updated),
        },
    ))
}

/// A refused update: `200` with the reason in `errorText` and no record (decision 17).
fn rejected(text: String) -> UpdateContactInfoNameResponse {
    UpdateContactInfoNameResponse::Ok(UpdateContactInfoResponse {
        error_text: Some(text),
        contact_info: None,
    })
}

/// Whether `request` gives a renamed record the first name it had in the data set.
fn renames_back(state: &AppState, user_id: i64, request: &UpdateContactInfoName) -> bool {
    let original = state.data.contacts().remove(&user_id);
    let current = lock(&state.contacts).get(&user_id).cloned();
    matches!((original, current), (Some(o), Some(c))
        if c.first_name != o.first_name && request.first_name == o.first_name)
}
