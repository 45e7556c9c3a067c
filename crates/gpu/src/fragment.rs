//! How ptxas lowers a PTX tensor-fragment instruction: the number of SASS instructions (for
//! loads and stores: memory requests) one warp-wide `wmma`/`mma`/`ldmatrix` becomes, and the
//! bytes per lane each of those requests moves.
//!
//! The IDG has one node per PTX instruction, but a `wmma.load.a` of a 16x16 f16 tile is four
//! `LDG.E` on the GPU: costed and counted as one request it would give a wmma kernel a quarter
//! of its memory traffic. Mapper g ([`crate::map_kernel`]) charges a node `n` pipelined
//! requests ([`repeat`]), and the counter comparison ([`crate::counters`]) counts `n`. A
//! `wgmma.mma_async` is one `HGMMA` per warp whose tensor-core time grows with its shape
//! ([`wgmma_equivalents`], [`warpgroup_share`]); [`node_timing`] applies both.
//!
//! The table is an ISA-lowering fact, not a tuned parameter (no tuning-suite kernel uses
//! tensor fragments): static counts of `ptxas -arch=sm_90 -O3` (CUDA 13.5) output, dumped with
//! `cuobjdump -sass`, of our own non-suite samples `ptx_samples/sm_90/tensor_core.ptx` and
//! `bench/sass/fragments.ptx` (`python3 bench/sass/fragments.py`, bench/sass/README.md):
//!
//! | PTX (sm_90)                                        | SASS                      |
//! |----------------------------------------------------|---------------------------|
//! | `wmma.load.{a,b}.sync.aligned.*.m16n16k16.global.f16` | 4 `LDG.E` (4 B/lane)   |
//! | `wmma.load.c.sync.aligned.*.m16n16k16.global.f32`  | 4 `LDG.E.64` (8 B/lane)   |
//! | `wmma.store.d.sync.aligned.*.m16n16k16.global.f32` | 4 `STG.E.64` (8 B/lane)   |
//!
//! Each of those requests covers 8 rows of the tile, a sector each ([`Lowering::sectors`]).
//! | `wmma.mma.sync.aligned.*.m16n16k16.*`              | 2 `HMMA.16816`            |
//! | `mma.sync.aligned.m16n8k16.*`                      | 1 `HMMA.16816`            |
//! | `ldmatrix.sync.aligned.m8n8.{x2,x4}.shared.b16`    | 1 `LDSM.16.M88.{2,4}`     |
//!
//! So `tensor.mma` (per m16n8k16-equivalent, class.rs) is right for `mma.sync` m16n8k16 and
//! counts twice for a wmma m16n16k16. The table holds for every profile: sm_80 lowers
//! `fragments.ptx` identically, and sm_75 (Turing) loads and stores the same but makes the
//! wmma m16n16k16 four `HMMA.1688`, the same two m16n8k16-equivalents of work (its SASS
//! instruction count, 4, is undercounted by 2 in the counter comparison). Forms not measured (other wmma shapes and fragment
//! types, shared-memory wmma, other `mma` shapes) stay one instruction, as before.

use crate::cycles::Cycles;
use crate::timing::{L2Reuse, NodeTiming};
use ptx::ast::{Op, Opcode, ScalarType, StateSpace};

/// What one PTX instruction becomes in SASS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lowering {
    /// SASS instructions (memory requests, for loads and stores).
    pub count: u32,
    /// Bytes per lane of each memory request; `None` for non-memory instructions and for
    /// forms not in the table (their width comes from the PTX type as before).
    pub bytes_per_lane: Option<u32>,
    /// Sectors each memory request moves, where the table knows it: a request of a 16x16
    /// tile covers 8 of its rows, each a piece of its own line (`samples_wmma_gemm`'s
    /// counters: 8.0 sectors per global load and per store request, every one a fragment's),
    /// twice what its lanes' bytes fill.
    pub sectors: Option<u32>,
}

/// One PTX instruction is one SASS instruction: every form the table does not name.
pub const ONE: Lowering = Lowering {
    count: 1,
    bytes_per_lane: None,
    sectors: None,
};

/// Sectors of one request of a 16x16 tile's load or store: 8 rows, a sector each.
const TILE_REQUEST_SECTORS: u32 = 8;

/// The measured lowering of `op` (module docs), or [`ONE`].
pub fn lowering(op: &Op) -> Lowering {
    let m = &op.mods;
    let m16n16k16 = m.has_other("m16n16k16");
    let global = m.space == Some(StateSpace::Global);
    let ty = m.types.first().copied();
    let requests = |bytes| Lowering {
        count: 4,
        bytes_per_lane: Some(bytes),
        sectors: Some(TILE_REQUEST_SECTORS),
    };
    match op.opcode {
        Opcode::Wmma if m16n16k16 && m.has_other("mma") => Lowering {
            count: 2,
            bytes_per_lane: None,
            sectors: None,
        },
        Opcode::Wmma if m16n16k16 && global && m.has_other("load") => {
            let ab = m.has_other("a") || m.has_other("b");
            match ty {
                Some(ScalarType::F16) if ab => requests(4),
                Some(ScalarType::F32) if m.has_other("c") => requests(8),
                _ => ONE,
            }
        }
        Opcode::Wmma if m16n16k16 && global && m.has_other("store") => match ty {
            Some(ScalarType::F32) if m.has_other("d") => requests(8),
            _ => ONE,
        },
        _ => ONE,
    }
}

