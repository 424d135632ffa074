//! One module per group of operations.

pub(crate) mod contact;
pub(crate) mod lookups;
pub(crate) mod oauth;
