//! Mapper g on tensor-fragment nodes (`gpu::fragment`): a `wmma.load.a` of a 16x16 f16 tile is
//! four `LDG.E` on sm_90, so its node costs four pipelined 4-byte requests, each over 8 rows
//! of the tile (8 sectors, twice a coalesced request's); a `wmma.mma` m16n16k16 is two
//! `HMMA.16816`, two `tensor.mma`.

mod common;

use gpu::{Cycles, GpuProfile, InstClass};

const PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry k(.param .u64 p)\n{\n\
\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<20>;\n\
\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\
\tld.global.u32 %r2, [%rd4];\n\
\twmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10}, [%rd2], 16;\n\
\twmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, \
{%r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10}, {%r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10}, \
{%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16};\n\
\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r3, %r4, %r5, %r6}, {%r7, %r8}, {%f5, %f6, %f7, %f8};\n\
\tret;\n}\n";

#[test]
fn a_wmma_load_a_global_node_costs_four_requests() {
    let b = common::front_end(PTX, "k", [1, 1, 1], [32, 1, 1]);
    let gpu = GpuProfile::bundled("hopper-h100").unwrap();
    let (timings, _) = gpu::map_kernel(&b.idgs, &gpu, None);
    let idg = &b.idgs.classes[0].idg;
    let node = |prefix: &str| {
        let i = idg
            .nodes
            .iter()
            .position(|n| n.op.to_string().starts_with(prefix))
            .unwrap();
        timings[0].nodes[i]
    };
    // A coalesced 4-byte-per-lane load: the reference request.
    let ld = node("ld.global");
    let wmma = node("wmma.load");
    assert_eq!(wmma.class, InstClass::LdGlobal);
    assert_eq!(wmma.subsystem, ld.subsystem);
    // Each request: 2 λ, Λ + λ (8 sectors); four pipelined: 8 λ, Λ + λ + 3·2 λ.
    assert_eq!(wmma.lambda, ld.lambda * 8);
    assert_eq!(wmma.latency, ld.latency.checked_add(ld.lambda * 7).unwrap());
    // Two HMMA.16816 for the wmma m16n16k16, one for the mma m16n8k16.
    let mma = node("mma.sync");
    let wmma_mma = node("wmma.mma");
    assert_eq!(mma.class, InstClass::TensorMma);
    assert_eq!(wmma_mma.lambda, mma.lambda * 2);
    assert_eq!(
        wmma_mma.latency,
        mma.latency.checked_add(mma.lambda).unwrap()
    );
    assert!(mma.lambda > Cycles::ZERO);
}
