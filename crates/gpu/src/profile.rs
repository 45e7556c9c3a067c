//! GPU profiles: the hardware side of the Pipeline model (pipeline-model-analysis §3.1.3):
//! the subsystem set S, the scheduler σ with its issue limit, the per-class (subsystem, λ, Λ)
//! of mapper f (§4.3), the memory levels mapper g draws on (§4.4, §6.3), and the resource
//! limits that decide occupancy.
//!
//! A profile is read from a TOML file (schema in docs/gpu-profile.md) and *resolved*: every
//! class and memory level the file omits is filled by its documented rule
//! ([`InstClass::rule`], [`MemLevel::rule`]), so a resolved `GpuProfile` answers every class
//! (mapper f is total). Invariants of a resolved profile: `classes` holds one entry per
//! `InstClass::ALL` in that order, `memory` one per `MemLevel::ALL`; every `SubsystemId` indexes
//! `subsystems`; every λ/Λ given in a file is exact in `Cycles` ticks (files with inexact values
//! are rejected rather than silently rounded).

use crate::class::{InstClass, MemLevel, MemRule, Rule};
use crate::cycles::Cycles;
use crate::error::GpuError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Index of a subsystem (pipeline) in `GpuProfile::subsystems`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SubsystemId(pub u16);

impl SubsystemId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One pipeline of the core.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Subsystem {
    pub name: String,
    /// The architectural λ of a plain instruction on this pipeline (Table 4's λ_ALU, λ_SFU),
    /// used by the instruction-mix curves (Eqs. 43-45); per-class λ decide the simulation.
    pub nominal_lambda: Option<Cycles>,
    /// One pipeline of the whole core that every scheduler partition feeds (the load/store
    /// path to L1, shared memory and beyond), rather than one per partition with 1/P of its
    /// throughput each (the arithmetic units of a processing block).
    pub sm_wide: bool,
    /// Instructions do not wait for this pipeline to be free: each joins its queue, which
    /// serves one every λ in issue order, and completes Λ after its turn begins. What the
    /// load/store unit does with an asynchronous copy: it accepts the copy and moves the
    /// bytes in the background while the warp goes on.
    pub queued: bool,
}

/// The warp scheduler's policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Scheduler {
    /// Round robin over ready warps, starting after the last issued one.
    #[default]
    LooseRoundRobin,
    /// Keep issuing from the same warp until it stalls, then the oldest ready one.
    GreedyThenOldest,
    /// Always the oldest ready warp.
    OldestFirst,
}

/// Per-SM (and per-block) resource limits for occupancy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    pub max_warps_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub max_threads_per_sm: u32,
    /// 32-bit registers per SM.
    pub registers_per_sm: u32,
    /// Registers are allocated per warp in multiples of this many.
    #[serde(default = "default_reg_unit")]
    pub register_alloc_unit: u32,
    /// Bytes of shared memory per SM available to blocks.
    pub shared_memory_per_sm: u32,
    /// Shared memory is allocated per block in multiples of this many bytes.
    #[serde(default = "default_shared_unit")]
    pub shared_alloc_unit: u32,
    /// Bytes the driver reserves per block (1 KiB from compute capability 8.0 on).
    #[serde(default)]
    pub shared_reserved_per_block: u32,
    pub max_threads_per_block: u32,
    pub max_shared_memory_per_block: u32,
    #[serde(default = "default_max_regs")]
    pub max_registers_per_thread: u32,
    /// Bytes of the device's L2 cache; `None` when the profile does not give it (mapper g
    /// then assumes no static L2 reuse, docs/simulator.md).
    #[serde(default)]
    pub l2_bytes: Option<u64>,
    /// How many bytes of L2 room a written byte between two reads of a line takes, against 1
    /// for a byte read (written lines push re-read data out sooner); 1 when not given.
    #[serde(default = "default_written_weight")]
    pub l2_written_weight: u32,
    /// The fraction of re-reads that still hit L2 against the footprint written data crowds
    /// them with: points `[x, h]`, x the footprint (written bytes weighing
    /// `l2_written_weight`) in thousandths of `l2_bytes`, h the hit fraction in thousandths,
    /// x increasing, h not increasing; linear in between, the first point's h below it, the
    /// last one's above. Applies to re-reads with written bytes in between (read-only
    /// re-reads keep the step at `l2_bytes`); empty: the step for every re-read.
    #[serde(default)]
    pub l2_hit_curve: Vec<[u32; 2]>,
}

fn default_reg_unit() -> u32 {
    256
}
fn default_shared_unit() -> u32 {
    256
}
fn default_max_regs() -> u32 {
    255
}
fn default_written_weight() -> u32 {
    1
}

/// Where a resolved value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Given in the profile file.
    File,
    /// Filled by the class's (or level's) documented rule.
    Rule,
}

/// Mapper f's answer for one class on one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClassParams {
    pub subsystem: SubsystemId,
    /// Issue latency (CPI): time the subsystem is busy before the next issue.
    pub lambda: Cycles,
    /// Completion latency: issue to result available.
    pub latency: Cycles,
    pub origin: Origin,
}

