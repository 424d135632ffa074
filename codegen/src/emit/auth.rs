//! Credentials of the generated client: one per security scheme the spec's operations
//! send, set at run time, never shown, and put only on the requests that declare them.
//!
//! They live in one private `Credentials` struct behind a lock in the `Client`, so that a
//! setter (`&self`) takes effect for every later call while other calls are in flight,
//! and so that `Debug` of the client has one place to redact. The lock is behind an
//! `Arc` that every clone of the client shares: a token replaced or refreshed through one
//! clone is the token of all, as tasks holding clones expect.
//!
//! A bearer scheme takes either a fixed token or a `TokenSource` asked before each
//! request (outside the lock, as it may await a refresh). A scheme whose spec declares
//! `x-token-refresh` also gets a ready source that renews the token through the spec's
//! token operation, one refresh at a time. The
//! rule for several alternatives is decided here once and documented on every method
//! that has them: the first alternative (in spec order) whose credentials are all set is
//! sent; the anonymous alternative (`{}`) only when no other is complete.

use proc_macro2::TokenStream;
use quote::quote;

use super::docs;
use super::types::ident;
use crate::ir::{Api, ApiKeyLocation, Operation, SchemeKind, SecurityScheme};

/// Whether the client holds credentials at all.
pub fn any(api: &Api) -> bool {
    !api.schemes.is_empty()
}

/// Whether some scheme sends a bearer token (the client then takes token sources).
pub fn bearer(api: &Api) -> bool {
    api.schemes
        .iter()
        .any(|s| matches!(s.kind, SchemeKind::Bearer(_)))
}

/// The schemes that declare a token refresh, with the name of their refreshing source:
/// `RefreshingToken`, or `<Scheme>RefreshingToken` when several schemes declare one.
pub fn refreshing(api: &Api) -> Vec<(&SecurityScheme, String)> {
    let declared: Vec<&SecurityScheme> =
        api.schemes.iter().filter(|s| s.refresh.is_some()).collect();
    let several = declared.len() > 1;
    declared
        .into_iter()
        .map(|s| {
            let name = if several {
                format!("{}RefreshingToken", s.variant)
            } else {
                "RefreshingToken".to_owned()
            };
            (s, name)
        })
        .collect()
}

/// Whether some scheme is a cookie (its requests collect a `Cookie` header).
fn cookie_schemes(api: &Api) -> bool {
    api.schemes.iter().any(|s| {
        matches!(
            s.kind,
            SchemeKind::ApiKey {
                location: ApiKeyLocation::Cookie,
                ..
            }
        )
    })
}

/// The alternatives of `op` that send something (the anonymous one left out).
fn sending(op: &Operation) -> Vec<&Vec<String>> {
    op.security.iter().filter(|a| !a.is_empty()).collect()
}

/// Whether a request of `op` may carry credentials.
pub fn sends(op: &Operation) -> bool {
    !sending(op).is_empty()
}

/// Whether a request of `op` may carry a cookie credential.
pub fn sends_cookie(op: &Operation, api: &Api) -> bool {
    sending(op).iter().any(|alt| {
        alt.iter().any(|key| {
            scheme(api, key).is_some_and(|s| {
                matches!(
                    s.kind,
                    SchemeKind::ApiKey {
                        location: ApiKeyLocation::Cookie,
                        ..
                    }
                )
            })
        })
    })
}

fn scheme<'a>(api: &'a Api, key: &str) -> Option<&'a SecurityScheme> {
    api.schemes.iter().find(|s| s.key == key)
}

/// What a scheme is, in prose: "`bearerAuth` (HTTP bearer)".
pub(super) fn describe(s: &SecurityScheme) -> String {
    let what = match &s.kind {
        SchemeKind::Bearer(source) => format!("{source}, sent as `Authorization: Bearer <token>`"),
        SchemeKind::Basic => "HTTP basic, sent as `Authorization: Basic …`".to_owned(),
        SchemeKind::ApiKey { location, name } => {
            let place = match location {
                ApiKeyLocation::Header => "header",
                ApiKeyLocation::Query => "query parameter",
                ApiKeyLocation::Cookie => "cookie",
            };
            format!("API key, sent as the `{name}` {place}")
        }
    };
    format!("`{}` ({what})", s.key)
}

