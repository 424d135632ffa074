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
    let server_modules = api.server_document.is_some().then(|| {
        quote! {
            #[cfg(feature = "server")]
            #[rustfmt::skip]
            pub mod server;
            #[cfg(feature = "server")]
            #[rustfmt::skip]
            mod server_document;
            // The server runtime is the same text in every crate; the parts the spec's
            // operations do not call (cookie parameters, Basic credentials) stay unused.
            #[cfg(feature = "server")]
            #[rustfmt::skip]
            #[allow(dead_code)]
            mod server_runtime;
        }
    });
    let secret_fields = secret_fields(api);
    let offsetless = offsetless(api);
    // Lines as they are (an example's indentation is its layout), each with the space
    // rustdoc strips after `//!`.
    let example = api.crate_name.as_deref().map(|name| {
        let code = super::example::code(api, &super::example::lib_name(name));
        let section = super::example::rustdoc(&code, api.client);
        let lines: Vec<String> = std::iter::once(String::new())
            .chain(section.lines().map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!(" {l}")
                }
            }))
            .collect();
        quote! { #(#![doc = #lines])* }
    });
    let lints = lints();
    if !api.client {
        return server_only(&doc, example, &lints, server_modules);
    }
    quote! {
        #doc
        #![doc = ""]
        #![doc = " Generated from the spec: [`models`] holds one type per schema, [`Client`] one"]
        #![doc = " method per operation (async, or giving a request builder whose `send()` is"]
        #![doc = " async where an operation has more than three optional parameters), and"]
        #![doc = " [`Error`] separates transport failures,"]
        #![doc = " documented error answers, undocumented ones, undecodable bodies and requests"]
        #![doc = " refused before sending because they break the spec's constraints."]
        #example
        #lints

        // rustfmt would re-wrap the printed code; the generator's bytes are the truth.
        #[rustfmt::skip]
        pub mod client;
        #[rustfmt::skip]
        mod error;
        #(#[rustfmt::skip] mod #runtime;)*
        #[rustfmt::skip]
        pub mod models;
        #server_modules

        pub use client::{Client, ClientBuilder};
        pub use error::{Constraint, ConstraintViolation, Error, Response, RetryPolicy};
        // Two short lines: prettyplease and rustfmt wrap a long one differently.
        pub use error::{DocumentedError, InvalidBearerToken};
        pub use error::TokenError;
        pub use error::{CallInfo, Hook, Received};
        #token_source
        #credential_error
        #secret_fields
        #offsetless
    }
}

/// The crate's lint levels, the same with or without the client.
fn lints() -> TokenStream {
    quote! {
        #![warn(missing_docs)]
        // Spec prose is Markdown for other tools; rustdoc's HTML and link checks do not apply.
        #![allow(rustdoc::bare_urls, rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]
        #![allow(clippy::doc_lazy_continuation, clippy::doc_overindented_list_items)]
        // Variant names are the spec's words (its enum values, its statuses' reasons): when
        // they all share a word, dropping it would part them from what the spec says.
        #![allow(clippy::enum_variant_names)]
    }
}

/// `lib.rs` of a crate without its client (`--server-only`): the models and the server
/// modules, no client runtime, no re-exports of it.
fn server_only(
    doc: &TokenStream,
    example: Option<TokenStream>,
    lints: &TokenStream,
    server_modules: Option<TokenStream>,
) -> TokenStream {
    quote! {
        #doc
        #![doc = ""]
        #![doc = " Generated from the spec without its client: [`models`] holds one type per"]
        #![doc = " schema, `server` (feature `server`, on by default) a typed request and"]
        #![doc = " answer per operation, the `Api` trait to implement and the axum `router`"]
        #![doc = " that judges every request against the spec before `Api` sees it."]
        #example
        #lints

        // rustfmt would re-wrap the printed code; the generator's bytes are the truth.
        #[rustfmt::skip]
        pub mod models;
        #server_modules
    }
}

/// `OFFSETLESS_DATE_TIME_AS_UTC`, which the date-time readers of `error.rs` read, when
/// an answer model has a date-time field: at the crate root beside `SECRET_FIELDS`, for
/// the same reason.
fn offsetless(api: &Api) -> TokenStream {
    let reads_date_times = super::models::reader_parts(api)
        .iter()
        .any(|part| part.starts_with("date_time"));
    if !reads_date_times {
        return TokenStream::new();
    }
    let as_utc = api.tolerant;
    let doc = if as_utc {
        "Whether a `format: date-time` answer value without its UTC offset \
         (`2026-11-27T23:19:25`) is read as UTC: yes, as the crate was generated with \
         `--tolerant`. That assumes the server means UTC; a server sending local time \
         would be read hours off."
    } else {
        "Whether a `format: date-time` answer value without its UTC offset \
         (`2026-11-27T23:19:25`) is read as UTC: no (RFC 3339 requires the offset), so \
         such a value fails to decode naming the field and the value. Generate with \
         `--tolerant` to read it as UTC."
    };
    quote! {
        #[doc = #doc]
        pub(crate) const OFFSETLESS_DATE_TIME_AS_UTC: bool = #as_utc;
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
