//! The intermediate representation: the spec with every decision already taken.
//!
//! `$ref`s are resolved to type names, Rust identifiers are chosen and unique, Rust types
//! are fixed, parameter encodings and body media types are decided. The emitters only
//! print this; none of them looks at the spec again.

/// Everything the generated crate contains.
#[derive(Debug, Clone)]
pub struct Api {
    /// Crate-level rustdoc (title, version, description).
    pub doc: String,
    /// Models, in spec order (inline types right after the type that introduced them).
    pub types: Vec<TypeDef>,
    /// Client methods, in spec order.
    pub operations: Vec<Operation>,
    /// The security schemes some operation sends a credential for, in the order of
    /// `components.securitySchemes`.
    pub schemes: Vec<SecurityScheme>,
    /// The operations the client leaves out (each also a warning saying why), as
    /// `operationId (METHOD /path)`, in spec order: what the summary line names.
    pub left_out: Vec<String>,
    /// The path of the spec's first server when its URL is relative (`/api`), without a
    /// trailing slash: joined to the base URL the user gives.
    pub server_path: Option<String>,
    /// Models read the scalar mismatches servers commonly make leniently
    /// ([`crate::Options::tolerant`]).
    pub tolerant: bool,
    /// The URL of the spec's first server when it is absolute and has no variables: the
    /// base URL the usage example builds its client with.
    pub server_url: Option<String>,
    /// Each component schema's key with the Rust name of its model, in spec order (a
    /// component inlined where it is used keeps its claimed name, with no model of it):
    /// what tools reading the IR against the spec (the spec diff) look types up by.
    pub components: Vec<(String, String)>,
    /// The package name the crate is built under ([`crate::Options::crate_name`]): the
    /// usage example in the root rustdoc names the crate by it. `None`: no example there.
    pub crate_name: Option<String>,
    /// The spec as JSON Schema 2020-12 (JSON text) that a generated server judges
    /// requests against ([`crate::Options::server`]); `None`: no server is generated.
    pub server_document: Option<String>,
    /// Whether the crate has its client (`false`: [`crate::Options::server_only`]). Without
    /// it nothing decodes answers or validates requests before sending, so the models
    /// derive `Deserialize` for the server alone and have no `validate`.
    pub client: bool,
}

/// A security scheme whose credential the client holds and sends.
#[derive(Debug, Clone)]
pub struct SecurityScheme {
    /// The scheme's name in `components.securitySchemes` (what `security` names).
    pub key: String,
    /// The snake-case stem of its accessors (`set_<stem>`, `clear_<stem>`, `has_<stem>`)
    /// and of its field in the client's credentials; unique among the client's methods.
    pub stem: String,
    /// Rust name of its variant in the private `Scheme` enum.
    pub variant: String,
    /// How the credential is sent.
    pub kind: SchemeKind,
    /// The spec's description of the scheme (may be empty).
    pub doc: String,
    /// How a bearer token of the scheme is renewed (`x-token-refresh`), when the spec says.
    pub refresh: Option<TokenRefresh>,
}

/// A bearer scheme's token refresh through one of the spec's operations
/// (`x-token-refresh`); every field name is a wire name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRefresh {
    /// The client method of the token operation (a JSON body).
    pub method: String,
    /// Fixed body fields of the refresh grant, as name and string value.
    pub grant: Vec<(String, String)>,
    /// Body field of the refresh token, and answer field of a rotated one.
    pub refresh_token: String,
    /// Answer field of the new access token.
    pub access_token: String,
    /// Answer field of the token's lifetime in seconds.
    pub expires_in: Option<String>,
}

/// How a credential goes on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemeKind {
    /// `Authorization: Bearer <token>`: HTTP `bearer`, and `oauth2` / `openIdConnect`,
    /// whose access tokens are obtained outside the client. The string says which spec
    /// type it came from, for the docs.
    Bearer(String),
    /// `Authorization: Basic <base64(user:password)>`: HTTP `basic`.
    Basic,
    /// An API key under a name of the spec's choosing.
    ApiKey {
        /// Header, query or cookie.
        location: ApiKeyLocation,
        /// The header, query parameter or cookie name.
        name: String,
    },
}

/// Where an API key is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiKeyLocation {
    /// A request header.
    Header,
    /// A query parameter.
    Query,
    /// A cookie of the `Cookie` header.
    Cookie,
}

