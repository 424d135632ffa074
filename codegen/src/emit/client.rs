//! `client.rs`: the async client, one method per operation, and each operation's
//! response and error enums.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::auth;
use super::checks;
use super::docs;
use super::multipart;
use super::types::{argument, ident, is_copy, owned};
use crate::ir::{
    Api, Body, BodyKind, ListEncoding, Method, Operation, Param, ParamLocation, PathPart, Payload,
    ResponseDef, StatusMatch, Ty, TypeDef,
};
use crate::lower::inner_named;

/// What the operation methods use of the private helpers, so that only those are emitted.
#[derive(Default)]
struct Uses {
    json: bool,
    text: bool,
    unexpected: bool,
    path: bool,
    joined_query: bool,
    label: bool,
    matrix: bool,
}

/// The tokens of `client.rs`.
pub fn emit(api: &Api) -> TokenStream {
    let models = quote!(crate::models::);
    let validating: Vec<&str> = api
        .types
        .iter()
        .filter_map(|t| match t {
            TypeDef::Struct(s) if s.validates => Some(s.name.as_str()),
            _ => None,
        })
        .collect();
    let mut uses = Uses::default();
    let mut all_methods = Vec::new();
    let mut enums = Vec::new();
    for op in &api.operations {
        all_methods.push(methods(op, api, &models, &validating, &mut uses));
        enums.push(op_enums(op, &models));
    }
    let helpers = helpers(&uses, !api.operations.is_empty());
    let execute = (!api.operations.is_empty()).then(|| {
        quote! {
            /// Sends a request and reads the answer's body, up to the size cap.
            async fn execute<E>(&self, request: reqwest::RequestBuilder) -> Result<(u16, Vec<u8>), crate::Error<E>> {
                let response = request.send().await.map_err(crate::Error::Transport)?;
                let status = response.status().as_u16();
                let bytes = read_body(response, self.max_response_bytes).await?;
                Ok((status, bytes))
            }
        }
    });
    let credentials_doc = auth::client_doc(api);
    let credentials = auth::field(api);
    let credentials_init = auth::field_init(api);
    let credentials_clone = auth::field_clone(api);
    let credentials_debug = auth::field_debug(api);
    let credential_methods = auth::client_methods(api);
    let credential_items = auth::items(api);
    let form_items = multipart::items(api, &models);
    quote! {
        //! The async client: one method per operation of the spec.

        /// Async client of the API.
        ///
        /// Built from the base URL of the server, path prefix included (for example
        /// `http://127.0.0.1:8080/v1`); each operation's path is appended to it. Timeouts,
        /// proxies and TLS settings belong to the `reqwest::Client` given to
        /// [`Client::with_client`].
        ///
        #credentials_doc
        ///
        /// An answer's body is read into memory up to a cap,
        /// [`Client::DEFAULT_MAX_RESPONSE_BYTES`] unless [`Client::set_max_response_bytes`]
        /// says otherwise; a longer one is `Error::BodyTooLarge`. Operations that answer
        /// with text or binary bodies also have a `…_stream` method that hands back the
        /// unread `reqwest::Response` instead.
        pub struct Client {
            base_url: String,
            http: reqwest::Client,
            #credentials
            max_response_bytes: usize,
        }

        impl Client {
            /// A client with a default `reqwest::Client`.
            ///
            /// # Errors
            ///
            /// When `reqwest` cannot build its client (no TLS backend).
            pub fn new(base_url: impl Into<String>) -> Result<Self, reqwest::Error> {
                Ok(Self::with_client(base_url, reqwest::Client::builder().build()?))
            }

            /// A client that sends through the caller's `reqwest::Client`.
            pub fn with_client(base_url: impl Into<String>, http: reqwest::Client) -> Self {
                let mut base_url = base_url.into();
                while base_url.ends_with('/') {
                    base_url.pop();
                }
                Self {
                    base_url,
                    http,
                    #credentials_init
                    max_response_bytes: Self::DEFAULT_MAX_RESPONSE_BYTES,
                }
            }

            /// The default cap on the size of an answer's body read into memory: 64 MiB.
            pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

            /// Sets the largest answer body (in bytes) a method reads into memory; a
            /// longer one fails with `Error::BodyTooLarge` without being read further.
            pub fn set_max_response_bytes(&mut self, limit: usize) {
                self.max_response_bytes = limit;
            }

            /// The largest answer body a method reads into memory.
            pub fn max_response_bytes(&self) -> usize {
                self.max_response_bytes
            }

            #execute

            /// The base URL, without a trailing slash.
            pub fn base_url(&self) -> &str {
                &self.base_url
            }

            /// The `reqwest::Client` requests go through.
            pub fn http_client(&self) -> &reqwest::Client {
                &self.http
            }

            #credential_methods

            #(#all_methods)*
        }

        impl Clone for Client {
            fn clone(&self) -> Self {
                Self {
                    base_url: self.base_url.clone(),
                    http: self.http.clone(),
                    #credentials_clone
                    max_response_bytes: self.max_response_bytes,
                }
            }
        }

        impl std::fmt::Debug for Client {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct("Client")
                    .field("base_url", &self.base_url)
                    #credentials_debug
                    .finish_non_exhaustive()
            }
        }

        #credential_items

        #form_items

        #(#enums)*

        #helpers
    }
}