/// λ and Λ of one memory level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MemParams {
    pub lambda: Cycles,
    pub latency: Cycles,
    pub origin: Origin,
}

/// A resolved GPU profile (see the module doc for its invariants).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuProfile {
    pub name: String,
    pub display_name: String,
    pub architecture: String,
    /// The `ptxas -arch` target of this GPU (`sm_90`), from the file's `sass_arch`; `None`
    /// (the default) for a GPU without NVIDIA's assembler (AMD) or a file that does not
    /// say: then no ptxas report is made for it (`--sass auto` does nothing).
    pub sass_arch: Option<String>,
    pub vendor: String,
    pub sm_count: u32,
    pub clock_mhz: f64,
    pub warp_size: u32,
    /// Instructions issued per cycle per core (IPC); the valve of Fig. 10.
    pub issue_limit: f64,
    pub sub_partitions: u32,
    pub scheduler: Scheduler,
    pub limits: Limits,
    pub subsystems: Vec<Subsystem>,
    /// Where memory-level-derived classes run (`memory_subsystem` key).
    pub memory_subsystem: SubsystemId,
    /// Where a warp's coalesced re-read of global data still in L2 runs (`reread_subsystem`
    /// key): a pipe of its own, beside the memory subsystem's DRAM stream
    /// (`bench/microbench/l2_reread.cu`); `None` keeps re-reads in the memory subsystem.
    pub reread_subsystem: Option<SubsystemId>,
    /// Where `cp.async` copies run (`async_copy_subsystem` key), at the timing of the global
    /// read they make; `None` keeps them on their class's subsystem.
    pub async_copy_subsystem: Option<SubsystemId>,
    classes: Vec<ClassParams>,
    memory: Vec<MemParams>,
    /// Block dispatch costs (`[launch]`); zero when the profile does not give them.
    pub launch: LaunchCosts,
    /// Device-wide sustained DRAM and L2 bandwidth (`[bandwidth]`); `None` when not given.
    pub bandwidth: Option<Bandwidth>,
    /// DRAM latency under load (`[loaded_latency]`); `None` when not given: Λ stays the
    /// unloaded one.
    pub loaded_latency: Option<LoadedLatency>,
    /// SASS instructions per PTX instruction by class (`[sass_expansion]`), converting the
    /// IDG's PTX counts to the profiler's SASS counts; all 1 when the profile does not give
    /// them.
    pub sass_expansion: SassExpansion,
    /// The unified hardware-fitted model's weights (`[unified_model]`, fitted by
    /// `cargo run -p models --example fit_unified` on bench/unified's measurements); `None`
    /// when the profile has none: that model then predicts nothing for this GPU.
    pub unified_model: Option<UnifiedModel>,
    /// What a scattered sector costs (`[scattered]`); `None` when not given: a scattered
    /// request's sectors cost what coalesced ones do.
    pub scattered: Option<Scattered>,
}

/// Cycles per SM one sector costs when every sector of a request lies in a line of its own
/// (`[scattered]` in a profile file; `bench/microbench/gather.cu`: uniform random gathers
/// saturate the L2 and DRAM at a fraction of the coalesced sector rate, per sector whatever
/// the element width). Mapper g prices the sectors a global load moves beyond a coalesced
/// request at no less than these, by the share of its sectors that missed L2.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scattered {
    pub l2_cycles_per_sector: f64,
    pub dram_cycles_per_sector: f64,
    /// DRAM bytes one scattered sector that misses L2 fetches (`bench/microbench/fetch.cu`:
    /// the L2 fetch granularity, 64 on Hopper): what `dram_cycles_per_sector` holds, and what
    /// turns a kernel's DRAM bytes into the share of its sectors that missed. Absent: 32, one
    /// sector.
    #[serde(default = "one_sector")]
    pub dram_fetch_bytes: f64,
    /// Where the values come from.
    pub source: String,
}

fn one_sector() -> f64 {
    32.0
}

/// Weights of the unified hardware-fitted model (`[unified_model]`): seconds per unit of each
/// property, by the property names of `models::unified`; a property not listed has no
/// weight (a kernel that has it gets no prediction). The names are checked where the model
/// reads them (crate `models`), which owns the property list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnifiedModel {
    /// Where the weights come from (measurement file, GPU, date).
    pub source: String,
    pub weights: BTreeMap<String, f64>,
}

/// SASS instructions the compiler emits per PTX instruction, by counter class
/// (`[sass_expansion]`, measured by bench/sass/expansion.py from static counts; see
/// docs/gpu-profile.md for their provenance and limits).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SassExpansion {
    /// Every instruction.
    pub inst: f64,
    /// `ld.global` -> `LDG`.
    pub global_ld: f64,
    /// `st.global` -> `STG`.
    pub global_st: f64,
    /// `ld.shared` -> `LDS`, `LDSM`.
    pub shared_ld: f64,
    /// `st.shared` -> `STS`.
    pub shared_st: f64,
    /// `bra` -> `BRA`, `BRX`, `JMP`.
    pub branch: f64,
}

