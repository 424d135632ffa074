//! The subset of the OpenAPI 3.0/3.1 object model the generator reads, as serde types.
//!
//! Almost every field is optional here even where OpenAPI requires it: the lowering step
//! reports a missing field with its JSON pointer, which is far more useful than serde's
//! "missing field" without a place. Unknown keys (examples, vendor extensions the generator
//! does not use) are ignored.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use crate::extensions::{
    BodyLimit, BusinessError, ConstraintLevels, Constructor, Effect, EncodingLevels, Level,
    MistypedInput, NonBmp, Penalty, Rejection, RejectionResponse, RejectionShape, Rule, RustName,
    ServerErrors, TokenRefresh, UndeclaredRoute, UndeclaredStatus,
};

/// Prose that OpenAPI says is a string (`summary`, `description`). Real-world documents
/// sometimes put something else there (`description: {$ref: ./notes.md}`); the value is
/// kept, so the reader can warn at the node instead of refusing the whole document.
#[derive(Debug, Clone, PartialEq)]
pub enum Text {
    /// A string, as OpenAPI requires.
    String(String),
    /// Any other JSON value.
    NotAString(Value),
}

impl Text {
    /// The string, or `None` when the value was not one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Text::String(s) => Some(s),
            Text::NotAString(_) => None,
        }
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(deserializer)? {
            Value::String(s) => Text::String(s),
            other => Text::NotAString(other),
        })
    }
}

/// The document root.
#[derive(Debug, Deserialize)]
pub struct OpenApi {
    /// `3.0.x` or `3.1.x`.
    pub openapi: Option<String>,
    /// Swagger 2.0 documents carry this instead of `openapi`.
    pub swagger: Option<Value>,
    /// Title, version and description.
    #[serde(default)]
    pub info: Info,
    /// Where the API is served, the first preferred.
    #[serde(default)]
    pub servers: Vec<Server>,
    /// Operations by path.
    #[serde(default)]
    pub paths: IndexMap<String, PathItem>,
    /// Reusable objects.
    #[serde(default)]
    pub components: Components,
    /// Security requirements in force where an operation names none.
    pub security: Option<Vec<IndexMap<String, Vec<String>>>>,
    /// Unit of `maxLength`/`minLength` (`x-length-unit`): `unicode-scalar` (default),
    /// `utf-16` or `byte`.
    #[serde(rename = "x-length-unit")]
    pub length_unit: Option<String>,
    /// `x-server-errors`: statuses no answer may have.
    #[serde(rename = "x-server-errors")]
    pub server_errors: Option<ServerErrors>,
    /// `x-unknown-path`: the answer to a path the spec does not declare.
    #[serde(rename = "x-unknown-path")]
    pub unknown_path: Option<UndeclaredRoute>,
    /// `x-undeclared-method`: the answer to a method a declared path does not take.
    #[serde(rename = "x-undeclared-method")]
    pub undeclared_method: Option<UndeclaredRoute>,
    /// `x-undeclared-status`: the level of an answer with a status its operation does not
    /// declare.
    #[serde(rename = "x-undeclared-status")]
    pub undeclared_status: Option<UndeclaredStatus>,
    /// `x-max-body`: the request-body limit.
    #[serde(rename = "x-max-body")]
    pub max_body: Option<BodyLimit>,
    /// `x-non-bmp`: the level of verdicts on characters outside the BMP.
    #[serde(rename = "x-non-bmp")]
    pub non_bmp: Option<NonBmp>,
    /// `x-mistyped-input`: the levels of rejecting coercible and unreadable mistyped inputs.
    #[serde(rename = "x-mistyped-input")]
    pub mistyped_input: Option<MistypedInput>,
    /// What reading the document changed (a Swagger 2.0 document's conversion,
    /// [`crate::swagger2`]), for a reader to show as warnings; empty for OpenAPI 3.
    #[serde(skip)]
    pub notes: Vec<crate::error::Located>,
}

