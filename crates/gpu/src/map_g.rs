//! Mapper g (pipeline-model-analysis §3.1.3, §4.4, §6.3): context-dependent λ/Λ of memory
//! instructions, and `map_kernel`, which runs f then g over every node of every warp class.
//!
//! Sources, in order of preference, per memory node:
//! - `GProfile`: kernel-wide profiler metrics. Global memory uses R = DRAM bytes / global
//!   bytes and the three cases of §6.3 on the DRAM and L2 levels; shared memory uses the
//!   bank-conflict degree D = conflicts per request (loads and stores separately):
//!   λ' = (1+D)·λ, Λ' = Λ + D·λ (§6.3 writes it for OpenCL *local* memory, which is CUDA
//!   shared memory).
//! - Request size, for global and local accesses whatever decided the level: the levels' λ
//!   and Λ are for a 128-byte (4-sector) warp request, and an instruction moving S sectors
//!   costs λ' = λ·S/4, Λ' = Λ + (S/4 − 1)·λ when S > 4 (§6.3's R > 1 rule for the extra
//!   transfer). S comes from the IDG's static `AccessPattern` where the address is known,
//!   else from the profile's mean sectors per request, else ⌈lanes·bytes/32⌉.
//! - Sectors of the loads the static analysis cannot see: the counters give one mean over all
//!   of a kernel's loads (and one over its stores); the sectors of the requests whose pattern
//!   is known are taken out and the rest shared by the others ([`attribute_sectors`]).
//! - L1 hits: the counters' share of global load sectors the L1 served, placed on the sectors
//!   a warp's near-coalesced loads touched before (`MemAccess::seen_sectors`), then on those
//!   an earlier warp of its group loads (`sibling_sectors`), and priced at the L1 level for
//!   those ([`attribute_l1`], [`l1_mix`]); §6.3's R is then taken over the bytes that reach
//!   L2.
//! - Scattered gathers: a global load whose address depends on data and whose counters say
//!   its requests move more sectors than a coalesced one costs, per sector beyond, the
//!   profile's measured cost of a sector in a line of its own (`[scattered]`,
//!   `bench/microbench/gather.cu`) in proportion φ to how far it lies towards one sector per
//!   lane ([`scattered_floor`]), less the sectors the L1 serves: the counters' hits that no
//!   static pattern explains, spread over the loads of unknown address ([`attribute_l1`]).
//! - `GStatic`: the static pattern alone. Shared: the D formula with the static conflict
//!   degree.
//! - `F`: mapper f's class values.
//!
//! All arithmetic is exact rational arithmetic on `Cycles` ticks, rounded once (half up).
//! Global loads whose lanes all read one address (a uniform, broadcast read such as a
//! k-means cluster centre) take the L1 level: the line is reused by every warp of the grid.
//! Global atomics follow the request-size rule too (§6.3 gives no rule for them): the L1
//! sends one sector per distinct sector and per round of lanes on one word, so a warp
//! scattering its atomics over 32 sectors costs 8 coalesced ones
//! (`bench/microbench/atomics.cu`); S is the static pattern's (all lanes on one word: one
//! sector per lane), else the profile's atomic sectors per request, else one sector per
//! lane ([`static_atomic_sectors`]), and never below the 4 sectors λ was measured with.
//! Shared atomics keep mapper f's values. Generic-addressed accesses (`ld.u32`, no state
//! space) whose space the IDG builder resolved take the class of that space (`ld.shared`,
//! ...), decided by `GStatic`.

use crate::class::{InstClass, MemLevel};
use crate::cycles::Cycles;
use crate::fragment;
use crate::map_f::{map_f, Unclassified, Warning};
use crate::profile::{GpuProfile, SubsystemId};
use crate::timing::{ClassTiming, GradedHits, L2Reuse, MapSource, NodeTiming};
use idg::{KernelIdgs, MemAccess, MemSpace, Node};
use ptx::ast::Opcode;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The kernel-wide profiler metrics mapper g uses. `None` means "not measured"; each
/// formula needs all of its inputs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct GMetrics {
    /// Bytes moved between L2 and DRAM (reads + writes).
    pub dram_bytes: Option<u64>,
    /// Bytes of global loads and stores at L1 (the paper's bytes_global).
    pub global_bytes: Option<u64>,
    /// Bank-conflict degree D of shared loads: extra wavefronts per request.
    pub shared_load_conflict_degree: Option<f64>,
    /// The same for shared stores.
    pub shared_store_conflict_degree: Option<f64>,
    /// Mean 32-byte sectors per global load request (instruction), all loads of the kernel.
    #[serde(default)]
    pub load_sectors_per_request: Option<f64>,
    /// The same for global stores.
    #[serde(default)]
    pub store_sectors_per_request: Option<f64>,
    /// The same for global atomics and reductions together.
    #[serde(default)]
    pub atomic_sectors_per_request: Option<f64>,
    /// Share of the global load sectors the L1 served: 1 − L2 read sectors / L1 global load
    /// sectors, in [0, 1].
    #[serde(default)]
    pub l1_load_hit_share: Option<f64>,
}

impl GMetrics {
    /// The metrics of one profiled launch (Nsight Compute or nvprof names, whichever the file
    /// has; see `profile::Quantity`).
    ///
    /// D is bank conflicts / shared instructions where the profiler gives both (Nsight
    /// Compute, nvprof); otherwise wavefronts per request − 1, which also counts the extra
    /// wavefronts of wide (64/128-bit) accesses that are not conflicts; otherwise the
    /// combined (loads and stores) conflicts per shared instruction, for both.
    /// A quantity that cannot be derived stays `None`; [`map_kernel`] warns once for it
    /// when a node needs it.
    pub fn from_launch(launch: &profile::Launch) -> GMetrics {
        use profile::Quantity as Q;
        let q = |x| launch.quantity(x).map(|m| m.value);
        let bytes = |v: f64| (v.is_finite() && v >= 0.0).then(|| v.round() as u64);
        let global = match (q(Q::GlobalLoadBytes), q(Q::GlobalStoreBytes)) {
            (None, None) => None,
            (l, s) => bytes(l.unwrap_or(0.0) + s.unwrap_or(0.0)),
        };
        let degree = |conflicts: Option<f64>, requests: Option<f64>, per_request: Option<f64>| {
            match (conflicts, requests) {
                (Some(c), Some(r)) if r > 0.0 => Some(c / r),
                _ => per_request.map(|w| w - 1.0),
            }
            .filter(|d| d.is_finite())
            .map(|d| d.max(0.0))
        };
        let per_request = |sectors: Option<f64>, requests: Option<f64>| match (sectors, requests) {
            (Some(s), Some(r)) if r > 0.0 && s.is_finite() && s >= 0.0 => Some(s / r),
            _ => None,
        };
        // Only the combined conflicts (`..._mem_shared.sum`) or instruction counts: one
        // degree for loads and stores alike.
        let combined = degree(q(Q::SharedBankConflicts), q(Q::SharedInsts), None);
        GMetrics {
            load_sectors_per_request: per_request(
                q(Q::GlobalLoadSectors),
                q(Q::GlobalLoadRequests),
            ),
            store_sectors_per_request: per_request(
                q(Q::GlobalStoreSectors),
                q(Q::GlobalStoreRequests),
            ),
            atomic_sectors_per_request: per_request(
                q(Q::GlobalAtomicSectors),
                q(Q::GlobalAtomicRequests),
            ),
            l1_load_hit_share: match (q(Q::L2ReadSectors), q(Q::GlobalLoadSectors)) {
                (Some(l2), Some(l1)) if l1 > 0.0 && l2.is_finite() && l2 >= 0.0 => {
                    Some((1.0 - l2 / l1).clamp(0.0, 1.0))
                }
                _ => None,
            },
            dram_bytes: q(Q::DramBytes).and_then(bytes),
            global_bytes: global,
            shared_load_conflict_degree: degree(
                q(Q::SharedLoadBankConflicts),
                q(Q::SharedLoadInsts),
                q(Q::SharedLoadTransactionsPerRequest),
            )
            .or(combined),
            shared_store_conflict_degree: degree(
                q(Q::SharedStoreBankConflicts),
                q(Q::SharedStoreInsts),
                q(Q::SharedStoreTransactionsPerRequest),
            )
            .or(combined),
        }
    }
}

