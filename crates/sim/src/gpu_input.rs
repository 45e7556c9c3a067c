//! The bridge from the `gpu` crate's types to the simulator's: a [`gpu::GpuProfile`] becomes
//! a [`Hardware`], per-class [`gpu::ClassTiming`] side tables become [`ClassCosts`], and a
//! launch ([`Launch`]) becomes an [`ExecConfig`] with γ either given or derived from the CUDA
//! occupancy rules (`gpu::occupancy`) for the kernel's block size, a register count and the
//! block's shared memory. [`simulate_idgs`] is the entry point the CLI calls.
//!
//! Invariant: every conversion is exact; `gpu::Cycles` ticks are used as they are.

use gpu::{ClassTiming, GpuProfile};
use idg::KernelIdgs;
use serde::{Deserialize, Serialize};

use crate::config::{ExecConfig, Hardware, Scheduler, SimOptions};
use crate::cost::{ClassCosts, NodeCost, OccupancyCost};
use crate::result::{IssueRecord, SimResult};
use crate::{simulate_with_records, SimError};

/// The core of a GPU profile.
pub fn hardware_from_profile(profile: &GpuProfile) -> Hardware {
    Hardware {
        subsystems: profile.subsystems.iter().map(|s| s.name.clone()).collect(),
        issue_interval: if profile.issue_limit.is_finite() {
            profile.issue_interval().ticks()
        } else {
            0
        },
        partitions: profile.sub_partitions.max(1),
        ticks_per_cycle: gpu::TICKS_PER_CYCLE,
        clock_mhz: profile.clock_mhz,
        dispatch_latency: profile.launch.latency.ticks(),
        dispatch_interval: profile.launch.interval.ticks(),
        sm_wide: subsystem_mask(profile, |s| s.sm_wide),
        queued: subsystem_mask(profile, |s| s.queued),
    }
}

/// Bit `i` set for each of the profile's first 64 subsystems that `pick` selects.
fn subsystem_mask(profile: &GpuProfile, pick: impl Fn(&gpu::Subsystem) -> bool) -> u64 {
    profile
        .subsystems
        .iter()
        .enumerate()
        .filter(|(i, s)| pick(s) && *i < 64)
        .fold(0, |m, (i, _)| m | 1 << i)
}

/// The profile's scheduler policy.
pub fn scheduler_from_profile(profile: &GpuProfile) -> Scheduler {
    match profile.scheduler {
        gpu::Scheduler::LooseRoundRobin => Scheduler::LooseRoundRobin,
        gpu::Scheduler::GreedyThenOldest => Scheduler::GreedyThenOldest,
        gpu::Scheduler::OldestFirst => Scheduler::OldestFirst,
    }
}

/// The simulator's cost tables from the mappers' side tables (one per warp class).
pub fn costs_from_timing(timings: &[ClassTiming]) -> Vec<ClassCosts> {
    timings
        .iter()
        .map(|t| {
            t.nodes
                .iter()
                .map(|n| NodeCost {
                    subsystem: n.subsystem.0,
                    lambda: n.lambda.ticks(),
                    latency: n.latency.ticks(),
                    below_occupancy: n.l2_reuse.map(|r| OccupancyCost {
                        max_warps: r.max_warps_per_sm,
                        subsystem: r.subsystem.0,
                        lambda: r.lambda.ticks(),
                        latency: r.latency.ticks(),
                        graded: r.graded,
                    }),
                    dram_bytes: n.dram_bytes,
                })
                .collect()
        })
        .collect()
}

/// What the launch uses per block, for the occupancy rules, or γ given outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    /// Registers per thread (`--regs N`).
    pub regs_per_thread: u32,
    /// Static plus dynamic shared memory per block, bytes.
    pub shared_bytes_per_block: u32,
    /// Resident blocks per SM; `None` derives it with `gpu::occupancy`.
    pub blocks_per_sm: Option<u32>,
}

impl Default for Launch {
    fn default() -> Self {
        Self {
            regs_per_thread: 32,
            shared_bytes_per_block: 0,
            blocks_per_sm: None,
        }
    }
}

impl Launch {
    /// The CUDA occupancy rules for a block of `kernel` with this launch's registers and
    /// shared memory on `profile` (`blocks_per_sm` is not consulted).
    pub fn occupancy(&self, kernel: &KernelIdgs, profile: &GpuProfile) -> gpu::OccupancyLimit {
        gpu::occupancy(
            profile,
            kernel.block.iter().product(),
            self.regs_per_thread,
            self.shared_bytes_per_block,
        )
    }
}

