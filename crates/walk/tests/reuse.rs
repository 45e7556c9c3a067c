//! The re-read distances the walk gives global loads (`idg::Reuse::Warp`): the distinct
//! sectors the warp touched since the data's last touch, re-reads included, for loops
//! stepped one iteration at a time and for template loops walked once for all iterations.

use idg::{MemSpace, Reuse};

/// One warp per group reads its row of `n` chunks (32 floats, 4 sectors each) in three
/// passes that only read.
fn passes(n: u32) -> String {
    let pass = |label: &str, i: u32| {
        format!(
            "\tmov.u32 %r{i}, 0;\n\
             {label}:\n\tmul.wide.u32 %rd6, %r{i}, 128;\n\tadd.s64 %rd7, %rd5, %rd6;\n\
             \tld.global.f32 %f2, [%rd7];\n\tadd.f32 %f1, %f1, %f2;\n\
             \tadd.s32 %r{i}, %r{i}, 1;\n\tsetp.lt.u32 %p1, %r{i}, {n};\n\t@%p1 bra {label};\n"
        )
    };
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry passes(.param .u64 x)\n{{\n\
         \t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<8>;\n\
         \tld.param.u64 %rd1, [x];\n\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %tid.x;\n\
         \tmul.wide.u32 %rd2, %r1, {row};\n\tmul.wide.u32 %rd3, %r2, 4;\n\
         \tadd.s64 %rd4, %rd1, %rd2;\n\tadd.s64 %rd5, %rd4, %rd3;\n\tmov.f32 %f1, 0f00000000;\n\
         {a}{b}{c}\tret;\n}}\n",
        row = n * 128,
        a = pass("$L_a", 3),
        b = pass("$L_b", 4),
        c = pass("$L_c", 5),
    )
}

fn idgs(n: u32) -> idg::KernelIdgs {
    launch(&passes(n), "passes")
}

/// The IDGs of `entry` launched as 64 groups of one warp, default options.
fn launch(ptx: &str, entry: &str) -> idg::KernelIdgs {
    let module = ptx::parse(ptx).unwrap();
    let launch = ir::Launch {
        grid: [64, 1, 1],
        block: [32, 1, 1],
        params: vec![],
    };
    walk::front_end(
        &module,
        entry,
        &launch,
        &ir::TripInputs::default(),
        &walk::Options::default(),
    )
    .unwrap()
    .built
    .idgs
}

/// The reuse of the first class's global accesses, template nodes in order.
fn template_reuse(k: &idg::KernelIdgs) -> Vec<Option<Reuse>> {
    k.classes[0]
        .idg
        .nodes
        .iter()
        .filter_map(|n| n.mem)
        .filter(|m| m.space == MemSpace::Global)
        .map(|m| m.reuse)
        .collect()
}

fn reread(sectors: u64) -> Option<Reuse> {
    Some(Reuse::Warp {
        distance_bytes: sectors * 32,
        written_bytes: 0,
        shared_bytes: 0,
    })
}

#[test]
fn every_re_read_of_a_stepped_pass_has_the_whole_row_in_between() {
    let k = idgs(8);
    let idg = &k.classes[0].idg;
    let g = idg.materialize(10_000).unwrap();
    let reuse: Vec<Option<Reuse>> = g
        .node_indices()
        .filter_map(|v| idg.node(g[v].node).mem)
        .filter(|m| m.space == MemSpace::Global)
        .map(|m| m.reuse)
        .collect();
    assert_eq!(reuse.len(), 3 * 8);
    assert!(reuse[..8].iter().all(Option::is_none));
    // Chunk j of pass 2 or 3: the row's other 7 chunks came in between, re-read or not.
    // Counting only sectors touched for the first time gave pass 2 (8 - j) chunks and
    // pass 3 nothing.
    for (i, r) in reuse[8..].iter().enumerate() {
        assert_eq!(*r, reread(32), "pass {}, chunk {}", 2 + i / 8, i % 8);
    }
}

#[test]
fn a_template_pass_re_reads_as_many_sectors_as_it_stands_for() {
    // 5000 iterations a pass: past the stepped budget, each pass is walked once. Its other
    // iterations touch 4 sectors each, so after pass 2 the row's first chunk again has the
    // whole row (20000 sectors) in between; counting only sectors touched for the first
    // time, pass 2 touched none and pass 3 re-read at distance 0.
    let reuse = template_reuse(&idgs(5000));
    // Each pass: the template, then the header execution that leaves the loop.
    assert_eq!(
        reuse,
        vec![
            None,
            None,
            reread(20_000),
            reread(20_000),
            reread(20_000),
            reread(20_000)
        ]
    );
}

/// Groups `8` apart in launch order read the same tile (a grouped matrix product's `A` panel:
/// the tile is `ctaid.x % 8`); the next group reads another. Groups that close run at the
/// same time, so the tile is in L2 for all but the first: the load is `Reuse::Groups`. A load
/// of the group's own data (`ctaid.x`) stays a first touch.
#[test]
fn a_tile_groups_eight_apart_share_is_on_chip() {
    let src = ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry tiles(.param .u64 x)\n{\n\
         \t.reg .b32 %r<8>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<8>;\n\
         \tld.param.u64 %rd1, [x];\n\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %tid.x;\n\
         \trem.u32 %r3, %r1, 8;\n\tmul.wide.u32 %rd2, %r3, 4096;\n\
         \tmul.wide.u32 %rd3, %r2, 4;\n\tadd.s64 %rd4, %rd1, %rd2;\n\tadd.s64 %rd5, %rd4, %rd3;\n\
         \tld.global.f32 %f1, [%rd5];\n\
         \tmul.wide.u32 %rd6, %r1, 4096;\n\tadd.s64 %rd7, %rd1, %rd6;\n\
         \tadd.s64 %rd7, %rd7, %rd3;\n\tld.global.f32 %f2, [%rd7+1048576];\n\tret;\n}\n";
    let reuse = template_reuse(&launch(src, "tiles"));
    assert_eq!(reuse, vec![Some(Reuse::Groups), None]);
}