/// A per-request mean (conflict degree D, sectors per request) in thousandths: exact for the
/// profilers' printed precision and keeps the formulas in integer arithmetic.
fn milli(d: f64) -> Option<u64> {
    (d.is_finite() && (0.0..1e12).contains(&d)).then(|| (d * 1000.0).round() as u64)
}

/// `a·num/den` in ticks, rounded half up; saturates instead of overflowing (only absurd
/// metrics could get there).
fn scale(a: Cycles, num: u64, den: u64) -> Cycles {
    a.mul_ratio(num, den)
        .unwrap_or(Cycles::from_ticks(u64::MAX))
}

fn add(a: Cycles, b: Cycles) -> Cycles {
    a.checked_add(b).unwrap_or(Cycles::from_ticks(u64::MAX))
}

/// §6.3, global memory, for R = `dram / global` (`global` > 0). Returns (λ, Λ).
pub fn global_from_ratio(gpu: &GpuProfile, dram: u64, global: u64) -> (Cycles, Cycles) {
    let d = gpu.mem(MemLevel::Dram);
    match dram.cmp(&global) {
        std::cmp::Ordering::Less => {
            // R·x_DRAM + (1−R)·x_L2 = (dram·x_DRAM + (global−dram)·x_L2) / global
            let l2 = gpu.mem(MemLevel::L2);
            let mix = |xd: Cycles, xl: Cycles| {
                let t = u128::from(dram) * u128::from(xd.ticks())
                    + u128::from(global - dram) * u128::from(xl.ticks());
                let q = (t + u128::from(global) / 2) / u128::from(global);
                Cycles::from_ticks(u64::try_from(q).unwrap_or(u64::MAX))
            };
            (mix(d.lambda, l2.lambda), mix(d.latency, l2.latency))
        }
        std::cmp::Ordering::Equal => (d.lambda, d.latency),
        std::cmp::Ordering::Greater => (
            scale(d.lambda, dram, global),
            add(d.latency, scale(d.lambda, dram - global, global)),
        ),
    }
}

/// A global read of which the L1 serves the share `hits` (thousandths) of the sectors: the
/// L1 level for those, §6.3's DRAM/L2 mix for the rest, with R taken over the bytes that
/// reach L2 (`global` less the kernel's L1 hit share `kernel_hits`). The paper's GPU did not
/// cache global loads in L1, so its rule prices every sector at L2 or beyond; a Hopper
/// stencil's or convolution's neighbour loads hit L1 for 60-96 % of their sectors (the
/// counters of `bench/corpus_suite`).
fn l1_mix(
    gpu: &GpuProfile,
    hits: u64,
    kernel_hits: u64,
    dram: u64,
    global: u64,
) -> (Cycles, Cycles) {
    let hits = hits.min(1000);
    let l1 = gpu.mem(MemLevel::L1);
    let beyond =
        u64::try_from(u128::from(global) * u128::from(1000 - kernel_hits.min(1000)) / 1000)
            .unwrap_or(u64::MAX);
    let (lambda, latency) = if beyond == 0 {
        (l1.lambda, l1.latency)
    } else {
        global_from_ratio(gpu, dram, beyond)
    };
    let mix = |x1: Cycles, x2: Cycles| {
        let t = u128::from(hits) * u128::from(x1.ticks())
            + u128::from(1000 - hits) * u128::from(x2.ticks());
        Cycles::from_ticks(u64::try_from((t + 500) / 1000).unwrap_or(u64::MAX))
    };
    (mix(l1.lambda, lambda), mix(l1.latency, latency))
}

/// How a kernel's L1 hits are attributed to its loads ([`attribute_l1`]), in thousandths.
#[derive(Debug, Clone, PartialEq, Eq)]
struct L1Shares {
    /// Share of the sectors a warp touched before (its own earlier loads) that hit.
    seen: u64,
    /// Share of the sectors another warp of the group loads (and this one did not) that hit.
    siblings: u64,
    /// Per PTX line, the share of the sectors a warp did not touch before that another warp
    /// of its group loads, over every warp of the group: the warps of a group run a load
    /// together and whichever comes first takes the miss, not the first warp of the walk.
    sibling_lines: BTreeMap<u32, u64>,
    /// Share of the sectors of the loads whose address the static analysis does not know
    /// that hit: the hits left once the seen, sibling and uniform sectors took theirs. Only
    /// the scattered floor reads it ([`scattered_floor`]): which of those requests hit, and
    /// so their latency, the static patterns do not say.
    unknown: u64,
    /// Share of all load sectors the attribution priced at L1 (the seen and sibling sectors
    /// taken and the uniform loads): what does not reach L2.
    kernel: u64,
}

impl L1Shares {
    /// The hit share (thousandths) of a load request of `sectors` (thousandths).
    fn of(&self, node: &Node, m: &MemAccess, sectors: u64) -> u64 {
        if sectors == 0 {
            return 0;
        }
        let seen = own_sectors(m, sectors);
        let rest = sectors - seen;
        let siblings = self
            .sibling_lines
            .get(&node.ptx_line)
            .map_or(0, |&f| rest * f / 1000);
        (seen * self.seen + siblings * self.siblings) / sectors
    }
}

/// Of a global load request of `sectors` (thousandths), the sectors (thousandths) the warp
/// touched before.
fn own_sectors(m: &MemAccess, sectors: u64) -> u64 {
    (u64::from(m.seen_sectors) * 1000).min(sectors)
}

/// Whether the GPU's L1 caches global loads by default: Fermi (sm_2x) and Volta onwards.
/// Kepler, Maxwell and Pascal keep global loads out of L1 unless compiled to (`-dlcm=ca`), and a
/// profile without a `sass_arch` (another vendor) is not assumed to.
fn l1_caches_global(gpu: &GpuProfile) -> bool {
    gpu.sass_arch
        .as_deref()
        .and_then(|a| a.strip_prefix("sm_"))
        .and_then(|n| {
            n.trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .parse::<u32>()
                .ok()
        })
        .is_some_and(|n| (20..30).contains(&n) || n >= 70)
}

/// A load that goes past the L1 whatever it holds: `.cg` (cache at L2 only: `ld.global.cg`,
/// `cp.async.cg`) and `.cv` (fetch again) cache operators.
fn bypasses_l1(node: &Node) -> bool {
    node.op.mods.other.iter().any(|o| o == "cg" || o == "cv")
}

