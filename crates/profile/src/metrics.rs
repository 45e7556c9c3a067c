//! The metrics the pipeline interprets, under both their nvprof and Nsight Compute names.
//!
//! [`expected_unit`] lists every metric whose unit we rely on (a value in another unit is an
//! error, see [`crate::ProfileError::UnexpectedUnit`]). [`Quantity`] names what later stages
//! ask for — the trip-count solver (issue 3, step 3: warp instructions per warp) and mapper g
//! (DRAM, L2, global and shared-memory traffic) — and [`crate::Launch::quantity`] resolves it
//! from whichever profiler's metrics the launch holds, preferring Nsight Compute names.

use crate::units::Unit;

/// Bytes per DRAM/L2/L1 sector and per nvprof memory transaction (32 B since Maxwell).
pub const SECTOR_BYTES: f64 = 32.0;

/// The unit a known metric must be reported in (after prefix scaling), or `None` when the
/// metric is not interpreted by this crate and any unit is kept as printed.
pub fn expected_unit(metric: &str) -> Option<Unit> {
    use Unit::*;
    let u = match metric {
        "smsp__inst_executed.sum"
        | "inst_executed"
        | "smsp__thread_inst_executed.sum"
        | "thread_inst_executed"
        | "smsp__sass_inst_executed_op_global_ld.sum"
        | "smsp__sass_inst_executed_op_global_st.sum"
        | "smsp__sass_inst_executed_op_shared_ld.sum"
        | "smsp__sass_inst_executed_op_shared_st.sum"
        | "inst_executed_global_loads"
        | "inst_executed_global_stores"
        | "inst_executed_shared_loads"
        | "inst_executed_shared_stores"
        | "sm__inst_executed.sum"
        | "smsp__sass_inst_executed.sum"
        | "smsp__inst_executed_op_global_ld.sum"
        | "smsp__inst_executed_op_global_st.sum"
        | "smsp__inst_executed_op_shared_ld.sum"
        | "smsp__inst_executed_op_shared_st.sum"
        | "smsp__sass_inst_executed_op_shared.sum"
        | "smsp__inst_executed_op_shared.sum"
        | "smsp__sass_inst_executed_op_branch.sum"
        | "smsp__inst_executed_op_branch.sum"
        | "smsp__sass_inst_executed_op_global_atom.sum"
        | "smsp__sass_inst_executed_op_global_red.sum" => Inst,
        "sm__warps_launched.sum" | "smsp__warps_launched.sum" | "warps_launched" => Warp,
        "dram__bytes_read.sum"
        | "dram__bytes_write.sum"
        | "dram__bytes.sum"
        | "dram_read_bytes"
        | "dram_write_bytes"
        | "lts__t_bytes.sum"
        | "lts__t_bytes_op_read.sum"
        | "lts__t_bytes_op_write.sum"
        | "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum"
        | "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum" => Byte,
        "lts__t_sectors_op_read.sum"
        | "dram__sectors_read.sum"
        | "dram__sectors_write.sum"
        | "dram__sectors.sum"
        | "lts__t_sectors_op_write.sum"
        | "lts__t_sectors.sum"
        | "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
        | "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
        | "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum"
        | "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum" => Sector,
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
        | "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
        | "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"
        | "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum" => Request,
        "smsp__sass_branch_targets_threads_divergent.sum" => Branch,
        "smsp__sass_average_branch_targets_threads_uniform.pct"
        | "branch_efficiency"
        | "lts__t_sector_hit_rate.pct"
        | "gld_efficiency"
        | "gst_efficiency" => Percent,
        "sm__cycles_elapsed.max"
        | "sm__cycles_elapsed.avg"
        | "sm__cycles_active.avg"
        | "elapsed_cycles_sm"
        | "lts__d_atomic_input_cycles_active.max" => Cycle,
        "gpu__time_duration.sum" | "Duration" => Nanosecond,
        "gld_requested_throughput"
        | "gst_requested_throughput"
        | "gld_throughput"
        | "gst_throughput"
        | "dram_read_throughput"
        | "dram_write_throughput" => BytePerSecond,
        // Counts of transactions, requests, conflicts and wavefronts: plain numbers.
        "dram_read_transactions"
        | "dram_write_transactions"
        | "l2_read_transactions"
        | "l2_write_transactions"
        | "gld_transactions"
        | "gst_transactions"
        | "global_load_requests"
        | "global_store_requests"
        | "shared_load_transactions"
        | "shared_store_transactions"
        | "shared_load_transactions_per_request"
        | "shared_store_transactions_per_request"
        | "shared_ld_bank_conflict"
        | "shared_st_bank_conflict"
        | "divergent_branch"
        | "branch"
        | "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
        | "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
        | "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
        | "cf_executed"
        | "atomic_transactions"
        | "global_atomic_requests"
        | "global_reduction_requests"
        | "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
        | "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum" => Count,
        _ => return None,
    };
    Some(u)
}

