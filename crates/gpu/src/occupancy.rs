//! Occupancy: how many blocks of a launch fit on one SM, by the CUDA occupancy rules.
//!
//! Each resource gives a block limit and the smallest wins (ties go to the first resource in
//! `Resource` order). Allocation granularity follows the CUDA occupancy calculator: registers
//! are allocated per warp, `regs_per_thread · warp_size` rounded up to `register_alloc_unit`,
//! and the register file is split evenly between the `sub_partitions` (a warp's registers
//! live in one partition); shared memory per block is `shared + shared_reserved_per_block`
//! rounded up to `shared_alloc_unit`. A block that can never launch (too many threads,
//! registers or shared bytes) gets 0 blocks and names the violated per-block limit.

use crate::profile::GpuProfile;
use serde::Serialize;

/// The resource that bounds occupancy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    /// `max_blocks_per_sm`.
    Blocks,
    /// `max_warps_per_sm`.
    Warps,
    /// `max_threads_per_sm`.
    Threads,
    /// `registers_per_sm` (or `max_registers_per_thread` when 0 blocks).
    Registers,
    /// `shared_memory_per_sm` (or `max_shared_memory_per_block` when 0 blocks).
    SharedMemory,
    /// `max_threads_per_block` exceeded, or an empty block.
    BlockSize,
}

impl std::fmt::Display for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Resource::Blocks => "the blocks an SM holds",
            Resource::Warps => "the warps an SM holds",
            Resource::Threads => "the threads an SM holds",
            Resource::Registers => "registers",
            Resource::SharedMemory => "shared memory",
            Resource::BlockSize => "the block size",
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OccupancyLimit {
    pub blocks_per_sm: u32,
    /// `blocks_per_sm` times the warps of one block.
    pub warps_per_sm: u32,
    pub limiting_resource: Resource,
}

/// Blocks per SM for a launch of `threads_per_block` threads using `regs_per_thread`
/// registers and `shared_bytes_per_block` bytes of (static + dynamic) shared memory.
pub fn occupancy(
    profile: &GpuProfile,
    threads_per_block: u32,
    regs_per_thread: u32,
    shared_bytes_per_block: u32,
) -> OccupancyLimit {
    let l = &profile.limits;
    let none = |r| OccupancyLimit {
        blocks_per_sm: 0,
        warps_per_sm: 0,
        limiting_resource: r,
    };
    if threads_per_block == 0 || threads_per_block > l.max_threads_per_block {
        return none(Resource::BlockSize);
    }
    if regs_per_thread > l.max_registers_per_thread {
        return none(Resource::Registers);
    }
    if shared_bytes_per_block > l.max_shared_memory_per_block {
        return none(Resource::SharedMemory);
    }
    let warps_per_block = threads_per_block.div_ceil(profile.warp_size);

    let mut limits = vec![
        (Resource::Blocks, l.max_blocks_per_sm),
        (Resource::Warps, l.max_warps_per_sm / warps_per_block),
        (
            Resource::Threads,
            // Threads are counted in whole warps, as the hardware allocates them.
            l.max_threads_per_sm / (warps_per_block * profile.warp_size),
        ),
    ];
    if regs_per_thread > 0 {
        let unit = u64::from(l.register_alloc_unit);
        let per_warp =
            (u64::from(regs_per_thread) * u64::from(profile.warp_size)).div_ceil(unit) * unit;
        let parts = u64::from(profile.sub_partitions);
        let warps = (u64::from(l.registers_per_sm) / parts / per_warp) * parts;
        let blocks = warps / u64::from(warps_per_block);
        limits.push((
            Resource::Registers,
            u32::try_from(blocks).unwrap_or(u32::MAX),
        ));
    }
    let shared = u64::from(shared_bytes_per_block) + u64::from(l.shared_reserved_per_block);
    if shared > 0 {
        let unit = u64::from(l.shared_alloc_unit);
        let per_block = shared.div_ceil(unit) * unit;
        let blocks = u64::from(l.shared_memory_per_sm) / per_block;
        limits.push((
            Resource::SharedMemory,
            u32::try_from(blocks).unwrap_or(u32::MAX),
        ));
    }
    let (limiting_resource, blocks_per_sm) =
        limits
            .into_iter()
            .fold((Resource::Blocks, u32::MAX), |best, cur| {
                if cur.1 < best.1 {
                    cur
                } else {
                    best
                }
            });
    OccupancyLimit {
        blocks_per_sm,
        warps_per_sm: blocks_per_sm * warps_per_block,
        limiting_resource,
    }
}
