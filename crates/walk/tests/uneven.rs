//! Uneven warps (`walk::uneven`): a loop whose count is read from memory is fitted to a
//! synthetic profile, and the busy share splits it between warp 0 and the others; the
//! simulator's class rotation spreads the long warp over the scheduler partitions.

use std::collections::BTreeMap;

use walk::Options;

/// One loop whose bound comes from global memory: per warp `4 + 3 T` instructions (ld.param,
/// ld.global, mov; add, setp, bra per iteration; ret).
const ROW: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry row(.param .u64 row_param_0)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [row_param_0];
    ld.global.u32 %r1, [%rd1];
    mov.u32 %r2, 0;
$L_loop:
    add.s32 %r2, %r2, 1;
    setp.lt.s32 %p1, %r2, %r1;
    @%p1 bra $L_loop;
    ret;
}
"#;

/// The front end on `ptx`'s `entry`, 4 groups of 8 warps, its unknown loops fitted to
/// `insts_per_warp` instructions per warp, under `busy_share`.
fn front_of(
    ptx: &str,
    entry: &str,
    insts_per_warp: f64,
    busy_share: Option<f64>,
) -> walk::FrontEnd {
    let module = ptx::parse(ptx).unwrap();
    let launch = ir::Launch {
        grid: [4, 1, 1],
        block: [256, 1, 1],
        params: Vec::new(),
    };
    let profile = ir::ProfileEvidence {
        file: "prof.csv".into(),
        warp_insts_per_warp: insts_per_warp,
        classes: ir::ClassCounts::default(),
    };
    let inputs = ir::TripInputs {
        explicit: &[],
        profile: Some(&profile),
    };
    let opts = Options {
        busy_share,
        ..Options::default()
    };
    let fe = walk::front_end(&module, entry, &launch, &inputs, &opts).unwrap();
    fe.built.idgs.validate().unwrap();
    fe
}

/// The front end on `ROW`, the loop fitted to `trips` per warp.
fn front(trips: u64, busy_share: Option<f64>) -> walk::FrontEnd {
    front_of(ROW, "row", (4 + 3 * trips) as f64, busy_share)
}

fn metric(v: &str) -> profile::Metric {
    profile::Metric {
        value: v.parse().unwrap(),
        unit: profile::Unit::Percent,
        min: None,
        max: None,
        row: 1,
    }
}

fn launch_with(active_pct: &str, resident_pct: &str) -> profile::Launch {
    let mut metrics = BTreeMap::new();
    metrics.insert(
        "sm__warps_active.avg.pct_of_peak_sustained_active".to_string(),
        metric(active_pct),
    );
    metrics.insert(
        "sm__maximum_warps_per_active_cycle_pct".to_string(),
        metric(resident_pct),
    );
    profile::Launch {
        metrics,
        ..profile::Launch::default()
    }
}

#[test]
fn busy_share_is_active_over_resident_warps() {
    let b = walk::uneven::busy_share(&launch_with("6.25", "12.5"), None).unwrap();
    assert!((b - 0.5).abs() < 1e-12, "{b}");
    // More active than resident (rounding in the counters) is a full share, not more.
    assert_eq!(
        walk::uneven::busy_share(&launch_with("12.6", "12.5"), None),
        Some(1.0)
    );
    assert_eq!(
        walk::uneven::busy_share(&launch_with("6.0", "0"), None),
        None
    );
    assert_eq!(
        walk::uneven::busy_share(&profile::Launch::default(), None),
        None
    );
}

/// A grid with fewer warps per SM than the occupancy limit: its own warps are the slots.
#[test]
fn busy_share_of_a_small_grid_counts_the_slots_it_fills() {
    let slots = Some(walk::uneven::Slots {
        sms: 132,
        max_warps_per_sm: 64,
    });
    // lonestar_bfs_small at 8 groups per SM: 148 groups of 8 warps, 5.10 % of 64 slots busy.
    let mut l = launch_with("5.10", "100");
    l.grid = Some([148, 1, 1]);
    l.block = Some([256, 1, 1]);
    let b = walk::uneven::busy_share(&l, slots).unwrap();
    let filled = 148.0 * 8.0 / 132.0;
    assert!((b - 0.051 * 64.0 / filled).abs() < 1e-9, "{b}");
    // The profiler's warp count wins over the grid's.
    l.metrics.insert(
        "sm__warps_launched.sum".to_string(),
        metric(&(132 * 16).to_string()),
    );
    let b = walk::uneven::busy_share(&l, slots).unwrap();
    assert!((b - 0.051 * 4.0).abs() < 1e-9, "{b}");
    // A grid that fills the limit keeps the limit.
    l.metrics.insert(
        "sm__warps_launched.sum".to_string(),
        metric(&(132 * 640).to_string()),
    );
    assert_eq!(walk::uneven::busy_share(&l, slots), Some(0.051));
    assert_eq!(walk::uneven::busy_share(&l, None), Some(0.051));
}

#[test]
fn busy_share_one_half_gives_one_warp_twice_the_mean() {
    let even = front(40, None);
    assert_eq!(even.built.idgs.classes.len(), 1);
    assert!(even.built.uneven.is_empty());

    let fe = front(40, Some(0.5));
    let idgs = &fe.built.idgs;
    // Warp 0: 40 / 0.5 = 80 iterations; the other seven share 8 * 40 - 80 = 240, 34 each.
    let l = ir::LoopId(0);
    assert_eq!(fe.built.uneven, vec![(l, 40, 80, 34)]);
    assert_eq!(idgs.classes.len(), 2);
    let group = idgs.groups_built[0] * 8;
    let long = idgs.class_of_warp(group).unwrap();
    let short: Vec<_> = (1..8)
        .map(|w| idgs.class_of_warp(group + w).unwrap())
        .collect();
    assert!(short.iter().all(|&c| c == short[0]) && short[0] != long);
    assert_eq!(idgs.class(long).idg.instruction_count(), 4 + 3 * 80);
    assert_eq!(idgs.class(short[0]).idg.instruction_count(), 4 + 3 * 34);
    // The mean over the group stays close to the fitted count (rounding of the short warps).
    let mean = (80.0 + 7.0 * 34.0) / 8.0;
    assert!((mean - 40.0_f64).abs() < 1.0, "{mean}");
}

