//! Reading input files with a size limit, shared by every reader of PTX, IDG JSON, suite and
//! GPU profile files: a special file such as `/dev/zero` (or a huge one) is refused after a
//! bounded read instead of exhausting memory.

use std::io::Read;
use std::path::Path;

/// Largest input file any command reads: 2^28 bytes (256 MiB). The largest bundled PTX file
/// is 9 MB.
pub const MAX_SOURCE_BYTES: u64 = 1 << 28;

/// How long opening a named pipe may wait for a program to open its other end. `<(command)`
/// is open before the tool starts; a FIFO nobody writes to would block forever.
pub const FIFO_OPEN_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Opens `path` for reading; a named pipe that no writer opens within [`FIFO_OPEN_WAIT`] is a
/// `TimedOut` error (the opening thread stays blocked; the command ends with the error).
pub fn open(path: &Path) -> std::io::Result<std::fs::File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if std::fs::metadata(path)?.file_type().is_fifo() {
            let (tx, rx) = std::sync::mpsc::channel();
            let p = path.to_path_buf();
            std::thread::spawn(move || {
                let _ = tx.send(std::fs::File::open(p));
            });
            return rx.recv_timeout(FIFO_OPEN_WAIT).unwrap_or_else(|_| {
                Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "a named pipe that no program opened for writing within {} s",
                        FIFO_OPEN_WAIT.as_secs()
                    ),
                ))
            });
        }
    }
    std::fs::File::open(path)
}

/// The bytes of `path`, or an `InvalidData` error when it holds more than `limit` bytes.
pub fn read_bytes(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("the file holds more than {limit} bytes, the limit of this kind of input"),
        ));
    }
    Ok(out)
}

/// The UTF-8 text of `path`, under [`read_bytes`]'s limit. Text that is not UTF-8 is an
/// `InvalidData` error locating the first bad byte (line and byte column, 1-based), so a user
/// finds it as a parse error would be found.
pub fn read_text(path: &Path, limit: u64) -> std::io::Result<String> {
    String::from_utf8(read_bytes(path, limit)?).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let line_start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "line {line}, column {}: byte 0x{:02x} is not UTF-8 text (inputs are UTF-8)",
                at - line_start + 1,
                bytes[at]
            ),
        )
    })
}

/// Largest TOML input (a GPU profile, a suite manifest): 4 MiB, 57 times the largest bundled
/// one (a 70 KB manifest). A TOML document takes 20-60 times its size in memory once parsed,
/// so a file of tens of MB would take gigabytes.
pub const MAX_TOML_BYTES: u64 = 1 << 22;

/// [`read_text`] with [`MAX_TOML_BYTES`]: a GPU profile or suite manifest.
pub fn read_toml(path: &Path) -> std::io::Result<String> {
    read_text(path, MAX_TOML_BYTES)
}

/// [`read_text`] with [`MAX_SOURCE_BYTES`].
pub fn read_source(path: &Path) -> std::io::Result<String> {
    read_text(path, MAX_SOURCE_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_that_is_not_utf8_is_located() {
        let dir = std::env::temp_dir().join(format!("ptx-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.ptx");
        std::fs::write(&path, b"ret;\n  ab\xffc\n").unwrap();
        let e = read_source(&path).unwrap_err().to_string();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            e,
            "line 2, column 5: byte 0xff is not UTF-8 text (inputs are UTF-8)"
        );
    }
}