/// A request whose sectors are its lanes' bytes in whole sectors, or one more (a row that
/// crosses a line boundary, as a stencil's shifted neighbour does): the L1 serves it in one
/// wavefront per line, which is what the L1 level's λ was measured with. A strided or
/// scattered request takes one wavefront per line it touches, however close the data is.
fn near_coalesced(node: &Node, m: &MemAccess, milli_sectors: u64) -> bool {
    milli_sectors <= (u64::from(ideal_sectors(node, m)) + 1) * 1000
}

/// §6.3 bank conflicts with D = `conflicts / requests` (`requests` > 0): λ' = (1+D)·λ,
/// Λ' = Λ + D·λ. Returns (λ', Λ').
pub fn bank_conflicts(
    lambda: Cycles,
    latency: Cycles,
    conflicts: u64,
    requests: u64,
) -> (Cycles, Cycles) {
    (
        scale(lambda, requests.saturating_add(conflicts), requests),
        add(latency, scale(lambda, conflicts, requests)),
    )
}

/// Sectors of the reference request the memory levels' λ and Λ are measured with: one warp
/// reading 4 bytes per lane, 128 bytes.
pub const REFERENCE_SECTORS: u64 = 4;

/// λ and Λ of a request moving `milli_sectors`/1000 sectors of 32 bytes, from the level's
/// values for the reference request. Bandwidth is spent per byte moved, so
/// λ' = λ·S/4: a half-warp or byte-wide request costs less, a 64-bit-per-lane or uncoalesced
/// one more. Past the reference the extra sectors also lengthen the transfer, like §6.3's
/// R > 1 case: Λ' = Λ + (S/4 − 1)·λ; a smaller request keeps Λ.
pub fn request_scaling(lambda: Cycles, latency: Cycles, milli_sectors: u64) -> (Cycles, Cycles) {
    let reference = REFERENCE_SECTORS * 1000;
    let milli = milli_sectors.max(1);
    let latency = if milli > reference {
        add(latency, scale(lambda, milli - reference, reference))
    } else {
        latency
    };
    (scale(lambda, milli, reference), latency)
}

/// (λ, Λ) of a global load whose address depends on data, moving `milli_sectors`/1000
/// sectors per request (the counters' mean over the loads of unknown address,
/// [`attribute_sectors`]), of which the share `hits` (thousandths) the L1 serves: how
/// scattered the request is, φ, is how far its sectors lie from a coalesced request's
/// (`ideal_sectors`, φ = 0) towards one sector per active lane (φ = 1, every lane in a line
/// of its own, as `bench/microbench/gather.cu` measures). A scattered sector that leaves the
/// L1 costs the profile's `[scattered]` cycles, mixed by the share of the sectors that
/// missed L2, R = DRAM bytes / (global bytes · the L2's fetch per miss over a sector,
/// `dram_fetch_bytes` / 32), at most 1; λ is at least
/// (1 − φ)·λ + φ·S·(1 − hits)·cost, and Λ grows by what λ grows, as a request's extra
/// transfers do ([`request_scaling`]). A sector the L1 serves costs no L2 or DRAM cycles:
/// the gather microbenchmark's tables miss the L1, and a CSR row read lane by lane (27
/// nonzeros 108 B apart, the next iterations read the same sectors) moves its L2 sectors at
/// the measured L2 rate, 2.34 cycles per L2 sector and SM against the profile's 2.42
/// (`spmv_scalar_fem`: 44.0 M L2 sectors in 396.9 µs at 8 blocks per SM, 32.3 M in 301.8 µs
/// at 1, with 27 % and 46 % of its 59.9 M L1 sectors hits). Unchanged without `[scattered]`.
fn scattered_floor(
    gpu: &GpuProfile,
    (lambda, latency): (Cycles, Cycles),
    milli_sectors: u64,
    hits: u64,
    node: &Node,
    m: &MemAccess,
    (dram, global): (u64, u64),
) -> (Cycles, Cycles) {
    let ideal = f64::from(ideal_sectors(node, m));
    let lanes = f64::from(node.active_lanes.max(1));
    let sectors = milli_sectors as f64 / 1000.0;
    let (Some(c), true) = (
        gpu.scattered.as_ref(),
        sectors > ideal && lanes > ideal && global > 0,
    ) else {
        return (lambda, latency);
    };
    let phi = ((sectors - ideal) / (lanes - ideal)).min(1.0);
    // The DRAM bytes of a sector that missed are the L2's fetch, not the sector: a uniform
    // random gather fetches 64 bytes per 4-byte miss on Hopper (fetch.cu), and the measured
    // per-sector DRAM cost holds that fetch.
    let r = (dram as f64 / (global as f64 * c.dram_fetch_bytes / 32.0)).min(1.0);
    let per_sector = r * c.dram_cycles_per_sector + (1.0 - r) * c.l2_cycles_per_sector;
    let past_l1 = 1.0 - hits.min(1000) as f64 / 1000.0;
    let floor = (1.0 - phi) * lambda.to_f64() + phi * sectors * past_l1 * per_sector;
    match Cycles::from_f64(floor) {
        Some(fl) if fl > lambda => (fl, add(latency, fl.saturating_sub(lambda))),
        _ => (lambda, latency),
    }
}

/// The L2 atomic sectors one execution of a global atomic sends by the static analysis: the
/// pattern's distinct sectors, except that lanes on one word cannot share a sector (one per
/// lane); one per active lane where the addresses are unknown, since they then come from data
/// (a histogram's keys, a scatter's indices) and land on a sector each
/// (`bench/microbench/atomics.cu`: 16M random keys over 4096 or more words take 0.98-1.00
/// L2 atomic sectors each, coalesced keys 1/8). Behind a branch on unknown data
/// (`MemAccess::assumed`) the lanes are the walk's assumption: a coalesced request's.
pub fn static_atomic_sectors(node: &Node, m: &MemAccess) -> u32 {
    let lanes = node.active_lanes.max(1);
    match m.pattern {
        Some(p) if p.lane_stride_bytes == Some(0) => lanes,
        Some(p) => p.sectors_per_request,
        None if m.assumed => ideal_sectors(node, m),
        None => lanes,
    }
}

/// A load whose address the static analysis does not know (it depends on data) and that is
/// no tensor fragment (whose requests the counters size): what the scattered floor prices,
/// and what the L1 hits no pattern explains are spread over ([`attribute_l1`]).
fn is_gather(node: &Node, m: &MemAccess) -> bool {
    m.pattern.is_none() && fragment::lowering(&node.op).bytes_per_lane.is_none()
}

/// Sectors a perfectly coalesced request of this node needs: ⌈lanes·bytes/32⌉, at least 1.
fn ideal_sectors(node: &Node, m: &MemAccess) -> u32 {
    let bytes = u64::from(node.active_lanes.max(1)) * u64::from(m.bytes_per_lane.max(1));
    u32::try_from(bytes.div_ceil(32).max(1)).unwrap_or(u32::MAX)
}

/// A plain load whose active lanes all read the same address (lane stride 0), with more
/// than one lane so the pattern says something.
fn is_uniform(node: &Node, m: &MemAccess) -> bool {
    // Only plain loads: the operand of `wmma.load` or `ldmatrix` addresses a whole tile.
    matches!(node.op.opcode, Opcode::Ld | Opcode::Ldu)
        && !m.store
        && !m.atomic
        && node.active_lanes > 1
        && m.pattern.is_some_and(|p| p.lane_stride_bytes == Some(0))
}

