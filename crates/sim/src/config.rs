//! What a simulation run is configured with: the core's hardware (subsystems, issue limit,
//! scheduler partitions), the execution configuration of the launch (paper section 3.1.2) and
//! the simulator's own options (scheduler policy, issue order, window sizes, recording).
//!
//! Invariants: times are integer ticks (`ticks_per_cycle` per processor cycle, the fixed point
//! of `gpu::Cycles`), never floats; an issue interval of 0 means "no issue limit".

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::SimError;

/// Which ready instruction the scheduler σ issues first (paper section 3.1.3; GPUMech's RR and
/// GTO policies, section 2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Scheduler {
    /// Loose round-robin: the first ready warp after the one that issued last.
    LooseRoundRobin,
    /// Greedy-then-oldest: keep issuing from the last warp while it has a ready instruction,
    /// otherwise the oldest warp.
    GreedyThenOldest,
    /// Oldest warp first (launch order), always.
    #[default]
    OldestFirst,
}

impl Scheduler {
    pub const ALL: [Scheduler; 3] = [
        Scheduler::LooseRoundRobin,
        Scheduler::GreedyThenOldest,
        Scheduler::OldestFirst,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scheduler::LooseRoundRobin => "lrr",
            Scheduler::GreedyThenOldest => "gto",
            Scheduler::OldestFirst => "oldest",
        }
    }
}

impl fmt::Display for Scheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Scheduler {
    type Err = SimError;
    fn from_str(s: &str) -> Result<Self, SimError> {
        match s {
            "lrr" | "rr" | "loose-round-robin" => Ok(Scheduler::LooseRoundRobin),
            "gto" | "greedy-then-oldest" => Ok(Scheduler::GreedyThenOldest),
            "oldest" | "oldest-first" => Ok(Scheduler::OldestFirst),
            other => Err(SimError::Config(format!(
                "unknown scheduler `{other}` (expected lrr, gto or oldest)"
            ))),
        }
    }
}

/// How a warp's instructions may overtake each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum IssueOrder {
    /// The paper's model (section 4.1): any instruction whose predecessors completed may issue,
    /// within a bounded lookahead window of not-yet-issued instructions.
    #[default]
    Dataflow,
    /// NVIDIA hardware: a warp issues in program order; a stalled instruction blocks the warp.
    InOrder,
    /// The order ptxas would give: PTX lists instructions where the source uses them, and
    /// ptxas list-schedules each basic block of the machine code so independent work (loads
    /// above all) overlaps; the hardware then issues that schedule in order. Modelled as
    /// dataflow issue within the lookahead window, confined to compiled basic blocks: they
    /// end at loop latches, barriers, and instructions ptxas lowers with a slow-path branch
    /// (`cost::Prepared::splits_block`), which issue after everything before them and before
    /// everything after them; forward branches only carry control dependences.
    Scheduled,
}

impl IssueOrder {
    /// The order in words, e.g. `compiler-scheduled (lookahead 4)`; `latch_blocks` off softens
    /// the scheduled order's block ends at latches.
    pub fn describe(self, window: u32, latch_blocks: bool) -> String {
        match self {
            IssueOrder::InOrder => "in-order".to_string(),
            IssueOrder::Scheduled if latch_blocks => {
                format!("compiler-scheduled (lookahead {window})")
            }
            IssueOrder::Scheduled => {
                format!("compiler-scheduled (lookahead {window}, latches soft)")
            }
            IssueOrder::Dataflow => format!("dataflow (lookahead {window})"),
        }
    }
}

