//! Standard output that fails is never a panic: a reader that went away (`| head`) ends the
//! command quietly with success, a full disk with the cause and exit status 1.

#[allow(dead_code)] // this test runs the binary with its own pipes, not `common::ptx2idg`
mod common;

use common::text;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

const FAN2: [&str; 11] = [
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
];

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptx2idg"));
    c.args(args)
        .current_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")))
        .stderr(Stdio::piped());
    c
}

/// Runs `args` with standard output read for ten bytes and then closed (the outputs tested
/// are larger than a pipe's buffer, so the command is still writing).
fn closed_after_ten_bytes(args: &[&str]) -> (Option<i32>, String) {
    let mut child = command(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("run ptx2idg");
    let mut head = [0u8; 10];
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_exact(&mut head)
        .expect("ten bytes of output");
    // The pipe's read end is dropped here, as `head -c10` does.
    let out = child.wait_with_output().expect("wait for ptx2idg");
    (out.status.code(), text(&out.stderr))
}

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    let mut json = FAN2.to_vec();
    json.extend(["--format", "json"]);
    let check = vec!["check", "--json", "ptx_samples/large/big_debug.ptx"];
    for args in [json, check] {
        let (code, err) = closed_after_ten_bytes(&args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_full_disk_is_an_error_naming_the_cause() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("no /dev/full here: skipped");
        return;
    };
    let mut json = FAN2.to_vec();
    json.extend(["--format", "json"]);
    for args in [json, vec!["check", "ptx_samples/rodinia/gaussian.ptx"]] {
        let out = command(&args)
            .stdout(full.try_clone().expect("/dev/full again"))
            .output()
            .expect("run ptx2idg");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("ptx2idg: error: cannot write the output"),
            "{args:?}: {err}"
        );
    }
}
