//! The timing side table the simulator consumes: for every template node of every warp class,
//! its subsystem, CPI λ and latency Λ in ticks (the output of mappers f and g, paper
//! section 3.1.3), kept outside the IDG and indexed by `NodeId`.
//!
//! Invariant (checked by [`check_costs`]): one cost per node of the class, subsystem indices in
//! range of the hardware.

use idg::{BarrierKind, Idg, Item, KernelIdgs, NodeId, ResourceKind};
use serde::{Deserialize, Serialize};

use crate::{Hardware, SimError};

/// Timing of one template node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeCost {
    /// Index into `Hardware::subsystems`.
    pub subsystem: u16,
    /// λ in ticks: the subsystem accepts its next instruction λ after this one.
    pub lambda: u64,
    /// Λ in ticks: issue to completion (when dependants may issue).
    pub latency: u64,
    /// Another λ and Λ that apply while the resident warps are few enough (a re-read whose
    /// data stays in L2, `gpu::L2Reuse`); `None` for most nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below_occupancy: Option<OccupancyCost>,
    /// Bytes one execution moves between L2 and DRAM (`gpu::NodeTiming::dram_bytes`); a
    /// node with `below_occupancy` moves them only while it misses.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dram_bytes: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Subsystem, λ and Λ in ticks that replace a node's while at most `max_warps` warps are
/// resident.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OccupancyCost {
    pub max_warps: u64,
    /// Index into `Hardware::subsystems`.
    pub subsystem: u16,
    pub lambda: u64,
    pub latency: u64,
    /// A re-read with written data in between: the share that hits by occupancy, instead of
    /// the step at `max_warps` (`gpu::GradedHits`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graded: Option<gpu::GradedHits>,
}

impl NodeCost {
    /// The cost at `resident_warps` warps per core.
    pub fn at_occupancy(&self, resident_warps: u64) -> NodeCost {
        match self.below_occupancy {
            Some(
                o @ OccupancyCost {
                    graded: Some(g), ..
                },
            ) => {
                let h = g.hit_permille(resident_warps).min(1000);
                match h {
                    1000 => NodeCost {
                        subsystem: o.subsystem,
                        lambda: o.lambda,
                        latency: o.latency,
                        below_occupancy: None,
                        dram_bytes: 0,
                    },
                    0 => NodeCost {
                        below_occupancy: None,
                        ..*self
                    },
                    // The misses on the node's own pipe at its own timing; the hits overlap
                    // there (on the re-read pipe) and add their L2 latency.
                    h => NodeCost {
                        subsystem: self.subsystem,
                        lambda: mix(self.lambda, 0, h),
                        latency: mix(self.latency, o.latency, h),
                        below_occupancy: None,
                        dram_bytes: mix(self.dram_bytes, 0, h),
                    },
                }
            }
            Some(o) if resident_warps <= o.max_warps => NodeCost {
                subsystem: o.subsystem,
                lambda: o.lambda,
                latency: o.latency,
                below_occupancy: None,
                dram_bytes: 0,
            },
            _ => NodeCost {
                below_occupancy: None,
                ..*self
            },
        }
    }
}

/// `miss` and `hit` weighted by thousandths `h` of hits.
fn mix(miss: u64, hit: u64, h: u64) -> u64 {
    let v =
        (u128::from(miss) * u128::from(1000 - h) + u128::from(hit) * u128::from(h) + 500) / 1000;
    v as u64
}

/// Costs of one warp class, indexed by `NodeId`.
pub type ClassCosts = Vec<NodeCost>;

