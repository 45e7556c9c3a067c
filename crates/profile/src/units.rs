//! Numbers and units as profilers print them.
//!
//! Numbers may carry thousands separators (`1,234,567`, Nsight Compute's default) and, in
//! nvprof output, a unit suffix glued to the value (`12.5GB/s`, `95.1%`, `Low (2)`).
//! Units are normalised to one base unit per kind (bytes, nanoseconds, cycles, …) and the
//! value is scaled to it. Scale conventions (documented in docs/profiler-csv.md):
//! Nsight Compute's `Kbyte`/`Mbyte`/`Gbyte` and every rate `KB/s`… are decimal (10^3 steps);
//! nvprof's size units `KB`/`MB`/`GB` are binary (2^10 steps).

/// A unit after normalisation; values stored with it are already scaled to it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unit {
    Byte,
    Nanosecond,
    Cycle,
    Inst,
    Warp,
    Sector,
    Request,
    Branch,
    Percent,
    BytePerSecond,
    /// A plain number (empty unit column, or no suffix).
    Count,
    /// A unit this crate does not interpret, kept verbatim (`register/thread`, `block`, …).
    Other(String),
}

impl Unit {
    pub fn label(&self) -> &str {
        match self {
            Unit::Byte => "byte",
            Unit::Nanosecond => "ns",
            Unit::Cycle => "cycle",
            Unit::Inst => "inst",
            Unit::Warp => "warp",
            Unit::Sector => "sector",
            Unit::Request => "request",
            Unit::Branch => "branch",
            Unit::Percent => "%",
            Unit::BytePerSecond => "byte/s",
            Unit::Count => "",
            Unit::Other(s) => s,
        }
    }

    /// Whether a value printed in `self` may stand for a metric whose unit is `expected`.
    /// A bare number is accepted for any counted quantity: nvprof prints no units for
    /// events and counters, and Nsight Compute leaves the unit of some counters empty.
    pub fn fits(&self, expected: &Unit) -> bool {
        self == expected
            || (*self == Unit::Count
                && matches!(
                    expected,
                    Unit::Inst
                        | Unit::Warp
                        | Unit::Sector
                        | Unit::Request
                        | Unit::Branch
                        | Unit::Cycle
                        | Unit::Byte
                        | Unit::Count
                ))
    }
}

/// Parses a unit string into the normalised unit and the factor that scales a value to it.
pub fn parse_unit(text: &str) -> (Unit, f64) {
    let t = text.trim();
    let decimal = [("", 1.0), ("K", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12)];
    let binary = [
        ("", 1.0),
        ("K", 1024.0),
        ("M", 1024.0 * 1024.0),
        ("G", 1024.0 * 1024.0 * 1024.0),
        ("T", 1024.0 * 1024.0 * 1024.0 * 1024.0),
    ];
    match t {
        "" => return (Unit::Count, 1.0),
        "%" => return (Unit::Percent, 1.0),
        "ns" | "nsecond" => return (Unit::Nanosecond, 1.0),
        "us" | "usecond" => return (Unit::Nanosecond, 1e3),
        "ms" | "msecond" => return (Unit::Nanosecond, 1e6),
        "s" | "second" => return (Unit::Nanosecond, 1e9),
        _ => {}
    }
    let counted: [(&str, Unit); 8] = [
        ("byte", Unit::Byte),
        ("cycle", Unit::Cycle),
        ("inst", Unit::Inst),
        ("warp", Unit::Warp),
        ("sector", Unit::Sector),
        ("request", Unit::Request),
        ("branches", Unit::Branch),
        ("branch", Unit::Branch),
    ];
    for (prefix, f) in decimal {
        for (base, unit) in &counted {
            if t.strip_prefix(prefix) == Some(base) {
                return (unit.clone(), f);
            }
        }
        if t.strip_prefix(prefix) == Some("byte/second") || t.strip_prefix(prefix) == Some("B/s") {
            return (Unit::BytePerSecond, f);
        }
    }
    for (prefix, f) in binary {
        if t.strip_prefix(prefix) == Some("B") {
            return (Unit::Byte, f);
        }
    }
    (Unit::Other(t.to_string()), 1.0)
}

/// Parses a number with optional thousands separators (`1,234,567.5`). Commas must separate
/// groups of exactly three digits in the integer part, so `1,2` is malformed rather than
/// silently read as 12.
pub fn parse_number(text: &str) -> Option<f64> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    if t.contains(',') {
        let (sign, body) = match t.strip_prefix('-') {
            Some(b) => ("-", b),
            None => ("", t),
        };
        let (int, frac) = match body.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (body, None),
        };
        let groups: Vec<&str> = int.split(',').collect();
        let first_ok = !groups[0].is_empty()
            && groups[0].len() <= 3
            && groups[0].bytes().all(|b| b.is_ascii_digit());
        let rest_ok = groups[1..]
            .iter()
            .all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()));
        if !first_ok || !rest_ok {
            return None;
        }
        let mut joined = format!("{sign}{}", groups.concat());
        if let Some(f) = frac {
            if !f.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            joined.push('.');
            joined.push_str(f);
        }
        return joined.parse().ok();
    }
    let v: f64 = t.parse().ok()?;
    // Rust accepts "inf"/"NaN"; no profiler prints them for a measured counter.
    v.is_finite().then_some(v)
}

/// Splits an nvprof value into number and glued unit suffix: `12.5GB/s` -> (12.5, "GB/s"),
/// `Low (2)` (a utilisation level) -> (2, ""). Returns `None` if no number can be read.
pub fn split_value_suffix(text: &str) -> Option<(f64, &str)> {
    let t = text.trim();
    if let Some(open) = t.find('(') {
        if t.ends_with(')') && t[..open].trim().chars().all(|c| c.is_ascii_alphabetic()) {
            return parse_number(&t[open + 1..t.len() - 1]).map(|v| (v, ""));
        }
    }
    let end = t
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | '+' | 'e' | 'E')))
        .map_or(t.len(), |(i, _)| i);
    // A trailing `e`/`E` is the start of a unit, not an exponent.
    let mut end = end;
    while end > 0 && matches!(t.as_bytes()[end - 1], b'e' | b'E') {
        end -= 1;
    }
    let v = parse_number(&t[..end])?;
    Some((v, t[end..].trim()))
}