/// A quantity the pipeline uses, independent of the profiler that measured it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Quantity {
    /// Warp-level instructions executed, all warps (`smsp__inst_executed.sum` | `inst_executed`).
    WarpInstsExecuted,
    /// Warps launched (`sm__warps_launched.sum` | `warps_launched`).
    WarpsLaunched,
    /// Thread-level instructions executed: each warp instruction counts its active lanes
    /// (`smsp__thread_inst_executed.sum` | `thread_inst_executed`).
    ThreadInstsExecuted,
    DramReadBytes,
    DramWriteBytes,
    /// Read + write, or `dram__bytes.sum`.
    DramBytes,
    L2ReadSectors,
    L2WriteSectors,
    /// All L2 sectors, read + write (`lts__t_sectors.sum`, `lts__t_bytes.sum` / 32).
    L2Sectors,
    GlobalLoadBytes,
    GlobalStoreBytes,
    GlobalLoadSectors,
    GlobalStoreSectors,
    /// Global load requests: one per executed warp-level load instruction.
    GlobalLoadRequests,
    GlobalStoreRequests,
    /// 32-byte sectors of global atomics that return a value (`ATOMG`).
    GlobalAtomSectors,
    /// The same for reductions (`REDG`: `red`, or an `atom` whose result is unused).
    GlobalRedSectors,
    /// Atomics and reductions together.
    GlobalAtomicSectors,
    /// Global atomic requests: one per executed warp-level `ATOMG`.
    GlobalAtomRequests,
    GlobalRedRequests,
    GlobalAtomicRequests,
    /// Atomic sectors that reached the busiest L2 slice: its atomic unit takes one per cycle
    /// (`lts__d_atomic_input_cycles_active.max`; Nsight Compute only, nvprof has no per-slice
    /// counter).
    L2AtomicBusiestSliceSectors,
    /// Warp-level shared-memory load instructions executed.
    SharedLoadInsts,
    SharedStoreInsts,
    /// Shared loads + stores.
    SharedInsts,
    SharedLoadBankConflicts,
    SharedStoreBankConflicts,
    /// Bank conflicts of shared loads and stores together.
    SharedBankConflicts,
    /// Shared-memory wavefronts (nvprof: transactions) of loads.
    SharedLoadWavefronts,
    SharedStoreWavefronts,
    /// Shared-memory wavefronts (transactions) per shared load instruction (1 = conflict-free).
    SharedLoadTransactionsPerRequest,
    SharedStoreTransactionsPerRequest,
    /// Warp-level branch instructions executed.
    Branches,
    DivergentBranches,
    /// Percent of branches whose targets are uniform across the warp.
    BranchEfficiency,
    /// SM cycles elapsed, maximum over SMs (`sm__cycles_elapsed.max`).
    Cycles,
    /// Kernel duration in nanoseconds.
    Duration,
}