/// The Rust type of a response payload.
fn payload_type(p: &Payload, models: &TokenStream) -> Option<TokenStream> {
    match p {
        Payload::None => None,
        Payload::Json(ty) => Some(owned(ty, models)),
        Payload::Text => Some(quote!(String)),
        Payload::Bytes => Some(quote!(Vec<u8>)),
    }
}

fn success_enum_name(op: &Operation) -> proc_macro2::Ident {
    format_ident!("{}Response", op.type_prefix)
}

fn error_enum_name(op: &Operation) -> proc_macro2::Ident {
    format_ident!("{}Error", op.type_prefix)
}

fn successes(op: &Operation) -> Vec<&ResponseDef> {
    op.responses
        .iter()
        .filter(|r| r.status.is_success())
        .collect()
}

fn failures(op: &Operation) -> Vec<&ResponseDef> {
    op.responses
        .iter()
        .filter(|r| !r.status.is_success())
        .collect()
}

/// Whether a variant carries the status (classes and `default` cover several).
fn carries_status(r: &ResponseDef) -> bool {
    !matches!(r.status, StatusMatch::Code(_))
}

/// A response or error enum of an operation.
fn response_enum(
    name: &proc_macro2::Ident,
    doc: &str,
    responses: &[&ResponseDef],
    models: &TokenStream,
) -> TokenStream {
    let doc = docs::outer(doc);
    let variants = responses.iter().map(|r| {
        let v = ident(&r.variant);
        let vdoc = docs::outer(&r.doc);
        let payload = payload_type(&r.payload, models);
        match (carries_status(r), payload) {
            (false, None) => quote!(#vdoc #v,),
            (false, Some(t)) => quote!(#vdoc #v(#t),),
            (true, None) => quote!(#vdoc #v {
                /// The HTTP status.
                status: u16
            },),
            (true, Some(t)) => quote!(#vdoc #v {
                /// The HTTP status.
                status: u16,
                /// The decoded body.
                body: #t
            },),
        }
    });
    let arms = responses.iter().map(|r| {
        let v = ident(&r.variant);
        let has_payload = r.payload != Payload::None;
        match (&r.status, has_payload) {
            (StatusMatch::Code(c), false) => {
                let c = Literal::u16_unsuffixed(*c);
                quote!(Self::#v => #c,)
            }
            (StatusMatch::Code(c), true) => {
                let c = Literal::u16_unsuffixed(*c);
                quote!(Self::#v(_) => #c,)
            }
            _ => quote!(Self::#v { status, .. } => *status,),
        }
    });
    let status_fn = if responses.is_empty() {
        quote!(match *self {})
    } else {
        quote!(match self { #(#arms)* })
    };
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq)]
        pub enum #name {
            #(#variants)*
        }

        impl #name {
            /// The HTTP status of the answer.
            pub fn status(&self) -> u16 {
                #status_fn
            }
        }
    }
}

fn op_enums(op: &Operation, models: &TokenStream) -> TokenStream {
    let method = &op.name;
    let mut out = TokenStream::new();
    let ok = successes(op);
    if ok.len() > 1 {
        let doc = format!("Documented success answers of [`Client::{method}`].");
        out.extend(response_enum(&success_enum_name(op), &doc, &ok, models));
    }
    let doc = format!("Documented error answers of [`Client::{method}`].");
    let name = error_enum_name(op);
    out.extend(response_enum(&name, &doc, &failures(op), models));
    out.extend(quote! {
        impl crate::DocumentedError for #name {
            fn status(&self) -> u16 {
                #name::status(self)
            }
        }
    });
    out
}

