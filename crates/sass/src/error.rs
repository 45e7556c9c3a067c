//! The crate's parse error: a 1-based line and column in the text read, and a message.
//! Tool failures (a missing `ptxas`, a failed run) are [`crate::tools::ToolError`].

use serde::Serialize;

/// A syntax error in a listing or a resource report. `col` counts characters from 1; a
/// column one past the line's end means "at the end of the line".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl ParseError {
    /// An error at byte `offset` of `line_text`, which is line `line`.
    pub(crate) fn at(
        line: u32,
        line_text: &str,
        offset: usize,
        message: impl Into<String>,
    ) -> Self {
        let offset = offset.min(line_text.len());
        // Columns count characters, so that an editor's column agrees on non-ASCII text.
        let col = line_text
            .get(..offset)
            .map_or(offset, |s| s.chars().count());
        ParseError {
            line,
            col: u32::try_from(col).unwrap_or(u32::MAX).saturating_add(1),
            message: message.into(),
        }
    }
}

/// The byte offset of `sub` within `whole`; `sub` must be a slice of `whole` (as every
/// `trim`, `strip_prefix` and parser remainder is), else the result is clamped to the ends.
pub(crate) fn offset_of(whole: &str, sub: &str) -> usize {
    (sub.as_ptr() as usize)
        .saturating_sub(whole.as_ptr() as usize)
        .min(whole.len())
}
