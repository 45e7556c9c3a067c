//! The five input formats: detection from the header record, then one reader per format.
//! Every reader builds the same [`Profile`]; column positions come from the header names, so
//! extra or reordered columns are fine and a missing one is an error.

use std::collections::HashMap;

use crate::error::{Loc, ProfileError};
use crate::metrics::expected_unit;
use crate::table::Record;
use crate::units::{parse_number, parse_unit, split_value_suffix, Unit};
use crate::{Format, KernelProfile, Launch, LoopRef, Metric, Profile, Skipped, TripRow};

/// The records a reader consumes, one at a time.
pub(crate) type Rows<'r> = dyn Iterator<Item = Result<Record, ProfileError>> + 'r;

/// Kernels whose rows [`parse_records`] keeps: `keep(name)` for the printed name (or the
/// trips table's kernel column). Every row is still checked, so a file gives the same errors
/// whatever is kept; only what is stored shrinks.
pub(crate) type Keep<'k> = dyn FnMut(&str) -> bool + 'k;

/// Distinct kernel names whose rows were skipped that a profile lists (see
/// [`Profile::skipped`]); the rows of further names are skipped unlisted.
const MAX_SKIPPED_NAMES: usize = 256;

/// Distinct kernel names whose keep decision is remembered (the decision demangles names).
const MAX_DECIDED_NAMES: usize = 65_536;

pub(crate) fn parse_records(
    records: &mut Rows<'_>,
    origin: &str,
    keep: &mut Keep<'_>,
) -> Result<Profile, ProfileError> {
    let Some(first) = next_row(records)? else {
        return Err(ProfileError::Empty {
            file: origin.to_string(),
        });
    };
    let has = |n: &str| first.fields.iter().any(|f| f.trim() == n);
    let trimmed: Vec<&str> = first.fields.iter().map(|f| f.trim()).collect();
    let format = if trimmed == ["kernel", "loop", "trips"] {
        Format::TripsTable
    } else if has("Metric Name") && has("Kernel Name") {
        Format::NcuLong
    } else if has("Kernel Name") && has("ID") {
        Format::NcuRaw
    } else if has("Kernel") && has("Invocations") && (has("Metric Name") || has("Event Name")) {
        Format::NvprofSummary
    } else if (has("Start") && has("Duration") && has("Name"))
        || (has("Device") && has("Context") && has("Stream") && has("Kernel"))
    {
        Format::NvprofTrace
    } else {
        return Err(ProfileError::UnknownFormat {
            file: origin.to_string(),
            first: first.fields.join(","),
        });
    };
    let mut b = Builder {
        origin,
        kernels: Vec::new(),
        by_name: HashMap::new(),
        keep,
        decided: HashMap::new(),
        skipped: Vec::new(),
        skipped_ix: HashMap::new(),
    };
    let mut trips = Vec::new();
    match format {
        Format::TripsTable => trips = read_trips(records, &mut b)?,
        Format::NcuLong => read_ncu_long(first, records, &mut b)?,
        Format::NcuRaw => read_ncu_raw(first, records, &mut b)?,
        Format::NvprofSummary => read_nvprof_summary(first, records, &mut b)?,
        Format::NvprofTrace => read_nvprof_trace(first, records, &mut b)?,
    }
    Ok(Profile {
        origin: origin.to_string(),
        format,
        kernels: b.kernels,
        trips,
        skipped: b.skipped,
    })
}

fn next_row(rows: &mut Rows<'_>) -> Result<Option<Record>, ProfileError> {
    rows.next().transpose()
}

/// Column positions by header name.
struct Header<'a> {
    names: Vec<String>,
    line: usize,
    origin: &'a str,
    format: &'static str,
}

