//! The alignment pass: gives a launch's IDGs, built from the PTX, what the machine code ptxas
//! makes of that PTX does and the PTX does not say.
//!
//! It owns three steps, each a pure function of typed inputs:
//! - [`machine`]: one kernel's SASS listing (`crates/sass`) read loop by loop: source lines,
//!   global-load bytes, spills, loads that reuse the previous load's destination, the groups
//!   its global loads issue in (also outside every loop);
//! - [`matching`]: which loop of the machine code runs which loop of the IDG (by line info,
//!   else by program order);
//! - [`transform`]: the IDG rewritten so that each paired loop runs as the machine code runs
//!   it: unrolled with the loads of several iterations in flight, loads serialized where the
//!   machine code reuses a register, spill accesses where ptxas put them; and the loads of
//!   straight code (an iteration that is not unrolled, the code outside every loop) issued
//!   ahead of their uses in the groups the machine code issues them in.
//!
//! [`apply`] runs them over every warp class of a launch and says what it did in a
//! [`Report`], whose notes and warnings the callers (CLI, `eval`, the Python package) show as
//! they show every other diagnostic. A loop that cannot be paired, or whose machine code
//! cannot be expressed, keeps its PTX form, with a warning naming it.

pub mod machine;
pub mod matching;
pub mod transform;

use std::collections::{BTreeMap, HashMap};

use idg::KernelIdgs;

pub use machine::{LocalAccess, MachineCode};
pub use matching::MatchedBy;
pub use transform::LoopPlan;

/// What the alignment did to one loop of the IDGs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopReport {
    pub label: String,
    pub ptx_line: u32,
    /// Address of the machine-code loop it was paired with.
    pub header: u64,
    /// Iterations per pass of the machine code.
    pub unroll: u32,
    /// Iterations of a pass whose loads are in flight together.
    pub depth: u32,
    /// Why the loop was not unrolled as the machine code is, when it was not.
    pub kept: Option<&'static str>,
    /// Loads per iteration made to wait for the previous load's data.
    pub serialized: u32,
    /// Straight runs of an iteration whose loads were hoisted (one warp class's most).
    pub hoisted: u32,
    /// Nodes of an iteration moved to follow the listing's line order (one warp class's most).
    pub reordered: u32,
    /// Share of the machine loop's FP32 and integer instructions with a register bank
    /// conflict, in thousandths.
    pub register_conflicts: u16,
    /// Local-memory accesses per pass.
    pub spills: usize,
}

/// What [`apply`] did to a launch's IDGs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub by: MatchedBy,
    /// Loops paired with the machine code, in PTX order.
    pub loops: Vec<LoopReport>,
    /// Loops of the IDGs paired with no machine-code loop: `(label, PTX line)`.
    pub unmatched: Vec<(String, u32)>,
    /// Why nothing could be paired, when nothing was.
    pub why: Option<String>,
    /// Local-memory accesses outside every loop, or in a machine loop paired with no loop
    /// the IDG repeats, placed once at the kernel's start.
    pub entry_spills: usize,
    /// Straight runs outside every loop whose loads were hoisted (one warp class's most).
    pub hoisted: u32,
    /// Share of the FP32 and integer instructions outside every loop with a register bank
    /// conflict, in thousandths.
    pub outside_register_conflicts: u16,
}

