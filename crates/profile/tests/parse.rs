//! Each accepted format on its fixture, unit normalisation, invocation selection, name
//! matching, and every error path with its message (snapshots under snapshots/profile).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use profile::{
    load, names, parse, units, Format, Invocation, LoopRef, Profile, ProfileError, Quantity, Unit,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn load_fixture(name: &str) -> Profile {
    match load(&fixture(name)) {
        Ok(p) => p,
        Err(e) => panic!("{name}: {e}"),
    }
}

fn snapshot_settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../snapshots/profile"
    ));
    s.set_prepend_module_to_snapshot(false);
    s
}

/// A stable text rendering of a profile, with the fixture's directory stripped.
fn render(p: &Profile) -> String {
    let mut out = String::new();
    let origin = p.origin.rsplit('/').next().unwrap_or(&p.origin);
    let _ = writeln!(out, "{origin}: {:?}", p.format);
    for k in &p.kernels {
        let _ = writeln!(out, "kernel {} (mangled: {:?})", k.name, k.mangled);
        for (i, l) in k.launches.iter().enumerate() {
            let _ = writeln!(
                out,
                "  launch {i} id={:?} aggregated={:?} grid={:?} block={:?}",
                l.id, l.aggregated, l.grid, l.block
            );
            for (name, m) in &l.metrics {
                let _ = writeln!(
                    out,
                    "    {name} = {} [{}] min={:?} max={:?} (row {})",
                    m.value,
                    m.unit.label(),
                    m.min,
                    m.max,
                    m.row
                );
            }
            for q in Quantity::ALL {
                if let Some(m) = l.quantity(q) {
                    let _ = writeln!(out, "    => {q:?} = {} from {}", m.value, m.from);
                }
            }
        }
    }
    for t in &p.trips {
        let _ = writeln!(out, "trips {:?}", t);
    }
    out
}

fn err(text: &str) -> String {
    match parse(text, "in.csv") {
        Ok(p) => panic!("expected an error, parsed {p:?}"),
        Err(e) => e.to_string(),
    }
}

// ---------------------------------------------------------------- formats

#[test]
fn nvprof_summary_metrics_and_events() {
    let p = load_fixture("nvprof_metrics_handwritten.csv");
    assert_eq!(p.format, Format::NvprofSummary);
    assert_eq!(p.kernels.len(), 2);
    let l = p.launch("_Z5saxpyifPKfPf", Invocation::Median).unwrap();
    assert_eq!(l.aggregated, Some(3));
    assert_eq!(l.warp_insts_per_warp(), Some(14.0));
    let dram = l.quantity(Quantity::DramBytes).unwrap();
    assert_eq!(dram.value, (262230.0 + 131080.0) * 32.0);
    assert_eq!(
        l.quantity(Quantity::GlobalLoadBytes).unwrap().value,
        262144.0 * 32.0
    );
    let thr = l.get("gld_requested_throughput").unwrap();
    assert_eq!((thr.value, &thr.unit), (121.70e9, &Unit::BytePerSecond));
    assert_eq!(thr.min, Some(120.51e9));
    assert_eq!(l.quantity(Quantity::BranchEfficiency).unwrap().value, 100.0);
    assert_eq!(l.get("dram_utilization").unwrap().value, 8.0);
    let m = p
        .launch("_Z7mmul_08PfPKfS1_ii", Invocation::Median)
        .unwrap();
    assert_eq!(
        m.quantity(Quantity::SharedLoadBankConflicts).unwrap().value,
        1024.0
    );
    assert_eq!(
        m.quantity(Quantity::SharedLoadTransactionsPerRequest)
            .unwrap()
            .value,
        1.0
    );
    snapshot_settings().bind(|| insta::assert_snapshot!("nvprof_summary", render(&p)));
}

#[test]
fn nvprof_gpu_trace() {
    let p = load_fixture("nvprof_trace_handwritten.csv");
    assert_eq!(p.format, Format::NvprofTrace);
    // Copies are not kernels; the correlation suffix ` [121]` is not part of the name.
    let names: Vec<&str> = p.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "saxpy(int, float, float const *, float*)",
            "long_loop_param(float*, float, float, int)"
        ]
    );
    let k = p.kernel("_Z5saxpyifPKfPf").unwrap();
    let d = |inv| {
        k.launch(inv)
            .unwrap()
            .quantity(Quantity::Duration)
            .unwrap()
            .value
    };
    assert_eq!(d(Invocation::Index(0)), 41250.0);
    assert_eq!(d(Invocation::Index(1)), 39875.0);
    assert_eq!(d(Invocation::Median), 40500.0);
    assert_eq!(k.launches[0].grid, Some([4096, 1, 1]));
    assert_eq!(k.launches[0].block, Some([256, 1, 1]));
    assert_eq!(k.launches[2].id.as_deref(), Some("127"));
    snapshot_settings().bind(|| insta::assert_snapshot!("nvprof_trace", render(&p)));
}