impl Default for SassExpansion {
    fn default() -> Self {
        Self {
            inst: 1.0,
            global_ld: 1.0,
            global_st: 1.0,
            shared_ld: 1.0,
            shared_st: 1.0,
            branch: 1.0,
        }
    }
}

/// Where a profile's bandwidth figures come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BandwidthSource {
    /// Measured by `bench/microbench` (bandwidth.cu) on the device itself.
    Measured,
    /// The vendor's published peak: an upper bound, sustained rates are lower.
    Datasheet,
}

/// Sustained bandwidth of one memory level shared by the whole device, in GB/s, for reads
/// only, writes only and reads and writes in equal bytes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MixedBandwidth {
    pub read: f64,
    pub write: f64,
    pub mixed: f64,
}

impl MixedBandwidth {
    /// GB/s at a read fraction `f` of the bytes (0 = writes only): linear between the three
    /// measured mixes, the simplest curve through them (docs/simulator.md).
    pub fn at(&self, f: f64) -> f64 {
        let f = f.clamp(0.0, 1.0);
        if f <= 0.5 {
            self.write + (self.mixed - self.write) * (f / 0.5)
        } else {
            self.mixed + (self.read - self.mixed) * ((f - 0.5) / 0.5)
        }
    }
}

/// Device-wide bandwidth limits (`[bandwidth]` in a profile file).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Bandwidth {
    pub source: BandwidthSource,
    pub dram: MixedBandwidth,
    /// L2 when the profile gives it (datasheets rarely do).
    pub l2: Option<MixedBandwidth>,
    /// Millions of atomic sectors per second the atomic unit of one L2 slice sustains when it
    /// is the bottleneck (`bench/microbench/atomics.cu`): hot addresses serialize on their
    /// slice whatever the other slices do.
    pub l2_atomic_slice_rate: Option<f64>,
    /// L2 slices, each with its own atomic unit (ncu's `lts__*` sums over their averages).
    /// Without counters the atomic floor spreads the launch's atomic sectors evenly over
    /// them, the least its busiest slice can take.
    pub l2_slices: Option<u32>,
}

/// DRAM latency under load (`[loaded_latency]` in a profile file): a load's Λ at DRAM
/// utilization u (bytes moved over the sustained bandwidth of the mix) with a share w of the
/// bytes written is Λ0 · [`LoadedLatency::factor`]`(u, w)`, Λ0 the profile's DRAM Λ
/// (`bench/microbench/loaded_latency.cu`: reads queue behind each other as u nears the
/// bandwidth, and writes in the stream delay reads at any u).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadedLatency {
    pub reads: f64,
    pub reads_exp: f64,
    pub writes: f64,
    pub writes_exp: f64,
    /// The utilization at which the queue would grow without bound; above 1, since the
    /// sustained bandwidth is reached with finite latency.
    pub capacity: f64,
}

impl LoadedLatency {
    /// Λ(u, w) / Λ0 = 1 + (reads · u^reads_exp + writes · w · u^writes_exp) / (1 − u / capacity),
    /// with u clamped to [0, 1] (a launch cannot use more than the sustained bandwidth) and w
    /// to [0, 1].
    pub fn factor(&self, u: f64, w: f64) -> f64 {
        let u = if u.is_finite() {
            u.clamp(0.0, 1.0)
        } else {
            1.0
        };
        let w = if w.is_finite() {
            w.clamp(0.0, 1.0)
        } else {
            0.0
        };
        1.0 + (self.reads * u.powf(self.reads_exp) + self.writes * w * u.powf(self.writes_exp))
            / (1.0 - u / self.capacity)
    }
}

/// How fast a core starts blocks (`[launch]` in a profile file).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct LaunchCosts {
    /// From a block's end to the start of the block that replaces it on the core.
    pub latency: Cycles,
    /// Least time between two block starts on one core (dispatch throughput).
    pub interval: Cycles,
    /// Kernel launch overhead in microseconds as CUDA events around one launch see it
    /// (host submission, grid start and drain); wall-clock, not cycles, because it does not
    /// scale with the SM clock.
    pub overhead_us: f64,
}

impl GpuProfile {
    /// The least time in microseconds a launch moving `traffic` can take: its DRAM and its L2
    /// bytes over the device-wide sustained bandwidth at the launch's read/write mix, the
    /// larger of the two. `None` without `[bandwidth]` or without counters.
    pub fn bandwidth_floor_us(&self, traffic: &crate::Traffic) -> Option<f64> {
        let bw = self.bandwidth.as_ref()?;
        let level = |bytes: Option<(f64, f64)>, rates: Option<&MixedBandwidth>| {
            let ((r, w), rates) = (bytes?, rates?);
            let total = r + w;
            (total > 0.0).then(|| total / (rates.at(r / total) * 1e3))
        };
        [
            level(traffic.dram, Some(&bw.dram)),
            level(traffic.l2, bw.l2.as_ref()),
        ]
        .into_iter()
        .flatten()
        .reduce(f64::max)
    }