/// A Rust type as the generated code spells it.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// `bool`.
    Bool,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `String`.
    String,
    /// `chrono::DateTime<chrono::FixedOffset>`: `format: date-time` (RFC 3339, the
    /// offset kept as sent).
    DateTime,
    /// `chrono::NaiveDate`: `format: date`.
    Date,
    /// `uuid::Uuid`: `format: uuid`.
    Uuid,
    /// Any JSON (`serde_json::Value`): free-form objects, `oneOf` of several shapes.
    Json,
    /// A generated model, by its Rust name.
    Named(String),
    /// `Vec<T>`.
    Vec(Box<Ty>),
    /// `BTreeMap<String, T>` (`additionalProperties`).
    Map(Box<Ty>),
    /// `Option<T>` where `null` is one of a list's items (`Vec<Option<T>>`).
    Option(Box<Ty>),
    /// `(A, B, …)`: a list of fixed length whose items have a type each (`prefixItems`).
    /// serde reads and writes a tuple as a JSON array of exactly that length.
    Tuple(Vec<Ty>),
    /// `()`: a schema that allows only `null`.
    Unit,
}

/// How string lengths are counted for `maxLength`/`minLength`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LengthUnit {
    /// Unicode scalar values (`char`s): JSON Schema's definition.
    Scalar,
    /// UTF-16 code units.
    Utf16,
    /// UTF-8 bytes.
    Byte,
}

/// Checks a value must pass, from the spec's validation keywords.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checks {
    /// `maxLength`.
    pub max_length: Option<u64>,
    /// `minLength`.
    pub min_length: Option<u64>,
    /// `minimum`.
    pub minimum: Option<f64>,
    /// `maximum`.
    pub maximum: Option<f64>,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxItems`.
    pub max_items: Option<u64>,
    /// Unit of the length checks.
    pub unit: Option<LengthUnit>,
    /// `pattern`, when the `regex` crate reads it the way the spec means it.
    pub pattern: Option<String>,
}

impl Checks {
    /// Whether there is anything to check.
    pub fn is_empty(&self) -> bool {
        self.max_length.is_none()
            && self.min_length.is_none()
            && self.minimum.is_none()
            && self.maximum.is_none()
            && self.min_items.is_none()
            && self.max_items.is_none()
            && self.pattern.is_none()
    }
}

/// A generated model.
#[derive(Debug, Clone)]
pub enum TypeDef {
    /// An object schema.
    Struct(StructDef),
    /// A string enum.
    Enum(EnumDef),
    /// Any other named schema (`pub type Name = ...;`).
    Alias(AliasDef),
    /// A `oneOf`/`anyOf` of several shapes.
    Union(UnionDef),
}

impl TypeDef {
    /// The type's Rust name.
    pub fn name(&self) -> &str {
        match self {
            TypeDef::Struct(s) => &s.name,
            TypeDef::Enum(e) => &e.name,
            TypeDef::Alias(a) => &a.name,
            TypeDef::Union(u) => &u.name,
        }
    }
}

/// A struct model.
#[derive(Debug, Clone)]
pub struct StructDef {
    /// Rust name.
    pub name: String,
    /// Rustdoc.
    pub doc: String,
    /// Fields in spec order.
    pub fields: Vec<Field>,
    /// `x-combined-max-length` rules.
    pub combined: Vec<CombinedRule>,
    /// Whether `validate()` is generated (own checks or a field whose type has them).
    pub validates: bool,
    /// Whether the model is (part of) a request body: it then gets `new`, setters and
    /// `#[non_exhaustive]` (see `emit::builders`).
    pub request: bool,
    /// `x-constructors`: named constructors.
    pub constructors: Vec<NamedConstructor>,
}

/// A named constructor of a request model (`x-constructors`).
#[derive(Debug, Clone)]
pub struct NamedConstructor {
    /// Rust name of the associated function.
    pub name: String,
    /// Rustdoc.
    pub doc: String,
    /// Fields (Rust names) set to a fixed JSON value.
    pub fixed: Vec<(String, serde_json::Value)>,
    /// Fields (Rust names) taken as arguments, in order.
    pub args: Vec<String>,
}