impl<'a> Header<'a> {
    fn new(rec: &Record, origin: &'a str, format: &'static str) -> Self {
        Header {
            names: rec.fields.iter().map(|f| f.trim().to_string()).collect(),
            line: rec.line,
            origin,
            format,
        }
    }
    fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
    fn require(&self, name: &'static str) -> Result<usize, ProfileError> {
        self.find(name).ok_or_else(|| ProfileError::MissingColumn {
            file: self.origin.to_string(),
            row: self.line,
            format: self.format,
            column: name,
        })
    }
    fn loc(&self, row: usize, col: usize) -> Loc {
        Loc {
            file: self.origin.to_string(),
            row,
            column: Some((col + 1, self.names.get(col).cloned().unwrap_or_default())),
        }
    }
    /// Every data row must have the header's field count: a short row would otherwise shift
    /// values into the wrong metric.
    fn check_len(&self, rec: &Record) -> Result<(), ProfileError> {
        if rec.fields.len() != self.names.len() {
            return Err(ProfileError::RowLength {
                loc: Box::new(Loc {
                    file: self.origin.to_string(),
                    row: rec.line,
                    column: None,
                }),
                expected: self.names.len(),
                found: rec.fields.len(),
            });
        }
        Ok(())
    }
}

struct Builder<'a, 'k> {
    origin: &'a str,
    kernels: Vec<KernelProfile>,
    by_name: HashMap<String, (usize, HashMap<String, usize>)>,
    keep: &'a mut Keep<'k>,
    decided: HashMap<String, bool>,
    skipped: Vec<Skipped>,
    skipped_ix: HashMap<String, usize>,
}

impl Builder<'_, '_> {
    /// Whether rows of kernel `name` are kept; a skipped one is counted (row `row`).
    fn wanted(&mut self, name: &str, row: usize) -> bool {
        let keep = match self.decided.get(name) {
            Some(&k) => k,
            None => {
                let k = (self.keep)(name);
                if self.decided.len() < MAX_DECIDED_NAMES {
                    self.decided.insert(name.to_string(), k);
                }
                k
            }
        };
        if !keep {
            match self.skipped_ix.get(name) {
                Some(&i) => self.skipped[i].rows += 1,
                None if self.skipped.len() < MAX_SKIPPED_NAMES => {
                    self.skipped_ix.insert(name.to_string(), self.skipped.len());
                    self.skipped.push(Skipped {
                        kernel: name.to_string(),
                        first_row: row,
                        rows: 1,
                    });
                }
                None => {}
            }
        }
        keep
    }

    /// The launch `id` of kernel `name`, created on first sight (file order is kept);
    /// `None` when the kernel's rows are not kept.
    fn launch(&mut self, name: &str, id: &str, row: usize) -> Option<&mut Launch> {
        let name = name.trim();
        if !self.by_name.contains_key(name) && !self.wanted(name, row) {
            return None;
        }
        let kernels = &mut self.kernels;
        let (k, ids) = self.by_name.entry(name.to_string()).or_insert_with(|| {
            kernels.push(KernelProfile {
                name: name.to_string(),
                mangled: name.starts_with("_Z").then(|| name.to_string()),
                launches: Vec::new(),
            });
            (kernels.len() - 1, HashMap::new())
        });
        let kp = &mut self.kernels[*k];
        let i = *ids.entry(id.to_string()).or_insert_with(|| {
            kp.launches.push(Launch {
                id: (!id.is_empty()).then(|| id.to_string()),
                ..Launch::default()
            });
            kp.launches.len() - 1
        });
        Some(&mut kp.launches[i])
    }
}

/// How a value field carries its unit.
enum UnitSource<'s> {
    /// A separate unit column or units row (Nsight Compute, nvprof trace).
    Column(&'s str),
    /// Glued to the number (nvprof summaries: `12.5GB/s`, `95%`).
    Suffix,
}