#[test]
fn ncu_raw_page_with_units_row_and_separators() {
    let p = load_fixture("ncu_raw_handwritten.csv");
    assert_eq!(p.format, Format::NcuRaw);
    // Nsight Compute's `const float *` style against the mangled name.
    let k = p.kernel("_Z5saxpyifPKfPf").unwrap();
    assert_eq!(k.launches.len(), 3);
    let l = k.launch(Invocation::Median).unwrap();
    assert_eq!(l.id.as_deref(), Some("2"));
    assert_eq!(l.get("gpu__time_duration.sum").unwrap().value, 12010.0);
    assert_eq!(l.get("smsp__inst_executed.sum").unwrap().value, 458752.0);
    assert_eq!(l.quantity(Quantity::DramReadBytes).unwrap().value, 8.39e6);
    assert_eq!(l.warp_insts_per_warp(), Some(14.0));
    assert_eq!(
        l.get("launch__registers_per_thread").unwrap().unit,
        Unit::Other("register/thread".into())
    );
    snapshot_settings().bind(|| insta::assert_snapshot!("ncu_raw", render(&p)));
}

#[test]
fn ncu_long_form_real_h100() {
    // Nsight Compute 2025.3 on an H100, first three launches of hotspot_2d (Rodinia set).
    let p = load_fixture("ncu_long_hotspot.csv");
    assert_eq!(p.format, Format::NcuLong);
    let k = p.kernel("_Z10hotspot_2diPKfS0_Pfiiiifffff").unwrap();
    assert_eq!(k.launches.len(), 3);
    let l = k.launch(Invocation::Index(0)).unwrap();
    assert_eq!(l.get("dram__bytes_read.sum").unwrap().value, 134_310_400.0);
    assert_eq!(l.grid, Some([342, 342, 1]));
    assert_eq!(l.block, Some([16, 16, 1]));
    assert!(l.warp_insts_per_warp().is_some());
    assert!(l.quantity(Quantity::Cycles).is_some());
    snapshot_settings().bind(|| insta::assert_snapshot!("ncu_long_hotspot", render(&p)));
}

/// Every Nsight Compute CSV measured for the Rodinia set parses and matches its PTX entry.
#[test]
fn all_rodinia_ncu_csvs_parse_and_match() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ptx_samples/rodinia");
    let ptx: String = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "ptx"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    let entries: Vec<&str> = ptx
        .lines()
        .filter_map(|l| l.strip_prefix(".visible .entry "))
        .map(|l| l.trim_end_matches('('))
        .collect();
    let dir = root.join("data/ncu");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let p = load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.format, Format::NcuLong);
        for k in &p.kernels {
            let hits: Vec<&&str> = entries
                .iter()
                .filter(|m| profile::matches(&k.name, m))
                .collect();
            assert_eq!(hits.len(), 1, "{} in {}: {hits:?}", k.name, path.display());
            let l = k.launch(Invocation::Median).unwrap();
            assert!(l.warp_insts_per_warp().unwrap() > 0.0);
        }
        n += 1;
    }
    assert!(n >= 10, "expected the Rodinia ncu CSVs, found {n}");
}

#[test]
fn trips_table() {
    let p = load_fixture("trips.csv");
    assert_eq!(p.format, Format::TripsTable);
    assert_eq!(p.trips.len(), 2);
    assert_eq!(p.trips[0].loop_ref, LoopRef::Label("$L__BB0_2".into()));
    assert_eq!(p.trips[0].trips, 1_000_000);
    assert_eq!(p.trips[0].row, 3);
    assert_eq!(p.trips[1].loop_ref, LoopRef::Line(24));
    assert_eq!(p.trips[1].kernel, "long_loop_const");
}

#[test]
fn nvprof_time_and_byte_units_scale() {
    let text = "\"Start\",\"Duration\",\"Name\"\nms,ms,\n1.0,1.5,\"k(int) [3]\"\n";
    let p = parse(text, "t.csv").unwrap();
    assert_eq!(
        p.kernels[0].launches[0]
            .quantity(Quantity::Duration)
            .unwrap()
            .value,
        1.5e6
    );
}

