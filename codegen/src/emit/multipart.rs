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

/// The form structs and `FilePart`, when some operation sends a multipart body.
pub fn items(api: &Api, models: &TokenStream) -> TokenStream {
    let forms = forms(api);
    if forms.is_empty() {
        return TokenStream::new();
    }
    let mut out = quote! {
        /// A file sent as one part of a `multipart/form-data` body: its bytes, and the file
        /// name and content type to declare (none unless set). `Debug` shows only the size.
        #[derive(Clone, Default, PartialEq, Eq)]
        pub struct FilePart {
            /// The file's contents.
            pub bytes: Vec<u8>,
            /// The `filename` of the part's `Content-Disposition`.
            pub file_name: Option<String>,
            /// The part's `Content-Type` (`application/octet-stream` is what servers assume
            /// without one).
            pub content_type: Option<String>,
        }

        impl FilePart {
            /// A part holding `bytes`, with no file name or content type.
            pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
                Self { bytes: bytes.into(), file_name: None, content_type: None }
            }

            /// Declares the file name.
            #[must_use]
            pub fn file_name(mut self, name: impl Into<String>) -> Self {
                self.file_name = Some(name.into());
                self
            }

            /// Declares the content type (`image/png`).
            #[must_use]
            pub fn content_type(mut self, content_type: impl Into<String>) -> Self {
                self.content_type = Some(content_type.into());
                self
            }

            /// The `reqwest` part; a content type that is not a valid MIME type is an error
            /// of the request (`Error::Transport`), as `reqwest` reports it.
            fn into_part(self) -> Result<reqwest::multipart::Part, reqwest::Error> {
                let mut part = reqwest::multipart::Part::bytes(self.bytes);
                if let Some(name) = self.file_name {
                    part = part.file_name(name);
                }
                match self.content_type {
                    Some(content_type) => part.mime_str(&content_type),
                    None => Ok(part),
                }
            }
        }

        impl std::fmt::Debug for FilePart {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct("FilePart")
                    .field("bytes", &self.bytes.len())
                    .field("file_name", &self.file_name)
                    .field("content_type", &self.content_type)
                    .finish()
            }
        }
    };
    if forms.iter().any(|(_, f)| {
        f.parts
            .iter()
            .any(|p| matches!(p.kind, FormPartKind::Json(_)))
    }) {
        out.extend(quote! {
            /// A part holding `value` as JSON (`application/json`). Models and
            /// `serde_json::Value` have string keys only, so serializing cannot fail.
            fn json_part<T: serde::Serialize>(value: &T) -> reqwest::multipart::Part {
                let json = serde_json::to_string(value).unwrap_or_default();
                let mut headers = reqwest::header::HeaderMap::new();
                headers.insert(
                    reqwest::header::CONTENT_TYPE,
                    reqwest::header::HeaderValue::from_static("application/json"),
                );
                reqwest::multipart::Part::text(json).headers(headers)
            }
        });
    }
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
        out.extend(quote! {
            #doc
            #[derive(Clone, Debug, PartialEq)]
            pub struct #name {
                #(#fields)*
            }
        });
    }
    out
}

/// Statements putting a form (`body`) on `request`.
pub fn add_form(b: &Body) -> TokenStream {
    let Some(form) = &b.form else {
        return TokenStream::new();
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
