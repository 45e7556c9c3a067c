//! CSV records with their line numbers, minus the profilers' non-CSV chatter.
//!
//! nvprof and Nsight Compute print `==PID==` / `==PROF==` lines around their tables; trips
//! tables allow `#` comments; blank lines are skipped. What remains are the records, each with
//! the 1-based line on which it starts (the "row" of every error message).

use crate::ProfileError;

#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub line: usize,
    pub fields: Vec<String>,
}

pub(crate) fn records(text: &str, origin: &str) -> Result<Vec<Record>, ProfileError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut out = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| ProfileError::Csv {
            file: origin.to_string(),
            row: e.position().map_or(0, |p| p.line() as usize),
            message: e.to_string(),
        })?;
        let line = rec.position().map_or(0, |p| p.line() as usize);
        let fields: Vec<String> = rec.iter().map(str::to_string).collect();
        let first = fields.first().map(|s| s.trim()).unwrap_or("");
        // Comments are recognised here rather than by the CSV reader, whose line counter
        // skips them and would misnumber every later row.
        if first.starts_with("==") || first.starts_with('#') {
            continue;
        }
        if fields.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        out.push(Record { line, fields });
    }
    Ok(out)
}