    /// The least time in microseconds a launch's atomics can take: the atomic sectors its
    /// busiest L2 slice received over the rate one slice sustains. `None` without the rate
    /// or the counter.
    pub fn atomic_floor_us(&self, traffic: &crate::Traffic) -> Option<f64> {
        let rate = self.bandwidth.as_ref()?.l2_atomic_slice_rate?;
        let sectors = traffic.atomic_busiest_slice_sectors?;
        (sectors > 0.0).then(|| sectors / rate)
    }

    /// The atomic sectors the busiest L2 slice takes at least when a launch sends `sectors`
    /// in all: an even share of the profile's slices (the static analysis cannot say which
    /// addresses are hot). `None` without `l2_slices`.
    pub fn even_slice_share(&self, sectors: f64) -> Option<f64> {
        let n = self.bandwidth.as_ref()?.l2_slices?;
        Some(sectors / f64::from(n))
    }

    /// (subsystem, λ, Λ) of a class. Total: resolution filled every class.
    pub fn class(&self, c: InstClass) -> &ClassParams {
        &self.classes[c as usize]
    }

    pub fn mem(&self, l: MemLevel) -> &MemParams {
        &self.memory[l as usize]
    }

    /// This profile with the DRAM level's Λ multiplied by `scale`: the latency a load sees
    /// when the memory system is loaded (`LoadedLatency`). A scale that leaves no valid Λ
    /// (not finite, negative) keeps the measured one.
    pub fn with_dram_latency_scale(&self, scale: f64) -> GpuProfile {
        let mut p = self.clone();
        let m = &mut p.memory[MemLevel::Dram as usize];
        if let Some(c) = Cycles::from_f64(m.latency.to_f64() * scale) {
            m.latency = c;
        }
        // The classes resolved from the DRAM level at load (`ld.global` and what follows it:
        // `st.global`, `cp.async`) are what mapper g's static path times a global access by
        // when no counters give its DRAM share: they load too.
        for &c in InstClass::ALL {
            if from_dram(c) {
                let k = &mut p.classes[c as usize];
                if let Some(l) = Cycles::from_f64(k.latency.to_f64() * scale) {
                    k.latency = l;
                }
            }
        }
        p
    }

    /// The DRAM share of a launch's load: the least time in microseconds its DRAM bytes take
    /// at the sustained bandwidth of their read/write mix, and the share of those bytes that
    /// are written. `None` without `[bandwidth]`, without DRAM counters or without DRAM bytes.
    pub fn dram_time_us(&self, traffic: &crate::Traffic) -> Option<(f64, f64)> {
        let bw = self.bandwidth.as_ref()?;
        let (r, w) = traffic.dram?;
        let total = r + w;
        (total > 0.0).then(|| (total / (bw.dram.at(r / total) * 1e3), w / total))
    }

    pub fn subsystem(&self, id: SubsystemId) -> &Subsystem {
        &self.subsystems[id.index()]
    }

    pub fn subsystem_id(&self, name: &str) -> Option<SubsystemId> {
        self.subsystems
            .iter()
            .position(|s| s.name == name)
            .map(|i| SubsystemId(i as u16))
    }

    /// Time between two issues allowed by the issue limit: 1/IL, rounded to the nearest tick
    /// (exact for IL a divisor of 8000 ticks, e.g. 1, 2, 4, 8).
    pub fn issue_interval(&self) -> Cycles {
        Cycles::from_f64(1.0 / self.issue_limit).unwrap_or(Cycles::ZERO)
    }

    /// Cycles to seconds at the profile's clock.
    pub fn seconds(&self, c: Cycles) -> f64 {
        c.to_f64() / (self.clock_mhz * 1e6)
    }

    /// A bundled profile by name (`h100` and `h200` are aliases of `hopper-h100` and
    /// `hopper-h200`).
    pub fn bundled(name: &str) -> Result<GpuProfile, GpuError> {
        let name = match name {
            "h100" => "hopper-h100",
            "h200" => "hopper-h200",
            other => other,
        };
        match BUNDLED.iter().find(|(n, _)| *n == name) {
            Some((n, text)) => GpuProfile::parse(text, &format!("bundled profile {n}")),
            None => Err(GpuError::UnknownGpu {
                name: name.to_string(),
                known: bundled_names().join(", "),
            }),
        }
    }

    pub fn from_toml_str(text: &str) -> Result<GpuProfile, GpuError> {
        GpuProfile::parse(text, "GPU profile")
    }

