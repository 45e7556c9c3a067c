//! Per-kernel resources from `cuobjdump -res-usage` and `ptxas -v`: registers per thread,
//! static shared memory, stack frame, local memory and spill traffic. Each report prints a
//! different subset, so every field is optional; a caller that has both merges them.

use serde::Serialize;

use crate::error::{offset_of, ParseError};

/// What one function uses, as one report printed it (`None`: that report does not say).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Resources {
    /// The mangled name.
    pub name: String,
    /// `true` for a kernel (`ptxas -v`'s `Compiling entry function`; every function of
    /// `-res-usage`, which lists only kernels and the functions they call alike).
    pub entry: bool,
    /// `sm_90`, from `ptxas -v`'s `for 'sm_90'`.
    pub arch: Option<String>,
    /// 1-based line of the report that names the function.
    pub line: u32,
    /// Registers per thread (`Used N registers`, `REG:N`).
    pub registers: Option<u32>,
    /// Named barriers (`used N barriers`).
    pub barriers: Option<u32>,
    /// Static shared memory in bytes. `ptxas -v`'s `smem` counts the kernel's own variables;
    /// `-res-usage`'s `SHARED` adds what the driver reserves (1 KiB on sm_90).
    pub shared_bytes: Option<u64>,
    /// Stack frame in bytes (`N bytes stack frame`, `STACK:N`).
    pub stack_bytes: Option<u64>,
    /// Local memory in bytes (`LOCAL:N`, `N bytes lmem`).
    pub local_bytes: Option<u64>,
    /// Bytes stored by register spills (`N bytes spill stores`).
    pub spill_store_bytes: Option<u64>,
    /// Bytes loaded by register spills (`N bytes spill loads`).
    pub spill_load_bytes: Option<u64>,
    /// Constant banks in bytes (`CONSTANT[0]:560`, `380 bytes cmem[0]`), by bank.
    pub constant_bytes: Vec<(u32, u64)>,
}

/// Reads `cuobjdump -res-usage` output: `Function NAME:` followed by `KEY:VALUE` pairs on the
/// same line (older tools) or the next (`REG:32 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:544 …`).
///
/// # Errors
/// A `KEY:VALUE` pair whose value is not a number, or pairs before any `Function` line.
pub fn parse_resource_usage(text: &str) -> Result<Vec<Resources>, ParseError> {
    let mut out: Vec<Resources> = Vec::new();
    // Pairs after `Common:` (GLOBAL, and CONSTANT[3] of a module with `__constant__` data)
    // belong to the module, no function: skipped.
    let mut in_function = false;
    let mut in_common = false;
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let t = raw.trim();
        if t.is_empty() || t.starts_with("Resource usage") || t.starts_with("Fatbin") {
            continue;
        }
        if t == "Common:" {
            in_function = false;
            in_common = true;
            continue;
        }
        let pairs_from = if let Some(rest) = t.strip_prefix("Function ") {
            let Some((name, pairs)) = rest.split_once(':') else {
                return Err(ParseError::at(
                    line,
                    raw,
                    raw.len(),
                    "expected `:` after the function name",
                ));
            };
            let name = name.trim();
            if name.is_empty() {
                return Err(ParseError::at(
                    line,
                    raw,
                    offset_of(raw, rest),
                    "expected a function name",
                ));
            }
            out.push(Resources {
                name: name.to_string(),
                entry: true,
                line,
                ..Resources::default()
            });
            in_function = true;
            in_common = false;
            // Pairs after the name's colon, on the same line.
            offset_of(raw, pairs)
        } else {
            offset_of(raw, t)
        };
        if in_common {
            continue;
        }
        let current = if in_function { out.last_mut() } else { None };
        res_usage_pairs(line, raw, pairs_from, current)?;
    }
    Ok(out)
}

fn res_usage_pairs(
    line: u32,
    raw: &str,
    from: usize,
    mut current: Option<&mut Resources>,
) -> Result<(), ParseError> {
    let mut pos = from;
    let rest = raw.get(from..).unwrap_or("");
    for word in rest.split_whitespace() {
        // The word's byte offset: `split_whitespace` does not say, so find it from `pos` on.
        let at = raw[pos..].find(word).map_or(pos, |o| pos + o);
        pos = at + word.len();
        let Some((key, value)) = word.rsplit_once(':') else {
            return Err(ParseError::at(
                line,
                raw,
                at,
                format!("expected `KEY:VALUE`, found `{word}`"),
            ));
        };
        let v: u64 = value.parse().map_err(|_| {
            ParseError::at(
                line,
                raw,
                at + key.len() + 1,
                format!("expected a number after `{key}:`"),
            )
        })?;
        let Some(r) = current.as_deref_mut() else {
            if key == "GLOBAL" {
                continue;
            }
            return Err(ParseError::at(
                line,
                raw,
                at,
                "resource counts before any `Function` line",
            ));
        };
        match key {
            "REG" => r.registers = Some(u32::try_from(v).unwrap_or(u32::MAX)),
            "STACK" => r.stack_bytes = Some(v),
            "SHARED" => r.shared_bytes = Some(v),
            "LOCAL" => r.local_bytes = Some(v),
            _ => {
                if let Some(bank) = key
                    .strip_prefix("CONSTANT[")
                    .and_then(|b| b.strip_suffix(']'))
                    .and_then(|b| b.parse::<u32>().ok())
                {
                    r.constant_bytes.push((bank, v));
                }
                // TEXTURE, SURFACE, SAMPLER and keys of newer tools: not resources we model.
            }
        }
    }
    Ok(())
}