/// Parses one value for `metric`. `Ok(None)`: nothing to store (`n/a`, empty, or a
/// non-numeric attribute of a metric this crate does not interpret).
fn value(
    metric: &str,
    text: &str,
    unit: &UnitSource,
    loc: &Loc,
) -> Result<Option<(f64, Unit)>, ProfileError> {
    let expected = expected_unit(metric);
    let t = text.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("n/a") {
        return Ok(None);
    }
    let parsed = match unit {
        UnitSource::Column(u) => parse_number(t).map(|v| (v, *u)),
        UnitSource::Suffix => split_value_suffix(t),
    };
    let Some((v, unit_text)) = parsed else {
        return match expected {
            Some(_) => Err(ProfileError::BadNumber {
                loc: Box::new(loc.clone()),
                text: t.to_string(),
            }),
            None => Ok(None),
        };
    };
    let (unit, factor) = parse_unit(unit_text);
    let unit = match expected {
        Some(exp) if unit.fits(&exp) => exp,
        Some(exp) => {
            return Err(ProfileError::UnexpectedUnit {
                loc: Box::new(loc.clone()),
                metric: metric.to_string(),
                unit: unit_text.to_string(),
                expected: unit_name(&exp),
            })
        }
        None => unit,
    };
    Ok(Some((v * factor, unit)))
}

fn unit_name(u: &Unit) -> &'static str {
    match u {
        Unit::Byte => "bytes (byte, Kbyte, Mbyte, Gbyte, B, KB, MB, GB)",
        Unit::Nanosecond => "a time (ns, us, ms, s, nsecond, usecond, msecond, second)",
        Unit::Cycle => "cycles (cycle, Kcycle, …)",
        Unit::Inst => "instructions (inst, Kinst, …) or a plain number",
        Unit::Warp => "warps (warp) or a plain number",
        Unit::Sector => "sectors (sector) or a plain number",
        Unit::Request => "requests (request) or a plain number",
        Unit::Branch => "branches or a plain number",
        Unit::Percent => "a percentage (%)",
        Unit::BytePerSecond => "a rate (B/s, KB/s, MB/s, GB/s, byte/second, …)",
        Unit::Count | Unit::Other(_) => "a plain number (no unit)",
    }
}

/// Keeps `metric` of `launch` from `row`. The same metric of the same launch again with
/// another value (two exports concatenated, or a launch ID reused) is an error naming both
/// rows, where the later one silently won; the same value again is harmless.
fn store(
    launch: &mut Launch,
    metric: &str,
    v: f64,
    unit: Unit,
    row: usize,
    loc: impl FnOnce() -> Loc,
) -> Result<(), ProfileError> {
    if let Some(m) = launch.metrics.get(metric) {
        if m.value != v {
            let id = launch.id.as_deref().unwrap_or("(none)");
            return Err(ProfileError::BadField {
                loc: Box::new(loc()),
                message: format!(
                    "metric `{metric}` of launch ID {id} again, {v} where row {} gave {}: \
                     one launch's counters must appear once (two exports concatenated?)",
                    m.row, m.value
                ),
            });
        }
    }
    launch.metrics.insert(
        metric.to_string(),
        Metric {
            value: v,
            unit,
            min: None,
            max: None,
            row,
        },
    );
    Ok(())
}

/// `(16, 16, 1)` -> [16, 16, 1].
fn dims(text: &str, loc: &Loc) -> Result<Option<[u64; 3]>, ProfileError> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    let inner = t.trim_start_matches('(').trim_end_matches(')');
    let parts: Vec<Option<u64>> = inner.split(',').map(|p| p.trim().parse().ok()).collect();
    match parts.as_slice() {
        [Some(x), Some(y), Some(z)] => Ok(Some([*x, *y, *z])),
        _ => Err(ProfileError::BadField {
            loc: Box::new(loc.clone()),
            message: format!("expected launch dimensions `(x, y, z)`, found `{t}`"),
        }),
    }
}

fn field(rec: &Record, i: usize) -> &str {
    rec.fields.get(i).map_or("", |s| s.as_str())
}

