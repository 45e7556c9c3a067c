//! Bundled profiles: every one resolves, and Tables 4 and 5 of pipeline-model-analysis survive
//! the round trip through the files exactly.

use gpu::{bundled_names, Cycles, GpuProfile, InstClass, MemLevel, Origin};

fn c(v: f64) -> Cycles {
    assert!(Cycles::is_exact_f64(v));
    Cycles::from_f64(v).unwrap()
}

/// Table 5, row by row: (class or memory level, [(λ, Λ) per GPU]); `None` is "- / -".
type Row = (&'static str, [Option<(f64, f64)>; 6]);
const GPUS: [&str; 6] = [
    "fermi-c2050",
    "kepler-gtx650ti",
    "maxwell-k620",
    "pascal-gtx1060",
    "turing-rtx2070",
    "tonga-r9-380",
];
#[rustfmt::skip]
const TABLE5: [Row; 10] = [
    ("sfu.cos", [Some((8.0, 40.0)), Some((1.0, 18.0)), Some((1.0, 15.0)), Some((1.0, 15.0)), Some((2.0, 21.0)), Some((5.0, 24.0))]),
    ("f32.mul", [Some((1.0, 18.0)), Some((0.25, 9.0)), Some((0.375, 6.0)), Some((0.25, 6.0)), Some((0.5, 4.0)), Some((1.0, 5.25))]),
    ("f64.mul", [Some((2.0, 22.0)), Some((4.0, 22.0)), Some((7.5, 42.0)), Some((8.0, 43.0)), Some((19.0, 45.0)), Some((8.0, 76.0))]),
    ("int.mul", [Some((2.0, 18.0)), Some((0.5, 5.0)), Some((0.875, 12.5)), Some((0.75, 12.0)), Some((0.25, 2.0)), Some((1.0, 5.25))]),
    ("f32.div", [Some((3.0, 45.0)), Some((0.75, 28.5)), Some((1.125, 20.0)), Some((0.75, 18.0)), Some((1.5, 12.5)), Some((2.25, 14.0))]),
    ("f64.div", [Some((19.0, 253.0)), Some((26.0, 260.0)), Some((47.0, 376.0)), Some((47.0, 376.0)), None, Some((155.0, 740.0))]),
    ("int.div", [Some((20.0, 200.0)), Some((3.0, 96.0)), Some((7.0, 105.0)), Some((5.0, 100.0)), Some((5.0, 65.0)), Some((24.0, 192.0))]),
    ("bar.sync", [Some((2.0, 40.0)), Some((0.75, 24.0)), Some((4.5, 125.0)), Some((2.25, 70.0)), Some((1.5, 17.0)), Some((7.5, 150.0))]),
    ("dram", [Some((23.0, 475.0)), Some((7.5, 300.0)), Some((18.0, 440.0)), Some((12.0, 345.0)), Some((18.0, 450.0)), Some((42.0, 136.0))]),
    ("shared", [Some((2.0, 28.0)), Some((1.0, 28.0)), Some((1.0, 28.0)), Some((1.0, 25.0)), Some((2.0, 32.0)), Some((2.0, 60.0))]),
];

/// Table 4: λ_ALU, λ_SFU, IL.
const TABLE4: [(f64, f64, f64); 6] = [
    (1.0, 8.0, 1.0),
    (0.25, 1.0, 4.0),
    (0.25, 1.0, 4.0),
    (0.25, 1.0, 4.0),
    (0.5, 2.0, 2.0),
    (1.0, 5.0, 1.0),
];

#[test]
fn every_bundled_profile_resolves() {
    assert_eq!(bundled_names().len(), 8);
    for name in bundled_names() {
        let p = GpuProfile::bundled(name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.name, name);
        for &cl in InstClass::ALL {
            let cp = p.class(cl);
            assert!(cp.subsystem.index() < p.subsystems.len());
            // A measured λ of 0 is legal (the H100's `mov` compiles away); the Table 5
            // classes never are.
            if cl.rule() == gpu::Rule::Required {
                assert!(cp.lambda > Cycles::ZERO, "{name} {cl}");
            }
        }
    }
    assert_eq!(GpuProfile::bundled("h100").unwrap().name, "hopper-h100");
    assert_eq!(GpuProfile::bundled("h200").unwrap().name, "hopper-h200");
    assert!(GpuProfile::bundled("nope").is_err());
}

#[test]
fn table5_round_trips_exactly() {
    for (row, per_gpu) in TABLE5 {
        for (gpu, v) in GPUS.iter().zip(per_gpu) {
            let p = GpuProfile::bundled(gpu).unwrap();
            let (got, origin) = match InstClass::from_name(row) {
                Some(cl) => {
                    let cp = p.class(cl);
                    ((cp.lambda, cp.latency), cp.origin)
                }
                None => {
                    let m = p.mem(MemLevel::from_name(row).unwrap());
                    ((m.lambda, m.latency), m.origin)
                }
            };
            match v {
                Some((l, ll)) => {
                    assert_eq!(got, (c(l), c(ll)), "{gpu} {row}");
                    assert_eq!(origin, Origin::File, "{gpu} {row}");
                }
                None => assert_eq!(origin, Origin::Rule, "{gpu} {row}"),
            }
        }
    }
}

#[test]
fn table4_round_trips_exactly() {
    for (gpu, (alu, sfu, il)) in GPUS.iter().zip(TABLE4) {
        let p = GpuProfile::bundled(gpu).unwrap();
        let alu_id = p.subsystem_id("alu").unwrap();
        assert_eq!(p.subsystem(alu_id).nominal_lambda, Some(c(alu)), "{gpu}");
        assert_eq!(p.class(InstClass::SfuCos).lambda, c(sfu), "{gpu}");
        if let Some(sfu_id) = p.subsystem_id("sfu") {
            assert_eq!(p.subsystem(sfu_id).nominal_lambda, Some(c(sfu)), "{gpu}");
        }
        assert_eq!(p.issue_limit, il, "{gpu}");
        assert_eq!(p.issue_interval(), c(1.0 / il), "{gpu}");
    }
    // §4.2: Tonga runs ALU and SFU instructions on one subsystem.
    let t = GpuProfile::bundled("tonga-r9-380").unwrap();
    assert_eq!(
        t.class(InstClass::SfuCos).subsystem,
        t.class(InstClass::F32Mul).subsystem
    );
}

/// docs/gpu-profile.md documents exactly the classes and rules of the code: its taxonomy
/// table names every class once, and its rules table names every class that has a rule.
#[test]
fn the_doc_lists_every_class_and_rule() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/gpu-profile.md"
    ))
    .unwrap();
    let section = |start: &str, end: &str| {
        let i = doc.find(start).unwrap_or_else(|| panic!("no {start}"));
        let j = doc[i..].find(end).map_or(doc.len(), |j| i + j);
        doc[i..j].to_string()
    };
    let first_cells = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("| `"))
            .flat_map(|l| {
                let cell = l.split('|').nth(1).unwrap_or("");
                cell.split(',')
                    .filter_map(|c| c.trim().split('`').nth(1).map(str::to_string))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let taxonomy = first_cells(&section("## Instruction-class taxonomy", "Memory levels:"));
    let names: Vec<&str> = InstClass::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(taxonomy, names, "taxonomy table out of date");
    let rules = first_cells(&section("## Derivation rules", "| memory level |"));
    let mut with_rule: Vec<&str> = InstClass::ALL
        .iter()
        .filter(|c| c.rule() != gpu::Rule::Required)
        .map(|c| c.name())
        .collect();
    let mut documented: Vec<&str> = rules.iter().map(String::as_str).collect();
    with_rule.sort_unstable();
    documented.sort_unstable();
    assert_eq!(documented, with_rule, "rules table out of date");
}

/// The resolved paper profiles, derived classes included: a review aid for the rules, and a
/// guard against a rule changing silently.
#[test]
fn resolved_paper_profiles() {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../../snapshots/gpu"));
    s.set_prepend_module_to_snapshot(false);
    for gpu_name in GPUS {
        let p = GpuProfile::bundled(gpu_name).unwrap();
        let mut out = String::new();
        for &c in InstClass::ALL {
            let cp = p.class(c);
            out.push_str(&format!(
                "{:<12} {:<5} {:>9} {:>9} {:?}\n",
                c.name(),
                p.subsystem(cp.subsystem).name,
                cp.lambda.to_string(),
                cp.latency.to_string(),
                cp.origin
            ));
        }
        for &m in MemLevel::ALL {
            let mp = p.mem(m);
            out.push_str(&format!(
                "{:<12} {:<5} {:>9} {:>9} {:?}\n",
                m.name(),
                "",
                mp.lambda.to_string(),
                mp.latency.to_string(),
                mp.origin
            ));
        }
        s.bind(|| insta::assert_snapshot!(format!("profile__{gpu_name}"), out));
    }
}

#[test]
fn bandwidth_is_measured_on_the_hoppers_and_datasheet_elsewhere() {
    for name in gpu::bundled_names() {
        let p = gpu::GpuProfile::bundled(name).unwrap();
        let bw = p
            .bandwidth
            .unwrap_or_else(|| panic!("{name} has no [bandwidth]"));
        let measured = name.starts_with("hopper-");
        let want = if measured {
            gpu::BandwidthSource::Measured
        } else {
            gpu::BandwidthSource::Datasheet
        };
        assert_eq!(bw.source, want, "{name}");
        assert_eq!(bw.l2.is_some(), measured, "{name}");
        if measured {
            assert!(p.launch.overhead_us > 1.0 && p.launch.overhead_us < 10.0);
        }
    }
    // HBM3e: the H200 streams from DRAM about 1.4 times as fast as the H100's HBM3.
    let [h100, h200] = ["h100", "h200"].map(|n| gpu::GpuProfile::bundled(n).unwrap());
    let ratio = h200.bandwidth.unwrap().dram.read / h100.bandwidth.unwrap().dram.read;
    assert!((1.3..1.6).contains(&ratio), "{ratio}");
}

#[test]
fn mixed_bandwidth_is_linear_through_the_three_mixes() {
    let b = gpu::MixedBandwidth {
        read: 100.0,
        write: 200.0,
        mixed: 120.0,
    };
    assert_eq!(b.at(1.0), 100.0);
    assert_eq!(b.at(0.0), 200.0);
    assert_eq!(b.at(0.5), 120.0);
    assert_eq!(b.at(0.75), 110.0);
    assert_eq!(b.at(0.25), 160.0);
    assert_eq!(b.at(7.0), 100.0, "clamped");
}

#[test]
fn l2_bandwidth_needs_all_three_mixes() {
    let base = include_str!("../profiles/pascal-gtx1060.toml");
    let err = gpu::GpuProfile::from_toml_str(&format!("{base}l2_read = 5.0\n"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("l2_mixed"), "{err}");
}
