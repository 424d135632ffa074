//! Security requirements to credentials: which schemes each operation sends, and how
//! each scheme's credential goes on the wire.
//!
//! A spec says what a server accepts (`security` lists alternatives, each a set of
//! schemes that are all required together); the client must turn that into what to send
//! with the credentials the caller has set. The decisions taken here, so that the
//! emitter only prints them:
//! - `bearer`, `oauth2` and `openIdConnect` are all a bearer token (the flows that obtain
//!   an OAuth or OpenID token happen outside an API client); `basic` is a user and a
//!   password; `apiKey` names its header, query parameter or cookie.
//! - A requirement that combines several bearer-token schemes (two OAuth2 flows listed
//!   together) is met by one token in the one `Authorization` header: the client sends
//!   whichever of them the caller set. One that combines a bearer token with `basic` (or
//!   with an API key named `Authorization`) cannot be sent: a request carries one
//!   `Authorization` header.
//! - `mutualTLS` has nothing to send: the client certificate is the TLS layer's, i.e. the
//!   `reqwest::Client` the caller hands to `Client::with_client`. It is generated with a
//!   warning that says so, never refused.
//! - Any other scheme (HTTP `digest`, an unknown type) cannot be sent: an alternative that
//!   needs one is left out with a warning; an operation left with no alternative is left
//!   out of the client with a warning naming the scheme. Refusing the whole document would
//!   deny the user every other operation for one scheme the client cannot speak.

use super::Lowerer;
use super::operation::Problem;
use crate::error::{Located, push_pointer};
use crate::ir::{ApiKeyLocation, BodyKind, Operation, SchemeKind, SecurityScheme, TokenRefresh};
use crate::names::{Scope, credential_accessors, pascal, snake};
use crate::warning::WarningKind;
use spec_model::model::{self as spec, Text};

/// What the client can do with a scheme.
enum Support {
    /// It sends a credential.
    Sent(SchemeKind),
    /// The transport satisfies it (`mutualTLS`): nothing is sent.
    Transport,
    /// It cannot: why.
    Unsupported(String),
}

/// The name of an HTTP scheme other than `bearer` and `basic`, whose whole
/// `Authorization` value the caller gives.
fn other_http_scheme(scheme: &spec::SecurityScheme) -> Option<&str> {
    let name = scheme.scheme.as_deref()?;
    (scheme.kind.as_deref() == Some("http")
        && !["bearer", "basic", "digest"].contains(&name.to_ascii_lowercase().as_str()))
    .then_some(name)
}

/// Whether a scheme's credential goes in the `Authorization` header.
fn sends_authorization(kind: &SchemeKind) -> bool {
    match kind {
        SchemeKind::Bearer(_) | SchemeKind::Basic => true,
        SchemeKind::ApiKey {
            location: ApiKeyLocation::Header,
            name,
        } => name.eq_ignore_ascii_case("authorization"),
        SchemeKind::ApiKey { .. } => false,
    }
}

