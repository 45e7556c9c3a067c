//! Branches on unknown data as weights (`walk::profile_consistent`, issue 16 part 3c): the
//! warps of the walked group are shared between two assumptions in the proportion whose
//! counters fit the profile, and the caller's assumption stays when it fits best.

use walk::{Mix, Options, UnknownBranch};

/// Two warps; a branch on a loaded value skips a second load and some arithmetic.
const PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry k(.param .u64 p)\n{\n\
\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
\tld.global.u32 %r1, [%rd2];\n\tsetp.ne.s32 %p1, %r1, 0;\n\t@%p1 bra $L_skip;\n\
\tld.global.u32 %r2, [%rd2+4];\n\tadd.s32 %r3, %r2, 1;\n\tadd.s32 %r4, %r3, 1;\n\
\tadd.s32 %r5, %r4, 1;\n\tst.global.u32 [%rd2+8], %r5;\n\
$L_skip:\n\tret;\n}\n";

struct Fixture {
    kernel: ir::Kernel,
    an: ir::Analysis,
    launch: ir::BoundLaunch,
    trips: ir::Trips,
}

fn fixture() -> Fixture {
    let module = ptx::parse(PTX).unwrap();
    let kernel = ir::lower_kernel(&module, "k").unwrap();
    let an = ir::analyze(&kernel).unwrap();
    let launch = ir::Launch {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        params: vec![],
    }
    .bind(&kernel)
    .unwrap();
    let trips = ir::resolve_trips(&kernel, &an, &launch, &ir::TripInputs::default()).unwrap();
    Fixture {
        kernel,
        an,
        launch,
        trips,
    }
}

fn per_warp(f: &Fixture, opts: &Options) -> (f64, f64) {
    let b = walk::build(&f.kernel, &f.an, &f.launch, &f.trips, opts).unwrap();
    let c = idg::counts::kernel_counts(&b.idgs, Some(&b.divergent_branches));
    (
        c.get(idg::counts::Counter::Instructions),
        c.get(idg::counts::Counter::GlobalLoads),
    )
}

/// An ncu raw-page launch of 2 warps with these per-warp instructions and global loads.
fn launch(insts: f64, loads: f64) -> profile::Launch {
    let text = format!(
        "\"ID\",\"Kernel Name\",\"sm__warps_launched.sum\",\"smsp__inst_executed.sum\",\"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\"\n\
         \"\",\"\",\"\",\"\",\"\"\n\"0\",\"k\",\"2\",\"{}\",\"{}\"\n",
        2.0 * insts,
        2.0 * loads
    );
    profile::parse(&text, "t.csv").unwrap().kernels[0].launches[0].clone()
}

fn with(u: UnknownBranch, mix: Option<Mix>) -> Options {
    Options {
        unknown_branch: u,
        mix,
        ..Options::default()
    }
}

#[test]
fn a_mix_gives_each_warp_its_assumption() {
    let f = fixture();
    let work = per_warp(&f, &with(UnknownBranch::NotTaken, None));
    let skip = per_warp(&f, &with(UnknownBranch::Taken, None));
    assert_eq!((work.1, skip.1), (2.0, 1.0));
    let mix = Mix {
        first: UnknownBranch::NotTaken,
        second: UnknownBranch::Taken,
        first_warps: 1,
    };
    let b = walk::build(
        &f.kernel,
        &f.an,
        &f.launch,
        &f.trips,
        &with(UnknownBranch::NotTaken, Some(mix)),
    )
    .unwrap();
    assert_eq!(b.idgs.classes.len(), 2);
    assert_eq!(b.idgs.classes[0].warps, vec![0]);
    let mixed = per_warp(&f, &with(UnknownBranch::NotTaken, Some(mix)));
    assert_eq!(mixed.0, (work.0 + skip.0) / 2.0);
}

