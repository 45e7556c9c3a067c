//! `gpu`: the hardware side of the Pipeline model (pipeline-model-analysis §3.1.3, §4.2-4.4,
//! §6.3).
//!
//! - [`Cycles`]: exact fixed-point time, the unit of every λ and Λ.
//! - [`GpuProfile`]: a GPU read from a TOML profile (docs/gpu-profile.md), bundled or a
//!   user's file, resolved so every [`InstClass`] has a (subsystem, λ, Λ).
//! - [`occupancy`]: blocks per SM by the CUDA occupancy rules.
//! - [`NodeTiming`]/[`ClassTiming`]: per-node side tables produced by the mappers.
//!
//! Library code never prints; all failures are [`GpuError`].

mod class;
mod cycles;
mod error;
mod occupancy;
mod profile;
mod timing;

pub use class::{InstClass, MemLevel, MemRule, Rule};
pub use cycles::{Cycles, TICKS_PER_CYCLE};
pub use error::GpuError;
pub use occupancy::{occupancy, OccupancyLimit, Resource};
pub use profile::{
    bundled_names, ClassParams, GpuProfile, Limits, MemParams, Origin, Scheduler, Subsystem,
    SubsystemId,
};
pub use timing::{ClassTiming, MapSource, NodeTiming};