impl Lowerer<'_> {
    /// How the client treats the scheme `key` (which exists).
    fn support(&self, key: &str, scheme: &spec::SecurityScheme) -> Support {
        // A scheme the document describes wrongly is one the client cannot send: the
        // alternatives that need it are left out (with a warning naming what is wrong),
        // not the whole document, whose other operations are still good.
        let invalid = |what: String| {
            Support::Unsupported(format!("security scheme `{key}` is invalid: {what}"))
        };
        let Some(kind) = scheme.kind.as_deref() else {
            return invalid("missing `type`".to_owned());
        };
        match kind {
            "http" => {
                let Some(name) = scheme.scheme.as_deref() else {
                    return invalid(
                        "missing `scheme` (an HTTP scheme is required for type `http`)".to_owned(),
                    );
                };
                match name.to_ascii_lowercase().as_str() {
                    "bearer" => Support::Sent(SchemeKind::Bearer("HTTP bearer".to_owned())),
                    "basic" => Support::Sent(SchemeKind::Basic),
                    // Digest answers a server's challenge (a nonce from a `401`): no value
                    // set beforehand can meet it.
                    "digest" => Support::Unsupported(format!(
                        "security scheme `{key}` uses HTTP scheme `digest`, which answers a \
                         challenge of the server; the client sends `bearer`, `basic` and \
                         whole `Authorization` values only"
                    )),
                    // Any other scheme (`hoba`, a vendor's signature scheme): the caller
                    // gives the whole header value, as an API key in `Authorization`
                    // (`requirements` warns that it must start with the scheme's name).
                    _ => Support::Sent(SchemeKind::ApiKey {
                        location: ApiKeyLocation::Header,
                        name: "Authorization".to_owned(),
                    }),
                }
            }
            "oauth2" => Support::Sent(SchemeKind::Bearer("OAuth 2".to_owned())),
            "openIdConnect" => Support::Sent(SchemeKind::Bearer("OpenID Connect".to_owned())),
            "apiKey" => {
                let location = match scheme.location.as_deref() {
                    Some("header") => ApiKeyLocation::Header,
                    Some("query") => ApiKeyLocation::Query,
                    Some("cookie") => ApiKeyLocation::Cookie,
                    Some(other) => {
                        return invalid(format!(
                            "an API key goes in `header`, `query` or `cookie`, not `{other}`"
                        ));
                    }
                    None => return invalid("missing `in`".to_owned()),
                };
                let name = match scheme.name.as_deref() {
                    Some(n) if !n.is_empty() => n.to_owned(),
                    _ => return invalid("missing `name`".to_owned()),
                };
                if location == ApiKeyLocation::Header && reqwest_header_name_invalid(&name) {
                    return invalid(format!("`{name}` is not a valid HTTP header name"));
                }
                Support::Sent(SchemeKind::ApiKey { location, name })
            }
            "mutualTLS" => Support::Transport,
            other => Support::Unsupported(format!(
                "security scheme `{key}` has type `{other}`, which the client cannot send"
            )),
        }
    }

    /// The operation's security requirements (its own, else the document's) as the
    /// alternatives the client may send, each a list of scheme keys. An alternative the client cannot send is left out with a warning; an
    /// operation with none left is skipped.
    pub(super) fn requirements(
        &mut self,
        op: &spec::Operation,
        ptr: &str,
    ) -> Result<Vec<Vec<String>>, Problem> {
        let (requirements, req_ptr) = match &op.security {
            Some(s) => (s, push_pointer(ptr, "security")),
            None => match &self.spec.security {
                Some(s) => (s, "/security".to_owned()),
                None => return Ok(Vec::new()),
            },
        };
        let mut alternatives = Vec::new();
        let mut left_out: Vec<(String, String)> = Vec::new();
        for (i, requirement) in requirements.iter().enumerate() {
            let entry_ptr = format!("{req_ptr}/{i}");
            let mut schemes = Vec::new();
            let mut sendable = true;
            // Schemes of this requirement that each need the one `Authorization` header,
            // and whether each is a bearer token.
            let mut authorization: Vec<(&str, bool)> = Vec::new();
            for key in requirement.keys() {
                let Some(scheme) = self.spec.components.security_schemes.get(key) else {
                    return Err(Problem::Refuse(Located::new(
                        push_pointer(&entry_ptr, key),
                        format!("unknown security scheme `{key}`"),
                    )));
                };
                match self.support(key, scheme) {
                    Support::Sent(kind) => {
                        if let Some(other) = other_http_scheme(scheme) {
                            self.warn(
                                WarningKind::UnsupportedSecurity,
                                push_pointer("/components/securitySchemes", key),
                                format!(
                                    "security scheme `{key}` uses HTTP scheme `{other}`, which \
                                     the client has no code for: its setter takes the whole \
                                     `Authorization` value (`{other} <credentials>`), which \
                                     the caller computes (a `Hook` can sign each request)"
                                ),
                            );
                        }
                        if sends_authorization(&kind) {
                            authorization.push((key, matches!(kind, SchemeKind::Bearer(_))));
                        }
                        schemes.push(key.clone());
                    }
                    Support::Transport => self.warn(
                        WarningKind::UnsupportedSecurity,
                        push_pointer("/components/securitySchemes", key),
                        format!(
                            "security scheme `{key}` is mutual TLS: the client sends nothing for it; \
                             the client certificate is the `reqwest::Client`'s to present (build one \
                             with an identity and pass it to `Client::with_client`)"
                        ),
                    ),
                    Support::Unsupported(why) => {
                        sendable = false;
                        left_out.push((push_pointer("/components/securitySchemes", key), why));
                    }
                }
            }
            if authorization.len() > 1 {
                // HTTP has one `Authorization` header with one credential (RFC 9110
                // §11.6.2), so no request can carry two. Bearer tokens only (two OAuth2
                // flows listed together, say): one token is taken for each. Mixed
                // (`basic` beside a bearer token): the author meant either, as no client
                // could send both. Either way whichever of them the caller set is sent.
                let names: Vec<String> = authorization
                    .iter()
                    .map(|(k, _)| format!("`{k}`"))
                    .collect();
                let all_bearer = authorization.iter().all(|(_, bearer)| *bearer);
                let (kind, message) = if all_bearer {
                    (
                        WarningKind::SharedBearerToken,
                        format!(
                            "a security requirement combines {}, which all send a bearer \
                             token in the `Authorization` header: one token meets them all, \
                             so the client sends whichever of them the caller set",
                            names.join(" and ")
                        ),
                    )
                } else {
                    (
                        WarningKind::SharedAuthorization,
                        format!(
                            "a security requirement combines {}, which all send the \
                             `Authorization` header, and a request carries one credential \
                             there: the client sends whichever of them the caller set",
                            names.join(" and ")
                        ),
                    )
                };
                // Once per set of schemes, at the first of them, not once per operation.
                self.warn(
                    kind,
                    push_pointer("/components/securitySchemes", authorization[0].0),
                    message,
                );
                if sendable {
                    for (kept, _) in &authorization {
                        alternatives.push(
                            (schemes.iter())
                                .filter(|k| {
                                    k.as_str() == *kept
                                        || !authorization.iter().any(|(a, _)| a == k)
                                })
                                .cloned()
                                .collect(),
                        );
                    }
                }
                continue;
            }
            if sendable {
                alternatives.push(schemes);
            }
        }
        if let Some((pointer, why)) = left_out.first().cloned() {
            if alternatives.is_empty() {
                return Err(Problem::Skip(Located::new(pointer, why)));
            }
            for (pointer, why) in left_out {
                self.warn(
                    WarningKind::UnsupportedSecurity,
                    pointer,
                    format!(
                        "{why}; the requirements that need it are left out, and operations \
                         that accept another are generated with those"
                    ),
                );
            }
        }
        Ok(alternatives)
    }

    /// The first scheme (in `components.securitySchemes` order) that sends a bearer
    /// token: the one an `Authorization` header parameter stands for.
    pub(super) fn bearer_scheme(&self) -> Option<String> {
        self.spec
            .components
            .security_schemes
            .iter()
            .find(|(key, s)| matches!(self.support(key, s), Support::Sent(SchemeKind::Bearer(_))))
            .map(|(key, _)| key.clone())
    }

    /// The schemes some operation sends, in `components.securitySchemes` order, with
    /// accessor names that no operation method (in `methods`) takes.
    pub(super) fn schemes(
        &mut self,
        used: &[String],
        methods: &mut Scope,
        operations: &[Operation],
        methods_by_id: &[(String, String)],
    ) -> Result<Vec<SecurityScheme>, Located> {
        let mut variants = Scope::default();
        let mut out = Vec::new();
        let spec = self.spec;
        for (key, scheme) in &spec.components.security_schemes {
            if !used.contains(key) {
                continue;
            }
            let Support::Sent(kind) = self.support(key, scheme) else {
                continue;
            };
            let base = snake(key);
            let stem = (1..)
                .map(|n| {
                    if n == 1 {
                        base.clone()
                    } else {
                        format!("{base}{n}")
                    }
                })
                .find(|stem| {
                    credential_accessors(stem)
                        .iter()
                        .all(|name| !methods.contains(name))
                })
                .unwrap_or(base);
            for name in credential_accessors(&stem) {
                methods.claim(name);
            }
            let refresh = match &scheme.token_refresh {
                None => None,
                Some(declared) => Some(refresh(key, &kind, declared, operations, methods_by_id)?),
            };
            let doc = match &scheme.description {
                Some(Text::String(s)) => s.trim().to_owned(),
                Some(Text::NotAString(_)) => {
                    self.warn(
                        WarningKind::Prose,
                        push_pointer(
                            &push_pointer("/components/securitySchemes", key),
                            "description",
                        ),
                        "not a string; left out of the documentation",
                    );
                    String::new()
                }
                None => String::new(),
            };
            out.push(SecurityScheme {
                key: key.clone(),
                stem,
                variant: variants.claim(pascal(key)),
                kind,
                doc,
                refresh,
            });
        }
        Ok(out)
    }
}