#[test]
fn ncu_kbyte_is_normalised_to_bytes() {
    let text = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\
                \"0\",\"k(int)\",\"dram__bytes_read.sum\",\"Kbyte\",\"1.5\"\n\
                \"0\",\"k(int)\",\"dram__bytes_write.sum\",\"Gbyte\",\"2\"\n";
    let p = parse(text, "t.csv").unwrap();
    let l = &p.kernels[0].launches[0];
    assert_eq!(l.quantity(Quantity::DramBytes).unwrap().value, 1500.0 + 2e9);
    assert_eq!(l.get("dram__bytes_read.sum").unwrap().unit, Unit::Byte);
}

#[test]
fn ncu_na_values_are_absent_not_zero() {
    let text = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\
                \"0\",\"k(int)\",\"sm__cycles_elapsed.max\",\"cycle\",\"n/a\"\n\
                \"0\",\"k(int)\",\"device__attribute_display_name\",\"\",\"NVIDIA H100\"\n";
    let p = parse(text, "t.csv").unwrap();
    let l = &p.kernels[0].launches[0];
    assert!(l.quantity(Quantity::Cycles).is_none());
    assert!(l.metrics.is_empty());
}

// ---------------------------------------------------------------- numbers and names

#[test]
fn numbers_with_thousands_separators() {
    assert_eq!(units::parse_number("1,234,567"), Some(1234567.0));
    assert_eq!(units::parse_number("-1,234.5"), Some(-1234.5));
    assert_eq!(units::parse_number("12.5"), Some(12.5));
    assert_eq!(units::parse_number("1,23"), None);
    assert_eq!(units::parse_number("1,2345"), None);
    assert_eq!(units::parse_number(",123"), None);
    assert_eq!(units::parse_number("inf"), None);
    assert_eq!(units::split_value_suffix("12.5GB/s"), Some((12.5, "GB/s")));
    assert_eq!(units::split_value_suffix("95.10%"), Some((95.1, "%")));
    assert_eq!(units::split_value_suffix("Low (2)"), Some((2.0, "")));
    assert_eq!(units::split_value_suffix("1.5e3"), Some((1500.0, "")));
}

#[test]
fn units_normalise() {
    assert_eq!(units::parse_unit("Mbyte"), (Unit::Byte, 1e6));
    assert_eq!(units::parse_unit("KB"), (Unit::Byte, 1024.0));
    assert_eq!(units::parse_unit("usecond"), (Unit::Nanosecond, 1e3));
    assert_eq!(units::parse_unit("Kcycle"), (Unit::Cycle, 1e3));
    assert_eq!(units::parse_unit("GB/s"), (Unit::BytePerSecond, 1e9));
    assert_eq!(units::parse_unit("branches"), (Unit::Branch, 1.0));
    assert_eq!(units::parse_unit(""), (Unit::Count, 1.0));
}

#[test]
fn demangled_names_match() {
    let m = "_Z5saxpyifPKfPf";
    assert!(profile::matches(
        "saxpy(int, float, float const*, float*)",
        m
    ));
    assert!(profile::matches(
        "saxpy(int, float, float const *, float*)",
        m
    ));
    assert!(profile::matches(
        "saxpy(int, float, const float *, float *)",
        m
    ));
    assert!(profile::matches("saxpy", m));
    assert!(profile::matches(m, m));
    assert_eq!(
        profile::match_name("saxpy(int, float, const float *, float *)", m),
        Some(profile::NameMatch::Full)
    );
    assert_eq!(
        profile::match_name("saxpy(int, double)", m),
        Some(profile::NameMatch::BaseName)
    );
    assert!(!profile::matches(
        "saxpy_v2(int, float, float const*, float*)",
        m
    ));
    // Templates, with and without the return type nvprof prints.
    let t = "_Z8inst_mixILi4EEvPfffi";
    assert!(profile::matches(
        "void inst_mix<4>(float*, float, float, int)",
        t
    ));
    assert_eq!(
        profile::match_name("inst_mix<4>(float *, float, float, int)", t),
        Some(profile::NameMatch::Full)
    );
    assert_eq!(names::base_name("void ns::k<int>(int const*)"), "k");
    // Chart titles: the bare name of a mangled kernel, any other name as it is.
    assert_eq!(names::readable("_Z13gaussian_fan2PfS_PKfii"), "gaussian_fan2");
    assert_eq!(names::readable("triton_poi_fused_0"), "triton_poi_fused_0");
    assert_eq!(
        names::canonical("const unsigned int * volatile"),
        "unsigned int const*volatile"
    );
}