/// The paragraph of a method's doc that says which credentials it sends, or nothing.
pub fn method_doc(op: &Operation, api: &Api) -> String {
    let alternatives = sending(op);
    let anonymous = op.security.iter().any(Vec::is_empty);
    let names = |alt: &Vec<String>| {
        alt.iter()
            .map(|key| match scheme(api, key) {
                Some(s) => format!("`{key}` ([`Client::set_{}`])", s.stem),
                None => format!("`{key}`"),
            })
            .collect::<Vec<_>>()
            .join(" and ")
    };
    match alternatives.as_slice() {
        [] => String::new(),
        [one] if !anonymous => format!("\n\nSent with the credentials of {}.", names(one)),
        _ => {
            let list = alternatives
                .iter()
                .map(|alt| format!("- {}", names(alt)))
                .collect::<Vec<_>>()
                .join("\n");
            let none = if anonymous {
                "; the spec also accepts the request without credentials, which is how it is \
                 sent when none is complete"
            } else {
                "; when none is complete, the request is sent without credentials"
            };
            format!(
                "\n\nThe spec accepts any of these credentials; the first alternative whose \
                 credentials are all set is sent{none}:\n\n{list}"
            )
        }
    }
}

/// The statement that puts the chosen credentials on `request` (and on `cookies`).
pub fn authorize(op: &Operation, api: &Api, op_has_cookies: bool) -> TokenStream {
    let alternatives = sending(op).into_iter().map(|alt| {
        let variants = alt
            .iter()
            .filter_map(|key| scheme(api, key))
            .map(|s| ident(&s.variant));
        quote!(&[#(Scheme::#variants),*])
    });
    let cookies = match (cookie_schemes(api), op_has_cookies) {
        (false, _) => TokenStream::new(),
        (true, true) => quote!(&mut cookies,),
        (true, false) => quote!(&mut Vec::new(),),
    };
    if bearer(api) {
        // A token source may await (a refresh): asked outside the lock, by `Client::authorize`.
        // The token a source gave is kept, for the source to be told of a `401`.
        quote! {
            let mut token = None;
            request = self.authorize(request, #cookies &[#(#alternatives),*], &mut token).await.map_err(crate::Error::Token)?;
        }
    } else {
        quote! {
            request = read_credentials(&self.credentials).authorize(request, #cookies &[#(#alternatives),*]);
        }
    }
}

/// The accessors of every scheme, and the bearer-token shorthand.
pub fn client_methods(api: &Api) -> TokenStream {
    let mut out = TokenStream::new();
    let (cookie_param, cookie_arg) = if cookie_schemes(api) {
        (quote!(cookies: &mut Vec<String>,), quote!(cookies,))
    } else {
        (TokenStream::new(), TokenStream::new())
    };
    for s in &api.schemes {
        out.extend(accessors(s));
    }
    let bearers: Vec<&SecurityScheme> = api
        .schemes
        .iter()
        .filter(|s| matches!(s.kind, SchemeKind::Bearer(_)))
        .collect();
    if let [only] = bearers.as_slice()
        && only.stem != "bearer_token"
    {
        let set = ident(&format!("set_{}", only.stem));
        let clear = ident(&format!("clear_{}", only.stem));
        let has = ident(&format!("has_{}", only.stem));
        let see = docs::outer(&format!(
            "Sets or replaces the bearer token sent as `Authorization: Bearer <token>` on \
             the operations the spec secures with it. The spec's only bearer scheme is \
             `{}`: the same as [`Client::{set}`].",
            only.key
        ));
        let see_clear = docs::outer(&format!(
            "Removes the bearer token; secured operations are then sent without one. The \
             same as [`Client::{clear}`]."
        ));
        let see_has = docs::outer(&format!(
            "Whether a bearer token is set. The same as [`Client::{has}`]."
        ));
        let source = ident(&format!("set_{}_source", only.stem));
        let see_source = docs::outer(&format!(
            "Sends the tokens of `source` as `Authorization: Bearer <token>` on the operations \
             the spec secures with a bearer token, asking it before each request. The same as \
             [`Client::{source}`]."
        ));
        out.extend(quote! {
            #see_source
            pub fn set_token_source(&self, source: std::sync::Arc<dyn TokenSource>) {
                self.#source(source);
            }

            #see
            ///
            /// # Errors
            ///
            /// When the token holds characters an HTTP header cannot carry.
            pub fn set_bearer_token(&self, token: &str) -> Result<(), crate::InvalidBearerToken> {
                self.#set(token).map_err(|_| crate::InvalidBearerToken)
            }

            #see_clear
            pub fn clear_bearer_token(&self) {
                self.#clear();
            }

            #see_has
            pub fn has_bearer_token(&self) -> bool {
                self.#has()
            }
        });
    }
    if !bearers.is_empty() {
        out.extend(quote! {
            /// Puts on `request` the credentials of the first complete alternative, asking
            /// the token sources among them (outside the lock: a source may await a refresh).
            /// The token a source gave goes in `sourced`, for the source to be told if the
            /// server refuses it.
            async fn authorize(
                &self,
                request: reqwest::RequestBuilder,
                #cookie_param
                alternatives: &[&[Scheme]],
                sourced: &mut Option<Sourced>,
            ) -> Result<reqwest::RequestBuilder, crate::TokenError> {
                let mut sources = Vec::new();
                let mut request = read_credentials(&self.credentials).authorize(request, #cookie_arg alternatives, &mut sources);
                for source in sources {
                    if let Some(token) = source.token().await? {
                        request = request.header(reqwest::header::AUTHORIZATION, bearer_header(&token)?);
                        *sourced = Some(Sourced { source, token });
                    }
                }
                Ok(request)
            }
        });
    }
    out
}

/// `set_…`, `clear_…` and `has_…` of one scheme.
fn accessors(s: &SecurityScheme) -> TokenStream {
    let field = ident(&s.stem);
    let set = ident(&format!("set_{}", s.stem));
    let clear = ident(&format!("clear_{}", s.stem));
    let has = ident(&format!("has_{}", s.stem));
    let key = &s.key;
    let mut doc = format!(
        "Sets or replaces the credential of security scheme {}. It is sent only to the \
         operations that declare the scheme, from the next call on (also by calls already \
         waiting to send); `Debug` never shows it.",
        describe(s)
    );
    if !s.doc.is_empty() {
        doc.push_str("\n\n");
        doc.push_str(&s.doc);
    }
    let invalid = |reason: &str| quote!(crate::InvalidCredential { scheme: #key, reason: #reason });
    let (errors, signature, body) = match &s.kind {
        SchemeKind::Bearer(_) => {
            let err = invalid("the token holds characters an HTTP header cannot carry");
            (
                Some("When the token holds characters an HTTP header cannot carry."),
                quote!(token: &str),
                quote! {
                    let mut value = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))
                        .map_err(|_| #err)?;
                    value.set_sensitive(true);
                    write_credentials(&self.credentials).#field = Some(Bearer::Fixed(value));
                },
            )
        }
        SchemeKind::Basic => {
            let err = invalid("a Basic user name cannot contain `:`");
            (
                Some(
                    "When the user name contains `:`, which Basic authentication cannot carry (RFC 7617).",
                ),
                quote!(username: &str, password: &str),
                quote! {
                    if username.contains(':') {
                        return Err(#err);
                    }
                    write_credentials(&self.credentials).#field = Some((username.to_owned(), password.to_owned()));
                },
            )
        }
        SchemeKind::ApiKey {
            location: ApiKeyLocation::Header,
            ..
        } => {
            let err = invalid("the key holds characters an HTTP header cannot carry");
            (
                Some("When the key holds characters an HTTP header cannot carry."),
                quote!(key: &str),
                quote! {
                    let mut value = reqwest::header::HeaderValue::from_str(key).map_err(|_| #err)?;
                    value.set_sensitive(true);
                    write_credentials(&self.credentials).#field = Some(value);
                },
            )
        }
        SchemeKind::ApiKey {
            location: ApiKeyLocation::Query,
            ..
        } => (
            None,
            quote!(key: &str),
            quote! {
                write_credentials(&self.credentials).#field = Some(key.to_owned());
            },
        ),
        SchemeKind::ApiKey {
            location: ApiKeyLocation::Cookie,
            ..
        } => {
            let err = invalid("the key holds characters a cookie value cannot carry");
            (
                Some(
                    "When the key holds characters a cookie value cannot carry (RFC 6265: \
                     controls, space, `\"`, `,`, `;`, `\\` or non-ASCII); it is sent as \
                     given, not encoded.",
                ),
                quote!(key: &str),
                quote! {
                    if !key.bytes().all(|b| matches!(b, 0x21 | 0x23..=0x2B | 0x2D..=0x3A | 0x3C..=0x5B | 0x5D..=0x7E)) {
                        return Err(#err);
                    }
                    write_credentials(&self.credentials).#field = Some(key.to_owned());
                },
            )
        }
    };
    let (ret, ok, errors_doc) = match errors {
        Some(e) => (
            quote!(-> Result<(), crate::InvalidCredential>),
            quote!(Ok(())),
            format!("\n\n# Errors\n\n{e}"),
        ),
        None => (TokenStream::new(), TokenStream::new(), String::new()),
    };
    let clear_doc = format!(
        "Removes the credential of security scheme `{key}`; operations that need it are then \
         sent with another complete alternative, or without credentials."
    );
    let has_doc = format!("Whether the credential of security scheme `{key}` is set.");
    let doc = docs::outer(&format!("{doc}{errors_doc}"));
    let clear_doc = docs::outer(&clear_doc);
    let has_doc = docs::outer(&has_doc);
    let source = matches!(s.kind, SchemeKind::Bearer(_)).then(|| {
        let set_source = ident(&format!("set_{}_source", s.stem));
        let doc = docs::outer(&format!(
            "Asks `source` for the token of security scheme `{key}` before each request that \
             sends it, instead of a fixed token (replacing one). Every clone of the client \
             shares the source."
        ));
        quote! {
            #doc
            pub fn #set_source(&self, source: std::sync::Arc<dyn TokenSource>) {
                write_credentials(&self.credentials).#field = Some(Bearer::Source(source));
            }
        }
    });
    quote! {
        #source

        #doc
        pub fn #set(&self, #signature) #ret {
            #body
            #ok
        }

        #clear_doc
        pub fn #clear(&self) {
            write_credentials(&self.credentials).#field = None;
        }

        #has_doc
        pub fn #has(&self) -> bool {
            read_credentials(&self.credentials).#field.is_some()
        }
    }
}

/// The private `Scheme` enum and the `Credentials` struct (their lock helpers and the
/// public `InvalidCredential` error are the runtime's, in its `client.rs`).
pub fn items(api: &Api) -> TokenStream {
    if !any(api) {
        return TokenStream::new();
    }
    let variants: Vec<_> = api.schemes.iter().map(|s| ident(&s.variant)).collect();
    let variant_docs = api
        .schemes
        .iter()
        .map(|s| format!(" Security scheme `{}`.", s.key));
    let fields: Vec<_> = api.schemes.iter().map(|s| ident(&s.stem)).collect();
    let field_types = api.schemes.iter().map(|s| match &s.kind {
        SchemeKind::Bearer(_) => quote!(Option<Bearer>),
        SchemeKind::ApiKey {
            location: ApiKeyLocation::Header,
            ..
        } => quote!(Option<reqwest::header::HeaderValue>),
        SchemeKind::Basic => quote!(Option<(String, String)>),
        SchemeKind::ApiKey { .. } => quote!(Option<String>),
    });
    let field_docs = api
        .schemes
        .iter()
        .map(|s| format!(" The credential of {}.", describe(s)));
    let stems = api.schemes.iter().map(|s| s.stem.as_str());
    let cookie_param = cookie_schemes(api).then(|| quote!(cookies: &mut Vec<String>,));
    let apply = api.schemes.iter().map(|s| {
        let v = ident(&s.variant);
        let f = ident(&s.stem);
        let put = match &s.kind {
            SchemeKind::Bearer(_) => quote! {
                match &self.#f {
                    Some(Bearer::Fixed(value)) => {
                        request = request.header(reqwest::header::AUTHORIZATION, value.clone());
                    }
                    Some(Bearer::Source(source)) => sources.push(std::sync::Arc::clone(source)),
                    None => {}
                }
            },
            SchemeKind::Basic => quote! {
                if let Some((username, password)) = &self.#f {
                    request = request.basic_auth(username, Some(password));
                }
            },
            SchemeKind::ApiKey { location, name } => match location {
                ApiKeyLocation::Header => quote! {
                    if let Some(value) = &self.#f {
                        request = request.header(#name, value.clone());
                    }
                },
                ApiKeyLocation::Query => quote! {
                    if let Some(value) = &self.#f {
                        request = request.query(&[(#name, value)]);
                    }
                },
                ApiKeyLocation::Cookie => quote! {
                    if let Some(value) = &self.#f {
                        cookies.push(format!("{}={value}", #name));
                    }
                },
            },
        };
        quote!(Scheme::#v => { #put })
    });
    let is_set = api.schemes.iter().map(|s| {
        let v = ident(&s.variant);
        let f = ident(&s.stem);
        quote!(Scheme::#v => self.#f.is_some(),)
    });
    // Cookies go on the list the caller joins into one `Cookie` header, not on
    // `request`: a spec whose every scheme is a cookie leaves `request` as it came, and a
    // needless `mut` would fail `clippy -D warnings` in its crate.
    let request_mut = api
        .schemes
        .iter()
        .any(|s| {
            !matches!(
                s.kind,
                SchemeKind::ApiKey {
                    location: ApiKeyLocation::Cookie,
                    ..
                }
            )
        })
        .then(|| quote!(mut));
    let has_bearer = bearer(api);
    let sources_param =
        has_bearer.then(|| quote!(, sources: &mut Vec<std::sync::Arc<dyn TokenSource>>));
    let sources_doc = if has_bearer {
        " The token sources of the chosen bearer schemes are pushed on `sources`, to be asked outside the lock."
    } else {
        ""
    };
    let authorize_doc = format!(
        " Puts on `request` the credentials of the first alternative whose every credential is set; nothing when none is complete.{sources_doc}"
    );
    let bearer_items = has_bearer.then(|| token_source_items(api));
    quote! {
        #bearer_items

        /// A security scheme of the spec that some operation sends.
        #[derive(Clone, Copy)]
        enum Scheme {
            #(#[doc = #variant_docs] #variants,)*
        }

        /// The credentials set on a [`Client`], one per security scheme. `Debug` shows only
        /// which are set.
        #[derive(Default)]
        struct Credentials {
            #(#[doc = #field_docs] #fields: #field_types,)*
        }

        impl Credentials {
            /// Whether the credential of `scheme` is set.
            fn is_set(&self, scheme: Scheme) -> bool {
                match scheme {
                    #(#is_set)*
                }
            }

            #[doc = #authorize_doc]
            fn authorize(&self, #request_mut request: reqwest::RequestBuilder, #cookie_param alternatives: &[&[Scheme]] #sources_param) -> reqwest::RequestBuilder {
                let Some(chosen) = alternatives
                    .iter()
                    .find(|schemes| schemes.iter().all(|scheme| self.is_set(*scheme)))
                else {
                    return request;
                };
                for scheme in chosen.iter() {
                    match scheme {
                        #(#apply)*
                    }
                }
                request
            }
        }

        impl std::fmt::Debug for Credentials {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let shown = |set: bool| if set { "<redacted>" } else { "<none>" };
                f.debug_struct("Credentials")
                    #(.field(#stems, &shown(self.#fields.is_some())))*
                    .finish()
            }
        }

    }
}

/// A refreshing source per scheme that declares `x-token-refresh` (the token-source API
/// they implement is the runtime's, in its `client.rs`).
fn token_source_items(api: &Api) -> TokenStream {
    refreshing(api)
        .into_iter()
        .map(|(s, name)| refreshing_source(s, &name, api))
        .collect()
}

/// The name of the `RefreshGrant` type behind the refreshing source `name`.
pub fn grant_name(name: &str) -> String {
    format!("{name}Grant")
}

/// The refreshing token source of scheme `s`, named `name`: an alias of the runtime's
/// `RefreshingTokenSource` over the scheme's grant, the part that depends on the spec
/// (wire names, and the call of the token operation).
fn refreshing_source(s: &SecurityScheme, name: &str, api: &Api) -> TokenStream {
    let Some(refresh) = &s.refresh else {
        return TokenStream::new();
    };
    let ty = ident(name);
    let grant = ident(&grant_name(name));
    let method = ident(&refresh.method);
    let key = &s.key;
    let set_source = format!("set_{}_source", s.stem);
    let lifetime = match &refresh.expires_in {
        Some(field) => format!("the `{field}` of the answer"),
        None => "none: the spec names no lifetime field".to_owned(),
    };
    let doc = docs::outer(&format!(
        "A [`TokenSource`] for security scheme `{key}` that renews the access token through \
         [`Client::{}`] with the refresh grant the spec declares (`x-token-refresh`): before \
         the token's lifetime ({lifetime}) runs out, less a margin, and when it is told the \
         server refused the token ([`TokenSource::invalidate`]). One refresh at a time: tasks that need a \
         token while a refresh runs wait for its result instead of starting their own. Install \
         it with [`Client::{set_source}`]; every clone of the client shares it. `Debug` shows \
         no token. Its methods are those of [`RefreshingTokenSource`].",
        refresh.method
    ));
    let grant_doc = docs::outer(&format!(
        "The refresh grant of security scheme `{key}` (`x-token-refresh`): what [`{name}`] \
         sends through [`Client::{}`] and reads from its answer.",
        refresh.method
    ));
    let grant_names = refresh.grant.iter().map(|(n, _)| n.as_str());
    let grant_values = refresh.grant.iter().map(|(_, v)| v.as_str());
    let refresh_field = &refresh.refresh_token;
    let access_field = &refresh.access_token;
    let expires_in = match &refresh.expires_in {
        Some(field) => quote!(Some(#field)),
        None => quote!(None),
    };
    // The token operation may be called through a request builder (many optional
    // parameters): then the body is its argument and `send` sends it.
    let builder = api
        .operations
        .iter()
        .find(|op| op.name == refresh.method)
        .is_some_and(super::requests::uses_builder);
    let call = if builder {
        quote!(client.#method(body).send().await)
    } else {
        quote!(client.#method(&body).await)
    };
    quote! {
        #doc
        pub type #ty = RefreshingTokenSource<#grant>;

        #grant_doc
        #[derive(Clone, Copy, Debug, Default)]
        pub struct #grant;

        impl RefreshGrant for #grant {
            const NAME: &'static str = #name;
            const GRANT: &'static [(&'static str, &'static str)] = &[#((#grant_names, #grant_values)),*];
            const REFRESH_TOKEN: &'static str = #refresh_field;
            const ACCESS_TOKEN: &'static str = #access_field;
            const EXPIRES_IN: Option<&'static str> = #expires_in;

            fn call(client: &Client, body: serde_json::Value) -> TokenFuture<'_, Result<serde_json::Value, crate::TokenError>> {
                Box::pin(async move {
                    // The serde error is left out: its message may quote a token.
                    let body = serde_json::from_value(body).map_err(|_| {
                        crate::TokenError::new("the refresh grant does not fit the token operation's request body")
                    })?;
                    let answer = #call.map_err(crate::TokenError::new)?;
                    serde_json::to_value(answer.body())
                        .map_err(|_| crate::TokenError::new("the token operation's answer cannot be read"))
                })
            }
        }
    }
}
