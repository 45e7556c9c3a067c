//! End-to-end tests of `ptx2idg gpus` and `ptx2idg map`.

use std::path::Path;
use std::process::{Command, Output};

fn repo_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptx2idg"))
        // Results that do not depend on whether this machine has ptxas.
        .env("PTX2IDG_SASS", "none")
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("run ptx2idg")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn gpus_lists_one_bundled_name_per_line() {
    let o = run(&["gpus"]);
    assert!(o.status.success());
    let names: Vec<String> = stdout(&o)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    assert_eq!(names, gpu::bundled_names());
}

#[test]
fn gpus_show_prints_every_class() {
    let o = run(&["gpus", "--show", "h100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for c in gpu::InstClass::ALL {
        assert!(out.lines().any(|l| l.starts_with(c.name())), "{c}");
    }
}

#[test]
fn map_table_and_json() {
    let args = [
        "map",
        "ptx_samples/sm_90/axpy.ptx",
        "--kernel",
        "_Z4axpyfPKfPf",
        "--gpu",
        "fermi-c2050",
        "--grid",
        "8",
        "--block",
        "256",
    ];
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(t
        .lines()
        .any(|l| l.contains("fma.rn.f32") && l.contains("f32.fma")));
    // Fermi DRAM (Table 5 ld.global.s32): λ 23, Λ 475; a coalesced 4-byte load is the
    // reference request, so mapper f's values stand.
    assert!(t.lines().any(|l| l.contains("ld.global")
        && l.contains(" 23 ")
        && l.contains("475")
        && l.ends_with(" f")));

    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let o = run(&json_args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["gpu"], "fermi-c2050");
    let rows = v["rows"].as_array().unwrap();
    assert!(rows
        .iter()
        .any(|r| r["class"] == "ld.global" && r["lambda"] == 23.0));
}

#[test]
fn map_uses_profiler_metrics_for_mapper_g() {
    let o = run(&[
        "map",
        "ptx_samples/rodinia/lud.ptx",
        "--kernel",
        "lud_internal",
        "--gpu",
        "h100",
        "--grid",
        "255,255",
        "--block",
        "16,16",
        "--param",
        "1=4096",
        "--param",
        "2=0",
        "--trips",
        "ptx_samples/rodinia/data/ncu/lud_internal.csv",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert!(rows
        .iter()
        .any(|r| r["class"] == "ld.global" && r["source"] == "g-profile"));
}

#[test]
fn bad_gpu_name_and_file() {
    let o = run(&["map", "ptx_samples/sm_90/example.ptx", "--gpu", "voodoo2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("hopper-h100"), "{}", stderr(&o));

    let dir = std::env::temp_dir().join(format!("ptx2idg-gpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "name = \"x\"\narchitecture = \"y\"\nvendor = \"z\"\nsm_count = \"many\"\n",
    )
    .unwrap();
    let o = run(&["gpus", "--gpu-file", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("sm_count"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}