/// The execution configuration of `kernel` on `profile` (one core's share of the grid).
pub fn exec_for_occupancy(
    kernel: &KernelIdgs,
    profile: &GpuProfile,
    launch: &Launch,
) -> Result<ExecConfig, SimError> {
    let threads: u32 = kernel.block.iter().product();
    let concurrent = match launch.blocks_per_sm {
        Some(b) => b,
        None => {
            let occ = launch.occupancy(kernel, profile);
            if occ.blocks_per_sm == 0 {
                return Err(SimError::Gpu(format!(
                    "a block of {threads} threads, {} registers per thread and {} shared bytes \
                     cannot run on {} (limited by {})",
                    launch.regs_per_thread,
                    launch.shared_bytes_per_block,
                    profile.name,
                    occ.limiting_resource
                )));
            }
            occ.blocks_per_sm
        }
    };
    let exec = ExecConfig {
        warps_per_group: kernel.warps_per_group,
        concurrent_groups: concurrent,
        total_groups: kernel.total_groups(),
        sm_count: profile.sm_count,
    };
    exec.validate()?;
    Ok(exec)
}

/// Simulates a kernel's IDGs on a GPU profile: the CLI's entry point. Returns the issue
/// records too when `opts.record` is set.
pub fn simulate_idgs(
    kernel: &KernelIdgs,
    timings: &[ClassTiming],
    profile: &GpuProfile,
    launch: &Launch,
    opts: &SimOptions,
) -> Result<(SimResult, Vec<IssueRecord>), SimError> {
    let hw = hardware_from_profile(profile);
    let exec = exec_for_occupancy(kernel, profile, launch)?;
    let costs = costs_from_timing(timings);
    simulate_with_records(kernel, &costs, &hw, &exec, opts)
}

/// Where a sweep was stopped: the resident groups the launch's registers and shared memory
/// allow, in the axis's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepCut {
    pub at: u32,
    pub limit: gpu::OccupancyLimit,
    pub threads_per_block: u32,
    pub launch: Launch,
}

impl SweepCut {
    /// The warning a user is shown.
    pub fn message(&self) -> String {
        format!(
            "the sweep stops at {} ({} blocks per SM of {} threads with {} registers per \
             thread and {} shared bytes per block, limited by {})",
            self.at,
            self.limit.blocks_per_sm,
            self.threads_per_block,
            self.launch.regs_per_thread,
            self.launch.shared_bytes_per_block,
            self.limit.limiting_resource
        )
    }
}

/// An occupancy sweep of one launch, planned: the axis cut where the launch's registers and
/// shared memory stop more groups from being resident (points beyond cannot be launched), and
/// the execution configuration every point starts from.
#[derive(Debug, Clone)]
pub struct LaunchSweep {
    pub axis: crate::SweepAxis,
    pub base: ExecConfig,
    pub cut: Option<SweepCut>,
}

impl LaunchSweep {
    pub fn new(
        kernel: &KernelIdgs,
        profile: &GpuProfile,
        launch: &Launch,
        axis: crate::SweepAxis,
    ) -> Result<LaunchSweep, SimError> {
        let limit = launch.occupancy(kernel, profile);
        let (axis, cut) = axis.capped(limit.blocks_per_sm, kernel.warps_per_group);
        let base = exec_for_occupancy(
            kernel,
            profile,
            &Launch {
                blocks_per_sm: Some(1),
                ..*launch
            },
        )?;
        Ok(LaunchSweep {
            axis,
            base,
            cut: cut.map(|at| SweepCut {
                at,
                limit,
                threads_per_block: kernel.block.iter().product(),
                launch: *launch,
            }),
        })
    }

    /// How many points the sweep simulates.
    pub fn points(&self) -> Result<usize, SimError> {
        Ok(self.axis.group_counts(self.base.warps_per_group)?.len())
    }

    /// Simulates every point (`crate::sweep`).
    pub fn run(
        &self,
        kernel: &KernelIdgs,
        costs: &[ClassCosts],
        hw: &Hardware,
        opts: &SimOptions,
        progress: &(dyn Fn() + Sync),
    ) -> Result<Vec<crate::SweepPoint>, SimError> {
        crate::sweep(kernel, costs, hw, &self.base, opts, &self.axis, progress)
    }
}
