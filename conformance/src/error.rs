//! Errors that stop a run before or instead of a verdict: each maps to exit code 2.
//! One variant per kind of cause, so callers (and tests) can tell them apart.

use std::path::PathBuf;

/// A run could not be carried out as asked.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// The spec could not be read or understood (with pointer and line).
    #[error("spec error: {0}")]
    Spec(#[from] spec_model::SpecError),
    /// A response schema of the spec could not be compiled into a validator.
    #[error("spec error: {operation}: response {status} schema {problem}")]
    Schema {
        /// The operation declaring it.
        operation: String,
        /// The response status.
        status: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A contract file is malformed or names something the spec lacks.
    #[error("contract error: {file}:{line}: {message}")]
    Contract {
        /// The contract file.
        file: String,
        /// 1-based line of the offending node (0 when unknown).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Command-line or fixtures problem.
    #[error("configuration error: {0}")]
    Config(String),
    /// The embedded reference server could not start (or this build has none).
    #[error("{0}")]
    Embedded(String),
    /// The HTTP client could not be built.
    #[error("cannot build HTTP client: {0}")]
    HttpClient(#[source] reqwest::Error),
    /// The JUnit report could not be rendered.
    #[error("cannot render the JUnit report: {0}")]
    Junit(#[from] quick_junit::SerializeError),
    /// A report file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The report file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}
