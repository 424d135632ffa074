//! `multipart/form-data` bodies: the form struct of each such body, the `FilePart` a file
//! property takes, and the statements that turn a form into `reqwest`'s multipart body.
//!
//! The caller fills in a struct with one field per property (a file is bytes plus an
//! optional file name and content type), so nothing about part names or encodings is left
//! to get wrong at the call site.

use proc_macro2::TokenStream;
use quote::quote;

use super::docs;
use super::types::{ident, owned};
use crate::ir::{Api, Body, BodyKind, Form, FormPartKind, Ty};

/// Every multipart body of the client (each operation's own and other encodings), with
/// the method that sends it.
fn forms(api: &Api) -> Vec<(&str, &Form)> {
    api.operations
        .iter()
        .flat_map(|op| {
            op.body
                .iter()
                .map(move |b| (op.name.as_str(), b))
                .chain(op.other_bodies.iter().map(|(n, b)| (n.as_str(), b)))
        })
        .filter(|(_, b)| b.kind == BodyKind::Multipart)
        .filter_map(|(method, b)| b.form.as_ref().map(|f| (method, f)))
        .collect()
}

/// Which parts of the runtime's multipart support the forms use: `FilePart` (some part
/// is a file, or a body has no form of its own) and `json_part` (some part is JSON).
pub fn runtime_parts(api: &Api) -> Vec<&'static str> {
    let bodies = api
        .operations
        .iter()
        .flat_map(|op| op.body.iter().chain(op.other_bodies.iter().map(|(_, b)| b)));
    let mut file = false;
    let mut json = false;
    for body in bodies.filter(|b| b.kind == BodyKind::Multipart) {
        // A form the caller builds (`reqwest::multipart::Form`) needs nothing of ours.
        let Some(form) = &body.form else {
            continue;
        };
        for part in &form.parts {
            file |= matches!(part.kind, FormPartKind::File);
            json |= matches!(part.kind, FormPartKind::Json(_));
        }
    }
    [("file_part", file), ("json_part", json)]
        .into_iter()
        .filter_map(|(name, used)| used.then_some(name))
        .collect()
}

/// The form structs, when some operation sends a multipart body (`FilePart` and
/// `json_part` are the runtime's, in its `client.rs`).
pub fn items(api: &Api, models: &TokenStream) -> TokenStream {
    let forms = forms(api);
    let mut out = TokenStream::new();
    let mut seen = Vec::new();
    for (method, form) in forms {
        if seen.contains(&form.name) {
            continue;
        }
        seen.push(form.name.clone());
        let name = ident(&form.name);
        let doc = docs::outer(&format!(
            "The parts of the `multipart/form-data` body of [`Client::{method}`]: one \
             field per property. An optional field left `None`, or an empty list, sends no \
             part."
        ));
        let fields = fields(form, models);
        out.extend(quote! {
            #doc
            #[derive(Clone, Debug, PartialEq)]
            pub struct #name {
                #fields
            }
        });
    }
    out
}

/// A form struct's fields, one per property (a file a `FilePart`, the client's or the
/// server's, whichever the struct's module names so): the client's form and the
/// server's are laid out alike.
pub fn fields(form: &Form, models: &TokenStream) -> TokenStream {
    let fields = form.parts.iter().map(|p| {
        let n = ident(&p.name);
        let fdoc = docs::outer(&p.doc);
        let item = match &p.kind {
            FormPartKind::File => quote!(FilePart),
            FormPartKind::Text(ty) | FormPartKind::Json(ty) => owned(ty, models),
        };
        let ty = match (p.list, p.required) {
            (true, _) => quote!(Vec<#item>),
            (false, true) => item,
            (false, false) => quote!(Option<#item>),
        };
        quote!(#fdoc pub #n: #ty,)
    });
    quote!(#(#fields)*)
}

/// The argument type of a multipart body: its form struct, or the `reqwest` form the
/// caller builds when the spec names no parts.
pub fn form_type(b: &Body) -> TokenStream {
    match &b.form {
        Some(form) => {
            let name = ident(&form.name);
            quote!(#name)
        }
        None => quote!(reqwest::multipart::Form),
    }
}

/// Statements putting a form (`body`) on `request`.
pub fn add_form(b: &Body) -> TokenStream {
    let Some(form) = &b.form else {
        return quote!(request = request.multipart(body););
    };
    let adds = form.parts.iter().map(|p| {
        let n = ident(&p.name);
        let wire = &p.wire;
        let put = match &p.kind {
            FormPartKind::Text(Ty::String) => quote!(form = form.text(#wire, value);),
            // chrono's `Display` is not RFC 3339.
            FormPartKind::Text(Ty::DateTime) => quote!(form = form.text(#wire, value.to_rfc3339());),
            FormPartKind::Text(_) => quote!(form = form.text(#wire, value.to_string());),
            FormPartKind::File => {
                quote!(form = form.part(#wire, value.into_part().map_err(crate::Error::transport)?);)
            }
            FormPartKind::Json(_) => quote!(form = form.part(#wire, json_part(&value));),
        };
        match (p.list, p.required) {
            (true, _) => quote!(for value in body.#n { #put }),
            (false, true) => quote!({ let value = body.#n; #put }),
            (false, false) => quote!(if let Some(value) = body.#n { #put }),
        }
    });
    quote! {
        let mut form = reqwest::multipart::Form::new();
        #(#adds)*
        request = request.multipart(form);
    }
}
