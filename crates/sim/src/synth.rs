//! Synthetic kernels with known closed-form behaviour, built directly as compact IDGs: the
//! dependent chain of Eq. 1 (pipeline-performance-model-idg), the Instruction Mix kernel of
//! Fig. 11 (analysis section 4.2, Eqs. 43–45) and the example kernel of Fig. 1 with the Table 2
//! parameters. Tests, benchmarks and the documentation use them; they are also handy for
//! exploring the model without a PTX front end.
//!
//! Invariant: every kernel has a single warp class shared by all warps, and each node's
//! subsystem is given by the caller's per-node table so costs can be attached with
//! [`costs_for`].

use idg::{
    Barrier, BarrierKind, Category, Idg, IdgBuilder, KernelIdgs, LoopInfo, Node, ResourceKind,
    WarpClass, SCHEMA_VERSION,
};
use ptx::ast::{Modifiers, Op, Opcode};

use crate::config::{ExecConfig, Hardware};
use crate::cost::{ClassCosts, NodeCost};

/// One node of a synthetic body: its subsystem, the registers it reads and writes, and an
/// optional barrier role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthNode {
    pub subsystem: u16,
    pub reads: Vec<u32>,
    pub writes: Vec<u32>,
    pub barrier: Option<BarrierKind>,
}

impl SynthNode {
    pub fn op(subsystem: u16, reads: &[u32], writes: &[u32]) -> Self {
        Self {
            subsystem,
            reads: reads.to_vec(),
            writes: writes.to_vec(),
            barrier: None,
        }
    }

    pub fn barrier(subsystem: u16, kind: BarrierKind) -> Self {
        Self {
            subsystem,
            reads: Vec::new(),
            writes: Vec::new(),
            barrier: Some(kind),
        }
    }
}

/// A synthetic program: nodes in order, loops as repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Node(SynthNode),
    Repeat(u64, Vec<Piece>),
}

/// A single-class kernel with `groups` groups of `warps_per_group` warps and, per template
/// node, its subsystem.
#[derive(Debug, Clone)]
pub struct SynthKernel {
    pub kernel: KernelIdgs,
    pub node_subsystems: Vec<u16>,
}

pub fn build(body: &[Piece], warps_per_group: u32, groups: u32) -> SynthKernel {
    fn emit(b: &mut IdgBuilder, pieces: &[Piece], subs: &mut Vec<u16>, line: &mut u32) {
        for piece in pieces {
            match piece {
                Piece::Node(n) => {
                    let reads = n
                        .reads
                        .iter()
                        .map(|r| b.resource(ResourceKind::Register, &format!("%r{r}")))
                        .collect();
                    let writes = n
                        .writes
                        .iter()
                        .map(|r| b.resource(ResourceKind::Register, &format!("%r{r}")))
                        .collect();
                    let (opcode, category) = if n.barrier.is_some() {
                        (Opcode::Bar, Category::Barrier)
                    } else {
                        (Opcode::Add, Category::Compute)
                    };
                    *line += 1;
                    b.push(Node {
                        op: Op {
                            opcode,
                            mods: Modifiers::default(),
                        },
                        category,
                        reads,
                        writes,
                        moves: Vec::new(),
                        ptx_line: *line,
                        src: None,
                        mem: None,
                        barrier: n.barrier.map(|kind| Barrier {
                            id: 0,
                            kind,
                            expected_threads: None,
                        }),
                        active_lanes: 32,
                        register_conflicts: 0,
                    });
                    subs.push(n.subsystem);
                }
                Piece::Repeat(count, inner) if *count > 0 => {
                    *line += 1;
                    let l = b.add_loop(LoopInfo {
                        label: format!("$L{line}"),
                        ptx_line: *line,
                        src: None,
                        trip_source: "synthetic".into(),
                    });
                    b.begin_repeat(l, *count);
                    emit(b, inner, subs, line);
                    // Balanced by construction: the begin above.
                    let _ = b.end_repeat();
                }
                Piece::Repeat(..) => {}
            }
        }
    }
    let mut b = IdgBuilder::new();
    let mut subs = Vec::new();
    let mut line = 0;
    emit(&mut b, body, &mut subs, &mut line);
    // The builder's invariants hold by construction of `emit`.
    let idg: Idg = b.finish().unwrap_or_default();
    SynthKernel {
        kernel: KernelIdgs {
            schema_version: SCHEMA_VERSION,
            kernel: "synthetic".into(),
            grid: [groups, 1, 1],
            block: [warps_per_group * 32, 1, 1],
            warps_per_group,
            groups_built: vec![0],
            classes: vec![WarpClass {
                warps: (0..u64::from(warps_per_group)).collect(),
                idg,
            }],
            rotate_classes: false,
        },
        node_subsystems: subs,
    }
}

