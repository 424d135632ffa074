//! Kinds of generation warnings, so that a user can accept some (`--allow-warning
//! free-form-object`) and still refuse the rest (`--deny-warnings`).
//!
//! Each site of the lowering that raises a warning names its kind there, and the kind
//! travels with the warning ([`Warning::kind`]): rewording a message cannot move it to
//! another kind, so what a script's `--allow-warning` accepts stays put. The test
//! `every_warning_of_the_test_specs_has_its_kind` pins how many warnings of each kind
//! every spec of the tests and the corpus gives.

use crate::error::SpecError;

/// A tolerated problem and its kind: a [`SpecError`] once generated, a
/// [`Located`](crate::error::Located) while lowering (before its line is read).
#[derive(Debug, Clone)]
pub struct Warning<P = SpecError> {
    /// What was tolerated, and where.
    pub problem: P,
    /// The kind given where the warning was raised.
    pub kind: WarningKind,
}

/// Prints the problem alone (`FILE:LINE: at POINTER: MESSAGE`); a caller that shows the
/// kind adds it, as `cargo xtask codegen` does (`[KIND]`).
impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.problem, f)
    }
}

/// The kind of a generation warning. Its [`name`](WarningKind::name) (kebab-case) is
/// stable: scripts pass it to `--allow-warning`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WarningKind {
    /// An operation or a path item is left out of the client.
    OperationLeftOut,
    /// A schema without `type`, a body, answer or parameter without `schema`, or a
    /// `type: null` alone: the value is `serde_json::Value`.
    UntypedSchema,
    /// A free-form object or free-form extra properties: values are `serde_json::Value`.
    FreeFormObject,
    /// A list without `items`, or `prefixItems` of no fixed length: items are
    /// `serde_json::Value`.
    UntypedList,
    /// A string `format` the generator does not know: a plain `String`.
    UnknownFormat,
    /// A request body media type the client cannot send.
    UnsupportedMediaType,
    /// A security scheme the client cannot send (HTTP `digest`, mutual TLS), or a
    /// requirement whose schemes cannot go in one request.
    UnsupportedSecurity,
    /// A `description`, `summary` or `title` that is not a string.
    Prose,
    /// An `example` that contradicts its schema.
    ExampleMismatch,
    /// Keys beside a `$ref` in an OpenAPI 3.0 document.
    RefSiblings,
    /// A dangling schema `$ref` read as any JSON value (`--dangling-refs-as-any`).
    DanglingRef,
    /// A union construct the generator ignores or reads loosely (a `discriminator` it
    /// cannot use, branches sharing a tag, `anyOf` beside `oneOf`).
    Union,
    /// A `default` the property's type cannot hold.
    DefaultMismatch,
    /// A path parameter the path template does not contain.
    StrayPathParameter,
    /// An `accept` header parameter the client sends itself.
    AcceptParameter,
    /// A `servers` URL the client cannot use or join.
    ServerUrl,
    /// An operation without documented responses.
    NoResponses,
    /// An `x-business-error` the client cannot check.
    BusinessError,
    /// A tag listed twice on an operation.
    DuplicateTag,
    /// A `pattern` the `regex` crate cannot read (look-around, backreferences): not
    /// checked before sending.
    UncheckedPattern,
    /// An `operationId` an earlier operation already has (OpenAPI requires them unique).
    /// The operation is kept, under the method name the first one's would get with the
    /// next free number after it, in document order (the second `getThing` is
    /// `get_thing2`, the third `get_thing3`): the rule every name clash of the generator
    /// follows ([`Scope`](crate::names::Scope)), so the name is stable as long as the
    /// operations before it keep their order.
    DuplicateOperationId,
    /// A Swagger 2.0 document read as its OpenAPI 3.0 equivalent: what its constructs
    /// became (one summary), and each conversion that loses something (`spec_model::swagger2`).
    Swagger2,
    /// Several bearer-token schemes in one security requirement, met by one token: the
    /// client sends whichever the caller set.
    SharedBearerToken,
    /// Schemes of several kinds that all send the `Authorization` header (`basic` beside a
    /// bearer token) in one security requirement, which no request can meet: the client
    /// sends whichever the caller set.
    SharedAuthorization,
    /// A `{name}` of a path template that no parameter declares, taken as a required
    /// string parameter.
    UndeclaredPathParameter,
    /// A list in `deepObject` style, which OpenAPI defines for objects only: each item
    /// goes as `name[]=item`.
    DeepObjectList,
    /// A parameter in `deepObject` style that is not an object (a union that may be one, a
    /// scalar): an object value goes as `name[key]=value`, any other as `name=value`.
    DeepObjectValue,
    /// A list of objects (or of lists) in the query, for which OpenAPI defines no
    /// encoding: the client sends the whole list as one JSON text.
    QueryJsonList,
    /// A header an answer declares that the generated server cannot write (a name that
    /// is no HTTP header name, a repeated one, a value with no text form): left out of
    /// the answer (`--server` only).
    ResponseHeaderLeftOut,
}

