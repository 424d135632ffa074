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
///
/// The lowering builds a pointer for nearly every node it visits (tens of thousands on a
/// large spec, for the warnings a few of them get); through `format!` and two `replace`s
/// that was a twentieth of the generator's instructions. One allocation of the right
/// size, and a copy of the token as it is when it has nothing to escape (most do not).
pub fn push_pointer(base: &str, token: &str) -> String {
    let mut pointer = String::with_capacity(base.len() + 1 + token.len());
    pointer.push_str(base);
    pointer.push('/');
    if !token.bytes().any(|b| b == b'~' || b == b'/') {
        pointer.push_str(token);
        return pointer;
    }
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
    pointer
}

#[cfg(test)]
mod tests {
    use super::push_pointer;

    #[test]
    fn a_token_is_escaped_only_where_rfc_6901_says() {
        assert_eq!(push_pointer("/paths", "/a~b/{id}"), "/paths/~1a~0b~1{id}");
        assert_eq!(push_pointer("", "components"), "/components");
        assert_eq!(push_pointer("/x", "é~"), "/x/é~0");
    }
}