impl Quantity {
    pub const ALL: [Quantity; 37] = [
        Quantity::WarpInstsExecuted,
        Quantity::WarpsLaunched,
        Quantity::ThreadInstsExecuted,
        Quantity::DramReadBytes,
        Quantity::DramWriteBytes,
        Quantity::DramBytes,
        Quantity::L2ReadSectors,
        Quantity::L2WriteSectors,
        Quantity::L2Sectors,
        Quantity::GlobalLoadBytes,
        Quantity::GlobalStoreBytes,
        Quantity::GlobalLoadSectors,
        Quantity::GlobalStoreSectors,
        Quantity::GlobalLoadRequests,
        Quantity::GlobalStoreRequests,
        Quantity::GlobalAtomSectors,
        Quantity::GlobalRedSectors,
        Quantity::GlobalAtomicSectors,
        Quantity::GlobalAtomRequests,
        Quantity::GlobalRedRequests,
        Quantity::GlobalAtomicRequests,
        Quantity::L2AtomicBusiestSliceSectors,
        Quantity::SharedLoadInsts,
        Quantity::SharedStoreInsts,
        Quantity::SharedInsts,
        Quantity::SharedLoadBankConflicts,
        Quantity::SharedStoreBankConflicts,
        Quantity::SharedBankConflicts,
        Quantity::SharedLoadWavefronts,
        Quantity::SharedStoreWavefronts,
        Quantity::SharedLoadTransactionsPerRequest,
        Quantity::SharedStoreTransactionsPerRequest,
        Quantity::Branches,
        Quantity::DivergentBranches,
        Quantity::BranchEfficiency,
        Quantity::Cycles,
        Quantity::Duration,
    ];

    /// The quantities the tool reads from a profile (trip-count solver, unknown-branch
    /// policy, mapper g, the counter comparison of `--explain`, launch selection):
    /// [`NCU_METRICS`] derives every one of them, [`NVPROF_METRICS`] + [`NVPROF_EVENTS`]
    /// every one but [`Quantity::NCU_ONLY`].
    pub const USED: [Quantity; 22] = [
        Quantity::WarpInstsExecuted,
        Quantity::WarpsLaunched,
        Quantity::ThreadInstsExecuted,
        Quantity::DramReadBytes,
        Quantity::DramWriteBytes,
        Quantity::L2ReadSectors,
        Quantity::L2WriteSectors,
        Quantity::GlobalLoadSectors,
        Quantity::GlobalStoreSectors,
        Quantity::GlobalLoadRequests,
        Quantity::GlobalStoreRequests,
        Quantity::GlobalAtomicSectors,
        Quantity::GlobalAtomicRequests,
        Quantity::L2AtomicBusiestSliceSectors,
        Quantity::SharedLoadInsts,
        Quantity::SharedStoreInsts,
        Quantity::SharedLoadBankConflicts,
        Quantity::SharedStoreBankConflicts,
        Quantity::SharedLoadTransactionsPerRequest,
        Quantity::SharedStoreTransactionsPerRequest,
        Quantity::Branches,
        Quantity::DivergentBranches,
    ];

    /// Used quantities no nvprof metric or event gives.
    pub const NCU_ONLY: [Quantity; 1] = [Quantity::L2AtomicBusiestSliceSectors];

