//! Credentials of the generated client: one per security scheme the spec's operations
//! send, set at run time, never shown, and put only on the requests that declare them.
//!
//! They live in one private `Credentials` struct behind a lock in the `Client`, so that a
//! setter (`&self`) takes effect for every later call while other calls are in flight,
//! and so that `Debug` and `Clone` of the client have one place to redact and copy. The
//! rule for several alternatives is decided here once and documented on every method
//! that has them: the first alternative (in spec order) whose credentials are all set is
//! sent; the anonymous alternative (`{}`) only when no other is complete.

use proc_macro2::TokenStream;
use quote::quote;

use super::docs;
use super::types::ident;
use crate::ir::{Api, ApiKeyLocation, Operation, SchemeKind, SecurityScheme};

/// The paragraph of the `Client` doc about credentials.
pub fn client_doc(api: &Api) -> TokenStream {
    let text = if any(api) {
        "The credentials of the spec's security schemes (a `set_…` method each) can be set \
         or replaced at any time, also while calls are in flight; each is sent only to the \
         operations that declare its scheme, and `Debug` never shows one. A clone starts \
         with the credentials set when it was made."
    } else {
        "No operation of the spec asks for credentials the client could send."
    };
    docs::outer(text)
}

/// Whether the client holds credentials at all.
pub fn any(api: &Api) -> bool {
    !api.schemes.is_empty()
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
fn describe(s: &SecurityScheme) -> String {
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
    quote! {
        request = read_credentials(&self.credentials).authorize(request, #cookies &[#(#alternatives),*]);
    }
}

/// The `Client` field holding the credentials.
pub fn field(api: &Api) -> TokenStream {
    if !any(api) {
        return TokenStream::new();
    }
    quote!(credentials: std::sync::RwLock<Credentials>,)
}

/// Its initial value in `with_client`.
pub fn field_init(api: &Api) -> TokenStream {
    if !any(api) {
        return TokenStream::new();
    }
    quote!(credentials: std::sync::RwLock::new(Credentials::default()),)
}

/// Its copy in `Clone`: the credentials as they are when the client is cloned.
pub fn field_clone(api: &Api) -> TokenStream {
    if !any(api) {
        return TokenStream::new();
    }
    quote!(credentials: std::sync::RwLock::new(read_credentials(&self.credentials).clone()),)
}

/// Its line in `Debug`: which credentials are set, never their values.
pub fn field_debug(api: &Api) -> TokenStream {
    if !any(api) {
        return TokenStream::new();
    }
    quote!(.field("credentials", &*read_credentials(&self.credentials)))
}

/// The accessors of every scheme, and the bearer-token shorthand.
pub fn client_methods(api: &Api) -> TokenStream {
    let mut out = TokenStream::new();
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
        out.extend(quote! {
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
                    write_credentials(&self.credentials).#field = Some(value);
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
    quote! {
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

/// The private `Scheme` enum, the `Credentials` struct with its lock helpers, and the
/// public `InvalidCredential` error.
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
        SchemeKind::Bearer(_)
        | SchemeKind::ApiKey {
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
                if let Some(value) = &self.#f {
                    request = request.header(reqwest::header::AUTHORIZATION, value.clone());
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
    quote! {
        /// A security scheme of the spec that some operation sends.
        #[derive(Clone, Copy)]
        enum Scheme {
            #(#[doc = #variant_docs] #variants,)*
        }

        /// The credentials set on a [`Client`], one per security scheme. `Debug` shows only
        /// which are set.
        #[derive(Clone, Default)]
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

            /// Puts on `request` the credentials of the first alternative whose every
            /// credential is set; nothing when none is complete.
            fn authorize(&self, mut request: reqwest::RequestBuilder, #cookie_param alternatives: &[&[Scheme]]) -> reqwest::RequestBuilder {
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

        /// Reads the credentials (a panic elsewhere while they were written leaves them
        /// usable: each write is one assignment).
        fn read_credentials(lock: &std::sync::RwLock<Credentials>) -> std::sync::RwLockReadGuard<'_, Credentials> {
            lock.read().unwrap_or_else(std::sync::PoisonError::into_inner)
        }

        /// Locks the credentials for a change.
        fn write_credentials(lock: &std::sync::RwLock<Credentials>) -> std::sync::RwLockWriteGuard<'_, Credentials> {
            lock.write().unwrap_or_else(std::sync::PoisonError::into_inner)
        }

        /// A credential that cannot be sent. Neither `Display` nor `Debug` shows it.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct InvalidCredential {
            scheme: &'static str,
            reason: &'static str,
        }

        impl InvalidCredential {
            /// The security scheme, as the spec names it.
            pub fn scheme(&self) -> &'static str {
                self.scheme
            }
        }

        impl std::fmt::Display for InvalidCredential {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "the credential of security scheme `{}` cannot be sent: {}", self.scheme, self.reason)
            }
        }

        impl std::error::Error for InvalidCredential {}
    }
}
