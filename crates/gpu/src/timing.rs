//! Per-node timing side tables: the output of mappers f and g, kept outside the IDG and
//! indexed by `idg::NodeId` (one `ClassTiming` per warp class, `nodes[i]` for node `i`).

use crate::class::InstClass;
use crate::cycles::Cycles;
use crate::profile::SubsystemId;
use serde::{Deserialize, Serialize};

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
    /// Bytes one execution moves between L2 and DRAM by the static access analysis: a global
    /// load's or `cp.async`'s sectors on first touch, a store's sectors (written back); none
    /// for data on chip (a line its group's warps share, data the whole grid reads, a uniform
    /// word). A re-read (`l2_reuse`) moves them only while it misses. What the bandwidth
    /// floor reads when no counters measured the launch's traffic.
    #[serde(skip_serializing_if = "is_zero")]
    pub dram_bytes: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
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
    /// Where re-reads share L2 with written data, the profile's measured hit fraction
    /// instead of that step (`max_warps_per_sm` is then the half-hit point's occupancy).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graded: Option<GradedHits>,
}

/// Most points of a hit curve (`limits.l2_hit_curve`).
pub const MAX_CURVE_POINTS: usize = 16;

/// A re-read's L2 hit fraction by occupancy: `warps · per_warp_bytes + shared_bytes` is the
/// footprint (written bytes weighted) every SM's resident warps touch between its two reads,
/// read on the profile's curve of hit fraction against footprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GradedHits {
    pub per_warp_bytes: u64,
    pub shared_bytes: u64,
    pub l2_bytes: u64,
    /// `[x, h]` in thousandths (of `l2_bytes`, of the re-reads); `len` used.
    pub points: [[u32; 2]; MAX_CURVE_POINTS],
    pub len: u8,
}

impl GradedHits {
    /// Thousandths of the re-reads that hit L2 with `warps` resident warps per SM.
    pub fn hit_permille(&self, warps: u64) -> u64 {
        let pts = &self.points[..usize::from(self.len)];
        let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
            return 1000;
        };
        let footprint = warps
            .saturating_mul(self.per_warp_bytes)
            .saturating_add(self.shared_bytes);
        // The footprint in thousandths of L2, as a fraction over l2_bytes.
        let x = |p: &[u32; 2]| u128::from(p[0]) * u128::from(self.l2_bytes.max(1));
        let f = u128::from(footprint) * 1000;
        if f <= x(first) {
            return u64::from(first[1]);
        }
        if f >= x(last) {
            return u64::from(last[1]);
        }
        let i = pts.iter().position(|p| x(p) >= f).unwrap_or(pts.len() - 1);
        let (a, b) = (pts[i - 1], pts[i]);
        let (xa, xb) = (x(&a), x(&b));
        let (ha, hb) = (u128::from(a[1]), u128::from(b[1]));
        // h falls from ha to hb as f goes from xa to xb.
        let h = ha - (ha - hb) * (f - xa) / (xb - xa).max(1);
        h as u64
    }
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

#[cfg(test)]
mod graded_tests {
    use super::*;

    #[test]
    fn hit_fraction_follows_the_curve_by_occupancy() {
        let mut points = [[0u32; 2]; MAX_CURVE_POINTS];
        points[..3].copy_from_slice(&[[200, 1000], [600, 800], [1000, 0]]);
        let g = GradedHits {
            per_warp_bytes: 100,
            shared_bytes: 0,
            l2_bytes: 10_000,
            points,
            len: 3,
        };
        // 20 warps: 2000 bytes, 0.2 of L2: the first point.
        assert_eq!(g.hit_permille(10), 1000);
        assert_eq!(g.hit_permille(20), 1000);
        // 40 warps: 0.4, half way from 1000 to 800.
        assert_eq!(g.hit_permille(40), 900);
        assert_eq!(g.hit_permille(80), 400);
        assert_eq!(g.hit_permille(100), 0);
        assert_eq!(g.hit_permille(1000), 0);
    }
}