    /// How the quantity is obtained, in order of preference. Each recipe is tried in turn;
    /// the first whose metrics are all present gives the value. Names cover Nsight Compute
    /// since 2019.1 (`sass` and non-`sass` instruction counters, `_op_ld`/`_op_st` and
    /// combined forms, bytes and sectors) and nvprof.
    pub(crate) fn recipes(self) -> &'static [Recipe] {
        use Quantity::*;
        use Recipe::*;
        match self {
            WarpInstsExecuted => &[
                One("smsp__inst_executed.sum"),
                One("sm__inst_executed.sum"),
                One("smsp__sass_inst_executed.sum"),
                One("inst_executed"),
            ],
            WarpsLaunched => &[
                One("sm__warps_launched.sum"),
                One("smsp__warps_launched.sum"),
                One("warps_launched"),
            ],
            ThreadInstsExecuted => &[
                One("smsp__thread_inst_executed.sum"),
                One("thread_inst_executed"),
            ],
            DramReadBytes => &[
                One("dram__bytes_read.sum"),
                Sectors("dram__sectors_read.sum"),
                One("dram_read_bytes"),
                Sectors("dram_read_transactions"),
            ],
            DramWriteBytes => &[
                One("dram__bytes_write.sum"),
                Sectors("dram__sectors_write.sum"),
                One("dram_write_bytes"),
                Sectors("dram_write_transactions"),
            ],
            DramBytes => &[
                One("dram__bytes.sum"),
                Sectors("dram__sectors.sum"),
                Add(DramReadBytes, DramWriteBytes),
            ],
            L2ReadSectors => &[
                One("lts__t_sectors_op_read.sum"),
                Bytes("lts__t_bytes_op_read.sum"),
                One("l2_read_transactions"),
            ],
            L2WriteSectors => &[
                One("lts__t_sectors_op_write.sum"),
                Bytes("lts__t_bytes_op_write.sum"),
                One("l2_write_transactions"),
            ],
            L2Sectors => &[
                One("lts__t_sectors.sum"),
                Bytes("lts__t_bytes.sum"),
                Add(L2ReadSectors, L2WriteSectors),
            ],
            GlobalLoadBytes => &[
                One("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum"),
                Sectors("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
                Sectors("gld_transactions"),
            ],
            GlobalStoreBytes => &[
                One("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum"),
                Sectors("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
                Sectors("gst_transactions"),
            ],
            GlobalLoadSectors => &[
                One("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
                Bytes("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum"),
                One("gld_transactions"),
            ],
            GlobalStoreSectors => &[
                One("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
                Bytes("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum"),
                One("gst_transactions"),
            ],
            GlobalLoadRequests => &[
                One("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
                One("smsp__sass_inst_executed_op_global_ld.sum"),
                One("smsp__inst_executed_op_global_ld.sum"),
                One("global_load_requests"),
                One("inst_executed_global_loads"),
            ],
            GlobalStoreRequests => &[
                One("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
                One("smsp__sass_inst_executed_op_global_st.sum"),
                One("smsp__inst_executed_op_global_st.sum"),
                One("global_store_requests"),
                One("inst_executed_global_stores"),
            ],
            GlobalAtomSectors => &[One("l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum")],
            GlobalRedSectors => &[One("l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum")],
            // nvprof counts atomics and reductions together, in 32-byte transactions.
            GlobalAtomicSectors => &[
                Add(GlobalAtomSectors, GlobalRedSectors),
                One("atomic_transactions"),
            ],
            GlobalAtomRequests => &[
                One("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"),
                One("smsp__sass_inst_executed_op_global_atom.sum"),
                One("global_atomic_requests"),
            ],
            GlobalRedRequests => &[
                One("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"),
                One("smsp__sass_inst_executed_op_global_red.sum"),
                One("global_reduction_requests"),
            ],
            GlobalAtomicRequests => &[Add(GlobalAtomRequests, GlobalRedRequests)],
            L2AtomicBusiestSliceSectors => &[One("lts__d_atomic_input_cycles_active.max")],
            SharedLoadInsts => &[
                One("smsp__sass_inst_executed_op_shared_ld.sum"),
                One("smsp__inst_executed_op_shared_ld.sum"),
                One("inst_executed_shared_loads"),
            ],
            SharedStoreInsts => &[
                One("smsp__sass_inst_executed_op_shared_st.sum"),
                One("smsp__inst_executed_op_shared_st.sum"),
                One("inst_executed_shared_stores"),
            ],
            SharedInsts => &[
                One("smsp__sass_inst_executed_op_shared.sum"),
                One("smsp__inst_executed_op_shared.sum"),
                Add(SharedLoadInsts, SharedStoreInsts),
            ],
            SharedLoadBankConflicts => &[
                One("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
                One("shared_ld_bank_conflict"),
            ],
            SharedStoreBankConflicts => &[
                One("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
                One("shared_st_bank_conflict"),
            ],
            SharedBankConflicts => &[
                One("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"),
                Add(SharedLoadBankConflicts, SharedStoreBankConflicts),
            ],
            SharedLoadWavefronts => &[
                One("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
                One("shared_load_transactions"),
            ],
            SharedStoreWavefronts => &[
                One("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
                One("shared_store_transactions"),
            ],
            SharedLoadTransactionsPerRequest => &[
                Div(SharedLoadWavefronts, SharedLoadInsts),
                One("shared_load_transactions_per_request"),
            ],
            SharedStoreTransactionsPerRequest => &[
                Div(SharedStoreWavefronts, SharedStoreInsts),
                One("shared_store_transactions_per_request"),
            ],
            Branches => &[
                One("smsp__sass_inst_executed_op_branch.sum"),
                One("smsp__inst_executed_op_branch.sum"),
                One("cf_executed"),
            ],
            DivergentBranches => &[
                One("smsp__sass_branch_targets_threads_divergent.sum"),
                One("smsp__branch_targets_threads_divergent.sum"),
                One("divergent_branch"),
            ],
            BranchEfficiency => &[
                One("smsp__sass_average_branch_targets_threads_uniform.pct"),
                One("smsp__average_branch_targets_threads_uniform.pct"),
                One("branch_efficiency"),
            ],
            Cycles => &[One("sm__cycles_elapsed.max")],
            Duration => &[One("gpu__time_duration.sum"), One("Duration")],
        }
    }

    /// The metric names the recipes read, for messages: `a | b * 32 | (c) + (d)`.
    pub fn sources(self) -> String {
        self.recipes()
            .iter()
            .map(|r| match *r {
                Recipe::One(a) => a.to_string(),
                Recipe::Sectors(a) => format!("{a} * 32"),
                Recipe::Bytes(a) => format!("{a} / 32"),
                Recipe::Add(a, b) => format!("[{}] + [{}]", a.sources(), b.sources()),
                Recipe::Div(a, b) => format!("[{}] / [{}]", a.sources(), b.sources()),
            })
            .collect::<Vec<_>>()
            .join(" | ")
    }

    /// Every raw metric name some recipe of this quantity reads (through sums and ratios).
    pub fn metric_names(self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for r in self.recipes() {
            match *r {
                Recipe::One(a) | Recipe::Sectors(a) | Recipe::Bytes(a) => out.push(a),
                Recipe::Add(a, b) | Recipe::Div(a, b) => {
                    out.extend(a.metric_names());
                    out.extend(b.metric_names());
                }
            }
        }
        out
    }
}

/// One way to compute a [`Quantity`] from raw metrics.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Recipe {
    One(&'static str),
    /// A count of 32-byte sectors/transactions, converted to bytes.
    Sectors(&'static str),
    /// A byte count, converted to 32-byte sectors.
    Bytes(&'static str),
    /// The sum of two quantities (combined forms from `_op_ld` + `_op_st`, read + write).
    Add(Quantity, Quantity),
    /// `a / b`; absent when `b` is zero.
    Div(Quantity, Quantity),
}

/// The Nsight Compute metrics `ptx2idg metrics` asks for: the fewest that derive every
/// quantity of [`Quantity::USED`], plus the duration that picks the median launch.
pub const NCU_METRICS: [&str; 25] = [
    "gpu__time_duration.sum",
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed.sum",
    "sm__warps_launched.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_sectors_op_read.sum",
    "lts__t_sectors_op_write.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "lts__d_atomic_input_cycles_active.max",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_branch.sum",
    "smsp__sass_branch_targets_threads_divergent.sum",
];

/// The nvprof metrics (`--metrics`) of the same set.
pub const NVPROF_METRICS: [&str; 18] = [
    "inst_executed",
    "thread_inst_executed",
    "dram_read_bytes",
    "dram_write_bytes",
    "l2_read_transactions",
    "l2_write_transactions",
    "gld_transactions",
    "gst_transactions",
    "inst_executed_global_loads",
    "inst_executed_global_stores",
    "inst_executed_shared_loads",
    "inst_executed_shared_stores",
    "shared_load_transactions",
    "shared_store_transactions",
    "cf_executed",
    "atomic_transactions",
    "global_atomic_requests",
    "global_reduction_requests",
];

/// The nvprof events (`--events`) of the same set.
pub const NVPROF_EVENTS: [&str; 4] = [
    "warps_launched",
    "shared_ld_bank_conflict",
    "shared_st_bank_conflict",
    "divergent_branch",
];

/// The command line that collects [`NCU_METRICS`] (or, with `nvprof`, [`NVPROF_METRICS`]
/// and [`NVPROF_EVENTS`]) for an application, as a CSV every reader of this crate takes.
pub fn collect_command(nvprof: bool) -> String {
    if nvprof {
        format!(
            "nvprof --csv --log-file profile.csv --metrics {} --events {} ./app [args]",
            NVPROF_METRICS.join(","),
            NVPROF_EVENTS.join(",")
        )
    } else {
        format!(
            "ncu --csv --page details --print-units base --metrics {} ./app [args] > profile.csv",
            NCU_METRICS.join(",")
        )
    }
}
