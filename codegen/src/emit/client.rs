//! `client.rs`: the async client, one method per operation, and each operation's
//! response and error enums.

use std::collections::HashMap;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::auth;
use super::checks;
use super::docs;
use super::multipart;
use super::requests;
use super::types::{argument, ident, is_copy, moved, owned};
use crate::ir::{
    Api, Body, BodyKind, ListEncoding, Method, Operation, Param, ParamLocation, PathPart, Payload,
    ResponseDef, StatusMatch, Ty, TypeDef,
};
use crate::lower::inner_named;

/// What the operation methods use of the private helpers, so that only those are emitted.
#[derive(Default)]
struct Uses {
    path: bool,
    joined_query: bool,
    /// `push_deep_list`: some list goes in `deepObject` style.
    deep_list: bool,
    /// `object_pairs`: some query parameter is an object.
    object_pairs: bool,
    /// `push_object_query`: some object goes as exploded `form` or `deepObject`.
    object_query: bool,
    label: bool,
    matrix: bool,
    /// `object_style`: some path or header parameter is an object.
    object_style: bool,
    /// Some operation has `x-penalty`: `execute` takes each operation's penalty shape.
    penalty: bool,
    /// Some path has a parameter: `dot_segment` checks what it became.
    dots: bool,
    /// `JsonText`: some query parameter is described by `content` (JSON text).
    json_text: bool,
}

/// The parts of the runtime's `encode.rs` the operations may call, in the order
/// [`Uses::runtime_parts`] names them.
pub(super) const RUNTIME_PARTS: [&str; 10] = [
    "path",
    "joined_query",
    "deep_list",
    "object_pairs",
    "object_query",
    "label",
    "matrix",
    "object_style",
    "dots",
    "json_text",
];

impl Uses {
    /// The parts of the runtime's `encode.rs` that the operations call (see
    /// `runtime::Needs`), in the order of [`RUNTIME_PARTS`].
    fn runtime_parts(&self) -> Vec<&'static str> {
        let used = [
            self.path,
            self.joined_query,
            self.deep_list,
            self.object_pairs,
            self.object_query,
            self.label,
            self.matrix,
            self.object_style,
            self.dots,
            self.json_text,
        ];
        RUNTIME_PARTS
            .into_iter()
            .zip(used)
            .filter_map(|(name, used)| used.then_some(name))
            .collect()
    }
}

/// The tokens of `client.rs`, and the parts of the runtime's `encode.rs` they call.
pub fn emit(api: &Api) -> (TokenStream, Vec<&'static str>) {
    let shared = Shared::of(api);
    let context = Context::new(&shared);
    let ops = operations(api, &context, 0..api.operations.len());
    let parts = ops.uses.runtime_parts();
    let head = head(api, &parts);
    let credential_methods = credential_methods(api);
    let tail = tail_items(api, &context);
    let (methods, items) = (ops.members, ops.items);
    // The `Client` itself, its send path and its token sources follow this text: the
    // runtime's `client.rs`, appended by `emit::emit` (see `emit::runtime`).
    let tokens = quote! {
        #head

        impl Client {
            #credential_methods

            #methods
        }

        #tail

        #items
    };
    (tokens, parts)
}

/// What every part of `client.rs` reads of the whole spec, made once for all the threads
/// that emit parts (names as text: tokens cannot cross threads). Each thread made its
/// own before, a fortieth of its work on nexus (the error shapes' keys are the debug
/// text of every operation's error answers).
pub(super) struct Shared<'a> {
    validating: Vec<&'a str>,
    boxed: Boxed<'a>,
    shapes: ErrorShapes,
    builders: requests::Builders,
    /// Some operation has `x-penalty`: `execute` takes each operation's penalty shape.
    penalty: bool,
}

impl<'a> Shared<'a> {
    pub(super) fn of(api: &'a Api) -> Self {
        Shared {
            validating: super::types::validating(api).collect(),
            boxed: Boxed::of(api),
            shapes: ErrorShapes::of(&api.operations),
            builders: request_builders(api),
            penalty: api.operations.iter().any(|op| op.penalty.is_some()),
        }
    }
}

/// What one thread's parts of `client.rs` read: the [`Shared`] context, and the tokens
/// that name the models module.
pub(super) struct Context<'a> {
    models: TokenStream,
    validating: &'a [&'a str],
    boxed: &'a Boxed<'a>,
    shapes: &'a ErrorShapes,
    builders: &'a requests::Builders,
    penalty: bool,
}

impl<'a> Context<'a> {
    pub(super) fn new(shared: &'a Shared<'a>) -> Self {
        Context {
            models: quote!(crate::models::),
            validating: &shared.validating,
            boxed: &shared.boxed,
            shapes: &shared.shapes,
            builders: &shared.builders,
            penalty: shared.penalty,
        }
    }
}

/// Some operations' part of `client.rs`: their methods (members of `impl Client`), the
/// items beside them (answer enums, request builders), and what of the runtime's
/// encoders they call.
pub(super) struct Operations {
    pub(super) members: TokenStream,
    pub(super) items: TokenStream,
    uses: Uses,
}

impl Operations {
    /// The parts of the runtime's `encode.rs` these operations call.
    pub(super) fn runtime_parts(&self) -> Vec<&'static str> {
        self.uses.runtime_parts()
    }
}

/// The part of `client.rs` of the operations in `range` (spec order), as [`emit`] lays it
/// out; parts of consecutive ranges put together are the whole.
pub(super) fn operations(
    api: &Api,
    context: &Context<'_>,
    range: std::ops::Range<usize>,
) -> Operations {
    let mut uses = Uses {
        penalty: context.penalty,
        ..Uses::default()
    };
    let (mut members, mut items) = (TokenStream::new(), TokenStream::new());
    for (i, op) in api
        .operations
        .iter()
        .enumerate()
        .take(range.end)
        .skip(range.start)
    {
        // Lowering named the operation around the client's own methods, printed here.
        debug_assert!(!crate::names::CLIENT_METHODS.contains(&op.name.as_str()));
        let (inside, beside) = methods(
            op,
            api,
            &context.models,
            context.validating,
            &mut uses,
            context.builders,
        );
        members.extend(inside);
        items.extend(beside);
        items.extend(op_enums(
            op,
            &context.models,
            context.boxed,
            context.shapes,
            i,
        ));
    }
    Operations {
        members,
        items,
        uses,
    }
}

/// The top of `client.rs`: its module doc, the import of the runtime's encoders when
/// `parts` (what the operations call of them) is not empty, and the server path.
pub(super) fn head(api: &Api, parts: &[&str]) -> TokenStream {
    // The encoders live in the runtime's `encode.rs` (copied when some operation calls
    // one); a glob import, since which of them this file calls depends on the spec.
    let encoders = (!parts.is_empty()).then(|| {
        quote!(
            use crate::encode::*;
        )
    });
    let server_const = server_const(api);
    quote! {
        //! The async client: one method per operation of the spec.

        #encoders

        #server_const
    }
}

/// The credential setters, the first members of `impl Client`.
pub(super) fn credential_methods(api: &Api) -> TokenStream {
    auth::client_methods(api)
}

/// The items after `impl Client` that do not belong to one operation: credential types
/// and multipart forms.
pub(super) fn tail_items(api: &Api, context: &Context<'_>) -> TokenStream {
    let credential_items = auth::items(api);
    let form_items = multipart::items(api, &context.models);
    quote! {
        #credential_items

        #form_items
    }
}

