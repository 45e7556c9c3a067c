//! CSV records with their line numbers, minus the profilers' non-CSV chatter, read one at a
//! time from any reader: a file is never held whole in memory.
//!
//! nvprof and Nsight Compute print `==PID==` / `==PROF==` lines around their tables; trips
//! tables allow `#` comments; blank lines are skipped. What remains are the records, each with
//! the 1-based line on which it starts (the "row" of every error message).

use std::io::Read;

use crate::ProfileError;

#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub line: usize,
    pub fields: Vec<String>,
}

/// Longest line a profiler or trips file may have: a stream without line breaks (such as
/// `/dev/zero`) is refused here instead of being buffered without end.
const MAX_LINE_BYTES: usize = 1 << 20;

/// Passes bytes through, failing once a line grows past [`MAX_LINE_BYTES`].
struct LineGuard<R> {
    inner: R,
    line: usize,
}

impl<R: Read> Read for LineGuard<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for &b in &buf[..n] {
            if b == b'\n' {
                self.line = 0;
            } else {
                self.line += 1;
                if self.line > MAX_LINE_BYTES {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("a line longer than {MAX_LINE_BYTES} bytes (not a CSV file?)"),
                    ));
                }
            }
        }
        Ok(n)
    }
}

/// The records of a CSV stream, in order.
pub(crate) struct Records<'o, R> {
    rdr: csv::Reader<LineGuard<R>>,
    rec: csv::StringRecord,
    origin: &'o str,
    failed: bool,
}

impl<'o, R: Read> Records<'o, R> {
    pub fn new(input: R, origin: &'o str) -> Self {
        Records {
            rdr: csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .from_reader(LineGuard {
                    inner: input,
                    line: 0,
                }),
            rec: csv::StringRecord::new(),
            origin,
            failed: false,
        }
    }
}

impl<R: Read> Iterator for Records<'_, R> {
    type Item = Result<Record, ProfileError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            match self.rdr.read_record(&mut self.rec) {
                Ok(false) => return None,
                Ok(true) => {}
                Err(e) => {
                    self.failed = true;
                    return Some(Err(ProfileError::Csv {
                        file: self.origin.to_string(),
                        row: e.position().map_or(0, |p| p.line() as usize),
                        message: e.to_string(),
                    }));
                }
            }
            let line = self.rec.position().map_or(0, |p| p.line() as usize);
            let first = self.rec.get(0).map(|s| s.trim()).unwrap_or("");
            // Comments are recognised here rather than by the CSV reader, whose line counter
            // skips them and would misnumber every later row.
            if first.starts_with("==") || first.starts_with('#') {
                continue;
            }
            if self.rec.iter().all(|f| f.trim().is_empty()) {
                continue;
            }
            return Some(Ok(Record {
                line,
                fields: self.rec.iter().map(str::to_string).collect(),
            }));
        }
    }
}
