//! What can go wrong while generating, with the place in the spec it went wrong at.

use std::fmt;
use std::path::PathBuf;

/// A failure of the generator. Spec problems carry the JSON pointer of the offending node
/// and, where the text could be searched, its line, so the author can jump straight to it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The spec file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file that was asked for.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The spec is not something the generator can turn into Rust.
    #[error("{0}")]
    Spec(SpecError),
    /// Writing or comparing the output failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file being written.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The generator produced tokens that do not parse: a bug of the generator.
    #[error("internal error: generated {file} does not parse: {message}")]
    Internal {
        /// The output file being produced.
        file: String,
        /// The parser's complaint.
        message: String,
    },
}

/// A problem in the spec, located by JSON pointer (RFC 6901) and, when known, line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    /// The spec file, as given to the generator.
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

/// A spec problem before the file name and line are known; the loader completes it.
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
