//! The software characterization every analytical model reads, derived once from one warp
//! class's IDG and its timing side table (pipeline-model-analysis, Table 2 "Software
//! Characterization", plus what the detailed models need).
//!
//! One pass over [`idg::Idg::stream`] computes everything; the IDG is never materialized. Per
//! resource the pass keeps the values of its last writer, which is exactly the dependence
//! definition of the stream (a read depends on the last earlier writer), so memory is bounded by
//! the number of resources plus a few maps whose size is bounded by the number of *distinct*
//! blocks and intervals (loop iterations repeat them).
//!
//! Roles follow section 3.1.1: memory instructions (`Category::Memory`) are α_mem, barriers
//! α_sync, everything else (computation and branches) α_comp.
//!
//! Derived quantities:
//! - Λ_app (Eq. 2): the chain I is the longest dependence chain weighted by Λ (each
//!   instruction completes Λ after its last predecessor completes); every other instruction is
//!   in J and adds its λ. So Λ_app = Σ_I Λ + Σ_J λ = chain + (Σ_all λ − Σ_I λ).
//! - ILP: instructions per level of the unweighted dependence depth.
//! - GPUMech intervals (section 2.5): the representative warp run alone, in order, with
//!   computational latencies ignored (as the paper's implementation does): an instruction costs
//!   its issue time, `max(λ, 1/IL)` for computations and barriers and `1/IL` for memory
//!   instructions (a memory instruction is a miss event, not issue work), and a memory result is
//!   ready Λ after issue. Waiting for a result is a stall that ends an interval.
//! - WFG blocks (section 2.4): maximal runs of consecutive computational instructions, split by
//!   memory and barrier nodes; ILP^i of a block counts only dependences inside it.

use std::collections::BTreeMap;

use gpu::{ClassTiming, TICKS_PER_CYCLE};
use idg::{Category, ClassId, Idg, KernelIdgs, ResourceKind};
use serde::Serialize;
use smallvec::SmallVec;

use crate::ModelError;

/// Load of one subsystem per warp.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubsystemLoad {
    /// `gpu::SubsystemId` index.
    pub subsystem: u16,
    pub instructions: u64,
    /// Σ λ of its instructions: the cycles it is busy per warp.
    pub lambda_sum: f64,
    pub latency_sum: f64,
}

/// One distinct GPUMech interval of the representative warp and how often it occurs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interval {
    pub count: u64,
    /// Instructions issued in the interval that take issue time (#interval_insts).
    pub instructions: u64,
    /// Cycles those instructions occupy the issue stage.
    pub issue_cycles: f64,
    /// Cycles the warp then waits for a result (stall_cycles).
    pub stall_cycles: f64,
}

/// One distinct WFG computation block and how often it occurs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WfgBlock {
    pub count: u64,
    /// α^i_comp.
    pub instructions: u64,
    /// Longest dependence chain inside the block, in instructions.
    pub depth: u64,
    /// α^i·λ_comp generalized: Σ λ of the block.
    pub lambda_sum: f64,
    /// α^i·Λ_comp generalized: Σ Λ of the block.
    pub latency_sum: f64,
}

impl WfgBlock {
    /// ILP^i.
    pub fn ilp(&self) -> f64 {
        self.instructions as f64 / self.depth.max(1) as f64
    }
}

/// One distinct WFG memory node and how often it occurs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WfgMem {
    pub count: u64,
    pub lambda: f64,
    pub latency: f64,
    /// A load: later instructions depend on it, so it has a dependency arc.
    pub load: bool,
    /// The computation block right before it (Eq. 42's "preceding computation transition
    /// arc"): (Σ Λ, ILP).
    pub preceding: Option<(f64, f64)>,
}

/// Everything the models read about the software, for one representative warp class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelCharacterization {
    /// The representative class: the one with the most warps.
    pub class: u32,
    pub class_warps: u64,
    pub classes: usize,
    /// N: dynamic warp instructions of one warp.
    pub instructions: u64,
    pub alpha_comp: u64,
    pub alpha_mem: u64,
    pub alpha_sync: u64,
    pub lambda_comp_sum: f64,
    pub latency_comp_sum: f64,
    pub lambda_mem_sum: f64,
    pub latency_mem_sum: f64,
    pub lambda_sync_sum: f64,
    pub latency_sync_sum: f64,
    pub subsystems: Vec<SubsystemLoad>,
    /// Longest dependence chain in instructions (unweighted).
    pub depth: u64,
    /// Σ Λ over the chain I of Eq. 2.
    pub chain_latency: f64,
    pub chain_instructions: u64,
    /// Σ λ over the chain I (subtracted from Σ λ to get the set J's share).
    pub chain_lambda: f64,
    /// The issue limit the GPUMech issue costs were derived with (IPC; infinite = none).
    pub issue_limit: f64,
    pub intervals: Vec<Interval>,
    pub wfg_blocks: Vec<WfgBlock>,
    pub wfg_mems: Vec<WfgMem>,
}

