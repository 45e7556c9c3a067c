//! Dynamic counts of a launch's IDGs per warp, by the classes profilers count: instructions,
//! active-lane instructions, global and shared loads and stores, branches, divergent
//! branches. PTX counts: converting them to a GPU's SASS counts and comparing them with a
//! profile is `gpu::counters`' job; choosing branch assumptions from them is the walk's.

use serde::Serialize;

use crate::{Category, Idg, Item, KernelIdgs, MemSpace, Node, NodeId};

/// A counter the IDG predicts and profilers measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Counter {
    /// Warp instructions.
    Instructions,
    /// Thread instructions: each warp instruction counts its active lanes.
    ThreadInstructions,
    /// Global load instructions (`ld.global` / `LDG`; one request each).
    GlobalLoads,
    /// Global store instructions (`st.global` / `STG`).
    GlobalStores,
    /// Shared-memory load instructions (`ld.shared`, `ldmatrix` / `LDS`, `LDSM`).
    SharedLoads,
    /// Shared-memory store instructions (`st.shared` / `STS`).
    SharedStores,
    /// Control-flow instructions.
    Branches,
    /// Branch executions whose lanes split.
    DivergentBranches,
}

impl Counter {
    pub const ALL: [Counter; 8] = [
        Counter::Instructions,
        Counter::ThreadInstructions,
        Counter::GlobalLoads,
        Counter::GlobalStores,
        Counter::SharedLoads,
        Counter::SharedStores,
        Counter::Branches,
        Counter::DivergentBranches,
    ];

    /// The name printed in tables and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Counter::Instructions => "instructions",
            Counter::ThreadInstructions => "thread_instructions",
            Counter::GlobalLoads => "global_loads",
            Counter::GlobalStores => "global_stores",
            Counter::SharedLoads => "shared_loads",
            Counter::SharedStores => "shared_stores",
            Counter::Branches => "branches",
            Counter::DivergentBranches => "divergent_branches",
        }
    }
}

/// Per-warp PTX counts of one IDG (or a warp-weighted mean over classes), by [`Counter`]
/// in [`Counter::ALL`] order.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Counts(pub [f64; 8]);

impl Counts {
    pub fn get(&self, c: Counter) -> f64 {
        self.0[c as usize]
    }

    fn add(&mut self, c: Counter, v: f64) {
        self.0[c as usize] += v;
    }
}

/// The dynamic PTX counts of one warp running `idg`; `divergent` is its count of divergent
/// branch executions (from the walk).
pub fn idg_counts(idg: &Idg, divergent: u64) -> Counts {
    idg_counts_lowered(idg, divergent, &|_| 1)
}

/// [`idg_counts`] with each node counted as `lowered(node)` instructions (and memory
/// requests): what one PTX instruction becomes on a GPU (`gpu::fragment`: a `wmma.load` is
/// four loads). Branches and divergent branches count once.
pub fn idg_counts_lowered(idg: &Idg, divergent: u64, lowered: &dyn Fn(&Node) -> u32) -> Counts {
    let mut out = Counts::default();
    for_each_execution(idg, &mut |id, runs| {
        let n = idg.node(id);
        if n.category == Category::Control {
            out.add(Counter::Branches, runs);
        }
        let runs = runs * f64::from(lowered(n));
        out.add(Counter::Instructions, runs);
        out.add(
            Counter::ThreadInstructions,
            runs * f64::from(n.active_lanes),
        );
        let Some(m) = n.mem else { return };
        if m.atomic {
            return;
        }
        let c = match (m.space, m.store) {
            (MemSpace::Global, false) => Counter::GlobalLoads,
            (MemSpace::Global, true) => Counter::GlobalStores,
            (MemSpace::Shared, false) => Counter::SharedLoads,
            (MemSpace::Shared, true) => Counter::SharedStores,
            _ => return,
        };
        out.add(c, runs);
    });
    out.add(Counter::DivergentBranches, divergent as f64);
    out
}

/// Calls `f` with each place of a node in `idg`'s body and how many times one warp executes
/// it there (the product of its enclosing repeats' counts), in program order. Walks the
/// repeat tree, so its cost is the body's size, not the trip counts.
pub fn for_each_execution(idg: &Idg, f: &mut dyn FnMut(NodeId, f64)) {
    fn items(list: &[Item], runs: f64, f: &mut dyn FnMut(NodeId, f64)) {
        for item in list {
            match item {
                Item::Repeat(r) => items(&r.body, runs * r.count as f64, f),
                Item::Node(id) => f(*id, runs),
            }
        }
    }
    items(&idg.body, 1.0, f);
}

/// Per-warp PTX counts of a launch: the mean over the walked warps, each class weighted by
/// its warps. `divergent` is the walk's per-class count (`walk::Built::divergent_branches`),
/// `None` when unknown (IDGs read from JSON): divergent branches are then not predicted.
pub fn kernel_counts(idgs: &KernelIdgs, divergent: Option<&[u64]>) -> Counts {
    kernel_counts_lowered(idgs, divergent, &|_| 1)
}

/// [`kernel_counts`] with each node counted as `lowered(node)` instructions
/// ([`idg_counts_lowered`]).
pub fn kernel_counts_lowered(
    idgs: &KernelIdgs,
    divergent: Option<&[u64]>,
    lowered: &dyn Fn(&Node) -> u32,
) -> Counts {
    let mut sum = Counts::default();
    let mut warps = 0.0;
    let weights = idgs.class_weights();
    for (i, class) in idgs.classes.iter().enumerate() {
        let d = divergent.and_then(|d| d.get(i)).copied().unwrap_or(0);
        let c = idg_counts_lowered(&class.idg, d, lowered);
        let w = weights[i];
        for (s, v) in sum.0.iter_mut().zip(c.0) {
            *s += w * v;
        }
        warps += w;
    }
    if warps > 0.0 {
        for s in &mut sum.0 {
            *s /= warps;
        }
    }
    sum
}