fn read_ncu_long(head: Record, rows: &mut Rows<'_>, b: &mut Builder) -> Result<(), ProfileError> {
    let h = Header::new(&head, b.origin, "Nsight Compute --csv");
    let id = h.require("ID")?;
    let kernel = h.require("Kernel Name")?;
    let name = h.require("Metric Name")?;
    let val = h.require("Metric Value")?;
    let unit = h.find("Metric Unit");
    let (grid, block) = (h.find("Grid Size"), h.find("Block Size"));
    while let Some(rec) = next_row(rows)? {
        let rec = &rec;
        h.check_len(rec)?;
        let metric = field(rec, name).trim();
        let u = unit.map_or("", |c| field(rec, c));
        let parsed = value(
            metric,
            field(rec, val),
            &UnitSource::Column(u),
            &h.loc(rec.line, val),
        )
        .map_err(|e| blame_unit_column(e, unit, &h, rec.line))?;
        let g = grid
            .map(|c| dims(field(rec, c), &h.loc(rec.line, c)))
            .transpose()?;
        let bl = block
            .map(|c| dims(field(rec, c), &h.loc(rec.line, c)))
            .transpose()?;
        let Some(launch) = b.launch(field(rec, kernel), field(rec, id).trim(), rec.line) else {
            continue;
        };
        launch.grid = launch.grid.or(g.flatten());
        launch.block = launch.block.or(bl.flatten());
        if let Some((v, u)) = parsed {
            store(launch, metric, v, u, rec.line, || h.loc(rec.line, val))?;
        }
    }
    Ok(())
}

/// A unit error in the long form is about the `Metric Unit` column, not the value column.
fn blame_unit_column(e: ProfileError, unit: Option<usize>, h: &Header, row: usize) -> ProfileError {
    match (e, unit) {
        (
            ProfileError::UnexpectedUnit {
                metric,
                unit: u,
                expected,
                ..
            },
            Some(c),
        ) => ProfileError::UnexpectedUnit {
            loc: Box::new(h.loc(row, c)),
            metric,
            unit: u,
            expected,
        },
        (e, _) => e,
    }
}

const NCU_DESCRIPTIVE: &[&str] = &[
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Kernel Time",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
    "Section Name",
];

fn read_ncu_raw(head: Record, rows: &mut Rows<'_>, b: &mut Builder) -> Result<(), ProfileError> {
    let h = Header::new(&head, b.origin, "Nsight Compute --csv --page raw");
    let id = h.require("ID")?;
    let kernel = h.require("Kernel Name")?;
    let (grid, block) = (h.find("Grid Size"), h.find("Block Size"));
    let mut pending = next_row(rows)?;
    // The units row: under the header, with an empty ID.
    let units: Vec<String> = match pending.take() {
        Some(r) if field(&r, id).trim().is_empty() => {
            h.check_len(&r)?;
            r.fields
        }
        other => {
            pending = other;
            vec![String::new(); h.names.len()]
        }
    };
    while let Some(rec) = match pending.take() {
        Some(r) => Some(r),
        None => next_row(rows)?,
    } {
        let rec = &rec;
        h.check_len(rec)?;
        let mut parsed = Vec::new();
        for (c, metric) in h.names.iter().enumerate() {
            if NCU_DESCRIPTIVE.contains(&metric.as_str()) {
                continue;
            }
            let u = UnitSource::Column(units[c].trim());
            if let Some((v, u)) = value(metric, field(rec, c), &u, &h.loc(rec.line, c))? {
                parsed.push((c, metric.as_str(), v, u));
            }
        }
        let g = grid
            .map(|c| dims(field(rec, c), &h.loc(rec.line, c)))
            .transpose()?;
        let bl = block
            .map(|c| dims(field(rec, c), &h.loc(rec.line, c)))
            .transpose()?;
        let Some(launch) = b.launch(field(rec, kernel), field(rec, id).trim(), rec.line) else {
            continue;
        };
        launch.grid = g.flatten();
        launch.block = bl.flatten();
        for (c, m, v, u) in parsed {
            store(launch, m, v, u, rec.line, || h.loc(rec.line, c))?;
        }
    }
    Ok(())
}

