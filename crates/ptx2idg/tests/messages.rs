//! What a person reads: every diagnostic line's prefix, notes grouped by topic, labels true
//! to the run, long messages elided, and short and long help (issue 34, items 4-6).

mod common;

use common::{ptx2idg, text};

const FAN2: [&str; 10] = [
    "ptx_samples/rodinia/gaussian.ptx",
    "--kernel",
    "fan2",
    "--grid",
    "64,64",
    "--block",
    "8,8",
    "--param",
    "3=512",
    "--param=4=0",
];

/// The summary names the issue order that ran (it said `in-order` for scheduled issue), and
/// the model line says which mechanisms a run without counters cannot apply.
#[test]
fn simulate_labels_the_run_it_made() {
    let o = ptx2idg(["simulate"].into_iter().chain(FAN2));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains("scheduler     gto, compiler-scheduled (lookahead 4) issue, 4 partition(s)"),
        "{out}"
    );
    assert!(!out.contains("in-order"), "{out}");
    assert!(
        out.contains(
            "not applied without counters: branch fitting, uneven warps, loaded DRAM latency"
        ),
        "{out}"
    );
    let json = ptx2idg(
        ["simulate"]
            .into_iter()
            .chain(FAN2)
            .chain(["--format", "json"]),
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["issue"], "compiler-scheduled (lookahead 4)");
    assert!(v.get("in_order").is_none());
    let o = ptx2idg(
        ["simulate"]
            .into_iter()
            .chain(FAN2)
            .chain(["--issue", "in-order", "--format", "json"]),
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["issue"], "in-order");
}

/// The IDG summary gives counts, then ids: `262144 groups` read as a group id before.
#[test]
fn the_summary_counts_before_it_names_ids() {
    let o = ptx2idg(FAN2);
    let out = text(&o.stdout);
    assert!(
        out.starts_with(
            "kernel _Z13gaussian_fan2PfS_PKfii  grid 64x64x1  block 8x8x1  4096 groups of 2 warps\n\
             walked 1 group (id 2080): 2 warp classes"
        ),
        "{out}"
    );
    assert!(out.contains("class 0: 1 walked warp (id 4160)"), "{out}");
}

/// CSVs carry six significant digits unless --precision asks for more.
#[test]
fn csv_numbers_have_the_asked_precision() {
    let sweep = |extra: &[&str]| {
        let o = ptx2idg(
            ["simulate"]
                .into_iter()
                .chain(FAN2)
                .chain(["--blocks-per-sm", "1..=2"])
                .chain(extra.iter().copied()),
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    let six = sweep(&[]);
    let all = sweep(&["--precision", "17"]);
    let digits = |csv: &str| {
        csv.lines()
            .skip(1)
            .flat_map(|l| l.split(',').skip(3).map(str::to_string).collect::<Vec<_>>())
            .map(|v| {
                // Significant digits: leading zeros (of 0.00138892) do not count.
                v.trim_start_matches(['0', '.'])
                    .chars()
                    .filter(char::is_ascii_digit)
                    .count()
            })
            .max()
            .unwrap()
    };
    assert!(digits(&six) <= 6, "{six}");
    assert!(digits(&all) > 6, "{all}");
    let wpc = |csv: &str, i: usize| -> f64 {
        csv.lines()
            .nth(1)
            .unwrap()
            .split(',')
            .nth(i)
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!((wpc(&six, 3) - wpc(&all, 3)).abs() <= 1e-5 * wpc(&all, 3));
}

/// Every stderr line starts with the same prefix; eval prints one note per topic unless
/// --verbose (54 notes on the two bundled suites before).
#[test]
fn eval_notes_are_grouped_by_topic() {
    let eval = |verbose: bool| {
        let mut args = vec![
            "eval",
            "bench/uneven_suite",
            "--kernel",
            "fma_a1",
            "--format",
            "csv",
        ];
        if verbose {
            args.push("--verbose");
        }
        let o = ptx2idg(args);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stderr)
    };
    let short = eval(false);
    for line in short.lines() {
        assert!(line.starts_with("ptx2idg: note: "), "{short}");
        assert!(line.ends_with("--verbose prints each"), "{short}");
    }
    assert!(
        short.contains("ptx2idg: note: loop trip counts: 4 notes on 1 kernel (fma_a1)"),
        "{short}"
    );
    let long = eval(true);
    assert!(long.lines().count() > short.lines().count(), "{long}");
    assert!(
        long.contains("ptx2idg: note: fma_a1: uneven warps: busy share 0.95"),
        "{long}"
    );
}

/// A message that would echo a huge input keeps its head and tail (a list of 100 000 kernel
/// names was printed whole).
#[test]
fn long_messages_are_elided() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let p = dir.join("many_kernels.ptx");
    let mut s = String::from(".version 7.0\n.target sm_80\n.address_size 64\n");
    for i in 0..20_000 {
        s += &format!(".visible .entry k{i}()\n{{\n ret;\n}}\n");
    }
    std::fs::write(&p, s).unwrap();
    let o = ptx2idg([
        "simulate".as_ref(),
        p.as_os_str(),
        "--kernel".as_ref(),
        "zz".as_ref(),
    ]);
    let err = text(&o.stderr);
    assert!(!o.status.success());
    assert!(err.starts_with("ptx2idg: error: "), "{err}");
    assert!(err.contains("characters left out"), "{err}");
    assert!(err.len() < 1000, "{} characters", err.len());
}

/// `-h` leaves out the switches that turn one mechanism off and the budgets; `--help` lists
/// them.
#[test]
fn short_help_is_short_and_long_help_complete() {
    let short = text(&ptx2idg(["simulate", "-h"]).stdout);
    let long = text(&ptx2idg(["simulate", "--help"]).stdout);
    for hidden in [
        "--no-mapper-g",
        "--max-simulated",
        "--max-traced",
        "--no-control-deps",
    ] {
        assert!(!short.contains(hidden), "{hidden} in -h");
        assert!(long.contains(hidden), "{hidden} not in --help");
    }
    assert!(short.contains("--help lists every one"));
    assert!(short.lines().count() * 2 < long.lines().count() + 40);
}
