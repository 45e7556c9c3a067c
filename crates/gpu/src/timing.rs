//! Per-node timing side tables: the output of mappers f and g, kept outside the IDG and
//! indexed by `idg::NodeId` (one `ClassTiming` per warp class, `nodes[i]` for node `i`).

use crate::class::InstClass;
use crate::cycles::Cycles;
use crate::profile::SubsystemId;
use serde::Serialize;

/// Which mapper decided a node's timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum MapSource {
    /// Mapper f: the class's profile values (context-independent).
    #[serde(rename = "f")]
    F,
    /// Mapper g from profiler metrics (R for global memory, D for shared memory; §6.3).
    #[serde(rename = "g-profile")]
    GProfile,
    /// Mapper g from the static access pattern (sectors per request, bank conflicts).
    #[serde(rename = "g-static")]
    GStatic,
    /// Mapper f could not classify the opcode; the conservative class was used.
    #[serde(rename = "conservative")]
    Conservative,
}

impl MapSource {
    pub fn as_str(self) -> &'static str {
        match self {
            MapSource::F => "f",
            MapSource::GProfile => "g-profile",
            MapSource::GStatic => "g-static",
            MapSource::Conservative => "conservative",
        }
    }
}

/// Subsystem, issue latency λ and completion latency Λ of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NodeTiming {
    pub subsystem: SubsystemId,
    pub lambda: Cycles,
    pub latency: Cycles,
    pub source: MapSource,
    pub class: InstClass,
    /// A global load that re-reads its warp's data: its λ and Λ when that data is still in
    /// L2, which depends on how many warps run at once (decided per execution configuration).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l2_reuse: Option<L2Reuse>,
}

/// The L2 timing of a re-read and the occupancy up to which it applies: the data the
/// resident warps of every SM touch between a warp's two reads must fit in L2,
/// `warps_per_sm · SMs · distance ≤ L2 bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct L2Reuse {
    /// The pipe the re-read runs on while it hits: the profile's `reread_subsystem` for a
    /// coalesced one, else the node's own (the memory subsystem).
    pub subsystem: SubsystemId,
    pub lambda: Cycles,
    pub latency: Cycles,
    /// The most resident warps per SM for which the data is still in L2.
    pub max_warps_per_sm: u64,
}

/// Timings of one warp class's IDG; `nodes[n.index()]` belongs to `NodeId` n.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct ClassTiming {
    pub nodes: Vec<NodeTiming>,
}

impl ClassTiming {
    pub fn node(&self, id: idg::NodeId) -> &NodeTiming {
        &self.nodes[id.index()]
    }
}
