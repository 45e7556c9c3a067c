//! The Pipeline-model simulator (pipeline-model-analysis section 3.2,
//! pipeline-performance-model-idg Algorithm 1 with the issue limit of analysis section 4.2).
//!
//! Input: the compact per-warp-class IDGs of a launch (`idg::KernelIdgs`, streamed, never
//! unrolled in memory), a timing side table per class ([`ClassCosts`]: subsystem, λ, Λ per
//! template node), the core's [`Hardware`] and the launch's [`ExecConfig`]. Output: a
//! [`SimResult`] for one core running ⌈groups / SMs⌉ groups, γ at a time, each finished group
//! replaced by a waiting one. [`sweep`] runs occupancy sweeps in parallel; [`trace`] writes
//! execution profiles (Chrome trace JSON, Gantt SVG like Figs. 8–9).
//!
//! Time is exact: integer ticks, `ticks_per_cycle` per cycle (the fixed point of
//! `gpu::Cycles`), so fractional λ such as 0.375 or 1.125 never accumulate rounding error.
//! Memory is bounded by the compact IDG plus a fixed ring per resident warp.

pub mod config;
pub mod cost;
mod engine;
pub mod gpu_input;
pub mod loaded;
pub mod model;
pub mod number;
mod placement;
pub mod result;
pub mod sweep;
pub mod synth;
pub mod trace;
pub mod truncated;

pub use config::{
    ExecConfig, Hardware, IssueOrder, Scheduler, SimOptions, DEFAULT_MAX_RECORDED,
    DEFAULT_MAX_SIMULATED,
};
pub use cost::{check_costs, ClassCosts, NodeCost, OccupancyCost};
pub use gpu_input::{
    costs_from_timing, exec_for_occupancy, hardware_from_profile, scheduler_from_profile,
    simulate_idgs, Launch, LaunchSweep, SweepCut,
};
pub use loaded::{DramLoad, Rerun};
pub use model::{ModelConfig, SCHEDULED_WINDOW};
pub use result::{IssueRecord, Sampled, SimResult, StallBreakdown, SubsystemUse};
pub use sweep::{sweep, sweep_csv, sweep_plot_svg, sweep_with, SweepAxis, SweepPoint, CSV_HEADER};

use idg::KernelIdgs;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    #[error("invalid simulation input: {0}")]
    Config(String),
    #[error(
        "deadlock at tick {cycle_ticks}: {groups_done} of {groups} groups finished \
         (a barrier that can never be released?)"
    )]
    Deadlock {
        cycle_ticks: u64,
        groups_done: u64,
        groups: u64,
    },
    #[error(
        "the simulation issued more than {limit} instructions one by one (repeats of a steady \
         state that fast-forward skipped do not count), the simulated-instruction budget; \
         raise it with --max-simulated N, or simulate fewer groups (a smaller --grid, or eval \
         --extrapolate)"
    )]
    Budget { limit: u64 },
    #[error(
        "the recorded run issues more than {limit} instructions, the trace budget of \
         --profile and --profile-svg; raise it with --max-traced N (about 220 bytes each), or \
         record a smaller launch (a smaller --grid, fewer --blocks-per-sm)"
    )]
    TraceBudget { limit: u64 },
    #[error(
        "the simulated run is longer than 2^62 ticks (about 5.8 * 10^14 cycles) or counts more \
         than 2^62 instructions: its time and counts cannot be represented; lower the trip \
         counts (--trips) or the grid"
    )]
    TooLong,
    #[error("the run has {issues} issues, more than the {limit} a drawing can show")]
    TooLargeToDraw { issues: usize, limit: usize },
    #[error("GPU profile: {0}")]
    Gpu(String),
}

/// Everything a run of the engine reads besides the IDGs themselves: the per-node tables
/// (costs at the run's occupancy with partition-scaled λ, barrier roles, posted stores, block
/// splits, loop heads), the hardware, the execution configuration and the options. Two runs of
/// the same `KernelIdgs` with equal keys give equal results, so a caller comparing variants of
/// a model (the ablation study of crate `eval`) simulates each distinct key once. Options that
/// act only through the tables (`posted_stores`, `latch_blocks`) are compared there, so a
/// variant whose switch changes no node of this kernel shares the run. A posted store's Λ is
/// not part of it: the engine completes such a store at its λ, so the loaded DRAM latency,
/// which scales that Λ, leaves the run of a launch whose only DRAM accesses are posted
/// stores as it was (`loaded::Rerun::unchanged`).
#[derive(Debug, Clone, PartialEq)]
pub struct RunKey {
    prepared: Vec<Vec<cost::Prepared>>,
    hw: Hardware,
    exec: ExecConfig,
    opts: SimOptions,
}