/// The success type of an operation.
fn success_type(op: &Operation, models: &TokenStream) -> TokenStream {
    let ok = successes(op);
    match ok.as_slice() {
        [] => quote!(()),
        [one] if !carries_status(one) => payload_type(&one.payload, models).unwrap_or(quote!(())),
        [one] => {
            let t = payload_type(&one.payload, models).unwrap_or(quote!(()));
            quote!((u16, #t))
        }
        _ => {
            let name = success_enum_name(op);
            quote!(#name)
        }
    }
}

/// The pattern of a status match arm.
fn status_pattern(s: &StatusMatch) -> TokenStream {
    match s {
        StatusMatch::Code(c) => {
            let c = Literal::u16_unsuffixed(*c);
            quote!(#c)
        }
        StatusMatch::Class(c) => {
            let lo = Literal::u16_unsuffixed(c * 100);
            let hi = Literal::u16_unsuffixed(c * 100 + 99);
            quote!(#lo..=#hi)
        }
        StatusMatch::Default => quote!(_),
    }
}

/// The expression decoding the body of a response into its payload type.
fn decode(p: &Payload, err: &proc_macro2::Ident, uses: &mut Uses) -> Option<TokenStream> {
    match p {
        Payload::None => None,
        Payload::Json(_) => {
            uses.json = true;
            Some(quote!(decode_json::<_, #err>(status, &bytes)?))
        }
        Payload::Text => {
            uses.text = true;
            Some(quote!(decode_text::<#err>(status, bytes)?))
        }
        Payload::Bytes => Some(quote!(bytes)),
    }
}

/// The arms of the `match status` that turns an answer into the method's result; with
/// `failures_only` (the streaming twin, which has returned on a success already) only the
/// error answers.
fn match_arms(op: &Operation, failures_only: bool, uses: &mut Uses) -> TokenStream {
    let ok = successes(op);
    let single = ok.len() == 1;
    let err_name = error_enum_name(op);
    let ok_name = success_enum_name(op);
    let mut ordered: Vec<&ResponseDef> = op.responses.iter().collect();
    ordered.sort_by_key(|r| match r.status {
        StatusMatch::Code(_) => 0,
        StatusMatch::Class(_) => 1,
        StatusMatch::Default => 2,
    });
    let mut arms = Vec::new();
    for r in &ordered {
        if failures_only && r.status.is_success() {
            continue;
        }
        let pat = status_pattern(&r.status);
        let value = decode(&r.payload, &err_name, uses);
        let v = ident(&r.variant);
        let build = |enum_name: &proc_macro2::Ident| match (carries_status(r), &value) {
            (false, None) => quote!(#enum_name::#v),
            (false, Some(d)) => quote!(#enum_name::#v(#d)),
            (true, None) => quote!(#enum_name::#v { status }),
            (true, Some(d)) => quote!(#enum_name::#v { status, body: #d }),
        };
        let arm = if r.status.is_success() {
            if single {
                match (&r.payload, carries_status(r)) {
                    // `Ok(decode(..)?)` would be clippy's `needless_question_mark`.
                    (Payload::Json(_), false) => quote!(decode_json(status, &bytes)),
                    (Payload::Text, false) => {
                        uses.text = true;
                        quote!(decode_text(status, bytes))
                    }
                    (_, with_status) => {
                        let value = value.clone().unwrap_or(quote!(()));
                        if with_status {
                            quote!(Ok((status, #value)))
                        } else {
                            quote!(Ok(#value))
                        }
                    }
                }
            } else {
                let built = build(&ok_name);
                quote!(Ok(#built))
            }
        } else {
            let built = build(&err_name);
            quote!(Err(crate::Error::Response(#built)))
        };
        arms.push(quote!(#pat => #arm,));
    }
    if let [only] = ordered.as_slice()
        && only.status == StatusMatch::Default
        && !(failures_only && only.status.is_success())
    {
        // A lone catch-all arm is clippy's `match_single_binding`.
        let r = only;
        let v = ident(&r.variant);
        let value = decode(&r.payload, &err_name, uses);
        let body = value.map(|d| quote!(, body: #d));
        return quote!(Err(crate::Error::Response(#err_name::#v { status #body })));
    }
    if !ordered.iter().any(|r| r.status == StatusMatch::Default) {
        uses.unexpected = true;
        if arms.is_empty() {
            // A lone catch-all arm is clippy's `match_single_binding`.
            return quote!(Err(unexpected(status, &bytes)));
        }
        arms.push(quote!(_ => Err(unexpected(status, &bytes)),));
    }
    quote!(match status { #(#arms)* })
}

fn param_type(p: &Param, models: &TokenStream) -> TokenStream {
    let t = argument(&p.ty, models);
    if p.required { t } else { quote!(Option<#t>) }
}

/// Statements adding one parameter to `request`.
fn add_param(p: &Param) -> TokenStream {
    let name = ident(&p.name);
    let wire = &p.wire;
    let value = quote!(value);
    let put = match (&p.location, &p.ty, &p.list) {
        (ParamLocation::Query, Ty::Vec(_), ListEncoding::Repeat) => quote! {
            request = request.query(&#value.iter().map(|item| (#wire, item)).collect::<Vec<_>>());
        },
        // Appended to the URL before the request is built: see `add_joined_query`.
        (ParamLocation::Query, Ty::Vec(_), ListEncoding::Join(_)) => return TokenStream::new(),
        (ParamLocation::Query, _, _) => quote! {
            request = request.query(&[(#wire, #value)]);
        },
        (ParamLocation::Header, Ty::Vec(_), list) => {
            let sep = match list {
                ListEncoding::Join(s) => s.clone(),
                _ => ",".to_owned(),
            };
            quote! {
                let joined = #value.iter().map(ToString::to_string).collect::<Vec<_>>().join(#sep);
                request = request.header(#wire, joined);
            }
        }
        (ParamLocation::Header, _, _) => quote! {
            request = request.header(#wire, #value.to_string());
        },
        (ParamLocation::Cookie, Ty::Vec(_), _) => quote! {
            let joined = #value.iter().map(|item| encode_path_segment(&item.to_string())).collect::<Vec<_>>().join(",");
            cookies.push(format!("{}={joined}", #wire));
        },
        (ParamLocation::Cookie, Ty::String, _) => quote! {
            cookies.push(format!("{}={}", #wire, encode_path_segment(#value)));
        },
        (ParamLocation::Cookie, _, _) => quote! {
            cookies.push(format!("{}={}", #wire, encode_path_segment(&#value.to_string())));
        },
        (ParamLocation::Path, _, _) => return TokenStream::new(),
    };
    if p.required {
        quote!({ let value = #name; #put })
    } else {
        quote!(if let Some(value) = #name { #put })
    }
}

/// Whether a parameter is a query list sent as one joined value (`names=A,B`).
fn is_joined_query(p: &Param) -> bool {
    matches!(
        (&p.location, &p.ty, &p.list),
        (ParamLocation::Query, Ty::Vec(_), ListEncoding::Join(_))
    )
}

/// Statements appending a joined query list to `url`. The separator has to stay literal
/// while each item is percent-encoded (an item holding a comma stays one item), which
/// `RequestBuilder::query` cannot do: it would encode the separator too.
fn add_joined_query(p: &Param) -> TokenStream {
    let ListEncoding::Join(sep) = &p.list else {
        return TokenStream::new();
    };
    let name = ident(&p.name);
    let wire = &p.wire;
    // A space cannot stand in a URL; `spaceDelimited` sends it encoded.
    let sep = if sep == " " { "%20" } else { sep.as_str() };
    let put = quote! {
        push_joined_query(&mut url, #wire, value.iter().map(ToString::to_string), #sep);
    };
    if p.required {
        quote!({ let value = #name; #put })
    } else {
        quote!(if let Some(value) = #name { #put })
    }
}

/// Statements checking a parameter's constraints.
fn check_param(p: &Param) -> TokenStream {
    let name = ident(&p.name);
    let v = quote!(v);
    let body = checks::statements(checks::Context::Client, &v, &p.ty, &p.checks, &p.wire);
    if body.is_empty() {
        return body;
    }
    if p.required {
        quote!({ let v = #name; #body })
    } else {
        quote!(if let Some(v) = #name { #body })
    }
}

/// Statements binding the encoded path parameters, and the expression of the URL.
fn url_expr(op: &Operation, uses: &mut Uses) -> (TokenStream, TokenStream) {
    let mut fmt = String::from("{}");
    let mut args = vec![quote!(self.base_url)];
    let mut lets = TokenStream::new();
    for part in &op.path {
        match part {
            PathPart::Literal(text) => fmt.push_str(&text.replace('{', "{{").replace('}', "}}")),
            PathPart::Param(name) => {
                uses.path = true;
                if op
                    .path
                    .iter()
                    .take_while(|p| !std::ptr::eq(*p, part))
                    .any(|p| p == part)
                {
                    // Named twice in the path: encoded once, used twice.
                    fmt.push_str("{}");
                    let n = ident(name);
                    args.push(quote!(#n));
                    continue;
                }
                fmt.push_str("{}");
                let n = ident(name);
                // The encoded value shadows the argument: no other name can collide.
                let local = n.clone();
                let p = op.params.iter().find(|p| &p.name == name);
                if let Some(styled) = p.and_then(|p| styled_path_param(p, uses)) {
                    lets.extend(quote!(let #local = #styled;));
                    args.push(quote!(#local));
                    continue;
                }
                lets.extend(match p.map(|p| &p.ty) {
                    // `simple` style: items encoded one by one, joined by literal commas.
                    Some(Ty::Vec(item)) if **item == Ty::String => quote! {
                        let #local = #n
                            .iter()
                            .map(|item| encode_path_segment(item))
                            .collect::<Vec<_>>()
                            .join(",");
                    },
                    Some(Ty::Vec(_)) => quote! {
                        let #local = #n
                            .iter()
                            .map(|item| encode_path_segment(&item.to_string()))
                            .collect::<Vec<_>>()
                            .join(",");
                    },
                    Some(Ty::String) => quote!(let #local = encode_path_segment(#n);),
                    _ => quote!(let #local = encode_path_segment(&#n.to_string());),
                });
                args.push(quote!(#local));
            }
        }
    }
    (lets, quote!(format!(#fmt, #(#args),*)))
}

/// The expression of a `label` or `matrix` path parameter's expansion, or `None` for
/// `simple` style.
fn styled_path_param(p: &Param, uses: &mut Uses) -> Option<TokenStream> {
    let n = ident(&p.name);
    let items = match &p.ty {
        Ty::Vec(item) if **item == Ty::String => {
            quote!(&#n.iter().map(|item| encode_path_segment(item)).collect::<Vec<_>>())
        }
        Ty::Vec(_) => {
            quote!(&#n.iter().map(|item| encode_path_segment(&item.to_string())).collect::<Vec<_>>())
        }
        Ty::String => quote!(&[encode_path_segment(#n)]),
        _ => quote!(&[encode_path_segment(&#n.to_string())]),
    };
    match p.list {
        ListEncoding::Label { explode } => {
            uses.label = true;
            Some(quote!(label_style(#items, #explode)))
        }
        ListEncoding::Matrix { explode } => {
            uses.matrix = true;
            let name = percent_encode(&p.wire);
            Some(quote!(matrix_style(#name, #items, #explode)))
        }
        _ => None,
    }
}

/// The generated `encode_path_segment`, at generation time (for names fixed by the spec).
fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Which of an operation's methods is printed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavour {
    /// Reads and decodes the whole answer.
    Decoded,
    /// Returns the `reqwest::Response` of a documented success unread.
    Stream,
}

/// The method's name, doc line and HTTP verb.
fn http_verb(m: Method) -> &'static str {
    match m {
        Method::Get => "GET",
        Method::Put => "PUT",
        Method::Post => "POST",
        Method::Delete => "DELETE",
        Method::Options => "OPTIONS",
        Method::Head => "HEAD",
        Method::Patch => "PATCH",
        Method::Trace => "TRACE",
    }
}

/// Every method of one operation: the main one, one per other body encoding, and the
/// streaming twin.
fn methods(
    op: &Operation,
    api: &Api,
    models: &TokenStream,
    validating: &[&str],
    uses: &mut Uses,
) -> TokenStream {
    let mut out = method(
        op,
        api,
        &op.name,
        op.body.as_ref(),
        Flavour::Decoded,
        models,
        validating,
        uses,
    );
    for (name, body) in &op.other_bodies {
        out.extend(method(
            op,
            api,
            name,
            Some(body),
            Flavour::Decoded,
            models,
            validating,
            uses,
        ));
    }
    if let Some(name) = &op.stream {
        out.extend(method(
            op,
            api,
            name,
            op.body.as_ref(),
            Flavour::Stream,
            models,
            validating,
            uses,
        ));
    }
    out
}

/// The argument type of a body.
fn body_type(b: &Body, models: &TokenStream) -> TokenStream {
    match (b.kind, b.required) {
        (BodyKind::Text, true) => quote!(impl Into<String>),
        (BodyKind::Text, false) => quote!(Option<String>),
        (BodyKind::Binary, true) => quote!(impl Into<reqwest::Body>),
        (BodyKind::Binary, false) => quote!(Option<reqwest::Body>),
        (BodyKind::Multipart, required) => {
            let name = ident(b.form.as_ref().map_or("FilePart", |f| f.name.as_str()));
            if required {
                quote!(#name)
            } else {
                quote!(Option<#name>)
            }
        }
        (BodyKind::Json | BodyKind::Form, required) => {
            let t = match &b.ty {
                Ty::Vec(inner) => {
                    let inner = owned(inner, models);
                    quote!(&[#inner])
                }
                Ty::String => quote!(&str),
                other => {
                    let t = owned(other, models);
                    if is_copy(other) { t } else { quote!(&#t) }
                }
            };
            if required { t } else { quote!(Option<#t>) }
        }
    }
}

/// Statements putting the body on `request`.
fn add_body(b: &Body) -> TokenStream {
    let media = &b.media;
    let content_type = quote!(.header(reqwest::header::CONTENT_TYPE, #media));
    let put = match b.kind {
        BodyKind::Json => {
            let arg = if is_copy(&b.ty) {
                quote!(&body)
            } else {
                quote!(body)
            };
            // `json` sets `application/json` only when no Content-Type is set yet.
            let ct = (essence_is_plain_json(media))
                .then(TokenStream::new)
                .unwrap_or(content_type);
            quote!(request = request #ct .json(#arg);)
        }
        BodyKind::Form => {
            let arg = if is_copy(&b.ty) {
                quote!(&body)
            } else {
                quote!(body)
            };
            quote!(request = request.form(#arg);)
        }
        BodyKind::Text if b.required => quote!(request = request #content_type .body(body.into());),
        BodyKind::Text | BodyKind::Binary => quote!(request = request #content_type .body(body);),
        // `multipart` sets `Content-Type` with the boundary itself.
        BodyKind::Multipart => multipart::add_form(b),
    };
    if b.required {
        put
    } else {
        quote!(if let Some(body) = body { #put })
    }
}

/// Whether a JSON media type is plain `application/json` (which `RequestBuilder::json`
/// sets itself).
fn essence_is_plain_json(media: &str) -> bool {
    media
        .split(';')
        .next()
        .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"))
}

#[allow(clippy::too_many_arguments)]
fn method(
    op: &Operation,
    api: &Api,
    method_name: &str,
    body: Option<&Body>,
    flavour: Flavour,
    models: &TokenStream,
    validating: &[&str],
    uses: &mut Uses,
) -> TokenStream {
    let name = ident(method_name);
    let http = http_verb(op.method);
    let mut doc = op.doc.clone();
    doc.push_str(&format!("\n\n`{http} {}`.", op.path_template));
    doc.push_str(&auth::method_doc(op, api));
    if let Some(b) = body.filter(|_| op.body.is_some()) {
        let all: Vec<(&String, &Body)> = std::iter::once((&op.name, op.body.as_ref().unwrap_or(b)))
            .chain(op.other_bodies.iter().map(|(n, b)| (n, b)))
            .collect();
        if all.len() > 1 {
            doc.push_str(&format!(
                "\n\nThis method sends the body as `{}`. The spec offers several encodings; each \
                 has a method of its own so that every signature takes exactly what its \
                 encoding needs: {}.",
                b.media,
                all.iter()
                    .map(|(n, b)| format!("[`Client::{n}`] (`{}`)", b.media))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if flavour == Flavour::Stream {
        doc.push_str(&format!(
            "\n\nThe streaming form of [`Client::{}`]: on a documented success the \
             `reqwest::Response` comes back unread (read it with `chunk()` as it arrives, no \
             size cap applies); an error answer is read and decoded as usual.",
            op.name
        ));
    }
    let arg_docs: Vec<String> = op
        .params
        .iter()
        .map(|p| format!("- `{}`: {}", p.name, p.doc.replace('\n', " ")))
        .chain(body.map(|b| format!("- `body`: {}", b.doc.replace('\n', " "))))
        .collect();
    if !arg_docs.is_empty() {
        doc.push_str("\n\n# Arguments\n\n");
        doc.push_str(&arg_docs.join("\n"));
    }
    let body_validates = body
        .filter(|b| matches!(b.kind, BodyKind::Json | BodyKind::Form))
        .and_then(|b| inner_named(&b.ty))
        .is_some_and(|named| validating.contains(&named));
    let checks_arguments = op.params.iter().any(|p| !check_param(p).is_empty()) || body_validates;
    doc.push_str("\n\n# Errors\n\n");
    if checks_arguments {
        doc.push_str(
            "`Error::Constraint` when an argument breaks the spec's constraints (nothing is \
             sent), ",
        );
    }
    doc.push_str(
        "`Error::Response` for a documented error status, and `Error::Transport`, \
         `Error::UnexpectedStatus`, `Error::Decode` or `Error::BodyTooLarge` otherwise.",
    );
    let doc = docs::outer(&doc);
    let method_const = format_ident!("{}", http);
    let params = op.params.iter().map(|p| {
        let n = ident(&p.name);
        let t = param_type(p, models);
        quote!(#n: #t)
    });
    let body_arg = body.map(|b| {
        let t = body_type(b, models);
        quote!(body: #t)
    });
    let argc = op.params.len() + usize::from(body.is_some()) + 1;
    let allow = (argc > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let deprecated = op
        .deprecated
        .then(|| quote!(#[deprecated = "deprecated by the spec"]));
    let body_check = body.filter(|_| body_validates).map(|b| {
        let check = match &b.ty {
            Ty::Vec(_) => quote!(for item in body.iter() {
                item.validate().map_err(crate::Error::Constraint)?;
            }),
            _ => quote!(body.validate().map_err(crate::Error::Constraint)?;),
        };
        if b.required {
            check
        } else {
            quote!(if let Some(body) = body { #check })
        }
    });
    let param_checks = op.params.iter().map(check_param);
    let (path_lets, url) = url_expr(op, uses);
    let add_params = op.params.iter().map(add_param);
    let has_cookies = op
        .params
        .iter()
        .any(|p| p.location == ParamLocation::Cookie)
        || auth::sends_cookie(op, api);
    if has_cookies {
        uses.path = true;
    }
    let cookie_vec = has_cookies.then(|| quote!(let mut cookies: Vec<String> = Vec::new();));
    // One `Cookie` header for every cookie parameter (RFC 6265 §5.4), values
    // percent-encoded so that none can end a pair early.
    let cookie_header = has_cookies.then(|| {
        quote! {
            if !cookies.is_empty() {
                request = request.header(reqwest::header::COOKIE, cookies.join("; "));
            }
        }
    });
    let joined: Vec<TokenStream> = op
        .params
        .iter()
        .filter(|p| is_joined_query(p))
        .map(add_joined_query)
        .collect();
    let url_binding = if joined.is_empty() {
        quote!(let url = #url;)
    } else {
        uses.path = true;
        uses.joined_query = true;
        quote!(let mut url = #url; #(#joined)*)
    };
    let add_body = body.map(add_body);
    let authorize = auth::sends(op).then(|| auth::authorize(op, api, has_cookies));
    let err = error_enum_name(op);
    let mutable = if op
        .params
        .iter()
        .any(|p| p.location != ParamLocation::Path && !is_joined_query(p))
        || body.is_some()
        || auth::sends(op)
    {
        quote!(mut)
    } else {
        TokenStream::new()
    };
    // Every answer documented without a body and no catch-all for the rest: the body
    // read (to keep the connection reusable) is never looked at.
    let bytes_binding = if op.responses.iter().all(|r| r.payload == Payload::None)
        && op
            .responses
            .iter()
            .any(|r| r.status == StatusMatch::Default)
    {
        quote!(_)
    } else {
        quote!(bytes)
    };
    let (ret, finish) = match flavour {
        Flavour::Decoded => {
            let arms = match_arms(op, false, uses);
            (
                success_type(op, models),
                quote! {
                    let (status, #bytes_binding) = self.execute(request).await?;
                    #arms
                },
            )
        }
        Flavour::Stream => {
            let arms = match_arms(op, true, uses);
            let pats = successes(op).into_iter().map(|r| status_pattern(&r.status));
            (
                quote!(reqwest::Response),
                quote! {
                    let response = request.send().await.map_err(crate::Error::Transport)?;
                    let status = response.status().as_u16();
                    if matches!(status, #(#pats)|*) {
                        return Ok(response);
                    }
                    let bytes = read_body(response, self.max_response_bytes).await?;
                    #arms
                },
            )
        }
    };
    quote! {
        #doc
        #allow
        #deprecated
        pub async fn #name(&self, #(#params,)* #body_arg) -> Result<#ret, crate::Error<#err>> {
            #body_check
            #(#param_checks)*
            #path_lets
            #url_binding
            let #mutable request = self.http.request(reqwest::Method::#method_const, url);
            #cookie_vec
            #(#add_params)*
            #authorize
            #cookie_header
            #add_body
            #finish
        }
    }
}

fn helpers(uses: &Uses, any_operation: bool) -> TokenStream {
    let mut out = TokenStream::new();
    out.extend(any_operation.then(|| quote! {
        /// Reads a body of at most `limit` bytes: a declared or actual length over it is
        /// `Error::BodyTooLarge`, and reading stops there.
        async fn read_body<E>(mut response: reqwest::Response, limit: usize) -> Result<Vec<u8>, crate::Error<E>> {
            let status = response.status().as_u16();
            let too_large = crate::Error::BodyTooLarge { status, limit };
            if response.content_length().is_some_and(|length| length > limit as u64) {
                return Err(too_large);
            }
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(crate::Error::Transport)? {
                if body.len() + chunk.len() > limit {
                    return Err(too_large);
                }
                body.extend_from_slice(&chunk);
            }
            Ok(body)
        }
    }));
    if uses.json {
        out.extend(quote! {
            /// Decodes a JSON body, keeping the raw text when it is not the documented type.
            fn decode_json<T: serde::de::DeserializeOwned, E>(status: u16, bytes: &[u8]) -> Result<T, crate::Error<E>> {
                serde_json::from_slice(bytes).map_err(|source| crate::Error::Decode {
                    status,
                    body: String::from_utf8_lossy(bytes).into_owned(),
                    source,
                })
            }
        });
    }
    if uses.text {
        out.extend(quote! {
            /// A text body as a string. Bytes that are not UTF-8 are an `Error::Decode`
            /// naming the first bad byte, never replaced: a text the client cannot read
            /// exactly is not passed on as if it were.
            fn decode_text<E>(status: u16, bytes: Vec<u8>) -> Result<String, crate::Error<E>> {
                String::from_utf8(bytes).map_err(|error| {
                    let at = error.utf8_error().valid_up_to();
                    crate::Error::Decode {
                        status,
                        body: String::from_utf8_lossy(error.as_bytes()).into_owned(),
                        source: serde::de::Error::custom(format_args!(
                            "the text body is not UTF-8 (first bad byte at offset {at})"
                        )),
                    }
                })
            }
        });
    }
    if uses.unexpected {
        out.extend(quote! {
            /// The error for a status the spec does not document.
            fn unexpected<E>(status: u16, bytes: &[u8]) -> crate::Error<E> {
                crate::Error::UnexpectedStatus { status, body: String::from_utf8_lossy(bytes).into_owned() }
            }
        });
    }
    if uses.path {
        out.extend(quote! {
            /// Percent-encodes a path parameter: everything but RFC 3986's unreserved
            /// characters, so a value can never add a path segment or a query.
            fn encode_path_segment(value: &str) -> String {
                let mut out = String::with_capacity(value.len());
                for byte in value.bytes() {
                    if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
                        out.push(char::from(byte));
                    } else {
                        out.push_str(&format!("%{byte:02X}"));
                    }
                }
                out
            }
        });
    }
    if uses.label {
        out.extend(quote! {
            /// RFC 6570 label expansion (`{.x}`, `{.x*}` when `explode`) of encoded items:
            /// `.a,b` or `.a.b`; nothing for an empty list.
            fn label_style(items: &[String], explode: bool) -> String {
                if items.is_empty() {
                    return String::new();
                }
                format!(".{}", items.join(if explode { "." } else { "," }))
            }
        });
    }
    if uses.matrix {
        out.extend(quote! {
            /// RFC 6570 path-style expansion (`{;x}`, `{;x*}` when `explode`) of encoded
            /// items: `;x=a,b` or `;x=a;x=b`, `;x` for an empty value; nothing for an empty
            /// list.
            fn matrix_style(name: &str, items: &[String], explode: bool) -> String {
                let pair = |value: &str| {
                    if value.is_empty() {
                        format!(";{name}")
                    } else {
                        format!(";{name}={value}")
                    }
                };
                if items.is_empty() {
                    String::new()
                } else if explode {
                    items.iter().map(|item| pair(item)).collect()
                } else {
                    pair(&items.join(","))
                }
            }
        });
    }
    if uses.joined_query {
        out.extend(quote! {
            /// Appends `name=a,b` to the query of `url`: each item percent-encoded, the
            /// separator literal.
            fn push_joined_query(url: &mut String, name: &str, items: impl Iterator<Item = String>, sep: &str) {
                url.push(if url.contains('?') { '&' } else { '?' });
                url.push_str(&encode_path_segment(name));
                url.push('=');
                let items: Vec<String> = items.map(|item| encode_path_segment(&item)).collect();
                url.push_str(&items.join(sep));
            }
        });
    }
    out
}