/// The global loads of the first class in template order: (sibling, group) sectors.
fn nearby(k: &idg::KernelIdgs) -> Vec<(u32, u32)> {
    k.classes[0]
        .idg
        .nodes
        .iter()
        .filter_map(|n| n.mem)
        .filter(|m| m.space == MemSpace::Global && !m.store)
        .map(|m| (m.sibling_sectors, m.group_sectors))
        .collect()
}

/// A 3-point stencil down the rows of a 32-float-wide array, one row per warp, two warps per
/// group: the row above (`-128`) of warp 1 is warp 0's own row (an earlier sibling loads
/// it), that of warp 0 the group before's last row; the row below is no earlier warp's.
/// The same kernel walked without looking at other groups (a profile's counters give the
/// DRAM share) counts the siblings' sectors only.
#[test]
fn a_stencil_halo_is_what_earlier_warps_and_groups_load() {
    let src = ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry rows(.param .u64 x)\n{\n\
         \t.reg .b32 %r<8>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<8>;\n\
         \tld.param.u64 %rd1, [x];\n\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %tid.x;\n\
         \tmul.wide.u32 %rd2, %r1, 256;\n\tmul.wide.u32 %rd3, %r2, 4;\n\
         \tadd.s64 %rd4, %rd1, %rd2;\n\tadd.s64 %rd5, %rd4, %rd3;\n\
         \tld.global.f32 %f1, [%rd5];\n\tld.global.f32 %f2, [%rd5+-128];\n\
         \tld.global.f32 %f3, [%rd5+128];\n\tret;\n}\n";
    let module = ptx::parse(src).unwrap();
    let launch = ir::Launch {
        grid: [64, 1, 1],
        block: [64, 1, 1],
        params: vec![],
    };
    let build = |nearby_groups| {
        walk::front_end(
            &module,
            "rows",
            &launch,
            &ir::TripInputs::default(),
            &walk::Options {
                nearby_groups,
                ..walk::Options::default()
            },
        )
        .unwrap()
        .built
        .idgs
    };
    // Each warp class's (sibling, group) sectors per load.
    let by_warp = |k: &idg::KernelIdgs| -> Vec<Vec<(u32, u32)>> {
        k.classes
            .iter()
            .map(|c| {
                nearby(&idg::KernelIdgs {
                    classes: vec![c.clone()],
                    ..k.clone()
                })
            })
            .collect()
    };
    // Warp 0: its row above is the previous group's warp 1 row; warp 1: its row above is
    // warp 0's row, its own row warp 0's row below.
    let by_warp_looking = by_warp(&build(true));
    let by_warp_blind = by_warp(&build(false));
    let by_warp = by_warp_looking;
    assert!(
        by_warp.contains(&vec![(0, 4), (0, 4), (0, 0)]),
        "{by_warp:?}"
    );
    assert!(
        by_warp.contains(&vec![(4, 0), (4, 0), (0, 0)]),
        "{by_warp:?}"
    );
    let by_warp = by_warp_blind;
    assert!(
        by_warp.contains(&vec![(0, 0), (0, 0), (0, 0)]),
        "{by_warp:?}"
    );
    assert!(
        by_warp.contains(&vec![(4, 0), (4, 0), (0, 0)]),
        "{by_warp:?}"
    );
}

/// An index every lane of a warp loads alike (`ld [idx + 4*ctaid]`) keeps the addresses built
/// from it exact relative to each other: the row it selects is read coalesced (stride 4, 4
/// sectors), and a load of it is uniform. An index each lane loads for itself leaves the gather
/// through it unknown.
#[test]
fn addresses_from_a_warp_uniform_index_keep_their_pattern() {
    let src = ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry gather(.param .u64 idx, .param .u64 table)\n{\n\
         \t.reg .b32 %r<8>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<16>;\n\
         \tld.param.u64 %rd1, [idx];\n\tld.param.u64 %rd2, [table];\n\
         \tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %tid.x;\n\
         \tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n\
         \tld.global.u32 %r3, [%rd4];\n\
         \tmul.wide.s32 %rd5, %r3, 128;\n\tadd.s64 %rd6, %rd2, %rd5;\n\
         \tmul.wide.u32 %rd7, %r2, 4;\n\tadd.s64 %rd8, %rd6, %rd7;\n\
         \tld.global.f32 %f1, [%rd8];\n\
         \tadd.s64 %rd9, %rd1, %rd7;\n\tld.global.u32 %r4, [%rd9];\n\
         \tmul.wide.s32 %rd10, %r4, 4;\n\tadd.s64 %rd11, %rd2, %rd10;\n\
         \tld.global.f32 %f2, [%rd11];\n\tret;\n}\n";
    let k = launch(src, "gather");
    let patterns: Vec<Option<(Option<i64>, u32)>> = k.classes[0]
        .idg
        .nodes
        .iter()
        .filter_map(|n| n.mem)
        .filter(|m| m.space == MemSpace::Global)
        .map(|m| {
            m.pattern
                .map(|p| (p.lane_stride_bytes, p.sectors_per_request))
        })
        .collect();
    assert_eq!(
        patterns,
        vec![
            Some((Some(0), 1)),
            Some((Some(4), 4)),
            Some((Some(4), 4)),
            None
        ]
    );
}
