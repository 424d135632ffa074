//! The server half (`--server`): for every operation a typed request and a typed answer
//! enum, one `trait Api` with a method per operation, and `router(api)`, the axum
//! router that reads each request as the spec lays it out, judges it against the spec's
//! schemas and calls the implementation only with a request that fits.
//!
//! The request is judged in this order, each step answering before the next: the path
//! fits no template (404, problem details), a method the path does not take (405 with
//! `Allow`, from axum's method router), a body over the limit (413), a media type the
//! operation does not take (415 where the operation declares it or declares no 422 or
//! 400, else that 422 or 400), then every parameter and the body against their schemas
//! (the operation's declared 422, else its declared 400, else 400; in the body of the
//! spec's own error schema where the errors fit it, else as RFC 9457 problem details).
//! Credentials are read, never checked: the implementation decides.
//!
//! Routes go to axum with positional parameter names (`/flows/{s1}`): two templates that
//! name the parameter at one place differently (`/a/{id}` and `/a/{name}/b`) are then
//! one route to axum, which refuses different names there. A segment with text beside
//! its parameter (`/files/{name}.json`), which axum cannot match, is a whole-segment
//! parameter to axum and matched by the runtime; templates that come to the same axum
//! route and method are tried in order of their literal text, longest first.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::quote;

use super::docs;
use super::types::{ident, owned};
use crate::ir::{
    Api, ApiKeyLocation, Body, BodyKind, FormPartKind, HeaderEncoding, ListEncoding, Method,
    ObjectStyle, Operation, Param, ParamLocation, PathPart, Payload, ResponseDef, ResponseHeader,
    SchemeKind, StatusMatch,
};

/// The tokens of `server.rs`. `has_schema(pointer)` says whether a schema pointer of the
/// IR is in the document the server judges against.
pub fn emit(api: &Api, has_schema: &dyn Fn(&str) -> bool) -> TokenStream {
    let models = quote!(crate::models::);
    let credentials = credentials(api);
    let ops: Vec<TokenStream> = api
        .operations
        .iter()
        .map(|op| operation(op, &models, has_schema))
        .collect();
    let methods = api.operations.iter().map(trait_method);
    let router = router(api);
    let file_part = reads_forms(api).then(|| {
        quote!(
            pub use crate::server_runtime::FilePart;
        )
    });
    quote! {
        //! The server side of the spec: implement [`Api`] and serve [`router`].
        //!
        //! Each request is read and judged against the spec before the implementation
        //! sees it: a path no operation has is a 404, a method the path does not take a
        //! 405 with `Allow`, a body over the limit a 413, a media type the operation does
        //! not take a 415 (its declared 422 or 400 where it declares no 415), and a
        //! parameter or body that breaks its schema (every keyword, formats included)
        //! the operation's declared 422 or 400, its body in the spec's error schema where
        //! the errors fit it, else RFC 9457 problem details. The implementation gets a
        //! typed request and answers one of the operation's declared responses, or a
        //! [`Problem`] for anything else (a method left to its default answers 501).
        //! Before any judging (after 404, 405 and 413), [`Api::authorize`] sees the
        //! operation and its credentials: a request without a good credential can be
        //! refused (401, 403) before it learns what else is wrong with it.

        use std::sync::{Arc, OnceLock};

        use axum::http::StatusCode;
        use axum::response::{IntoResponse, Response};

        use crate::server_runtime as rt;

        pub use crate::server_runtime::{Basic, Problem, RawHeaders, Secret, Violation};
        #file_part

        /// The largest request body the router reads by default: 1 MiB.
        pub const DEFAULT_BODY_LIMIT: usize = 1 << 20;

        /// The spec's schemas, compiled as they are first used.
        fn schemas() -> &'static rt::Schemas {
            static SCHEMAS: OnceLock<rt::Schemas> = OnceLock::new();
            SCHEMAS.get_or_init(|| rt::Schemas::new(crate::server_document::DOCUMENT))
        }

        #credentials

        #(#ops)*

        /// Which operation a request is for and what its spec asks of its credentials:
        /// what [`Api::authorize`] is told.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[non_exhaustive]
        pub struct Operation {
            /// The [`Api`] method that answers it.
            pub method: &'static str,
            /// The spec's security requirements, as alternatives: each names the schemes
            /// (their `components.securitySchemes` keys) a request sends together; an
            /// empty one is the anonymous alternative. None at all: no credential asked.
            pub security: &'static [&'static [&'static str]],
        }

        /// The operations of the spec, one method each. A method not written answers 501
        /// (`Problem::not_implemented`), so an implementation can start with a few.
        pub trait Api: Send + Sync + 'static {
            /// Called for every request before its parameters and body are judged: an
            /// `Err` is the answer (`Problem::new(StatusCode::UNAUTHORIZED, ..)`, say).
            /// The default lets every request through, each method then seeing the
            /// credentials in its request; the generated code checks none itself.
            fn authorize(
                &self,
                operation: Operation,
                credentials: &Credentials,
            ) -> impl std::future::Future<Output = Result<(), Problem>> + Send {
                let _ = (operation, credentials);
                async { Ok(()) }
            }

            /// Shapes the answer to a request the router refused before any method saw
            /// it: a body over the limit or unreadable, a media type the operation does
            /// not take, parameters or a body that break the spec. `problem` says why;
            /// `answer` is what the default sends (the spec's error schema where the
            /// errors fit it, else problem details). Errors of a shape no schema can
            /// state (RFC 6749's `error` codes, say) are written here.
            fn refused(&self, operation: Operation, problem: &Problem, answer: Response) -> Response {
                let _ = (operation, problem);
                answer
            }

            #(#methods)*
        }

        #router
    }
}

