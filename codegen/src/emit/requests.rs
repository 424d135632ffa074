//! Request builders: an operation with more than [`MAX_POSITIONAL_OPTIONAL`] optional
//! parameters is called through a builder rather than positional arguments.
//!
//! `client.get_dags().limit(10).tags(["x"]).send().await`: the method that makes the
//! builder takes the required parameters (path parameters, required query, header and
//! cookie parameters, and a required body), so none can be forgotten; each optional
//! parameter (and an optional body) has a setter; `send` returns what the positional
//! method would. The request itself is still built by one private method with every
//! argument positional (the code every other operation uses), which `send` calls.

use std::collections::HashSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::docs;
use super::types::{ident, is_copy, owned};
use crate::ir::{Api, Body, BodyKind, Operation, Param, Ty};

/// The most optional parameters an operation takes positionally. Beyond it a call site
/// is mostly `None, None, None, …`, where nothing says which `None` is which, and every
/// optional parameter the spec adds later breaks every caller; with up to three the
/// positional form reads well and needs no extra type.
pub const MAX_POSITIONAL_OPTIONAL: usize = 3;

/// Whether an operation is called through a builder.
pub fn uses_builder(op: &Operation) -> bool {
    op.params.iter().filter(|p| !p.required).count() > MAX_POSITIONAL_OPTIONAL
}

/// The names of one method's builder: its type and the private positional method that
/// `send` calls.
pub struct Names {
    /// The builder type (`GetDagsRequest`).
    pub ty: Ident,
    /// The private method building and sending the request (`send_get_dags`).
    pub private: Ident,
}

/// The builder names of every method of every operation that uses a builder, by
/// method name, chosen in spec order so that they are deterministic.
///
/// The names are kept as text, so that the threads that emit `client.rs` share them.
pub struct Builders(std::collections::HashMap<String, (String, String)>);

impl Builders {
    /// Names every builder of `api`. `methods` lists each operation's method names (the
    /// main one, other bodies, the streaming twin, negotiation twins); `types` the type
    /// names `client.rs` already uses.
    pub fn of(api: &Api, methods: &[(usize, Vec<String>)], types: HashSet<String>) -> Self {
        let mut taken_types = types;
        let mut taken_methods: HashSet<String> = crate::names::CLIENT_METHODS
            .iter()
            .map(|m| (*m).to_owned())
            .chain(methods.iter().flat_map(|(_, names)| names.iter().cloned()))
            .collect();
        let mut out = std::collections::HashMap::new();
        for (index, names) in methods {
            if !uses_builder(&api.operations[*index]) {
                continue;
            }
            for name in names {
                let bare = name.trim_start_matches("r#");
                let base = format!("{}Request", crate::names::pascal(bare));
                let mut ty = base.clone();
                let mut n = 2;
                while taken_types.contains(&ty) {
                    ty = format!("{base}{n}");
                    n += 1;
                }
                taken_types.insert(ty.clone());
                let mut private = format!("send_{bare}");
                while taken_methods.contains(&private) {
                    private.push('_');
                }
                taken_methods.insert(private.clone());
                out.insert(name.clone(), (ty, private));
            }
        }
        Builders(out)
    }

    /// The builder of a method, if it has one.
    pub fn get(&self, method: &str) -> Option<Names> {
        self.0.get(method).map(|(ty, private)| Names {
            ty: format_ident!("{}", ty),
            private: format_ident!("{}", private),
        })
    }
}

/// What one method's builder is made of (see [`emit`]).
pub struct Parts<'a> {
    pub op: &'a Operation,
    pub method: &'a str,
    pub body: Option<&'a Body>,
    /// Spec prose, the verb and path, credentials, encodings: the doc of the method
    /// that makes the builder, before its arguments.
    pub intro: String,
    /// The `# Errors` section of `send`.
    pub errors: String,
    /// What `send` returns inside `Result`, and the error enum.
    pub ret: TokenStream,
    pub err: Ident,
    pub deprecated: Option<TokenStream>,
}

/// The name of the private field holding the client: `client`, which lowering keeps
/// from every parameter (see `METHOD_LOCALS`).
fn client_field() -> Ident {
    ident("client")
}