/// A struct field.
#[derive(Debug, Clone)]
pub struct Field {
    /// Rust name.
    pub name: String,
    /// Wire name.
    pub wire: String,
    /// Rustdoc.
    pub doc: String,
    /// The value type (without the `Option` of optional or nullable fields).
    pub ty: Ty,
    /// Listed in `required`.
    pub required: bool,
    /// May be `null`.
    pub nullable: bool,
    /// Boxed to break a cycle of directly nested structs.
    pub boxed: bool,
    /// `x-secret`: redacted in `Debug`.
    pub secret: bool,
    /// Validation keywords.
    pub checks: Checks,
    /// The map of the properties the schema does not name (`additionalProperties` beside
    /// `properties`), flattened into the object on the wire. `ty` is the map.
    pub flatten: bool,
    /// The value used when the field is absent (a `default` the field's type can hold):
    /// the field is then a plain value, not an `Option`.
    pub default: Option<DefaultValue>,
}

impl Field {
    /// Whether the Rust field is an `Option`.
    pub fn optional(&self) -> bool {
        (!self.required || self.nullable) && !self.flatten && self.default.is_none()
    }

    /// Whether the field tells an absent value from an explicit `null`: optional and
    /// nullable, an `Option<Option<T>>` (`None` absent, `Some(None)` `null`), so a
    /// caller can send `null` to clear a value where leaving the field out changes
    /// nothing.
    pub fn explicit_null(&self) -> bool {
        !self.required && self.nullable && self.optional()
    }
}

/// A `default` as the generated code spells it.
#[derive(Debug, Clone, PartialEq)]
pub enum DefaultValue {
    /// `true` / `false`.
    Bool(bool),
    /// An integer (for `i32`/`i64` fields).
    Int(i64),
    /// A number (for `f32`/`f64` fields).
    Float(f64),
    /// A string.
    Str(String),
    /// A value of a generated enum, parsed from its wire spelling (`"asc"`, `1`).
    Enum(serde_json::Value),
}

/// An `x-combined-max-length` rule.
#[derive(Debug, Clone)]
pub struct CombinedRule {
    /// The fields (Rust name, wire name, whether the Rust field is an `Option`).
    pub fields: Vec<(String, String, bool)>,
    /// Largest allowed sum of lengths.
    pub max: u64,
    /// How lengths are counted.
    pub unit: LengthUnit,
}

/// An enum of listed values with a fallback for values the spec does not list.
#[derive(Debug, Clone)]
pub struct EnumDef {
    /// Rust name.
    pub name: String,
    /// Rustdoc.
    pub doc: String,
    /// `(variant, wire value)` in spec order; each value a string, number or boolean
    /// (of the enum's [`EnumKind`]).
    pub variants: Vec<(String, serde_json::Value)>,
    /// Name of the variant that keeps unknown values (`Unknown` unless taken).
    pub fallback: String,
    /// What the values are, hence what the fallback holds.
    pub kind: EnumKind,
}

/// The kind of an enum's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnumKind {
    /// All strings: the fallback holds a `String`.
    String,
    /// All integers: the fallback holds an `i64`.
    Integer,
    /// Anything else (strings beside numbers, fractions, booleans): the fallback holds
    /// the JSON value.
    Mixed,
}

/// A `oneOf`/`anyOf` of several shapes, as a Rust enum with a fallback variant that keeps
/// a value none of the branches accepts (sent by a newer server) as it came.
#[derive(Debug, Clone)]
pub struct UnionDef {
    /// Rust name.
    pub name: String,
    /// Rustdoc.
    pub doc: String,
    /// Wire name of the property that names the branch (an internally tagged enum), or
    /// `None` (an untagged enum whose variants are tried in order).
    pub tag: Option<String>,
    /// Variants in the order they are tried.
    pub variants: Vec<Variant>,
    /// Name of the variant that keeps any other value (`None` when a variant already
    /// accepts any JSON).
    pub fallback: Option<String>,
    /// Every variant is a scalar (string, number, boolean): the enum gets `Display`, so
    /// it can stand in a path, query or header.
    pub scalar: bool,
}

/// One variant of a [`UnionDef`].
#[derive(Debug, Clone)]
pub struct Variant {
    /// Rust name.
    pub name: String,
    /// Rustdoc.
    pub doc: String,
    /// Value of the tag property for this variant (tagged unions only).
    pub tag_value: Option<String>,
    /// The variant's data (`None`: a tagged variant with no other property).
    pub ty: Option<Ty>,
    /// Boxed to break a cycle of unions.
    pub boxed: bool,
}

