//! `error.rs`: the error types every generated client shares. Nothing here depends on
//! the spec; it is emitted so the generated crate needs no support library.

use proc_macro2::TokenStream;
use quote::quote;

/// The tokens of `error.rs`.
pub fn emit() -> TokenStream {
    quote! {
        //! Why a call failed, and the constraint checks derived from the spec.

        use std::fmt;

        /// Why a client call did not produce its documented success value.
        ///
        /// `E` is the operation's enum of documented error responses. `Debug` and `Display`
        /// never print raw bodies (they may hold credentials); read the `body` fields for
        /// those.
        pub enum Error<E> {
            /// The request could not be sent or the response not read (connection refused,
            /// TLS, timeout, an invalid base URL).
            Transport(reqwest::Error),
            /// The client's token source could not supply a bearer token; nothing was
            /// sent.
            Token(TokenError),
            /// The request breaks a constraint of the spec and was not sent.
            Constraint(ConstraintViolation),
            /// The server answered with a documented error status; the body is decoded.
            Response(E),
            /// The server answered with a status the spec does not document for this
            /// operation.
            UnexpectedStatus {
                /// The HTTP status.
                status: u16,
                /// The body as received (invalid UTF-8 replaced).
                body: String,
            },
            /// The answer's body is longer than the client's cap
            /// (`Client::set_max_response_bytes`); it was not read to the end.
            BodyTooLarge {
                /// The HTTP status.
                status: u16,
                /// The cap, in bytes.
                limit: usize,
            },
            /// The server answered with a documented status whose body is not the
            /// documented type.
            Decode {
                /// The HTTP status.
                status: u16,
                /// The body as received (invalid UTF-8 replaced).
                body: String,
                /// Why the body does not decode.
                source: serde_json::Error,
            },
        }

        /// A documented error answer of one operation: the `E` of [`Error`]. Every
        /// generated `…Error` enum of the client implements it.
        pub trait DocumentedError {
            /// The HTTP status of the answer.
            fn status(&self) -> u16;
        }

        impl<E: DocumentedError> Error<E> {
            /// The HTTP status of the answer, when there was one.
            pub fn status(&self) -> Option<u16> {
                match self {
                    Error::Transport(e) => e.status().map(|s| s.as_u16()),
                    Error::Constraint(_) | Error::Token(_) => None,
                    Error::Response(e) => Some(e.status()),
                    Error::UnexpectedStatus { status, .. }
                    | Error::BodyTooLarge { status, .. }
                    | Error::Decode { status, .. } => Some(*status),
                }
            }
        }

        impl<E: fmt::Debug> fmt::Debug for Error<E> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    Error::Transport(e) => f.debug_tuple("Transport").field(e).finish(),
                    Error::Constraint(v) => f.debug_tuple("Constraint").field(v).finish(),
                    Error::Token(e) => f.debug_tuple("Token").field(e).finish(),
                    Error::Response(e) => f.debug_tuple("Response").field(e).finish(),
                    Error::UnexpectedStatus { status, body } => f
                        .debug_struct("UnexpectedStatus")
                        .field("status", status)
                        .field("body_bytes", &body.len())
                        .finish(),
                    Error::BodyTooLarge { status, limit } => f
                        .debug_struct("BodyTooLarge")
                        .field("status", status)
                        .field("limit", limit)
                        .finish(),
                    Error::Decode { status, body, source } => f
                        .debug_struct("Decode")
                        .field("status", status)
                        .field("body_bytes", &body.len())
                        .field("source", &format_args!("{}", json_error_summary(source)))
                        .finish(),
                }
            }
        }

        impl<E: fmt::Debug> fmt::Display for Error<E> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    Error::Transport(e) => write!(f, "request failed: {e}"),
                    Error::Constraint(v) => write!(f, "request not sent: {v}"),
                    Error::Token(e) => write!(f, "request not sent: {e}"),
                    Error::Response(e) => write!(f, "error response: {e:?}"),
                    Error::UnexpectedStatus { status, body } => {
                        write!(f, "undocumented status {status} ({} bytes of body)", body.len())
                    }
                    Error::BodyTooLarge { status, limit } => {
                        write!(f, "status {status}: body longer than the cap of {limit} bytes")
                    }
                    Error::Decode { status, source, .. } => {
                        write!(f, "status {status}: body does not decode: {}", json_error_summary(source))
                    }
                }
            }
        }

        impl<E: fmt::Debug> std::error::Error for Error<E> {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                match self {
                    Error::Transport(e) => Some(e),
                    Error::Constraint(v) => Some(v),
                    Error::Token(e) => Some(e),
                    // serde_json's message quotes the offending value, which may be a
                    // credential; it stays in the `source` field for whoever wants it.
                    Error::Response(_)
                    | Error::UnexpectedStatus { .. }
                    | Error::BodyTooLarge { .. }
                    | Error::Decode { .. } => None,
                }
            }
        }

        /// Where and what kind of JSON error, without serde_json's message (which quotes
        /// the offending value).
        fn json_error_summary(e: &serde_json::Error) -> String {
            let kind = match e.classify() {
                serde_json::error::Category::Io => "an I/O error",
                serde_json::error::Category::Syntax => "not JSON",
                serde_json::error::Category::Data => "a value of the wrong type or shape",
                serde_json::error::Category::Eof => "the body ends early",
            };
            format!("{kind} at line {} column {}", e.line(), e.column())
        }

        /// A value that breaks a constraint of the spec.
        #[derive(Clone, Debug, PartialEq)]
        pub struct ConstraintViolation {
            /// Wire names of the field(s) or parameter(s) at fault: one for a single-field
            /// constraint, all of them for a combined rule.
            pub fields: Vec<&'static str>,
            /// The constraint, its limit and the value's measure.
            pub constraint: Constraint,
        }

        impl ConstraintViolation {
            /// Whether a rule over several fields was broken (`x-combined-max-length`)
            /// rather than a constraint of one field.
            pub fn is_combined(&self) -> bool {
                matches!(self.constraint, Constraint::CombinedMaxLength { .. })
            }
        }

        impl fmt::Display for ConstraintViolation {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let fields = self.fields.join(" + ");
                match &self.constraint {
                    Constraint::MaxLength { max, actual } => {
                        write!(f, "{fields}: length {actual} is over maxLength {max}")
                    }
                    Constraint::MinLength { min, actual } => {
                        write!(f, "{fields}: length {actual} is under minLength {min}")
                    }
                    Constraint::CombinedMaxLength { max, actual } => {
                        write!(f, "{fields}: combined length {actual} is over {max}")
                    }
                    Constraint::Minimum { min, actual } => {
                        write!(f, "{fields}: {actual} is under minimum {min}")
                    }
                    Constraint::Maximum { max, actual } => {
                        write!(f, "{fields}: {actual} is over maximum {max}")
                    }
                    Constraint::MinItems { min, actual } => {
                        write!(f, "{fields}: {actual} items is under minItems {min}")
                    }
                    Constraint::MaxItems { max, actual } => {
                        write!(f, "{fields}: {actual} items is over maxItems {max}")
                    }
                }
            }
        }

        impl std::error::Error for ConstraintViolation {}

        /// Which constraint was broken. Lengths are counted in the unit the spec names
        /// (Unicode scalar values unless it says otherwise).
        #[derive(Clone, Debug, PartialEq)]
        pub enum Constraint {
            /// `maxLength` of one string.
            MaxLength {
                /// The limit.
                max: u64,
                /// The value's length.
                actual: u64,
            },
            /// `minLength` of one string.
            MinLength {
                /// The limit.
                min: u64,
                /// The value's length.
                actual: u64,
            },
            /// `x-combined-max-length`: the lengths of several strings added up.
            CombinedMaxLength {
                /// The limit.
                max: u64,
                /// The sum of the lengths.
                actual: u64,
            },
            /// `minimum` of a number.
            Minimum {
                /// The limit.
                min: f64,
                /// The value.
                actual: f64,
            },
            /// `maximum` of a number.
            Maximum {
                /// The limit.
                max: f64,
                /// The value.
                actual: f64,
            },
            /// `minItems` of a list.
            MinItems {
                /// The limit.
                min: u64,
                /// The number of items.
                actual: u64,
            },
            /// `maxItems` of a list.
            MaxItems {
                /// The limit.
                max: u64,
                /// The number of items.
                actual: u64,
            },
        }

        /// A bearer token that cannot be sent: it holds characters an HTTP header cannot.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct InvalidBearerToken;

        impl fmt::Display for InvalidBearerToken {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the bearer token contains characters an HTTP header cannot carry")
            }
        }

        impl std::error::Error for InvalidBearerToken {}

        /// Why a token source (`client::TokenSource`) has no token to give: the refresh
        /// failed, or a token it got cannot be sent. Shows no token.
        #[derive(Debug)]
        pub struct TokenError {
            source: Box<dyn std::error::Error + Send + Sync>,
        }

        impl TokenError {
            /// Wraps why the source failed (an error or a message); its `Display` must
            /// not show a token.
            pub fn new(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
                Self { source: source.into() }
            }
        }

        impl fmt::Display for TokenError {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "no bearer token: {}", self.source)
            }
        }

        impl std::error::Error for TokenError {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&*self.source)
            }
        }
    }
}
