//! The crate's one error type. Every profile-file error names the offending key as a dotted
//! TOML path (`classes."f32.mul".lambda`) so a user can find it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// The TOML did not parse or did not match the schema (toml's message names the key
    /// and the line).
    #[error("{origin}: {message}")]
    Toml { origin: String, message: String },
    #[error("{origin}: missing key `{key}` ({why})")]
    MissingKey {
        origin: String,
        key: String,
        why: &'static str,
    },
    #[error("{origin}: key `{key}`: {message}")]
    InvalidValue {
        origin: String,
        key: String,
        message: String,
    },
    #[error("cannot read GPU profile {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("unknown GPU `{name}`; bundled profiles: {known}")]
    UnknownGpu { name: String, known: String },
}