/// A named alias.
#[derive(Debug, Clone)]
pub struct AliasDef {
    /// Rust name.
    pub name: String,
    /// Rustdoc.
    pub doc: String,
    /// The aliased type.
    pub ty: Ty,
}

/// HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// GET.
    Get,
    /// PUT.
    Put,
    /// POST.
    Post,
    /// DELETE.
    Delete,
    /// OPTIONS.
    Options,
    /// HEAD.
    Head,
    /// PATCH.
    Patch,
    /// TRACE.
    Trace,
}

/// One client method.
#[derive(Debug, Clone)]
pub struct Operation {
    /// Method name (snake case of the operationId).
    pub name: String,
    /// Prefix of the operation's own types (`ExchangeToken` for `ExchangeTokenError`).
    pub type_prefix: String,
    /// Rustdoc.
    pub doc: String,
    /// HTTP method.
    pub method: Method,
    /// Path template relative to the base URL, split into literal text and parameters.
    pub path: Vec<PathPart>,
    /// The path as written in the spec (for docs).
    pub path_template: String,
    /// Arguments other than the body, in spec order (path first).
    pub params: Vec<Param>,
    /// The request body of this method (the spec's first supported media type).
    pub body: Option<Body>,
    /// The body's other media types, each sent by a method of its own: `(method name,
    /// body)`. One method per encoding keeps every signature exact (a text body takes a
    /// string, a JSON body its model), where one enum argument would make each caller
    /// build a variant even for the common encoding.
    pub other_bodies: Vec<(String, Body)>,
    /// Name of the streaming twin (`Some` when a success answer carries a text or binary
    /// body): it returns the `reqwest::Response` once the status is a documented success.
    pub stream: Option<String>,
    /// Twins asking for another media type the successes may come in (content
    /// negotiation: JSON or text of one answer, chosen by `Accept`). The main method asks
    /// only for the media types none of these asks for.
    pub negotiated: Vec<Negotiated>,
    /// The security requirements, as alternatives: each inner list names (by
    /// [`SecurityScheme::key`]) schemes that are all sent together. An empty inner list is
    /// the anonymous alternative (`{}`); an empty outer list means no credentials at all.
    pub security: Vec<Vec<String>>,
    /// Documented responses.
    pub responses: Vec<ResponseDef>,
    /// `deprecated: true`.
    pub deprecated: bool,
    /// `x-business-error`: the fields of the success body that report a rejection when
    /// non-empty (empty when the spec declares none or they could not be used).
    pub business: Vec<BusinessField>,
    /// `x-penalty`: how a success answer's body says "wait, then resend with a ticket".
    pub penalty: Option<PenaltyShape>,
}

/// A method of an operation that asks (by `Accept`) for success answers in media types
/// other than the ones the main method decodes, and returns their body as text or bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Negotiated {
    /// Method name (`get_source_text`).
    pub name: String,
    /// How its success body is read: [`Payload::Text`] or [`Payload::Bytes`].
    pub payload: Payload,
    /// The media types it sends as `Accept`, in spec order.
    pub media: Vec<String>,
}

/// Wire names of the fields of a penalty answer (`x-penalty`).
#[derive(Debug, Clone, PartialEq)]
pub struct PenaltyShape {
    /// Answer field holding the ticket.
    pub ticket: String,
    /// Answer field holding the seconds to wait.
    pub wait: String,
    /// Answer field that is `true` when a person must log in.
    pub captcha: Option<String>,
    /// Request body field the ticket goes back in.
    pub resend: String,
}

/// A string field of an operation's success body that reports a rejection when non-empty
/// (`x-business-error`).
#[derive(Debug, Clone, PartialEq)]
pub struct BusinessField {
    /// Rust name of the field.
    pub name: String,
    /// Wire name.
    pub wire: String,
    /// Whether the Rust field is an `Option`.
    pub optional: bool,
    /// Whether it is an `Option<Option<_>>` ([`Field::explicit_null`]).
    pub explicit_null: bool,
}