/// What the metrics allow, decided once per kernel.
struct Usable {
    /// (dram, global) with global > 0.
    global: Option<(u64, u64)>,
    /// D in thousandths, for shared loads and for shared stores.
    shared_ld: Option<u64>,
    shared_st: Option<u64>,
    /// Mean sectors per global load / store request whose address the static analysis could
    /// not evaluate, in thousandths: the counters' kernel-wide mean with the sectors of the
    /// requests whose pattern is known taken out ([`attribute_sectors`]).
    ld_sectors: Option<u64>,
    st_sectors: Option<u64>,
    /// Mean sectors per global atomic request, in thousandths.
    atomic_sectors: Option<u64>,
    /// Share of global load sectors served by L1, in thousandths (the kernel's).
    l1_hits: Option<u64>,
    /// How the kernel's L1 hits are attributed to its loads ([`attribute_l1`]).
    l1_shares: Option<L1Shares>,
    /// Metrics were given: a quantity a node needs but the launch lacks is a warning.
    given: bool,
}

/// A quantity mapper g needed but could not derive from the given metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Lack {
    /// R = DRAM bytes / global bytes.
    DramRatio,
    LoadSectors,
    StoreSectors,
    AtomicSectors,
    SharedLoadConflicts,
    SharedStoreConflicts,
}

impl Lack {
    fn warning(self) -> Warning {
        use profile::Quantity as Q;
        // Each quantity by its first Nsight Compute metric: the alternatives (nvprof names,
        // sums and ratios) made a note of 600 characters; `ptx2idg metrics` lists them all.
        let name = |q: Q| q.metric_names().first().copied().unwrap_or("?");
        let per = |a: Q, b: Q| format!("{} / {}", name(a), name(b));
        let (quantity, looked_for, assumed) = match self {
            Lack::DramRatio => (
                "DRAM bytes / global bytes (R)",
                format!(
                    "{} with {} or {}",
                    name(Q::DramBytes),
                    name(Q::GlobalLoadBytes),
                    name(Q::GlobalStoreBytes)
                ),
                "mapper f's memory level for global accesses",
            ),
            Lack::LoadSectors => (
                "sectors per global load request",
                per(Q::GlobalLoadSectors, Q::GlobalLoadRequests),
                "a coalesced request (lanes x bytes / 32 sectors) where the address is unknown",
            ),
            Lack::StoreSectors => (
                "sectors per global store request",
                per(Q::GlobalStoreSectors, Q::GlobalStoreRequests),
                "a coalesced request (lanes x bytes / 32 sectors) where the address is unknown",
            ),
            Lack::AtomicSectors => (
                "sectors per global atomic request",
                per(Q::GlobalAtomicSectors, Q::GlobalAtomicRequests),
                "a coalesced request (lanes x bytes / 32 sectors) where the address is unknown",
            ),
            Lack::SharedLoadConflicts => (
                "bank conflicts per shared load",
                per(Q::SharedLoadBankConflicts, Q::SharedLoadInsts),
                "the static conflict degree where the address is known, else none",
            ),
            Lack::SharedStoreConflicts => (
                "bank conflicts per shared store",
                per(Q::SharedStoreBankConflicts, Q::SharedStoreInsts),
                "the static conflict degree where the address is known, else none",
            ),
        };
        Warning::MetricMissing {
            quantity: quantity.into(),
            looked_for,
            assumed: assumed.into(),
        }
    }
}

fn usable(
    metrics: Option<&GMetrics>,
    warnings: &mut Vec<Warning>,
    lacks: &mut BTreeSet<Lack>,
) -> Usable {
    let Some(m) = metrics else {
        return Usable {
            global: None,
            shared_ld: None,
            shared_st: None,
            ld_sectors: None,
            st_sectors: None,
            atomic_sectors: None,
            l1_hits: None,
            l1_shares: None,
            given: false,
        };
    };
    let global = match (m.dram_bytes, m.global_bytes) {
        (Some(_), Some(0)) => {
            // Derivable but unusable: this warning, not the missing-metric one.
            lacks.insert(Lack::DramRatio);
            warnings.push(Warning::MetricsUnusable {
                what: "global memory".into(),
                reason: "0 global bytes, so R = DRAM bytes / global bytes is undefined".into(),
            });
            None
        }
        (Some(d), Some(g)) => Some((d, g)),
        _ => None,
    };
    Usable {
        global,
        shared_ld: m.shared_load_conflict_degree.and_then(milli),
        shared_st: m.shared_store_conflict_degree.and_then(milli),
        ld_sectors: m.load_sectors_per_request.and_then(milli),
        st_sectors: m.store_sectors_per_request.and_then(milli),
        atomic_sectors: m.atomic_sectors_per_request.and_then(milli),
        l1_hits: m.l1_load_hit_share.and_then(milli),
        l1_shares: None,
        given: true,
    }
}

/// The class of a generic-addressed (no state space) access once the IDG builder resolved
/// the space it touches; `None` when nothing changes.
fn resolved_class(node: &Node, m: &MemAccess, class: InstClass) -> Option<InstClass> {
    use InstClass as C;
    if node.op.mods.space.is_some() {
        return None;
    }
    let c = match (class, m.space) {
        (C::LdGlobal, MemSpace::Shared) => C::LdShared,
        (C::LdGlobal, MemSpace::Local) => C::LdLocal,
        (C::LdGlobal, MemSpace::Const) => C::LdConst,
        (C::StGlobal, MemSpace::Shared) => C::StShared,
        (C::StGlobal, MemSpace::Local) => C::StLocal,
        (C::AtomGlobal, MemSpace::Shared) => C::AtomShared,
        _ => return None,
    };
    Some(c)
}

/// The class a memory node is timed as: mapper f's, or the space the IDG builder resolved
/// for a generic-addressed access.
fn timed_class(gpu: &GpuProfile, node: &Node, m: &MemAccess) -> InstClass {
    let f = map_f(&node.op, gpu).class;
    resolved_class(node, m, f).unwrap_or(f)
}

/// Sectors the static analysis knows a global load or store request moves, in thousandths:
/// its address pattern, or one sector where every lane reads one word. `None` where the
/// address depends on data, or for a tensor fragment, which the counters size.
fn known_sectors(node: &Node, m: &MemAccess) -> Option<u64> {
    if fragment::lowering(&node.op).bytes_per_lane.is_some() {
        return None;
    }
    if !m.store && is_uniform(node, m) {
        return Some(1000);
    }
    m.pattern.map(|p| u64::from(p.sectors_per_request) * 1000)
}

