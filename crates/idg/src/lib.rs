//! The compact Instruction Dependence Graph (IDG) of the Pipeline model.
//!
//! An IDG (pipeline-model-analysis, section 3.1.1; pipeline-performance-model-idg, section
//! III.C) has one vertex per executed warp instruction and an edge per def-use dependence. A
//! loop run 10^6 times must not cost 10^6 vertices, so this crate keeps each warp class as a
//! *compact* tree: template nodes in program order, loops as [`Repeat`]s with a count. Three
//! views derive from it, all sharing one definition of dependence (see [`stream`]):
//! - [`Stream`]: unrolls on the fly for the simulator, memory bounded by code size;
//! - [`Idg::materialize`]: a petgraph graph for small cases, DOT and tests;
//! - [`Idg::stats`] and [`Idg::compact_edges`]: counts and loop-carried edges without unrolling;
//! - [`counts`]: dynamic counts per warp by the classes profilers count.
//!
//! This crate only stores and derives; building IDGs from PTX is `walk`'s job, timing them is
//! `gpu`'s and `sim`'s. Side data (λ, Λ per node) lives outside in tables indexed by [`NodeId`].

pub mod analysis;
pub mod counts;
pub mod dot;
pub mod graph;
pub mod kernel;
pub mod materialize;
pub mod node;
pub mod render;
pub mod stream;

pub use analysis::{CompactEdge, Stats};
pub use graph::{Idg, IdgBuilder, Item, Repeat};
pub use kernel::{
    edge_combinations, Edge, Edges, GroupClasses, GroupMap, KernelIdgs, WarpClass, SCHEMA_VERSION,
};
pub use materialize::{DynEdge, DynNode, Materialized};
pub use node::*;
pub use stream::{DepTable, DynInst, FramePosition, Stream};

impl Idg {
    /// Unrolls this warp class on the fly; see [`stream`] for the dependence semantics.
    pub fn stream(&self) -> Stream<'_> {
        Stream::new(self)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdgError {
    #[error("node {0} is out of range")]
    NodeOutOfRange(u32),
    #[error("node {0} occurs twice in the tree")]
    NodeTwice(u32),
    #[error("node {0} does not occur in the tree")]
    NodeMissing(u32),
    #[error("loop {0} is out of range")]
    LoopOutOfRange(u32),
    #[error("resource {0} is out of range")]
    ResourceOutOfRange(u32),
    #[error("begin_repeat/end_repeat are unbalanced")]
    UnbalancedRepeat,
    #[error("loop {0} has a zero count but nodes in its body")]
    EmptyRepeatWithNodes(u32),
    #[error("the graph has {nodes} dynamic instructions, more than the limit of {limit}")]
    TooLarge { nodes: u64, limit: u64 },
    #[error(
        "warp class {class}: its critical path needs a walk of more than {work} instructions \
         (loops with loops inside, or a loop whose dependences never settle, walk every \
         iteration), more than the analysis budget of {limit}; lower the trip counts \
         (--trips), or use --format json, which needs no walk"
    )]
    AnalysisTooLarge { class: usize, work: u64, limit: u64 },
    #[error("IDG schema version {found}, this build reads version {expected}")]
    Schema { found: u32, expected: u32 },
    #[error("launch grid {grid:?}, block {block:?} ({warps_per_group} warps per group): a block holds 1..=65536 threads and a grid 1..=2^63 groups, every walked group is in the grid and every warp id fits 64 bits")]
    Launch {
        grid: [u32; 3],
        block: [u32; 3],
        warps_per_group: u32,
    },
    #[error("the kernel has no warp class")]
    NoClasses,
    #[error("a class lists its warps out of order")]
    WarpsUnsorted,
    #[error("warp {0} is in two classes")]
    WarpInTwoClasses(u64),
    #[error("invalid IDG JSON: {0}")]
    Json(String),
}