/// The [`RunKey`] of [`simulate`] with these inputs, or the error that run would stop with
/// before simulating.
pub fn run_key(
    kernel: &KernelIdgs,
    costs: &[ClassCosts],
    hw: &Hardware,
    exec: &ExecConfig,
    opts: &SimOptions,
) -> Result<RunKey, SimError> {
    let tables = engine::prepare_all(kernel, costs, hw, exec, opts)?;
    let mut prepared = tables.prepared;
    // Read by nothing in the engine (a posted store completes at its λ).
    for p in prepared.iter_mut().flatten() {
        if p.posted {
            p.cost.latency = 0;
        }
    }
    Ok(RunKey {
        prepared,
        hw: hw.clone(),
        exec: *exec,
        opts: SimOptions {
            posted_stores: false,
            latch_blocks: false,
            ..*opts
        },
    })
}

/// Simulates one core; see the crate documentation.
pub fn simulate(
    kernel: &KernelIdgs,
    costs: &[ClassCosts],
    hw: &Hardware,
    exec: &ExecConfig,
    opts: &SimOptions,
) -> Result<SimResult, SimError> {
    simulate_with_records(kernel, costs, hw, exec, opts).map(|(r, _)| r)
}

/// As [`simulate`], also returning every issue when `opts.record` is set (empty otherwise).
pub fn simulate_with_records(
    kernel: &KernelIdgs,
    costs: &[ClassCosts],
    hw: &Hardware,
    exec: &ExecConfig,
    opts: &SimOptions,
) -> Result<(SimResult, Vec<IssueRecord>), SimError> {
    let tables = engine::prepare_all(kernel, costs, hw, exec, opts)?;
    let n_parts = tables.n_parts;
    let cut = if opts.sampled && !opts.record {
        truncated::run(kernel, costs, hw, exec, opts)?
    } else {
        None
    };
    let out = match cut {
        Some(out) => out,
        None => engine::Engine::new(kernel, &tables, hw, *exec, *opts).run()?,
    };

    let tpc = hw.ticks_per_cycle.max(1);
    let cycles = out.ticks as f64 / tpc as f64;
    let per_cycle = |x: u64| {
        if out.ticks > 0 {
            x as f64 / cycles
        } else {
            0.0
        }
    };
    let c = out.counters;
    let to_cycles = |t: u64| t as f64 / tpc as f64;
    let subsystems = hw
        .subsystems
        .iter()
        .zip(&out.sub_busy)
        .map(|(name, &busy)| SubsystemUse {
            name: name.clone(),
            busy: if out.ticks > 0 {
                busy as f64 / (out.ticks as f64 * n_parts as f64)
            } else {
                0.0
            },
        })
        .collect();
    let traffic = cost::static_traffic(kernel, costs, exec);
    let result = SimResult {
        cycles,
        ticks: out.ticks,
        ticks_per_cycle: tpc,
        time_us: if hw.clock_mhz > 0.0 {
            cycles / hw.clock_mhz
        } else {
            0.0
        },
        warps: c.warps,
        occupancy_warps: exec.occupancy_warps(),
        concurrent_groups: u64::from(exec.concurrent_groups).min(exec.groups_per_core()) as u32,
        groups: exec.groups_per_core(),
        instructions: c.instructions,
        fast_forwarded: out.fast_forwarded,
        sampled: out.sampled.map(|s| result::Sampled {
            skips: s.skips,
            wave_skips: s.wave_skips,
            groups: s.groups,
            truncated_loops: s.truncated_loops,
            instructions: s.instructions,
            cycles: to_cycles(s.ticks),
            error_bound_cycles: to_cycles(s.error_ticks),
        }),
        wpc: per_cycle(c.warps),
        ipc: per_cycle(c.instructions),
        subsystems,
        stalls: StallBreakdown {
            dependence: to_cycles(c.stall_dependence),
            subsystem_busy: to_cycles(c.stall_subsystem),
            issue_limit: to_cycles(c.stall_issue_limit),
            barrier: to_cycles(c.stall_barrier),
            not_selected: to_cycles(c.stall_not_selected),
        },
        scheduler: opts.scheduler.to_string(),
        issue: opts.order.describe(opts.window, opts.latch_blocks),
        partitions: n_parts as u32,
        static_dram_bytes: traffic.dram,
        static_atomic_sectors: traffic.atomic_sectors,
    };
    Ok((result, out.records))
}
