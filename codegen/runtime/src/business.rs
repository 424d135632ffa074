//! Business rejections (`x-business-error`): a success status whose body reports, in a
//! field the spec names, that the request was refused.
//!
//! Copied into a generated crate only when some operation of its spec declares
//! `x-business-error`; the `Error::Business` variant is copied with it.

use reqwest::StatusCode;

use crate::error::{Answer, Error, Response, Undecodable};

impl Answer {
    /// A documented success unless the body reports a rejection (`reported`
    /// names the field that does): then `Error::Business` with `rejected(body)`.
    #[allow(clippy::result_large_err)]
    pub(crate) fn success_unless<B, E>(
        self,
        decode: impl FnOnce(&[u8]) -> Result<B, Undecodable>,
        reported: impl FnOnce(&B) -> Option<&'static str>,
        rejected: impl FnOnce(StatusCode, B) -> E,
    ) -> Result<Response<B>, Error<E>> {
        let body = match decode(&self.body) {
            Ok(body) => body,
            Err(source) => return Err(self.undecodable(source)),
        };
        match reported(&body) {
            None => Ok(Response::new(self.status, self.headers, body)),
            Some(field) => Err(Error::Business {
                status: self.status,
                headers: self.headers,
                field,
                error: rejected(self.status, body),
                body: self.body,
            }),
        }
    }
}

/// The first of `fields` (wire name, value) whose value is a non-empty string.
pub(crate) fn first_reported(fields: &[(&'static str, Option<&str>)]) -> Option<&'static str> {
    fields
        .iter()
        .find(|(_, value)| value.is_some_and(|v| !v.is_empty()))
        .map(|(name, _)| *name)
}
