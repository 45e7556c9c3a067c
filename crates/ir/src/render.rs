//! Text renderings of a kernel's CFG, loops and trip counts: a stable summary (snapshotted),
//! a JSON document and Graphviz DOT. Rendering only builds strings; the CLI prints them.

use crate::analysis::Analysis;
use crate::ids::{BlockId, LoopId};
use crate::kernel::{Kernel, Term};
use crate::names::display_name;
use crate::trips::{LoopTrip, TripRule, TripSource, Trips};
use serde::Serialize;
use std::fmt::Write;

fn succ_text(k: &Kernel, b: BlockId) -> String {
    match &k.block(b).term {
        Term::Goto(t) => format!("goto {}", k.block_name(*t)),
        Term::Cond { guard, taken, fall } => format!(
            "if {}{} then {} else {}",
            if guard.negated { "!" } else { "" },
            k.reg_name(guard.pred),
            k.block_name(*taken),
            k.block_name(*fall)
        ),
        Term::Switch { index, targets } => format!(
            "switch {} [{}]",
            k.reg_name(*index),
            targets
                .iter()
                .map(|t| k.block_name(*t))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Term::Exit => "exit".to_string(),
    }
}

/// The trip count as one line: value, spread and source.
pub fn trip_text(t: &LoopTrip) -> String {
    let value = match (&t.rule, &t.stats) {
        (TripRule::Fixed(n), _) => n.to_string(),
        (TripRule::Induction(_), Some(s)) if s.is_uniform() => s.min.to_string(),
        (TripRule::Induction(_), Some(s)) => format!(
            "per thread {}..{}, per warp {{{}}}",
            s.min,
            s.max,
            s.warp_values
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        (TripRule::Induction(_), None) => "per thread".to_string(),
    };
    let source = match &t.source {
        TripSource::Explicit { file, row } => format!("explicit {file}:{row}"),
        TripSource::Static => "static".to_string(),
        TripSource::Profile {
            file,
            residual,
            ambiguous,
        } => format!(
            "profile {file}, residual {residual:.2}{}",
            if *ambiguous { ", ambiguous" } else { "" }
        ),
        TripSource::Default => "default".to_string(),
    };
    format!("{value} ({source})")
}

fn loop_line(k: &Kernel, an: &Analysis, l: LoopId, trips: Option<&Trips>) -> String {
    let lp = an.loops.get(l);
    let names = |bs: &mut dyn Iterator<Item = BlockId>| {
        bs.map(|b| k.block_name(b)).collect::<Vec<_>>().join(" ")
    };
    let mut s = format!(
        "{l} header {} (ptx {}{}) latches [{}] blocks [{}] exits [{}]",
        k.block_name(lp.header),
        k.block_line(lp.header),
        k.block_loc(lp.header)
            .map(|loc| format!(", line:{}", loc.line))
            .unwrap_or_default(),
        names(&mut lp.latches.iter().copied()),
        names(&mut lp.blocks.iter().copied()),
        lp.exits
            .iter()
            .map(|(a, b)| format!("{}->{}", k.block_name(*a), k.block_name(*b)))
            .collect::<Vec<_>>()
            .join(" ")
    );
    if let Some(iv) = an.induction(l) {
        let sym = iv.symbol.as_ref().map(|o| operand_text(k, o));
        let aff = |a: crate::induction::Affine| {
            let mut t = String::new();
            if a.s != 0 {
                let name = sym.clone().unwrap_or_default();
                t = match a.s {
                    1 => name,
                    -1 => format!("-{name}"),
                    s => format!("{s}*{name}"),
                };
            }
            if a.k != 0 || t.is_empty() {
                if !t.is_empty() && a.k > 0 {
                    t.push('+');
                }
                t.push_str(&a.k.to_string());
            }
            t
        };
        let name = k.reg_name(iv.iv);
        let _ = write!(
            s,
            " iv {name} step {} test {name}{}{} {:?} {}",
            aff(iv.step),
            if iv.offset.s > 0 || (iv.offset.s == 0 && iv.offset.k >= 0) {
                "+"
            } else {
                ""
            },
            aff(iv.offset),
            iv.cont,
            operand_text(k, &iv.bound)
        );
    }
    if let Some(t) = trips {
        let _ = write!(s, " trips {}", trip_text(t.get(l)));
    }
    s
}

fn operand_text(k: &Kernel, o: &crate::kernel::Operand) -> String {
    use crate::kernel::Operand as O;
    match o {
        O::Reg(r) => k.reg_name(*r).to_string(),
        O::Imm(v) => (*v as i64).to_string(),
        O::Special(s) => format!("{s:?}"),
        O::Base { base, offset } => format!("{}+{offset}", k.bases[base.index()].name),
        other => format!("{other:?}"),
    }
}

/// The stable text summary: blocks with successors and reconvergence points, then the loop
/// forest (indented by depth) with trip counts when given.
pub fn summary(k: &Kernel, an: &Analysis, trips: Option<&Trips>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "kernel {}", display_name(&k.name));
    let _ = writeln!(
        s,
        "params: {}",
        k.params
            .iter()
            .map(|p| format!("{} ({} B)", p.name, p.bytes))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        s,
        "blocks: {}, edges: {}, instructions: {}, registers: {}, loops: {}",
        k.blocks.len(),
        k.cfg.edge_count(),
        k.insts.len(),
        k.regs.len(),
        an.loops.len()
    );
    for b in k.cfg.blocks() {
        let blk = k.block(b);
        let lines = match (blk.insts.first(), blk.insts.last()) {
            (Some(f), Some(l)) => format!("ptx {}-{}", k.inst(*f).ptx_line, k.inst(*l).ptx_line),
            _ => "empty".to_string(),
        };
        let mut line = format!(
            "  {b} {}: {} insts, {lines}; {}",
            blk.label.as_deref().unwrap_or("-"),
            blk.insts.len(),
            succ_text(k, b)
        );
        if matches!(blk.term, Term::Cond { .. } | Term::Switch { .. }) {
            let _ = write!(
                line,
                "; reconverge at {}",
                an.pdom
                    .ipdom(b)
                    .map_or("exit".to_string(), |p| k.block_name(p))
            );
        }
        if !an.dom.is_reachable(b) {
            line.push_str("; unreachable");
        }
        let _ = writeln!(s, "{line}");
    }
    let _ = writeln!(s, "loop forest:");
    fn walk(s: &mut String, k: &Kernel, an: &Analysis, l: LoopId, trips: Option<&Trips>) {
        let depth = an.loops.get(l).depth as usize;
        let _ = writeln!(s, "{}{}", "  ".repeat(depth), loop_line(k, an, l, trips));
        for c in &an.loops.get(l).children {
            walk(s, k, an, *c, trips);
        }
    }
    for r in an.loops.roots() {
        walk(&mut s, k, an, *r, trips);
    }
    if let Some(t) = trips {
        for w in &t.warnings {
            let _ = writeln!(s, "warning: {}", w.message);
        }
    }
    s
}

/// `--explain`: every loop with its trip count, source and PTX line.
pub fn explain(k: &Kernel, an: &Analysis, trips: &Trips) -> String {
    let mut s = String::new();
    for l in an.loops.ids() {
        let h = an.loops.get(l).header;
        let src = k
            .block_loc(h)
            .map(|loc| format!(" {}:{}", k.file_name(loc).unwrap_or("?"), loc.line))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "{l} {} PTX line {}{src}: trips {}",
            k.block_name(h),
            k.block_line(h),
            trip_text(trips.get(l))
        );
    }
    s
}

