//! End-to-end tests of the main job, `ptx2idg FILE ...`: the `stats` contract, the JSON
//! round trip, DOT's size guard and the errors a user meets first.

mod common;

use std::process::Output;

use common::text;

fn run(args: &[&str]) -> Output {
    common::ptx2idg(args)
}

const AXPY: &[&str] = &[
    "ptx_samples/sm_90/axpy.ptx",
    "--kernel",
    "_Z4axpyfPKfPf",
    "--grid",
    "8",
    "--block",
    "256",
];

#[test]
fn stats_is_one_stable_json_object() {
    let o = run(&[AXPY, &["--format", "stats"]].concat());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["kernel"], "_Z4axpyfPKfPf");
    let classes = v["classes"].as_array().unwrap();
    assert_eq!(classes.len(), 1);
    let c = &classes[0];
    // The middle group (4 of 8) is walked, and the grid's edges (groups 0 and 7) run its
    // path: their 24 warps, all on one path.
    let walked: Vec<u64> = (0..8).chain(32..40).chain(56..64).collect();
    assert_eq!(c["warps"], serde_json::json!(walked));
    assert_eq!(c["instructions"], 17);
    let keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["critical_path", "edges", "instructions", "warps"]);
}

#[test]
fn json_reads_back() {
    let o = run(&[AXPY, &["--format", "json"]].concat());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let k = idg::KernelIdgs::from_json(&text(&o.stdout)).unwrap();
    assert_eq!(k.kernel, "_Z4axpyfPKfPf");
    assert_eq!(k.warps_per_group, 8);
}

#[test]
fn a_million_trips_build_compactly_and_refuse_dot() {
    let args = [
        "ptx_samples/sm_90/long_loop.ptx",
        "--kernel",
        "long_loop_param",
        "--block",
        "32",
        "--param",
        "3=1000000",
    ];
    let o = run(&[&args[..], &["--format", "stats"]].concat());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["classes"][0]["instructions"].as_u64().unwrap() > 4_000_000);
    let o = run(&[&args[..], &["--format", "dot"]].concat());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("more than the limit"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn several_kernels_and_none_named_lists_them() {
    let o = run(&["ptx_samples/sm_90/axpy.ptx"]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("_Z4axpyfPKfPf") && err.contains("saxpy"),
        "{err}"
    );
}

#[test]
fn no_file_is_a_usage_error() {
    let o = run(&["--format", "stats"]);
    assert_eq!(o.status.code(), Some(2));
}

/// The main job warns about a trips-table row whose kernel is not in the PTX file, naming
/// the file, the row and the kernel, and still builds.
#[test]
fn trips_row_for_a_kernel_not_in_the_ptx_warns() {
    let csv = std::env::temp_dir().join(format!("ptx2idg-main-{}-trips.csv", std::process::id()));
    std::fs::write(
        &csv,
        "kernel,loop,trips
saxpy_typo,$L__BB0_1,3
",
    )
    .unwrap();
    let path = csv.to_str().unwrap();
    let o = run(&[AXPY, &["--format", "stats", "--trips", path]].concat());
    let _ = std::fs::remove_file(&csv);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(
        e.contains(&format!(
            "{path}: row 2: kernel `saxpy_typo` is not in the PTX file"
        )) && e.contains("_Z5saxpyifPKfPf"),
        "{e}"
    );
}
