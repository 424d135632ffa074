//! Errors that stop a run before or instead of a verdict: each maps to exit code 2.

/// A run could not be carried out as asked.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// The spec could not be read or understood (with pointer and line).
    #[error("spec error: {0}")]
    Spec(#[from] spec_model::SpecError),
    /// A schema of the spec could not be compiled into a validator.
    #[error("spec error: {0}")]
    Schema(String),
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
    /// The embedded server or the report files failed.
    #[error("{0}")]
    Io(String),
}
