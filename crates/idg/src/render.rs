//! Text views of a kernel's IDGs: the human summary and the `stats` JSON contract.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::graph::{Idg, Item};
use crate::kernel::KernelIdgs;
use crate::node::Category;

/// `1,2,3,5` → `1-3,5`: classes often hold thousands of consecutive warps.
pub fn ranges(ids: &[u64]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            ids[i].to_string()
        } else {
            format!("{}-{}", ids[i], ids[j])
        });
        i = j + 1;
    }
    out.join(",")
}

/// `3 groups (ids 0-2)`: a count first, then the ids, so that neither reads as the other.
fn counted(n: usize, what: &str, ids: &[u64]) -> String {
    let plural = if n == 1 { "" } else { "s" };
    let id = if ids.len() == 1 { "id" } else { "ids" };
    format!("{n} {what}{plural} ({id} {})", ranges(ids))
}

/// The summary: per class its warps, counts, critical path, loop structure and mix.
pub fn summary(k: &KernelIdgs) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "kernel {}  grid {}x{}x{}  block {}x{}x{}  {} groups of {} warps",
        k.kernel,
        k.grid[0],
        k.grid[1],
        k.grid[2],
        k.block[0],
        k.block[1],
        k.block[2],
        k.total_groups(),
        k.warps_per_group,
    );
    let _ = writeln!(
        out,
        "walked {}: {} warp class{}{}",
        counted(k.groups_built.len(), "group", &k.groups_built),
        k.classes.len(),
        if k.classes.len() == 1 { "" } else { "es" },
        match (
            k.groups_built.len(),
            (k.groups_built.len() as u64) < k.total_groups()
        ) {
            (_, false) => "",
            (1, true) => " (the other groups run the classes of the first walked)",
            (_, true) =>
                " (the other groups run the classes of the walked group at the same grid edges)",
        },
    );
    for (i, c) in k.classes.iter().enumerate() {
        let s = c.idg.stats();
        let _ = writeln!(
            out,
            "class {i}: {}",
            counted(c.warps.len(), "walked warp", &c.warps)
        );
        let _ = writeln!(
            out,
            "  instructions {}  edges {}  critical path {}  template nodes {}",
            s.instructions,
            s.edges,
            s.critical_path,
            c.idg.nodes.len()
        );
        let _ = writeln!(out, "  structure: {}", structure(&c.idg, &c.idg.body));
        let mut cats: BTreeMap<&str, u64> = BTreeMap::new();
        let mut ops: BTreeMap<String, u64> = BTreeMap::new();
        count_mix(&c.idg, &c.idg.body, 1, &mut cats, &mut ops);
        let cats: Vec<String> = cats.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(out, "  mix: {}", cats.join(", "));
        let mut ops: Vec<(String, u64)> = ops.into_iter().collect();
        ops.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let ops: Vec<String> = ops.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(out, "  opcodes: {}", ops.join(", "));
    }
    out
}

/// `12 [$L__BB0_2 x100: 7] 3`: straight-line runs as counts, repeats with label and count.
fn structure(idg: &Idg, items: &[Item]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut run = 0;
    for item in items {
        match item {
            Item::Node(_) => run += 1,
            Item::Repeat(r) => {
                if run > 0 {
                    parts.push(run.to_string());
                    run = 0;
                }
                parts.push(format!(
                    "[{} x{}: {}]",
                    idg.loops[r.loop_id.index()].label,
                    r.count,
                    structure(idg, &r.body)
                ));
            }
        }
    }
    if run > 0 {
        parts.push(run.to_string());
    }
    parts.join(" ")
}

fn count_mix(
    idg: &Idg,
    items: &[Item],
    times: u64,
    cats: &mut BTreeMap<&'static str, u64>,
    ops: &mut BTreeMap<String, u64>,
) {
    for item in items {
        match item {
            Item::Node(id) => {
                let n = idg.node(*id);
                let cat = match n.category {
                    Category::Compute => "compute",
                    Category::Memory => "memory",
                    Category::Barrier => "barrier",
                    Category::Control => "control",
                };
                *cats.entry(cat).or_default() += times;
                *ops.entry(n.op.opcode.to_string()).or_default() += times;
            }
            Item::Repeat(r) => count_mix(idg, &r.body, times.saturating_mul(r.count), cats, ops),
        }
    }
}

#[derive(Serialize)]
struct StatsClass {
    warps: Vec<u64>,
    instructions: u64,
    edges: u64,
    critical_path: u64,
}

#[derive(Serialize)]
struct StatsDoc<'a> {
    kernel: &'a str,
    classes: Vec<StatsClass>,
}

/// The `--format stats` object: a stable contract for scripts and tests.
pub fn stats_json(k: &KernelIdgs) -> String {
    let doc = StatsDoc {
        kernel: &k.kernel,
        classes: k
            .classes
            .iter()
            .map(|c| {
                let s = c.idg.stats();
                StatsClass {
                    warps: c.warps.clone(),
                    instructions: s.instructions,
                    edges: s.edges,
                    critical_path: s.critical_path,
                }
            })
            .collect(),
    };
    serde_json::to_string(&doc).unwrap_or_default()
}
