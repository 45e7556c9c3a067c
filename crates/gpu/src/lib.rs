//! `gpu`: the hardware side of the Pipeline model (pipeline-model-analysis §3.1.3, §4.2-4.4,
//! §6.3).
//!
//! - [`Cycles`]: exact fixed-point time, the unit of every λ and Λ.
//! - [`GpuProfile`]: a GPU read from a TOML profile (docs/gpu-profile.md), bundled or a
//!   user's file, resolved so every [`InstClass`] has a (subsystem, λ, Λ).
//! - [`counters`]: the IDGs' dynamic counts (PTX converted to SASS) beside a profile's.
//! - [`fragment`]: how many SASS instructions a tensor-fragment instruction becomes.
//! - [`occupancy`]: blocks per SM by the CUDA occupancy rules.
//! - [`NodeTiming`]/[`ClassTiming`]: per-node side tables produced by the mappers.
//! - Mapper f ([`classify`], [`map_f`]): opcode -> class -> (subsystem, λ, Λ).
//! - Mapper g ([`map_kernel`], [`GMetrics`]): memory nodes from profiler metrics (§6.3) or
//!   the static access pattern.
//!
//! Library code never prints; all failures are [`GpuError`].

mod class;
pub mod counters;
mod cycles;
mod error;
pub mod fragment;
mod map_f;
mod map_g;
mod occupancy;
mod profile;
mod render;
mod timing;

pub use class::{InstClass, MemLevel, MemRule, Rule};
pub use cycles::{Cycles, TICKS_PER_CYCLE};
pub use error::GpuError;
pub use map_f::{classify, map_f, map_ops, Warning};
pub use map_g::{
    bank_conflicts, global_from_ratio, map_kernel, request_scaling, static_atomic_sectors,
    GMetrics, Traffic, REFERENCE_SECTORS,
};
pub use occupancy::{occupancy, OccupancyLimit, Resource};
pub use profile::{
    bundled_names, Bandwidth, BandwidthSource, ClassParams, GpuProfile, LaunchCosts, Limits,
    LoadedLatency, MemParams, MixedBandwidth, Origin, SassExpansion, Scattered, Scheduler,
    Subsystem, SubsystemId, UnifiedModel,
};
pub use render::{mapping, mapping_table, Mapping, MappingRow};
pub use timing::{ClassTiming, GradedHits, L2Reuse, MapSource, NodeTiming, MAX_CURVE_POINTS};