fn read_nvprof_summary(
    head: Record,
    rows: &mut Rows<'_>,
    b: &mut Builder,
) -> Result<(), ProfileError> {
    // Metrics and events tables may follow each other in one file, each with its header.
    let mut head = Some(head);
    while let Some(header) = head.take() {
        let h = Header::new(&header, b.origin, "nvprof --csv summary");
        let name = h
            .find("Metric Name")
            .or_else(|| h.find("Event Name"))
            .ok_or_else(|| ProfileError::MissingColumn {
                file: b.origin.to_string(),
                row: h.line,
                format: h.format,
                column: "Metric Name",
            })?;
        let kernel = h.require("Kernel")?;
        let inv = h.require("Invocations")?;
        let (min, max, avg) = (h.require("Min")?, h.require("Max")?, h.require("Avg")?);
        while let Some(rec) = next_row(rows)? {
            if field(&rec, 0).trim() == "Device" {
                head = Some(rec);
                break;
            }
            let rec = &rec;
            h.check_len(rec)?;
            let metric = field(rec, name).trim();
            let get = |c: usize| {
                value(
                    metric,
                    field(rec, c),
                    &UnitSource::Suffix,
                    &h.loc(rec.line, c),
                )
            };
            let (Some((a, unit)), lo, hi) = (get(avg)?, get(min)?, get(max)?) else {
                continue;
            };
            let n = parse_number(field(rec, inv))
                .filter(|v| *v >= 0.0 && v.fract() == 0.0)
                .ok_or_else(|| ProfileError::BadNumber {
                    loc: Box::new(h.loc(rec.line, inv)),
                    text: field(rec, inv).trim().to_string(),
                })?;
            let Some(launch) = b.launch(field(rec, kernel), "", rec.line) else {
                continue;
            };
            launch.aggregated = Some(n as u64);
            launch.metrics.insert(
                metric.to_string(),
                Metric {
                    value: a,
                    unit,
                    min: lo.map(|x| x.0),
                    max: hi.map(|x| x.0),
                    row: rec.line,
                },
            );
        }
    }
    Ok(())
}

const NVPROF_TRACE_DESCRIPTIVE: &[&str] = &[
    "Start",
    "Grid X",
    "Grid Y",
    "Grid Z",
    "Block X",
    "Block Y",
    "Block Z",
    "Registers Per Thread",
    "Static SMem",
    "Dynamic SMem",
    "Size",
    "Throughput",
    "SrcMemType",
    "DstMemType",
    "Device",
    "Context",
    "Stream",
    "Name",
    "Kernel",
    "Correlation_ID",
    "Src Dev",
    "Src Ctx",
    "Dst Dev",
    "Dst Ctx",
    "Unified Memory",
    "Virtual Address",
];

