//! End-to-end tests of the `ptx2idg` binary.

use std::path::Path;
use std::process::{Command, Output};

fn repo_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Runs the binary from the repository root, so printed paths are repository-relative.
fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptx2idg"))
        // Results that do not depend on whether this machine has ptxas.
        .env("PTX2IDG_SASS", "none")
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("run ptx2idg")
}

fn snapshot<F: FnOnce()>(f: F) {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../snapshots/ptx2idg"
    ));
    s.set_prepend_module_to_snapshot(false);
    s.bind(f);
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn check_summarizes_kernels() {
    let o = run(&[
        "check",
        "ptx_samples/rodinia/lud.ptx",
        "ptx_samples/sm_80/tensor_core.ptx",
        "ptx_samples/llvm/switch.ptx",
        "crates/ptx/tests/fixtures/kitchen_sink.ptx",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).is_empty());
    snapshot(|| insta::assert_snapshot!("check_text", stdout(&o)));
}

#[test]
fn check_json() {
    let o = run(&["check", "--json", "ptx_samples/rodinia/lud.ptx"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        v[0]["kernels"][0]["demangled"],
        "lud_perimeter(float*, int, int, int)"
    );
    snapshot(|| insta::assert_snapshot!("check_json", stdout(&o)));
}

#[test]
fn parse_error_is_located_and_fails() {
    let o = run(&[
        "check",
        "crates/ptx2idg/tests/fixtures/broken.ptx",
        "ptx_samples/rodinia/lud.ptx",
    ]);
    assert_eq!(o.status.code(), Some(1));
    // The good file is still summarized.
    assert!(stdout(&o).contains("lud_internal"));
    snapshot(|| insta::assert_snapshot!("check_error", stderr(&o)));
}

#[test]
fn json_reports_the_error_too() {
    let o = run(&[
        "check",
        "--json",
        "crates/ptx2idg/tests/fixtures/broken.ptx",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v[0]["ok"], false);
    assert_eq!(v[0]["error"]["line"], 10);
    assert_eq!(v[0]["error"]["column"], 19);
}

#[test]
fn missing_file_fails() {
    let o = run(&["check", "no/such/file.ptx"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("ptx2idg: error: no/such/file.ptx: cannot read"));
}

#[test]
fn no_arguments_prints_help() {
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Usage"));
}
