//! Occupancy by the CUDA rules on bundled profiles.

use gpu::{occupancy, GpuProfile, Resource};

fn h100() -> GpuProfile {
    GpuProfile::bundled("hopper-h100").unwrap()
}

#[test]
fn warps_limit() {
    // 1024 threads = 32 warps; 64 warps per SM -> 2 blocks.
    let o = occupancy(&h100(), 1024, 32, 0);
    assert_eq!((o.blocks_per_sm, o.warps_per_sm), (2, 64));
    assert_eq!(o.limiting_resource, Resource::Warps);
}

#[test]
fn blocks_limit() {
    // 32 threads: 64 warps would allow 64 blocks, the block limit is 32.
    let o = occupancy(&h100(), 32, 16, 0);
    assert_eq!(o.blocks_per_sm, 32);
    assert_eq!(o.limiting_resource, Resource::Blocks);
}

#[test]
fn registers_with_granularity() {
    // 255 regs -> 255·32 = 8160 -> 8192 per warp; 65536/4 = 16384 per partition -> 2 warps
    // per partition, 8 per SM; a 256-thread block has 8 warps -> 1 block.
    let o = occupancy(&h100(), 256, 255, 0);
    assert_eq!(o.blocks_per_sm, 1);
    assert_eq!(o.limiting_resource, Resource::Registers);
    // 64 regs: 2048 per warp, 8 per partition, 32 per SM -> 4 blocks of 8 warps.
    assert_eq!(occupancy(&h100(), 256, 64, 0).blocks_per_sm, 4);
    assert_eq!(occupancy(&h100(), 256, 256, 0).blocks_per_sm, 0);
}

#[test]
fn shared_memory_with_reserve_and_granularity() {
    // 48 KiB + 1 KiB reserved = 50176 B per block; 233472 / 50176 = 4 blocks.
    let o = occupancy(&h100(), 128, 32, 48 * 1024);
    assert_eq!(o.blocks_per_sm, 4);
    assert_eq!(o.limiting_resource, Resource::SharedMemory);
    // 1 byte rounds to 128 + 1024 reserved -> 1152 B; the block limit (32) still binds.
    assert_eq!(occupancy(&h100(), 32, 32, 1).blocks_per_sm, 32);
    // Over the per-block maximum: cannot launch.
    let o = occupancy(&h100(), 32, 32, 232449);
    assert_eq!(
        (o.blocks_per_sm, o.limiting_resource),
        (0, Resource::SharedMemory)
    );
}

#[test]
fn invalid_block_sizes() {
    assert_eq!(
        occupancy(&h100(), 0, 32, 0).limiting_resource,
        Resource::BlockSize
    );
    assert_eq!(occupancy(&h100(), 1025, 32, 0).blocks_per_sm, 0);
}

#[test]
fn fermi_threads_and_blocks() {
    let f = GpuProfile::bundled("fermi-c2050").unwrap();
    // 192 threads = 6 warps: 48/6 = 8 blocks by warps, 1536/192 = 8 by threads, 8 by blocks.
    assert_eq!(occupancy(&f, 192, 20, 0).blocks_per_sm, 8);
    // 63 regs on Fermi: 63·32 = 2016 -> 2048 (unit 64); 16384 per partition -> 8 warps each,
    // 16 per SM -> 2 blocks of 6 warps.
    let o = occupancy(&f, 192, 63, 0);
    assert_eq!(
        (o.blocks_per_sm, o.limiting_resource),
        (2, Resource::Registers)
    );
}