#[test]
fn ambiguous_and_missing_kernels() {
    let text = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\
                \"0\",\"foo(int)\",\"smsp__inst_executed.sum\",\"inst\",\"10\"\n\
                \"1\",\"foo(float)\",\"smsp__inst_executed.sum\",\"inst\",\"10\"\n";
    let p = parse(text, "two.csv").unwrap();
    assert_eq!(p.kernel("_Z3fooi").unwrap().name, "foo(int)");
    let amb = p.kernel("_Z3food").unwrap_err().to_string();
    let none = p.kernel("_Z3barv").unwrap_err().to_string();
    let inv = p
        .launch("_Z3fooi", Invocation::Index(4))
        .unwrap_err()
        .to_string();
    let wipw = p
        .warp_insts_per_warp("_Z3fooi", Invocation::Median)
        .unwrap_err()
        .to_string();
    let dram = p
        .require("_Z3fooi", Invocation::Median, Quantity::DramBytes)
        .unwrap_err()
        .to_string();
    let insts = p.require("_Z3fooi", Invocation::Median, Quantity::WarpInstsExecuted);
    assert_eq!(insts.unwrap().value, 10.0);
    snapshot_settings().bind(|| {
        insta::assert_snapshot!(
            "kernel_errors",
            format!("{amb}\n{none}\n{inv}\n{wipw}\n{dram}")
        )
    });
}

// ---------------------------------------------------------------- errors

#[test]
fn error_messages() {
    let ncu_head = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
    let cases: Vec<(&str, String)> = vec![
        ("empty", err("")),
        ("only chatter", err("==123== NVPROF is profiling process 123\n")),
        ("unknown format", err("a,b,c\n1,2,3\n")),
        (
            "ncu long without Metric Value",
            err("\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\"\n\"0\",\"k\",\"x\",\"\"\n"),
        ),
        (
            "ncu raw without Kernel Name column",
            err("\"ID\",\"Process ID\",\"Kernel\",\"Grid Size\"\n"),
        ),
        (
            "nvprof summary without Avg",
            err("\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Min\",\"Max\"\n"),
        ),
        (
            "unexpected unit",
            err(&format!(
                "{ncu_head}\"0\",\"k(int)\",\"dram__bytes_read.sum\",\"cycle\",\"5\"\n"
            )),
        ),
        (
            "unexpected unit (unknown unit)",
            err(&format!(
                "{ncu_head}\"0\",\"k(int)\",\"gpu__time_duration.sum\",\"fortnight\",\"5\"\n"
            )),
        ),
        (
            "unexpected unit nvprof suffix",
            err("\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\",\"Max\",\"Avg\"\n\
                 \"D\",\"k(int)\",1,\"branch_efficiency\",\"Branch Efficiency\",1.0GB/s,1.0GB/s,1.0GB/s\n"),
        ),
        (
            "malformed number",
            err(&format!(
                "{ncu_head}\"0\",\"k(int)\",\"smsp__inst_executed.sum\",\"inst\",\"12x4\"\n"
            )),
        ),
        (
            "malformed thousands separators",
            err(&format!(
                "{ncu_head}\"0\",\"k(int)\",\"smsp__inst_executed.sum\",\"inst\",\"1,23\"\n"
            )),
        ),
        (
            "malformed invocations",
            err("\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\",\"Max\",\"Avg\"\n\
                 \"D\",\"k(int)\",two,\"inst_executed\",\"I\",1,1,1\n"),
        ),
        (
            "short row",
            err(&format!("{ncu_head}\"0\",\"k(int)\",\"smsp__inst_executed.sum\"\n")),
        ),
        (
            "bad launch dimensions",
            err("\"ID\",\"Kernel Name\",\"Grid Size\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\
                 \"0\",\"k\",\"(4, x, 1)\",\"smsp__inst_executed.sum\",\"inst\",\"1\"\n"),
        ),
        (
            "raw page units row unit mismatch",
            err("\"ID\",\"Kernel Name\",\"sm__warps_launched.sum\"\n\"\",\"\",\"byte\"\n\"0\",\"k\",\"5\"\n"),
        ),
        (
            "trace grid not a number",
            err("\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Name\"\nms,us,,,,\n1,2,4,x,1,\"k [1]\"\n"),
        ),
        ("trips wrong column count", err("kernel,loop,trips\nk,$L__BB0_1\n")),
        ("trips bad line", err("kernel,loop,trips\nk,line:abc,3\n")),
        ("trips empty loop", err("kernel,loop,trips\nk,,3\n")),
        ("trips negative", err("kernel,loop,trips\nk,$L__BB0_1,-3\n")),
        ("trips fractional", err("kernel,loop,trips\nk,$L__BB0_1,2.5\n")),
        ("trips empty kernel", err("kernel,loop,trips\n,$L__BB0_1,2\n")),
        ("csv quoting", err("kernel,loop,trips\n\"k,$L__BB0_1,2\n")),
    ];
    let mut out = String::new();
    for (what, msg) in cases {
        let _ = writeln!(out, "{what}:\n  {msg}");
    }
    snapshot_settings().bind(|| insta::assert_snapshot!("error_messages", out));
}