/// The counters give one mean of sectors per request over all of a kernel's global loads
/// (and one over its stores); applied to every load whose address is unknown, it dilutes a
/// gather's 32 scattered sectors with the 4 of the coalesced index load beside it (a
/// uniform random gather: the mean is 18, the gather moves 32). Where the IDGs know the
/// pattern of the other requests, the sectors they move are taken out of the total and the
/// rest is shared by the unknown ones: mean·N − Σ known, over the unknown requests, with N
/// and the known sectors counted over every warp's executions of each node. Never below one
/// sector per request; without known requests the mean stays as measured.
fn attribute_sectors(idgs: &KernelIdgs, gpu: &GpuProfile, u: Usable) -> Usable {
    // (all requests, requests of unknown address, known sectors in thousandths), loads then stores.
    let mut tally = [(0.0f64, 0.0f64, 0.0f64); 2];
    for (wc, &warps) in idgs.classes.iter().zip(&idgs.class_weights()) {
        idg::counts::for_each_execution(&wc.idg, &mut |id, runs| {
            let node = wc.idg.node(id);
            let Some(m) = node.mem else { return };
            if m.atomic {
                return;
            }
            let slot = match (timed_class(gpu, node, &m), m.store) {
                (InstClass::LdGlobal, false) => 0,
                (InstClass::StGlobal, true) => 1,
                _ => return,
            };
            let n = warps * runs;
            let t = &mut tally[slot];
            t.0 += n;
            match known_sectors(node, &m) {
                Some(s) => t.2 += n * s as f64,
                None => t.1 += n,
            }
        });
    }
    let attribute = |mean: Option<u64>, (all, unknown, known): (f64, f64, f64)| {
        let mean = mean?;
        if unknown == 0.0 || unknown == all {
            return Some(mean);
        }
        let rest = ((mean as f64 * all - known).max(0.0) / unknown).floor();
        Some((rest as u64).max(1000))
    };
    Usable {
        ld_sectors: attribute(u.ld_sectors, tally[0]),
        st_sectors: attribute(u.st_sectors, tally[1]),
        ..u
    }
}

/// The counters give one L1 hit share over all of a kernel's global load sectors (1 − L2
/// read sectors / L1 global load sectors). Spread over every load, it would discount a
/// streaming row load as much as the stencil neighbours beside it that make the hits, and a
/// gather as much as the index load. The hits are attributed only where the static addresses
/// show them: to the sectors of a near-coalesced load that the warp itself touched before
/// (a shifted neighbour row; [`near_coalesced`]), at most all of them, and at most the
/// measured hits. Uniform loads, which mapper g prices at L1 already, count as hits first.
/// What is left of the hits goes to the sectors an earlier warp of the group loads (a
/// stencil's rows that the group's warps share: `convcol_r8_4096`'s 32x8 groups read 24 rows
/// for their 136 row loads, 82 % of the sectors from siblings, against 79 % measured hits),
/// at most all of them, each load's share the mean over the group's warps of its PTX line
/// (the walk finds the first warp's rows new and its siblings' shared, but the warps issue
/// together and any one of them takes the miss). Hits the static addresses cannot place (a gather's reuse, lines of
/// other groups) are left to §6.3's rule: those loads keep their timing. Sectors are counted
/// over every warp's executions of each node.
fn attribute_l1(idgs: &KernelIdgs, gpu: &GpuProfile, u: Usable) -> Usable {
    let Some(h) = u.l1_hits.filter(|_| l1_caches_global(gpu)) else {
        return u;
    };
    // All load sectors, the uniform loads', the seen ones' and the siblings', in thousandths;
    // per PTX line, the siblings' and the sectors not seen before.
    let (mut all, mut uniform, mut seen, mut siblings) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut unknown = 0.0f64;
    let mut lines: BTreeMap<u32, (f64, f64)> = BTreeMap::new();
    for (wc, &warps) in idgs.classes.iter().zip(&idgs.class_weights()) {
        idg::counts::for_each_execution(&wc.idg, &mut |id, runs| {
            let node = wc.idg.node(id);
            let Some(m) = node.mem else { return };
            if m.atomic || m.store || timed_class(gpu, node, &m) != InstClass::LdGlobal {
                return;
            }
            let n = warps * runs;
            let Some(s) = known_sectors(node, &m) else {
                let s = u
                    .ld_sectors
                    .unwrap_or_else(|| u64::from(ideal_sectors(node, &m)) * 1000);
                all += n * s as f64;
                if is_gather(node, &m) && !bypasses_l1(node) {
                    unknown += n * s as f64;
                }
                return;
            };
            all += n * s as f64;
            if is_uniform(node, &m) {
                uniform += n * s as f64;
            } else if near_coalesced(node, &m, s) && !bypasses_l1(node) {
                let own = own_sectors(&m, s);
                let sib = (u64::from(m.sibling_sectors) * 1000).min(s - own);
                seen += n * own as f64;
                siblings += n * sib as f64;
                let l = lines.entry(node.ptx_line).or_default();
                l.0 += n * sib as f64;
                l.1 += n * (s - own) as f64;
            }
        });
    }
    if all <= 0.0 {
        return u;
    }
    let hits = all * h as f64 / 1000.0;
    let taken = (hits - uniform).clamp(0.0, seen);
    let taken_siblings = (hits - uniform - taken).clamp(0.0, siblings);
    // The hits the static patterns do not explain are on the loads whose addresses they do
    // not know (a CSR row read lane by lane, whose sectors the next iterations read again).
    let taken_unknown = (hits - uniform - taken - taken_siblings).clamp(0.0, unknown);
    let share = |x: f64, of: f64| {
        if of > 0.0 {
            ((x / of) * 1000.0).round().clamp(0.0, 1000.0) as u64
        } else {
            0
        }
    };
    Usable {
        l1_shares: Some(L1Shares {
            seen: share(taken, seen),
            siblings: share(taken_siblings, siblings),
            sibling_lines: lines
                .into_iter()
                .map(|(line, (sib, rest))| (line, share(sib, rest)))
                .collect(),
            unknown: share(taken_unknown, unknown),
            kernel: share(taken + taken_siblings + uniform.min(hits), all),
        }),
        ..u
    }
}

