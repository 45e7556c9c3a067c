//! The simulator's outputs on the Fig. 1 example kernel (Table 2 parameters): the text and
//! JSON result, the sweep CSV and plot, the Chrome trace and the Gantt chart (Figs. 8–9).

use sim::synth::{self, TABLE2};
use sim::{
    simulate_with_records, sweep, sweep_csv, sweep_plot_svg, trace, ExecConfig, SimOptions,
    SweepAxis, CSV_HEADER,
};

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../../snapshots/sim"));
    s.set_prepend_module_to_snapshot(false);
    s
}

fn example(
    warps: u32,
    groups: u32,
) -> (
    synth::SynthKernel,
    sim::Hardware,
    Vec<sim::ClassCosts>,
    ExecConfig,
) {
    let k = synth::paper_example(1, groups);
    let hw = sim::Hardware {
        subsystems: vec!["compute".into(), "memory".into()],
        ..synth::hardware(2, None, 1)
    };
    let costs = synth::costs_for(&k, &TABLE2, &hw);
    let exec = ExecConfig {
        warps_per_group: 1,
        concurrent_groups: warps,
        total_groups: u64::from(groups),
        sm_count: 1,
    };
    (k, hw, costs, exec)
}

#[test]
fn fig8_two_warps() {
    let (k, hw, costs, exec) = example(2, 2);
    let opts = SimOptions {
        record: true,
        ..SimOptions::default()
    };
    let (r, recs) = simulate_with_records(&k.kernel, &costs, &hw, &exec, &opts).unwrap();
    settings().bind(|| {
        insta::assert_snapshot!("fig8_two_warps_text", r.to_text());
        insta::assert_snapshot!("fig8_two_warps_json", r.to_json());
        insta::assert_snapshot!(
            "fig8_two_warps_trace",
            trace::chrome_trace(&k.kernel, &hw, &recs)
        );
        insta::assert_snapshot!(
            "fig8_two_warps_gantt",
            trace::gantt_svg(&k.kernel, &hw, &recs).unwrap()
        );
    });
    // The trace is valid JSON with one slice per issue on the subsystem tracks and one per
    // warp instruction.
    let v: serde_json::Value =
        serde_json::from_str(&trace::chrome_trace(&k.kernel, &hw, &recs)).unwrap();
    let slices = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .count();
    assert_eq!(slices, 2 * 12);
}

#[test]
fn example_sweep_csv_and_plot() {
    let (k, hw, costs, exec) = example(1, 40);
    let points = sweep(
        &k.kernel,
        &costs,
        &hw,
        &exec,
        &SimOptions::default(),
        &SweepAxis::Warps(1..=12),
        &|| {},
    )
    .unwrap();
    let csv = sweep_csv(&points, sim::number::DEFAULT_DIGITS);
    assert_eq!(csv.lines().next(), Some(CSV_HEADER));
    assert_eq!(
        CSV_HEADER,
        "occupancy_warps,blocks_per_sm,cycles,wpc,time_us"
    );
    settings().bind(|| {
        insta::assert_snapshot!("example_sweep_csv", csv);
        insta::assert_snapshot!(
            "example_sweep_plot",
            sweep_plot_svg(&points, "Fig. 1 example")
        );
    });
}

#[test]
fn sweep_axis_whole_groups() {
    assert_eq!(
        SweepAxis::Warps(1..=64).group_counts(8).unwrap(),
        (1..=8).collect::<Vec<_>>()
    );
    assert_eq!(
        SweepAxis::Warps(5..=20).group_counts(4).unwrap(),
        vec![2, 3, 4, 5]
    );
    assert_eq!(
        SweepAxis::BlocksPerSm(1..=3).group_counts(32).unwrap(),
        vec![1, 2, 3]
    );
    assert!(SweepAxis::Warps(1..=3).group_counts(4).is_err());
}

#[test]
fn gantt_refuses_large_runs() {
    let (k, hw, costs, exec) = example(8, 1000);
    let opts = SimOptions {
        record: true,
        ..SimOptions::default()
    };
    let (_, recs) = simulate_with_records(&k.kernel, &costs, &hw, &exec, &opts).unwrap();
    assert!(matches!(
        trace::gantt_svg(&k.kernel, &hw, &recs),
        Err(sim::SimError::TooLargeToDraw { .. })
    ));
}
