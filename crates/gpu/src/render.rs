//! The mapping report of one kernel: per distinct instruction (PTX line and mnemonic) its
//! class, subsystem, λ, Λ and the mapper that decided them. Rows are sorted by PTX line;
//! an instruction whose timing differs between warp classes (mapper g's static pattern can)
//! gets one row per distinct timing, naming the warp classes. Library code: returns data
//! and strings, never prints.

use crate::cycles::Cycles;
use crate::map_f::Warning;
use crate::profile::GpuProfile;
use crate::timing::{ClassTiming, MapSource};
use idg::KernelIdgs;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MappingRow {
    pub ptx_line: u32,
    pub instruction: String,
    pub class: String,
    pub subsystem: String,
    pub lambda: Cycles,
    pub latency: Cycles,
    pub source: MapSource,
    /// Warp classes (indices into `KernelIdgs::classes`) this row holds for.
    pub warp_classes: Vec<u32>,
}

/// Everything `ptx2idg map` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mapping {
    pub kernel: String,
    pub gpu: String,
    pub rows: Vec<MappingRow>,
    pub warnings: Vec<Warning>,
}

/// Builds the report from `map_kernel`'s output.
pub fn mapping(
    idgs: &KernelIdgs,
    timings: &[ClassTiming],
    gpu: &GpuProfile,
    warnings: Vec<Warning>,
) -> Mapping {
    type Key = (u32, String, String, String, Cycles, Cycles, MapSource);
    let mut rows: BTreeMap<Key, Vec<u32>> = BTreeMap::new();
    for (ci, (wc, ct)) in idgs.classes.iter().zip(timings).enumerate() {
        for (node, t) in wc.idg.nodes.iter().zip(&ct.nodes) {
            let key = (
                node.ptx_line,
                node.op.to_string(),
                t.class.name().to_string(),
                gpu.subsystem(t.subsystem).name.clone(),
                t.lambda,
                t.latency,
                t.source,
            );
            let classes = rows.entry(key).or_default();
            let ci = ci as u32;
            if classes.last() != Some(&ci) {
                classes.push(ci);
            }
        }
    }
    Mapping {
        kernel: idgs.kernel.clone(),
        gpu: gpu.name.clone(),
        rows: rows
            .into_iter()
            .map(
                |((ptx_line, instruction, class, subsystem, lambda, latency, source), wc)| {
                    MappingRow {
                        ptx_line,
                        instruction,
                        class,
                        subsystem,
                        lambda,
                        latency,
                        source,
                        warp_classes: wc,
                    }
                },
            )
            .collect(),
        warnings,
    }
}

/// The report as an aligned text table (warnings are not included: they go to stderr).
pub fn mapping_table(m: &Mapping) -> String {
    let n_classes = m
        .rows
        .iter()
        .flat_map(|r| r.warp_classes.iter())
        .max()
        .map_or(0, |c| c + 1);
    let show_classes = n_classes > 1;
    let header = [
        "line",
        "instruction",
        "class",
        "subsystem",
        "lambda",
        "latency",
        "source",
        "warp classes",
    ];
    let ncols = if show_classes { 8 } else { 7 };
    let cells: Vec<Vec<String>> = m
        .rows
        .iter()
        .map(|r| {
            let mut v = vec![
                r.ptx_line.to_string(),
                r.instruction.clone(),
                r.class.clone(),
                r.subsystem.clone(),
                r.lambda.to_string(),
                r.latency.to_string(),
                r.source.as_str().to_string(),
            ];
            if show_classes {
                let wc: Vec<String> = r.warp_classes.iter().map(u32::to_string).collect();
                v.push(wc.join(","));
            }
            v
        })
        .collect();
    let mut width: Vec<usize> = header[..ncols].iter().map(|h| h.len()).collect();
    for row in &cells {
        for (w, c) in width.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "kernel {} on {}", m.kernel, m.gpu);
    let line = |out: &mut String, row: &[&str]| {
        let mut s = String::new();
        for (i, (c, w)) in row.iter().zip(&width).enumerate() {
            // Numbers right-aligned, text left-aligned.
            let numeric = matches!(i, 0 | 4 | 5);
            if i > 0 {
                s.push_str("  ");
            }
            if numeric {
                let _ = write!(s, "{c:>w$}");
            } else {
                let _ = write!(s, "{c:<w$}");
            }
        }
        let _ = writeln!(out, "{}", s.trim_end());
    };
    line(&mut out, &header[..ncols]);
    for row in &cells {
        let r: Vec<&str> = row.iter().map(String::as_str).collect();
        line(&mut out, &r);
    }
    out
}