/// One core (SM / compute unit) as the simulator sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hardware {
    /// Names of the subsystems S, indexed by the subsystem numbers in the node costs.
    pub subsystems: Vec<String>,
    /// Ticks between two issue slots of the whole core: `ticks_per_cycle / IL`; 0 = no limit.
    pub issue_interval: u64,
    /// Scheduler partitions of the core (4 on Volta and later); used with `sub_partitions`.
    pub partitions: u32,
    pub ticks_per_cycle: u64,
    /// Core clock for converting cycles to time.
    pub clock_mhz: f64,
    /// Block dispatch, in ticks: a group replacing a finished one starts `dispatch_latency`
    /// after that one ended, and two group starts on the core are at least
    /// `dispatch_interval` apart. 0 and 0: groups start the instant a slot frees.
    #[serde(default)]
    pub dispatch_latency: u64,
    #[serde(default)]
    pub dispatch_interval: u64,
    /// Bit `s` set: subsystem `s` is one pipeline of the whole core that every partition
    /// feeds, at its λ, instead of one per partition at P times its λ (with `sub_partitions`).
    #[serde(default)]
    pub sm_wide: u64,
    /// Bit `s` set: subsystem `s` is a queue, not a gate. An instruction for it issues
    /// whether or not the pipeline is free, waits in the queue (served one per λ in issue
    /// order) and completes Λ after its turn begins (`gpu::Subsystem::queued`).
    #[serde(default)]
    pub queued: u64,
}

impl Hardware {
    /// The issue interval for an issue limit `il` instructions per cycle; rounds to the nearest
    /// tick (exact for every IL that divides the tick count, e.g. 1, 2, 4, 8).
    pub fn interval_for_issue_limit(il: f64, ticks_per_cycle: u64) -> Result<u64, SimError> {
        if il.is_infinite() {
            return Ok(0);
        }
        if il.is_nan() || il <= 0.0 {
            return Err(SimError::Config(format!(
                "issue limit must be positive, got {il}"
            )));
        }
        Ok(((ticks_per_cycle as f64) / il).round().max(1.0) as u64)
    }
}

/// The execution configuration of a launch on one core (section 3.1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecConfig {
    /// |γ| in warps.
    pub warps_per_group: u32,
    /// γ: groups resident on a core at once.
    pub concurrent_groups: u32,
    /// Groups of the whole launch.
    pub total_groups: u64,
    pub sm_count: u32,
}

impl ExecConfig {
    /// Groups the simulated core runs: ⌈total / SMs⌉, all groups assumed equally long
    /// (pipeline-performance-model-idg, section III.D).
    pub fn groups_per_core(&self) -> u64 {
        let sms = u64::from(self.sm_count.max(1));
        self.total_groups.div_ceil(sms)
    }

    /// Concurrent warps ω actually reached (fewer groups than γ leave slots empty).
    pub fn occupancy_warps(&self) -> u64 {
        u64::from(self.concurrent_groups).min(self.groups_per_core())
            * u64::from(self.warps_per_group)
    }

    pub fn validate(&self) -> Result<(), SimError> {
        if self.warps_per_group == 0 || self.warps_per_group > 64 {
            return Err(SimError::Config(format!(
                "warps per group must be 1..=64, got {}",
                self.warps_per_group
            )));
        }
        if self.concurrent_groups == 0 {
            return Err(SimError::Config(
                "concurrent groups per core must be at least 1".into(),
            ));
        }
        if self.sm_count == 0 {
            return Err(SimError::Config("SM count must be at least 1".into()));
        }
        // The engine holds a slot per resident warp (fuzz finding: a hostile GPU profile
        // asked for 10^10 of them).
        if self.occupancy_warps() > MAX_RESIDENT_WARPS {
            return Err(SimError::Config(format!(
                "{} resident warps exceed the {MAX_RESIDENT_WARPS} a simulated core holds",
                self.occupancy_warps()
            )));
        }
        Ok(())
    }
}