impl KernelCharacterization {
    /// CI = α_comp / α_mem (Table 2); infinite without memory instructions.
    pub fn ci(&self) -> f64 {
        if self.alpha_mem == 0 {
            f64::INFINITY
        } else {
            self.alpha_comp as f64 / self.alpha_mem as f64
        }
    }

    /// ILP = N / depth.
    pub fn ilp(&self) -> f64 {
        self.instructions as f64 / self.depth.max(1) as f64
    }

    pub fn lambda_sum(&self) -> f64 {
        self.lambda_comp_sum + self.lambda_mem_sum + self.lambda_sync_sum
    }

    /// Λ_app of Eq. 2: the chain's latencies plus the λ of the instructions off the chain.
    pub fn lambda_app(&self) -> f64 {
        self.chain_latency + (self.lambda_sum() - self.chain_lambda).max(0.0)
    }

    /// GPUMech's single-warp time: all intervals' issue and stall cycles.
    pub fn gpumech_single_warp(&self) -> f64 {
        self.intervals
            .iter()
            .map(|i| i.count as f64 * (i.issue_cycles + i.stall_cycles))
            .sum()
    }

    /// Characterizes the class that stands for the most warps of the grid
    /// (`KernelIdgs::class_weights`, the first on ties), GPUMech's "most representative warp";
    /// `timings[c]` belongs to class `c`.
    pub fn from_kernel(
        kernel: &KernelIdgs,
        timings: &[ClassTiming],
        issue_limit: f64,
    ) -> Result<Self, ModelError> {
        let weights = kernel.class_weights();
        let (index, class) = kernel
            .classes
            .iter()
            .enumerate()
            .max_by(|(ia, _), (ib, _)| weights[*ia].total_cmp(&weights[*ib]).then(ib.cmp(ia)))
            .ok_or(ModelError::NoClasses)?;
        let timing = timings.get(index).ok_or(ModelError::MissingTiming {
            class: index as u32,
            classes: timings.len(),
        })?;
        let mut ch = Self::new(&class.idg, timing, issue_limit)?;
        ch.class = ClassId(index as u32).0;
        ch.class_warps = class.warps.len() as u64;
        ch.classes = kernel.classes.len();
        Ok(ch)
    }

    /// Characterizes one warp class. `issue_limit` (IPC, may be infinite) sets the GPUMech issue
    /// costs.
    pub fn new(idg: &Idg, timing: &ClassTiming, issue_limit: f64) -> Result<Self, ModelError> {
        let count = idg.instruction_count();
        if count > MAX_CHARACTERIZED_INSTRUCTIONS {
            return Err(ModelError::InstructionBudget {
                count,
                budget: MAX_CHARACTERIZED_INSTRUCTIONS,
            });
        }
        if timing.nodes.len() != idg.nodes.len() {
            return Err(ModelError::TimingLength {
                nodes: idg.nodes.len(),
                timings: timing.nodes.len(),
            });
        }
        let issue_ticks: u128 = if issue_limit.is_finite() && issue_limit > 0.0 {
            (TICKS_PER_CYCLE as f64 / issue_limit).round() as u128
        } else {
            0
        };
        let mut pass = Pass::new(idg.resources.len(), issue_ticks);
        for inst in idg.stream() {
            let node = idg.node(inst.node);
            let t = timing.node(inst.node);
            let role = match node.category {
                Category::Memory => Role::Memory,
                Category::Barrier => Role::Barrier,
                Category::Compute | Category::Control => Role::Compute,
            };
            let load = node
                .writes
                .iter()
                .any(|w| idg.resource(*w).kind == ResourceKind::Register);
            // The stream's `preds` are the last writers of the read resources; the per-resource
            // table holds their values, so look them up by sequence number.
            let preds: SmallVec<[Writer; 4]> = node
                .reads
                .iter()
                .filter_map(|r| pass.writers[r.index()])
                .filter(|w| inst.preds.contains(&w.seq))
                .collect();
            let w = pass.step(
                inst.seq,
                role,
                t.subsystem.0,
                u128::from(t.lambda.ticks()),
                u128::from(t.latency.ticks()),
                load,
                &preds,
            );
            for r in &node.writes {
                pass.writers[r.index()] = Some(w);
            }
            for (from, to) in &node.moves {
                pass.writers[to.index()] = pass.writers[from.index()];
            }
        }
        if pass.n == 0 {
            return Err(ModelError::EmptyKernel);
        }
        Ok(pass.finish(issue_limit))
    }
}