/// A `servers` entry.
#[derive(Debug, Default, Deserialize)]
pub struct Server {
    /// The URL: absolute, or relative to where the document is served (`/api`); may
    /// hold `{variables}`.
    pub url: Option<Text>,
    /// What the server is.
    pub description: Option<Text>,
    /// The values of the URL's `{variables}`.
    #[serde(default)]
    pub variables: IndexMap<String, ServerVariable>,
}

/// A variable of a server URL.
#[derive(Debug, Default, Deserialize)]
pub struct ServerVariable {
    /// The value used when none is chosen.
    pub default: Option<Text>,
}

/// The `info` object.
#[derive(Debug, Default, Deserialize)]
pub struct Info {
    /// API title.
    pub title: Option<Text>,
    /// API version.
    pub version: Option<String>,
    /// 3.1's one-line summary.
    pub summary: Option<Text>,
    /// Longer description (Markdown).
    pub description: Option<Text>,
}

/// A path item: operations per method plus parameters shared by them.
#[derive(Debug, Default, Deserialize)]
pub struct PathItem {
    /// A `$ref` path item, which the generator does not follow.
    #[serde(rename = "$ref")]
    pub reference: Option<String>,
    /// Parameters of every operation of the path.
    #[serde(default)]
    pub parameters: Vec<Parameter>,
    /// Summary of every operation of the path.
    pub summary: Option<Text>,
    /// Description of every operation of the path.
    pub description: Option<Text>,
    /// GET.
    pub get: Option<Operation>,
    /// PUT.
    pub put: Option<Operation>,
    /// POST.
    pub post: Option<Operation>,
    /// DELETE.
    pub delete: Option<Operation>,
    /// OPTIONS.
    pub options: Option<Operation>,
    /// HEAD.
    pub head: Option<Operation>,
    /// PATCH.
    pub patch: Option<Operation>,
    /// TRACE.
    pub trace: Option<Operation>,
}

impl PathItem {
    /// The operations present, in a fixed method order, with their lower-case method name.
    pub fn operations(&self) -> Vec<(&'static str, &Operation)> {
        [
            ("get", &self.get),
            ("put", &self.put),
            ("post", &self.post),
            ("delete", &self.delete),
            ("options", &self.options),
            ("head", &self.head),
            ("patch", &self.patch),
            ("trace", &self.trace),
        ]
        .into_iter()
        .filter_map(|(m, op)| op.as_ref().map(|op| (m, op)))
        .collect()
    }
}

/// An operation.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Operation {
    /// Becomes the method name.
    pub operation_id: Option<String>,
    /// First line of the method's rustdoc.
    pub summary: Option<Text>,
    /// Rest of the method's rustdoc.
    pub description: Option<Text>,
    /// Tags (each may be listed once).
    #[serde(default)]
    pub tags: Vec<Value>,
    /// Operation parameters (override path-level ones of the same name and location).
    #[serde(default)]
    pub parameters: Vec<Parameter>,
    /// The request body.
    pub request_body: Option<RequestBody>,
    /// Responses by status code (`200`, `4XX`, `default`).
    #[serde(default)]
    pub responses: IndexMap<String, Response>,
    /// Security requirements; `[]` means none.
    pub security: Option<Vec<IndexMap<String, Vec<String>>>>,
    /// Deprecated operations get `#[deprecated]`.
    #[serde(default)]
    pub deprecated: bool,
    /// `x-rules`: semantic rules every answer must satisfy.
    #[serde(default, rename = "x-rules")]
    pub rules: Vec<Rule>,
    /// `x-business-error`: fields of a 2xx body that report a failure when non-empty.
    #[serde(rename = "x-business-error")]
    pub business_error: Option<BusinessError>,
    /// `x-penalty`: how a 2xx body says "wait, then send again with this ticket".
    #[serde(rename = "x-penalty")]
    pub penalty: Option<Penalty>,
    /// `x-effect`: what a request does to the server's state, where method and words
    /// would mislead.
    #[serde(rename = "x-effect")]
    pub effect: Option<Effect>,
}