impl Report {
    /// One line per loop the machine code changed, for `--explain`.
    pub fn notes(&self) -> Vec<String> {
        let by = match self.by {
            MatchedBy::LineInfo => "line info",
            MatchedBy::ProgramOrder => "program order",
        };
        let mut out = vec![format!(
            "machine code: {} of {} loops paired with the listing by {by}",
            self.loops.len(),
            self.loops.len() + self.unmatched.len()
        )];
        for l in &self.loops {
            let mut what = Vec::new();
            if l.unroll > 1 && l.kept.is_none() {
                what.push(format!(
                    "unrolled by {}, loads of {} iteration(s) in flight",
                    l.unroll, l.depth
                ));
            }
            if l.serialized > 0 {
                what.push(format!(
                    "{} load(s) wait for the previous load (one destination register)",
                    l.serialized
                ));
            }
            if l.hoisted > 0 {
                what.push(format!(
                    "loads issued ahead of their uses in {} straight run(s) of an iteration",
                    l.hoisted
                ));
            }
            if l.reordered > 0 {
                what.push(format!(
                    "{} instruction(s) of an iteration in the listing's line order",
                    l.reordered
                ));
            }
            if l.spills > 0 {
                what.push(format!("{} spill access(es) per pass", l.spills));
            }
            if l.register_conflicts > 0 {
                what.push(conflicts(l.register_conflicts));
            }
            if what.is_empty() {
                what.push("as in the PTX".to_string());
            }
            out.push(format!(
                "  loop {} (PTX line {}) = machine loop at {:#06x}: {}",
                l.label,
                l.ptx_line,
                l.header,
                what.join(", ")
            ));
        }
        let mut outside = Vec::new();
        if self.hoisted > 0 {
            outside.push(format!(
                "loads issued ahead of their uses in {} straight run(s)",
                self.hoisted
            ));
        }
        if self.outside_register_conflicts > 0 {
            outside.push(conflicts(self.outside_register_conflicts));
        }
        if !outside.is_empty() {
            out.push(format!("  outside the loops: {}", outside.join(", ")));
        }
        if self.entry_spills > 0 {
            out.push(format!(
                "  {} spill access(es) outside the paired loops, once at the kernel's start",
                self.entry_spills
            ));
        }
        out
    }

    /// What could not be aligned, each naming the loop.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(why) = &self.why {
            out.push(format!(
                "machine code: {why}; every loop keeps its PTX form"
            ));
        } else {
            for (label, line) in &self.unmatched {
                out.push(format!(
                    "machine code: no loop of the listing runs loop {label} (PTX line {line}); \
                     it keeps its PTX form"
                ));
            }
        }
        for l in &self.loops {
            if let (Some(why), true) = (l.kept, l.unroll > 1) {
                out.push(format!(
                    "machine code: loop {} (PTX line {}) runs unrolled by {}, but {why}; it \
                     keeps its PTX form",
                    l.label, l.ptx_line, l.unroll
                ));
            }
        }
        out
    }
}

/// The note for a region whose arithmetic has register bank conflicts (`share` in
/// thousandths).
fn conflicts(share: u16) -> String {
    format!(
        "{:.1} % of its FP32 and integer instructions read two registers of one bank (a cycle more each)",
        f64::from(share) / 10.0
    )
}

/// The PTX's `.file` table by number, which the IDG's source positions index.
pub fn file_table(module: &ptx::ast::Module) -> BTreeMap<u32, String> {
    module
        .files
        .iter()
        .map(|f| (f.index, f.name.clone()))
        .collect()
}

/// The largest unroll factor the pass applies.
pub const MAX_UNROLL: u32 = 32;

/// The plan for one paired loop.
fn plan(
    l: &matching::IdgLoop,
    m: &machine::MachineLoop,
    files: &BTreeMap<u32, String>,
) -> LoopPlan {
    // A ratio past MAX_UNROLL is not an unroll ptxas makes (a listing of another kernel, or
    // edited): the loop keeps its PTX form rather than growing the IDG by it.
    let unroll = match m.load_bytes.checked_div(l.load_bytes) {
        Some(u) if m.load_bytes.is_multiple_of(l.load_bytes) && u <= MAX_UNROLL => u.max(1),
        _ => 1,
    };
    let serialize = if unroll == 1
        && m.reused_destination.len() == l.loads
        && m.reused_destination.iter().any(|&r| r)
    {
        m.reused_destination.clone()
    } else {
        Vec::new()
    };
    // Iterations whose loads are in flight together: at least one, at most a pass.
    let depth = m
        .in_flight_bytes
        .checked_div(l.load_bytes)
        .map_or(1, |d| d.clamp(1, unroll));
    LoopPlan {
        loop_id: l.id,
        unroll,
        depth,
        serialize,
        spills: m.local.clone(),
        load_groups: m.load_groups.clone(),
        register_conflicts: m.arithmetic.share(),
        line_order: source_order(&m.line_order, files),
    }
}