/// The `Credentials` every request carries: what it sent for each security scheme.
fn credentials(api: &Api) -> TokenStream {
    let fields = api.schemes.iter().map(|s| {
        let name = ident(&s.stem);
        let (ty, what) = match &s.kind {
            SchemeKind::Bearer(_) => (
                quote!(Option<Secret>),
                "The bearer token sent (`Authorization: Bearer`)".to_owned(),
            ),
            SchemeKind::Basic => (
                quote!(Option<Basic>),
                "The user and password sent (`Authorization: Basic`)".to_owned(),
            ),
            SchemeKind::ApiKey { location, name } => (
                quote!(Option<Secret>),
                format!(
                    "The API key sent in the {} `{name}`",
                    match location {
                        ApiKeyLocation::Header => "header",
                        ApiKeyLocation::Query => "query parameter",
                        ApiKeyLocation::Cookie => "cookie",
                    }
                ),
            ),
        };
        let doc = format!(
            " {what}, scheme `{}`. Not checked: the implementation decides.",
            s.key
        );
        quote! { #[doc = #doc] pub #name: #ty, }
    });
    let reads = api.schemes.iter().map(|s| {
        let name = ident(&s.stem);
        let read = match &s.kind {
            SchemeKind::Bearer(_) => quote!(incoming.bearer()),
            SchemeKind::Basic => quote!(incoming.basic()),
            SchemeKind::ApiKey { location, name } => {
                let location = match location {
                    ApiKeyLocation::Header => quote!(rt::Location::Header),
                    ApiKeyLocation::Query => quote!(rt::Location::Query),
                    ApiKeyLocation::Cookie => quote!(rt::Location::Cookie),
                };
                quote!(incoming.key(#location, #name))
            }
        };
        quote! { #name: #read, }
    });
    quote! {
        /// What a request sent for each of the spec's security schemes, read but never
        /// checked: which credential is good is the implementation's to decide.
        #[derive(Debug, Clone, Default, PartialEq)]
        #[non_exhaustive]
        pub struct Credentials {
            #(#fields)*
        }

        impl Credentials {
            fn read(incoming: &rt::Incoming) -> Credentials {
                // A spec without schemes reads nothing.
                let _ = incoming;
                Credentials { #(#reads)* }
            }
        }
    }
}

/// The name of a request's field for `p`, and of its local in the handler.
fn field_name(p: &Param) -> proc_macro2::Ident {
    ident(&p.name)
}

/// The Rust type of a body as the server holds it: a multipart body with parts its
/// schema names is its form struct ([`form_name`]), one without them its bytes.
fn body_type(op: &Operation, b: &Body, variant: &str, models: &TokenStream) -> TokenStream {
    match b.kind {
        BodyKind::Json | BodyKind::Form => owned(&b.ty, models),
        BodyKind::Text => quote!(String),
        BodyKind::Multipart if b.form.is_some() => {
            let name = form_name(op, variant);
            quote!(#name)
        }
        BodyKind::Binary | BodyKind::Multipart => quote!(axum::body::Bytes),
    }
}

/// The server's struct of a multipart body's parts: `{Prefix}Form` (`{Prefix}Form2`
/// for a second multipart media type). No other generated name ends in `Form`, and the
/// prefixes are unique, so it meets none.
fn form_name(op: &Operation, variant: &str) -> proc_macro2::Ident {
    let n = variant.strip_prefix("Multipart").unwrap_or("");
    ident(&format!("{}Form{n}", op.type_prefix))
}

/// The struct of a multipart body's parts, as the client's form struct lays them out
/// (one field per property; a file is a [`FilePart`]).
fn form_struct(op: &Operation, b: &Body, variant: &str, models: &TokenStream) -> TokenStream {
    let Some(form) = &b.form else {
        return TokenStream::new();
    };
    let name = form_name(op, variant);
    let doc = docs::outer(&format!(
        "The parts of a `{}` body of [`Api::{}`], read and judged against the spec: one \
         field per property of its schema. An optional part that was not sent is `None`, \
         a list of which none was sent empty.",
        b.media, op.name
    ));
    let fields = super::multipart::fields(form, models);
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub struct #name {
            #fields
        }
    }
}

/// The read of a multipart body into its form struct: the parts judged, then each field
/// taken out of them; `None` when the body could not be read or a required part is
/// missing or wrong (each recorded as a violation).
fn form_read(op: &Operation, b: &Body, variant: &str, schema: &TokenStream) -> TokenStream {
    let models = quote!(crate::models::);
    let Some(form) = &b.form else {
        return quote!(Some(incoming.body.clone()));
    };
    let name = form_name(op, variant);
    let wires = |keep: &dyn Fn(&crate::ir::FormPart) -> bool| -> Vec<&str> {
        form.parts
            .iter()
            .filter(|p| keep(p))
            .map(|p| p.wire.as_str())
            .collect()
    };
    let files = wires(&|p| p.kind == FormPartKind::File);
    let json = wires(&|p| matches!(p.kind, FormPartKind::Json(_)));
    let lists = wires(&|p| p.list);
    let required = wires(&|p| p.required && !p.list);
    let mut takes = Vec::new();
    let mut binds = Vec::new();
    let mut inits = Vec::new();
    for p in &form.parts {
        // A local of its own (`part_…`): a property named `parts` or `incoming` would
        // otherwise hide what the next take reads from.
        let n = ident(&format!("part_{}", p.name));
        let field = ident(&p.name);
        let wire = &p.wire;
        let take = match (&p.kind, p.list) {
            (FormPartKind::File, true) => quote!(let #n = parts.files(#wire);),
            (FormPartKind::File, false) => quote!(let #n = parts.file(#wire);),
            (FormPartKind::Text(ty) | FormPartKind::Json(ty), true) => {
                let item = owned(ty, &models);
                quote! {
                    let #n: Vec<#item> = incoming
                        .decode(parts.value(#wire), "body", Some(#wire))
                        .unwrap_or_default();
                }
            }
            (FormPartKind::Text(ty) | FormPartKind::Json(ty), false) => {
                let ty = owned(ty, &models);
                quote!(let #n: Option<#ty> = incoming.decode(parts.value(#wire), "body", Some(#wire));)
            }
        };
        takes.push(take);
        if p.required && !p.list {
            binds.push(n.clone());
        }
        inits.push(quote!(#field: #n));
    }
    // Every required part bound, or no form: the judging recorded why.
    let build = if binds.is_empty() {
        quote!(Some(#name { #(#inits),* }))
    } else {
        quote! {
            match (#(#binds,)*) {
                (#(Some(#binds),)*) => Some(#name { #(#inits),* }),
                _ => None,
            }
        }
    };
    quote! {{
        let shape = rt::FormShape {
            files: &[#(#files),*],
            json: &[#(#json),*],
            lists: &[#(#lists),*],
            required: &[#(#required),*],
        };
        match incoming.multipart_body(schemas, #schema, &shape).await {
            Some(mut parts) => {
                #(#takes)*
                #build
            }
            None => None,
        }
    }}
}

/// Whether some operation takes a multipart body with parts its schema names: the
/// server runtime's `multipart` region, and `FilePart`.
pub fn reads_forms(api: &Api) -> bool {
    api.operations
        .iter()
        .flat_map(bodies)
        .any(|b| b.kind == BodyKind::Multipart && b.form.is_some())
}

/// Every body of `op`: its own and those of its other-encoding methods.
fn bodies(op: &Operation) -> Vec<&Body> {
    op.body
        .iter()
        .chain(op.other_bodies.iter().map(|(_, b)| b))
        .collect()
}

/// The variant name of each body of an operation with several, from its media type.
fn body_variants(bodies: &[&Body]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for b in bodies {
        let base = match b.kind {
            BodyKind::Json => "Json",
            BodyKind::Form => "Form",
            BodyKind::Text => "Text",
            BodyKind::Binary => "Binary",
            BodyKind::Multipart => "Multipart",
        };
        let mut name = base.to_owned();
        let mut n = 2;
        while out.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        out.push(name);
    }
    out
}

fn credentials_field(op: &Operation) -> proc_macro2::Ident {
    let mut name = "credentials".to_owned();
    while op.params.iter().any(|p| p.name == name) {
        name.push('_');
    }
    ident(&name)
}

/// The request's field of raw headers: `headers`, unless a parameter has that name.
fn headers_field(op: &Operation) -> proc_macro2::Ident {
    let mut name = "headers".to_owned();
    while op.params.iter().any(|p| p.name == name) || credentials_field(op) == name {
        name.push('_');
    }
    ident(&name)
}

fn request_name(op: &Operation) -> proc_macro2::Ident {
    ident(&format!("{}Request", op.type_prefix))
}

fn response_name(op: &Operation) -> proc_macro2::Ident {
    ident(&format!("{}Response", op.type_prefix))
}

fn body_enum_name(op: &Operation) -> proc_macro2::Ident {
    ident(&format!("{}Body", op.type_prefix))
}

fn handler_name(op: &Operation) -> proc_macro2::Ident {
    ident(&format!("handle_{}", op.name))
}

fn template_name(op: &Operation) -> proc_macro2::Ident {
    ident(&format!("TEMPLATE_{}", op.name.to_ascii_uppercase()))
}

/// The answers a server sends: the declared ones.
fn declared(op: &Operation) -> impl Iterator<Item = &ResponseDef> {
    op.responses.iter().filter(|r| r.declared)
}

/// One operation's request type, body enum, answer enum and handler.
fn operation(
    op: &Operation,
    models: &TokenStream,
    has_schema: &dyn Fn(&str) -> bool,
) -> TokenStream {
    let request = request_name(op);
    let method = method_word(op.method);
    let request_doc = format!(
        " The request of [`Api::{}`] (`{method} {}`), read and judged against the spec.",
        op.name, op.path_template
    );
    let fields = op.params.iter().map(|p| {
        let name = field_name(p);
        let ty = owned(&p.ty, models);
        let ty = if p.required { ty } else { quote!(Option<#ty>) };
        let doc = docs::outer(&p.doc);
        quote! { #doc pub #name: #ty, }
    });
    let bodies = bodies(op);
    let body_enum = (bodies.len() > 1).then(|| {
        let name = body_enum_name(op);
        let variants = body_variants(&bodies);
        let items = bodies.iter().zip(&variants).map(|(b, v)| {
            let ty = body_type(op, b, v, models);
            let v = ident(v);
            let doc = format!(" A `{}` body.", b.media);
            quote! { #[doc = #doc] #v(#ty), }
        });
        let doc = format!(" The body of [`{request}`], in whichever media type it came.");
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, PartialEq)]
            pub enum #name { #(#items)* }
        }
    });
    let variants = body_variants(&bodies);
    let forms = bodies
        .iter()
        .zip(&variants)
        .map(|(b, v)| form_struct(op, b, v, models));
    let body_field = bodies.first().map(|b| {
        let ty = if bodies.len() > 1 {
            let n = body_enum_name(op);
            quote!(#n)
        } else {
            body_type(op, b, &variants[0], models)
        };
        let ty = if b.required { ty } else { quote!(Option<#ty>) };
        let doc = docs::outer(&b.doc);
        quote! { #doc pub body: #ty, }
    });
    let cred_field = credentials_field(op);
    let headers_field = headers_field(op);
    let answer_enum = answers(op, models);
    let handler = handler(op, has_schema);
    let template = template(op);
    let template_const = template_name(op);
    quote! {
        #[doc = #request_doc]
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub struct #request {
            #(#fields)*
            #body_field
            /// What the request sent for the spec's security schemes (not checked).
            pub #cred_field: Credentials,
            /// Every header the request sent, declared or not: what the spec cannot
            /// state (RFC 6749's client authentication, a trace id) is still the
            /// implementation's to read.
            pub #headers_field: RawHeaders,
        }

        #body_enum

        #(#forms)*

        #answer_enum

        /// The operation's path template, segment by segment.
        const #template_const: &[&[rt::Piece]] = #template;

        #handler
    }
}

/// The template as runtime pieces: `&[&[Piece::Literal("flows")], &[Piece::Param("id")]]`.
fn template(op: &Operation) -> TokenStream {
    let segments = segments(op);
    let segs = segments.iter().map(|pieces| {
        let pieces = pieces.iter().map(|p| match p {
            Seg::Literal(l) => quote!(rt::Piece::Literal(#l)),
            Seg::Param(w) => quote!(rt::Piece::Param(#w)),
        });
        quote!(&[#(#pieces),*])
    });
    quote!(&[#(#segs),*])
}

#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Literal(String),
    Param(String),
}

/// The path's segments (after its leading `/`), each a list of literal and parameter
/// (wire name) pieces; an empty segment (a trailing slash) has no piece.
fn segments(op: &Operation) -> Vec<Vec<Seg>> {
    let mut out: Vec<Vec<Seg>> = vec![Vec::new()];
    let mut first = true;
    for part in &op.path {
        match part {
            PathPart::Literal(text) => {
                let text = if first {
                    text.strip_prefix('/').unwrap_or(text)
                } else {
                    text
                };
                let mut pieces = text.split('/');
                if let Some(head) = pieces.next()
                    && !head.is_empty()
                {
                    out.last_mut()
                        .expect("one segment")
                        .push(Seg::Literal(head.to_owned()));
                }
                for piece in pieces {
                    out.push(Vec::new());
                    if !piece.is_empty() {
                        out.last_mut()
                            .expect("one segment")
                            .push(Seg::Literal(piece.to_owned()));
                    }
                }
            }
            PathPart::Param(name) => {
                let wire = op
                    .params
                    .iter()
                    .find(|p| p.name == *name && p.location == ParamLocation::Path)
                    .map_or(name.as_str(), |p| p.wire.as_str());
                out.last_mut()
                    .expect("one segment")
                    .push(Seg::Param(wire.to_owned()));
            }
        }
        first = false;
    }
    out
}

/// The route axum is given for `op`: each segment with a parameter becomes `{s<i>}`.
fn axum_path(op: &Operation) -> String {
    let segs = segments(op);
    let mut out = String::new();
    for (i, pieces) in segs.iter().enumerate() {
        out.push('/');
        if pieces.iter().any(|p| matches!(p, Seg::Param(_))) {
            out.push_str(&format!("{{s{i}}}"));
        } else {
            for p in pieces {
                if let Seg::Literal(l) = p {
                    out.push_str(&l.replace('{', "{{").replace('}', "}}"));
                }
            }
        }
    }
    out
}

fn literal_len(op: &Operation) -> usize {
    segments(op)
        .iter()
        .flatten()
        .map(|p| match p {
            Seg::Literal(l) => l.len(),
            Seg::Param(_) => 0,
        })
        .sum()
}

fn method_word(m: Method) -> &'static str {
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

fn is_json_media(m: &str) -> bool {
    let m = m
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    m == "application/json" || m.ends_with("+json")
}

/// The media types an answer of `payload` is sent in: the declared ones of its kind.
fn answer_media(r: &ResponseDef) -> Vec<String> {
    let of_kind: Vec<String> = r
        .media
        .iter()
        .filter(|m| match &r.payload {
            Payload::Json(_) => is_json_media(m),
            Payload::Text => m.to_ascii_lowercase().starts_with("text/"),
            _ => true,
        })
        .cloned()
        .collect();
    if !of_kind.is_empty() {
        return of_kind;
    }
    match &r.payload {
        Payload::Json(_) => vec!["application/json".to_owned()],
        Payload::Text => vec!["text/plain".to_owned()],
        _ => r
            .media
            .first()
            .cloned()
            .map_or_else(|| vec!["application/octet-stream".to_owned()], |m| vec![m]),
    }
}

/// The operation's answer enum and how each variant goes on the wire, with the headers
/// struct of each answer that declares headers.
fn answers(op: &Operation, models: &TokenStream) -> TokenStream {
    let name = response_name(op);
    let doc = format!(
        " The answers [`Api::{}`] declares, one variant per documented status.",
        op.name
    );
    let mut variants = Vec::new();
    let mut arms = Vec::new();
    let mut header_structs = Vec::new();
    for r in declared(op) {
        let v = ident(&r.variant);
        let vdoc = docs::outer(&format!("`{}`: {}", status_word(&r.status), r.doc));
        let payload = match &r.payload {
            Payload::None => None,
            Payload::Json(ty) => Some(owned(ty, models)),
            Payload::Text => Some(quote!(String)),
            Payload::Bytes => Some(quote!(axum::body::Bytes)),
        };
        let media = answer_media(r);
        let write = |body: TokenStream| match &r.payload {
            Payload::None => quote!(rt::empty(status)),
            Payload::Json(_) => quote! {
                rt::json(status, rt::negotiate(accept, &[#(#media),*]), #body)
            },
            Payload::Text => quote! {
                rt::with_body(status, rt::negotiate(accept, &[#(#media),*]), axum::body::Bytes::from(#body))
            },
            Payload::Bytes => quote! {
                rt::with_body(status, rt::negotiate(accept, &[#(#media),*]), #body)
            },
        };
        let code = match &r.status {
            StatusMatch::Code(c) => Some(proc_macro2::Literal::u16_unsuffixed(*c)),
            _ => None,
        };
        if !r.headers.is_empty() {
            let (variant, arm, headers) = with_headers(r, &name, payload, code, &write, models);
            variants.push(quote! { #vdoc #variant });
            arms.push(arm);
            header_structs.push(headers);
            continue;
        }
        match (code, payload) {
            (Some(c), None) => {
                variants.push(quote! { #vdoc #v, });
                let w = write(quote!());
                arms.push(quote! { #name::#v => { let status = StatusCode::from_u16(#c).unwrap_or(StatusCode::OK); #w } });
            }
            (Some(c), Some(ty)) => {
                variants.push(quote! { #vdoc #v(#ty), });
                let w = write(body_expr(&r.payload));
                arms.push(quote! { #name::#v(body) => { let status = StatusCode::from_u16(#c).unwrap_or(StatusCode::OK); #w } });
            }
            (_, None) => {
                variants.push(quote! {
                    #vdoc
                    #v {
                        /// The status sent (one the declaration covers).
                        status: StatusCode,
                    },
                });
                let w = write(quote!());
                arms.push(quote! { #name::#v { status } => { #w } });
            }
            (_, Some(ty)) => {
                variants.push(quote! {
                    #vdoc
                    #v {
                        /// The status sent (one the declaration covers).
                        status: StatusCode,
                        /// The body.
                        body: #ty,
                    },
                });
                let w = write(body_expr(&r.payload));
                arms.push(quote! { #name::#v { status, body } => { #w } });
            }
        }
    }
    let respond = if arms.is_empty() {
        quote! {
            fn respond(self, accept: &axum::http::HeaderMap) -> Response {
                let _ = accept;
                match self {}
            }
        }
    } else {
        quote! {
            fn respond(self, accept: &axum::http::HeaderMap) -> Response {
                let _ = accept;
                match self { #(#arms)* }
            }
        }
    };
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq)]
        #[allow(clippy::large_enum_variant)]
        pub enum #name {
            #(#variants)*
        }

        impl #name {
            #respond
        }

        #(#header_structs)*
    }
}

/// The name of the struct of the headers `r` declares (`{Prefix}{Variant}Headers`
/// unless another operation's took it: the lowering claims it).
fn headers_name(r: &ResponseDef) -> proc_macro2::Ident {
    ident(&r.headers_type)
}

/// An answer that declares headers: its struct variant (the status where the declaration
/// covers several, the body where it has one, and the headers, a struct of their own so
/// an implementation builds them apart and takes `Default` where none is required), its
/// arm of `respond`, and the headers struct with its writer. A header's value that is no
/// valid header value makes the answer a 500 problem, as a body that cannot be written
/// does.
fn with_headers(
    r: &ResponseDef,
    enum_name: &proc_macro2::Ident,
    payload: Option<TokenStream>,
    code: Option<proc_macro2::Literal>,
    write: &dyn Fn(TokenStream) -> TokenStream,
    models: &TokenStream,
) -> (TokenStream, TokenStream, TokenStream) {
    let v = ident(&r.variant);
    let headers = headers_name(r);
    let status_field = code.is_none().then(|| {
        quote! {
            /// The status sent (one the declaration covers).
            status: StatusCode,
        }
    });
    let body_field = payload.as_ref().map(|ty| {
        quote! {
            /// The body.
            body: #ty,
        }
    });
    let variant = quote! {
        #v {
            #status_field
            #body_field
            /// The headers the answer declares.
            headers: #headers,
        },
    };
    let status_bind = code.is_none().then(|| quote!(status,));
    let body_bind = payload.is_some().then(|| quote!(body,));
    let status = match &code {
        Some(c) => quote!(let status = StatusCode::from_u16(#c).unwrap_or(StatusCode::OK);),
        None => TokenStream::new(),
    };
    let w = if payload.is_some() {
        write(body_expr(&r.payload))
    } else {
        write(quote!())
    };
    let arm = quote! {
        #enum_name::#v { #status_bind #body_bind headers } => {
            #status
            match headers.header_map() {
                Ok(headers) => rt::with_headers(status, #w, headers),
                Err(problem) => problem.into_response(),
            }
        }
    };
    let fields = r.headers.iter().map(|h| {
        let name = ident(&h.name);
        let ty = owned(&h.ty, models);
        let ty = if h.required { ty } else { quote!(Option<#ty>) };
        let doc = docs::outer(&header_doc(h));
        quote! { #doc pub #name: #ty, }
    });
    let puts = r.headers.iter().map(|h| {
        let name = ident(&h.name);
        let wire = &h.wire;
        let style = match h.encoding {
            HeaderEncoding::Simple { explode } => {
                quote!(rt::HeaderStyle::Simple { explode: #explode })
            }
            HeaderEncoding::JsonText => quote!(rt::HeaderStyle::JsonText),
        };
        quote! { rt::put_header(&mut map, #wire, &self.#name, #style)?; }
    });
    let default = r
        .headers
        .iter()
        .all(|h| !h.required)
        .then(|| quote!(Default,));
    let doc = format!(
        " The headers of [`{enum_name}::{}`] (`{}`), each written as the spec declares it \
         (`simple` style: a list's items joined by commas); an optional one left `None` is \
         not sent.",
        r.variant,
        status_word(&r.status)
    );
    let headers_struct = quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq, #default)]
        pub struct #headers {
            #(#fields)*
        }

        impl #headers {
            /// The headers as the answer carries them.
            fn header_map(&self) -> Result<axum::http::HeaderMap, Problem> {
                let mut map = axum::http::HeaderMap::new();
                #(#puts)*
                Ok(map)
            }
        }
    };
    (variant, arm, headers_struct)
}

/// A header field's rustdoc: the spec's, and the header's name where it does not say it.
fn header_doc(h: &ResponseHeader) -> String {
    let named = format!("`{}`", h.wire);
    if h.doc.contains(&named) {
        h.doc.clone()
    } else {
        format!("{}\n\nHeader {named}.", h.doc)
    }
}

/// How a variant's body is passed to the runtime's writer: JSON by reference.
fn body_expr(payload: &Payload) -> TokenStream {
    match payload {
        Payload::Json(_) => quote!(&body),
        _ => quote!(body),
    }
}

fn status_word(s: &StatusMatch) -> String {
    match s {
        StatusMatch::Code(c) => c.to_string(),
        StatusMatch::Class(c) => format!("{c}XX"),
        StatusMatch::Default => "default".to_owned(),
    }
}

/// The trait's method of `op`, answering 501 until written.
fn trait_method(op: &Operation) -> TokenStream {
    let name = ident(&op.name);
    let request = request_name(op);
    let response = response_name(op);
    let doc = docs::outer(&op.doc);
    let op_name = &op.name;
    let deprecated = op.deprecated.then(|| quote!(#[deprecated]));
    quote! {
        #doc
        #deprecated
        fn #name(
            &self,
            request: #request,
        ) -> impl std::future::Future<Output = Result<#response, Problem>> + Send {
            let _ = request;
            std::future::ready(Err(Problem::not_implemented(#op_name)))
        }
    }
}

/// The runtime style of a parameter's encoding.
fn style(p: &Param) -> TokenStream {
    match &p.list {
        ListEncoding::Repeat => quote!(rt::Style::Plain),
        ListEncoding::Join(sep) if p.location == ParamLocation::Query => {
            let c = sep.chars().next().unwrap_or(',');
            quote!(rt::Style::Joined(#c))
        }
        ListEncoding::Join(_) => quote!(rt::Style::Plain),
        ListEncoding::Label { explode } => quote!(rt::Style::Label { explode: #explode }),
        ListEncoding::Matrix { explode } => quote!(rt::Style::Matrix { explode: #explode }),
        ListEncoding::ObjectForm { explode } => {
            quote!(rt::Style::ObjectForm { explode: #explode })
        }
        ListEncoding::DeepObject => quote!(rt::Style::DeepObject),
        ListEncoding::DeepList => quote!(rt::Style::DeepList),
        ListEncoding::JsonText => quote!(rt::Style::JsonText),
        ListEncoding::ObjectStyled { style, explode } => {
            let lead = match style {
                ObjectStyle::Simple => "",
                ObjectStyle::Label => ".",
                ObjectStyle::Matrix => ";",
            };
            quote!(rt::Style::ObjectPairs { lead: #lead, explode: #explode })
        }
    }
}

fn location(l: ParamLocation) -> (TokenStream, &'static str) {
    match l {
        ParamLocation::Path => (quote!(rt::Location::Path), "path"),
        ParamLocation::Query => (quote!(rt::Location::Query), "query"),
        ParamLocation::Header => (quote!(rt::Location::Header), "header"),
        ParamLocation::Cookie => (quote!(rt::Location::Cookie), "cookie"),
    }
}

fn pointer(p: &Option<String>, has_schema: &dyn Fn(&str) -> bool) -> TokenStream {
    match p.as_deref().filter(|p| has_schema(p)) {
        Some(p) => quote!(Some(#p)),
        None => quote!(None),
    }
}

/// Whether one of `op`'s declared answers covers `code`: exactly, by its class, or as
/// `default`.
fn covers(op: &Operation, code: u16) -> bool {
    declared(op).any(|r| match r.status {
        StatusMatch::Code(c) => c == code,
        StatusMatch::Class(c) => c == code / 100,
        StatusMatch::Default => true,
    })
}

/// Whether `op` declares a 422 or a 400, the statuses [`refusal`] answers with.
fn declares_refusal(op: &Operation) -> bool {
    declared(op).any(|r| matches!(r.status, StatusMatch::Code(422 | 400)))
}

/// The status, media type and schema a refused request of `op` is answered with: its
/// declared 422, else its declared 400, else 400 as problem details.
fn refusal(op: &Operation, has_schema: &dyn Fn(&str) -> bool) -> TokenStream {
    let declared_code = [422u16, 400]
        .into_iter()
        .find_map(|c| declared(op).find(|r| r.status == StatusMatch::Code(c)));
    let Some(r) = declared_code else {
        return quote! {{
            let problem = rt::refused(
                StatusCode::BAD_REQUEST,
                std::mem::take(&mut incoming.violations),
            );
            let answer = rt::refusal(schemas, None, None, &problem);
            Box::new(rt::Unserved::Refused(problem, answer))
        }};
    };
    let StatusMatch::Code(code) = r.status else {
        unreachable!("found by code")
    };
    let code = proc_macro2::Literal::u16_unsuffixed(code);
    let media = r.media.iter().find(|m| is_json_media(m));
    let media = match (media, &r.payload) {
        (Some(m), Payload::Json(_)) => quote!(Some(#m)),
        _ => quote!(None),
    };
    let schema = pointer(&r.schema, has_schema);
    quote! {{
        let problem = rt::refused(
            StatusCode::from_u16(#code).unwrap_or(StatusCode::BAD_REQUEST),
            std::mem::take(&mut incoming.violations),
        );
        let answer = rt::refusal(schemas, #media, #schema, &problem);
        Box::new(rt::Unserved::Refused(problem, answer))
    }}
}

/// The handler's read of `op`'s body (`bodies`, none for an operation without one):
/// its media type against the ones the operation takes, then the body in that type
/// judged and decoded.
fn body_read(
    op: &Operation,
    bodies: &[&Body],
    has_schema: &dyn Fn(&str) -> bool,
) -> Option<TokenStream> {
    let models = quote!(crate::models::);
    if bodies.is_empty() {
        return None;
    }
    let media: Vec<&str> = bodies.iter().map(|b| b.media.as_str()).collect();
    let required = bodies[0].required;
    let variants = body_variants(bodies);
    let several = bodies.len() > 1;
    let enum_name = body_enum_name(op);
    let arms = bodies.iter().zip(&variants).enumerate().map(|(i, (b, v))| {
        let schema = pointer(&b.schema, has_schema);
        let ty = body_type(op, b, v, &models);
        let read = match b.kind {
            BodyKind::Json => quote! {{
                let value = incoming.json_body(schemas, #schema);
                incoming.decode::<#ty>(value, "body", None)
            }},
            BodyKind::Form => quote! {{
                let value = incoming.form_body(schemas, #schema);
                incoming.decode::<#ty>(value, "body", None)
            }},
            BodyKind::Text => quote! {{
                let value = incoming.text_body(schemas, #schema);
                incoming.decode::<#ty>(value, "body", None)
            }},
            BodyKind::Multipart => form_read(op, b, v, &schema),
            BodyKind::Binary => quote!(Some(incoming.body.clone())),
        };
        let read = if several {
            let v = ident(v);
            quote!(#read.map(#enum_name::#v))
        } else {
            read
        };
        quote! { Ok(Some(#i)) => #read, }
    });
    // A media type the operation does not take is refused with 415 where the
    // operation declares it (or a class or `default` covering it); where it declares
    // only its 422 or 400 for refused input, that is the answer, as for any other
    // input it cannot take: a server answers no status its spec leaves out when the
    // spec names one for the case.
    let media_refused = if covers(op, 415) || !declares_refusal(op) {
        quote! {{
            let answer = problem.clone().into_response();
            return Err(Box::new(rt::Unserved::Refused(problem, answer)));
        }}
    } else {
        let refuse = refusal(op, has_schema);
        quote! {{
            incoming.violations.push(rt::Violation {
                location: "body",
                name: None,
                pointer: String::new(),
                message: problem.detail,
            });
            return Err(#refuse);
        }}
    };
    Some(quote! {
        let body = match incoming.body_media(&[#(#media),*], #required) {
            Err(problem) => #media_refused,
            #(#arms)*
            Ok(_) => None,
        };
    })
}

/// The handler of `op`: read, judge, decode, call, answer.
fn handler(op: &Operation, has_schema: &dyn Fn(&str) -> bool) -> TokenStream {
    let models = quote!(crate::models::);
    let name = handler_name(op);
    let method = ident(&op.name);
    let request = request_name(op);
    let template = template_name(op);
    let reads = op.params.iter().map(|p| {
        let local = ident(&format!("param_{}", p.name));
        let wire = &p.wire;
        let (loc, word) = location(p.location);
        let style = style(p);
        let schema = pointer(&p.schema, has_schema);
        let required = p.required;
        let ty = owned(&p.ty, &models);
        quote! {
            let #local = incoming.param(schemas, &rt::Param {
                name: #wire,
                location: #loc,
                style: #style,
                schema: #schema,
                required: #required,
            });
            let #local: Option<#ty> = incoming.decode(#local, #word, Some(#wire));
        }
    });
    let bodies = bodies(op);
    let body_read = body_read(op, &bodies, has_schema);
    let refuse = refusal(op, has_schema);
    let cred_field = credentials_field(op);
    let (required_binds, field_inits) = request_fields(op, &bodies);
    // Every read of a parameter or body records into `incoming`; an operation with
    // neither only answers from it (a `&mut` would be an `unused_mut` warning).
    let reads_any = !op.params.is_empty() || body_read.is_some();
    let judging = reads_any.then(|| {
        quote! {
            let schemas = schemas();
            #(#reads)*
            #body_read
            if !incoming.violations.is_empty() {
                return Err(#refuse);
            }
        }
    });
    let incoming_param = if reads_any {
        quote!(incoming: &mut rt::Incoming)
    } else {
        quote!(incoming: &rt::Incoming)
    };
    let incoming_arg = if reads_any {
        quote!(&mut incoming)
    } else {
        quote!(&incoming)
    };
    let mutable = reads_any.then(|| quote!(mut));
    // Only a multipart body is read part by part as it streams in.
    let forms = bodies
        .iter()
        .any(|b| b.kind == BodyKind::Multipart && b.form.is_some());
    let (asyncness, awaited) = if forms {
        (quote!(async), quote!(.await))
    } else {
        (TokenStream::new(), TokenStream::new())
    };
    // The handler calls the trait's method even when the spec deprecates it: the
    // deprecation is for whoever implements or calls the operation, not for the router.
    let allow_deprecated = op.deprecated.then(|| quote!(#[allow(deprecated)]));
    let operation = operation_value(op);
    let headers_field = headers_field(op);
    let judge = ident(&format!("judge_{}", op.name));
    let judge_doc = format!(
        " Reads and judges a request of [`Api::{}`] once [`admit`] has let it in.",
        op.name
    );
    quote! {
        // Non-generic and (but for a multipart body) synchronous: the judging is most
        // of the code, and out of the generic `async fn` it is checked as plain code,
        // with no coroutine to lay out and no `Send` to prove.
        #[doc = #judge_doc]
        #asyncness fn #judge(
            #incoming_param,
            #cred_field: Credentials,
        ) -> Result<#request, Box<rt::Unserved>> {
            #judging
            #(#required_binds)*
            Ok(#request {
                #(#field_inits)*
                #cred_field,
                #headers_field: RawHeaders(incoming.headers.clone()),
            })
        }

        #allow_deprecated
        async fn #name<A: Api>(
            axum::extract::State(state): axum::extract::State<Arc<Shared<A>>>,
            request: axum::extract::Request,
        ) -> Response {
            let operation = #operation;
            let (#mutable incoming, credentials) =
                match admit(&state, operation, request, #template).await {
                    Ok(admitted) => admitted,
                    Err(answer) => return answer,
                };
            let request = match #judge(#incoming_arg, credentials)#awaited {
                Ok(request) => request,
                Err(unserved) => return (*unserved).answer(&state.api, operation),
            };
            match state.api.#method(request).await {
                Ok(answer) => answer.respond(&incoming.headers),
                Err(problem) => problem.into_response(),
            }
        }
    }
}

/// What a handler binds once the request is judged (each required value, which the
/// judging has made sure of) and the request's fields it fills with them.
fn request_fields(op: &Operation, bodies: &[&Body]) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut required_binds = Vec::new();
    let mut field_inits = Vec::new();
    for p in &op.params {
        let local = ident(&format!("param_{}", p.name));
        let field = field_name(p);
        if p.required {
            required_binds.push(quote! {
                let Some(#local) = #local else {
                    return Err(Box::new(rt::Unserved::Answered(
                        Problem::internal("a required value was judged present but not read").into_response(),
                    )));
                };
            });
        }
        field_inits.push(quote!(#field: #local,));
    }
    if let Some(b) = bodies.first() {
        if b.required {
            required_binds.push(quote! {
                let Some(body) = body else {
                    return Err(Box::new(rt::Unserved::Answered(
                        Problem::internal("a required body was judged present but not read").into_response(),
                    )));
                };
            });
        }
        field_inits.push(quote!(body,));
    }
    (required_binds, field_inits)
}

/// The `Operation` a handler tells the implementation about.
fn operation_value(op: &Operation) -> TokenStream {
    let method_name = &op.name;
    let security = op
        .security
        .iter()
        .map(|alternative| quote!(&[#(#alternative),*]));
    quote!(Operation { method: #method_name, security: &[#(#security),*] })
}

/// `router` and `router_with`: every operation's route.
fn router(api: &Api) -> TokenStream {
    // axum route → method → operations in the order they are tried.
    let mut routes: BTreeMap<String, BTreeMap<&'static str, Vec<&Operation>>> = BTreeMap::new();
    for op in &api.operations {
        routes
            .entry(axum_path(op))
            .or_default()
            .entry(method_word(op.method))
            .or_default()
            .push(op);
    }
    let mut registrations = Vec::new();
    for (path, methods) in &routes {
        let mut chain = Vec::new();
        for (word, ops) in methods {
            let mut ops = ops.clone();
            ops.sort_by_key(|op| std::cmp::Reverse(literal_len(op)));
            let filter = ident(match *word {
                "GET" => "get",
                "PUT" => "put",
                "POST" => "post",
                "DELETE" => "delete",
                "OPTIONS" => "options",
                "HEAD" => "head",
                "PATCH" => "patch",
                _ => "trace",
            });
            // One operation is its handler itself; several are tried by their
            // templates in one closure.
            let call = if ops.len() == 1 {
                let h = handler_name(ops[0]);
                quote!(#h::<A>)
            } else {
                let tries = ops[..ops.len() - 1].iter().map(|op| {
                    let h = handler_name(op);
                    let t = template_name(op);
                    quote! {
                        if rt::match_path(#t, request.uri().path()).is_some() {
                            return #h(state, request).await;
                        }
                    }
                });
                let last = handler_name(ops[ops.len() - 1]);
                quote! {
                    |state: axum::extract::State<Arc<Shared<A>>>, request: axum::extract::Request| async move {
                        #(#tries)*
                        #last(state, request).await
                    }
                }
            };
            chain.push((filter, call));
        }
        let (first_filter, first_call) = chain.remove(0);
        let rest = chain.iter().map(|(f, c)| quote!(.#f(#c)));
        registrations.push(quote! {
            .route(#path, axum::routing::#first_filter(#first_call) #(#rest)*)
        });
    }
    let base = api.server_path.as_deref().unwrap_or("");
    let nest = if base.is_empty() {
        quote!(routes)
    } else {
        quote!(axum::Router::new().nest(#base, routes))
    };
    let base_doc = if base.is_empty() {
        " The paths are the spec's, from the root.".to_owned()
    } else {
        format!(" The paths are under `{base}`, the path of the spec's first server.")
    };
    quote! {
        /// What every handler shares: the implementation and the body limit.
        struct Shared<A> {
            api: A,
            body_limit: usize,
        }

        /// The steps every operation takes before its own judging: the request read
        /// (its path against `template`, its body within the limit) and its credentials
        /// handed to [`Api::authorize`]. `Err` is the answer.
        async fn admit<A: Api>(
            state: &Shared<A>,
            operation: Operation,
            request: axum::extract::Request,
            template: &'static [&'static [rt::Piece]],
        ) -> Result<(rt::Incoming, Credentials), Response> {
            let incoming = match rt::Incoming::read(request, template, state.body_limit).await {
                Ok(incoming) => incoming,
                Err(refused) => {
                    let problem = refused.problem();
                    let answer = problem.clone().into_response();
                    return Err(state.api.refused(operation, &problem, answer));
                }
            };
            let credentials = Credentials::read(&incoming);
            if let Err(problem) = state.api.authorize(operation, &credentials).await {
                return Err(problem.into_response());
            }
            Ok((incoming, credentials))
        }

        impl rt::Unserved {
            /// The answer to a request the router did not pass on: a refusal shaped by
            /// [`Api::refused`].
            fn answer<A: Api>(self, api: &A, operation: Operation) -> Response {
                match self {
                    rt::Unserved::Refused(problem, answer) => api.refused(operation, &problem, answer),
                    rt::Unserved::Answered(answer) => answer,
                }
            }
        }

        /// The router of every operation, reading bodies up to [`DEFAULT_BODY_LIMIT`].
        #[doc = #base_doc]
        pub fn router<A: Api>(api: A) -> axum::Router {
            router_with(api, DEFAULT_BODY_LIMIT)
        }

        /// [`router`] with another limit on request bodies (a larger one is a 413).
        pub fn router_with<A: Api>(api: A, body_limit: usize) -> axum::Router {
            let state = Arc::new(Shared { api, body_limit });
            let routes = axum::Router::new()
                #(#registrations)*
                .with_state(state);
            #nest
                .fallback(rt::not_found)
                .layer(axum::middleware::from_fn(rt::protocol))
        }
    }
}