/// A parameter (or a `$ref` to one).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Parameter {
    /// Reference to `#/components/parameters/...`.
    #[serde(rename = "$ref")]
    pub reference: Option<String>,
    /// Wire name.
    pub name: Option<String>,
    /// `query`, `path`, `header` or `cookie`.
    #[serde(rename = "in")]
    pub location: Option<String>,
    /// Rustdoc of the argument.
    pub description: Option<Text>,
    /// Whether the argument is mandatory.
    #[serde(default)]
    pub required: bool,
    /// The value's schema.
    pub schema: Option<Schema>,
    /// `content` instead of `schema`: one media type and its schema, as read by the
    /// generator (JSON text in the query string).
    pub content: Option<Value>,
    /// Serialization style (`form`, `simple`, `spaceDelimited`, `pipeDelimited`, ...).
    pub style: Option<String>,
    /// Whether arrays repeat the name (`a=1&a=2`) or join the values (`a=1,2`).
    pub explode: Option<bool>,
    /// Deprecated parameters are documented as such.
    #[serde(default)]
    pub deprecated: bool,
    /// `x-alternate-encodings`: other encodings servers accept besides the declared one.
    #[serde(default, rename = "x-alternate-encodings")]
    pub alternate_encodings: Vec<AlternateEncoding>,
    /// `x-encoding-levels`: the levels of answering any encoding and the declared one.
    #[serde(rename = "x-encoding-levels")]
    pub encoding_levels: Option<EncodingLevels>,
    /// `x-rust-name`: the argument's Rust name where the wire name is cryptic (`t`); the
    /// wire keeps the parameter's `name`.
    #[serde(rename = "x-rust-name")]
    pub rust_name: Option<RustName>,
}

/// One entry of `x-alternate-encodings`.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct AlternateEncoding {
    /// Serialization style.
    pub style: Option<String>,
    /// Whether arrays repeat the name.
    pub explode: Option<bool>,
    /// `must` or `should`.
    pub level: Option<Level>,
    /// The decision row behind it.
    pub decision: Option<Value>,
}

/// A request body (or a `$ref` to one).
#[derive(Debug, Default, Clone, Deserialize)]
pub struct RequestBody {
    /// Reference to `#/components/requestBodies/...`.
    #[serde(rename = "$ref")]
    pub reference: Option<String>,
    /// Rustdoc of the argument.
    pub description: Option<Text>,
    /// Media types and their schemas.
    #[serde(default)]
    pub content: IndexMap<String, MediaType>,
    /// Whether the body is mandatory.
    #[serde(default)]
    pub required: bool,
}

/// A response (or a `$ref` to one).
#[derive(Debug, Default, Clone, Deserialize)]
pub struct Response {
    /// Reference to `#/components/responses/...`.
    #[serde(rename = "$ref")]
    pub reference: Option<String>,
    /// What the response means.
    pub description: Option<Text>,
    /// Media types and their schemas.
    #[serde(default)]
    pub content: IndexMap<String, MediaType>,
    /// The headers the answer carries, by name (each a [`Header`] or a `$ref` to one in
    /// `components.headers`). OpenAPI says a `Content-Type` entry is ignored (the media
    /// type is `content`'s key): it is kept here as written, and the readers skip it.
    #[serde(default)]
    pub headers: IndexMap<String, Header>,
    /// `x-level`: `must` (the interface document's) or `should` (a project decision).
    #[serde(rename = "x-level")]
    pub level: Option<Level>,
    /// `x-decision`: the decision row behind a `should`.
    #[serde(rename = "x-decision")]
    pub decision: Option<Value>,
}

/// A response header (OpenAPI's Header Object), or a `$ref` to one: a parameter without
/// `name` and `in` (the name is its key in the response's `headers`, the place the
/// answer's headers).
#[derive(Debug, Default, Clone, Deserialize)]
pub struct Header {
    /// Reference to `#/components/headers/...`.
    #[serde(rename = "$ref")]
    pub reference: Option<String>,
    /// What the header says.
    pub description: Option<Text>,
    /// Whether every such answer carries the header.
    #[serde(default)]
    pub required: bool,
    /// Deprecated headers are documented as such.
    #[serde(default)]
    pub deprecated: bool,
    /// The value's schema.
    pub schema: Option<Schema>,
    /// `content` instead of `schema`: one media type and its schema, kept as JSON as a
    /// parameter's is.
    pub content: Option<Value>,
    /// Serialization style: `simple`, the only one OpenAPI defines for headers.
    pub style: Option<String>,
    /// Whether an object's properties go as `key=value` pairs (`true`) or alternate
    /// keys and values (`false`, the default).
    pub explode: Option<bool>,
}