fn map_node(gpu: &GpuProfile, node: &Node, u: &Usable, lacks: &mut BTreeSet<Lack>) -> NodeTiming {
    let mut f = map_f(&node.op, gpu);
    let Some(m) = node.mem else { return f };
    if f.source == MapSource::Conservative {
        return f;
    }
    // Generic addressing resolved by the static analysis: time it as the space it touches.
    if let Some(c) = resolved_class(node, &m, f.class) {
        let p = gpu.class(c);
        f = NodeTiming {
            subsystem: p.subsystem,
            lambda: p.lambda,
            latency: p.latency,
            source: MapSource::GStatic,
            class: c,
            l2_reuse: None,
            dram_bytes: 0,
        };
    }
    if m.atomic && f.class != InstClass::AtomGlobal {
        return f;
    }
    let with = |(lambda, latency): (Cycles, Cycles), source| NodeTiming {
        lambda,
        latency,
        source,
        ..f
    };
    // Sectors one warp instruction moves: the static address pattern where the builder
    // could evaluate it, else the profile's kernel-wide mean per request, else a perfectly
    // coalesced request of the node's lanes and width. In thousandths.
    // A tensor fragment's address is the tile's base for every lane (the lanes' own addresses
    // are ptxas's): size each of its requests by the measured width, not the pattern.
    let lowered = fragment::lowering(&node.op);
    let frag = lowered.bytes_per_lane;
    let m = match frag {
        Some(bytes) => MemAccess {
            bytes_per_lane: bytes,
            pattern: None,
            ..m
        },
        None => m,
    };
    let (measured_sectors, lack) = if m.atomic {
        (u.atomic_sectors, Lack::AtomicSectors)
    } else if m.store {
        (u.st_sectors, Lack::StoreSectors)
    } else {
        (u.ld_sectors, Lack::LoadSectors)
    };
    let sectors = match m.pattern {
        Some(_) if m.atomic => u64::from(static_atomic_sectors(node, &m)) * 1000,
        Some(p) => u64::from(p.sectors_per_request) * 1000,
        // The attributed mean may exceed what this request can move: one sector per lane.
        None => measured_sectors
            .map(|s| {
                s.min(
                    u64::from(node.active_lanes.max(1)).max(ideal_sectors(node, &m).into()) * 1000,
                )
            })
            .unwrap_or_else(|| {
                if u.given
                    && matches!(
                        f.class,
                        InstClass::LdGlobal | InstClass::StGlobal | InstClass::AtomGlobal
                    )
                {
                    lacks.insert(lack);
                }
                let static_sectors = if m.atomic {
                    static_atomic_sectors(node, &m)
                } else {
                    lowered.sectors.unwrap_or_else(|| ideal_sectors(node, &m))
                };
                u64::from(static_sectors) * 1000
            }),
    };
    // Mapper f's values stay labelled f when the request is the reference size.
    let sized = |f: NodeTiming, sectors: u64| {
        let t = request_scaling(f.lambda, f.latency, sectors);
        if t == (f.lambda, f.latency) {
            f
        } else {
            with(t, MapSource::GStatic)
        }
    };
    // Decided by the class, not `m.space`: a `cp.async` names shared memory first but its
    // cost is the global read, and `ld.shared::cta` is shared whatever space the builder
    // recorded.
    match f.class {
        InstClass::LdGlobal if is_uniform(node, &m) => {
            // Every lane reads one word: after the first warp touches it, the whole grid hits
            // that line in L1, so neither the DRAM/L2 mix nor the coalescing rule applies.
            let l1 = gpu.mem(MemLevel::L1);
            with((l1.lambda, l1.latency), MapSource::GStatic)
        }
        InstClass::LdGlobal | InstClass::StGlobal | InstClass::CpAsync => {
            // A cp.async reads global memory like a load of its bytes (bench/microbench/
            // cp_async.cu: a coalesced 512-byte copy costs what ld.global.v4 of the same
            // bytes costs, from L2 and from DRAM). The walk records its global source; where
            // it could not, the access is its shared destination: size it by lanes and width.
            let reads = match f.class {
                InstClass::LdGlobal => true,
                InstClass::CpAsync => m.space == MemSpace::Global,
                _ => false,
            };
            let sectors = if f.class == InstClass::CpAsync && !reads {
                u64::from(ideal_sectors(node, &m)) * 1000
            } else {
                sectors
            };
            // Where a re-read that still hits L2 runs: a copy's own pipeline where the profile
            // names one, the profile's re-read pipe for another coalesced global read, else
            // the node's own subsystem.
            let reread_pipe = match (f.class, gpu.async_copy_subsystem) {
                (InstClass::CpAsync, Some(q)) => Some(q),
                _ => gpu
                    .reread_subsystem
                    .filter(|_| reads && coalesced(node, &m, sectors)),
            };
            // Data on chip moves no DRAM bytes: lines the group's warps share (L1), data the
            // whole grid reads (L2 after the first groups).
            let on_chip =
                reads && matches!(m.reuse, Some(idg::Reuse::Siblings | idg::Reuse::Groups));
            // Sectors the warp itself loaded before (a shifted neighbour row) are on chip too:
            // only a near-coalesced request's, whose lines the L1 serves as one.
            // One wavefront per line of 4 sectors: the L1 level's λ as measured.
            let one_line_per_4 = near_coalesced(node, &m, sectors);
            let near = reads && one_line_per_4 && l1_caches_global(gpu);
            let seen = if near {
                (u64::from(m.seen_sectors) * 1000).min(sectors)
            } else {
                0
            };
            // What the walk found nearby (`MemAccess::sibling_sectors`, and without counters
            // `group_sectors`): the group's L1 and L2 hold it.
            let (siblings, groups) = if reads {
                let sib = (u64::from(m.sibling_sectors) * 1000).min(sectors);
                let grp = (u64::from(m.group_sectors) * 1000).min(sectors - sib);
                (sib, grp)
            } else {
                (0, 0)
            };
            // A sector the warp itself loaded before moves no DRAM bytes again, however
            // scattered the request (L2 keeps it if the L1 did not).
            let touched = if reads {
                (u64::from(m.seen_sectors) * 1000).min(sectors)
            } else {
                0
            };
            let dram_bytes = if on_chip {
                0
            } else {
                sectors.saturating_sub(touched + siblings + groups)
                    * ::profile::metrics::SECTOR_BYTES as u64
                    / 1000
            };
            let t = if let Some((d, g)) = u.global {
                // The profile decides where the bytes come from (§6.3, the R cases); the
                // request size decides how many of them one warp instruction moves.
                // Kernel-wide ratios cannot see that one instruction of a transpose is
                // uncoalesced while its partner is not; the static pattern can.
                let (lambda, latency) = match &u.l1_shares {
                    Some(l1) if l1.kernel > 0 && near && !bypasses_l1(node) => {
                        l1_mix(gpu, l1.of(node, &m, sectors), l1.kernel, d, g)
                    }
                    Some(l1) if l1.kernel > 0 => l1_mix(gpu, 0, l1.kernel, d, g),
                    _ => global_from_ratio(gpu, d, g),
                };
                let scaled = request_scaling(lambda, latency, sectors);
                // Only where the address depends on data (a gather through an index): there
                // the counters' sectors are lanes in lines of their own; a static pattern's
                // extra sectors (a shifted stencil row) are neighbouring lines.
                let gather = f.class == InstClass::LdGlobal && is_gather(node, &m);
                let scaled = if gather {
                    // The sectors the L1 serves take no L2 or DRAM cycles; which of the
                    // requests hit (their latency) the static patterns do not say.
                    let hits = match &u.l1_shares {
                        Some(l1) if !bypasses_l1(node) => l1.unknown,
                        _ => 0,
                    };
                    scattered_floor(gpu, scaled, sectors, hits, node, &m, (d, g))
                } else {
                    scaled
                };
                let t = with(scaled, MapSource::GProfile);
                // A coalesced re-read still in L2 leaves the DRAM stream's pipe for the
                // profile's re-read pipe; the kernel's other accesses keep the counters' mix.
                match (m.reuse, reread_pipe) {
                    (
                        Some(idg::Reuse::Warp {
                            distance_bytes,
                            written_bytes,
                            shared_bytes,
                        }),
                        Some(pipe),
                    ) => NodeTiming {
                        l2_reuse: l2_reread(
                            gpu,
                            Footprint {
                                distance_bytes,
                                written_bytes,
                                shared_bytes,
                            },
                            sectors,
                            pipe,
                        ),
                        ..t
                    },
                    _ => t,
                }
            } else {
                if u.given {
                    lacks.insert(Lack::DramRatio);
                }
                match m.reuse {
                    Some(reuse) if reads => static_reuse(
                        gpu,
                        sized(f, sectors),
                        reuse,
                        (sectors, one_line_per_4),
                        reread_pipe.unwrap_or(f.subsystem),
                    ),
                    // Without counters the seen sectors and those an earlier warp of the
                    // group loads are L1 hits, those an earlier group loads L2 hits, the
                    // rest mapper f's. The L1 serves a request in a wavefront per line: the
                    // level's λ is a coalesced request's, one line for 4 sectors, and a
                    // request that is not near-coalesced (a tensor tile's 8 rows, a strided
                    // column) takes one per sector.
                    _ if seen + siblings + groups > 0 => {
                        let (l1, l2) = if bypasses_l1(node) || !l1_caches_global(gpu) {
                            (0, seen + siblings + groups)
                        } else {
                            (seen + siblings, groups)
                        };
                        let l1 = (l1 * 1000 / sectors).min(1000);
                        let l2 = (l2 * 1000 / sectors).min(1000 - l1);
                        let (p1, p2) = (gpu.mem(MemLevel::L1), gpu.mem(MemLevel::L2));
                        let mix = |x1: Cycles, x2: Cycles, x3: Cycles| {
                            let t = u128::from(l1) * u128::from(x1.ticks())
                                + u128::from(l2) * u128::from(x2.ticks())
                                + u128::from(1000 - l1 - l2) * u128::from(x3.ticks());
                            Cycles::from_ticks(u64::try_from((t + 500) / 1000).unwrap_or(u64::MAX))
                        };
                        let l1_lambda = l1_lambda(gpu, one_line_per_4);
                        with(
                            request_scaling(
                                mix(l1_lambda, p2.lambda, f.lambda),
                                mix(p1.latency, p2.latency, f.latency),
                                sectors,
                            ),
                            MapSource::GStatic,
                        )
                    }
                    _ => sized(f, sectors),
                }
            };
            NodeTiming { dram_bytes, ..t }
        }
        InstClass::LdLocal | InstClass::StLocal => sized(f, sectors),
        // Measured for coalesced warps (4 sectors) and scattered ones (32); nothing says a
        // request of fewer sectors is cheaper, so only larger ones scale.
        InstClass::AtomGlobal => sized(f, sectors.max(REFERENCE_SECTORS * 1000)),
        InstClass::LdShared | InstClass::StShared => {
            let measured = if m.store { u.shared_st } else { u.shared_ld };
            if let Some(d) = measured {
                return with(
                    bank_conflicts(f.lambda, f.latency, d, 1000),
                    MapSource::GProfile,
                );
            }
            if u.given {
                lacks.insert(if m.store {
                    Lack::SharedStoreConflicts
                } else {
                    Lack::SharedLoadConflicts
                });
            }
            match m.pattern {
                Some(p) => with(
                    bank_conflicts(f.lambda, f.latency, u64::from(p.bank_conflict_degree), 1),
                    MapSource::GStatic,
                ),
                None => f,
            }
        }
        _ => f,
    }
}