#[test]
fn the_counters_choose_the_proportion_and_keep_an_assumption_that_fits() {
    let f = fixture();
    let work = per_warp(&f, &with(UnknownBranch::NotTaken, None));
    let skip = per_warp(&f, &with(UnknownBranch::Taken, None));
    // Half the warps did the work.
    let measured = launch((work.0 + skip.0) / 2.0, 1.5);
    let opts = with(UnknownBranch::NotTaken, None);
    let (b, choice) =
        walk::profile_consistent(&f.kernel, &f.an, &f.launch, &f.trips, &opts, &measured, 1.0)
            .unwrap();
    let choice = choice.unwrap();
    assert_eq!(
        choice.mix,
        Some(Mix {
            first: UnknownBranch::NotTaken,
            second: UnknownBranch::Taken,
            first_warps: 1,
        })
    );
    assert!(
        choice.error < 1e-12 && choice.base_error > 0.0,
        "{choice:?}"
    );
    assert_eq!(b.idgs.classes.len(), 2);
    assert!(choice
        .describe()
        .contains("1 of 2 warps per group not taken"));
    // Every warp did the work: the caller's assumption fits exactly and stays.
    let measured = launch(work.0, work.1);
    let (b, choice) =
        walk::profile_consistent(&f.kernel, &f.an, &f.launch, &f.trips, &opts, &measured, 1.0)
            .unwrap();
    let choice = choice.unwrap();
    assert_eq!((choice.mix, choice.policy), (None, UnknownBranch::NotTaken));
    assert_eq!(b.idgs.classes.len(), 1);
    // Without counters, nothing is chosen.
    let none = launch(0.0, 0.0);
    let bare = profile::Launch {
        metrics: none
            .metrics
            .into_iter()
            .filter(|(k, _)| k == "sm__warps_launched.sum")
            .collect(),
        ..none
    };
    let (_, choice) =
        walk::profile_consistent(&f.kernel, &f.an, &f.launch, &f.trips, &opts, &bare, 1.0).unwrap();
    assert!(choice.is_none());
}

/// Thread instructions are not fitted: a side runs with every lane that reaches it, so a
/// long side taken by one lane of some warps (bench/branch_suite's `fma_lanes1`) matches no
/// mix in lanes; the warp-level counters alone decide.
#[test]
fn thread_instructions_do_not_decide_the_mix() {
    let f = fixture();
    let work = per_warp(&f, &with(UnknownBranch::NotTaken, None));
    let skip = per_warp(&f, &with(UnknownBranch::Taken, None));
    let insts = (work.0 + skip.0) / 2.0;
    // Half the warps did the work, with one active lane each.
    let text = format!(
        "\"ID\",\"Kernel Name\",\"sm__warps_launched.sum\",\"smsp__inst_executed.sum\",\"smsp__thread_inst_executed.sum\",\"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\"\n\
         \"\",\"\",\"\",\"\",\"\",\"\"\n\"0\",\"k\",\"2\",\"{}\",\"{}\",\"{}\"\n",
        2.0 * insts,
        2.0 * (32.0 * skip.0 + (work.0 - skip.0)),
        3.0
    );
    let measured = profile::parse(&text, "t.csv").unwrap().kernels[0].launches[0].clone();
    let opts = with(UnknownBranch::NotTaken, None);
    let (_, choice) =
        walk::profile_consistent(&f.kernel, &f.an, &f.launch, &f.trips, &opts, &measured, 1.0)
            .unwrap();
    let choice = choice.unwrap();
    assert_eq!(choice.mix.map(|m| m.first_warps), Some(1), "{choice:?}");
    assert!(choice.error < 1e-12, "{choice:?}");
}

/// A launch that ran no branch instruction had its branches predicated: every warp issues both
/// sides, whatever the other counters would fit (here they fit every warp skipping).
#[test]
fn no_branch_instruction_means_predicated_code() {
    let f = fixture();
    let skip = per_warp(&f, &with(UnknownBranch::Taken, None));
    let both = per_warp(&f, &with(UnknownBranch::Both, None));
    let page = |branches: f64| {
        let text = format!(
            "\"ID\",\"Kernel Name\",\"sm__warps_launched.sum\",\"smsp__inst_executed.sum\",\"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\",\"smsp__sass_inst_executed_op_branch.sum\"\n\
             \"\",\"\",\"\",\"\",\"\",\"\"\n\"0\",\"k\",\"2\",\"{}\",\"{}\",\"{}\"\n",
            2.0 * skip.0,
            2.0 * skip.1,
            branches
        );
        profile::parse(&text, "t.csv").unwrap().kernels[0].launches[0].clone()
    };
    let opts = with(UnknownBranch::NotTaken, None);
    let (b, choice) = walk::profile_consistent(
        &f.kernel,
        &f.an,
        &f.launch,
        &f.trips,
        &opts,
        &page(0.0),
        1.0,
    )
    .unwrap();
    let choice = choice.unwrap();
    assert!(choice.predicated);
    assert_eq!((choice.policy, choice.mix), (UnknownBranch::Both, None));
    let c = idg::counts::kernel_counts(&b.idgs, Some(&b.divergent_branches));
    assert_eq!(c.get(idg::counts::Counter::GlobalLoads), both.1);
    assert!(choice.describe().contains("predicated"));
    // With a branch per warp the counters decide: every warp skips.
    let (_, choice) = walk::profile_consistent(
        &f.kernel,
        &f.an,
        &f.launch,
        &f.trips,
        &opts,
        &page(2.0),
        1.0,
    )
    .unwrap();
    let choice = choice.unwrap();
    assert!(!choice.predicated);
    assert_eq!(choice.policy, UnknownBranch::Taken);
}
