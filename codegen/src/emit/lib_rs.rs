//! `lib.rs`: crate docs, lints, modules and re-exports.

use proc_macro2::TokenStream;
use quote::quote;

use super::docs;
use crate::ir::Api;

/// The tokens of `lib.rs`; `runtime` names the private runtime modules copied beside
/// `error.rs` (see `runtime::Needs::modules`).
pub fn emit(api: &Api, runtime: &[&str]) -> TokenStream {
    let runtime = runtime.iter().map(|name| super::types::ident(name));
    let doc = docs::inner(&api.doc);
    let credential_error = (!api.schemes.is_empty()).then(|| {
        quote! {
            pub use client::InvalidCredential;
        }
    });
    let bearer = api
        .schemes
        .iter()
        .any(|s| matches!(s.kind, crate::ir::SchemeKind::Bearer(_)));
    let refreshing: Vec<_> = super::auth::refreshing(api)
        .into_iter()
        .map(|(_, name)| super::types::ident(&name))
        .collect();
    let grants = refreshing
        .iter()
        .map(|name| super::types::ident(&super::auth::grant_name(&name.to_string())));
    let refreshing_runtime = (!refreshing.is_empty()).then(|| {
        quote! {
            pub use client::{RefreshGrant, RefreshingTokenSource};
        }
    });
    let token_source = bearer.then(|| {
        quote! {
            pub use client::{TokenFuture, TokenSource};
            #refreshing_runtime
            #(pub use client::#refreshing;)*
            #(pub use client::#grants;)*
        }
    });
    let secret_fields = secret_fields(api);
    quote! {
        #doc
        #![doc = ""]
        #![doc = " Generated from the spec: [`models`] holds one type per schema, [`Client`] one"]
        #![doc = " method per operation (async, or giving a request builder whose `send()` is"]
        #![doc = " async where an operation has more than three optional parameters), and"]
        #![doc = " [`Error`] separates transport failures,"]
        #![doc = " documented error answers, undocumented ones, undecodable bodies and requests"]
        #![doc = " refused before sending because they break the spec's constraints."]
        #![warn(missing_docs)]
        // Spec prose is Markdown for other tools; rustdoc's HTML and link checks do not apply.
        #![allow(rustdoc::bare_urls, rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]
        #![allow(clippy::doc_lazy_continuation, clippy::doc_overindented_list_items)]
        // Variant names are the spec's words (its enum values, its statuses' reasons): when
        // they all share a word, dropping it would part them from what the spec says.
        #![allow(clippy::enum_variant_names)]

        // rustfmt would re-wrap the printed code; the generator's bytes are the truth.
        #[rustfmt::skip]
        pub mod client;
        #[rustfmt::skip]
        mod error;
        #(#[rustfmt::skip] mod #runtime;)*
        #[rustfmt::skip]
        pub mod models;

        pub use client::{Client, ClientBuilder};
        pub use error::{Constraint, ConstraintViolation, Error, Response, RetryPolicy};
        // Two short lines: prettyplease and rustfmt wrap a long one differently.
        pub use error::{DocumentedError, InvalidBearerToken};
        pub use error::TokenError;
        pub use error::{CallInfo, Hook, Received};
        #token_source
        #credential_error
        #secret_fields
    }
}

/// The `SECRET_FIELDS` constant the runtime masks in the body excerpt `Display` shows
/// of an error, when the spec marks any field secret. At the crate root because
/// `error.rs` reads it: on `Client`, where it was, it made `error.rs` and `client.rs`
/// import each other.
fn secret_fields(api: &Api) -> TokenStream {
    let names = super::client::secret_fields(api);
    if names.is_empty() {
        return TokenStream::new();
    }
    quote! {
        /// The wire names of the fields the spec marks secret (`x-secret`,
        /// `format: password`): masked wherever an error's `Display` shows its body.
        pub(crate) const SECRET_FIELDS: &[&str] = &[#(#names),*];
    }
}
