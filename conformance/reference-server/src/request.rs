//! What the server reads of a request outside the generated router: the query of the
//! authorization step, the body within its limit and time, a bearer token for the
//! seeded faults that answer before the router judges.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, header};

use crate::error::ApiError;

/// Largest accepted request body, in bytes: the spec's `x-max-body`.
pub fn max_body() -> usize {
    crate::contract::contract().max_body
}

/// The decoded query string, in order, duplicates kept.
pub(crate) struct Query(Vec<(String, String)>);

impl Query {
    pub(crate) fn parse(raw: Option<&str>) -> Self {
        Query(
            form_urlencoded::parse(raw.unwrap_or("").as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    /// Every value of `name`, in order.
    pub(crate) fn all(&self, name: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The single value of a scalar parameter; missing or repeated is a 400.
    pub(crate) fn one(&self, name: &str) -> Result<Option<&str>, ApiError> {
        match self.all(name).as_slice() {
            [] => Ok(None),
            [v] => Ok(Some(v)),
            _ => Err(ApiError::BadRequest(format!(
                "query parameter {name} is given more than once"
            ))),
        }
    }

    /// The single value of a required scalar parameter.
    pub(crate) fn required(&self, name: &str) -> Result<&str, ApiError> {
        self.one(name)?
            .ok_or_else(|| ApiError::BadRequest(format!("missing query parameter: {name}")))
    }
}

/// A bounded, quoted excerpt of client input for error texts.
pub(crate) fn excerpt(value: &str) -> String {
    const MAX: usize = 40;
    if value.chars().count() <= MAX {
        format!("{value:?}")
    } else {
        let cut: String = value.chars().take(MAX).collect();
        format!("{cut:?}...")
    }
}

/// Reads the body, at most [`max_body`] bytes (413 beyond), within `timeout` (408
/// beyond: a client that stalls mid-body must not hold a connection forever).
pub(crate) async fn read_body(
    headers: &HeaderMap,
    body: Body,
    timeout: std::time::Duration,
) -> Result<Bytes, ApiError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let limit = max_body();
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(ApiError::PayloadTooLarge);
    }
    let read = tokio::time::timeout(timeout, axum::body::to_bytes(body, limit));
    let Ok(read) = read.await else {
        return Err(ApiError::RequestTimeout(timeout));
    };
    read.map_err(|e| {
        let inner = e.into_inner();
        if inner.is::<http_body_util::LengthLimitError>() {
            ApiError::PayloadTooLarge
        } else {
            ApiError::BadRequest(format!("cannot read the request body: {inner}"))
        }
    })
}

/// The token of an `Authorization: Bearer <token>` header; `None` when the header is
/// missing or malformed (scheme other than Bearer, empty token, characters outside
/// RFC 6750's token68).
pub(crate) fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim_start_matches(' ');
    (scheme.eq_ignore_ascii_case("bearer") && is_token68(token)).then_some(token)
}

/// Whether a bearer token is RFC 6750's `token68`: not empty, and no character outside
/// it (a comma, a space).
pub(crate) fn is_token68(token: &str) -> bool {
    !token.is_empty()
        && token.trim_end_matches('=').bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/')
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn query_keeps_duplicates_and_decodes() {
        let q = Query::parse(Some("names=CME%20Group&names=CBOT&l=3"));
        assert_eq!(q.all("names"), ["CME Group", "CBOT"]);
        assert_eq!(q.required("l").unwrap(), "3");
        assert!(q.required("names").is_err());
        assert!(q.required("t").is_err());
    }

    #[test]
    fn bearer_parsing() {
        let mut h = HeaderMap::new();
        assert!(bearer_token(&h).is_none());
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer abc-DEF_1"),
        );
        assert_eq!(bearer_token(&h), Some("abc-DEF_1"));
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert!(bearer_token(&h).is_none());
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert!(bearer_token(&h).is_none());
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer a,b"),
        );
        assert!(bearer_token(&h).is_none());
    }

    #[test]
    fn excerpt_is_bounded() {
        assert!(excerpt(&"x".repeat(1000)).len() < 60);
    }
}