#[test]
fn no_split_without_imbalance_or_fitted_loops() {
    assert!(front(40, Some(1.0)).built.uneven.is_empty());
    assert_eq!(front(40, Some(1.0)).built.idgs.classes.len(), 1);
    // A share so small that the long warp would need more than the whole group's work: it
    // does all of it (8 x 40) and the others none.
    let all = front(40, Some(0.05));
    assert_eq!(all.built.uneven, vec![(ir::LoopId(0), 40, 320, 0)]);
}

/// Unit costs: ALU instructions 1 cycle apart, each waiting 4 cycles for its predecessor; one
/// pipe per partition. Each of `sms` SMs runs 4 groups, `groups` at a time.
fn simulate(fe: &walk::FrontEnd, rotate: bool, groups: u32, sms: u32) -> u64 {
    // The walk marks split IDGs as rotating; `false` simulates them as walked.
    assert!(fe.built.idgs.rotate_classes);
    let idgs = &idg::KernelIdgs {
        rotate_classes: rotate,
        ..fe.built.idgs.clone()
    };
    let hw = sim::Hardware {
        subsystems: vec!["alu".into()],
        issue_interval: 0,
        partitions: 4,
        ticks_per_cycle: 1,
        clock_mhz: 1000.0,
        dispatch_latency: 0,
        dispatch_interval: 0,
        sm_wide: 0,
        queued: 0,
    };
    let costs: Vec<sim::ClassCosts> = idgs
        .classes
        .iter()
        .map(|c| {
            c.idg
                .nodes
                .iter()
                .map(|_| sim::NodeCost {
                    subsystem: 0,
                    lambda: 1,
                    latency: 4,
                    below_occupancy: None,
                    dram_bytes: 0,
                })
                .collect()
        })
        .collect();
    let exec = sim::ExecConfig {
        warps_per_group: 8,
        concurrent_groups: groups,
        total_groups: 4 * u64::from(sms),
        sm_count: sms,
    };
    let opts = sim::SimOptions {
        sub_partitions: true,
        ..sim::SimOptions::default()
    };
    sim::simulate(idgs, &costs, &hw, &exec, &opts)
        .unwrap()
        .ticks
}

#[test]
fn long_warps_share_partitions_as_on_the_slowest_sm() {
    let fe = front(200, Some(0.25));
    // One group at a time: the placement only changes which partition the long warp is on.
    assert_eq!(simulate(&fe, false, 1, 1), simulate(&fe, true, 1, 1));
    // Four groups at once. Unplaced, all four long warps share partition 0. On one SM the
    // busiest partition gets the 3/4 quantile of Bin(4, 1/4), two of them, so the core is
    // faster; of 132 SMs some SM puts all four on one partition (the 1 - 1/528 quantile),
    // and the launch waits for it.
    let piled = simulate(&fe, false, 4, 1);
    let one_sm = simulate(&fe, true, 4, 1);
    assert!(
        one_sm * 10 < piled * 7,
        "one SM {one_sm} ticks, piled {piled}"
    );
    assert_eq!(simulate(&fe, true, 4, 132), simulate(&fe, false, 4, 132));
}

/// Two fitted loops, one inside the other: only the outer one is split, so warp 0's work grows
/// by 1/ρ and not 1/ρ².
#[test]
fn only_the_outermost_fitted_loop_is_split() {
    const NESTED: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry nest(.param .u64 nest_param_0)
{
    .reg .pred %p<3>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [nest_param_0];
    ld.global.u32 %r1, [%rd1];
    ld.global.u32 %r4, [%rd1+4];
    mov.u32 %r2, 0;
$L_outer:
    mov.u32 %r3, 0;
$L_inner:
    add.s32 %r3, %r3, 1;
    setp.lt.s32 %p1, %r3, %r4;
    @%p1 bra $L_inner;
    add.s32 %r2, %r2, 1;
    setp.lt.s32 %p2, %r2, %r1;
    @%p2 bra $L_outer;
    ret;
}
"#;
    // Per warp 5 + T_o (4 + 3 T_i); the one counter cannot tell the loops apart, so both are
    // fitted to the same count: 10 each gives 345.
    let fe = front_of(NESTED, "nest", 345.0, Some(0.5));
    let outer = fe
        .analysis
        .loops
        .ids()
        .find(|&l| fe.analysis.loops.get(l).parent.is_none())
        .unwrap();
    // Outer: 20 for warp 0, (80 - 20) / 7 = 8.6 -> 9 for the others; the inner loop keeps 10.
    assert_eq!(fe.built.uneven, vec![(outer, 10, 20, 9)]);
    let idgs = &fe.built.idgs;
    let group = idgs.groups_built[0] * 8;
    let count = |w: u64| {
        let c = idgs.class_of_warp(group + w).unwrap();
        idgs.class(c).idg.instruction_count()
    };
    assert_eq!(count(0), 5 + 20 * 34);
    assert_eq!(count(1), 5 + 9 * 34);
}