#[test]
fn missing_file_is_an_io_error() {
    let e = load(Path::new("no/such/file.csv")).unwrap_err();
    assert!(matches!(e, ProfileError::Io { .. }));
    assert!(e.to_string().starts_with("no/such/file.csv: cannot read"));
}

/// Every fixture read with a filter: the kept kernels are those of the full read that pass
/// it, identical; the others are listed as skipped with their row counts.
#[test]
fn filtered_reads_keep_exactly_the_matching_kernels() {
    for name in [
        "ncu_long_hotspot.csv",
        "ncu_raw_handwritten.csv",
        "nvprof_metrics_handwritten.csv",
        "nvprof_trace_handwritten.csv",
        "trips.csv",
    ] {
        let full = load_fixture(name);
        let first = full
            .kernels
            .first()
            .map(|k| k.name.clone())
            .or_else(|| full.trips.first().map(|r| r.kernel.clone()))
            .expect("fixture has a kernel");
        let kept = profile::load_filtered(&fixture(name), &mut |n| n.trim() == first).expect(name);
        assert_eq!(
            kept.kernels,
            full.kernels
                .iter()
                .filter(|k| k.name == first)
                .cloned()
                .collect::<Vec<_>>(),
            "{name}"
        );
        assert_eq!(
            kept.trips,
            full.trips
                .iter()
                .filter(|r| r.kernel == first)
                .cloned()
                .collect::<Vec<_>>(),
            "{name}"
        );
        let others = full.kernels.iter().filter(|k| k.name != first).count()
            + full
                .trips
                .iter()
                .filter(|r| r.kernel != first)
                .map(|r| &r.kernel)
                .collect::<std::collections::BTreeSet<_>>()
                .len();
        assert_eq!(kept.skipped.len(), others, "{name}");
        assert!(kept.skipped.iter().all(|s| s.rows > 0 && s.first_row > 0));
    }
}

#[test]
fn a_filtered_read_checks_the_rows_it_skips() {
    let dir = std::env::temp_dir().join(format!("profile-filter-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.csv");
    std::fs::write(&p, "kernel,loop,trips\nk,L1,3\nother,L2,x\n").unwrap();
    let e = profile::load_filtered(&p, &mut |n| n == "k").unwrap_err();
    assert!(e.to_string().contains("row 3"), "{e}");
}

#[test]
fn a_stream_without_line_breaks_is_refused() {
    let text = "0".repeat(3 << 20);
    let e = parse(&text, "zeros").unwrap_err();
    assert!(e.to_string().contains("a line longer than"), "{e}");
}

/// Two exports concatenated: the same metric of the same launch with another value is an
/// error naming both rows (the later value won silently); the same value again is harmless.
#[test]
fn a_launch_metric_given_twice_with_two_values_is_an_error() {
    let text = std::fs::read_to_string(fixture("ncu_long_hotspot.csv")).unwrap();
    let mut lines = text.lines();
    let head = lines.next().unwrap();
    let first = lines.next().unwrap();
    let again = first.replace("\"134,310,400\"", "\"999\"");
    let e = err(&format!("{head}\n{first}\n{again}\n"));
    assert!(
        e.contains("metric `dram__bytes_read.sum` of launch ID 0 again, 999 where row 2 gave"),
        "{e}"
    );
    assert!(e.starts_with("in.csv: row 3"), "{e}");
    assert!(parse(&format!("{head}\n{first}\n{first}\n"), "in.csv").is_ok());
}