/// A global load that finds its data on chip, without counters to say where bytes come from
/// (docs/simulator.md, "Static L2 reuse"). Lines an earlier warp of the group just loaded
/// are in L1: the L1 level. Data the whole grid reads is in L2 after the first groups
/// touched it: the L2 level. A warp's re-read keeps `dram` (the first-touch timing) and
/// carries the L2 level's timing on `pipe` for the occupancies at which it still hits
/// ([`l2_reread`]).
fn static_reuse(
    gpu: &GpuProfile,
    dram: NodeTiming,
    reuse: idg::Reuse,
    (milli_sectors, near): (u64, bool),
    pipe: SubsystemId,
) -> NodeTiming {
    let level = |l: MemLevel| {
        let p = gpu.mem(l);
        let lambda = match l {
            MemLevel::L1 => l1_lambda(gpu, near),
            _ => p.lambda,
        };
        let (lambda, latency) = request_scaling(lambda, p.latency, milli_sectors);
        NodeTiming {
            lambda,
            latency,
            source: MapSource::GStatic,
            ..dram
        }
    };
    match reuse {
        idg::Reuse::Siblings => level(MemLevel::L1),
        idg::Reuse::Groups => level(MemLevel::L2),
        idg::Reuse::Warp {
            distance_bytes,
            written_bytes,
            shared_bytes,
        } => match l2_reread(
            gpu,
            Footprint {
                distance_bytes,
                written_bytes,
                shared_bytes,
            },
            milli_sectors,
            pipe,
        ) {
            Some(r) => NodeTiming {
                source: MapSource::GStatic,
                l2_reuse: Some(r),
                ..dram
            },
            None => dram,
        },
    }
}

/// The L1 level's λ per reference request (4 sectors) for a request of hits: the level's
/// own, measured with a coalesced request that is one line, where the request is
/// near-coalesced (`near`); else a wavefront per sector, each in a line of its own (a tensor
/// tile's rows, a strided column), 4 times it.
fn l1_lambda(gpu: &GpuProfile, near: bool) -> Cycles {
    let l1 = gpu.mem(MemLevel::L1).lambda;
    if near {
        l1
    } else {
        scale(l1, REFERENCE_SECTORS, 1)
    }
}

/// What one warp touched between a re-read and the data's last touch (`idg::Reuse::Warp`).
struct Footprint {
    distance_bytes: u64,
    written_bytes: u64,
    shared_bytes: u64,
}

/// The L2 timing of a warp's re-read on `pipe`, for the occupancies at which everything the
/// resident warps touch in between fits in L2: each warp's own data, written bytes counted
/// `l2_written_weight` times, and one copy of the data every group loads; `None` without
/// the profile's L2 size.
fn l2_reread(
    gpu: &GpuProfile,
    f: Footprint,
    milli_sectors: u64,
    pipe: SubsystemId,
) -> Option<L2Reuse> {
    let capacity = gpu.limits.l2_bytes?;
    let l2 = gpu.mem(MemLevel::L2);
    let (lambda, latency) = request_scaling(l2.lambda, l2.latency, milli_sectors);
    let shared = f.shared_bytes.min(f.distance_bytes);
    let own = f.distance_bytes - shared;
    // Written bytes weigh more (the profile's measured weight).
    let extra = f
        .written_bytes
        .min(own)
        .saturating_mul(u64::from(gpu.limits.l2_written_weight.max(1) - 1));
    let per_warp = own
        .saturating_add(extra)
        .max(1)
        .saturating_mul(u64::from(gpu.sm_count.max(1)));
    let curve = &gpu.limits.l2_hit_curve;
    let graded = (f.written_bytes.min(own) > 0 && !curve.is_empty()).then(|| {
        let mut points = [[0u32; 2]; crate::timing::MAX_CURVE_POINTS];
        for (p, c) in points.iter_mut().zip(curve) {
            *p = *c;
        }
        GradedHits {
            per_warp_bytes: per_warp,
            shared_bytes: shared,
            l2_bytes: capacity,
            points,
            len: curve.len().min(crate::timing::MAX_CURVE_POINTS) as u8,
        }
    });
    Some(L2Reuse {
        subsystem: pipe,
        lambda,
        latency,
        max_warps_per_sm: capacity.saturating_sub(shared) / per_warp,
        graded,
    })
}

/// Every byte of the sectors a request moves is one its lanes asked for (`milli_sectors`
/// at most the lanes' bytes in whole sectors): a coalesced access, whose L1 work is one
/// wavefront per line, unlike a scattered one, whose lines each take the L1's time in the
/// memory subsystem however close the data is.
fn coalesced(node: &Node, m: &MemAccess, milli_sectors: u64) -> bool {
    milli_sectors <= u64::from(ideal_sectors(node, m)) * 1000
}