/// Totals over the whole launch of quantities the static analysis gives each node execution:
/// `per_node(class, node)` summed over every execution of the class's warp (times the runs of
/// its repeats), each class's total per warp weighted by the class's share of the walked
/// warps, times the launch's warps. `None` without walked classes.
fn launch_totals<const N: usize>(
    kernel: &KernelIdgs,
    exec: &crate::ExecConfig,
    mut per_node: impl FnMut(usize, NodeId) -> [f64; N],
) -> Option<[f64; N]> {
    let (mut sum, mut walked) = ([0.0; N], 0.0);
    let weights = kernel.class_weights();
    for (c, class) in kernel.classes.iter().enumerate() {
        let mut per_warp = [0.0; N];
        idg::counts::for_each_execution(&class.idg, &mut |id, runs| {
            for (p, v) in per_warp.iter_mut().zip(per_node(c, id)) {
                if v != 0.0 {
                    *p += runs * v;
                }
            }
        });
        let w = if class.warps.is_empty() {
            1.0
        } else {
            weights[c]
        };
        for (s, p) in sum.iter_mut().zip(per_warp) {
            *s += w * p;
        }
        walked += w;
    }
    let warps = exec.total_groups as f64 * f64::from(exec.warps_per_group);
    (walked > 0.0).then(|| sum.map(|s| s / walked * warps))
}

/// DRAM (read, write) bytes of one execution of node `id` of class `c`: its cost's at the
/// run's occupancy (`resident` warps), on the write side for a store.
fn node_dram_bytes(
    kernel: &KernelIdgs,
    costs: &[ClassCosts],
    resident: u64,
    c: usize,
    id: NodeId,
) -> [f64; 2] {
    let bytes = costs
        .get(c)
        .and_then(|cc| cc.get(id.index()))
        .map_or(0, |n| n.at_occupancy(resident).dram_bytes) as f64;
    if kernel.classes[c].idg.node(id).mem.is_some_and(|m| m.store) {
        [0.0, bytes]
    } else {
        [bytes, 0.0]
    }
}

/// L2 atomic sectors of one execution of node `id` of class `c` that the atomic floor counts:
/// a global atomic's (`gpu::static_atomic_sectors`) unless it is `MemAccess::assumed`, whose
/// lanes may not run at all.
fn node_atomic_sectors(kernel: &KernelIdgs, c: usize, id: NodeId) -> f64 {
    let node = kernel.classes[c].idg.node(id);
    match node.mem.as_ref() {
        Some(m) if m.atomic && m.space == idg::MemSpace::Global && !m.assumed => {
            f64::from(gpu::static_atomic_sectors(node, m))
        }
        _ => 0.0,
    }
}

/// The DRAM (read, write) bytes of the whole launch by the static access analysis
/// (`NodeCost::dram_bytes` at the run's occupancy, re-reads counting their misses only),
/// totalled by [`launch_totals`]. `None` when no node moves DRAM bytes (no mapper g, or no
/// global traffic).
pub fn static_dram_bytes(
    kernel: &KernelIdgs,
    costs: &[ClassCosts],
    exec: &crate::ExecConfig,
) -> Option<(f64, f64)> {
    let resident = exec.occupancy_warps();
    launch_totals(kernel, exec, |c, id| {
        node_dram_bytes(kernel, costs, resident, c, id)
    })
    .filter(|[r, w]| r + w > 0.0)
    .map(|[r, w]| (r, w))
}

/// The L2 atomic sectors of the whole launch's global atomics and reductions by the static
/// access analysis, totalled by [`launch_totals`]: what the atomic floor reads, so only the
/// atomics that surely run ([`node_atomic_sectors`]). `None` when the kernel has none.
pub fn static_atomic_sectors(kernel: &KernelIdgs, exec: &crate::ExecConfig) -> Option<f64> {
    launch_totals(kernel, exec, |c, id| [node_atomic_sectors(kernel, c, id)])
        .map(|[a]| a)
        .filter(|a| *a > 0.0)
}

/// What the static access analysis says a whole launch moves, read by the device-wide floors
/// where no counters measured it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StaticTraffic {
    /// DRAM (read, write) bytes ([`static_dram_bytes`]).
    pub dram: Option<(f64, f64)>,
    /// L2 atomic sectors ([`static_atomic_sectors`]).
    pub atomic_sectors: Option<f64>,
}