/// Bytes of operands the tensor cores fetch from shared memory per cycle and SM: m64n8k16 and
/// m64n32k16 take 18 and 24 cycles per SM (bench/microbench/wgmma.cu), (2048 + 32·N) / 128,
/// not the N/2 of their arithmetic.
const WGMMA_OPERAND_BYTES_PER_CYCLE: u32 = 128;

/// A warpgroup's `wgmma.mma_async` in m16n8k16-equivalents of tensor-core time: N/2 for a
/// m64nNk16 (every input type's K times its bit width is 256, so every type does N/2
/// equivalents of f16 work per instruction; the sparse forms, twice the K, take the same time),
/// or the shared-memory operand fetch when that is longer: B (K·N elements, twice for sparse)
/// and A (64·K, the stored half for sparse). A is taken from shared memory, as through a
/// descriptor: the IDG keeps no operands, and the register-A form differs only below N = 64,
/// where it fetches less. Measured on
/// the H100 for f16 (wgmma.cu): 18, 24, 32, 64, 128 cycles per SM for N = 8, 32, 64, 128, 256.
/// `None` for every other instruction and for a shape it cannot read.
pub fn wgmma_equivalents(op: &Op) -> Option<u32> {
    if op.opcode != Opcode::Wgmma || !op.mods.has_other("mma_async") {
        return None;
    }
    let n = op.mods.other.iter().find_map(|o| {
        let (n, _k) = o.strip_prefix("m64n")?.split_once('k')?;
        n.parse::<u32>().ok()
    })?;
    if n == 0 || n > 256 {
        return None;
    }
    let sparse = op.mods.has_other("sp");
    // K·bits of one dense K-slice: 256 (f16 k16, tf32 k8, e4m3/s8 k32, b1 k256).
    let slice_bits = if sparse { 512 } else { 256 };
    let b_bytes = n * slice_bits / 8;
    let a_bytes = 64 * 256 / 8;
    let fetch = (a_bytes + b_bytes).div_ceil(WGMMA_OPERAND_BYTES_PER_CYCLE);
    Some((n / 2).max(fetch))
}

/// One warp's node of a warpgroup instruction of `w` equivalents (`t` per equivalent): the
/// four warps share the tensor cores, each holding its pipe for a quarter, `λ·w/4`; a
/// dependent wgmma on the same accumulator may follow once the whole instruction has passed,
/// `Λ·w` (the chained-wgmma interval; wgmma.cu: one warpgroup's chain runs at the full SM's
/// rate, so a K-loop of wgmmas on one accumulator is not latency-bound).
pub fn warpgroup_share(t: NodeTiming, w: u32) -> NodeTiming {
    let saturated = Cycles::from_ticks(u64::MAX);
    NodeTiming {
        lambda: t.lambda.mul_ratio(u64::from(w), 4).unwrap_or(saturated),
        latency: t.latency.mul_ratio(u64::from(w), 1).unwrap_or(saturated),
        l2_reuse: None,
        ..t
    }
}

/// The timing of a node of `op` from one instruction's `t`: its SASS lowering's requests
/// ([`lowering`], [`repeat`]) and a wgmma's share of its warpgroup's tensor-core time.
pub fn node_timing(op: &Op, t: NodeTiming) -> NodeTiming {
    let t = repeat(t, lowering(op).count);
    match wgmma_equivalents(op) {
        Some(w) => warpgroup_share(t, w),
        None => t,
    }
}