fn read_nvprof_trace(
    head: Record,
    rows: &mut Rows<'_>,
    b: &mut Builder,
) -> Result<(), ProfileError> {
    let h = Header::new(&head, b.origin, "nvprof --csv --print-gpu-trace");
    let name = match h.find("Name") {
        Some(c) => c,
        None => h.require("Kernel")?,
    };
    let corr = h.find("Correlation_ID");
    let mut pending = next_row(rows)?;
    // The units row (`ms,us,,,…`): under the header, with an empty name.
    let units: Option<Vec<String>> = match pending.take() {
        Some(r) if field(&r, name).trim().is_empty() => {
            h.check_len(&r)?;
            Some(r.fields)
        }
        other => {
            pending = other;
            None
        }
    };
    let dim = |rec: &Record, names: [&str; 3]| -> Result<Option<[u64; 3]>, ProfileError> {
        let mut out = [0u64; 3];
        for (k, n) in names.iter().enumerate() {
            let Some(c) = h.find(n) else { return Ok(None) };
            let t = field(rec, c).trim();
            out[k] = t.parse().map_err(|_| ProfileError::BadNumber {
                loc: Box::new(h.loc(rec.line, c)),
                text: t.to_string(),
            })?;
        }
        Ok(Some(out))
    };
    let mut seq = 0usize;
    while let Some(rec) = match pending.take() {
        Some(r) => Some(r),
        None => next_row(rows)?,
    } {
        let rec = &rec;
        seq += 1;
        h.check_len(rec)?;
        let kname = strip_correlation(field(rec, name).trim());
        // Copies and memsets share the trace with kernels.
        if kname.starts_with('[') {
            continue;
        }
        let mut parsed = Vec::new();
        for (c, metric) in h.names.iter().enumerate() {
            if NVPROF_TRACE_DESCRIPTIVE.contains(&metric.as_str()) {
                continue;
            }
            let u = match &units {
                Some(u) => UnitSource::Column(u[c].trim()),
                None => UnitSource::Suffix,
            };
            if let Some((v, u)) = value(metric, field(rec, c), &u, &h.loc(rec.line, c))? {
                parsed.push((c, metric.as_str(), v, u));
            }
        }
        let grid = dim(rec, ["Grid X", "Grid Y", "Grid Z"])?;
        let block = dim(rec, ["Block X", "Block Y", "Block Z"])?;
        // Without a correlation ID every row is its own launch.
        let id = corr.map_or_else(
            || format!("row{}", seq - 1),
            |c| field(rec, c).trim().to_string(),
        );
        let Some(launch) = b.launch(kname, &id, rec.line) else {
            continue;
        };
        launch.grid = grid;
        launch.block = block;
        for (c, m, v, u) in parsed {
            store(launch, m, v, u, rec.line, || h.loc(rec.line, c))?;
        }
    }
    Ok(())
}

/// nvprof's trace appends the correlation ID to kernel names: `saxpy(int, …) [121]`.
fn strip_correlation(name: &str) -> &str {
    match name.rsplit_once(" [") {
        Some((head, tail))
            if tail
                .strip_suffix(']')
                .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())) =>
        {
            head
        }
        _ => name,
    }
}

fn read_trips(rows: &mut Rows<'_>, b: &mut Builder) -> Result<Vec<TripRow>, ProfileError> {
    let origin = b.origin;
    let names = ["kernel", "loop", "trips"];
    let loc = |row: usize, c: usize| Loc {
        file: origin.to_string(),
        row,
        column: Some((c + 1, names[c].to_string())),
    };
    let mut out = Vec::new();
    while let Some(rec) = next_row(rows)? {
        if rec.fields.len() != 3 {
            return Err(ProfileError::RowLength {
                loc: Box::new(Loc {
                    file: origin.to_string(),
                    row: rec.line,
                    column: None,
                }),
                expected: 3,
                found: rec.fields.len(),
            });
        }
        let kernel = rec.fields[0].trim();
        if kernel.is_empty() {
            return Err(ProfileError::BadField {
                loc: Box::new(loc(rec.line, 0)),
                message: "empty kernel name".into(),
            });
        }
        let l = rec.fields[1].trim();
        let loop_ref = match l.strip_prefix("line:") {
            Some(n) => LoopRef::Line(n.trim().parse().map_err(|_| ProfileError::BadField {
                loc: Box::new(loc(rec.line, 1)),
                message: format!("expected `line:N` with N a line number, found `{l}`"),
            })?),
            None if l.is_empty() => {
                return Err(ProfileError::BadField {
                    loc: Box::new(loc(rec.line, 1)),
                    message: "empty loop reference (a PTX label like `$L__BB0_3` or `line:N`)"
                        .into(),
                })
            }
            None => LoopRef::Label(l.to_string()),
        };
        let t = rec.fields[2].trim();
        let trips = parse_number(t)
            .filter(|v| *v >= 0.0 && v.fract() == 0.0 && *v < 1.8e19)
            .ok_or_else(|| ProfileError::BadNumber {
                loc: Box::new(loc(rec.line, 2)),
                text: t.to_string(),
            })?;
        if !b.wanted(kernel, rec.line) {
            continue;
        }
        out.push(TripRow {
            kernel: kernel.to_string(),
            loop_ref,
            trips: trips as u64,
            row: rec.line,
        });
    }
    Ok(out)
}
