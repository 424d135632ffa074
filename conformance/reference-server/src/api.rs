//! The six operations as the generated server's [`Api`]: the generated router reads,
//! judges and decodes each request against the spec, and answers what the spec implies
//! (404, 405, 413, 415, the declared 400); what is left here is the platform's own
//! behaviour, in the handlers, and who may call: bearer tokens, checked once in
//! [`Api::authorize`] before any parameter is judged, so a request without a good token
//! gets its 401 (decision 1b) before it learns what else is wrong with it.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use trading_api::server::{
    Api, Credentials, ExchangeTokenRequest, ExchangeTokenResponse, FindExchangeScopesRequest,
    FindExchangeScopesResponse, GetCategoryPositionLimitRequest, GetCategoryPositionLimitResponse,
    ListCategoryPositionLimitsRequest, ListCategoryPositionLimitsResponse, Operation, Problem,
    SuggestRiskCategoriesRequest, SuggestRiskCategoriesResponse, UpdateContactInfoNameRequest,
    UpdateContactInfoNameResponse,
};

use crate::contract::unauthorized;
use crate::fault::Fault;
use crate::handlers::{contact, lookups, oauth};
use crate::state::AppState;

/// The reference implementation, sharing its state with every clone of the router.
#[derive(Clone)]
pub(crate) struct Reference(pub(crate) Arc<AppState>);

impl Api for Reference {
    async fn authorize(
        &self,
        operation: Operation,
        credentials: &Credentials,
    ) -> Result<(), Problem> {
        let state = &self.0;
        if operation.security.is_empty() {
            return Ok(());
        }
        if operation.method == "suggest_risk_categories" && state.has(Fault::AuthNotEnforced) {
            return Ok(());
        }
        let token = credentials
            .bearer_auth
            .as_ref()
            .map(|t| t.expose())
            .filter(|t| crate::request::is_token68(t))
            .ok_or_else(unauthorized)?;
        if operation.method == "list_category_position_limits"
            && state.has(Fault::UnknownTokenAccepted)
        {
            return Ok(());
        }
        state.grant(token).map(drop).ok_or_else(unauthorized)
    }

    fn refused(&self, operation: Operation, problem: &Problem, answer: Response) -> Response {
        // RFC 6749 §5.2: a token request that cannot be read is `invalid_request`, in
        // the token endpoint's own body, whatever the schema's message fields say.
        if operation.method == "exchange_token" && problem.status == StatusCode::BAD_REQUEST {
            return oauth::OAuthError::new("invalid_request", problem.detail.clone())
                .into_response();
        }
        answer
    }

    async fn exchange_token(
        &self,
        request: ExchangeTokenRequest,
    ) -> Result<ExchangeTokenResponse, Problem> {
        oauth::exchange_token(&self.0, request).await
    }

    async fn update_contact_info_name(
        &self,
        request: UpdateContactInfoNameRequest,
    ) -> Result<UpdateContactInfoNameResponse, Problem> {
        contact::update_contact_info_name(&self.0, request).await
    }

    async fn list_category_position_limits(
        &self,
        request: ListCategoryPositionLimitsRequest,
    ) -> Result<ListCategoryPositionLimitsResponse, Problem> {
        Ok(lookups::deps(&self.0, &request))
    }

    async fn get_category_position_limit(
        &self,
        request: GetCategoryPositionLimitRequest,
    ) -> Result<GetCategoryPositionLimitResponse, Problem> {
        lookups::item(&self.0, &request)
    }

    async fn find_exchange_scopes(
        &self,
        request: FindExchangeScopesRequest,
    ) -> Result<FindExchangeScopesResponse, Problem> {
        Ok(lookups::finds(&self.0, &request))
    }

    async fn suggest_risk_categories(
        &self,
        request: SuggestRiskCategoriesRequest,
    ) -> Result<SuggestRiskCategoriesResponse, Problem> {
        lookups::suggest(&self.0, &request).await
    }
}