/// `t` as `n` back-to-back instructions of the same pipe: the pipe is busy `n·λ`, and the
/// last result is ready `(n-1)·λ` after the first would be, `Λ + (n-1)·λ`.
pub fn repeat(t: NodeTiming, n: u32) -> NodeTiming {
    if n <= 1 {
        return t;
    }
    let n = u64::from(n);
    let saturated = Cycles::from_ticks(u64::MAX);
    // (λ, Λ) of n requests of one pipe from one request's.
    let pipelined = |lambda: Cycles, latency: Cycles| {
        let times = |k| lambda.mul_ratio(k, 1).unwrap_or(saturated);
        (
            times(n),
            latency.checked_add(times(n - 1)).unwrap_or(saturated),
        )
    };
    let (lambda, latency) = pipelined(t.lambda, t.latency);
    NodeTiming {
        lambda,
        latency,
        dram_bytes: t.dram_bytes.saturating_mul(n),
        // The L2-resident alternative is n requests as well.
        l2_reuse: t.l2_reuse.map(|r| {
            let (lambda, latency) = pipelined(r.lambda, r.latency);
            L2Reuse {
                lambda,
                latency,
                ..r
            }
        }),
        ..t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::class::InstClass;
    use crate::profile::SubsystemId;
    use crate::timing::MapSource;

    fn count(s: &str) -> (u32, Option<u32>) {
        let l = lowering(&ptx::parse_instruction(s).unwrap().op);
        (l.count, l.bytes_per_lane)
    }

    #[test]
    fn measured_forms() {
        let a = "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}";
        let f = "{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}";
        let load_a = format!("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {a}, [%rd1], %r9;");
        let load_b = format!("wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {a}, [%rd1], %r9;");
        let load_c = format!("wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {f}, [%rd1], %r9;");
        let store = format!("wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {f}, %r9;");
        let mma = format!("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {f}, {a}, {a}, {f};");
        assert_eq!(count(&load_a), (4, Some(4)));
        assert_eq!(count(&load_b), (4, Some(4)));
        assert_eq!(count(&load_c), (4, Some(8)));
        assert_eq!(count(&store), (4, Some(8)));
        assert_eq!(count(&mma), (2, None));
        for tile in [&load_a, &load_b, &load_c, &store] {
            assert_eq!(
                lowering(&ptx::parse_instruction(tile).unwrap().op).sectors,
                Some(8),
                "{tile}"
            );
        }
        assert_eq!(
            lowering(&ptx::parse_instruction(&mma).unwrap().op).sectors,
            None
        );
        // One HMMA.16816 / one LDSM: the ones tensor.mma and ld.shared already stand for.
        let one = (1, None);
        assert_eq!(
            count("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};"),
            one
        );
        assert_eq!(
            count("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];"),
            one
        );
        // Not measured: one instruction, as before.
        let shared = format!("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {a}, [%r1], %r9;");
        assert_eq!(count(&shared), one);
        let m32 = format!("wmma.load.a.sync.aligned.row.m32n8k16.global.f16 {a}, [%rd1], %r9;");
        assert_eq!(count(&m32), one);
        assert_eq!(count("ld.global.f32 %f1, [%rd1];"), one);
    }

    #[test]
    fn wgmma_time_is_its_arithmetic_or_its_operand_fetch() {
        let eq = |shape: &str, ty: &str| {
            let regs = (1..=4)
                .map(|i| format!("%f{i}"))
                .collect::<Vec<_>>()
                .join(",");
            let s = format!("wgmma.mma_async.sync.aligned.{shape}.f32.{ty}.{ty} {{{regs}}}, %rd1, %rd2, %p1, 1, 1, 0, 0;");
            wgmma_equivalents(&ptx::parse_instruction(&s).unwrap().op)
        };
        // wgmma.cu on the H100: 18, 24, 32, 64, 128 cycles per SM at 1 cycle per equivalent.
        assert_eq!(eq("m64n8k16", "f16"), Some(18));
        assert_eq!(eq("m64n32k16", "f16"), Some(24));
        assert_eq!(eq("m64n64k16", "f16"), Some(32));
        assert_eq!(eq("m64n128k16", "f16"), Some(64));
        assert_eq!(eq("m64n256k16", "bf16"), Some(128));
        // Another input type: the same bits per K-slice, the same time per instruction.
        assert_eq!(eq("m64n128k8", "tf32"), Some(64));
        let other = |s: &str| wgmma_equivalents(&ptx::parse_instruction(s).unwrap().op);
        assert_eq!(other("wgmma.fence.sync.aligned;"), None);
        assert_eq!(other("wgmma.commit_group.sync.aligned;"), None);
        assert_eq!(
            other("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};"),
            None
        );
    }

    #[test]
    fn a_warp_holds_a_quarter_of_its_warpgroups_wgmma() {
        let t = NodeTiming {
            subsystem: SubsystemId(0),
            lambda: Cycles::from_cycles(1),
            latency: Cycles::from_cycles(1),
            source: MapSource::F,
            class: InstClass::TensorWgmma,
            l2_reuse: None,
            dram_bytes: 0,
        };
        let r = warpgroup_share(t, 64);
        assert_eq!(r.lambda, Cycles::from_cycles(16));
        assert_eq!(r.latency, Cycles::from_cycles(64));
        assert_eq!(
            warpgroup_share(t, 18).lambda,
            Cycles::from_ratio(9, 2).unwrap()
        );
    }

    #[test]
    fn repeat_pipelines_the_requests() {
        let t = NodeTiming {
            subsystem: SubsystemId(0),
            lambda: Cycles::from_cycles(2),
            latency: Cycles::from_cycles(100),
            source: MapSource::F,
            class: InstClass::LdGlobal,
            l2_reuse: None,
            dram_bytes: 0,
        };
        let r = repeat(t, 4);
        assert_eq!(r.lambda, Cycles::from_cycles(8));
        assert_eq!(r.latency, Cycles::from_cycles(106));
        assert_eq!(repeat(t, 1), t);
    }
}
