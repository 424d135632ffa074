//! Rust type tokens for IR types.

use std::cell::Cell;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{ToTokens, quote};

use crate::ir::Ty;

/// An identifier from a name the lowering already made valid.
pub fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// Tokens that `quote!` moves into the stream it builds, where a `TokenStream` it is
/// given is cloned (`ToTokens` takes it by reference, and each token of the clone is
/// copied out of the shared one, an identifier's copy an allocation): for the large
/// fragments of a method or a model, interpolated once each. Interpolated a second
/// time it would give nothing, which debug builds (the tests) refuse.
pub struct Moved(Cell<Option<TokenStream>>);

/// `tokens`, to be moved into a `quote!` (see [`Moved`]).
pub fn moved(tokens: TokenStream) -> Moved {
    Moved(Cell::new(Some(tokens)))
}

impl ToTokens for Moved {
    fn to_tokens(&self, dst: &mut TokenStream) {
        let tokens = self.0.take();
        debug_assert!(tokens.is_some(), "moved tokens interpolated twice");
        dst.extend(tokens.into_iter().flatten());
    }
}

/// The type as a field or return type, with models reached through `models`
/// (empty inside `models.rs`, `crate::models::` elsewhere).
pub fn owned(ty: &Ty, models: &TokenStream) -> TokenStream {
    match ty {
        Ty::Bool => quote!(bool),
        Ty::I32 => quote!(i32),
        Ty::I64 => quote!(i64),
        Ty::F32 => quote!(f32),
        Ty::F64 => quote!(f64),
        Ty::String => quote!(String),
        Ty::DateTime => quote!(chrono::DateTime<chrono::FixedOffset>),
        Ty::Date => quote!(chrono::NaiveDate),
        Ty::Uuid => quote!(uuid::Uuid),
        Ty::Json => quote!(serde_json::Value),
        Ty::Named(n) => {
            let n = ident(n);
            quote!(#models #n)
        }
        Ty::Vec(inner) => {
            let inner = owned(inner, models);
            quote!(Vec<#inner>)
        }
        Ty::Map(inner) => {
            let inner = owned(inner, models);
            quote!(std::collections::BTreeMap<String, #inner>)
        }
        Ty::Option(inner) => {
            let inner = owned(inner, models);
            quote!(Option<#inner>)
        }
        Ty::Tuple(items) => {
            let items = items.iter().map(|t| owned(t, models));
            // The trailing comma keeps a one-item tuple a tuple.
            quote!((#(#items,)*))
        }
        Ty::Unit => quote!(()),
    }
}

/// The type as a method argument: strings and lists borrowed, numbers by value.
pub fn argument(ty: &Ty, models: &TokenStream) -> TokenStream {
    match ty {
        Ty::String => quote!(&str),
        Ty::Bool | Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64 => owned(ty, models),
        Ty::Vec(inner) => {
            let item = match inner.as_ref() {
                Ty::String => quote!(&str),
                other => owned(other, models),
            };
            quote!(&[#item])
        }
        other => {
            let t = owned(other, models);
            quote!(&#t)
        }
    }
}

/// Whether a value of the type is `Copy` in the generated code.
pub fn is_copy(ty: &Ty) -> bool {
    matches!(ty, Ty::Bool | Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64)
}

/// The names of the models that have a `validate()` (checks of their own or of a field's
/// type), in spec order.
pub fn validating(api: &crate::ir::Api) -> impl Iterator<Item = &str> {
    api.types.iter().filter_map(|t| match t {
        crate::ir::TypeDef::Struct(s) if s.validates => Some(s.name.as_str()),
        _ => None,
    })
}