impl WarningKind {
    /// Every kind, in the order `--list-warning-kinds` prints them.
    pub const ALL: &[WarningKind] = &[
        WarningKind::OperationLeftOut,
        WarningKind::UntypedSchema,
        WarningKind::FreeFormObject,
        WarningKind::UntypedList,
        WarningKind::UnknownFormat,
        WarningKind::UnsupportedMediaType,
        WarningKind::UnsupportedSecurity,
        WarningKind::Prose,
        WarningKind::ExampleMismatch,
        WarningKind::RefSiblings,
        WarningKind::DanglingRef,
        WarningKind::Union,
        WarningKind::DefaultMismatch,
        WarningKind::StrayPathParameter,
        WarningKind::AcceptParameter,
        WarningKind::ServerUrl,
        WarningKind::NoResponses,
        WarningKind::BusinessError,
        WarningKind::DuplicateTag,
        WarningKind::UncheckedPattern,
        WarningKind::DuplicateOperationId,
        WarningKind::Swagger2,
        WarningKind::SharedBearerToken,
        WarningKind::SharedAuthorization,
        WarningKind::UndeclaredPathParameter,
        WarningKind::DeepObjectList,
        WarningKind::DeepObjectValue,
        WarningKind::QueryJsonList,
        WarningKind::ResponseHeaderLeftOut,
    ];