/// A piece of a path template.
#[derive(Debug, Clone, PartialEq)]
pub enum PathPart {
    /// Literal text.
    Literal(String),
    /// The Rust name of a path parameter.
    Param(String),
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamLocation {
    /// In the path.
    Path,
    /// In the query string.
    Query,
    /// As a header.
    Header,
    /// In the `Cookie` header (all cookie parameters of a request share one).
    Cookie,
}

/// How a list value is put on the wire (and, for `label` and `matrix` path parameters,
/// a single value too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListEncoding {
    /// The name is repeated for each item (`names=A&names=B`).
    Repeat,
    /// The items are joined by a separator (`names=A,B`).
    Join(String),
    /// A path parameter in `label` style (RFC 6570 `{.x}`, `{.x*}` with `explode`):
    /// `.blue`, `.blue,black` or, exploded, `.blue.black`.
    Label {
        /// `explode`.
        explode: bool,
    },
    /// A path parameter in `matrix` style (RFC 6570 `{;x}`, `{;x*}` with `explode`):
    /// `;color=blue`, `;color=blue,black` or, exploded, `;color=blue;color=black`.
    Matrix {
        /// `explode`.
        explode: bool,
    },
    /// An object query parameter in `form` style: exploded, each property is a pair of
    /// its own (`role=admin&first=Alex`); not, one pair of alternating keys and values
    /// (`id=role,admin,first,Alex`).
    ObjectForm {
        /// `explode`.
        explode: bool,
    },
    /// An object query parameter in `deepObject` style: `id[role]=admin&id[first]=Alex`.
    DeepObject,
    /// A list query parameter in `deepObject` style, which OpenAPI defines for objects
    /// only: each item under `name[]` (`expand[]=a&expand[]=b`), the bracket convention
    /// of the servers that declare it (Rack, PHP, `qs`).
    DeepList,
    /// A query parameter described by `content: {application/json: …}`: the value's JSON
    /// text is the parameter's value (`filter=%7B%22name%22%3A%22a%22%7D`), whatever its
    /// type.
    JsonText,
    /// An object path or header parameter, its properties expanded as RFC 6570 expands an
    /// associative array: `simple` `R,100,G,200` (exploded `R=100,G=200`), `label`
    /// `.R,100,G,200` (`.R=100.G=200`), `matrix` `;color=R,100,G,200` (`;R=100;G=200`).
    ObjectStyled {
        /// `simple`, `label` or `matrix`.
        style: ObjectStyle,
        /// `explode`.
        explode: bool,
    },
}

/// The RFC 6570 operator of an object path or header parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectStyle {
    /// `simple` (`{x}`): no prefix, pairs separated by commas.
    Simple,
    /// `label` (`{.x}`): a leading `.`, which also separates exploded pairs.
    Label,
    /// `matrix` (`{;x}`): `;name=` before the unexploded pairs, `;` before each exploded
    /// one.
    Matrix,
}

impl ObjectStyle {
    /// The expansion's leading text and exploded-pair separator (empty for `simple`,
    /// whose exploded pairs are separated by commas).
    pub fn lead(self) -> &'static str {
        match self {
            ObjectStyle::Simple => "",
            ObjectStyle::Label => ".",
            ObjectStyle::Matrix => ";",
        }
    }
}

impl ListEncoding {
    /// Whether this is the encoding of an object (its properties become pairs).
    pub fn is_object(&self) -> bool {
        matches!(
            self,
            ListEncoding::ObjectForm { .. } | ListEncoding::DeepObject
        )
    }
}

/// A method argument taken from a parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// Rust name.
    pub name: String,
    /// Wire name.
    pub wire: String,
    /// Rustdoc.
    pub doc: String,
    /// Location.
    pub location: ParamLocation,
    /// Value type.
    pub ty: Ty,
    /// Required (else the argument is an `Option`).
    pub required: bool,
    /// Encoding of list values.
    pub list: ListEncoding,
    /// Validation keywords.
    pub checks: Checks,
    /// JSON pointer of the parameter's schema in the document (`None` for a parameter
    /// the spec does not declare): what a generated server judges its value against.
    pub schema: Option<String>,
}

/// Media type of a request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    /// `application/json` and `…+json`.
    Json,
    /// `application/x-www-form-urlencoded`.
    Form,
    /// `text/*`: a string.
    Text,
    /// Anything else (`application/octet-stream`, `image/png`, `*/*`): bytes or a stream.
    Binary,
    /// `multipart/form-data`: a struct of parts ([`Body::form`]).
    Multipart,
}

/// The parts of a `multipart/form-data` body: a struct the client emits, one field per
/// property of the body's schema.
#[derive(Debug, Clone)]
pub struct Form {
    /// Rust name of the struct.
    pub name: String,
    /// The parts, in schema order.
    pub parts: Vec<FormPart>,
}

