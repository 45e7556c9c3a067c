//! End-to-end tests of `ptx2idg eval` on the committed Rodinia suite (two of its kernels, so
//! the test stays fast in debug builds; the full table is docs/results.md).

mod common;

use std::process::Output;

/// From the repository root, with results that do not depend on whether this machine has
/// ptxas (`common::ptx2idg`).
fn run(args: &[&str]) -> Output {
    common::ptx2idg(args)
}

const SUBSET: [&str; 4] = [
    "--kernel",
    "cfd_time_step",
    "--kernel",
    "bpnn_adjust_weights",
];

#[test]
fn csv_header_rows_and_snapshot() {
    let mut args = vec![
        "eval",
        "ptx_samples/rodinia",
        "--gpu",
        "h100",
        "--format",
        "csv",
    ];
    args.extend(SUBSET);
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "kernel,model,mape,mape_shape");
    // 2 kernels x 12 models, then 12 average rows.
    assert_eq!(lines.len(), 1 + 2 * 12 + 12);
    assert!(
        lines[1].starts_with("bpnn_adjust_weights,pipeline,"),
        "manifest order: {}",
        lines[1]
    );
    // The sampling models are the last columns (the suite has samples; the ML model trained
    // on every Rodinia kernel but the one it predicts, not only the two listed).
    assert!(lines[lines.len() - 3].starts_with("average,unified,"));
    assert!(lines[lines.len() - 2].starts_with("average,sampling,"));
    assert!(lines.last().unwrap().starts_with("average,sampling_ml,"));
    // Deterministic: a second run prints the same bytes.
    let again = run(&args);
    assert_eq!(String::from_utf8(again.stdout).unwrap(), out);
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../../snapshots/eval"));
    s.set_prepend_module_to_snapshot(false);
    s.bind(|| insta::assert_snapshot!("eval_subset_csv", out));
}

