//! The crate's one error type. Every variant that comes from file content names the file,
//! the 1-based row (the file's line number where the record starts) and, where a single
//! field is at fault, the 1-based column with its header name.

use thiserror::Error;

/// Where in a CSV file a problem is: file, 1-based line, and optionally the 1-based column
/// with its header name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loc {
    pub file: String,
    pub row: usize,
    pub column: Option<(usize, String)>,
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: row {}", self.file, self.row)?;
        if let Some((c, name)) = &self.column {
            write!(f, ", column {c} (`{name}`)")?;
        }
        Ok(())
    }
}

#[derive(Debug, Error)]
pub enum ProfileError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: no CSV records (the file is empty or holds only profiler log lines)")]
    Empty { file: String },
    #[error("{file}: not a recognised profiler or trips file (first record: `{first}`); expected nvprof --csv (metrics, events or --print-gpu-trace), Nsight Compute --csv (long form or --page raw), or a `kernel,loop,trips` table")]
    UnknownFormat { file: String, first: String },
    #[error("{file}: row {row}: {format} header lacks the column `{column}`")]
    MissingColumn {
        file: String,
        row: usize,
        format: &'static str,
        column: &'static str,
    },
    #[error("{file}: row {row}: malformed CSV: {message}")]
    Csv {
        file: String,
        row: usize,
        message: String,
    },
    #[error("{loc}: expected {expected} fields as in the header, found {found}")]
    RowLength {
        loc: Box<Loc>,
        expected: usize,
        found: usize,
    },
    #[error("{loc}: malformed number `{text}`")]
    BadNumber { loc: Box<Loc>, text: String },
    #[error("{loc}: unit `{unit}` is unexpected for metric `{metric}` (expected {expected})")]
    UnexpectedUnit {
        loc: Box<Loc>,
        metric: String,
        unit: String,
        expected: &'static str,
    },
    #[error("{loc}: {message}")]
    BadField { loc: Box<Loc>, message: String },
    #[error("{file}: no kernel matches `{kernel}`; the profile holds: {}", available.join("; "))]
    NoKernel {
        file: String,
        kernel: String,
        available: Vec<String>,
    },
    #[error("{file}: `{kernel}` matches several profiled kernels by name only: {}", candidates.join("; "))]
    AmbiguousKernel {
        file: String,
        kernel: String,
        candidates: Vec<String>,
    },
    #[error("{file}: kernel `{kernel}` has no {quantity} (looked for {looked_for})")]
    MissingMetric {
        file: String,
        kernel: String,
        quantity: String,
        looked_for: String,
    },
    #[error(
        "{file}: kernel `{kernel}` has {count} invocation(s); invocation {index} does not exist"
    )]
    NoInvocation {
        file: String,
        kernel: String,
        index: usize,
        count: usize,
    },
}