/// Most executed instructions of the representative warp the characterization walks: the walk
/// is linear in trip counts, so this bounds its time (a few seconds) on absurd trips.
pub const MAX_CHARACTERIZED_INSTRUCTIONS: u64 = 1 << 26;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Compute,
    Memory,
    Barrier,
}

/// What later readers need from a resource's last writer.
#[derive(Debug, Clone, Copy)]
struct Writer {
    seq: u64,
    /// Λ-weighted completion time when everything issues as soon as its inputs are ready.
    finish: u128,
    /// Σ λ along the chain that produced `finish`.
    chain_lambda: u128,
    chain_len: u64,
    depth: u64,
    /// GPUMech single-warp: when the result is available.
    ready: u128,
    block: u64,
    block_depth: u64,
}

#[derive(Default)]
struct Block {
    n: u64,
    depth: u64,
    lambda: u128,
    latency: u128,
}

type MemKey = (u128, u128, bool, Option<(u128, u64, u64)>);

struct Pass {
    writers: Vec<Option<Writer>>,
    issue_ticks: u128,
    n: u64,
    alpha: [u64; 3],
    lambda: [u128; 3],
    latency: [u128; 3],
    /// Per `SubsystemId` index: (instructions, Σ λ ticks, Σ Λ ticks).
    subsystems: Vec<(u64, u128, u128)>,
    depth: u64,
    best: Option<Writer>,
    // GPUMech single-warp timeline.
    now: u128,
    completion: u128,
    cur_insts: u64,
    cur_issue: u128,
    intervals: BTreeMap<(u64, u128, u128), u64>,
    // WFG segmentation.
    block_id: u64,
    block: Block,
    blocks: BTreeMap<(u64, u64, u128, u128), u64>,
    mems: BTreeMap<MemKey, u64>,
}

fn ticks_to_cycles(t: u128) -> f64 {
    t as f64 / TICKS_PER_CYCLE as f64
}