#[test]
fn unknown_kernel_is_a_usage_error() {
    let o = run(&["eval", "ptx_samples/rodinia", "--kernel", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("unknown kernel `nope`") && err.contains("srad1"),
        "{err}"
    );
}

#[test]
fn missing_suite_names_the_file() {
    let o = run(&["eval", "no/such/dir"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("suite.toml"));
}

/// Several suites: one markdown table each under the suite's name, `--kernel` picks from any
/// of them, an id no suite has is a usage error, and CSV (one header) takes one suite only.
#[test]
fn several_suites() {
    let two = ["eval", "ptx_samples/rodinia", "ptx_samples/rodinia"];
    let o = run(&[&two[..], &["--kernel", "cfd_time_step", "--extrapolate"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.matches("## ptx_samples/rodinia\n").count(), 2, "{out}");
    assert_eq!(out.matches("`cfd_time_step`").count(), 2, "{out}");

    let o = run(&[&two[..], &["--kernel", "nope"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no suite has a kernel `nope`"));

    let o = run(&[&two[..], &["--format", "csv"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("takes one suite"));
}

/// `--format counters`: one CSV row per kernel and counter, from several suites at once.
#[test]
fn counters_format_lists_every_counter_of_every_kernel() {
    let mut args = vec![
        "eval",
        "ptx_samples/rodinia",
        "--gpu",
        "h100",
        "--format",
        "counters",
    ];
    args.extend(SUBSET);
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], ::eval::counters::CSV_HEADER);
    assert_eq!(lines.len(), 1 + 2 * gpu::counters::Counter::ALL.len());
    let loads = lines
        .iter()
        .find(|l| l.contains(",cfd_time_step,global_loads,"))
        .unwrap();
    let cols: Vec<&str> = loads.split(',').collect();
    // The IDG's global loads per warp are the H100's: 0 % apart, not flagged.
    assert_eq!((cols[8], cols[9]), ("0.0", "false"), "{loads}");
}

/// The uneven-warps validation suite (bench/uneven_suite): one warp of each block runs 4 times
/// the mean trip count. With the busy share splitting the fitted loop (the default) the
/// Pipeline curve has the measured shape; with every warp at the mean it does not.
#[test]
fn uneven_warps_reproduce_the_validation_suites_long_warp() {
    let shape = |extra: &[&str]| pipeline_row("bench/uneven_suite", "fma_a4", extra).1;
    let (uneven, even) = (shape(&[]), shape(&["--no-uneven-warps"]));
    assert!(uneven < 10.0, "MAPE_shape with uneven warps {uneven}");
    assert!(even > 25.0, "MAPE_shape with even warps {even}");
}

/// `eval SUITE --kernel ID` with `extra` flags: the kernel's Pipeline (MAPE, MAPE_shape).
fn pipeline_row(suite: &str, kernel: &str, extra: &[&str]) -> (f64, f64) {
    let mut args = vec![
        "eval", suite, "--gpu", "h100", "--format", "csv", "--kernel", kernel,
    ];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let prefix = format!("{kernel},pipeline,");
    let row = out
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("{out}"));
    let (mape, shape) = row.split_once(',').unwrap();
    (mape.parse().unwrap(), shape.parse().unwrap())
}

/// The branch validation suite (bench/branch_suite): a quarter of the warps, drawn at random,
/// run the long side of a branch on unknown data. Fitted to the counters (the default) the
/// Pipeline model runs about that share; from the divergent-branch count (none here) every
/// warp runs the fall-through, the long side, and the prediction is far too slow.
#[test]
fn fitted_branches_share_the_warps_of_the_validation_suite() {
    let mape = |extra: &[&str]| pipeline_row("bench/branch_suite", "fma_warps25", extra).0;
    let (fitted, every) = (mape(&[]), mape(&["--no-fit-branches"]));
    assert!(fitted < 35.0, "MAPE with fitted branches {fitted}");
    assert!(
        every > 45.0,
        "MAPE with the divergence-based assumption {every}"
    );
}

/// `--counters one`: every point reads the top point's counters. `all` is the default
/// (same bytes); `one` changes the predictions but not the table's shape or the measurements.
#[test]
fn counters_flag() {
    let with = |mode: Option<&str>, format: &str| {
        let mut args = vec!["eval", "ptx_samples/rodinia", "--gpu", "h100"];
        args.extend(["--format", format]);
        if let Some(m) = mode {
            args.extend(["--counters", m]);
        }
        args.extend(SUBSET);
        let o = run(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let default = with(None, "points");
    assert_eq!(with(Some("all"), "points"), default);
    let one = with(Some("one"), "points");
    assert_ne!(one, default, "the points' own counters matter");
    let (d, o): (Vec<&str>, Vec<&str>) = (default.lines().collect(), one.lines().collect());
    assert_eq!(d.len(), o.len());
    assert_eq!(d[0], o[0], "header");
    // The measured columns (kernel, blocks, occupancy, real WPC) come first and stay.
    let measured = |l: &str| l.split(',').take(4).collect::<Vec<_>>().join(",");
    for (a, b) in d.iter().zip(&o) {
        assert_eq!(measured(a), measured(b));
    }
    let bad = run(&["eval", "ptx_samples/rodinia", "--counters", "some"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// `--counters none`: no counter but the top launch's instruction count. Every model still
/// predicts both kernels (no empty cell), the predictions are not `all`'s, the measured
/// columns stay, the run says what it read, and `--format counters`, which compares with the
/// counters, is refused.
#[test]
fn counters_none_predicts_from_the_ptx_and_the_instruction_count() {
    let with = |mode: &str, format: &str| {
        let mut args = vec!["eval", "ptx_samples/rodinia", "--gpu", "h100"];
        args.extend(["--format", format, "--counters", mode]);
        args.extend(SUBSET);
        let o = common::ptx2idg(&args);
        assert!(o.status.success(), "{}", common::text(&o.stderr));
        (common::text(&o.stdout), common::text(&o.stderr))
    };
    let (csv, err) = with("none", "csv");
    assert!(
        err.contains("note: --counters none: no profiler counter reaches the models")
            && err.contains("smsp__inst_executed.sum"),
        "{err}"
    );
    assert!(!err.contains("no prediction"), "{err}");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + 2 * 10 + 10, "{csv}");
    for l in &lines[1..] {
        assert!(!l.ends_with(",,"), "every model predicts: {l}");
    }
    let (all, _) = with("all", "csv");
    assert_ne!(csv, all);
    let (none, all) = (with("none", "points").0, with("all", "points").0);
    let measured = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.split(',').take(4).collect::<Vec<_>>().join(","))
            .collect()
    };
    assert_eq!(measured(&none), measured(&all));
    assert_ne!(none, all);

    let mut args = vec!["eval", "ptx_samples/rodinia", "--format", "counters"];
    args.extend(["--counters", "none"]);
    let o = common::ptx2idg(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::text(&o.stderr).contains("--counters none has none"),
        "{}",
        common::text(&o.stderr)
    );
}