/// An FP32 or integer arithmetic node whose region's machine code reads two registers of
/// one bank in a share s of its FP32 and integer instructions (`Node::register_conflicts`,
/// from the alignment): such an instruction takes a second cycle to read its operands, so
/// the node holds its pipe (1 + s) times as long, λ' = (1 + s)·λ.
fn with_register_conflicts(node: &Node, t: NodeTiming) -> NodeTiming {
    use InstClass as C;
    let s = u64::from(node.register_conflicts.min(1000));
    let arithmetic = matches!(
        t.class,
        C::F32Add
            | C::F32Mul
            | C::F32Fma
            | C::IntAdd
            | C::IntMul
            | C::IntMad
            | C::IntLogic
            | C::IntShift
    );
    if s == 0 || !arithmetic {
        return t;
    }
    NodeTiming {
        lambda: t.lambda.mul_ratio(1000 + s, 1000).unwrap_or(t.lambda),
        ..t
    }
}

/// Mappers f and g over every node of every warp class: `result.0[c].nodes[n]` is the timing
/// of node `n` of class `c`. Warnings: one per unclassified mnemonic (with all its lines,
/// over all classes), one per unusable metric, and one per quantity a node needed that the
/// given metrics could not derive (naming the metrics that would give it and what was
/// assumed instead).
pub fn map_kernel(
    idgs: &KernelIdgs,
    gpu: &GpuProfile,
    metrics: Option<&GMetrics>,
) -> (Vec<ClassTiming>, Vec<Warning>) {
    let mut warnings = Vec::new();
    // Pre-filled by `usable` with quantities already warned about as unusable.
    let mut warned = BTreeSet::new();
    let u = attribute_sectors(idgs, gpu, usable(metrics, &mut warnings, &mut warned));
    let u = attribute_l1(idgs, gpu, u);
    let mut lacks = warned.clone();
    let mut unc = Unclassified::default();
    let timings = idgs
        .classes
        .iter()
        .map(|wc| ClassTiming {
            nodes: wc
                .idg
                .nodes
                .iter()
                .map(|node| {
                    // One node: its SASS requests or HMMAs, a wgmma its warp's share (crate::fragment).
                    let t = fragment::node_timing(&node.op, map_node(gpu, node, &u, &mut lacks));
                    let t = with_register_conflicts(node, t);
                    if t.source == MapSource::Conservative {
                        unc.note(&node.op, node.ptx_line);
                    }
                    t
                })
                .collect(),
        })
        .collect();
    let mut all = unc.into_warnings();
    all.extend(warnings);
    all.extend(lacks.difference(&warned).map(|l| l.warning()));
    (timings, all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(v: f64) -> Cycles {
        Cycles::from_f64(v).unwrap()
    }

    fn maxwell() -> GpuProfile {
        GpuProfile::bundled("maxwell-k620").unwrap()
    }

    // Maxwell (Table 5): DRAM λ 18, Λ 440; L2 by rule: λ 9, Λ 220.
    #[test]
    fn r_equal_one_is_dram() {
        assert_eq!(
            global_from_ratio(&maxwell(), 1000, 1000),
            (c(18.0), c(440.0))
        );
    }

    #[test]
    fn r_below_one_mixes_dram_and_l2() {
        // R = 0.25: Λ = 0.25·440 + 0.75·220 = 275, λ = 0.25·18 + 0.75·9 = 11.25.
        assert_eq!(
            global_from_ratio(&maxwell(), 250, 1000),
            (c(11.25), c(275.0))
        );
        // R = 0: all L2.
        assert_eq!(global_from_ratio(&maxwell(), 0, 1000), (c(9.0), c(220.0)));
    }

    #[test]
    fn r_above_one_adds_excess_transfer_time() {
        // R = 2: Λ = 440 + 1·18 = 458, λ = 2·18 = 36.
        assert_eq!(
            global_from_ratio(&maxwell(), 2000, 1000),
            (c(36.0), c(458.0))
        );
        // R = 1.5 on Fermi (DRAM 23 / 475): Λ = 475 + 0.5·23 = 486.5, λ = 34.5.
        let fermi = GpuProfile::bundled("fermi-c2050").unwrap();
        assert_eq!(global_from_ratio(&fermi, 3000, 2000), (c(34.5), c(486.5)));
    }

    #[test]
    fn bank_conflict_formula_with_table5_numbers() {
        // Fermi shared (Table 5 ld.local.s32): λ 2, Λ 28. D = 3: λ' = 8, Λ' = 28 + 6 = 34.
        assert_eq!(bank_conflicts(c(2.0), c(28.0), 3, 1), (c(8.0), c(34.0)));
        // D = 0 changes nothing; fractional D = 1/2 from metrics (50 conflicts / 100 requests).
        assert_eq!(bank_conflicts(c(2.0), c(28.0), 0, 1), (c(2.0), c(28.0)));
        assert_eq!(bank_conflicts(c(1.0), c(25.0), 50, 100), (c(1.5), c(25.5)));
    }

    #[test]
    fn request_scaling_is_per_byte_moved() {
        let m = maxwell();
        let d = m.mem(MemLevel::Dram);
        // 8 sectors (uncoalesced 4-byte lanes, or 8 bytes per lane) is §6.3's R = 2.
        assert_eq!(
            request_scaling(d.lambda, d.latency, 8000),
            global_from_ratio(&m, 2000, 1000)
        );
        // The 128-byte reference keeps the level's values.
        assert_eq!(
            request_scaling(c(18.0), c(440.0), 4000),
            (c(18.0), c(440.0))
        );
        // A half warp of 4-byte lanes moves 2 sectors: half the bandwidth, the same latency.
        assert_eq!(request_scaling(c(18.0), c(440.0), 2000), (c(9.0), c(440.0)));
        // A fractional mean from counters: 2.5 sectors per request.
        assert_eq!(
            request_scaling(c(16.0), c(440.0), 2500),
            (c(10.0), c(440.0))
        );
    }
}

/// Bytes a launch moves through the device-wide memory levels and the atomic sectors its
/// busiest L2 slice takes, from its counters: what the bandwidth floor
/// (`GpuProfile::bandwidth_floor_us`) and the atomic floor (`GpuProfile::atomic_floor_us`)
/// need. A level whose counters are missing is `None` and sets no floor.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Traffic {
    /// DRAM (read, write) bytes.
    pub dram: Option<(f64, f64)>,
    /// L2 (read, write) bytes.
    pub l2: Option<(f64, f64)>,
    /// Atomic sectors that reached the busiest L2 slice.
    #[serde(default)]
    pub atomic_busiest_slice_sectors: Option<f64>,
}

impl Traffic {
    pub fn from_launch(launch: &profile::Launch) -> Traffic {
        use profile::Quantity as Q;
        let q = |x| {
            launch
                .quantity(x)
                .map(|m| m.value)
                .filter(|v| v.is_finite() && *v >= 0.0)
        };
        let sectors = profile::metrics::SECTOR_BYTES;
        Traffic {
            dram: q(Q::DramReadBytes).zip(q(Q::DramWriteBytes)),
            l2: q(Q::L2ReadSectors)
                .zip(q(Q::L2WriteSectors))
                .map(|(r, w)| (r * sectors, w * sectors)),
            atomic_busiest_slice_sectors: q(Q::L2AtomicBusiestSliceSectors),
        }
    }
}