impl Pass {
    fn new(resources: usize, issue_ticks: u128) -> Self {
        Self {
            writers: vec![None; resources],
            issue_ticks,
            n: 0,
            alpha: [0; 3],
            lambda: [0; 3],
            latency: [0; 3],
            subsystems: Vec::new(),
            depth: 0,
            best: None,
            now: 0,
            completion: 0,
            cur_insts: 0,
            cur_issue: 0,
            intervals: BTreeMap::new(),
            block_id: 0,
            block: Block::default(),
            blocks: BTreeMap::new(),
            mems: BTreeMap::new(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        seq: u64,
        role: Role,
        subsystem: u16,
        lambda: u128,
        latency: u128,
        load: bool,
        preds: &[Writer],
    ) -> Writer {
        self.n += 1;
        let r = role as usize;
        self.alpha[r] += 1;
        self.lambda[r] += lambda;
        self.latency[r] += latency;
        let i = usize::from(subsystem);
        if self.subsystems.len() <= i {
            self.subsystems.resize(i + 1, (0, 0, 0));
        }
        let s = &mut self.subsystems[i];
        s.0 += 1;
        s.1 += lambda;
        s.2 += latency;

        // Eq. 2's chain: follow the predecessor that completes last (ties: the one with more λ
        // on its chain, so J keeps as little as the chain allows).
        let crit = preds.iter().max_by(|a, b| {
            a.finish
                .cmp(&b.finish)
                .then(a.chain_lambda.cmp(&b.chain_lambda))
        });
        let depth = preds.iter().map(|p| p.depth).max().unwrap_or(0) + 1;
        self.depth = self.depth.max(depth);

        // GPUMech: in-order issue of the warp alone.
        let ready_in = preds.iter().map(|p| p.ready).max().unwrap_or(0);
        if ready_in > self.now {
            self.close_interval(ready_in - self.now);
            self.now = ready_in;
        }
        let cost = match role {
            Role::Memory => self.issue_ticks,
            Role::Compute | Role::Barrier => lambda.max(self.issue_ticks),
        };
        let issued = self.now;
        self.now += cost;
        // Only instructions that take issue time count in #interval_insts: without an issue
        // limit a memory instruction is a miss event, not issue work.
        if cost > 0 {
            self.cur_insts += 1;
        }
        self.cur_issue += cost;
        let ready = match role {
            Role::Memory => issued + latency,
            Role::Compute | Role::Barrier => issued + cost,
        };
        self.completion = self.completion.max(ready);

        // WFG blocks.
        let block_depth = match role {
            Role::Compute => {
                let inner = preds
                    .iter()
                    .filter(|p| p.block == self.block_id)
                    .map(|p| p.block_depth)
                    .max()
                    .unwrap_or(0);
                let d = inner + 1;
                self.block.n += 1;
                self.block.depth = self.block.depth.max(d);
                self.block.lambda += lambda;
                self.block.latency += latency;
                d
            }
            Role::Memory => {
                let prev = self.close_block();
                *self.mems.entry((lambda, latency, load, prev)).or_default() += 1;
                0
            }
            Role::Barrier => {
                self.close_block();
                0
            }
        };

        let w = Writer {
            seq,
            finish: crit.map_or(0, |c| c.finish) + latency,
            chain_lambda: crit.map_or(0, |c| c.chain_lambda) + lambda,
            chain_len: crit.map_or(0, |c| c.chain_len) + 1,
            depth,
            ready,
            block: self.block_id,
            block_depth,
        };
        if self
            .best
            .is_none_or(|b| (w.finish, w.chain_lambda) > (b.finish, b.chain_lambda))
        {
            self.best = Some(w);
        }
        w
    }

    fn close_interval(&mut self, stall: u128) {
        if self.cur_insts > 0 || stall > 0 {
            *self
                .intervals
                .entry((self.cur_insts, self.cur_issue, stall))
                .or_default() += 1;
        }
        self.cur_insts = 0;
        self.cur_issue = 0;
    }

    /// Ends the current computation block; returns its (Σ Λ, n, depth) if it was not empty.
    fn close_block(&mut self) -> Option<(u128, u64, u64)> {
        let b = std::mem::take(&mut self.block);
        self.block_id += 1;
        if b.n == 0 {
            return None;
        }
        *self
            .blocks
            .entry((b.n, b.depth, b.lambda, b.latency))
            .or_default() += 1;
        Some((b.latency, b.n, b.depth))
    }

    fn finish(mut self, issue_limit: f64) -> KernelCharacterization {
        // The warp ends when its last result is available: the final stall.
        let tail = self.completion.saturating_sub(self.now);
        self.close_interval(tail);
        self.close_block();
        let best = self.best.unwrap_or(Writer {
            seq: 0,
            finish: 0,
            chain_lambda: 0,
            chain_len: 0,
            depth: 0,
            ready: 0,
            block: 0,
            block_depth: 0,
        });
        let c = ticks_to_cycles;
        KernelCharacterization {
            class: 0,
            class_warps: 1,
            classes: 1,
            instructions: self.n,
            alpha_comp: self.alpha[Role::Compute as usize],
            alpha_mem: self.alpha[Role::Memory as usize],
            alpha_sync: self.alpha[Role::Barrier as usize],
            lambda_comp_sum: c(self.lambda[Role::Compute as usize]),
            latency_comp_sum: c(self.latency[Role::Compute as usize]),
            lambda_mem_sum: c(self.lambda[Role::Memory as usize]),
            latency_mem_sum: c(self.latency[Role::Memory as usize]),
            lambda_sync_sum: c(self.lambda[Role::Barrier as usize]),
            latency_sync_sum: c(self.latency[Role::Barrier as usize]),
            subsystems: self
                .subsystems
                .iter()
                .enumerate()
                .filter(|(_, s)| s.0 > 0)
                .map(|(i, &(n, l, ll))| SubsystemLoad {
                    subsystem: i as u16,
                    instructions: n,
                    lambda_sum: c(l),
                    latency_sum: c(ll),
                })
                .collect(),
            depth: self.depth,
            chain_latency: c(best.finish),
            chain_instructions: best.chain_len,
            chain_lambda: c(best.chain_lambda),
            issue_limit,
            intervals: self
                .intervals
                .iter()
                .map(|(&(n, issue, stall), &count)| Interval {
                    count,
                    instructions: n,
                    issue_cycles: c(issue),
                    stall_cycles: c(stall),
                })
                .collect(),
            wfg_blocks: self
                .blocks
                .iter()
                .map(|(&(n, depth, l, ll), &count)| WfgBlock {
                    count,
                    instructions: n,
                    depth,
                    lambda_sum: c(l),
                    latency_sum: c(ll),
                })
                .collect(),
            wfg_mems: self
                .mems
                .iter()
                .map(|(&(l, ll, load, prev), &count)| WfgMem {
                    count,
                    lambda: c(l),
                    latency: c(ll),
                    load,
                    preceding: prev.map(|(lat, n, d)| (c(lat), n as f64 / d.max(1) as f64)),
                })
                .collect(),
        }
    }
}