/// The request builders of the operations with many optional parameters, named around
/// every type `client.rs` already has.
fn request_builders(api: &Api) -> requests::Builders {
    let methods: Vec<(usize, Vec<String>)> = api
        .operations
        .iter()
        .enumerate()
        .map(|(i, op)| (i, method_names(op)))
        .collect();
    let types = api
        .operations
        .iter()
        .flat_map(|op| {
            [
                error_enum_name(op).to_string(),
                success_enum_name(op).to_string(),
            ]
        })
        .chain(
            api.operations
                .iter()
                .flat_map(|op| op.body.iter().chain(op.other_bodies.iter().map(|(_, b)| b)))
                .filter_map(|b| b.form.as_ref().map(|f| f.name.clone())),
        )
        .chain(
            [
                "Client",
                "ClientBuilder",
                "Call",
                "Traced",
                "Sourced",
                "Scheme",
                "FilePart",
                "InvalidCredential",
                "TokenFuture",
                "TokenSource",
            ]
            .map(str::to_owned),
        )
        .chain(
            auth::refreshing(api)
                .into_iter()
                .flat_map(|(_, name)| [auth::grant_name(&name), name]),
        )
        .chain(["RefreshGrant", "RefreshingTokenSource"].map(str::to_owned))
        .collect();
    requests::Builders::of(api, &methods, types)
}

/// The `SERVER_PATH` constant of a spec with a relative server URL (`/api`), which the
/// runtime's `Client::with_client` joins to the base URL: appended unless the base URL
/// already ends with it, so that both `http://host` and `http://host/api` (how a user
/// who read the spec's URL would write it) reach `http://host/api/…`; a proxy's prefix
/// (`http://gateway/prefect`) is kept before it.
fn server_const(api: &Api) -> TokenStream {
    let Some(path) = &api.server_path else {
        return TokenStream::new();
    };
    let constant_doc = docs::outer(&format!(
        "The path the spec's relative `servers` URL gives (`{path}`), joined to the base \
         URL a client is made with (see [`Client::with_client`])."
    ));
    quote! {
        impl Client {
            #constant_doc
            pub const SERVER_PATH: &'static str = #path;
        }
    }
}

/// The wire names of the fields the spec marks secret (`x-secret`, `format: password`),
/// sorted, each once.
pub(super) fn secret_fields(api: &Api) -> Vec<&str> {
    let names: std::collections::BTreeSet<&str> = api
        .types
        .iter()
        .filter_map(|t| match t {
            TypeDef::Struct(s) => Some(s),
            _ => None,
        })
        .flat_map(|s| {
            s.fields
                .iter()
                .filter(|f| f.secret)
                .map(|f| f.wire.as_str())
        })
        .collect();
    names.into_iter().collect()
}

/// The models a success enum holds behind a `Box`: structs and unions (through aliases).
///
/// A success enum has several variants, often a model beside a body-less `204`, and clippy
/// (`large_enum_variant`) rejects an enum whose largest variant outweighs the next by 200
/// bytes. Sizes are unknown at generation time (they depend on the field types' layouts),
/// so every struct or union payload is boxed, as clippy suggests: one allocation per call,
/// nothing beside the HTTP exchange, and every success enum stays a few words whatever the
/// spec's models weigh. Lists, maps, strings and string enums are already small and stay
/// inline (`Box<Vec<_>>` is clippy's `box_collection`).
struct Boxed<'a>(std::collections::HashSet<&'a str>);

impl<'a> Boxed<'a> {
    fn of(api: &'a Api) -> Self {
        let find = |name: &str| api.types.iter().find(|t| t.name() == name);
        let mut set = std::collections::HashSet::new();
        for t in &api.types {
            let mut current = t;
            // Aliases are followed a bounded number of steps (a cycle is not a model).
            for _ in 0..api.types.len() {
                match current {
                    TypeDef::Struct(_) | TypeDef::Union(_) => {
                        set.insert(t.name());
                        break;
                    }
                    TypeDef::Alias(a) => match &a.ty {
                        Ty::Named(n) => match find(n) {
                            Some(next) => current = next,
                            None => break,
                        },
                        _ => break,
                    },
                    TypeDef::Enum(_) => break,
                }
            }
        }
        Boxed(set)
    }

