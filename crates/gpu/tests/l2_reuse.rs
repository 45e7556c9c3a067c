//! Static L2 reuse end to end on a two-pass row kernel (the shape of a layer norm): the walk
//! marks the second pass's re-reads of the row with the data touched in between and the
//! loads of a row-independent vector as shared by the groups; mapper g without counters
//! times the shared loads at L2 and gives the re-reads an L2 timing up to the occupancy at
//! which every SM's resident warps' data still fits in L2, on the profile's re-read pipe;
//! with counters only the re-reads keep that alternative.

mod common;

use gpu::{map_kernel, GMetrics, GpuProfile, MapSource, MemLevel};
use idg::Reuse;

/// One warp per row of 256 floats (8 iterations of 32 lanes): pass 1 reads x, pass 2 reads
/// x again and w (the same for every row) and writes y.
const ROWS: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry rows(.param .u64 x, .param .u64 w, .param .u64 y)\n{\n\
\t.reg .pred %p<3>;\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<20>;\n\
\tld.param.u64 %rd1, [x];\n\tld.param.u64 %rd2, [w];\n\tld.param.u64 %rd3, [y];\n\
\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %tid.x;\n\
\tmul.wide.u32 %rd4, %r1, 1024;\n\tmul.wide.u32 %rd6, %r2, 4;\n\
\tadd.s64 %rd5, %rd1, %rd4;\n\tadd.s64 %rd7, %rd5, %rd6;\n\tadd.s64 %rd8, %rd2, %rd6;\n\
\tadd.s64 %rd14, %rd3, %rd4;\n\tadd.s64 %rd15, %rd14, %rd6;\n\
\tmov.u32 %r3, 0;\n\tmov.f32 %f1, 0f00000000;\n\
$L_a:\n\tmul.wide.u32 %rd9, %r3, 128;\n\tadd.s64 %rd10, %rd7, %rd9;\n\
\tld.global.f32 %f2, [%rd10];\n\tadd.f32 %f1, %f1, %f2;\n\
\tadd.s32 %r3, %r3, 1;\n\tsetp.lt.u32 %p1, %r3, 8;\n\t@%p1 bra $L_a;\n\
\tmov.u32 %r4, 0;\n\
$L_b:\n\tmul.wide.u32 %rd11, %r4, 128;\n\tadd.s64 %rd12, %rd7, %rd11;\n\
\tld.global.f32 %f3, [%rd12];\n\tadd.s64 %rd13, %rd8, %rd11;\n\tld.global.f32 %f4, [%rd13];\n\
\tfma.rn.f32 %f5, %f3, %f4, %f1;\n\tadd.s64 %rd16, %rd15, %rd11;\n\tst.global.f32 [%rd16], %f5;\n\
\tadd.s32 %r4, %r4, 1;\n\tsetp.lt.u32 %p2, %r4, 8;\n\t@%p2 bra $L_b;\n\tret;\n}\n";

fn build() -> idg::KernelIdgs {
    common::front_end(ROWS, "rows", [1024, 1, 1], [32, 1, 1]).idgs
}

/// (PTX line, reuse) of every global load the warp issues, in order.
fn loads(idgs: &idg::KernelIdgs) -> Vec<(u32, Option<Reuse>)> {
    let idg = &idgs.classes[0].idg;
    let g = idg.materialize(10_000).unwrap();
    g.node_indices()
        .map(|v| idg.node(g[v].node))
        .filter(|n| n.op.to_string() == "ld.global.f32")
        .map(|n| (n.ptx_line, n.mem.unwrap().reuse))
        .collect()
}

