//! Outputs: standard output that fails is never a panic (a reader that went away, `| head`,
//! ends the command quietly with success, a full disk with the cause and exit status 1); a
//! file is written whole or not at all, and never over a file the command reads.

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
    // Results that do not depend on whether this machine has ptxas.
    c.env("PTX2IDG_SASS", "none")
        .args(args)
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

/// A scratch folder of its own for `name`, emptied.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("output")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Every flag that writes a file refuses a path the command reads, before anything runs, and
/// leaves that file as it was.
#[test]
fn an_output_naming_an_input_is_refused() {
    let dir = scratch("inputs");
    let ptx = dir.join("gaussian.ptx");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ptx_samples/rodinia/gaussian.ptx"),
        &ptx,
    )
    .expect("copy the PTX");
    let trips = dir.join("trips.csv");
    std::fs::write(&trips, "kernel,loop,trips\n").expect("trips table");
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).expect("suite folder");
    let manifest = suite.join("suite.toml");
    std::fs::write(&manifest, "# not read: the refusal comes first\n").expect("manifest");
    let before = |p: &Path| std::fs::read(p).expect("read input");
    let (ptx_bytes, trips_bytes, manifest_bytes) =
        (before(&ptx), before(&trips), before(&manifest));
    let p = ptx.to_str().unwrap();
    let t = trips.to_str().unwrap();
    let launch = ["--kernel", "fan2", "--grid", "512,512", "--block", "8,8"];
    let mut cases: Vec<(Vec<&str>, &str)> = Vec::new();
    cases.push(([&[p, "-o", p][..], &launch[..]].concat(), "-o"));
    cases.push((
        [&[p, "--trips", t, "-o", t][..], &launch[..]].concat(),
        "-o",
    ));
    let sim = [
        &["simulate", p, "--gpu", "h100", "--trips", t][..],
        &launch[..],
    ]
    .concat();
    cases.push(([&sim[..], &["--profile", p][..]].concat(), "--profile"));
    cases.push((
        [&sim[..], &["--profile-svg", t][..]].concat(),
        "--profile-svg",
    ));
    cases.push(([&sim[..], &["--plot", p][..]].concat(), "--plot"));
    cases.push((
        [
            &["models", p, "--gpu", "h100"][..],
            &launch[..],
            &["--plot", p][..],
        ]
        .concat(),
        "--plot",
    ));
    let s = suite.to_str().unwrap();
    let m = manifest.to_str().unwrap();
    cases.push((vec!["eval", s, "--write-docs", m], "--write-docs"));
    for (args, flag) in cases {
        let out = command(&args).stdout(Stdio::null()).output().expect("run");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("error: {flag} ")) && err.contains("would overwrite the input"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(before(&ptx), ptx_bytes);
    assert_eq!(before(&trips), trips_bytes);
    assert_eq!(before(&manifest), manifest_bytes);
}

/// An output is written whole under its name, with no temporary file left beside it.
#[test]
fn outputs_are_written_whole() {
    let dir = scratch("whole");
    let out = dir.join("fan2.json");
    let mut args = FAN2.to_vec();
    let o = out.to_str().unwrap();
    args.extend(["--format", "json", "-o", o]);
    let run = command(&args).stdout(Stdio::null()).output().expect("run");
    assert!(run.status.success(), "{}", text(&run.stderr));
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).expect("written")).expect("whole JSON");
    assert!(json.is_object());
    let names: Vec<String> = std::fs::read_dir(&dir)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["fan2.json".to_string()]);
}