    /// Whether this response's body is held boxed in a success enum.
    fn holds(&self, r: &ResponseDef) -> bool {
        matches!(&r.payload, Payload::Json(Ty::Named(n)) if self.0.contains(n.as_str()))
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

/// Whether a variant carries the status: classes and `default` cover several, and an
/// exact status that `http` has no constant for is carried rather than built from a
/// number (which could fail, as far as the compiler knows).
fn carries_status(r: &ResponseDef) -> bool {
    match r.status {
        StatusMatch::Code(c) => status_const(c).is_none(),
        _ => true,
    }
}

/// Whether an operation's only success is `(StatusCode, T)`: when it covers several
/// statuses. An exact one, even one `http` has no constant for, needs no status of its
/// own (`Response` has it), and is read by `Answer::only` or the business check.
fn lone_success_carries_status(r: &ResponseDef) -> bool {
    !matches!(r.status, StatusMatch::Code(_))
}

/// The name of the `http::StatusCode` constant of `code`, for the statuses every `http`
/// 1.x names (`EARLY_HINTS` and `TOO_EARLY` came later and are left out, so the generated
/// crate builds with any `http` that `reqwest` accepts).
fn status_const(code: u16) -> Option<&'static str> {
    Some(match code {
        100 => "CONTINUE",
        101 => "SWITCHING_PROTOCOLS",
        102 => "PROCESSING",
        200 => "OK",
        201 => "CREATED",
        202 => "ACCEPTED",
        203 => "NON_AUTHORITATIVE_INFORMATION",
        204 => "NO_CONTENT",
        205 => "RESET_CONTENT",
        206 => "PARTIAL_CONTENT",
        207 => "MULTI_STATUS",
        208 => "ALREADY_REPORTED",
        226 => "IM_USED",
        300 => "MULTIPLE_CHOICES",
        301 => "MOVED_PERMANENTLY",
        302 => "FOUND",
        303 => "SEE_OTHER",
        304 => "NOT_MODIFIED",
        305 => "USE_PROXY",
        307 => "TEMPORARY_REDIRECT",
        308 => "PERMANENT_REDIRECT",
        400 => "BAD_REQUEST",
        401 => "UNAUTHORIZED",
        402 => "PAYMENT_REQUIRED",
        403 => "FORBIDDEN",
        404 => "NOT_FOUND",
        405 => "METHOD_NOT_ALLOWED",
        406 => "NOT_ACCEPTABLE",
        407 => "PROXY_AUTHENTICATION_REQUIRED",
        408 => "REQUEST_TIMEOUT",
        409 => "CONFLICT",
        410 => "GONE",
        411 => "LENGTH_REQUIRED",
        412 => "PRECONDITION_FAILED",
        413 => "PAYLOAD_TOO_LARGE",
        414 => "URI_TOO_LONG",
        415 => "UNSUPPORTED_MEDIA_TYPE",
        416 => "RANGE_NOT_SATISFIABLE",
        417 => "EXPECTATION_FAILED",
        418 => "IM_A_TEAPOT",
        421 => "MISDIRECTED_REQUEST",
        422 => "UNPROCESSABLE_ENTITY",
        423 => "LOCKED",
        424 => "FAILED_DEPENDENCY",
        426 => "UPGRADE_REQUIRED",
        428 => "PRECONDITION_REQUIRED",
        429 => "TOO_MANY_REQUESTS",
        431 => "REQUEST_HEADER_FIELDS_TOO_LARGE",
        451 => "UNAVAILABLE_FOR_LEGAL_REASONS",
        500 => "INTERNAL_SERVER_ERROR",
        501 => "NOT_IMPLEMENTED",
        502 => "BAD_GATEWAY",
        503 => "SERVICE_UNAVAILABLE",
        504 => "GATEWAY_TIMEOUT",
        505 => "HTTP_VERSION_NOT_SUPPORTED",
        506 => "VARIANT_ALSO_NEGOTIATES",
        507 => "INSUFFICIENT_STORAGE",
        508 => "LOOP_DETECTED",
        510 => "NOT_EXTENDED",
        511 => "NETWORK_AUTHENTICATION_REQUIRED",
        _ => return None,
    })
}

/// A response or error enum of an operation.
fn response_enum(
    name: &proc_macro2::Ident,
    doc: &str,
    responses: &[&ResponseDef],
    models: &TokenStream,
    boxed: Option<&Boxed>,
    private: TokenStream,
    open: bool,
) -> TokenStream {
    let doc = docs::outer(doc);
    // An error enum gains a variant whenever the spec documents one more error status:
    // `#[non_exhaustive]` keeps the callers' matches compiling then (they need a `_` arm).
    let non_exhaustive = open.then(|| quote!(#[non_exhaustive]));
    let variants = responses.iter().map(|r| {
        let v = ident(&r.variant);
        let vdoc = docs::outer(&r.doc);
        let payload = payload_type(&r.payload, models);
        let payload = match boxed {
            Some(b) if b.holds(r) => payload.map(|t| quote!(Box<#t>)),
            _ => payload,
        };
        match (carries_status(r), payload) {
            (false, None) => quote!(#vdoc #v,),
            (false, Some(t)) => quote!(#vdoc #v(#t),),
            (true, None) => quote!(#vdoc #v {
                /// The HTTP status.
                status: reqwest::StatusCode
            },),
            (true, Some(t)) if r.payload == Payload::Bytes => quote!(#vdoc #v {
                /// The HTTP status.
                status: reqwest::StatusCode,
                /// The body as received.
                body: #t
            },),
            (true, Some(t)) => quote!(#vdoc #v {
                /// The HTTP status.
                status: reqwest::StatusCode,
                /// The decoded body.
                body: #t
            },),
        }
    });
    let unreadable = if open {
        unreadable_variant(responses)
    } else {
        None
    };
    let unreadable_decl = unreadable.as_ref().map(|v| {
        quote! {
            /// A documented error status whose body is not in the documented shape (a
            /// server that answers otherwise than its spec says): still this error,
            /// with its status. The body is `Error::body()`, and `Display` shows its
            /// start.
            #v {
                /// The HTTP status.
                status: reqwest::StatusCode,
                /// Where decoding failed: field names and list indexes from the root
                /// (`detail[0].msg`), `.` for the root.
                path: String,
                /// Why: the kind of mismatch and its line and column, or a text body
                /// that is not UTF-8 and where; never body text, which may echo a
                /// credential.
                reason: String,
            },
        }
    });
    let unreadable_arm = unreadable
        .as_ref()
        .map(|v| quote!(Self::#v { status, .. } => *status,));
    let unreadable_fn = unreadable.as_ref().map(|v| {
        quote! {
            /// The `Unreadable` variant, for `Answer::documented`.
            fn unreadable(status: reqwest::StatusCode, path: String, reason: String) -> Self {
                Self::#v { status, path, reason }
            }
        }
    });
    let arms = responses.iter().map(|r| {
        let v = ident(&r.variant);
        let has_payload = r.payload != Payload::None;
        let constant = match r.status {
            StatusMatch::Code(c) => status_const(c).map(|name| format_ident!("{}", name)),
            _ => None,
        };
        match (constant, has_payload) {
            (Some(c), false) => quote!(Self::#v => reqwest::StatusCode::#c,),
            (Some(c), true) => quote!(Self::#v(_) => reqwest::StatusCode::#c,),
            (None, _) => quote!(Self::#v { status, .. } => *status,),
        }
    });
    let status_fn = if responses.is_empty() {
        quote!(match *self {})
    } else {
        quote!(match self { #(#arms)* #unreadable_arm })
    };
    // Bodies are held inline as the spec nests them (the same choice as the unions of
    // `models.rs`): boxing would cost every match for the sake of size. Whether clippy's
    // `large_enum_variant` fires depends on layouts unknown here (one real spec's error
    // body weighs 584 bytes beside a body-less `404`), so every enum with a body says so.
    let allow = responses
        .iter()
        .any(|r| r.payload != Payload::None || (r.variant == "Rejected" && r.media.is_empty()))
        .then(|| quote!(#[allow(clippy::large_enum_variant)]));
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq)]
        #allow
        #non_exhaustive
        pub enum #name {
            #(#variants)*
            #unreadable_decl
        }

        impl #name {
            /// The HTTP status of the answer.
            pub fn status(&self) -> reqwest::StatusCode {
                #status_fn
            }

            #unreadable_fn

            #private
        }
    }
}

/// Whether decoding `r`'s body can fail: JSON into a type, or text that must be UTF-8
/// (bytes and an undocumented body are taken as they come).
fn can_fail(r: &ResponseDef) -> bool {
    matches!(r.payload, Payload::Json(_) | Payload::Text)
}

/// The name of the `Unreadable` variant of an error enum whose documented error
/// bodies may fail to decode (`None` when none can), clear of the status variants.
fn unreadable_variant(responses: &[&ResponseDef]) -> Option<proc_macro2::Ident> {
    if !responses
        .iter()
        .any(|r| !r.status.is_success() && can_fail(r))
    {
        return None;
    }
    let mut name = "Unreadable".to_owned();
    while responses.iter().any(|r| r.variant == name) {
        name.push_str("Body");
    }
    Some(format_ident!("{}", name))
}

/// The documented error answers of an operation: its error statuses, then the
/// business rejection (`x-business-error`) if it checks one.
fn error_responses(op: &Operation) -> Vec<ResponseDef> {
    let mut errors: Vec<ResponseDef> = failures(op).into_iter().cloned().collect();
    errors.extend(rejected_variant(op));
    errors
}

/// The error enum of every operation, one enum per distinct shape.
///
/// Most operations of a large spec document the same errors (every operation of nexus
/// answers `4XX` and `5XX` with the same `Error` body; every one of the platform
/// document's answers no documented error at all). An enum per operation repeated the
/// same enum, its derives and its impls hundreds of times, which was about a fifth of the
/// `cargo check` of nexus's crate. Operations whose errors have the same shape (the same
/// variants, statuses, bodies and docs) share one enum; each keeps its own name as a
/// type alias, so a caller names and matches `VpcViewError` as before.
struct ErrorShapes {
    /// Per operation (spec order): the enum's name and whether the operation is the
    /// first of its shape (which emits the enum).
    by_op: Vec<(String, bool)>,
    /// Per operation: how many operations share its shape.
    users: Vec<usize>,
}

impl ErrorShapes {
    fn of(operations: &[Operation]) -> Self {
        let keys: Vec<String> = operations
            .iter()
            .map(|op| {
                let parts: Vec<_> = error_responses(op)
                    .iter()
                    .map(|r| {
                        (
                            r.variant.clone(),
                            r.doc.clone(),
                            format!("{:?}", r.status),
                            format!("{:?}", r.payload),
                            r.media.is_empty(),
                        )
                    })
                    .collect();
                format!("{parts:?}")
            })
            .collect();
        let mut count: HashMap<&str, usize> = HashMap::new();
        for k in &keys {
            *count.entry(k).or_default() += 1;
        }
        // A shared name must not be an operation's own type name nor a fixed item of
        // the module.
        let mut taken: std::collections::HashSet<String> = operations
            .iter()
            .flat_map(|op| {
                [
                    error_enum_name(op).to_string(),
                    success_enum_name(op).to_string(),
                ]
            })
            .chain(["Client", "ClientBuilder", "Call", "Traced", "Sourced"].map(str::to_owned))
            .collect();
        let mut named: HashMap<&str, String> = HashMap::new();
        let mut by_op = Vec::new();
        let mut users = Vec::new();
        for (op, key) in operations.iter().zip(&keys) {
            let n = count[key.as_str()];
            users.push(n);
            if n == 1 {
                by_op.push((error_enum_name(op).to_string(), true));
                continue;
            }
            if let Some(name) = named.get(key.as_str()) {
                by_op.push((name.clone(), false));
                continue;
            }
            let errors = error_responses(op);
            let base = if errors.is_empty() {
                "NoDocumentedError".to_owned()
            } else {
                let variants: String = errors.iter().map(|r| r.variant.as_str()).collect();
                format!("{variants}Error")
            };
            let mut name = base.clone();
            let mut suffix = 2;
            while taken.contains(&name) {
                name = format!("{base}{suffix}");
                suffix += 1;
            }
            taken.insert(name.clone());
            named.insert(key, name.clone());
            by_op.push((name, true));
        }
        ErrorShapes { by_op, users }
    }
}

fn op_enums(
    op: &Operation,
    models: &TokenStream,
    boxed: &Boxed,
    shapes: &ErrorShapes,
    index: usize,
) -> TokenStream {
    let method = &op.name;
    let mut out = TokenStream::new();
    let ok = successes(op);
    if ok.len() > 1 {
        let doc = format!("Documented success answers of [`Client::{method}`].");
        out.extend(response_enum(
            &success_enum_name(op),
            &doc,
            &ok,
            models,
            Some(boxed),
            TokenStream::new(),
            false,
        ));
    }
    let (name, first) = &shapes.by_op[index];
    let name = &format_ident!("{}", name);
    let shared = shapes.users[index] > 1;
    if *first {
        let doc = if shared {
            format!(
                "Documented error answers shared by the {} operations that document the same \
                 errors (the first is [`Client::{method}`]); each names it by an alias of its own.",
                shapes.users[index]
            )
        } else {
            format!("Documented error answers of [`Client::{method}`].")
        };
        let errors = error_responses(op);
        let errors: Vec<&ResponseDef> = errors.iter().collect();
        out.extend(response_enum(
            name,
            &doc,
            &errors,
            models,
            None,
            failure_fn(op),
            true,
        ));
        out.extend(quote! {
            impl crate::DocumentedError for #name {
                fn status(&self) -> reqwest::StatusCode {
                    #name::status(self)
                }
            }
        });
    }
    if shared {
        let alias = error_enum_name(op);
        let doc = docs::outer(&format!(
            "Documented error answers of [`Client::{method}`] (an enum several operations share)."
        ));
        out.extend(quote! {
            #doc
            pub type #alias = #name;
        });
    }
    out.extend(answer_fn(op, models, boxed));
    for twin in twins(op) {
        out.extend(answer_fn(&twin, models, boxed));
    }
    out
}

/// The success type of an operation.
fn success_type(op: &Operation, models: &TokenStream) -> TokenStream {
    let ok = successes(op);
    match ok.as_slice() {
        [] => quote!(()),
        [one] if !lone_success_carries_status(one) => {
            payload_type(&one.payload, models).unwrap_or(quote!(()))
        }
        [one] => {
            let t = payload_type(&one.payload, models).unwrap_or(quote!(()));
            quote!((reqwest::StatusCode, #t))
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

/// The runtime decoder of a payload (`crate::error::json` and its siblings).
fn decoder(p: &Payload) -> TokenStream {
    match p {
        Payload::None => quote!(crate::error::empty),
        Payload::Json(_) => quote!(crate::error::json),
        Payload::Text => quote!(crate::error::text),
        Payload::Bytes => quote!(crate::error::bytes),
    }
}

/// The closure (or variant constructor) putting a decoded body into `enum_name::variant`,
/// boxing it first when `boxed`.
fn wrap(r: &ResponseDef, enum_name: &TokenStream, boxed: bool) -> TokenStream {
    let v = ident(&r.variant);
    if boxed {
        return if carries_status(r) {
            quote!(|body| #enum_name::#v { status, body: Box::new(body) })
        } else {
            quote!(|body| #enum_name::#v(Box::new(body)))
        };
    }
    match (carries_status(r), r.payload == Payload::None) {
        (false, true) => quote!(|()| #enum_name::#v),
        (false, false) => quote!(#enum_name::#v),
        (true, true) => quote!(|()| #enum_name::#v { status }),
        (true, false) => quote!(|body| #enum_name::#v { status, body }),
    }
}

/// `{ let status = …; expr }` when a variant carries the status, else `expr`.
fn with_status(r: &ResponseDef, expr: TokenStream) -> TokenStream {
    if carries_status(r) {
        quote!({
            let status = answer.status;
            #expr
        })
    } else {
        expr
    }
}

/// Responses in match order: exact statuses before classes before `default`.
fn match_order<'a>(responses: impl Iterator<Item = &'a ResponseDef>) -> Vec<&'a ResponseDef> {
    let mut ordered: Vec<&ResponseDef> = responses.collect();
    ordered.sort_by_key(|r| match r.status {
        StatusMatch::Code(_) => 0,
        StatusMatch::Class(_) => 1,
        StatusMatch::Default => 2,
    });
    ordered
}

/// Whether the operation checks its success body for a business rejection: the lowering
/// resolved `x-business-error` only for one success with an exact status.
fn checks_business(op: &Operation) -> bool {
    !op.business.is_empty()
}

/// The `Rejected` variant of the error enum: a success status whose body reports a
/// rejection (`x-business-error`).
fn rejected_variant(op: &Operation) -> Option<ResponseDef> {
    let ok = successes(op);
    let first = ok.first().filter(|_| checks_business(op))?;
    let fields: Vec<String> = op
        .business
        .iter()
        .map(|f| format!("`{}`", f.wire))
        .collect();
    Some(ResponseDef {
        status: StatusMatch::Class(2),
        variant: "Rejected".to_owned(),
        doc: format!(
            "A success status whose body reports that the request was rejected: {} is \
             non-empty (`x-business-error`). Comes as `Error::Business`.",
            fields.join(" or ")
        ),
        payload: first.payload.clone(),
        media: Vec::new(),
        schema: None,
        declared: false,
        headers: Vec::new(),
        headers_type: String::new(),
    })
}

/// The one documented answer of an operation that documents nothing else, when it is a
/// success with an exact status and no business check: such an operation (the
/// common case) needs no code of its own to read its answer, only `Answer::only`.
/// (A penalty is screened before any operation's own code.)
pub(super) fn simple_success(op: &Operation) -> Option<&ResponseDef> {
    match op.responses.as_slice() {
        [one]
            if matches!(one.status, StatusMatch::Code(c) if (200..300).contains(&c))
                && op.business.is_empty() =>
        {
            Some(one)
        }
        _ => None,
    }
}

/// The name of the private function that turns an answer of the operation into its
/// result (every method of the operation, one per body encoding, shares it).
fn answer_fn_name(op: &Operation) -> proc_macro2::Ident {
    format_ident!("{}_answer", op.name.trim_start_matches("r#"))
}

/// The private function that turns an answer of the operation into its result: a free
/// function, since the error enum may be shared by operations with other successes.
fn answer_fn(op: &Operation, models: &TokenStream, boxed: &Boxed) -> TokenStream {
    if simple_success(op).is_some() {
        return TokenStream::new();
    }
    let err = error_enum_name(op);
    let fn_name = answer_fn_name(op);
    let ok = successes(op);
    let ok_type = success_type(op, models);
    let ok_name = success_enum_name(op);
    let ok_path = quote!(#ok_name);
    let mut ok_arms = Vec::new();
    for r in match_order(ok.iter().copied()) {
        // A lone success stands for every `2xx`: a server that answers `201` where the
        // spec says `200` has still done what was asked, and an error would invite a
        // retry that does it twice. The lowering gives an operation with no success, or
        // several, a `2XX` catch-all of its own.
        let pat = if ok.len() == 1 {
            status_pattern(&StatusMatch::Class(2))
        } else if r.status == StatusMatch::Class(2) {
            // After exact `2xx` arms a `200..=299` range overlaps them (clippy's
            // `match_overlapping_arm`); a guard says the same.
            quote!(_ if answer.status.is_success())
        } else {
            status_pattern(&r.status)
        };
        let dec = decoder(&r.payload);
        let expr = if ok.len() > 1 {
            let wrap = wrap(r, &ok_path, boxed.holds(r));
            quote!(answer.success_with(#dec, #wrap))
        } else if lone_success_carries_status(r) {
            let none = r.payload == Payload::None;
            let wrap = if none {
                quote!(|()| (status, ()))
            } else {
                quote!(|body| (status, body))
            };
            quote!(answer.success_with(#dec, #wrap))
        } else if checks_business(op) {
            let fields = op.business.iter().map(|f| {
                let name = ident(&f.name);
                let wire = &f.wire;
                if f.explicit_null {
                    quote!((#wire, body.#name.as_ref().and_then(Option::as_deref)))
                } else if f.optional {
                    quote!((#wire, body.#name.as_deref()))
                } else {
                    quote!((#wire, Some(body.#name.as_str())))
                }
            });
            let t = payload_type(&r.payload, models);
            quote!(answer.success_unless(
                #dec,
                |body: &#t| crate::business::first_reported(&[#(#fields),*]),
                |status, body| #err::Rejected { status, body },
            ))
        } else {
            quote!(answer.success(#dec))
        };
        // A variant of a success enum, or a lone success over several statuses, is built
        // with the status it came with.
        let carried = if ok.len() > 1 {
            carries_status(r)
        } else {
            lone_success_carries_status(r)
        };
        let expr = if carried { with_status(r, expr) } else { expr };
        ok_arms.push(quote!(#pat => #expr,));
    }
    let otherwise = if failures(op).is_empty() {
        quote!(answer.unexpected())
    } else {
        quote!(#err::failure(answer))
    };
    let answer_body = if ok_arms.is_empty() {
        quote!(Err(#otherwise))
    } else {
        quote!(match answer.status.as_u16() {
            #(#ok_arms)*
            _ => Err(#otherwise),
        })
    };
    let doc = docs::outer(&format!(
        "Turns an answer of [`Client::{}`] into its result.",
        op.name
    ));
    // `result_large_err`: the public methods return the same `Error` (the lint does not
    // look at `async fn`s); it carries the answer's headers and decoded body by design.
    quote! {
        #doc
        #[allow(clippy::result_large_err)]
        fn #fn_name(answer: crate::error::Answer) -> Result<crate::Response<#ok_type>, crate::Error<#err>> {
            #answer_body
        }
    }
}

/// The private function of an error enum that turns an answer that is not a documented
/// success into the error (the streaming twin calls it once it knows the answer is not a
/// success). It depends on the error statuses only, so a shared enum has one.
fn failure_fn(op: &Operation) -> TokenStream {
    let failures = match_order(failures(op).into_iter());
    let this = quote!(Self);
    let fail_arm = |r: &ResponseDef| {
        let dec = decoder(&r.payload);
        let wrap = wrap(r, &this, false);
        let unreadable = if can_fail(r) {
            quote!(Some(Self::unreadable))
        } else {
            quote!(None)
        };
        with_status(r, quote!(answer.documented(#dec, #wrap, #unreadable)))
    };
    let has_default = failures.iter().any(|r| r.status == StatusMatch::Default);
    let failure_body = match failures.as_slice() {
        [] => return TokenStream::new(),
        // A lone catch-all arm is clippy's `match_single_binding`.
        [only] if only.status == StatusMatch::Default => fail_arm(only),
        _ => {
            let arms = failures.iter().map(|r| {
                let pat = status_pattern(&r.status);
                let expr = fail_arm(r);
                quote!(#pat => #expr,)
            });
            let rest = (!has_default).then(|| quote!(_ => answer.unexpected(),));
            quote!(match answer.status.as_u16() {
                #(#arms)*
                #rest
            })
        }
    };
    quote! {
        /// Turns an answer that is not a documented success into the operation's error.
        #[allow(clippy::result_large_err)]
        fn failure(answer: crate::error::Answer) -> crate::Error<Self> {
            #failure_body
        }
    }
}

/// The `Accept` header of an operation: every media type its answers may have but its
/// negotiation twins' ones, in spec order, or empty when none is documented.
fn accept(op: &Operation) -> String {
    let mut seen: Vec<&str> = Vec::new();
    // What a negotiation twin asks for, the main method does not: a server choosing
    // `text/plain` from the list would answer text where JSON is decoded.
    let twins: Vec<&String> = op.negotiated.iter().flat_map(|n| &n.media).collect();
    for r in &op.responses {
        for m in &r.media {
            if !seen.iter().any(|s| s.eq_ignore_ascii_case(m))
                && !twins.iter().any(|t| t.eq_ignore_ascii_case(m))
            {
                seen.push(m);
            }
        }
    }
    seen.join(", ")
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
        // `JsonText` serializes while reqwest encodes the query: an error is the
        // builder's, as for a JSON body, and comes out as `Error::Transport`.
        (ParamLocation::Query, _, ListEncoding::JsonText) => quote! {
            request = request.query(&[(#wire, JsonText(#value))]);
        },
        (ParamLocation::Query, Ty::Vec(_), ListEncoding::Repeat) => quote! {
            request = request.query(&#value.iter().map(|item| (#wire, item)).collect::<Vec<_>>());
        },
        // Appended to the URL before the request is built: see `add_joined_query`.
        (ParamLocation::Query, Ty::Vec(_), ListEncoding::Join(_) | ListEncoding::DeepList) => {
            return TokenStream::new();
        }
        (ParamLocation::Query, _, ListEncoding::ObjectForm { .. } | ListEncoding::DeepObject) => {
            return TokenStream::new();
        }
        (ParamLocation::Query, _, _) => quote! {
            request = request.query(&[(#wire, #value)]);
        },
        // An object with no set property expands to nothing: no header rather than an
        // empty one.
        (ParamLocation::Header, _, ListEncoding::ObjectStyled { explode, .. }) => quote! {
            let expanded = object_style("", #wire, value, #explode, false);
            if !expanded.is_empty() {
                request = request.header(#wire, expanded);
            }
        },
        // A header's value may not hold a line break, which JSON text never does; a
        // non-ASCII character makes the request fail to build (`Error::Transport`).
        (ParamLocation::Header, _, ListEncoding::JsonText) => quote! {
            request = request.header(#wire, serde_json::to_string(#value).unwrap_or_default());
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

/// Whether a parameter is written into the URL's query by hand: a list sent as one joined
/// value (`names=A,B`) or an object.
fn is_joined_query(p: &Param) -> bool {
    matches!(
        (&p.location, &p.ty, &p.list),
        (
            ParamLocation::Query,
            Ty::Vec(_),
            ListEncoding::Join(_) | ListEncoding::DeepList
        )
    ) || (p.location == ParamLocation::Query && p.list.is_object())
}

/// Statements appending a joined query list to `url`. The separator has to stay literal
/// while each item is percent-encoded (an item holding a comma stays one item), which
/// `RequestBuilder::query` cannot do: it would encode the separator too.
///
/// An object goes through its JSON form (see the emitted `object_pairs`), so structs and
/// maps share one path; brackets of `deepObject` stay literal as OpenAPI writes them.
fn add_joined_query(p: &Param) -> TokenStream {
    let name = ident(&p.name);
    let wire = &p.wire;
    let put = match &p.list {
        ListEncoding::Join(sep) => {
            // A space cannot stand in a URL; `spaceDelimited` sends it encoded.
            let sep = if sep == " " { "%20" } else { sep.as_str() };
            quote! {
                push_joined_query(&mut url, #wire, value.iter().map(ToString::to_string), #sep);
            }
        }
        ListEncoding::ObjectForm { explode: true } => quote! {
            push_object_query(&mut url, None, value);
        },
        ListEncoding::ObjectForm { explode: false } => quote! {
            push_joined_query(&mut url, #wire, object_pairs(value).into_iter().flat_map(|(key, item)| [key, item]), ",");
        },
        ListEncoding::DeepObject => quote! {
            push_object_query(&mut url, Some(#wire), value);
        },
        ListEncoding::DeepList => quote! {
            push_deep_list(&mut url, #wire, value.iter().map(ToString::to_string));
        },
        _ => return TokenStream::new(),
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
        quote!(if self.check_arguments { let v = #name; #body })
    } else {
        quote!(if self.check_arguments && let Some(v) = #name { #body })
    }
}

/// The refusal of a path whose parameters made a whole segment `.` or `..` (which URL
/// parsing would resolve away), naming the parameters of that segment; nothing for a
/// path without parameters. Encoded values never hold `/`, so the segments of the built
/// path are the template's.
fn dot_segment_check(op: &Operation, uses: &mut Uses) -> TokenStream {
    let mut segments: Vec<Vec<&str>> = vec![Vec::new()];
    for part in &op.path {
        match part {
            PathPart::Literal(text) => {
                let mut pieces = text.split('/');
                pieces.next();
                segments.extend(pieces.map(|_| Vec::new()));
            }
            PathPart::Param(name) => {
                let wire = op
                    .params
                    .iter()
                    .find(|p| &p.name == name)
                    .map_or(name.as_str(), |p| p.wire.as_str());
                let last = segments.last_mut().expect("starts with one segment");
                if !last.contains(&wire) {
                    last.push(wire);
                }
            }
        }
    }
    let arms: Vec<TokenStream> = segments
        .iter()
        .enumerate()
        .filter(|(_, names)| !names.is_empty())
        .map(|(i, names)| {
            let i = Literal::usize_unsuffixed(i);
            quote!((#i, &[#(#names),*]))
        })
        .collect();
    if arms.is_empty() {
        return TokenStream::new();
    }
    uses.dots = true;
    quote! {
        if let Err(violation) = refuse_dot_segments(&url[self.base_url.len()..], &[#(#arms),*]) {
            return Err(crate::Error::Constraint(violation));
        }
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
    if p.list == ListEncoding::JsonText {
        // A model's JSON cannot fail to serialize (string keys, no custom `Serialize`).
        return Some(quote!(encode_path_segment(&serde_json::to_string(#n).unwrap_or_default())));
    }
    if let ListEncoding::ObjectStyled { style, explode } = p.list {
        uses.object_pairs = true;
        uses.object_style = true;
        let lead = style.lead();
        let name = crate::percent_encode(&p.wire);
        return Some(quote!(object_style(#lead, #name, #n, #explode, true)));
    }
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
            let name = crate::percent_encode(&p.wire);
            Some(quote!(matrix_style(#name, #items, #explode)))
        }
        _ => None,
    }
}

/// Which of an operation's methods is printed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavour {
    /// Reads and decodes the whole answer.
    Decoded,
    /// Returns the `reqwest::Response` of a success (any `2xx`) unread.
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

/// The names of every method of one operation: the main one, one per other body
/// encoding, the streaming twin and the negotiation twins.
fn method_names(op: &Operation) -> Vec<String> {
    std::iter::once(op.name.clone())
        .chain(op.other_bodies.iter().map(|(name, _)| name.clone()))
        .chain(op.stream.clone())
        .chain(op.negotiated.iter().map(|n| n.name.clone()))
        .collect()
}

/// Every method of one operation: the main one, one per other body encoding, and the
/// streaming twin; the tokens inside `impl Client`, and the items beside it.
fn methods(
    op: &Operation,
    api: &Api,
    models: &TokenStream,
    validating: &[&str],
    uses: &mut Uses,
    builders: &requests::Builders,
) -> (TokenStream, TokenStream) {
    let mut calls: Vec<(Operation, String, Option<Body>, Flavour)> = vec![(
        op.clone(),
        op.name.clone(),
        op.body.clone(),
        Flavour::Decoded,
    )];
    for (name, body) in &op.other_bodies {
        calls.push((
            op.clone(),
            name.clone(),
            Some(body.clone()),
            Flavour::Decoded,
        ));
    }
    if let Some(name) = &op.stream {
        calls.push((op.clone(), name.clone(), op.body.clone(), Flavour::Stream));
    }
    for twin in twins(op) {
        let (name, body) = (twin.name.clone(), twin.body.clone());
        calls.push((twin, name, body, Flavour::Decoded));
    }
    let mut inside = TokenStream::new();
    let mut beside = TokenStream::new();
    for (op, name, body, flavour) in &calls {
        let (i, b) = method(
            op,
            api,
            name,
            body.as_ref(),
            *flavour,
            models,
            validating,
            uses,
            builders,
        );
        inside.extend(i);
        beside.extend(b);
    }
    (inside, beside)
}

/// The content-negotiation twins of an operation ([`Operation::negotiated`]), each as an
/// operation of its own that the method emitter prints like any other: the same name for
/// its types (so it shares the error enum), one success, any `2xx`, read as text or
/// bytes, and the twin's media types as its only answers' media types (its `Accept`). The
/// error answers keep their bodies and decoding; their media types are left out of the
/// `Accept`, which would otherwise let a server pick JSON for the success too.
pub(super) fn twins(op: &Operation) -> Vec<Operation> {
    op.negotiated
        .iter()
        .map(|n| {
            let media = n
                .media
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let read = if n.payload == Payload::Text {
                "as text (a body that is not UTF-8 is `Error::Decode`)"
            } else {
                "as the bytes received"
            };
            let mut responses: Vec<ResponseDef> = failures(op)
                .into_iter()
                .map(|r| ResponseDef {
                    media: Vec::new(),
                    ..r.clone()
                })
                .collect();
            responses.push(ResponseDef {
                status: StatusMatch::Code(200),
                variant: "Ok".to_owned(),
                doc: format!("A success in {media}."),
                payload: n.payload.clone(),
                media: n.media.clone(),
                schema: None,
                declared: false,
                headers: Vec::new(),
                headers_type: String::new(),
            });
            Operation {
                name: n.name.clone(),
                doc: format!(
                    "{}\n\nThe {media} form of [`Client::{}`]: asks for {media} (`Accept`) \
                     and returns the body of a success (any `2xx`) {read}.",
                    op.doc, op.name
                ),
                other_bodies: Vec::new(),
                stream: None,
                negotiated: Vec::new(),
                responses,
                business: Vec::new(),
                ..op.clone()
            }
        })
        .collect()
}

/// The argument type of a body.
fn body_type(b: &Body, models: &TokenStream) -> TokenStream {
    match (b.kind, b.required) {
        (BodyKind::Text, true) => quote!(impl Into<String>),
        (BodyKind::Text, false) => quote!(Option<String>),
        (BodyKind::Binary, true) => quote!(impl Into<reqwest::Body>),
        (BodyKind::Binary, false) => quote!(Option<reqwest::Body>),
        (BodyKind::Multipart, required) => {
            let name = multipart::form_type(b);
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

/// One method of an operation: the tokens inside `impl Client`, and the items beside it
/// (a request builder, when the operation uses one).
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
    builders: &requests::Builders,
) -> (TokenStream, TokenStream) {
    let name = ident(method_name);
    let http = http_verb(op.method);
    let mut doc = method_intro(op, api, http, body, flavour);
    let arg_docs = argument_docs(op, body);
    let intro = doc.clone();
    if !arg_docs.is_empty() {
        doc.push_str("\n\n# Arguments\n\n");
        doc.push_str(&arg_docs.join("\n"));
    }
    let body_validates = body
        .filter(|b| matches!(b.kind, BodyKind::Json | BodyKind::Form))
        .and_then(|b| inner_named(&b.ty))
        .is_some_and(|named| validating.contains(&named));
    let checks_arguments = op.params.iter().any(|p| !check_param(p).is_empty()) || body_validates;
    let errors = errors_doc(op, checks_arguments);
    doc.push_str("\n\n# Errors\n\n");
    doc.push_str(&errors);
    let doc = moved(docs::outer(&doc));
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
    let body_check = body.filter(|_| body_validates).map(body_check);
    let param_checks: Vec<TokenStream> = op.params.iter().map(check_param).collect();
    let argument_checks = moved(quote!(#body_check #(#param_checks)*));
    let err = error_enum_name(op);
    let (ret, finish) = send_and_finish(op, flavour, models, &err);
    let statements = moved(request_statements(op, api, http, uses, body, finish));
    let Some(names) = &builders.get(method_name) else {
        return (
            quote! {
                #doc
                #allow
                #deprecated
                pub async fn #name(&self, #(#params,)* #body_arg) -> Result<#ret, crate::Error<#err>> {
                    #argument_checks
                    #statements
                }
            },
            TokenStream::new(),
        );
    };
    let private = &names.private;
    let private_doc = docs::outer(&format!(
        "Builds and sends the request of [`Client::{method_name}`] (see [`{}::send`]).",
        names.ty
    ));
    let (make, items) = requests::emit(
        &requests::Parts {
            op,
            method: method_name,
            body,
            intro,
            errors,
            ret: ret.clone(),
            err: err.clone(),
            deprecated,
        },
        names,
        models,
    );
    (
        quote! {
            #make

            #private_doc
            #allow
            async fn #private(&self, #(#params,)* #body_arg) -> Result<#ret, crate::Error<#err>> {
                #argument_checks
                #statements
            }
        },
        items,
    )
}

/// The part of a method's doc before its arguments (also a request builder's intro): the
/// spec's text, the verb and path, the credentials it sends, and how it relates to the
/// methods of its other body encodings, answer media types or streaming form.
fn method_intro(
    op: &Operation,
    api: &Api,
    http: &str,
    body: Option<&Body>,
    flavour: Flavour,
) -> String {
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
    if !op.negotiated.is_empty() && flavour == Flavour::Decoded {
        let twins: Vec<String> = op
            .negotiated
            .iter()
            .map(|n| {
                let media: Vec<String> = n.media.iter().map(|m| format!("`{m}`")).collect();
                format!("{} from [`Client::{}`]", media.join(", "), n.name)
            })
            .collect();
        let own = accept(op);
        let own = if own.is_empty() {
            "no `Accept`".to_owned()
        } else {
            format!("`Accept: {own}`")
        };
        doc.push_str(&format!(
            "\n\nThis method sends {own} and decodes that answer; the spec also offers {}.",
            twins.join(", ")
        ));
    }
    if flavour == Flavour::Stream {
        doc.push_str(&format!(
            "\n\nThe streaming form of [`Client::{}`]: on a success (any `2xx`) the \
             `reqwest::Response` comes back unread (read it with `chunk()` as it arrives, no \
             size cap applies); an error answer is read and decoded as usual. The \
             `reqwest::Response` and the errors of reading it are `reqwest`'s own: their URL \
             keeps its query, so do not print them where a query credential must not show.",
            op.name
        ));
    }
    doc
}

/// One `# Arguments` line per parameter and for the body.
fn argument_docs(op: &Operation, body: Option<&Body>) -> Vec<String> {
    op.params
        .iter()
        .map(|p| format!("- `{}`: {}", p.name, p.doc.replace('\n', " ")))
        .chain(body.map(|b| {
            let mut line = format!("- `body`: {}", b.doc.replace('\n', " "));
            if b.kind == BodyKind::Binary {
                // Streaming needs a reqwest feature this crate does not turn on for everyone.
                line.push_str(
                    " Any bytes (`Vec<u8>`, `bytes::Bytes`, `&'static [u8]`, `String`), or a \
                     stream through `reqwest::Body::wrap_stream` once your own `Cargo.toml` \
                     turns on reqwest's `stream` feature.",
                );
            }
            line
        }))
        .collect()
}

/// The `# Errors` text: only the variants this method can give.
fn errors_doc(op: &Operation, checks_arguments: bool) -> String {
    let mut errors = String::new();
    if checks_arguments {
        errors.push_str(
            "`Error::Constraint` when an argument breaks the spec's constraints (nothing is \
             sent), ",
        );
    }
    if checks_business(op) {
        errors.push_str("`Error::Business` for a success status whose body reports a rejection, ");
    }
    errors.push_str(
        "`Error::Response` for a documented error status, and `Error::Transport` (a \
         timeout included), `Error::Body`, `Error::UnexpectedStatus`, `Error::Decode` or \
         `Error::BodyTooLarge` otherwise.",
    );
    errors
}

/// The check of a body whose model validates, run before anything is sent.
fn body_check(b: &Body) -> TokenStream {
    let check = match &b.ty {
        Ty::Vec(_) => quote!(for item in body.iter() {
            item.validate().map_err(crate::Error::Constraint)?;
        }),
        _ => quote!(body.validate().map_err(crate::Error::Constraint)?;),
    };
    // Each check tests the switch itself: one `if self.check_arguments` around a
    // lone `if let` is clippy's `collapsible_if`.
    if b.required {
        quote!(if self.check_arguments { #check })
    } else {
        quote!(if self.check_arguments && let Some(body) = body { #check })
    }
}

/// The statements from the URL to the answer, once the arguments are checked: the URL,
/// the request with its parameters, credentials, cookies and body, the call's
/// description, and `finish` (which sends it).
fn request_statements(
    op: &Operation,
    api: &Api,
    http: &str,
    uses: &mut Uses,
    body: Option<&Body>,
    finish: TokenStream,
) -> TokenStream {
    let method_const = format_ident!("{}", http);
    let (path_lets, url) = url_expr(op, uses);
    if op.params.iter().any(|p| {
        p.location == ParamLocation::Header && matches!(p.list, ListEncoding::ObjectStyled { .. })
    }) {
        // `object_style` is shared with paths, where it percent-encodes.
        uses.path = true;
        uses.object_pairs = true;
        uses.object_style = true;
    }
    uses.json_text |= op
        .params
        .iter()
        .any(|p| p.list == ListEncoding::JsonText && p.location == ParamLocation::Query);
    let add_params = op.params.iter().map(add_param);
    let cookie_params = op
        .params
        .iter()
        .any(|p| p.location == ParamLocation::Cookie);
    let has_cookies = cookie_params || auth::sends_cookie(op, api);
    if cookie_params {
        // Parameter values are percent-encoded; an API key goes as the user gave it.
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
    let url_binding = url_binding(op, url, uses);
    let add_body = body.map(add_body);
    let authorize = auth::sends(op).then(|| auth::authorize(op, api, has_cookies));
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
    let call = moved(call_description(op, api, http, uses));
    let (path_lets, url_binding, finish) = (moved(path_lets), moved(url_binding), moved(finish));
    let add_params = add_params.map(moved);
    let (authorize, add_body) = (authorize.map(moved), add_body.map(moved));
    quote! {
        #path_lets
        #url_binding
        let #mutable request = self.http.request(reqwest::Method::#method_const, url);
        #cookie_vec
        #(#add_params)*
        #authorize
        #cookie_header
        #add_body
        #call
        #finish
    }
}

/// `let url = …;`: the URL expression `url`, the check of its dot segments, and the query
/// parameters the client joins into the URL itself (noting the helpers they use).
fn url_binding(op: &Operation, url: TokenStream, uses: &mut Uses) -> TokenStream {
    let joined: Vec<TokenStream> = op
        .params
        .iter()
        .filter(|p| is_joined_query(p))
        .map(add_joined_query)
        .collect();
    let dots = dot_segment_check(op, uses);
    if joined.is_empty() {
        return quote!(let url = #url; #dots);
    }
    uses.path = true;
    for p in op.params.iter().filter(|p| is_joined_query(p)) {
        match p.list {
            ListEncoding::ObjectForm { explode: true } | ListEncoding::DeepObject => {
                uses.object_pairs = true;
                uses.object_query = true;
            }
            ListEncoding::ObjectForm { explode: false } => {
                uses.object_pairs = true;
                uses.joined_query = true;
            }
            ListEncoding::DeepList => uses.deep_list = true,
            _ => uses.joined_query = true,
        }
    }
    quote!(let mut url = #url; #dots #(#joined)*)
}

/// `let call = Call { … };`: what the send path needs to know of the operation (its
/// name, verb, path, `Accept`, penalty shape and token).
fn call_description(op: &Operation, api: &Api, http: &str, uses: &Uses) -> TokenStream {
    let accept = accept(op);
    // The operation's penalty shape, when the client screens answers for penalties.
    let penalty = uses.penalty.then(|| match &op.penalty {
        Some(p) => {
            let (ticket, wait, resend) = (&p.ticket, &p.wait, &p.resend);
            let captcha = match &p.captcha {
                Some(c) => quote!(Some(#c)),
                None => quote!(None),
            };
            quote! {
                penalty: Some(&crate::penalty::PenaltyShape {
                    ticket: #ticket,
                    wait: #wait,
                    captcha: #captcha,
                    resend: #resend,
                }),
            }
        }
        None => quote!(penalty: None,),
    });
    let token = match (auth::bearer(api), auth::sends(op)) {
        (true, true) => quote!(token,),
        (true, false) => quote!(token: None,),
        (false, _) => TokenStream::new(),
    };
    let operation = &op.name;
    let path_template = &op.path_template;
    quote! {
        let call = Call {
            operation: #operation,
            method: #http,
            path: #path_template,
            accept: #accept,
            #penalty
            #token
        };
    }
}

/// The method's success type and the statements that send the request and give the
/// result: decoded through the operation's answer function, or (streaming) a success
/// handed back unread.
fn send_and_finish(
    op: &Operation,
    flavour: Flavour,
    models: &TokenStream,
    err: &proc_macro2::Ident,
) -> (TokenStream, TokenStream) {
    match flavour {
        Flavour::Decoded => {
            let ok = success_type(op, models);
            (
                quote!(crate::Response<#ok>),
                match simple_success(op) {
                    Some(r) => {
                        let dec = decoder(&r.payload);
                        quote!(self.only(request, call, #dec).await)
                    }
                    None => {
                        let answer = answer_fn_name(op);
                        quote!(self.execute(request, call, #answer).await)
                    }
                },
            )
        }
        Flavour::Stream => {
            let stream_failure = if failures(op).is_empty() {
                quote!(Err(answer.unexpected()))
            } else {
                quote!(Err(#err::failure(answer)))
            };
            (
                quote!(reqwest::Response),
                quote! {
                    let traced = Traced::start(&call);
                    let outcome: Result<reqwest::Response, crate::Error<#err>> = traced.run(async {
                        let request = self.prepare(request, call.accept)?;
                        let response = self.send(request, &call, 1).await.map_err(crate::Error::transport)?;
                        // Every `2xx` is a success (see `answer_fn`).
                        if response.status().is_success() {
                            return Ok(response);
                        }
                        let answer = crate::error::Answer::read(response, self.max_response_bytes).await?;
                        #stream_failure
                    }).await;
                    traced.finish(outcome.as_ref().map_or_else(crate::Error::status, |response| Some(response.status())));
                    outcome
                },
            )
        }
    }
}
