//! End-to-end tests of the alignment pass (docs/sass-input.md, "Alignment"): `simulate` given
//! the machine code (`--sass FILE` holding a `ptxas -v` report and the listing, as the Python
//! package's Triton path writes it) times each loop as the machine code runs it. The kernels
//! and listings are crates/align/tests/fixtures; `--sass none --regs 32` is the PTX-only run
//! with the same registers.

mod common;

use common::{ptx2idg, text};

/// `ptxas -v` for kernel `k` with 32 registers and `spills` bytes of spill stores and loads.
fn report(spills: u32) -> String {
    format!(
        "ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
         ptxas info    : Function properties for k\n    \
         {spills} bytes stack frame, {spills} bytes spill stores, {spills} bytes spill loads\n\
         ptxas info    : Used 32 registers, used 0 barriers\n"
    )
}

/// The report followed by the fixture's listing, in a file of its own.
fn machine_code(name: &str, spills: u32) -> std::path::PathBuf {
    let listing = std::fs::read_to_string(format!(
        "{}/../align/tests/fixtures/{name}.sass",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let p = std::env::temp_dir().join(format!("ptx2idg-align-{}-{name}.txt", std::process::id()));
    std::fs::write(&p, report(spills) + &listing).unwrap();
    p
}

/// Cycles of `simulate` on fixture `name` with `sass` (`none` or a file) and `extra` options.
fn cycles(name: &str, sass: &str, extra: &[&str]) -> (f64, String) {
    let ptx = format!("crates/align/tests/fixtures/{name}.ptx");
    let mut args = vec![
        "simulate",
        &ptx,
        "--gpu",
        "h100",
        "--sass",
        sass,
        "--explain",
    ];
    args.extend_from_slice(extra);
    let o = ptx2idg(&args);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{err}");
    let c = out
        .lines()
        .find_map(|l| l.strip_prefix("cycles"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    (c, err)
}

#[test]
fn unrolled_loads_overlap() {
    let launch = ["--grid", "1056", "--block", "32", "--param", "n=4096"];
    let file = machine_code("unroll", 0);
    let (plain, _) = cycles("unroll", "none", &[&launch[..], &["--regs", "32"]].concat());
    let (unrolled, err) = cycles("unroll", file.to_str().unwrap(), &launch);
    let _ = std::fs::remove_file(&file);
    assert!(
        err.contains("= machine loop at 0x0000: unrolled by 4"),
        "{err}"
    );
    assert!(err.contains("registers per thread: 32"), "{err}");
    // 128 iterations: the model waited a DRAM round trip per iteration, now per four.
    assert!(unrolled < 0.6 * plain, "{unrolled} against {plain}");
}

#[test]
fn spill_traffic_in_the_loop_costs_time() {
    let launch = ["--grid", "1056", "--block", "256"];
    let file = machine_code("spills", 24);
    let (plain, _) = cycles("spills", "none", &[&launch[..], &["--regs", "32"]].concat());
    let (spilled, err) = cycles("spills", file.to_str().unwrap(), &launch);
    let _ = std::fs::remove_file(&file);
    assert!(err.contains("2 spill access(es) per pass"), "{err}");
    // 256 iterations of a 64-bit store and a 128-bit load per thread, against 4 ALU ops.
    assert!(spilled > 2.0 * plain, "{spilled} against {plain}");
}

#[test]
fn serialized_loads_take_two_round_trips() {
    let launch = ["--grid", "132", "--block", "256"];
    let file = machine_code("serialized", 0);
    let (both, _) = cycles(
        "serialized",
        "none",
        &[&launch[..], &["--regs", "32"]].concat(),
    );
    let (one_by_one, err) = cycles("serialized", file.to_str().unwrap(), &launch);
    let _ = std::fs::remove_file(&file);
    assert!(
        err.contains("1 load(s) wait for the previous load"),
        "{err}"
    );
    // 64 iterations, each now waiting for a DRAM round trip more.
    assert!(
        one_by_one > both + 64.0 * 300.0,
        "{one_by_one} against {both}"
    );
}
