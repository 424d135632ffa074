//! Why a mock could not be built: the document could not be read, or one of its nodes
//! cannot be served. Each error names the node (file, line where known, JSON pointer), so
//! the fix starts where the problem is.

/// A document the mock cannot serve.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The reader refused the document (syntax, version, a bad `$ref`), at a node.
    #[error("{0}")]
    Spec(#[from] spec_model::SpecError),
    /// A node the reader accepted but the mock cannot serve.
    #[error("{file}: #{pointer}: {message}")]
    Node {
        /// The document's name.
        file: String,
        /// JSON pointer of the node at fault.
        pointer: String,
        /// What is wrong with it.
        message: String,
    },
    /// The listener could not be opened or failed while serving.
    #[error("cannot serve: {0}")]
    Io(#[from] std::io::Error),
}