    pub fn from_file(path: &Path) -> Result<GpuProfile, GpuError> {
        let text = ptx::source::read_toml(path).map_err(|source| GpuError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        GpuProfile::parse(&text, &path.display().to_string())
    }

    fn parse(text: &str, origin: &str) -> Result<GpuProfile, GpuError> {
        let raw: RawProfile = toml::from_str(text).map_err(|e| GpuError::Toml {
            origin: origin.to_string(),
            message: e.to_string().trim_end().to_string(),
        })?;
        Resolver { origin }.resolve(raw)
    }
}

/// Bundled profile files, in the order `ptx2idg gpus` lists them.
const BUNDLED: &[(&str, &str)] = &[
    ("fermi-c2050", include_str!("../profiles/fermi-c2050.toml")),
    (
        "kepler-gtx650ti",
        include_str!("../profiles/kepler-gtx650ti.toml"),
    ),
    (
        "maxwell-k620",
        include_str!("../profiles/maxwell-k620.toml"),
    ),
    (
        "pascal-gtx1060",
        include_str!("../profiles/pascal-gtx1060.toml"),
    ),
    (
        "turing-rtx2070",
        include_str!("../profiles/turing-rtx2070.toml"),
    ),
    (
        "tonga-r9-380",
        include_str!("../profiles/tonga-r9-380.toml"),
    ),
    ("hopper-h100", include_str!("../profiles/hopper-h100.toml")),
    ("hopper-h200", include_str!("../profiles/hopper-h200.toml")),
];

/// Names of the bundled profiles.
pub fn bundled_names() -> Vec<&'static str> {
    BUNDLED.iter().map(|(n, _)| *n).collect()
}

