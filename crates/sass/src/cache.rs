//! A disk cache of the NVIDIA tools' outputs, so that a PTX file assembled and disassembled
//! once is not assembled again.
//!
//! `nvdisasm` spends about half a second of CPU on start-up whatever the cubin's size, which
//! made the machine code the largest fixed cost of an evaluation (two suites of 26 PTX files:
//! about 10 s wall on 2 cores before a single simulation). The cache keeps what the tools
//! printed, not what this crate made of it, so a newer parser reads old entries correctly.
//!
//! **Key**: SHA-256 of the PTX text, the options (architecture, disassembler, line info) and
//! each tool's identity (path, size, modification time): a ptxas or nvdisasm that is replaced
//! or upgraded misses the cache. **Entry**: `<key>.ptxas` (ptxas' `-v` report) and
//! `<key>.sass` (the listing), each written to a temporary name and renamed into place, so a
//! reader sees a whole entry or none, also with several processes sharing the folder.
//!
//! **Where**: [`CACHE_ENV`] names the folder; unset, `$XDG_CACHE_HOME/ptx2idg/sass` or
//! `$HOME/.cache/ptx2idg/sass`; set to an empty value or `off`, nothing is cached. A cache
//! that cannot be read or written is skipped: the tools run as without it.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The environment variable that chooses the cache folder (`off` or empty: no cache).
pub const CACHE_ENV: &str = "PTX2IDG_CACHE_DIR";

/// The folder the environment chooses (see the module documentation), or None.
pub fn default_dir() -> Option<PathBuf> {
    match std::env::var_os(CACHE_ENV) {
        Some(v) if v.is_empty() || v == "off" => None,
        Some(v) => Some(PathBuf::from(v)),
        None => {
            let base = std::env::var_os("XDG_CACHE_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| {
                    std::env::var_os("HOME")
                        .filter(|v| !v.is_empty())
                        .map(|h| PathBuf::from(h).join(".cache"))
                })?;
            Some(base.join("ptx2idg").join("sass"))
        }
    }
}

/// What the tools printed for one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// ptxas' `-v` report (its standard error).
    pub report: String,
    /// The disassembler's listing.
    pub listing: String,
}

/// The key of one compilation: every input that can change the tools' output.
pub(crate) fn key(ptx: &str, options: &[&str], tools: &[&Path]) -> String {
    let mut h = Sha256::new();
    // Each part with its length first, so that no two different inputs concatenate alike.
    let mut part = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    part(ptx.as_bytes());
    for o in options {
        part(o.as_bytes());
    }
    for t in tools {
        part(t.as_os_str().as_encoded_bytes());
        // A tool that cannot be inspected gets a key no later run can share.
        let meta = std::fs::metadata(t).ok();
        let size = meta.as_ref().map_or(u64::MAX, std::fs::Metadata::len);
        let mtime = meta
            .and_then(|m| m.modified().ok())
            .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(u128::MAX, |d| d.as_nanos());
        part(&size.to_le_bytes());
        part(&mtime.to_le_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The entry stored under `key`, if both of its files are there.
pub(crate) fn load(dir: &Path, key: &str) -> Option<Entry> {
    let report = std::fs::read_to_string(dir.join(format!("{key}.ptxas"))).ok()?;
    let listing = std::fs::read_to_string(dir.join(format!("{key}.sass"))).ok()?;
    Some(Entry { report, listing })
}

/// Stores `entry` under `key`; a failure leaves the cache as it was (at worst without the
/// entry).
pub(crate) fn store(dir: &Path, key: &str, entry: &Entry) {
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    // The listing last: `load` needs both, and the report alone is never read.
    for (ext, text) in [("ptxas", &entry.report), ("sass", &entry.listing)] {
        if write_atomically(&dir.join(format!("{key}.{ext}")), text).is_err() {
            return;
        }
    }
}

fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let tmp = path.with_extension(format!(
        "tmp-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let result = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
