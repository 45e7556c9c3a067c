//! Valid but extreme inputs from issue 17, generated here, each answered by the CLI with a
//! result or an error naming its cause (never a crash or an unbounded run).

mod common;

use common::{ptx2idg, text};
use std::path::PathBuf;
use std::process::Output;

const HEAD: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

/// A kernel with one loop counting `%r1` from `lo` while `< hi` in type `ty`.
fn counted_loop(ty: &str, lo: &str, hi: &str) -> String {
    format!(
        "{HEAD}.visible .entry k()\n{{\n .reg .pred %p<2>;\n .reg .{ty} %r<3>;\n .reg .b32 %q<2>;\n \
         mov.{ty} %r1, {lo};\nL1:\n add.s32 %q1, %q1, 1;\n add.{ty} %r1, %r1, 1;\n \
         setp.lt.{ty} %p1, %r1, {hi};\n @%p1 bra L1;\n ret;\n}}\n"
    )
}

/// `f0 -> f1 -> ... -> f{n-1}`; the kernel calls `f0`.
fn call_chain(n: usize) -> String {
    let mut s = HEAD.to_string();
    for i in (0..n).rev() {
        s += &format!(".func f{i}()\n{{\n .reg .b32 %r<2>;\n add.s32 %r1, %r1, 1;\n");
        if i + 1 < n {
            s += &format!(" call f{}, ();\n", i + 1);
        }
        s += " ret;\n}\n";
    }
    s + ".visible .entry k()\n{\n call f0, ();\n ret;\n}\n"
}

fn write(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pathological");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write input");
    p
}

fn refused(out: &Output, cause: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "a clean error exit: {err}");
    assert!(err.contains(cause), "the error names `{cause}`: {err}");
}

#[test]
fn ten_thousand_nested_calls_are_refused_by_depth() {
    let p = write("chain.ptx", &call_chain(10_000));
    refused(
        &ptx2idg([
            "cfg".as_ref(),
            p.as_os_str(),
            "--kernel".as_ref(),
            "k".as_ref(),
        ]),
        "nests calls more than 64 deep",
    );
    refused(
        &ptx2idg([
            p.as_os_str(),
            "--grid".as_ref(),
            "1".as_ref(),
            "--block".as_ref(),
            "32".as_ref(),
        ]),
        "nests calls more than 64 deep",
    );
}

#[test]
fn s64_extreme_bounds_are_refused_with_the_loop_line() {
    let p = write(
        "s64.ptx",
        &counted_loop("s64", "-9223372036854775808", "9223372036854775807"),
    );
    let out = ptx2idg([
        "cfg".as_ref(),
        p.as_os_str(),
        "--kernel".as_ref(),
        "k".as_ref(),
    ]);
    refused(&out, "PTX line 11");
    refused(&out, "more than any launch can execute");
    let out = ptx2idg([
        "models".as_ref(),
        p.as_os_str(),
        "--gpu".as_ref(),
        "h100".as_ref(),
        "--occupancy".as_ref(),
        "1..=2".as_ref(),
    ]);
    refused(&out, "more than any launch can execute");
}

#[test]
fn int_extreme_bounds_stop_the_models_at_their_budget() {
    let p = write("s32.ptx", &counted_loop("s32", "-2147483648", "2147483647"));
    let out = ptx2idg([
        "models".as_ref(),
        p.as_os_str(),
        "--gpu".as_ref(),
        "h100".as_ref(),
        "--occupancy".as_ref(),
        "1..=2".as_ref(),
    ]);
    refused(&out, "past the analytical models' budget");
}