/// The type a setter (or the builder-making method) takes for a value of `ty`, and the
/// expression turning `value` into the stored one (`None` when it is stored as given).
fn input(ty: &Ty, value: &Ident, models: &TokenStream) -> (TokenStream, Option<TokenStream>) {
    match ty {
        Ty::String => (quote!(impl Into<String>), Some(quote!(#value.into()))),
        Ty::Vec(item) if **item == Ty::String => (
            quote!(impl IntoIterator<Item = impl Into<String>>),
            Some(quote!(#value.into_iter().map(Into::into).collect())),
        ),
        Ty::Vec(item) => {
            let item = owned(item, models);
            (
                quote!(impl IntoIterator<Item = #item>),
                Some(quote!(#value.into_iter().collect())),
            )
        }
        other => (owned(other, models), None),
    }
}

/// A field initializer: `name` from the argument `name`, converted.
fn init(name: &Ident, convert: Option<TokenStream>) -> TokenStream {
    match convert {
        Some(c) => quote!(#name: #c,),
        None => quote!(#name,),
    }
}

/// Statements turning the stored value `name` into the positional method's argument
/// (see `types::argument`), shadowing it.
fn to_argument(name: &Ident, ty: &Ty, required: bool) -> TokenStream {
    match (ty, required) {
        (t, _) if is_copy(t) => TokenStream::new(),
        (Ty::Vec(item), true) if **item == Ty::String => quote! {
            let #name: Vec<&str> = #name.iter().map(String::as_str).collect();
            let #name = #name.as_slice();
        },
        (Ty::Vec(item), false) if **item == Ty::String => quote! {
            let #name: Option<Vec<&str>> = #name.as_ref().map(|items| items.iter().map(String::as_str).collect());
            let #name = #name.as_deref();
        },
        (Ty::String | Ty::Vec(_), false) => quote!(let #name = #name.as_deref();),
        (_, false) => quote!(let #name = #name.as_ref();),
        (Ty::String, true) => quote!(let #name = #name.as_str();),
        (Ty::Vec(_), true) => quote!(let #name = #name.as_slice();),
        (_, true) => quote!(let #name = &#name;),
    }
}

/// The stored type of a body, what its setter or argument takes and how that becomes
/// the stored value, and the statements turning the stored `body` into the positional
/// method's argument.
fn body_parts(
    b: &Body,
    value: &Ident,
    models: &TokenStream,
) -> (TokenStream, TokenStream, Option<TokenStream>, TokenStream) {
    match b.kind {
        BodyKind::Text => (
            quote!(String),
            quote!(impl Into<String>),
            Some(quote!(#value.into())),
            TokenStream::new(),
        ),
        BodyKind::Binary => (
            quote!(reqwest::Body),
            quote!(impl Into<reqwest::Body>),
            Some(quote!(#value.into())),
            TokenStream::new(),
        ),
        BodyKind::Multipart => {
            let name = super::multipart::form_type(b);
            (quote!(#name), quote!(#name), None, TokenStream::new())
        }
        BodyKind::Json | BodyKind::Form => {
            let stored = owned(&b.ty, models);
            let (input, convert) = input(&b.ty, value, models);
            let body = ident("body");
            (
                stored,
                input,
                convert,
                to_argument(&body, &b.ty, b.required),
            )
        }
    }
}

/// The builder of one method: the method making it (inside `impl Client`) and the
/// builder type with its setters and `send` (items of `client.rs`). The private
/// positional method is printed by the caller.
pub fn emit(parts: &Parts, names: &Names, models: &TokenStream) -> (TokenStream, TokenStream) {
    let Parts {
        op,
        method,
        body,
        intro,
        errors,
        ret,
        err,
        deprecated,
    } = parts;
    let ty = &names.ty;
    let private = &names.private;
    let client = client_field();
    let method_ident = ident(method);
    let value = ident("value");

    let mut fields = Vec::new();
    let mut make_args = Vec::new();
    let mut inits = Vec::new();
    let mut setters = Vec::new();
    let mut arg_docs = Vec::new();
    let mut optional_docs = Vec::new();
    let mut conversions = Vec::new();
    let mut call_args = Vec::new();
    let mut bindings = Vec::new();
    for p in &op.params {
        let name = ident(&p.name);
        let stored = owned(&p.ty, models);
        bindings.push(quote!(#name));
        conversions.push(to_argument(&name, &p.ty, p.required));
        call_args.push(quote!(#name));
        if p.required {
            let (input, convert) = input(&p.ty, &name, models);
            fields.push(quote!(#name: #stored,));
            make_args.push(quote!(#name: #input));
            inits.push(init(&name, convert));
            arg_docs.push(format!("- `{}`: {}", p.name, one_line(&p.doc)));
        } else {
            let (input, convert) = input(&p.ty, &value, models);
            let convert = convert.unwrap_or_else(|| quote!(value));
            fields.push(quote!(#name: Option<#stored>,));
            inits.push(quote!(#name: None,));
            setters.push(setter(&name, p, &input, &convert));
            // `[label](target): text`, not `[label]: text`, which Markdown reads as a link
            // definition when the text is one word (a parameter described as `JSONP`).
            let setter = p.name.trim_start_matches("r#");
            optional_docs.push(format!(
                "- [`{setter}`]({ty}::{setter}): {}",
                first_line(&p.doc)
            ));
        }
    }
    if let Some(b) = body {
        let name = ident("body");
        let given = if b.required { &name } else { &value };
        let (stored, input, convert, to_arg) = body_parts(b, given, models);
        bindings.push(quote!(#name));
        conversions.push(to_arg);
        call_args.push(quote!(#name));
        if b.required {
            fields.push(quote!(#name: #stored,));
            make_args.push(quote!(#name: #input));
            inits.push(init(&name, convert));
            arg_docs.push(format!("- `body`: {}", one_line(&b.doc)));
        } else {
            fields.push(quote!(#name: Option<#stored>,));
            inits.push(quote!(#name: None,));
            let convert = convert.unwrap_or_else(|| quote!(value));
            let doc = docs::outer(&format!(
                "{}\n\nOptional: no body is sent unless this is called.",
                b.doc
            ));
            setters.push(quote! {
                #doc
                pub fn body(mut self, value: #input) -> Self {
                    self.body = Some(#convert);
                    self
                }
            });
            optional_docs.push(format!("- [`body`]({ty}::body): {}", first_line(&b.doc)));
        }
    }

    let mut make_doc = intro.clone();
    make_doc.push_str(&format!(
        "\n\nReturns a [`{ty}`]: set the optional parameters with its setters, then send \
         it with [`{ty}::send`]. An optional parameter left unset is not sent."
    ));
    if !arg_docs.is_empty() {
        make_doc.push_str("\n\n# Arguments\n\n");
        make_doc.push_str(&arg_docs.join("\n"));
    }
    make_doc.push_str("\n\n# Optional parameters\n\n");
    make_doc.push_str(&optional_docs.join("\n"));
    let make_doc = docs::outer(&make_doc);
    let allow = (make_args.len() + 1 > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let make = quote! {
        #make_doc
        #allow
        #deprecated
        pub fn #method_ident(&self, #(#make_args),*) -> #ty<'_> {
            #ty {
                #client: self,
                #(#inits)*
            }
        }
    };

    let struct_doc = docs::outer(&format!(
        "A call of [`Client::{method}`] being built: the required parameters were given to \
         [`Client::{method}`], each optional one has a setter, and [`{ty}::send`] sends \
         the request. Nothing is sent until `send` is awaited."
    ));
    let send_doc = docs::outer(&format!(
        "Sends the request of [`Client::{method}`] with the parameters set so far.\n\n\
         # Errors\n\n{errors}"
    ));
    let items = quote! {
        #struct_doc
        #[must_use = "a request builder does nothing until `send` is awaited"]
        pub struct #ty<'a> {
            #client: &'a Client,
            #(#fields)*
        }

        impl #ty<'_> {
            #(#setters)*

            #send_doc
            pub async fn send(self) -> Result<#ret, crate::Error<#err>> {
                let Self { #client, #(#bindings),* } = self;
                #(#conversions)*
                #client.#private(#(#call_args),*).await
            }
        }
    };
    (make, items)
}

/// The setter of an optional parameter.
fn setter(name: &Ident, p: &Param, input: &TokenStream, convert: &TokenStream) -> TokenStream {
    let doc = docs::outer(&format!(
        "{}\n\nThe `{}` {} parameter; optional: not sent unless this is called.",
        p.doc,
        p.wire,
        location(p)
    ));
    quote! {
        #doc
        pub fn #name(mut self, value: #input) -> Self {
            self.#name = Some(#convert);
            self
        }
    }
}

fn location(p: &Param) -> &'static str {
    match p.location {
        crate::ir::ParamLocation::Path => "path",
        crate::ir::ParamLocation::Query => "query",
        crate::ir::ParamLocation::Header => "header",
        crate::ir::ParamLocation::Cookie => "cookie",
    }
}

fn one_line(text: &str) -> String {
    text.replace('\n', " ")
}

/// The first paragraph of a doc, on one line (a list entry).
fn first_line(text: &str) -> String {
    one_line(text.trim().split("\n\n").next().unwrap_or_default())
}