/// The listing's line order as the PTX's `.loc` positions (the first `.file` entry of each
/// base name); lines of files the PTX does not name are left out.
fn source_order(lines: &[machine::Line], files: &BTreeMap<u32, String>) -> Vec<idg::SrcLoc> {
    let mut by_name: BTreeMap<&str, u32> = BTreeMap::new();
    for (&k, f) in files {
        by_name.entry(machine::base_name(f)).or_insert(k);
    }
    lines
        .iter()
        .filter_map(|(f, line)| {
            by_name
                .get(f.as_str())
                .map(|&file| idg::SrcLoc { file, line: *line })
        })
        .collect()
}

/// Aligns `kernel`'s machine code with every warp class of `idgs` and rewrites them (see the
/// crate's description). `files` is the PTX's `.file` table ([`file_table`]).
pub fn apply(
    idgs: &mut KernelIdgs,
    kernel: &sass::Kernel,
    files: &BTreeMap<u32, String>,
) -> Report {
    let machine = MachineCode::of(kernel);
    let mut loops: BTreeMap<(u32, String), LoopReport> = BTreeMap::new();
    let mut unmatched: BTreeMap<(u32, String), ()> = BTreeMap::new();
    let mut by = MatchedBy::LineInfo;
    let mut why = None;
    let mut entry_spills = 0;
    let mut hoisted = 0;
    for class in &mut idgs.classes {
        let idg_loops = matching::idg_loops(&class.idg, files);
        let pairing = if idg_loops.is_empty() {
            // Every loop of the PTX runs at most once here: nothing to pair.
            matching::Pairing {
                by: MatchedBy::LineInfo,
                pairs: Vec::new(),
                why: None,
            }
        } else {
            matching::pair(&idg_loops, &machine)
        };
        by = pairing.by;
        why = why.or(pairing.why.clone());
        let paired: HashMap<usize, usize> = pairing.pairs.iter().copied().collect();
        for (i, l) in idg_loops.iter().enumerate() {
            if !paired.contains_key(&i) {
                unmatched.insert((l.ptx_line, l.label.clone()), ());
            }
        }
        let plans: Vec<LoopPlan> = pairing
            .pairs
            .iter()
            .map(|&(i, j)| plan(&idg_loops[i], &machine.loops[j], files))
            .collect();
        // The spills of machine loops paired with no repeat of the IDG (a loop that runs
        // once, or one the listing splits differently) run once, at the kernel's start.
        let paired_machine: Vec<usize> = pairing.pairs.iter().map(|&(_, j)| j).collect();
        let mut entry = machine.outside_local.clone();
        for (j, l) in machine.loops.iter().enumerate() {
            if !paired_machine.contains(&j) {
                entry.extend(&l.local);
            }
        }
        entry_spills = entry_spills.max(entry.len());
        let applied = transform::apply(
            &mut class.idg,
            &plans,
            &entry,
            transform::Outside {
                load_groups: &machine.outside_load_groups,
                register_conflicts: machine.outside_arithmetic.share(),
            },
        );
        hoisted = hoisted.max(applied.hoisted);
        let done = applied.loops;
        for (&(i, j), p) in pairing.pairs.iter().zip(&plans) {
            let l = &idg_loops[i];
            let d = done.get(&l.id).cloned().unwrap_or_default();
            let e = loops
                .entry((l.ptx_line, l.label.clone()))
                .or_insert_with(|| LoopReport {
                    label: l.label.clone(),
                    ptx_line: l.ptx_line,
                    header: machine.loops[j].header,
                    unroll: p.unroll,
                    depth: p.depth,
                    kept: None,
                    serialized: 0,
                    hoisted: 0,
                    reordered: 0,
                    register_conflicts: p.register_conflicts,
                    spills: p.spills.len(),
                });
            e.kept = e.kept.or(d.kept.filter(|_| d.unrolled == 0));
            e.serialized = e.serialized.max(d.serialized);
            e.hoisted = e.hoisted.max(d.hoisted);
            e.reordered = e.reordered.max(d.reordered);
        }
    }
    for k in loops.keys() {
        unmatched.remove(k);
    }
    Report {
        by,
        loops: loops.into_values().collect(),
        unmatched: unmatched
            .into_keys()
            .map(|(line, label)| (label, line))
            .collect(),
        why,
        entry_spills,
        hoisted,
        outside_register_conflicts: machine.outside_arithmetic.share(),
    }
}