/// The scheme's `x-token-refresh` checked against the operations of the client: a bearer
/// scheme, an operation of the client with a JSON body, and string grant values.
fn refresh(
    key: &str,
    kind: &SchemeKind,
    declared: &spec_model::extensions::TokenRefresh,
    operations: &[Operation],
    methods_by_id: &[(String, String)],
) -> Result<TokenRefresh, Located> {
    let at = push_pointer(
        &push_pointer("/components/securitySchemes", key),
        "x-token-refresh",
    );
    if !matches!(kind, SchemeKind::Bearer(_)) {
        return Err(Located::new(
            at,
            "only a scheme that sends a bearer token (HTTP bearer, oauth2, openIdConnect) can be refreshed",
        ));
    }
    let id = &declared.operation_id;
    let Some((_, method)) = methods_by_id.iter().find(|(op_id, _)| op_id == id) else {
        return Err(Located::new(
            push_pointer(&at, "operationId"),
            format!("no operation of the client has operationId `{id}`"),
        ));
    };
    let json_body = operations
        .iter()
        .find(|op| &op.name == method)
        .and_then(|op| op.body.as_ref())
        .is_some_and(|body| body.kind == BodyKind::Json);
    if !json_body {
        return Err(Located::new(
            push_pointer(&at, "operationId"),
            format!("operation `{id}` has no JSON request body to carry the refresh grant"),
        ));
    }
    let mut grant = Vec::new();
    for (field, value) in &declared.grant {
        let Some(value) = value.as_str() else {
            return Err(Located::new(
                push_pointer(&push_pointer(&at, "grant"), field),
                "a grant field's value must be a string",
            ));
        };
        grant.push((field.clone(), value.to_owned()));
    }
    Ok(TokenRefresh {
        method: method.clone(),
        grant,
        refresh_token: declared.refresh_token.clone(),
        access_token: declared.access_token.clone(),
        expires_in: declared.expires_in.clone(),
    })
}

/// Whether `name` cannot be an HTTP header name (RFC 9110 `token`).
fn reqwest_header_name_invalid(name: &str) -> bool {
    !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}