#[test]
fn the_walk_marks_re_reads_and_group_shared_loads() {
    let l = loads(&build());
    assert_eq!(l.len(), 8 + 16);
    // Pass 1 touches new data.
    assert!(l[..8].iter().all(|(_, r)| r.is_none()));
    // The warp runs 160 instructions (14 before pass 1, 7 an iteration of pass 1, 1, 11 an
    // iteration of pass 2, the return) and touches 96 sectors: x, w (loaded by every group)
    // and y (written), 32 each.
    let share = |n: u64, since: u64| n * since / 160 * 32;
    for j in 0..8u64 {
        // x[j] again: since pass 1 touched it, the whole row (32 sectors: pass 1's later
        // chunks, pass 2's re-reads of the earlier ones) and pass 2's w and y (2 x 4 sectors
        // an iteration) came in between: 32 + 8j sectors, y's 4j of them written, w's 4j
        // loaded by every group. In time, 57 + 4j of the warp's 160 instructions lie between
        // (instruction 17 + 7j, then 74 + 11j): where that share of its 96 sectors is more,
        // the others' streaming in that time counts instead (the first re-read).
        let since = 57 + 4 * j;
        let expected = if share(96, since) > (32 + 8 * j) * 32 {
            Reuse::Warp {
                distance_bytes: share(96, since),
                written_bytes: share(32, since),
                shared_bytes: share(32, since),
            }
        } else {
            Reuse::Warp {
                distance_bytes: (32 + 8 * j) * 32,
                written_bytes: 4 * j * 32,
                shared_bytes: 4 * j * 32,
            }
        };
        assert_eq!(l[8 + 2 * j as usize].1, Some(expected), "iteration {j}");
        assert_eq!(
            j == 0,
            share(96, since) > (32 + 8 * j) * 32,
            "iteration {j}"
        );
        // w[j]: the same address in every group.
        assert_eq!(
            l[9 + 2 * j as usize].1,
            Some(Reuse::Groups),
            "iteration {j}"
        );
    }
}

#[test]
fn mapper_g_times_reuse_at_l2_and_re_reads_on_their_pipe() {
    let idgs = build();
    let h100 = GpuProfile::bundled("hopper-h100").unwrap();
    let l2 = h100.mem(MemLevel::L2);
    let dram = h100.mem(MemLevel::Dram);
    let capacity = h100.limits.l2_bytes.unwrap();
    let (t, _) = map_kernel(&idgs, &h100, None);
    let idg = &idgs.classes[0].idg;
    let mut seen = (0, 0);
    for (node, timing) in idg.nodes.iter().zip(&t[0].nodes) {
        match node.mem.and_then(|m| m.reuse) {
            Some(Reuse::Groups) => {
                assert_eq!((timing.lambda, timing.latency), (l2.lambda, l2.latency));
                assert_eq!(timing.source, MapSource::GStatic);
                assert!(timing.l2_reuse.is_none());
                seen.0 += 1;
            }
            Some(Reuse::Warp {
                distance_bytes,
                written_bytes,
                shared_bytes,
            }) => {
                // First-touch timing, with L2's while the data fits.
                assert_eq!((timing.lambda, timing.latency), (dram.lambda, dram.latency));
                let r = timing.l2_reuse.unwrap();
                assert_eq!((r.lambda, r.latency), (l2.lambda, l2.latency));
                // Coalesced (32 lanes x 4 bytes in 4 sectors): on the re-read pipe.
                assert_eq!(Some(r.subsystem), h100.reread_subsystem);
                assert_ne!(r.subsystem, timing.subsystem);
                // A written byte takes the profile's weight (2 on the H100) in L2 room; what
                // every group loads is one copy for all warps.
                let weight = u64::from(h100.limits.l2_written_weight);
                assert_eq!(weight, 2);
                let room = distance_bytes - shared_bytes + written_bytes * (weight - 1);
                assert_eq!(
                    r.max_warps_per_sm,
                    (capacity - shared_bytes) / (room * u64::from(h100.sm_count))
                );
                // With written bytes in between, the measured hit fraction replaces the step:
                // all hits at a small footprint, about half at the step, none far beyond.
                match r.graded {
                    None => assert_eq!(written_bytes, 0),
                    Some(g) => {
                        assert!(written_bytes > 0);
                        assert_eq!(g.per_warp_bytes, room * u64::from(h100.sm_count));
                        assert_eq!((g.shared_bytes, g.l2_bytes), (shared_bytes, capacity));
                        assert_eq!(g.hit_permille(1), 1000);
                        let half = g.hit_permille(r.max_warps_per_sm);
                        assert!((450..=560).contains(&half), "{half}");
                        assert!(g.hit_permille(r.max_warps_per_sm * 3) < 20);
                    }
                }
                seen.1 += 1;
            }
            Some(Reuse::Siblings) => panic!("one warp per group has no siblings"),
            None => assert!(timing.l2_reuse.is_none()),
        }
    }
    assert!(seen.0 > 0 && seen.1 > 0);

    // Counters decide where global bytes come from: every load takes their mix, and only
    // the re-reads keep the L2 alternative on their pipe.
    let m = GMetrics {
        dram_bytes: Some(1000),
        global_bytes: Some(1000),
        ..GMetrics::default()
    };
    let (t, _) = map_kernel(&idgs, &h100, Some(&m));
    let mut rereads = 0;
    for (node, timing) in idg.nodes.iter().zip(&t[0].nodes) {
        if timing.class != gpu::InstClass::LdGlobal {
            continue;
        }
        assert_eq!(timing.source, MapSource::GProfile);
        assert_eq!((timing.lambda, timing.latency), (dram.lambda, dram.latency));
        match node.mem.and_then(|m| m.reuse) {
            Some(Reuse::Warp { .. }) => {
                let r = timing.l2_reuse.unwrap();
                assert_eq!(Some(r.subsystem), h100.reread_subsystem);
                assert_eq!((r.lambda, r.latency), (l2.lambda, l2.latency));
                rereads += 1;
            }
            _ => assert!(timing.l2_reuse.is_none()),
        }
    }
    assert!(rereads > 0);
}