impl SynthKernel {
    /// One core running every group of the kernel, `concurrent` at a time.
    pub fn exec(&self, concurrent: u32) -> ExecConfig {
        ExecConfig {
            warps_per_group: self.kernel.warps_per_group,
            concurrent_groups: concurrent,
            total_groups: self.kernel.total_groups(),
            sm_count: 1,
        }
    }
}

/// Cost tables from (λ, Λ) in cycles per subsystem.
pub fn costs_for(k: &SynthKernel, per_subsystem: &[(f64, f64)], hw: &Hardware) -> Vec<ClassCosts> {
    let t = |c: f64| (c * hw.ticks_per_cycle as f64).round() as u64;
    vec![k
        .node_subsystems
        .iter()
        .map(|&s| {
            let (l, lat) = per_subsystem
                .get(usize::from(s))
                .copied()
                .unwrap_or((1.0, 1.0));
            NodeCost {
                subsystem: s,
                lambda: t(l),
                latency: t(lat),
                below_occupancy: None,
                dram_bytes: 0,
            }
        })
        .collect()]
}

/// Ticks per cycle used by the synthetic hardware (that of `gpu::Cycles`).
pub const TICKS_PER_CYCLE: u64 = 8000;

/// A core with the given subsystem count and issue limit (`None`: unlimited), 1 GHz.
pub fn hardware(subsystems: usize, issue_limit: Option<f64>, partitions: u32) -> Hardware {
    Hardware {
        subsystems: (0..subsystems).map(|i| format!("s{i}")).collect(),
        issue_interval: issue_limit
            .map(|il| (TICKS_PER_CYCLE as f64 / il).round() as u64)
            .unwrap_or(0),
        partitions,
        ticks_per_cycle: TICKS_PER_CYCLE,
        clock_mhz: 1000.0,
        dispatch_latency: 0,
        dispatch_interval: 0,
        sm_wide: 0,
        queued: 0,
    }
}

/// N dependent instructions on subsystem 0 (Eq. 1).
pub fn chain(n: u64, warps_per_group: u32, groups: u32) -> SynthKernel {
    build(
        &[Piece::Repeat(
            n,
            vec![Piece::Node(SynthNode::op(0, &[0], &[0]))],
        )],
        warps_per_group,
        groups,
    )
}

/// The Instruction Mix kernel (Fig. 11): `reps` repetitions of β type-1 instructions
/// (subsystem 0) followed by one type-2 instruction (subsystem `type2_subsystem`). Each
/// instruction carries its own loop-carried register, so an iteration's instructions are
/// independent of each other.
pub fn instruction_mix(beta: u32, reps: u64, type2_subsystem: u16, warps: u32) -> SynthKernel {
    let mut body: Vec<Piece> = (0..beta)
        .map(|i| Piece::Node(SynthNode::op(0, &[i], &[i])))
        .collect();
    body.push(Piece::Node(SynthNode::op(
        type2_subsystem,
        &[beta],
        &[beta],
    )));
    build(&[Piece::Repeat(reps, body)], warps, 1)
}

/// The example kernel of Fig. 1 (analysis paper), 4 computations (subsystem 0) and 2 memory
/// instructions (subsystem 1). The figure is not reproduced in the text; this dependence
/// structure is the one consistent with Volkov's Λ_app = 25 of section 2.2 (three dependent
/// computations and both memory latencies on the critical path, one computation off it):
/// `c0` is independent; `c1 → c2 → m0 → c3 → m1` with `c3` also reading `c0`.
pub fn paper_example(warps_per_group: u32, groups: u32) -> SynthKernel {
    let n = |s, r: &[u32], w: &[u32]| Piece::Node(SynthNode::op(s, r, w));
    build(
        &[
            n(0, &[], &[10]),     // c0
            n(0, &[], &[1]),      // c1
            n(0, &[1], &[2]),     // c2
            n(1, &[2], &[3]),     // m0
            n(0, &[3, 10], &[4]), // c3
            n(1, &[4], &[5]),     // m1
        ],
        warps_per_group,
        groups,
    )
}

/// Table 2: (λ, Λ) of the computational and the memory subsystem.
pub const TABLE2: [(f64, f64); 2] = [(1.0, 4.0), (2.0, 6.0)];