/// One media type of a body.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct MediaType {
    /// The body's schema.
    pub schema: Option<Schema>,
    /// `x-level`: how binding support for this media type is.
    #[serde(rename = "x-level")]
    pub level: Option<Level>,
    /// `x-decision`: the decision row behind a `should`.
    #[serde(rename = "x-decision")]
    pub decision: Option<Value>,
}

/// `components`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Components {
    /// Named schemas: each becomes a type.
    #[serde(default)]
    pub schemas: IndexMap<String, Schema>,
    /// Named responses.
    #[serde(default)]
    pub responses: IndexMap<String, Response>,
    /// Named parameters.
    #[serde(default)]
    pub parameters: IndexMap<String, Parameter>,
    /// Named request bodies.
    #[serde(default)]
    pub request_bodies: IndexMap<String, RequestBody>,
    /// Named response headers.
    #[serde(default)]
    pub headers: IndexMap<String, Header>,
    /// Named security schemes.
    #[serde(default)]
    pub security_schemes: IndexMap<String, SecurityScheme>,
}

/// A security scheme.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct SecurityScheme {
    /// `http`, `apiKey`, `oauth2`, `openIdConnect`, `mutualTLS`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// For `http`: `bearer`, `basic`, ...
    pub scheme: Option<String>,
    /// For `apiKey`: where the key goes, `header`, `query` or `cookie`.
    #[serde(rename = "in")]
    pub location: Option<String>,
    /// For `apiKey`: the name of the header, query parameter or cookie.
    pub name: Option<String>,
    /// What the credential is and how to obtain it.
    pub description: Option<Text>,
    /// For `http` `bearer`: a hint at the token's format (`JWT`).
    #[serde(rename = "bearerFormat")]
    pub bearer_format: Option<String>,
    /// `x-rejection`: what a server never answers to a request without valid credentials.
    #[serde(rename = "x-rejection")]
    pub rejection: Option<Rejection>,
    /// `x-rejection-response`: the answer expected to such a request.
    #[serde(rename = "x-rejection-response")]
    pub rejection_response: Option<RejectionResponse>,
    /// `x-token-refresh`: how the token is renewed through the spec's token operation.
    #[serde(rename = "x-token-refresh")]
    pub token_refresh: Option<TokenRefresh>,
}

/// `type`: one name (3.0 and 3.1) or a list of names (3.1, e.g. `[string, "null"]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum SchemaType {
    /// `type: string`.
    One(String),
    /// `type: [string, "null"]`.
    Many(Vec<String>),
}

/// `additionalProperties`: a flag or a schema.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum AdditionalProperties {
    /// `true` / `false`.
    Flag(bool),
    /// The schema of every extra value.
    Schema(Box<Schema>),
}