/// Options of the simulator itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimOptions {
    pub scheduler: Scheduler,
    pub order: IssueOrder,
    /// Split the core into `Hardware::partitions` scheduler partitions.
    pub sub_partitions: bool,
    /// Dataflow lookahead: not-yet-issued instructions a warp may hold (1 under in-order).
    pub window: u32,
    /// Per-warp ring of recent instructions (issued-but-incomplete plus the window); a power of
    /// two at least `window`. Instructions older than the ring are complete by construction.
    pub ring: u32,
    /// Keep every issue for traces and Gantt charts (memory grows with the run).
    pub record: bool,
    /// Stores and reductions without a result are posted: they complete when the memory
    /// pipeline accepted them (issue + λ), not when they reach memory (issue + Λ). The
    /// pipeline keeps a warp's accesses in order, so a later load of the same space need not
    /// wait for the store, and hardware retires a warp with writes in flight; the paper's
    /// axpy time (… + Λ_fmadd + λ_mem, pipeline-performance-model-idg Fig. 1) ends the same
    /// way. Off: a store completes at issue + Λ like any instruction.
    pub posted_stores: bool,
    /// Exact fast-forward: when the whole core returns to a state it was in before (times
    /// relative to now, loop iterations and groups still to come aside), the run repeats
    /// itself, and the repeats that cannot reach an end of a loop or of the launch are added
    /// in closed form instead of simulated (`docs/simulator.md`). Results are identical
    /// either way; off is for measuring the engine itself. Ignored while recording.
    #[serde(default = "yes")]
    pub fast_forward: bool,
    /// Sampled simulation: where the schedule is steady without repeating word for word (two
    /// consecutive periods of one shape, the same work, times within 0.5 % of each other),
    /// the periods that stay clear of every limit are added in closed form like the last one
    /// (`docs/simulator.md`, "Sampled simulation"). Results are within the error bound the
    /// run reports (`SimResult::sampled`); off is the exact engine. Ignored while recording.
    #[serde(default)]
    pub sampled: bool,
    /// Under scheduled issue, a loop latch (a branch after which the path goes back to an
    /// earlier PTX line) ends the compiled block like a slow-path instruction: ptxas does not
    /// software-pipeline loops. Off: latches are soft like forward branches.
    #[serde(default = "yes")]
    pub latch_blocks: bool,
    /// The simulated-instruction budget: a run that issues more instructions one by one
    /// (fast-forwarded repeats do not count) stops with [`SimError::Budget`] instead of
    /// running for hours. [`DEFAULT_MAX_SIMULATED`] unless raised.
    #[serde(default = "default_max_simulated")]
    pub max_simulated: u64,
    /// The trace budget: a recording run (`record`) that would keep more issues stops with
    /// [`SimError::TraceBudget`]: each costs about 70 bytes held and 150 bytes of trace JSON,
    /// and a recording simulates every instruction. [`DEFAULT_MAX_RECORDED`] unless raised.
    #[serde(default = "default_max_recorded")]
    pub max_recorded: u64,
}

/// The default trace budget: 2^20 recorded issues, about 70 MB held and 150 MB of Chrome
/// trace JSON.
pub const DEFAULT_MAX_RECORDED: u64 = 1 << 20;

fn default_max_recorded() -> u64 {
    DEFAULT_MAX_RECORDED
}

/// Most warps resident on the simulated core at once (real GPUs hold at most 64).
pub const MAX_RESIDENT_WARPS: u64 = 4096;

/// The default simulated-instruction budget: 2^26 instructions, about 15 s of simulation.
/// The bundled kernels simulate at most about 5.1 * 10^6 per run at their measured launches
/// (SHOC dgemm; `docs/simulator.md`, "Limits").
pub const DEFAULT_MAX_SIMULATED: u64 = 1 << 26;

fn yes() -> bool {
    true
}

fn default_max_simulated() -> u64 {
    DEFAULT_MAX_SIMULATED
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            scheduler: Scheduler::default(),
            order: IssueOrder::default(),
            sub_partitions: false,
            window: 64,
            ring: 256,
            record: false,
            posted_stores: true,
            fast_forward: true,
            sampled: false,
            latch_blocks: true,
            max_simulated: DEFAULT_MAX_SIMULATED,
            max_recorded: DEFAULT_MAX_RECORDED,
        }
    }
}

impl SimOptions {
    pub(crate) fn effective_window(&self) -> u32 {
        match self.order {
            IssueOrder::InOrder => 1,
            IssueOrder::Dataflow | IssueOrder::Scheduled => self.window.max(1),
        }
    }

    pub(crate) fn validate(&self) -> Result<(), SimError> {
        if !self.ring.is_power_of_two() || self.ring < self.effective_window() {
            return Err(SimError::Config(format!(
                "ring size {} must be a power of two and at least the window ({})",
                self.ring,
                self.effective_window()
            )));
        }
        Ok(())
    }
}
