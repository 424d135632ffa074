//! A problem in a spec, located by JSON pointer and line.

use std::fmt;

/// A problem in the spec, located by JSON pointer (RFC 6901) and, when known, line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    /// The spec file, as given to the reader.
    pub file: String,
    /// JSON pointer of the node at fault (`""` for the document itself).
    pub pointer: String,
    /// 1-based line of that node in the file, when it could be found.
    pub line: Option<usize>,
    /// What is wrong, in words.
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(document root)"
        } else {
            &self.pointer
        };
        match self.line {
            Some(line) => write!(f, "{}:{line}: at {pointer}: {}", self.file, self.message),
            None => write!(f, "{}: at {pointer}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for SpecError {}

/// A spec problem before the file name and line are known; [`crate::Source::error`]
/// completes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// JSON pointer of the node at fault.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl Located {
    /// A problem at `pointer`.
    pub fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

/// Appends one reference token to a JSON pointer, escaping `~` and `/` as RFC 6901 says.
pub fn push_pointer(base: &str, token: &str) -> String {
    format!("{base}/{}", token.replace('~', "~0").replace('/', "~1"))
}
