//! The runtime every generated crate carries, as ordinary Rust: compiled, linted and
//! tested here, and copied as text into each generated crate by `codegen`'s
//! `emit::runtime`, so that the generated crate depends on no support library.
//!
//! Every module but this root and `tests` is copied: `error.rs` always, `client.rs`
//! appended to the generated operations, `penalty.rs`, `business.rs` and `encode.rs`
//! when the spec needs them. Lines between `// @if NAME`
//! and `// @end` are copied only where `NAME` is needed (see
//! `codegen::emit::runtime::Needs`); this crate compiles them all, so every variant and
//! helper is type-checked and linted here, and the corpus compile test proves each
//! reduced copy.
//!
//! This root stands for a generated crate's `lib.rs`: the same modules and re-exports,
//! so `crate::…` paths in the copied files resolve alike in both places.

// The helpers are called by generated operation code, which this crate does not have;
// a generated crate gets only the helpers its operations call, so its own build
// catches a helper nobody uses.
#![allow(dead_code)]

mod business;
mod client;
mod encode;
mod error;
mod penalty;
pub mod server;
#[cfg(test)]
mod tests;

pub use client::{
    Client, ClientBuilder, InvalidCredential, RefreshGrant, RefreshingTokenSource, TokenFuture,
    TokenSource,
};
pub use error::{
    CallInfo, Constraint, ConstraintViolation, DocumentedError, Error, Hook, InvalidBearerToken,
    Received, Response, RetryPolicy, TokenError,
};

/// Stands for what the generator writes from the spec into a crate's `lib.rs`: the wire
/// names of the fields the spec marks secret. At the root, because `error.rs` reads it
/// and every other module builds on `error.rs`.
pub(crate) const SECRET_FIELDS: &[&str] = &["httpAuth"];

/// Stands for what the generator writes into a crate's `lib.rs` when an answer holds a
/// `format: date-time`: whether one without its UTC offset is read as UTC (`--tolerant`).
pub(crate) const OFFSETLESS_DATE_TIME_AS_UTC: bool = false;

/// Stands for what the generator writes from the spec into a crate's `client.rs` beside
/// the runtime's part (which imports it in a region no crate gets): the credentials of
/// the spec's security schemes and the path of a relative server URL.
mod spec {
    /// One field per security scheme in a generated crate.
    #[derive(Debug, Default)]
    pub(crate) struct Credentials {}

    impl crate::client::Client {
        /// A relative `servers` URL's path.
        pub(crate) const SERVER_PATH: &'static str = "/api";
    }
}