#[test]
fn a_trillion_trips_from_a_table_are_refused_past_the_limit_or_simulated() {
    let p = write("small.ptx", &counted_loop("s32", "0", "10"));
    let huge = write("huge.csv", "kernel,loop,trips\nk,L1,2000000000000\n");
    let out = ptx2idg([
        "simulate".as_ref(),
        p.as_os_str(),
        "--gpu".as_ref(),
        "h100".as_ref(),
        "--trips".as_ref(),
        huge.as_os_str(),
        "--occupancy".as_ref(),
        "1..=1".as_ref(),
    ]);
    refused(&out, "L1 (PTX line 11");
    let trillion = write("trillion.csv", "kernel,loop,trips\nk,L1,1000000000000\n");
    let out = ptx2idg([
        "simulate".as_ref(),
        p.as_os_str(),
        "--gpu".as_ref(),
        "h100".as_ref(),
        "--trips".as_ref(),
        trillion.as_os_str(),
        "--occupancy".as_ref(),
        "1..=1".as_ref(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn the_inlining_budget_is_named_and_raised_by_its_flag() {
    let mut s = HEAD.to_string();
    for i in (0..8).rev() {
        s += &format!(".func f{i}()\n{{\n .reg .b32 %r<2>;\n add.s32 %r1, %r1, 1;\n");
        if i < 7 {
            s += &format!(" call f{}, ();\n call f{}, ();\n", i + 1, i + 1);
        }
        s += " ret;\n}\n";
    }
    s += ".visible .entry k()\n{\n call f0, ();\n ret;\n}\n";
    let p = write("tree.ptx", &s);
    let cfg = |budget: &str| {
        ptx2idg([
            "cfg".as_ref(),
            p.as_os_str(),
            "--kernel".as_ref(),
            "k".as_ref(),
            "--max-inlined".as_ref(),
            budget.as_ref(),
        ])
    };
    refused(
        &cfg("100"),
        "inlining budget of 100 instructions; raise it with --max-inlined",
    );
    assert!(cfg("10000").status.success());
}

#[test]
fn the_simulated_instruction_budget_is_named_and_raised_by_its_flag() {
    let p = write("budget.ptx", &counted_loop("s32", "0", "10"));
    let trips = write("budget.csv", "kernel,loop,trips\nk,L1,1000000000000\n");
    let sim = |extra: &[&str]| {
        let mut args: Vec<std::ffi::OsString> = vec![
            "simulate".into(),
            p.clone().into(),
            "--gpu".into(),
            "h100".into(),
            "--trips".into(),
            trips.clone().into(),
        ];
        args.extend(extra.iter().map(Into::into));
        ptx2idg(args)
    };
    // Without fast-forward every one of the 10^12 iterations would be issued.
    refused(
        &sim(&["--exact", "--no-fast-forward", "--max-simulated", "20000"]),
        "the simulated-instruction budget; raise it with --max-simulated N",
    );
    // With it, the repeating schedule is skipped and the default budget is never reached.
    let out = sim(&[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn the_idg_size_budget_is_named_and_raised_by_its_flag() {
    let p = write("idg_budget.ptx", &counted_loop("s32", "0", "10"));
    let idg = |budget: &str| {
        ptx2idg([
            p.as_os_str(),
            "--grid".as_ref(),
            "4".as_ref(),
            "--block".as_ref(),
            "64".as_ref(),
            "--groups".as_ref(),
            "all".as_ref(),
            "--max-idg-nodes".as_ref(),
            budget.as_ref(),
        ])
    };
    refused(
        &idg("3"),
        "the IDG-size budget; raise it with --max-idg-nodes N, or walk fewer groups",
    );
    assert!(idg("1000").status.success());
}

/// `n` consecutive `@%p1 bra L0;`: each ends a basic block.
fn many_blocks(n: usize) -> String {
    format!(
        "{HEAD}.visible .entry k()\n{{\n .reg .pred %p<2>;\n .reg .s32 %r<3>;\n \
         mov.u32 %r1, %tid.x;\n setp.lt.s32 %p1, %r1, 7;\n{}L0:\n ret;\n}}\n",
        " @%p1 bra L0;\n".repeat(n)
    )
}

#[test]
fn a_kernel_past_the_statement_budget_is_refused_before_lowering() {
    let p = write("blocks.ptx", &many_blocks(20_000));
    let cfg = |budget: &str| {
        ptx2idg([
            "cfg".as_ref(),
            p.as_os_str(),
            "--kernel".as_ref(),
            "k".as_ref(),
            "--max-inlined".as_ref(),
            budget.as_ref(),
        ])
    };
    refused(
        &cfg("10000"),
        "more than the budget of 10000 a kernel may have after inlining; raise it with --max-inlined N",
    );
    assert!(cfg("100000").status.success());
}

/// The sizes; a debug build needs about a minute, so run them with
/// `cargo test --release -p ptx2idg --test pathological -- --ignored`.
#[test]
#[ignore]
fn a_million_basic_blocks_100k_nested_loops_and_a_100_mb_trips_table_are_answered() {
    let p = write("blocks1m.ptx", &many_blocks(1_000_000));
    refused(
        &ptx2idg([
            "cfg".as_ref(),
            p.as_os_str(),
            "--kernel".as_ref(),
            "k".as_ref(),
        ]),
        "--max-inlined",
    );
    let n = 100_000;
    let mut s = format!(
        "{HEAD}.visible .entry k()\n{{\n .reg .pred %p<2>;\n .reg .s32 %r<{}>;\n",
        n + 1
    );
    for i in 0..n {
        s += &format!(" mov.s32 %r{i}, -2147483648;\nL{i}:\n");
    }
    for i in (0..n).rev() {
        s += &format!(
            " add.s32 %r{i}, %r{i}, 1;\n setp.lt.s32 %p1, %r{i}, 2147483647;\n @%p1 bra L{i};\n"
        );
    }
    s += " ret;\n}\n";
    let p = write("nested100k.ptx", &s);
    // A 100 MB trips table, mostly other kernels' rows: simulate and map finish.
    let small = write("small100m.ptx", &counted_loop("s32", "0", "10"));
    let mut csv = String::from("kernel,loop,trips\n");
    let mut i = 0u64;
    while csv.len() < 100_000_000 {
        if i % 1000 == 0 {
            csv += "k,L1,12\n";
        } else {
            csv += &format!(
                "_Z12other_kernel{}PfS_i,$L__BB0_{},{}\n",
                i % 50,
                i % 13,
                i % 1000
            );
        }
        i += 1;
    }
    let trips = write("trips100m.csv", &csv);
    drop(csv);
    for cmd in ["simulate", "map"] {
        let out = ptx2idg([
            cmd.as_ref(),
            small.as_os_str(),
            "--gpu".as_ref(),
            "h100".as_ref(),
            "--trips".as_ref(),
            trips.as_os_str(),
        ]);
        assert!(out.status.success(), "{cmd}: {}", text(&out.stderr));
    }
    // Five statements a loop: past the kernel budget by default, past the loop-nest limit
    // with the budget raised.
    let idg = |budget: &str| {
        ptx2idg([
            p.as_os_str(),
            "--grid".as_ref(),
            "4".as_ref(),
            "--block".as_ref(),
            "64".as_ref(),
            "--groups".as_ref(),
            "all".as_ref(),
            "--max-inlined".as_ref(),
            budget.as_ref(),
        ])
    };
    refused(&idg("500000"), "raise it with --max-inlined N");
    refused(&idg("1000000"), "(nesting too deep or too wide)");
}

#[cfg(unix)]
#[test]
fn dev_zero_and_garbage_inputs_are_refused_with_the_cause() {
    let out = ptx2idg(["check", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("the limit of this kind of input"),
        "{}",
        text(&out.stderr)
    );
    // A suite whose manifest is /dev/zero, and one whose PTX is random bytes.
    let real = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ptx_samples/rodinia");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pathological");
    for (name, file, target) in [
        ("suite_zero", "suite.toml", None),
        (
            "suite_garbage",
            "gaussian.ptx",
            Some(write("garbage.ptx", "\u{1}\u{7f}%%{{[[;;\n")),
        ),
    ] {
        let suite = dir.join(name);
        let _ = std::fs::remove_dir_all(&suite);
        std::fs::create_dir_all(&suite).unwrap();
        for e in std::fs::read_dir(&real).unwrap().flatten() {
            let to = suite.join(e.file_name());
            if e.file_name() == file {
                let from = target.clone().unwrap_or_else(|| PathBuf::from("/dev/zero"));
                std::os::unix::fs::symlink(from, &to).unwrap();
            } else {
                std::os::unix::fs::symlink(e.path(), &to).unwrap();
            }
        }
        let out = ptx2idg([
            "eval".as_ref(),
            suite.as_os_str(),
            "--gpu".as_ref(),
            "h100".as_ref(),
            "--kernel".as_ref(),
            "gaussian_fan2".as_ref(),
        ]);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{name}: {err}");
        assert!(err.contains(file), "{name}: the error names {file}: {err}");
    }
}

#[test]
fn a_large_trips_table_is_streamed_and_its_foreign_rows_counted() {
    let p = write("stream.ptx", &counted_loop("s32", "0", "10"));
    let mut csv = String::from("kernel,loop,trips\n");
    for i in 0..50_000 {
        csv += &format!("_Z5otheri{},$L__BB0_{},{}\n", i % 3, i % 7, i % 100);
        if i % 10_000 == 0 {
            csv += "k,L1,12\n";
        }
    }
    let trips = write("stream.csv", &csv);
    let out = ptx2idg([
        "cfg".as_ref(),
        p.as_os_str(),
        "--kernel".as_ref(),
        "k".as_ref(),
        "--trips".as_ref(),
        trips.as_os_str(),
    ]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("row 2: kernel `_Z5otheri0` is not in the PTX file; row ignored (and 16666 more rows naming it)"),
        "{err}"
    );
    assert!(text(&out.stdout).contains("12"), "{}", text(&out.stdout));
}

/// Fuzz finding (fuzz_back patho, seed 1, input 15): two nested u32 loops of about 2^32
/// iterations each repeat exactly, and fast-forward multiplied the counts past 2^64.
#[test]
fn a_run_too_long_to_represent_is_refused_not_wrapped() {
    let text = format!(
        "{HEAD}.visible .entry k()\n{{\n .reg .pred %p<2>;\n .reg .u32 %r<3>;\n mov.u32 %r0, 1;\nL0:\n \
         mov.u32 %r1, 1;\nL1:\n add.u32 %r1, %r1, 1;\n setp.lt.u32 %p1, %r1, 9223372036854775807;\n \
         @%p1 bra L1;\n add.u32 %r0, %r0, 1;\n setp.lt.u32 %p1, %r0, 9223372036854775807;\n \
         @%p1 bra L0;\n ret;\n}}\n"
    );
    let p = write("too_long.ptx", &text);
    refused(
        &ptx2idg([
            "simulate".as_ref(),
            p.as_os_str(),
            "--gpu".as_ref(),
            "h100".as_ref(),
        ]),
        "its time and counts cannot be represented",
    );
}

/// Fuzz findings (fuzz_back idg and gpu): an IDG JSON whose launch dimensions overflow their
/// products, and a run asking for millions of resident warps, are refused with the cause.
#[test]
fn hostile_launch_dimensions_and_residency_are_refused() {
    let p = write("dims.ptx", &counted_loop("s32", "0", "10"));
    let out = ptx2idg([
        p.as_os_str(),
        "--grid".as_ref(),
        "4".as_ref(),
        "--block".as_ref(),
        "64".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json = text(&out.stdout);
    let at = json.find("\"block\"").expect("block in the JSON");
    let end = at + json[at..].find(']').expect("block list") + 1;
    let hostile = format!(
        "{}\"block\": [4294967295, 4294967295, 1]{}",
        &json[..at],
        &json[end..]
    );
    let j = write("dims.idg.json", &hostile);
    refused(
        &ptx2idg([
            "simulate".as_ref(),
            j.as_os_str(),
            "--gpu".as_ref(),
            "h100".as_ref(),
        ]),
        "a block holds 1..=65536 threads",
    );
    // fuzz_back idg, seed 44: a walked group far outside the grid overflowed its warp ids.
    let at = json
        .find("\"groups_built\"")
        .expect("groups_built in the JSON");
    let end = at + json[at..].find(']').expect("groups list") + 1;
    let hostile = format!(
        "{}\"groups_built\": [18446744073709551615]{}",
        &json[..at],
        &json[end..]
    );
    let j = write("groups.idg.json", &hostile);
    refused(
        &ptx2idg([
            "simulate".as_ref(),
            j.as_os_str(),
            "--gpu".as_ref(),
            "h100".as_ref(),
        ]),
        "every walked group is in the grid",
    );
    // Residency past what the kernel can hold is refused before the core is sized (it was
    // refused by the simulator's 4096-warp core limit before the launch limit was checked).
    let out = ptx2idg([
        "simulate".as_ref(),
        p.as_os_str(),
        "--gpu".as_ref(),
        "h100".as_ref(),
        "--grid".as_ref(),
        "1000000000".as_ref(),
        "--block".as_ref(),
        "64".as_ref(),
        "--blocks-per-sm".as_ref(),
        "100000000".as_ref(),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--blocks-per-sm 100000000 is above this kernel's maximum of 32"),
        "{err}"
    );
}

/// Fuzz finding (fuzz_back suite): a manifest whose grid overflows its product.
#[test]
fn a_suite_manifest_with_overflowing_dimensions_is_refused() {
    let real = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ptx_samples/rodinia");
    let suite = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pathological/suite_dims");
    let _ = std::fs::remove_dir_all(&suite);
    std::fs::create_dir_all(&suite).unwrap();
    for e in std::fs::read_dir(&real).unwrap().flatten() {
        let to = suite.join(e.file_name());
        if e.file_name() == "suite.toml" {
            let t = std::fs::read_to_string(e.path()).unwrap();
            let t = t.replacen(
                "grid = [512, 512, 1]",
                "grid = [4294967295, 4294967295, 4294967295]",
                1,
            );
            std::fs::write(&to, t).unwrap();
        } else {
            #[cfg(unix)]
            std::os::unix::fs::symlink(e.path(), &to).unwrap();
        }
    }
    let out = ptx2idg([
        "eval".as_ref(),
        suite.as_os_str(),
        "--gpu".as_ref(),
        "h100".as_ref(),
        "--kernel".as_ref(),
        "gaussian_fan2".as_ref(),
    ]);
    refused(&out, "grid_blocks");
}

/// Sizes past what a GPU launches or an SM holds are refused before any work, naming the limit.
#[test]
fn sizes_past_the_device_are_refused_before_any_work() {
    let fan2 = ["ptx_samples/rodinia/gaussian.ptx", "--kernel", "fan2"];
    let cases: [(&[&str], &str); 6] = [
        (&["--block", "1024,1024,64"], "at most 1024"),
        (&["--block", "1,1,65"], "block's Z dimension is 1 to 64"),
        (&["--grid", "1,70000"], "grid's Y dimension is 1 to 65535"),
        (&["--window", "1000000"], "1000000 is not in 1..=1024"),
        (
            &["--occupancy", "1..=1000000", "--gpu", "h100"],
            "past the 64 warps",
        ),
        (
            &["--blocks-per-sm", "33", "--gpu", "h100"],
            "--blocks-per-sm 33 is above this kernel's maximum of 32 blocks per SM",
        ),
    ];
    for (i, (extra, cause)) in cases.into_iter().enumerate() {
        let command: &[&str] = match i {
            3 | 5 => &["simulate"],
            4 => &["models"],
            _ => &[],
        };
        let args = [command, &fan2[..], extra].concat();
        let out = ptx2idg(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(cause), "{args:?}: {err}");
    }
}

/// An integer parameter wider than its PTX type is refused instead of wrapping (4294967306 as
/// a 32-bit parameter ran as 10); a negative value and the full unsigned bit pattern fit.
#[test]
fn a_parameter_wider_than_its_type_is_refused() {
    let fan2 = |value: &str| {
        ptx2idg([
            "ptx_samples/rodinia/gaussian.ptx",
            "--kernel",
            "fan2",
            "--grid",
            "512,512",
            "--block",
            "8,8",
            "--param",
            &format!("3={value}"),
            "--format",
            "stats",
        ])
    };
    refused(
        &fan2("4294967306"),
        "is 32 bits wide: 4294967306 does not fit",
    );
    refused(&fan2("-2147483649"), "does not fit");
    for ok in ["4294967295", "-2147483648", "0xffffffff", "4096"] {
        let out = fan2(ok);
        assert!(out.status.success(), "{ok}: {}", text(&out.stderr));
    }
}

/// Walking more than 4096 groups is refused at once, by count or by `all` (65 536 took about
/// 30 s); a smaller count is walked.
#[test]
fn walking_too_many_groups_is_refused_at_once() {
    let walk = |groups: &str| {
        ptx2idg([
            "ptx_samples/rodinia/gaussian.ptx",
            "--kernel",
            "fan2",
            "--grid",
            "512,512",
            "--block",
            "8,8",
            "--groups",
            groups,
            "--format",
            "stats",
        ])
    };
    refused(&walk("65536"), "walking 65536 work groups is refused");
    refused(&walk("all"), "walking 262144 work groups is refused");
    assert!(walk("64").status.success());
}

/// Two nested loops of 2^31 − 1 iterations: every command refuses them at once (the summary
/// and the stats walked the outer loop iteration by iteration for hours; simulate already
/// refused a run it cannot represent).
#[test]
fn nested_loops_of_two_billion_iterations_are_refused_by_every_command() {
    let p = write(
        "nested_int_max.ptx",
        &format!(
            "{HEAD}.visible .entry k()\n{{\n .reg .pred %p<3>;\n .reg .s32 %r<5>;\n \
             mov.s32 %r1, 0;\nL1:\n mov.s32 %r2, 0;\nL2:\n add.s32 %r3, %r3, 1;\n \
             add.s32 %r2, %r2, 1;\n setp.lt.s32 %p2, %r2, 2147483647;\n @%p2 bra L2;\n \
             add.s32 %r1, %r1, 1;\n setp.lt.s32 %p1, %r1, 2147483647;\n @%p1 bra L1;\n \
             ret;\n}}\n"
        ),
    );
    for format in ["stats", "summary"] {
        refused(
            &ptx2idg([p.as_os_str(), "--format".as_ref(), format.as_ref()]),
            "more than the analysis budget",
        );
    }
    refused(
        &ptx2idg([
            "simulate".as_ref(),
            p.as_os_str(),
            "--gpu".as_ref(),
            "h100".as_ref(),
        ]),
        "cannot be represented",
    );
}

/// A kernel whose loop runs as many times as the bits of its `.f16` parameter read as an
/// integer: the trip count shows the bits a float value was bound as.
const F16_BITS_LOOP: &str = ".visible .entry k(.param .f16 k_param_0, .param .f32 k_param_1, \
     .param .s32 k_param_2, .param .f64 k_param_3)\n{\n .reg .pred %p<2>;\n .reg .b16 %rs<2>;\n \
     .reg .b32 %r<4>;\n ld.param.b16 %rs1, [k_param_0];\n cvt.u32.u16 %r2, %rs1;\n \
     mov.u32 %r1, 0;\nL1:\n add.s32 %r1, %r1, 1;\n setp.lt.u32 %p1, %r1, %r2;\n @%p1 bra L1;\n \
     ret;\n}\n";

/// Float parameters take floats (and integers they hold exactly), bound as their IEEE bits;
/// an integer parameter refuses a float, a float parameter a value past its range, and a
/// parameter given twice is refused (`--param 3=1.5` was refused for every parameter, and the
/// later of two values silently won).
#[test]
fn float_parameters_are_bound_as_their_bits() {
    let p = write("float_params.ptx", &format!("{HEAD}{F16_BITS_LOOP}"));
    let cfg = |params: &[&str]| {
        let mut args = vec!["cfg", p.to_str().unwrap(), "--explain"];
        for v in params {
            args.extend(["--param", v]);
        }
        ptx2idg(&args)
    };
    // 1.0 as .f16 is 0x3c00 = 15360, -0.5 is 0xb800 = 47104.
    for (value, trips) in [("1", "15360"), ("1.0", "15360"), ("-0.5", "47104")] {
        let out = cfg(&[&format!("k_param_0={value}"), "1=2.5", "2=7", "3=-1e300"]);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{value}: {all}");
        assert!(
            all.contains(&format!("trips {trips} (static)")),
            "{value}: {all}"
        );
    }
    for (param, cause) in [
        (
            "k_param_2=1.5",
            "parameter `k_param_2` of kernel `k` is .s32: 1.5 is not an integer",
        ),
        ("2=4.0", "is .s32: 4.0 is a float: give the integer 4"),
        (
            "1=1e39",
            "parameter `k_param_1` of kernel `k` is .f32: 1e39 is past the largest finite .f32 value",
        ),
        ("0=65520", "is .f16: 65520 has no exact .f16 value"),
        ("1=16777217", "is .f32: 16777217 has no exact .f32 value"),
        ("3=9007199254740993", "is .f64: 9007199254740993 has no exact .f64 value"),
    ] {
        refused(&cfg(&[param]), cause);
    }
    refused(
        &cfg(&["2=1", "k_param_2=2"]),
        "parameter `k_param_2` of kernel `k` is given two values (as `2` and as `k_param_2`)",
    );
    // Text that is no number is refused by the flag's parser (exit 2).
    for (param, cause) in [
        ("1=inf", "`inf` is not a number"),
        ("1=1e999", "`1e999` is not a finite number"),
        (
            "2=18446744073709551616",
            "is not an integer of at most 64 bits",
        ),
    ] {
        let out = cfg(&[param]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{param}: {err}");
        assert!(err.contains(cause), "{param}: {err}");
    }
}

/// Arrays of 2^63 bytes or more: a size that overflows 64 bits is an error naming the array
/// in every space (a `.shared` one counted as 0 bytes and ran), and static shared memory past
/// 4 GiB is refused naming the bytes (it was read as 4294967295, "limited by SharedMemory").
#[test]
fn arrays_past_any_memory_are_refused_naming_them() {
    let kernel = |global: &str, local: &str| {
        format!(
            "{HEAD}{global}\n.visible .entry k()\n{{\n .reg .b32 %r<3>;\n {local}\n \
             mov.u32 %r1, %tid.x;\n ret;\n}}\n"
        )
    };
    let cases = [
        (
            kernel("", ".shared .align 4 .b32 s[9223372036854775808];"),
            "the .shared array `s` (line 8) is larger than 2^64 - 1 bytes",
        ),
        (
            kernel("", ".shared .align 4 .b8 s[2][9223372036854775808];"),
            "the .shared array `s` (line 8) is larger than 2^64 - 1 bytes",
        ),
        (
            kernel(
                "",
                ".shared .align 8 .b8 a[9223372036854775808];\n \
                 .shared .align 8 .b8 b[9223372036854775808];",
            ),
            "the .shared array `b` (line 9) is larger than 2^64 - 1 bytes",
        ),
        (
            kernel("", ".shared .align 4 .b8 s[9223372036854775808];"),
            "kernel `k`: 9223372036854775808 bytes of static shared memory per block, more than \
             any SM holds",
        ),
        (
            kernel("", ".local .align 4 .b32 l[9223372036854775808];"),
            "the .local array `l` (PTX line 8) is larger than 2^64 - 1 bytes",
        ),
        (
            kernel(".global .align 4 .b32 g[9223372036854775808];", ""),
            "the .global array `g` (PTX line 4) is larger than 2^64 - 1 bytes",
        ),
    ];
    for (i, (ptx, cause)) in cases.iter().enumerate() {
        let p = write(&format!("huge_array_{i}.ptx"), ptx);
        for command in ["simulate", "models"] {
            refused(
                &ptx2idg([
                    command.as_ref(),
                    p.as_os_str(),
                    "--gpu".as_ref(),
                    "h100".as_ref(),
                ]),
                cause,
            );
        }
    }
    // What an SM cannot hold but 32 bits can is the occupancy rules' refusal, in words.
    let p = write(
        "shared_past_the_sm.ptx",
        &kernel("", ".shared .align 4 .b8 s[300000];"),
    );
    refused(
        &ptx2idg([
            "simulate".as_ref(),
            p.as_os_str(),
            "--gpu".as_ref(),
            "h100".as_ref(),
        ]),
        "300000 shared bytes cannot run on hopper-h100 (limited by shared memory)",
    );
}

/// A GPU profile past 4 MiB is refused before it is parsed (a TOML document takes 20-60 times
/// its size in memory once parsed); a recording run stops at its trace budget, naming the flag
/// that raises it, and leaves no trace file (a 2048² matmul's trace took 24 GB).
#[test]
fn huge_toml_inputs_and_traces_are_refused_naming_their_limit() {
    let big = write("huge_profile.toml", &format!("# {}\n", "x".repeat(5 << 20)));
    refused(
        &ptx2idg([
            "simulate".as_ref(),
            "ptx_samples/sm_90/axpy.ptx".as_ref(),
            "--gpu".as_ref(),
            big.as_os_str(),
        ]),
        "the limit of this kind of input",
    );
    let trace = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("pathological")
        .join("budget_trace.json");
    let _ = std::fs::remove_file(&trace);
    let record = |budget: &str| {
        ptx2idg([
            "simulate".as_ref(),
            "ptx_samples/rodinia/gaussian.ptx".as_ref(),
            "--kernel".as_ref(),
            "fan2".as_ref(),
            "--grid".as_ref(),
            "64,64".as_ref(),
            "--block".as_ref(),
            "8,8".as_ref(),
            "--param".as_ref(),
            "3=512".as_ref(),
            "--param".as_ref(),
            "4=0".as_ref(),
            "--profile".as_ref(),
            trace.as_os_str(),
            "--max-traced".as_ref(),
            budget.as_ref(),
        ])
    };
    refused(&record("1000"), "raise it with --max-traced N");
    assert!(!trace.exists(), "no trace is left behind");
    assert!(record("100000000").status.success());
    assert!(trace.exists());
}

/// A named pipe that no program opens for writing is an error after a bounded wait, not a
/// hang (`<(command)` is open before the tool starts and reads as a file).
#[cfg(unix)]
#[test]
fn a_named_pipe_nobody_writes_is_an_error_not_a_hang() {
    let fifo = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("pathological")
        .join("lonely.fifo");
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    refused(
        &ptx2idg(["check".as_ref(), fifo.as_os_str()]),
        "a named pipe that no program opened for writing",
    );
}