/// A schema object (or a `$ref`, which may have siblings in 3.1).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Schema {
    /// Reference to `#/components/schemas/...`.
    #[serde(rename = "$ref")]
    pub reference: Option<String>,
    /// The JSON type(s).
    #[serde(rename = "type")]
    pub kind: Option<SchemaType>,
    /// `int32`, `int64`, `double`, `date-time`, ...
    pub format: Option<String>,
    /// 3.0's way to allow `null`.
    #[serde(default)]
    pub nullable: bool,
    /// Short name; used as rustdoc when there is no description.
    pub title: Option<Text>,
    /// Rustdoc.
    pub description: Option<Text>,
    /// Object properties, in spec order.
    #[serde(default)]
    pub properties: IndexMap<String, Schema>,
    /// Names of the required properties.
    #[serde(default)]
    pub required: Vec<String>,
    /// Array items.
    pub items: Option<Box<Schema>>,
    /// `prefixItems` (3.1): the schemas of the leading items of a list, in order (a tuple
    /// when `minItems` and `maxItems` fix the length to theirs).
    #[serde(default)]
    pub prefix_items: Vec<Schema>,
    /// Map values.
    pub additional_properties: Option<AdditionalProperties>,
    /// Allowed values.
    #[serde(rename = "enum")]
    pub enumeration: Option<Vec<Value>>,
    /// A single allowed value.
    #[serde(rename = "const")]
    pub constant: Option<Value>,
    /// Composition: all of.
    #[serde(default)]
    pub all_of: Vec<Schema>,
    /// Composition: one of.
    #[serde(default)]
    pub one_of: Vec<Schema>,
    /// Composition: any of.
    #[serde(default)]
    pub any_of: Vec<Schema>,
    /// Longest allowed string.
    pub max_length: Option<u64>,
    /// Shortest allowed string.
    pub min_length: Option<u64>,
    /// A regular expression (ECMA-262 dialect) a string must match somewhere.
    pub pattern: Option<String>,
    /// Smallest allowed number.
    pub minimum: Option<f64>,
    /// Largest allowed number.
    pub maximum: Option<f64>,
    /// Fewest allowed array items.
    pub min_items: Option<u64>,
    /// Most allowed array items.
    pub max_items: Option<u64>,
    /// Deprecated schemas and properties are documented as such.
    #[serde(default)]
    pub deprecated: bool,
    /// `x-secret: true`: the value is a credential and never shows in `Debug`.
    #[serde(default, rename = "x-secret")]
    pub secret: bool,
    /// `x-combined-max-length`: a length limit on the sum of several string fields.
    #[serde(default, rename = "x-combined-max-length")]
    pub combined_max_length: Vec<CombinedMaxLength>,
    /// `x-constructors`: named ways to build a request model (see [`Constructor`]).
    #[serde(default, rename = "x-constructors")]
    pub constructors: Vec<Constructor>,
    /// `x-constraint-levels`: the level of single validation keywords (default MUST).
    #[serde(default, rename = "x-constraint-levels")]
    pub constraint_levels: ConstraintLevels,
    /// `x-level`: how binding the schema as a whole is.
    #[serde(rename = "x-level")]
    pub level: Option<Level>,
    /// `x-decision`: the decision row behind a `should`.
    #[serde(rename = "x-decision")]
    pub decision: Option<Value>,
    /// Which property tells the branches of a `oneOf`/`anyOf` apart.
    pub discriminator: Option<Discriminator>,
    /// The value a consumer assumes when the property is absent.
    pub default: Option<Value>,
    /// Sent by the server only (`readOnly: true`).
    #[serde(default)]
    pub read_only: bool,
    /// Sent by the client only (`writeOnly: true`).
    #[serde(default)]
    pub write_only: bool,
    /// An example value (3.0's `example`, deprecated but kept by 3.1).
    pub example: Option<Value>,
    /// Example values (3.1's `examples`, a list).
    pub examples: Option<Value>,
}

impl Schema {
    /// The `description`, when it is a string.
    pub fn description(&self) -> Option<&str> {
        self.description.as_ref().and_then(Text::as_str)
    }

    /// The `title`, when it is a string.
    pub fn title(&self) -> Option<&str> {
        self.title.as_ref().and_then(Text::as_str)
    }
}

/// A `discriminator` object.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Discriminator {
    /// The property whose value names the branch.
    pub property_name: Option<String>,
    /// Property value to `$ref` of the branch, where it is not the component's name.
    #[serde(default)]
    pub mapping: IndexMap<String, String>,
}

/// One `x-combined-max-length` rule.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct CombinedMaxLength {
    /// Wire names of the fields whose lengths add up.
    #[serde(default)]
    pub fields: Vec<String>,
    /// The largest allowed sum.
    pub max: Option<u64>,
    /// Length unit; defaults to the document's `x-length-unit`.
    pub unit: Option<String>,
    /// Rustdoc of the rule.
    pub description: Option<String>,
    /// How binding the limit is.
    #[serde(default)]
    pub level: Level,
    /// The decision row behind it.
    pub decision: Option<Value>,
    /// How a server answers a breach, when the spec fixes it.
    pub rejection: Option<RejectionShape>,
}