/// [`static_dram_bytes`] and [`static_atomic_sectors`] of a run, in one pass over its IDGs.
pub fn static_traffic(
    kernel: &KernelIdgs,
    costs: &[ClassCosts],
    exec: &crate::ExecConfig,
) -> StaticTraffic {
    let resident = exec.occupancy_warps();
    let totals = launch_totals(kernel, exec, |c, id| {
        let [r, w] = node_dram_bytes(kernel, costs, resident, c, id);
        [r, w, node_atomic_sectors(kernel, c, id)]
    });
    StaticTraffic {
        dram: totals
            .filter(|[r, w, _]| r + w > 0.0)
            .map(|[r, w, _]| (r, w)),
        atomic_sectors: totals.map(|[.., a]| a).filter(|a| *a > 0.0),
    }
}

/// A node's cost as one run reads it: at the run's occupancy, λ scaled to a partition.
/// Only what the engine reads, so that a node's table entry stays small (it is copied on
/// every fetch and issue).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RunCost {
    pub lambda: u64,
    pub latency: u64,
    pub subsystem: u16,
}

/// What the engine needs per node: the cost plus the node's barrier role, resolved once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Prepared {
    pub cost: RunCost,
    pub barrier: Option<BarrierRole>,
    /// A store or reduction whose warp need not wait for it to reach memory before exiting
    /// (`SimOptions::posted_stores`).
    pub posted: bool,
    /// An instruction that ends the basic block of the compiled code its loads could be
    /// hoisted through: one ptxas lowers with a branch to a slow path (see [`splits_block`])
    /// or a loop's back edge (see [`mark_back_edges`]).
    pub splits_block: bool,
    /// The first instruction of a repeat body that runs at least twice: where a warp's
    /// schedule may start repeating, so where the engine looks for a steady state.
    pub loop_head: bool,
}

