//! End-to-end tests of `ptx2idg cfg`: kernel selection, launch options, trips tables,
//! Nsight Compute profiles solved for trip counts, and the errors named by file and row.

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::Output;

use common::text;

fn run(args: &[&str]) -> Output {
    common::ptx2idg(std::iter::once(&"cfg").chain(args))
}

/// A scratch file that lives as long as the test.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, body: &str) -> Self {
        let p = std::env::temp_dir().join(format!("ptx2idg-cfg-{}-{name}", std::process::id()));
        let mut f = std::fs::File::create(&p).expect("temp file");
        f.write_all(body.as_bytes()).expect("write temp file");
        Scratch(p)
    }
    fn path(&self) -> &str {
        self.0.to_str().expect("utf-8 temp path")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

const LOOPS: &str = "ptx_samples/sm_90/loops.ptx";

#[test]
fn several_kernels_need_a_name() {
    let o = run(&[LOOPS]);
    assert_eq!(o.status.code(), Some(1));
    let e = text(&o.stderr);
    assert!(
        e.contains("_Z11grid_stridePKfPffi (grid_stride(float const*, float*, float, int))"),
        "{e}"
    );
    let o = run(&[LOOPS, "--kernel", "nope"]);
    assert!(text(&o.stderr).contains("no kernel named `nope`"));
}

#[test]
fn grid_stride_summary_per_thread() {
    let o = run(&[
        LOOPS,
        "--kernel",
        "grid_stride",
        "--grid",
        "4",
        "--block",
        "128",
        "--param",
        "3=10000",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let s = text(&o.stdout);
    assert!(
        s.contains("trips per thread 19..20, per warp {19, 20} (static)"),
        "{s}"
    );
}

#[test]
fn trips_table_overrides_and_explains() {
    let t = Scratch::new(
        "t.csv",
        "kernel,loop,trips\nnested,$L__BB2_3,5\n_Z6nestedPKfPfii,line:42,3\nother,$L__BB0_1,9\n",
    );
    let o = run(&[
        LOOPS,
        "--kernel",
        "nested",
        "--trips",
        t.path(),
        "--explain",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["loops"][0]["trips"]["rule"]["Fixed"], 5);
    assert_eq!(v["loops"][1]["trips"]["rule"]["Fixed"], 3);
    assert_eq!(v["loops"][1]["trips"]["source"]["Explicit"]["row"], 3);
    let e = text(&o.stderr);
    assert!(
        e.contains("L1 $L__BB2_4 PTX line 184") && e.contains("trips 3 (explicit"),
        "{e}"
    );
}

#[test]
fn trips_row_naming_a_missing_loop_is_an_error() {
    let t = Scratch::new("bad.csv", "kernel,loop,trips\nnested,$L__BB9_9,5\n");
    let o = run(&[LOOPS, "--kernel", "nested", "--trips", t.path()]);
    assert_eq!(o.status.code(), Some(1));
    let e = text(&o.stderr);
    assert!(
        e.contains("row 2") && e.contains("$L__BB9_9") && e.contains(t.path()),
        "{e}"
    );
}

#[test]
fn nsight_compute_profile_solves_the_unknown_loop() {
    // 13,024 warp instructions over 16 warps = 814 per warp = 20 + 4 * T, T = 198 (residual 2).
    let header = r#""ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value""#;
    let row = |m: &str, u: &str, v: &str| {
        format!(
            r#""0","1","a.out","h","param_trips(const float *, float *, int)","1","7","(128, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","{m}","{u}","{v}""#
        )
    };
    let csv = format!(
        "{header}\n{}\n{}\n",
        row("smsp__inst_executed.sum", "inst", "13,024"),
        row("sm__warps_launched.sum", "warp", "16")
    );
    let p = Scratch::new("ncu.csv", &csv);
    let o = run(&[
        LOOPS,
        "--kernel",
        "param_trips",
        "--grid",
        "4",
        "--block",
        "128",
        "--trips",
        p.path(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let s = text(&o.stdout);
    assert!(
        s.contains("trips 198 (profile") && s.contains("residual 2.00"),
        "{s}"
    );
}

#[test]
fn dot_is_a_digraph_with_loop_clusters() {
    let o = run(&[
        LOOPS, "--kernel", "nested", "--format", "dot", "--param", "2=16", "--param", "3=8",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let s = text(&o.stdout);
    assert!(s.starts_with("digraph \"_Z6nestedPKfPfii\" {") && s.trim_end().ends_with('}'));
    assert!(
        s.contains("subgraph cluster_1") && s.contains("style=dashed"),
        "{s}"
    );
    assert_eq!(s.matches('{').count(), s.matches('}').count());
}

#[test]
fn irreducible_kernels_are_reported() {
    let ptx = Scratch::new(
        "irr.ptx",
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry irr(.param .u32 p)\n{\n.reg .pred %p<3>;\n.reg .b32 %r<3>;\nld.param.u32 %r1, [p];\nsetp.eq.s32 %p1, %r1, 0;\n@%p1 bra $L_b;\n$L_a:\nadd.s32 %r1, %r1, 1;\nsetp.lt.s32 %p2, %r1, 10;\n@%p2 bra $L_b;\nret;\n$L_b:\nadd.s32 %r1, %r1, 2;\nbra.uni $L_a;\n}\n",
    );
    let o = run(&[ptx.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("irreducible control flow"),
        "{}",
        text(&o.stderr)
    );
}

/// The profile crate's trips-table fixture, read through the CLI against the PTX it was
/// written for: every row resolves to a loop (a stale `line:N` would be an error here).
#[test]
fn profile_fixture_trips_table_resolves() {
    const FIXTURE: &str = "crates/profile/tests/fixtures/trips.csv";
    for (kernel, row) in [("long_loop_param", 3), ("long_loop_const", 4)] {
        let o = run(&[
            "ptx_samples/sm_90/long_loop.ptx",
            "--kernel",
            kernel,
            "--trips",
            FIXTURE,
            "--format",
            "json",
        ]);
        let e = text(&o.stderr);
        assert!(o.status.success(), "{kernel}: {e}");
        assert!(!e.contains("warning"), "{kernel}: {e}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        let trips = &v["loops"][0]["trips"];
        assert_eq!(trips["rule"]["Fixed"], 1_000_000, "{kernel}: {trips}");
        assert_eq!(trips["source"]["Explicit"]["row"], row, "{kernel}: {trips}");
    }
}

/// A row naming a kernel the PTX file does not have is a warning naming the file, the row
/// and the kernel, listing the file's kernels; rows for the file's other kernels are quiet.
#[test]
fn trips_row_naming_a_kernel_not_in_the_ptx_is_a_warning() {
    let t = Scratch::new(
        "other-kernel.csv",
        "kernel,loop,trips\nnested,$L__BB2_3,5\n# comment\nnot_a_kernel,$L__BB0_1,9\ngrid_stride,$L__BB0_2,4\n",
    );
    let o = run(&[LOOPS, "--kernel", "nested", "--trips", t.path()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    let warning = format!(
        "warning: {}: row 4: kernel `not_a_kernel` is not in the PTX file",
        t.path()
    );
    assert!(e.contains(&warning), "{e}");
    assert!(
        e.contains("_Z6nestedPKfPfii (nested(float const*, float*, int, int))"),
        "the warning lists the kernels: {e}"
    );
    assert_eq!(e.matches("warning").count(), 1, "{e}");
    assert!(
        text(&o.stdout).contains("trips 5 (explicit"),
        "{}",
        text(&o.stdout)
    );
}