    /// The kind's stable kebab-case name (`free-form-object`).
    pub fn name(self) -> &'static str {
        match self {
            WarningKind::OperationLeftOut => "operation-left-out",
            WarningKind::UntypedSchema => "untyped-schema",
            WarningKind::FreeFormObject => "free-form-object",
            WarningKind::UntypedList => "untyped-list",
            WarningKind::UnknownFormat => "unknown-format",
            WarningKind::UnsupportedMediaType => "unsupported-media-type",
            WarningKind::UnsupportedSecurity => "unsupported-security",
            WarningKind::Prose => "prose",
            WarningKind::ExampleMismatch => "example-mismatch",
            WarningKind::RefSiblings => "ref-siblings",
            WarningKind::DanglingRef => "dangling-ref",
            WarningKind::Union => "union",
            WarningKind::DefaultMismatch => "default-mismatch",
            WarningKind::StrayPathParameter => "stray-path-parameter",
            WarningKind::AcceptParameter => "accept-parameter",
            WarningKind::ServerUrl => "server-url",
            WarningKind::NoResponses => "no-responses",
            WarningKind::BusinessError => "business-error",
            WarningKind::DuplicateTag => "duplicate-tag",
            WarningKind::UncheckedPattern => "unchecked-pattern",
            WarningKind::DuplicateOperationId => "duplicate-operation-id",
            WarningKind::Swagger2 => "swagger2",
            WarningKind::SharedBearerToken => "shared-bearer-token",
            WarningKind::SharedAuthorization => "shared-authorization",
            WarningKind::UndeclaredPathParameter => "undeclared-path-parameter",
            WarningKind::DeepObjectList => "deep-object-list",
            WarningKind::QueryJsonList => "query-json-list",
            WarningKind::DeepObjectValue => "deep-object-value",
            WarningKind::ResponseHeaderLeftOut => "response-header-left-out",
        }
    }

    /// One line saying what warnings of the kind are about.
    pub fn description(self) -> &'static str {
        match self {
            WarningKind::OperationLeftOut => "an operation or path item is left out of the client",
            WarningKind::UntypedSchema => {
                "a schema without `type` (or a body, answer or parameter without `schema`) is `serde_json::Value`"
            }
            WarningKind::FreeFormObject => {
                "a free-form object or free-form extra properties hold `serde_json::Value`"
            }
            WarningKind::UntypedList => {
                "a list without `items` (or `prefixItems` of no fixed length) holds `serde_json::Value`"
            }
            WarningKind::UnknownFormat => "an unknown string `format` is a plain `String`",
            WarningKind::UnsupportedMediaType => "a request body media type cannot be sent",
            WarningKind::UnsupportedSecurity => "a security scheme cannot be sent by the client",
            WarningKind::Prose => "a description, summary or title is not a string",
            WarningKind::ExampleMismatch => "an `example` contradicts its schema",
            WarningKind::RefSiblings => "keys beside a `$ref` in an OpenAPI 3.0 document",
            WarningKind::DanglingRef => {
                "a `$ref` that points at nothing is read as any JSON value (--dangling-refs-as-any)"
            }
            WarningKind::Union => "a union construct is ignored or read loosely",
            WarningKind::DefaultMismatch => "a `default` does not fit its property's type",
            WarningKind::StrayPathParameter => {
                "a path parameter the path template does not contain is left out"
            }
            WarningKind::AcceptParameter => {
                "an `accept` header parameter is sent by the client itself"
            }
            WarningKind::ServerUrl => "a `servers` URL cannot be used or joined",
            WarningKind::NoResponses => "an operation documents no responses",
            WarningKind::BusinessError => "an `x-business-error` cannot be checked",
            WarningKind::DuplicateTag => "a tag is listed twice",
            WarningKind::UncheckedPattern => {
                "a `pattern` the `regex` crate cannot read is not checked before sending"
            }
            WarningKind::DuplicateOperationId => {
                "an `operationId` used twice: the later operation's method takes a number"
            }
            WarningKind::Swagger2 => {
                "a Swagger 2.0 construct is read as its OpenAPI 3.0 equivalent"
            }
            WarningKind::DeepObjectList => {
                "a list in `deepObject` style goes as `name[]=item` (OpenAPI defines the style for objects only)"
            }
            WarningKind::SharedBearerToken => {
                "bearer-token schemes required together are met by one token"
            }
            WarningKind::SharedAuthorization => {
                "schemes required together that all send `Authorization` are met by whichever credential is set"
            }
            WarningKind::UndeclaredPathParameter => {
                "a path template's `{name}` that no parameter declares is taken as a required string"
            }
            WarningKind::DeepObjectValue => {
                "a `deepObject` parameter that is not an object goes as `name=value` (or pairs when its value is one)"
            }
            WarningKind::QueryJsonList => {
                "a list of objects in the query goes as one JSON text (OpenAPI defines no encoding for it)"
            }
            WarningKind::ResponseHeaderLeftOut => {
                "a header an answer declares is left out of the generated server's answer"
            }
        }
    }

    /// The kind named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<WarningKind> {
        WarningKind::ALL.iter().copied().find(|k| k.name() == name)
    }
}

impl std::fmt::Display for WarningKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        let mut names: Vec<&str> = WarningKind::ALL.iter().map(|k| k.name()).collect();
        for kind in WarningKind::ALL {
            assert_eq!(WarningKind::from_name(kind.name()), Some(*kind));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), WarningKind::ALL.len());
        assert_eq!(WarningKind::from_name("free-form"), None);
    }
}