/// Reads `ptxas -v` output (its standard error): `Compiling entry function 'K' for 'sm_90'`,
/// `Function properties for F` with `N bytes stack frame, N bytes spill stores, N bytes spill
/// loads`, and `Used N registers, used N barriers, N bytes smem, N bytes cmem[0]`. Other
/// lines (`gmem`, compile times, warnings) are skipped.
///
/// # Errors
/// A count that is not a number, or counts before any function is named.
pub fn parse_ptxas_info(text: &str) -> Result<Vec<Resources>, ParseError> {
    let mut out: Vec<Resources> = Vec::new();
    let mut current: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let t = raw.trim();
        let body_start;
        let body = if let Some(rest) = t.strip_prefix("ptxas info") {
            let Some((_, b)) = rest.split_once(':') else {
                continue;
            };
            body_start = offset_of(raw, b.trim_start());
            b.trim()
        } else if t.contains("bytes stack frame") {
            body_start = offset_of(raw, t);
            t
        } else {
            continue;
        };
        if let Some(rest) = body.strip_prefix("Compiling entry function") {
            let mut quoted = rest.split('\'').skip(1).step_by(2);
            let name = quoted.next().filter(|n| !n.is_empty());
            let Some(name) = name.filter(|_| rest.trim_start().starts_with('\'')) else {
                return Err(ParseError::at(
                    line,
                    raw,
                    body_start,
                    "expected the function's name in quotes",
                ));
            };
            let arch = quoted.next().map(str::to_string);
            current = Some(find_or_push(&mut out, name, line));
            if let Some(r) = current.and_then(|c| out.get_mut(c)) {
                r.entry = true;
                r.arch = arch;
            }
        } else if let Some(name) = body.strip_prefix("Function properties for") {
            let name = name.trim();
            if name.is_empty() {
                return Err(ParseError::at(
                    line,
                    raw,
                    raw.len(),
                    "expected a function name",
                ));
            }
            current = Some(find_or_push(&mut out, name, line));
        } else if body.starts_with("Used ") || body.contains("bytes stack frame") {
            let Some(r) = current.and_then(|c| out.get_mut(c)) else {
                return Err(ParseError::at(
                    line,
                    raw,
                    body_start,
                    "resource counts before any function is named",
                ));
            };
            let from = if body.starts_with("Used ") {
                body_start + 5
            } else {
                body_start
            };
            ptxas_items(line, raw, from, r)?;
        }
    }
    Ok(out)
}

fn find_or_push(out: &mut Vec<Resources>, name: &str, line: u32) -> usize {
    if let Some(i) = out.iter().position(|r| r.name == name) {
        return i;
    }
    out.push(Resources {
        name: name.to_string(),
        line,
        ..Resources::default()
    });
    out.len() - 1
}

/// Comma-separated `N unit` items: `32 registers`, `used 1 barriers`, `2048 bytes smem`,
/// `0 bytes spill stores`, `380 bytes cmem[0]`.
fn ptxas_items(line: u32, raw: &str, from: usize, r: &mut Resources) -> Result<(), ParseError> {
    let mut pos = from;
    for item in raw[from..].split(',') {
        let at = pos + (item.len() - item.trim_start().len());
        pos += item.len() + 1;
        let item = item.trim();
        let words: Vec<&str> = item.split_whitespace().collect();
        let (num, unit) = match words.as_slice() {
            ["used", n, rest @ ..] => (*n, rest.join(" ")),
            [n, rest @ ..] => (*n, rest.join(" ")),
            [] => continue,
        };
        let num_at = raw[at..].find(num).map_or(at, |o| at + o);
        let v: u64 = num.parse().map_err(|_| {
            ParseError::at(
                line,
                raw,
                num_at,
                format!("expected a number, found `{num}`"),
            )
        })?;
        let small = || u32::try_from(v).unwrap_or(u32::MAX);
        match unit.as_str() {
            "registers" => r.registers = Some(small()),
            "barriers" => r.barriers = Some(small()),
            "bytes smem" => r.shared_bytes = Some(v),
            "bytes lmem" => r.local_bytes = Some(v),
            "bytes stack frame" => r.stack_bytes = Some(v),
            "bytes spill stores" => r.spill_store_bytes = Some(v),
            "bytes spill loads" => r.spill_load_bytes = Some(v),
            u => {
                if let Some(bank) = u
                    .strip_prefix("bytes cmem[")
                    .and_then(|b| b.strip_suffix(']'))
                    .and_then(|b| b.parse::<u32>().ok())
                {
                    r.constant_bytes.push((bank, v));
                }
                // Texture, sampler and surface counts of older tools: not modelled.
            }
        }
    }
    Ok(())
}