#[derive(Serialize)]
struct JsonBlock {
    id: BlockId,
    label: Option<String>,
    instructions: usize,
    first_ptx_line: u32,
    succs: Vec<BlockId>,
    term: Term,
    ipdom: Option<BlockId>,
    idom: Option<BlockId>,
    reachable: bool,
}

#[derive(Serialize)]
struct JsonLoop<'a> {
    id: LoopId,
    header: BlockId,
    header_label: Option<String>,
    ptx_line: u32,
    source_line: Option<u32>,
    latches: &'a [BlockId],
    blocks: &'a [BlockId],
    exits: &'a [(BlockId, BlockId)],
    parent: Option<LoopId>,
    depth: u32,
    trips: Option<&'a LoopTrip>,
}

#[derive(Serialize)]
struct JsonCfg<'a> {
    kernel: &'a str,
    demangled: Option<String>,
    /// Register names indexed by the register ids used below.
    registers: Vec<&'a str>,
    blocks: Vec<JsonBlock>,
    loops: Vec<JsonLoop<'a>>,
    warnings: Vec<&'a str>,
}

/// The CFG, loops and trip counts as pretty JSON.
pub fn json(k: &Kernel, an: &Analysis, trips: Option<&Trips>) -> String {
    let doc = JsonCfg {
        kernel: &k.name,
        demangled: crate::names::demangle(&k.name),
        registers: k.regs.iter().map(|r| r.name.as_str()).collect(),
        blocks: k
            .cfg
            .blocks()
            .map(|b| JsonBlock {
                id: b,
                label: k.block(b).label.clone(),
                instructions: k.block(b).insts.len(),
                first_ptx_line: k.block_line(b),
                succs: k.cfg.succs(b).to_vec(),
                term: k.block(b).term.clone(),
                ipdom: an.pdom.ipdom(b),
                idom: an.dom.idom(b),
                reachable: an.dom.is_reachable(b),
            })
            .collect(),
        loops: an
            .loops
            .ids()
            .map(|l| {
                let lp = an.loops.get(l);
                JsonLoop {
                    id: l,
                    header: lp.header,
                    header_label: k.block(lp.header).label.clone(),
                    ptx_line: k.block_line(lp.header),
                    source_line: k.block_loc(lp.header).map(|s| s.line),
                    latches: &lp.latches,
                    blocks: &lp.blocks,
                    exits: &lp.exits,
                    parent: lp.parent,
                    depth: lp.depth,
                    trips: trips.map(|t| t.get(l)),
                }
            })
            .collect(),
        warnings: trips
            .map(|t| t.warnings.iter().map(|w| w.message.as_str()).collect())
            .unwrap_or_default(),
    };
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Graphviz DOT: one node per block, loops as nested clusters, back edges dashed.
pub fn dot(k: &Kernel, an: &Analysis, trips: Option<&Trips>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "digraph \"{}\" {{", dot_escape(&k.name));
    let _ = writeln!(s, "  node [shape=box, fontname=monospace];");
    fn cluster(s: &mut String, an: &Analysis, l: LoopId, trips: Option<&Trips>, ind: usize) {
        let lp = an.loops.get(l);
        let pad = "  ".repeat(ind);
        let label = match trips {
            Some(t) => format!("{l}: trips {}", trip_text(t.get(l))),
            None => l.to_string(),
        };
        let _ = writeln!(s, "{pad}subgraph cluster_{} {{", l.0);
        let _ = writeln!(s, "{pad}  label=\"{}\"; style=rounded;", dot_escape(&label));
        for c in &lp.children {
            cluster(s, an, *c, trips, ind + 1);
        }
        for &b in &lp.blocks {
            if an.loops.innermost(b) == Some(l) {
                let _ = writeln!(s, "{pad}  {b};");
            }
        }
        let _ = writeln!(s, "{pad}}}");
    }
    for b in k.cfg.blocks() {
        let blk = k.block(b);
        let _ = writeln!(
            s,
            "  {b} [label=\"{}\\n{} insts, ptx {}\"];",
            dot_escape(blk.label.as_deref().unwrap_or(&b.to_string())),
            blk.insts.len(),
            k.block_line(b)
        );
    }
    for r in an.loops.roots() {
        cluster(&mut s, an, *r, trips, 1);
    }
    for b in k.cfg.blocks() {
        let term = &k.block(b).term;
        for &t in k.cfg.succs(b) {
            let mut attrs = Vec::new();
            if let Term::Cond { taken, .. } = term {
                attrs.push(if *taken == t {
                    "label=\"T\""
                } else {
                    "label=\"F\""
                });
            }
            if an
                .loops
                .loop_with_header(t)
                .is_some_and(|l| an.loops.get(l).contains(b))
            {
                attrs.push("style=dashed");
            }
            let a = if attrs.is_empty() {
                String::new()
            } else {
                format!(" [{}]", attrs.join(", "))
            };
            let _ = writeln!(s, "  {b} -> {t}{a};");
        }
    }
    let _ = writeln!(s, "}}");
    s
}
