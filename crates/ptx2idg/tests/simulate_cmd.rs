//! End-to-end tests of `ptx2idg simulate`: the sweep CSV contract, occupancy limited by the
//! shared memory the PTX declares, fast-forward changing no result, loop latches ending the
//! blocks of scheduled issue, the device floors and the loaded DRAM latency.

mod common;

use std::process::Output;

use common::text;

fn run(extra: &[&str]) -> Output {
    // lud_perimeter declares three 1 KiB shared arrays; the launch of the Rodinia suite.
    let mut args = vec![
        "simulate",
        "ptx_samples/rodinia/lud.ptx",
        "--kernel",
        "lud_perimeter",
        "--grid",
        "63,1024",
        "--block",
        "32",
        "--param",
        "1=1024",
        "--param",
        "2=0",
        "--param",
        "3=1048576",
        "--gpu",
        "h100",
    ];
    args.extend_from_slice(extra);
    common::ptx2idg(args)
}

#[test]
fn sweep_stops_at_the_occupancy_the_static_shared_memory_allows() {
    let o = run(&["--blocks-per-sm", "1..=40"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some(sim::CSV_HEADER));
    // 32 blocks per SM is the H100's block limit; the 3 KiB of shared memory allow more.
    assert_eq!(lines.count(), 32);
    let err = text(&o.stderr);
    assert!(err.contains("3072 shared bytes"), "{err}");

    let o = run(&["--blocks-per-sm", "1..=4", "--shared", "116000"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout).lines().count(), 2, "header and one point");
    assert!(text(&o.stderr).contains("116000 shared bytes"));
}

#[test]
fn one_run_derives_its_occupancy_from_the_shared_memory() {
    let o = run(&["--shared", "80000", "--format", "json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let r: serde_json::Value = serde_json::from_str(&text(&o.stdout)).unwrap();
    // (80000 + 1024 reserved) per block: two fit in the H100's 228 KiB.
    assert_eq!(r["concurrent_groups"], 2);
}

#[test]
fn fast_forward_changes_no_result() {
    // The exact engine: its fast-forward is exact (the sampled default extrapolates).
    let fast = run(&["--blocks-per-sm", "2", "--format", "json", "--exact"]);
    let slow = run(&[
        "--blocks-per-sm",
        "2",
        "--format",
        "json",
        "--exact",
        "--no-fast-forward",
    ]);
    assert!(fast.status.success() && slow.status.success());
    let mut fast: serde_json::Value = serde_json::from_str(&text(&fast.stdout)).unwrap();
    let slow: serde_json::Value = serde_json::from_str(&text(&slow.stdout)).unwrap();
    assert!(fast["fast_forwarded"].as_u64().unwrap() > 0);
    assert_eq!(slow["fast_forwarded"], 0);
    fast["fast_forwarded"] = 0.into();
    assert_eq!(fast, slow);
}

fn grid_stride_cycles(order: &[&str]) -> f64 {
    let mut args = vec![
        "simulate",
        "crates/ptx2idg/tests/fixtures/grid_stride_sum.ptx",
        "--gpu",
        "h100",
        "--grid",
        "132",
        "--block",
        "32",
        "--param",
        "2=270336",
        "--format",
        "json",
    ];
    args.extend_from_slice(order);
    let o = common::ptx2idg(args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let r: serde_json::Value = serde_json::from_str(&text(&o.stdout)).unwrap();
    r["cycles"].as_f64().unwrap()
}

#[test]
fn scheduled_issue_does_not_hoist_loads_over_a_loop_latch() {
    // One warp per SM, 64 iterations: the add waits for its load, and the next iteration's
    // load comes after the back edge, which ends the compiled block. Scheduled issue keeps one
    // load in flight as in-order issue does; dataflow issue overlaps iterations.
    let scheduled = grid_stride_cycles(&[]);
    let in_order = grid_stride_cycles(&["--issue", "in-order"]);
    let dataflow = grid_stride_cycles(&["--issue", "dataflow"]);
    assert!(
        scheduled >= 0.95 * in_order,
        "scheduled {scheduled} in-order {in_order}"
    );
    assert!(
        dataflow < 0.5 * scheduled,
        "dataflow {dataflow} scheduled {scheduled}"
    );
}

/// `--explain` with an ncu CSV among `--trips` lists every counter per warp, predicted beside
/// measured, and warns for each one more than 25 % apart.
#[test]
fn explain_compares_the_idg_counters_with_the_profile() {
    let o = common::ptx2idg(vec![
        "simulate",
        "ptx_samples/rodinia/gaussian.ptx",
        "--kernel",
        "fan2",
        "--grid",
        "512,512",
        "--block",
        "8,8",
        "--param",
        "3=4096",
        "--param",
        "4=0",
        "--gpu",
        "h100",
        "--trips",
        "ptx_samples/rodinia/data/ncu/gaussian_fan2.csv",
        "--explain",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(err.contains("counters per warp"), "{err}");
    for c in gpu::counters::Counter::ALL {
        assert!(err.contains(&format!("  {} ", c.name())), "{c:?}: {err}");
    }
    // The central group of the grid issues the loads and the store the H100 counted...
    let store = err
        .lines()
        .find(|l| l.trim_start().starts_with("global_stores"))
        .unwrap();
    assert!(store.contains("1.00") && !store.ends_with('!'), "{store}");
    // ...but more instructions than the average warp: flagged, with a warning.
    let inst = err
        .lines()
        .find(|l| l.trim_start().starts_with("instructions"))
        .unwrap();
    assert!(inst.contains("46.33") && inst.ends_with('!'), "{inst}");
    assert!(err.contains("warning: instructions per warp"), "{err}");
    assert!(!err.contains("warning: global_stores per warp"), "{err}");
    // Without --explain, no table.
    let o = run(&[]);
    assert!(!text(&o.stderr).contains("counters per warp"));
}

/// `--explain` names the device floors: numba's histogram is bound by the L2 slice that holds
/// its hot bins (docs/simulator.md, "Atomics"), and `--no-atomic-floor` drops that floor.
#[test]
fn explain_names_the_atomic_floor_that_sets_a_histograms_time() {
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "simulate",
            "ptx_samples/heldout/numba/histogram.ptx",
            "--grid",
            "131072",
            "--block",
            "128",
            "--gpu",
            "h100",
            "--trips",
            "ptx_samples/heldout/data/ncu/numba_histogram.csv",
            "--blocks-per-sm",
            "4..=4",
            "--explain",
        ];
        a.extend_from_slice(extra);
        a
    };
    let o = common::ptx2idg(args(&[]));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("device floors:"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains("atomic 561.1 us"), "{line}");
    // The floor plus the launch overhead is the time.
    assert!(text(&o.stdout).contains("(564.2"), "{}", text(&o.stdout));
    let o = common::ptx2idg(args(&["--no-atomic-floor"]));
    let err = text(&o.stderr);
    assert!(err.contains("atomic off"), "{err}");
    assert!(!text(&o.stdout).contains("(564.2"), "{}", text(&o.stdout));
}

/// SHOC's triad of the held-out suite (2^25 floats, 256-thread blocks) simulated on the H100
/// with `extra` arguments; the run must succeed.
fn triad(extra: &[&str]) -> std::process::Output {
    let mut a = vec![
        "simulate",
        "ptx_samples/heldout/a_stream.ptx",
        "--kernel",
        "shoc_triad",
        "--grid",
        "131072",
        "--block",
        "256",
        "--gpu",
        "h100",
    ];
    a.extend_from_slice(extra);
    let o = common::ptx2idg(a);
    assert!(o.status.success(), "{}", text(&o.stderr));
    o
}

/// A DRAM stream's loads wait longer the busier DRAM is (docs/simulator.md, "Loaded DRAM
/// latency"): SHOC's triad at mid occupancy runs slower than at the unloaded latency, and where
/// the bandwidth floor sets the time the latency changes nothing.
#[test]
fn loaded_latency_slows_a_stream_below_the_bandwidth() {
    let counted = |extra: &[&str]| {
        triad(
            &[
                &["--trips", "ptx_samples/heldout/data/ncu/shoc_triad.csv"],
                extra,
            ]
            .concat(),
        )
    };
    let wpc = |extra: &[&'static str]| -> Vec<f64> {
        let o = counted(&[&["--blocks-per-sm", "1..=8"], extra].concat());
        text(&o.stdout)
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(3).unwrap().parse().unwrap())
            .collect()
    };
    let (loaded, unloaded) = (wpc(&[]), wpc(&["--no-loaded-latency"]));
    assert_eq!(loaded.len(), 8);
    for (b, (l, u)) in loaded.iter().zip(&unloaded).enumerate() {
        assert!(l <= u, "{} blocks/SM: {l} > {u}", b + 1);
    }
    assert!(loaded[3] < 0.9 * unloaded[3], "{loaded:?} {unloaded:?}");
    assert_eq!(loaded[7], unloaded[7]);
    // One run with --explain names the utilization and the latency it settled at.
    let err = text(&counted(&["--blocks-per-sm", "4", "--explain"]).stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("loaded DRAM latency:"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.contains("writes 32 %") && !line.ends_with("x1.000"),
        "{line}"
    );
}

/// Without counters the bandwidth floor reads the DRAM bytes of the static access analysis
/// (docs/simulator.md, "Without counters"): SHOC's triad reads two arrays of 2^25 floats and
/// writes one; at 8 blocks per SM those bytes at the profile's 2:1 rate (2864 GB/s, 140.6 us)
/// plus the launch overhead, not the simulated core, set its time.
#[test]
fn without_counters_the_floor_reads_the_static_dram_bytes() {
    let at_8 = |extra: &[&str]| {
        let o = triad(&[&["--blocks-per-sm", "8", "--format", "text"], extra].concat());
        text(&o.stdout)
    };
    let floored = at_8(&[]);
    assert!(
        floored.contains("DRAM (static) 268.4 MB read, 134.2 MB written by the launch"),
        "{floored}"
    );
    assert!(floored.contains("(143.7"), "{floored}");
    let core = at_8(&["--no-bandwidth-floor"]);
    assert!(!core.contains("(143.7"), "{core}");
}