// ---------------------------------------------------------------- file schema

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    name: String,
    display_name: Option<String>,
    architecture: String,
    #[serde(default)]
    sass_arch: Option<String>,
    vendor: String,
    sm_count: u32,
    clock_mhz: f64,
    #[serde(default = "default_warp")]
    warp_size: u32,
    issue_limit: f64,
    #[serde(default = "default_one")]
    sub_partitions: u32,
    #[serde(default)]
    scheduler: Scheduler,
    #[serde(default = "default_mem_subsystem")]
    memory_subsystem: String,
    #[serde(default)]
    reread_subsystem: Option<String>,
    async_copy_subsystem: Option<String>,
    subsystems: Vec<RawSubsystem>,
    limits: Limits,
    #[serde(default)]
    classes: BTreeMap<String, RawClass>,
    #[serde(default)]
    memory: BTreeMap<String, RawMem>,
    launch: Option<RawLaunch>,
    bandwidth: Option<RawBandwidth>,
    loaded_latency: Option<LoadedLatency>,
    sass_expansion: Option<SassExpansion>,
    unified_model: Option<UnifiedModel>,
    scattered: Option<Scattered>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLaunch {
    latency: f64,
    interval: f64,
    #[serde(default)]
    overhead_us: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBandwidth {
    source: BandwidthSource,
    dram_read: f64,
    dram_write: f64,
    dram_mixed: f64,
    l2_read: Option<f64>,
    l2_write: Option<f64>,
    l2_mixed: Option<f64>,
    l2_atomic_slice_rate: Option<f64>,
    l2_slices: Option<u32>,
}

fn default_warp() -> u32 {
    32
}
fn default_one() -> u32 {
    1
}
fn default_mem_subsystem() -> String {
    "mem".to_string()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSubsystem {
    name: String,
    nominal_lambda: Option<f64>,
    #[serde(default)]
    sm_wide: bool,
    #[serde(default)]
    queued: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClass {
    subsystem: String,
    lambda: f64,
    latency: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMem {
    lambda: f64,
    latency: f64,
}

struct Resolver<'a> {
    origin: &'a str,
}

impl Resolver<'_> {
    fn invalid(&self, key: String, message: impl Into<String>) -> GpuError {
        GpuError::InvalidValue {
            origin: self.origin.to_string(),
            key,
            message: message.into(),
        }
    }

    fn cycles(&self, key: String, v: f64) -> Result<Cycles, GpuError> {
        if !v.is_finite() || v < 0.0 {
            return Err(self.invalid(key, format!("{v} is not a number of cycles >= 0")));
        }
        if !Cycles::is_exact_f64(v) {
            return Err(self.invalid(
                key,
                format!("{v} is not exact in 1/8000-cycle ticks (use at most 3 decimals or a multiple of 1/64)"),
            ));
        }
        Cycles::from_f64(v).ok_or_else(|| self.invalid(key, format!("{v} is too large")))
    }

    fn nonneg(&self, key: &str, v: f64) -> Result<f64, GpuError> {
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(self.invalid(key.to_string(), format!("{v} is not a number >= 0")))
        }
    }

    fn gbs(&self, key: &str, v: f64) -> Result<f64, GpuError> {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(self.invalid(key.to_string(), format!("{v} is not a bandwidth > 0 GB/s")))
        }
    }

    fn bandwidth(&self, b: &RawBandwidth) -> Result<Bandwidth, GpuError> {
        let dram = MixedBandwidth {
            read: self.gbs("bandwidth.dram_read", b.dram_read)?,
            write: self.gbs("bandwidth.dram_write", b.dram_write)?,
            mixed: self.gbs("bandwidth.dram_mixed", b.dram_mixed)?,
        };
        let l2 = match (b.l2_read, b.l2_write, b.l2_mixed) {
            (None, None, None) => None,
            (Some(r), Some(w), Some(m)) => Some(MixedBandwidth {
                read: self.gbs("bandwidth.l2_read", r)?,
                write: self.gbs("bandwidth.l2_write", w)?,
                mixed: self.gbs("bandwidth.l2_mixed", m)?,
            }),
            _ => {
                return Err(self.invalid(
                    "bandwidth.l2_*".into(),
                    "give all of l2_read, l2_write and l2_mixed, or none",
                ))
            }
        };
        let atomic = match b.l2_atomic_slice_rate {
            Some(r) if r.is_finite() && r > 0.0 => Some(r),
            Some(r) => {
                return Err(self.invalid(
                    "bandwidth.l2_atomic_slice_rate".into(),
                    format!("{r} is not a rate > 0 (millions of sectors per second)"),
                ))
            }
            None => None,
        };
        if let Some(n) = b.l2_slices {
            self.positive("bandwidth.l2_slices", n)?;
        }
        Ok(Bandwidth {
            source: b.source,
            dram,
            l2,
            l2_atomic_slice_rate: atomic,
            l2_slices: b.l2_slices,
        })
    }

    fn positive(&self, key: &str, v: u32) -> Result<(), GpuError> {
        if v == 0 {
            return Err(self.invalid(key.to_string(), "must be > 0"));
        }
        Ok(())
    }

    fn resolve(&self, raw: RawProfile) -> Result<GpuProfile, GpuError> {
        for (k, v) in [
            ("sm_count", raw.sm_count),
            ("warp_size", raw.warp_size),
            ("sub_partitions", raw.sub_partitions),
            ("limits.max_warps_per_sm", raw.limits.max_warps_per_sm),
            ("limits.max_blocks_per_sm", raw.limits.max_blocks_per_sm),
            ("limits.max_threads_per_sm", raw.limits.max_threads_per_sm),
            ("limits.registers_per_sm", raw.limits.registers_per_sm),
            ("limits.register_alloc_unit", raw.limits.register_alloc_unit),
            ("limits.shared_alloc_unit", raw.limits.shared_alloc_unit),
            (
                "limits.max_threads_per_block",
                raw.limits.max_threads_per_block,
            ),
            (
                "limits.max_registers_per_thread",
                raw.limits.max_registers_per_thread,
            ),
        ] {
            self.positive(k, v)?;
        }
        let curve = &raw.limits.l2_hit_curve;
        if curve.len() > crate::timing::MAX_CURVE_POINTS
            || curve.iter().any(|p| p[1] > 1000)
            || curve
                .windows(2)
                .any(|w| w[0][0] >= w[1][0] || w[0][1] < w[1][1])
        {
            return Err(self.invalid(
                "limits.l2_hit_curve".into(),
                format!(
                    "at most {} points [x, h], x increasing, h in 0..=1000 and not increasing",
                    crate::timing::MAX_CURVE_POINTS
                ),
            ));
        }
        if !(raw.issue_limit.is_finite() && raw.issue_limit > 0.0) {
            return Err(self.invalid("issue_limit".into(), "must be a number > 0"));
        }
        if !(raw.clock_mhz.is_finite() && raw.clock_mhz > 0.0) {
            return Err(self.invalid("clock_mhz".into(), "must be a number > 0"));
        }

        if raw.subsystems.is_empty() {
            return Err(self.invalid("subsystems".into(), "at least one subsystem is needed"));
        }
        if raw.subsystems.len() > usize::from(u16::MAX) {
            return Err(self.invalid("subsystems".into(), "too many subsystems"));
        }
        let mut subsystems = Vec::with_capacity(raw.subsystems.len());
        for (i, s) in raw.subsystems.iter().enumerate() {
            if subsystems.iter().any(|x: &Subsystem| x.name == s.name) {
                return Err(self.invalid(
                    format!("subsystems[{i}].name"),
                    format!("duplicate subsystem `{}`", s.name),
                ));
            }
            let nominal_lambda = match s.nominal_lambda {
                Some(v) => Some(self.cycles(format!("subsystems[{i}].nominal_lambda"), v)?),
                None => None,
            };
            subsystems.push(Subsystem {
                name: s.name.clone(),
                nominal_lambda,
                sm_wide: s.sm_wide,
                queued: s.queued,
            });
        }
        let find = |name: &str| {
            subsystems
                .iter()
                .position(|s| s.name == name)
                .map(|i| SubsystemId(i as u16))
        };
        let known_subsystems = || {
            subsystems
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };

        // Explicit classes and levels first; rules fill the rest below.
        let mut classes: Vec<Option<ClassParams>> = vec![None; InstClass::ALL.len()];
        for (name, rc) in &raw.classes {
            let key = format!("classes.\"{name}\"");
            let Some(c) = InstClass::from_name(name) else {
                return Err(self.invalid(
                    key,
                    "unknown instruction class (see docs/gpu-profile.md for the taxonomy)",
                ));
            };
            let Some(subsystem) = find(&rc.subsystem) else {
                return Err(self.invalid(
                    format!("{key}.subsystem"),
                    format!(
                        "unknown subsystem `{}` (declared: {})",
                        rc.subsystem,
                        known_subsystems()
                    ),
                ));
            };
            classes[c as usize] = Some(ClassParams {
                subsystem,
                lambda: self.cycles(format!("{key}.lambda"), rc.lambda)?,
                latency: self.cycles(format!("{key}.latency"), rc.latency)?,
                origin: Origin::File,
            });
        }
        let mut memory: Vec<Option<MemParams>> = vec![None; MemLevel::ALL.len()];
        for (name, rm) in &raw.memory {
            let key = format!("memory.{name}");
            let Some(l) = MemLevel::from_name(name) else {
                return Err(self.invalid(
                    key,
                    "unknown memory level (dram, l2, l1, shared, local, constant)",
                ));
            };
            memory[l as usize] = Some(MemParams {
                lambda: self.cycles(format!("{key}.lambda"), rm.lambda)?,
                latency: self.cycles(format!("{key}.latency"), rm.latency)?,
                origin: Origin::File,
            });
        }

        let memory_subsystem = find(&raw.memory_subsystem).ok_or_else(|| {
            self.invalid(
                "memory_subsystem".into(),
                format!(
                    "unknown subsystem `{}` (declared: {})",
                    raw.memory_subsystem,
                    known_subsystems()
                ),
            )
        })?;

        // An optional key naming a declared subsystem.
        let named = |key: &str, name: &Option<String>| match name {
            None => Ok(None),
            Some(name) => find(name).map(Some).ok_or_else(|| {
                self.invalid(
                    key.into(),
                    format!(
                        "unknown subsystem `{name}` (declared: {})",
                        known_subsystems()
                    ),
                )
            }),
        };
        let reread_subsystem = named("reread_subsystem", &raw.reread_subsystem)?;
        let async_copy_subsystem = named("async_copy_subsystem", &raw.async_copy_subsystem)?;

        // Rules form a DAG (class::tests::rules_are_acyclic), so plain recursion terminates.
        for &l in MemLevel::ALL {
            self.resolve_mem(l, &mut memory)?;
        }
        let memory: Vec<MemParams> = memory.into_iter().flatten().collect();
        for &c in InstClass::ALL {
            self.resolve_class(c, &mut classes, &memory, memory_subsystem)?;
        }
        let mut classes: Vec<ClassParams> = classes.into_iter().flatten().collect();
        debug_assert_eq!(classes.len(), InstClass::ALL.len());
        // Copies keep their class's λ and Λ (the global read) on the pipeline named for them.
        if let Some(q) = async_copy_subsystem {
            classes[InstClass::CpAsync as usize].subsystem = q;
        }

        let launch = match &raw.launch {
            Some(l) => LaunchCosts {
                latency: self.cycles("launch.latency".into(), l.latency)?,
                interval: self.cycles("launch.interval".into(), l.interval)?,
                overhead_us: self.nonneg("launch.overhead_us", l.overhead_us)?,
            },
            None => LaunchCosts::default(),
        };
        let bandwidth = raw
            .bandwidth
            .as_ref()
            .map(|b| self.bandwidth(b))
            .transpose()?;
        if let Some(l) = &raw.loaded_latency {
            for (key, v) in [
                ("loaded_latency.reads", l.reads),
                ("loaded_latency.reads_exp", l.reads_exp),
                ("loaded_latency.writes", l.writes),
                ("loaded_latency.writes_exp", l.writes_exp),
            ] {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(self.invalid(key.into(), format!("{v} is not a number >= 0")));
                }
            }
            if !(l.capacity.is_finite() && l.capacity > 1.0) {
                return Err(self.invalid(
                    "loaded_latency.capacity".into(),
                    format!("{} is not a utilization > 1", l.capacity),
                ));
            }
        }
        let sass_expansion = match raw.sass_expansion {
            Some(e) => {
                for (key, v) in [
                    ("sass_expansion.inst", e.inst),
                    ("sass_expansion.global_ld", e.global_ld),
                    ("sass_expansion.global_st", e.global_st),
                    ("sass_expansion.shared_ld", e.shared_ld),
                    ("sass_expansion.shared_st", e.shared_st),
                    ("sass_expansion.branch", e.branch),
                ] {
                    if !(v.is_finite() && v > 0.0) {
                        return Err(self.invalid(key.into(), format!("{v} is not a factor > 0")));
                    }
                }
                e
            }
            None => SassExpansion::default(),
        };
        if let Some(u) = &raw.unified_model {
            if u.weights.is_empty() {
                return Err(self.invalid(
                    "unified_model.weights".into(),
                    "no weight given (leave the section out instead)",
                ));
            }
            for (name, w) in &u.weights {
                if !w.is_finite() {
                    return Err(self.invalid(
                        format!("unified_model.weights.{name}"),
                        format!("{w} is not a finite weight"),
                    ));
                }
            }
        }
        if let Some(c) = &raw.scattered {
            for (key, v) in [
                ("scattered.l2_cycles_per_sector", c.l2_cycles_per_sector),
                ("scattered.dram_cycles_per_sector", c.dram_cycles_per_sector),
                ("scattered.dram_fetch_bytes", c.dram_fetch_bytes),
            ] {
                if !(v.is_finite() && v > 0.0) {
                    return Err(self.invalid(key.into(), format!("{v} is not a cost > 0")));
                }
            }
            if c.dram_fetch_bytes < 32.0 {
                return Err(self.invalid(
                    "scattered.dram_fetch_bytes".into(),
                    format!(
                        "{} is less than one 32-byte sector, the least DRAM fetch",
                        c.dram_fetch_bytes
                    ),
                ));
            }
        }
        Ok(GpuProfile {
            scattered: raw.scattered.clone(),
            unified_model: raw.unified_model,
            launch,
            bandwidth,
            loaded_latency: raw.loaded_latency,
            sass_expansion,
            display_name: raw.display_name.unwrap_or_else(|| raw.name.clone()),
            name: raw.name,
            architecture: raw.architecture,
            sass_arch: raw.sass_arch,
            vendor: raw.vendor,
            sm_count: raw.sm_count,
            clock_mhz: raw.clock_mhz,
            warp_size: raw.warp_size,
            issue_limit: raw.issue_limit,
            sub_partitions: raw.sub_partitions,
            scheduler: raw.scheduler,
            limits: raw.limits,
            subsystems,
            memory_subsystem,
            reread_subsystem,
            async_copy_subsystem,
            classes,
            memory,
        })
    }

    fn resolve_mem(
        &self,
        l: MemLevel,
        memory: &mut [Option<MemParams>],
    ) -> Result<MemParams, GpuError> {
        if let Some(p) = memory[l as usize] {
            return Ok(p);
        }
        let p = match l.rule() {
            MemRule::Required => {
                return Err(GpuError::MissingKey {
                    origin: self.origin.to_string(),
                    key: format!("memory.{l}"),
                    why: "Table 5 measures it and no rule derives it",
                })
            }
            MemRule::From {
                level,
                lambda,
                latency,
            } => {
                let b = self.resolve_mem(level, memory)?;
                MemParams {
                    lambda: self.scale(b.lambda, lambda, || format!("memory.{l}"))?,
                    latency: self.scale(b.latency, latency, || format!("memory.{l}"))?,
                    origin: Origin::Rule,
                }
            }
        };
        memory[l as usize] = Some(p);
        Ok(p)
    }

    fn scale(
        &self,
        c: Cycles,
        (n, d): (u64, u64),
        key: impl Fn() -> String,
    ) -> Result<Cycles, GpuError> {
        c.mul_ratio(n, d)
            .ok_or_else(|| self.invalid(key(), "derived value overflows"))
    }

    fn resolve_class(
        &self,
        c: InstClass,
        classes: &mut [Option<ClassParams>],
        memory: &[MemParams],
        mem_sub: SubsystemId,
    ) -> Result<ClassParams, GpuError> {
        if let Some(p) = classes[c as usize] {
            return Ok(p);
        }
        let key = || format!("classes.\"{c}\"");
        let p = match c.rule() {
            Rule::Required => {
                return Err(GpuError::MissingKey {
                    origin: self.origin.to_string(),
                    key: key(),
                    why: "Table 5 measures it and no rule derives it",
                })
            }
            Rule::SameAs(b) => ClassParams {
                origin: Origin::Rule,
                ..self.resolve_class(b, classes, memory, mem_sub)?
            },
            Rule::Scaled {
                base,
                lambda,
                latency,
            } => {
                let b = self.resolve_class(base, classes, memory, mem_sub)?;
                ClassParams {
                    subsystem: b.subsystem,
                    lambda: self.scale(b.lambda, lambda, key)?,
                    latency: self.scale(b.latency, latency, key)?,
                    origin: Origin::Rule,
                }
            }
            Rule::Memory {
                level,
                lambda,
                latency,
            } => {
                let m = memory[level as usize];
                ClassParams {
                    subsystem: mem_sub,
                    lambda: self.scale(m.lambda, lambda, key)?,
                    latency: self.scale(m.latency, latency, key)?,
                    origin: Origin::Rule,
                }
            }
            Rule::SlowestArithmetic => {
                let mut best: Option<ClassParams> = None;
                for &a in InstClass::ALL.iter().filter(|a| a.is_arithmetic()) {
                    let p = self.resolve_class(a, classes, memory, mem_sub)?;
                    match best {
                        Some(b) if (b.lambda, b.latency) >= (p.lambda, p.latency) => {}
                        _ => best = Some(p),
                    }
                }
                // is_arithmetic holds for f32.mul at least, so `best` is set.
                let b = best.ok_or_else(|| self.invalid(key(), "no arithmetic class"))?;
                ClassParams {
                    origin: Origin::Rule,
                    ..b
                }
            }
        };
        classes[c as usize] = Some(p);
        Ok(p)
    }
}
/// Whether class `c`'s λ and Λ are the DRAM level's by its rule (directly, or through the
/// classes it follows).
fn from_dram(c: InstClass) -> bool {
    match c.rule() {
        Rule::Memory { level, .. } => level == MemLevel::Dram,
        Rule::SameAs(b) | Rule::Scaled { base: b, .. } => from_dram(b),
        Rule::Required | Rule::SlowestArithmetic => false,
    }
}
