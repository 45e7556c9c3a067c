//! Reading input files with a size limit, shared by every reader of PTX, IDG JSON, suite and
//! GPU profile files: a special file such as `/dev/zero` (or a huge one) is refused after a
//! bounded read instead of exhausting memory.

use std::io::Read;
use std::path::Path;

/// Largest input file any command reads: 2^28 bytes (256 MiB). The largest bundled PTX file
/// is 9 MB.
pub const MAX_SOURCE_BYTES: u64 = 1 << 28;

/// The bytes of `path`, or an `InvalidData` error when it holds more than `limit` bytes.
pub fn read_bytes(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    std::fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("the file holds more than {limit} bytes, the input limit"),
        ));
    }
    Ok(out)
}

/// The UTF-8 text of `path`, under [`read_bytes`]'s limit.
pub fn read_text(path: &Path, limit: u64) -> std::io::Result<String> {
    String::from_utf8(read_bytes(path, limit)?).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// [`read_text`] with [`MAX_SOURCE_BYTES`].
pub fn read_source(path: &Path) -> std::io::Result<String> {
    read_text(path, MAX_SOURCE_BYTES)
}
