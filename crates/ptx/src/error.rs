//! The crate's error type: a parse error with the span of the offending token.

use crate::ast::Span;

/// A syntax error. `span` points at the offending token (length 0 at end of input).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    pub span: Span,
    pub message: String,
    /// What the parser would have accepted at `span` (e.g. "`;`"), when it knows.
    pub expected: Vec<String>,
}
