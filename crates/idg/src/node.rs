//! Template nodes of an IDG and the typed ids that name them.
//!
//! A template node is one occurrence of a PTX instruction in a warp's compact path. When the
//! compact form is unrolled, a node inside a `Repeat` yields one dynamic instruction per
//! iteration; the node itself is stored once, which is what bounds memory by code size.

use serde::{Deserialize, Serialize};

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as an index into the owning `Vec`.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// Index of a template node in `Idg::nodes`.
    NodeId
);
id_type!(
    /// Index of a dependence carrier (register, predicate, memory space, control) in `Idg::resources`.
    ResourceId
);
id_type!(
    /// Index of a source loop in `Idg::loops`.
    LoopId
);
id_type!(
    /// Index of a warp class in `KernelIdgs::classes`.
    ClassId
);

/// The paper's instruction categories (section 3.1.1), plus branches, which the paper folds into
/// computation but which carry control dependences here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Compute,
    Memory,
    Barrier,
    Control,
}

/// Where a memory instruction's data lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemSpace {
    Global,
    Shared,
    Local,
    Const,
    Param,
    Generic,
    Texture,
    Surface,
}

/// What the static address analysis learned about one memory instruction of a warp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessPattern {
    /// Stride between consecutive active lanes when the address is affine in the lane index.
    pub lane_stride_bytes: Option<i64>,
    /// Distinct 32-byte sectors the active lanes touch (global and local memory).
    pub sectors_per_request: u32,
    /// Extra shared-memory wavefronts caused by bank conflicts (0 = conflict-free); the `D` of
    /// λ' = (1+D)·λ and Λ' = Λ + D·λ.
    pub bank_conflict_degree: u32,
}

/// Memory behaviour of a node; `None` on `Node::mem` for non-memory instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemAccess {
    pub space: MemSpace,
    pub store: bool,
    pub atomic: bool,
    pub bytes_per_lane: u32,
    pub pattern: Option<AccessPattern>,
    /// A global load whose data was touched before (`None`: first touch, or not known).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reuse: Option<Reuse>,
    /// Of a global load's sectors (static addresses), how many the warp touched before, at
    /// any distance: the part of the request its own earlier accesses may have left in L1
    /// (a stencil's shifted neighbour rows). 0 where the addresses are unknown.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub seen_sectors: u32,
    /// Of the sectors the warp did not touch before, how many an earlier warp of its group
    /// loads (at any point of its path): lines the group brings into L1 once. 0 where the
    /// addresses are unknown.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sibling_sectors: u32,
    /// Of the rest, how many a group launched shortly before this one loads (a stencil's
    /// halo rows, the tile next to this group's): in L2 when this load comes, so they move
    /// no DRAM bytes. Counted only where the walk looks for data nearby groups share (a
    /// launch without counters, which would give the DRAM share); 0 elsewhere.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub group_sectors: u32,
    /// A global atomic behind a branch on data the walk does not know, before that branch's
    /// paths meet again: how many of its lanes run is the walk's assumption, not a fact.
    #[serde(default, skip_serializing_if = "is_false")]
    pub assumed: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Why a global load finds its data already on chip, from the static addresses: the data is
/// in L2 if nothing evicted it in between (mapper g without a profile decides that).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reuse {
    /// The warp touched every sector of this access before; `distance_bytes` is the global
    /// data (distinct 32-byte sectors) it touched from the oldest of those touches to this
    /// one, its share of what L2 must hold for the re-read to hit; `written_bytes` is the
    /// part of it a store touched first (written data crowds re-read data out of L2 sooner);
    /// `shared_bytes` the part that every group loads (`Groups`), one copy in L2 for all.
    Warp {
        distance_bytes: u64,
        #[serde(default)]
        written_bytes: u64,
        #[serde(default)]
        shared_bytes: u64,
    },
    /// An earlier warp of the same group loads the same sectors at the same point of its path
    /// (a layout that replicates data over warps): that warp's request brings the lines into
    /// the SM's L1.
    Siblings,
    /// Another work group reads the same sectors at the same point of its path (the address
    /// does not depend on the group): the grid reads that data over and over.
    Groups,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BarrierKind {
    /// `bar.sync` / `barrier.sync`: arrive and wait for the whole group.
    Sync,
    /// `bar.arrive`: arrive without waiting.
    Arrive,
    /// `bar.red`: a reduction that also waits.
    Red,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Barrier {
    pub id: u32,
    pub kind: BarrierKind,
    /// The thread count operand, when given; `None` means the whole group.
    pub expected_threads: Option<u32>,
}

/// A CUDA source position from `.loc`; `file` indexes the module's `.file` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SrcLoc {
    pub file: u32,
    pub line: u32,
}

/// One template node of the compact IDG.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub op: ptx::ast::Op,
    pub category: Category,
    /// Resources this instruction reads; each read depends on the resource's last writer.
    pub reads: Vec<ResourceId>,
    pub writes: Vec<ResourceId>,
    /// Last-writer copies applied after `writes`, in order: `(from, to)` makes the last
    /// writer of `from` the last writer of `to`. The commit of an asynchronous group shifts
    /// the group slots this way, so that a wait for all but the newest N groups reads the
    /// slot holding the instruction that ended the group committed N before the newest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<(ResourceId, ResourceId)>,
    pub ptx_line: u32,
    pub src: Option<SrcLoc>,
    pub mem: Option<MemAccess>,
    pub barrier: Option<Barrier>,
    /// Lanes active when the warp executes this node (1..=32).
    pub active_lanes: u32,
    /// Of the machine code's FP32 and integer instructions in this node's region (the
    /// listing's loop the alignment paired with the node's loop, or the code outside every
    /// loop), the share in thousandths that reads two registers of one bank past the operand
    /// reuse cache (`align`); mapper g times arithmetic nodes longer by it. 0 without a
    /// listing.
    #[serde(default, skip_serializing_if = "is_zero_u16")]
    pub register_conflicts: u16,
}

fn is_zero_u16(v: &u16) -> bool {
    *v == 0
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceKind {
    Register,
    Predicate,
    /// A whole state space, for store-to-load ordering within a warp.
    Memory,
    /// Written by branches, read by every later instruction when control dependences are on.
    Control,
    /// The completion of asynchronous work (`cp.async` copies, `wgmma` groups): the last
    /// issued instruction of a kind, and the slots of its committed groups.
    Async,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resource {
    pub name: String,
    pub kind: ResourceKind,
}

/// A source loop as the IDG builder resolved it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopInfo {
    /// PTX label of the loop header.
    pub label: String,
    pub ptx_line: u32,
    pub src: Option<SrcLoc>,
    /// How the trip count was decided (explicit, static, profile, default).
    pub trip_source: String,
}
