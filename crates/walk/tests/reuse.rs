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