/// One property of a multipart body.
#[derive(Debug, Clone)]
pub struct FormPart {
    /// Rust field name.
    pub name: String,
    /// The part's name on the wire.
    pub wire: String,
    /// Rustdoc.
    pub doc: String,
    /// How its value is sent.
    pub kind: FormPartKind,
    /// A list: one part per item, all under the same name.
    pub list: bool,
    /// Listed in `required` (else an `Option`, and no part when `None`).
    pub required: bool,
}

/// How a multipart property is sent.
#[derive(Debug, Clone, PartialEq)]
pub enum FormPartKind {
    /// A string, number, boolean or string enum: a text part.
    Text(Ty),
    /// `format: binary`: a file part (bytes, optional file name and content type).
    File,
    /// Anything else (an object): a JSON part (`application/json`).
    Json(Ty),
}

/// The request body argument.
#[derive(Debug, Clone)]
pub struct Body {
    /// Value type.
    pub ty: Ty,
    /// Required (else the argument is an `Option`).
    pub required: bool,
    /// How the body is encoded.
    pub kind: BodyKind,
    /// The media type sent as `Content-Type` (as the spec spells it; `*/*` becomes
    /// `application/octet-stream`).
    pub media: String,
    /// Rustdoc.
    pub doc: String,
    /// The parts of a `multipart/form-data` body (`None` for other kinds).
    pub form: Option<Form>,
    /// JSON pointer of the body's schema in the document, when it has one: what a
    /// generated server judges it against.
    pub schema: Option<String>,
}

/// Which statuses a documented response covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusMatch {
    /// One code.
    Code(u16),
    /// A class (`4XX` is `Class(4)`).
    Class(u16),
    /// `default`: every status not documented otherwise.
    Default,
}

impl StatusMatch {
    /// Whether the response is a success (2xx).
    pub fn is_success(&self) -> bool {
        matches!(self, StatusMatch::Code(c) if (200..300).contains(c))
            || matches!(self, StatusMatch::Class(2))
    }
}

/// How a response body is read.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// No body is documented.
    None,
    /// JSON decoded into a type.
    Json(Ty),
    /// Text kept as a string.
    Text,
    /// Any other media type: the bytes as received.
    Bytes,
}

/// A documented response.
#[derive(Debug, Clone)]
pub struct ResponseDef {
    /// Statuses covered.
    pub status: StatusMatch,
    /// Variant name in the operation's response or error enum.
    pub variant: String,
    /// Rustdoc.
    pub doc: String,
    /// Body.
    pub payload: Payload,
    /// Every media type the spec lists for this answer, in spec order (for `Accept`).
    pub media: Vec<String>,
    /// JSON pointer of the schema of the JSON body, when there is one.
    pub schema: Option<String>,
    /// Whether the spec declares this answer (`false`: one the client adds, the catch-all
    /// of undocumented successes), so a server sends only declared ones.
    pub declared: bool,
    /// The headers the answer declares, in spec order, for the server half to write
    /// (lowered only with [`crate::Options::server`]: the client reads no header of its
    /// own, and the caller has them all in `Response::headers`).
    pub headers: Vec<ResponseHeader>,
    /// The name of the struct of those headers (empty when there are none): claimed
    /// among the operations' type prefixes, since `{Prefix}{Variant}Headers` of two
    /// operations can meet (`FooNot` answering `Found`, `Foo` answering `NotFound`).
    pub headers_type: String,
}

/// A header a documented answer declares (`headers`), typed as a header parameter of
/// the same schema is.
#[derive(Debug, Clone)]
pub struct ResponseHeader {
    /// Wire name, as the spec spells it.
    pub wire: String,
    /// Rust field name, unique among the answer's headers.
    pub name: String,
    /// Rustdoc.
    pub doc: String,
    /// Value type (date-times as text, as a parameter's).
    pub ty: Ty,
    /// `required: true`: every such answer carries it (else the field is an `Option`).
    pub required: bool,
    /// How the value is written.
    pub encoding: HeaderEncoding,
}

/// How a header's value is written (OpenAPI's `simple` style, or `content`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderEncoding {
    /// `simple`: a scalar as its text, a list's items joined by commas, an object's
    /// properties as `key,value,key,value` (or, exploded, `key=value,key=value`).
    Simple {
        /// `explode`.
        explode: bool,
    },
    /// `content: {application/json: …}`: the value's JSON text.
    JsonText,
}