/// IEEE-rounded f32/f64 division, reciprocal and square root, and 64-bit integer division
/// and remainder: ptxas emits a fast path guarded by a branch to a subroutine (`FCHK` /
/// `CALL.REL` in the SASS of `div.rn.f32`), so no load after them is scheduled before them.
pub fn splits_block(op: &ptx::ast::Op) -> bool {
    use ptx::ast::{Flag, Opcode, ScalarType};
    let ty = op.mods.types.first().copied();
    match op.opcode {
        Opcode::Div | Opcode::Rcp | Opcode::Sqrt => match ty {
            Some(ScalarType::F32 | ScalarType::F64) => {
                !op.mods.flags.contains(Flag::Approx) && !op.mods.flags.contains(Flag::Full)
            }
            Some(t) => !t.is_float() && t.bits() == 64,
            None => false,
        },
        Opcode::Rem => ty.is_some_and(|t| !t.is_float() && t.bits() == 64),
        _ => false,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BarrierRole {
    pub id: u32,
    /// `bar.sync`/`bar.red` wait for the group; `bar.arrive` only counts.
    pub waits: bool,
    /// Warps that must arrive (`expected_threads` rounded up to warps, else the whole group).
    pub expected_warps: u32,
}

pub(crate) fn prepare(
    idg: &Idg,
    costs: &[NodeCost],
    warps_per_group: u32,
    resident_warps: u64,
    lambda_scale: &[u64],
    posted_stores: bool,
    latch_blocks: bool,
) -> Vec<Prepared> {
    let mut heads = vec![false; idg.nodes.len()];
    mark_loop_heads(&idg.body, &mut heads);
    let mut back_edges = vec![false; idg.nodes.len()];
    if latch_blocks {
        mark_back_edges(idg, &idg.body, None, &mut back_edges);
    }
    idg.nodes
        .iter()
        .zip(costs)
        .zip(heads.into_iter().zip(back_edges))
        .map(|((node, cost), (loop_head, back_edge))| Prepared {
            cost: {
                let c = cost.at_occupancy(resident_warps);
                RunCost {
                    lambda: c.lambda * lambda_scale[usize::from(c.subsystem)],
                    latency: c.latency,
                    subsystem: c.subsystem,
                }
            },
            barrier: node.barrier.map(|b| BarrierRole {
                id: b.id,
                waits: !matches!(b.kind, BarrierKind::Arrive),
                expected_warps: b
                    .expected_threads
                    .map(|t| t.div_ceil(32).clamp(1, warps_per_group))
                    .unwrap_or(warps_per_group),
            }),
            splits_block: splits_block(&node.op) || back_edge,
            loop_head,
            posted: posted_stores
                && node.barrier.is_none()
                && node.mem.is_some_and(|m| m.store)
                && node
                    .writes
                    .iter()
                    .all(|&r| matches!(idg.resources[r.index()].kind, ResourceKind::Memory)),
        })
        .collect()
}

/// Marks the branches after which the path goes back to an earlier PTX line: loop latches.
/// ptxas if-converts short forward branches into predicated code, so those need not end a
/// basic block of the SASS, but a backward branch always does, and ptxas does not software-
/// pipeline loops: no instruction of one iteration issues after the next iteration's first,
/// so a load of the next iteration never overtakes a stalled use of this one's.
/// `after` is the first node that follows `items` on the path.
fn mark_back_edges(idg: &Idg, items: &[Item], after: Option<NodeId>, marks: &mut [bool]) {
    fn first(items: &[Item]) -> Option<NodeId> {
        items.iter().find_map(|item| match item {
            Item::Node(n) => Some(*n),
            Item::Repeat(r) => first(&r.body),
        })
    }
    for (i, item) in items.iter().enumerate() {
        let next = first(&items[i + 1..]).or(after);
        match item {
            Item::Node(n) => {
                let node = idg.node(*n);
                if node.op.is_branch()
                    && next.is_some_and(|m| idg.node(m).ptx_line <= node.ptx_line)
                {
                    marks[n.index()] = true;
                }
            }
            Item::Repeat(r) => {
                // Every iteration but the last is followed by the body's own first node.
                let again = if r.count >= 2 { first(&r.body) } else { next };
                mark_back_edges(idg, &r.body, again, marks);
            }
        }
    }
}

fn mark_loop_heads(items: &[Item], heads: &mut [bool]) {
    for item in items {
        if let Item::Repeat(r) = item {
            if r.count >= 2 {
                if let Some(Item::Node(first)) = r.body.first() {
                    heads[first.index()] = true;
                }
            }
            mark_loop_heads(&r.body, heads);
        }
    }
}

/// Checks that `costs` has one table per class with one entry per node, subsystems in range.
/// Largest λ, Λ, issue interval or dispatch time the simulator takes, in ticks: 2^32 ticks,
/// about 537,000 cycles at `gpu::TICKS_PER_CYCLE`, far above any measured latency. With the
/// simulated-instruction budget and fast-forward's bound this keeps every time of a run
/// below 2^63 ticks, so no sum of times can overflow.
pub const MAX_COST_TICKS: u64 = 1 << 32;

/// Most scheduler partitions a core may have.
pub const MAX_PARTITIONS: u32 = 64;

/// Refuses hardware whose times or partition count the simulator cannot take.
pub fn check_hardware(hw: &Hardware) -> Result<(), SimError> {
    for (what, v) in [
        ("issue interval", hw.issue_interval),
        ("dispatch latency", hw.dispatch_latency),
        ("dispatch interval", hw.dispatch_interval),
    ] {
        if v > MAX_COST_TICKS {
            return Err(SimError::Config(format!(
                "the {what} of {v} ticks is beyond the simulator's range of {MAX_COST_TICKS} ticks"
            )));
        }
    }
    if hw.partitions == 0 || hw.partitions > MAX_PARTITIONS {
        return Err(SimError::Config(format!(
            "{} scheduler partitions (the simulator takes 1..={MAX_PARTITIONS})",
            hw.partitions
        )));
    }
    if hw.ticks_per_cycle == 0 || hw.ticks_per_cycle > MAX_COST_TICKS {
        return Err(SimError::Config(format!(
            "{} ticks per cycle (the simulator takes 1..={MAX_COST_TICKS})",
            hw.ticks_per_cycle
        )));
    }
    Ok(())
}

pub fn check_costs(
    kernel: &KernelIdgs,
    costs: &[ClassCosts],
    subsystems: usize,
) -> Result<(), SimError> {
    if costs.len() != kernel.classes.len() {
        return Err(SimError::Config(format!(
            "{} timing tables for {} warp classes",
            costs.len(),
            kernel.classes.len()
        )));
    }
    for (i, (class, table)) in kernel.classes.iter().zip(costs).enumerate() {
        if table.len() != class.idg.nodes.len() {
            return Err(SimError::Config(format!(
                "class {i}: {} timings for {} nodes",
                table.len(),
                class.idg.nodes.len()
            )));
        }
        if let Some((n, c)) = table.iter().enumerate().find(|(_, c)| {
            let below = c.below_occupancy.map_or(0, |o| o.lambda.max(o.latency));
            c.lambda.max(c.latency).max(below) > MAX_COST_TICKS
        }) {
            return Err(SimError::Config(format!(
                "class {i} node {n}: λ {} / Λ {} ticks is beyond the simulator's range of \
                 {MAX_COST_TICKS} ticks (extreme profiler metrics?)",
                c.lambda, c.latency
            )));
        }
        if let Some((n, c)) = table.iter().enumerate().find(|(_, c)| {
            let below = c.below_occupancy.map_or(0, |o| o.subsystem);
            usize::from(c.subsystem.max(below)) >= subsystems
        }) {
            return Err(SimError::Config(format!(
                "class {i} node {n}: subsystem {} but the hardware has {subsystems}",
                c.subsystem
                    .max(c.below_occupancy.map_or(0, |o| o.subsystem))
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod occupancy_tests {
    use super::*;

    #[test]
    fn the_alternative_cost_holds_up_to_its_occupancy() {
        let c = NodeCost {
            subsystem: 2,
            lambda: 80,
            latency: 5000,
            below_occupancy: Some(OccupancyCost {
                max_warps: 32,
                subsystem: 3,
                lambda: 30,
                latency: 2000,
                graded: None,
            }),
            dram_bytes: 128,
        };
        // A re-read that hits runs on the alternative's pipe.
        let low = c.at_occupancy(32);
        assert_eq!((low.subsystem, low.lambda, low.latency), (3, 30, 2000));
        let high = c.at_occupancy(33);
        assert_eq!((high.subsystem, high.lambda, high.latency), (2, 80, 5000));
        assert!(low.below_occupancy.is_none() && high.below_occupancy.is_none());
        // Only a miss moves DRAM bytes.
        assert_eq!((low.dram_bytes, high.dram_bytes), (0, 128));
    }

    /// Every execution counts (a node in a loop of 4, four times per warp), every warp of
    /// the launch counts, and a re-read moves bytes only at occupancies where it misses.
    #[test]
    fn static_dram_bytes_count_executions_warps_and_misses() {
        use crate::synth::{build, costs_for, hardware, Piece, SynthNode};
        let k = build(
            &[
                Piece::Node(SynthNode::op(0, &[], &[1])),
                Piece::Repeat(4, vec![Piece::Node(SynthNode::op(0, &[1], &[2]))]),
            ],
            2,
            10,
        );
        let mut costs = costs_for(&k, &[(1.0, 10.0)], &hardware(1, None, 1));
        costs[0][0].dram_bytes = 128;
        costs[0][1].dram_bytes = 64;
        costs[0][1].below_occupancy = Some(OccupancyCost {
            max_warps: 4,
            subsystem: 0,
            lambda: 1,
            latency: 1,
            graded: None,
        });
        // 10 groups of 2 warps; 2 resident groups (4 warps): the re-read hits.
        assert_eq!(
            static_dram_bytes(&k.kernel, &costs, &k.exec(2)),
            Some((20.0 * 128.0, 0.0))
        );
        // 3 resident groups (6 warps): it misses, 4 times per warp.
        assert_eq!(
            static_dram_bytes(&k.kernel, &costs, &k.exec(3)),
            Some((20.0 * (128.0 + 4.0 * 64.0), 0.0))
        );
        costs[0][0].dram_bytes = 0;
        costs[0][1].dram_bytes = 0;
        assert_eq!(static_dram_bytes(&k.kernel, &costs, &k.exec(3)), None);
    }
}