#[test]
fn a_profile_without_a_re_read_pipe_keeps_re_reads_on_the_memory_subsystem() {
    let idgs = build();
    let mut h100 = GpuProfile::bundled("hopper-h100").unwrap();
    h100.reread_subsystem = None;
    let (t, _) = map_kernel(&idgs, &h100, None);
    let mut rereads = 0;
    for timing in &t[0].nodes {
        if let Some(r) = timing.l2_reuse {
            assert_eq!(r.subsystem, h100.memory_subsystem);
            rereads += 1;
        }
    }
    assert!(rereads > 0);
    let m = GMetrics {
        dram_bytes: Some(1000),
        global_bytes: Some(1000),
        ..GMetrics::default()
    };
    let (t, _) = map_kernel(&idgs, &h100, Some(&m));
    assert!(t[0].nodes.iter().all(|n| n.l2_reuse.is_none()));
}

#[test]
fn a_profile_without_l2_size_keeps_re_reads_at_first_touch() {
    let idgs = build();
    let mut h100 = GpuProfile::bundled("hopper-h100").unwrap();
    h100.limits.l2_bytes = None;
    let (t, _) = map_kernel(&idgs, &h100, None);
    assert!(t[0].nodes.iter().all(|n| n.l2_reuse.is_none()));
}

/// Two warps reading the same 32 floats of their group's row (`tid % 32`): a layout that
/// replicates a row over warps.
const REPLICATED: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry rep(.param .u64 x)\n{\n\
\t.reg .b32 %r<8>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<8>;\n\
\tld.param.u64 %rd1, [x];\n\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %tid.x;\n\
\tand.b32 %r3, %r2, 31;\n\tmul.wide.u32 %rd2, %r1, 128;\n\tmul.wide.u32 %rd3, %r3, 4;\n\
\tadd.s64 %rd4, %rd1, %rd2;\n\tadd.s64 %rd5, %rd4, %rd3;\n\
\tld.global.f32 %f1, [%rd5];\n\tret;\n}\n";

#[test]
fn a_warp_repeating_an_earlier_warps_load_reads_l1() {
    let idgs = common::front_end(REPLICATED, "rep", [64, 1, 1], [64, 1, 1]).idgs;
    // Warp 0 loads first; warp 1 loads the same sectors after it.
    assert_eq!(idgs.classes.len(), 2);
    let reuse = |c: usize| {
        idgs.classes[c]
            .idg
            .nodes
            .iter()
            .find(|n| n.op.to_string() == "ld.global.f32")
            .and_then(|n| n.mem)
            .unwrap()
            .reuse
    };
    let (first, second) = (reuse(0), reuse(1));
    assert_eq!(first, None);
    assert_eq!(second, Some(Reuse::Siblings));
    let h100 = GpuProfile::bundled("hopper-h100").unwrap();
    let l1 = h100.mem(MemLevel::L1);
    let (t, _) = map_kernel(&idgs, &h100, None);
    let load = |c: usize| {
        let i = idgs.classes[c]
            .idg
            .nodes
            .iter()
            .position(|n| n.op.to_string() == "ld.global.f32")
            .unwrap();
        t[c].nodes[i]
    };
    assert_eq!((load(1).lambda, load(1).latency), (l1.lambda, l1.latency));
    assert_ne!((load(0).lambda, load(0).latency), (l1.lambda, l1.latency));
}
