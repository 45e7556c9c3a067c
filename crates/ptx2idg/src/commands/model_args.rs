//! The model configuration flags shared by `simulate`, `models` and `eval`. Without flags they
//! give `sim::ModelConfig::validated` for the chosen GPU, the configuration docs/results.md
//! measures; each flag switches one mechanism off or to another setting.

use gpu::GpuProfile;
use sim::{IssueOrder, ModelConfig, Scheduler};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedulerArg {
    /// Loose round-robin.
    Lrr,
    /// Greedy-then-oldest.
    Gto,
    /// Oldest first.
    Oldest,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum IssueArg {
    /// Program order; a stalled instruction blocks its warp.
    InOrder,
    /// The order ptxas would schedule: dataflow within compiled basic blocks.
    Scheduled,
    /// Any ready instruction within the lookahead window (the paper's model).
    Dataflow,
}

/// The switches that turn one mechanism off (`--no-*`, `--wait-stores`) are for studying the
/// model: `-h` leaves them out, `--help` lists them under their own heading.
#[derive(clap::Args, Debug, Default, Clone)]
#[command(next_help_heading = "Model")]
pub struct ModelArgs {
    /// Mapper f only: no profiler counters for memory λ/Λ even when a profile is given.
    #[arg(long, hide_short_help = true)]
    pub no_mapper_g: bool,
    /// Warp scheduler (default: the GPU profile's).
    #[arg(long, value_enum)]
    pub scheduler: Option<SchedulerArg>,
    /// Issue order within a warp (default: scheduled).
    #[arg(long, value_enum)]
    pub issue: Option<IssueArg>,
    /// Lookahead in instructions of scheduled and dataflow issue (default: 4; at most 1024).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub window: Option<u32>,
    /// One scheduler for the whole core instead of the profile's scheduler partitions.
    #[arg(long, hide_short_help = true)]
    pub no_sub_partitions: bool,
    /// Ignore barriers.
    #[arg(long, hide_short_help = true)]
    pub no_barriers: bool,
    /// Stores complete when they reach memory (issue + Λ) instead of being posted.
    #[arg(long, hide_short_help = true)]
    pub wait_stores: bool,
    /// Loop latches do not end the compiled blocks of scheduled issue: the next iteration's
    /// loads may issue past a stalled instruction of this one.
    #[arg(long, hide_short_help = true)]
    pub no_latch_blocks: bool,
    /// Ignore the profile's block dispatch latency and interval.
    #[arg(long, hide_short_help = true)]
    pub no_dispatch: bool,
    /// Split the profile's core-wide pipelines (the load/store path) among the scheduler
    /// partitions like the arithmetic ones, 1/P each.
    #[arg(long, hide_short_help = true)]
    pub no_sm_wide_pipes: bool,
    /// No device-wide DRAM/L2 bandwidth floor on the time.
    #[arg(long, hide_short_help = true)]
    pub no_bandwidth_floor: bool,
    /// No floor from the atomic sectors of the busiest L2 slice.
    #[arg(long, hide_short_help = true)]
    pub no_atomic_floor: bool,
    /// Do not add the profile's kernel launch overhead to the time.
    #[arg(long, hide_short_help = true)]
    pub no_launch_overhead: bool,
    /// A warp's coalesced re-reads of data still in L2 stay on the memory subsystem instead
    /// of the profile's re-read pipe (`reread_subsystem`).
    #[arg(long, hide_short_help = true)]
    pub no_reread_pipe: bool,
    /// Branches on unknown data take the assumption the divergent-branch count suggests for
    /// every warp, instead of the warps shared between the assumptions whose IDG counters best
    /// fit the profile given with --trips (docs/simulator.md).
    #[arg(long, hide_short_help = true)]
    pub no_fit_branches: bool,
    /// Every warp runs the profile-fitted trip counts (by default one warp of each group runs
    /// them 1/ρ times, the others the rest, ρ the profiled launch's busy share of the warp
    /// slots; docs/simulator.md, "Uneven warps").
    #[arg(long, hide_short_help = true)]
    pub no_uneven_warps: bool,
    /// DRAM loads keep the profile's unloaded latency (by default a launch with counters runs
    /// at the fixed point of its DRAM utilization and the profile's loaded latency;
    /// docs/simulator.md, "Loaded DRAM latency").
    #[arg(long, hide_short_help = true)]
    pub no_loaded_latency: bool,
    /// Simulate every instruction with the exact engine instead of extrapolating steady
    /// schedules (the sampled default, within the error bound `--explain` prints;
    /// docs/simulator.md, "Sampled simulation").
    #[arg(long)]
    pub exact: bool,
}

impl ModelArgs {
    /// The validated configuration for `profile` with the flags' changes.
    pub fn config(&self, profile: &GpuProfile) -> ModelConfig {
        let base = ModelConfig::validated(profile);
        let issue = self.issue;
        ModelConfig {
            mapper_g: !self.no_mapper_g,
            scheduler: match self.scheduler {
                None => base.scheduler,
                Some(SchedulerArg::Lrr) => Scheduler::LooseRoundRobin,
                Some(SchedulerArg::Gto) => Scheduler::GreedyThenOldest,
                Some(SchedulerArg::Oldest) => Scheduler::OldestFirst,
            },
            sub_partitions: !self.no_sub_partitions,
            sm_wide_pipes: !self.no_sm_wide_pipes,
            order: match issue {
                None => base.order,
                Some(IssueArg::InOrder) => IssueOrder::InOrder,
                Some(IssueArg::Scheduled) => IssueOrder::Scheduled,
                Some(IssueArg::Dataflow) => IssueOrder::Dataflow,
            },
            window: self.window.unwrap_or(base.window),
            barriers: !self.no_barriers,
            posted_stores: !self.wait_stores,
            latch_blocks: !self.no_latch_blocks,
            dispatch: !self.no_dispatch,
            bandwidth_floor: !self.no_bandwidth_floor,
            atomic_floor: !self.no_atomic_floor,
            launch_overhead: !self.no_launch_overhead,
            reread_pipe: !self.no_reread_pipe,
            fit_branches: !self.no_fit_branches,
            uneven_warps: !self.no_uneven_warps,
            loaded_latency: !self.no_loaded_latency,
            sampled: !self.exact,
        }
    }
}
