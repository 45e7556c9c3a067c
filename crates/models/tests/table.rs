//! `models_table` end to end: a Table 2 GPU profile, the example kernel as a launch of many
//! one-warp groups, the analytical columns and the Pipeline simulation's column.

// Shared with the other test files; this one does not use every helper.
#[allow(dead_code)]
mod support;

use gpu::GpuProfile;
use idg::{KernelIdgs, WarpClass, SCHEMA_VERSION};
use models::{models_table, HwParams, KernelCharacterization, ModelKind, CSV_HEADER};
use support::*;

/// Table 2 as a profile file: a compute and a memory subsystem. The file format needs every
/// Table 5 row and a finite issue limit; 8 never binds for this kernel.
const TABLE2_PROFILE: &str = r#"
name = "table2"
architecture = "example"
vendor = "paper"
sm_count = 1
clock_mhz = 1000
issue_limit = 8
subsystems = [{ name = "comp" }, { name = "mem" }, { name = "sync" }]

[limits]
max_warps_per_sm = 64
max_blocks_per_sm = 64
max_threads_per_sm = 2048
registers_per_sm = 65536
shared_memory_per_sm = 65536
max_threads_per_block = 1024
max_shared_memory_per_block = 49152

[classes]
"sfu.cos"  = { subsystem = "comp", lambda = 1, latency = 4 }
"f32.mul"  = { subsystem = "comp", lambda = 1, latency = 4 }
"f64.mul"  = { subsystem = "comp", lambda = 1, latency = 4 }
"int.mul"  = { subsystem = "comp", lambda = 1, latency = 4 }
"f32.div"  = { subsystem = "comp", lambda = 1, latency = 4 }
"f64.div"  = { subsystem = "comp", lambda = 1, latency = 4 }
"int.div"  = { subsystem = "comp", lambda = 1, latency = 4 }
"bar.sync" = { subsystem = "sync", lambda = 1, latency = 4 }

[memory]
dram   = { lambda = 2, latency = 6 }
shared = { lambda = 2, latency = 6 }
"#;

fn launch(groups: u32) -> (KernelIdgs, Vec<gpu::ClassTiming>, GpuProfile) {
    let (idg, timing) = build(&example(), 1);
    let kernel = KernelIdgs {
        schema_version: SCHEMA_VERSION,
        kernel: "example".into(),
        grid: [groups, 1, 1],
        block: [32, 1, 1],
        warps_per_group: 1,
        groups_built: vec![0],
        classes: vec![WarpClass {
            warps: vec![0],
            idg,
        }],
        rotate_classes: false,
    };
    let gpu = GpuProfile::from_toml_str(TABLE2_PROFILE).unwrap();
    (kernel, vec![timing], gpu)
}

#[test]
fn table_columns_and_pipeline() {
    let (kernel, timings, gpu) = launch(480);
    let t = models_table(
        &kernel,
        &timings,
        &gpu,
        &sim::ModelConfig::validated(&gpu),
        None,
        1..=16,
    )
    .unwrap();
    assert_eq!(t.rows.len(), 16);
    let ch = KernelCharacterization::from_kernel(&kernel, &timings, gpu.issue_limit).unwrap();
    let hw = HwParams::from_profile(&ch, &gpu);
    for r in &t.rows {
        for k in ModelKind::ALL {
            assert_eq!(
                r.wpc(k),
                k.predict(&ch, &hw, r.occupancy_warps).unwrap().wpc
            );
        }
        // Volkov's occupancy roofline bounds the simulation from above (section 5.1).
        let p = r.pipeline.unwrap();
        assert!(
            p <= r.wpc(ModelKind::Volkov) * 1.001,
            "ω={} {p}",
            r.occupancy_warps
        );
    }
    // One warp alone: the simulation runs Λ_app = 25 cycles per warp.
    let one = t.rows[0].pipeline.unwrap();
    assert!((one - 1.0 / 25.0).abs() < 1e-3, "{one}");
    // Many warps: close to the roof of 1/4.
    assert!(t.rows[15].pipeline.unwrap() > 0.2);

    let csv = t.to_csv(sim::number::DEFAULT_DIGITS);
    assert!(csv.starts_with(&format!("{CSV_HEADER}\n")));
    assert_eq!(csv.lines().count(), 17);
    assert!(csv.lines().skip(1).all(|l| l.split(',').count() == 11));
    // The profile has no [unified_model]: the column is empty, never a number.
    assert!(csv.lines().skip(1).all(|l| l.ends_with(',')), "{csv}");
    assert!(t.rows.iter().all(|r| r.unified.is_none()));
    let e = t.unified.clone().unwrap_err();
    assert!(e.contains("[unified_model]"), "{e}");
    assert!(t
        .explain()
        .contains("no prediction: the GPU profile has no [unified_model]"));
    let svg = t.to_svg();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<path d=\"M").count(), 10);
}

#[test]
fn unified_column_is_flat() {
    let (kernel, timings, mut gpu) = launch(480);
    // One nanosecond per unit of every property.
    gpu.unified_model = Some(gpu::UnifiedModel {
        source: "test".into(),
        weights: models::unified::Property::all()
            .into_iter()
            .map(|p| (p.to_string(), 1e-9))
            .collect(),
    });
    let t = models::analytical_table(&kernel, &timings, &gpu, 1..=16).unwrap();
    let u = t.unified.clone().unwrap();
    assert!(u.wpc > 0.0 && u.wpc.is_finite());
    // 480 one-warp groups on one SM at 1000 MHz: WPC = 480 / (T · 1e9).
    assert!((u.wpc - 480.0 / (u.seconds * 1e9)).abs() <= 1e-9 * u.wpc);
    assert!(t.rows.iter().all(|r| r.wpc(ModelKind::Unified) == u.wpc));
    let csv = t.to_csv(sim::number::DEFAULT_DIGITS);
    let last: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap())
        .collect();
    assert!(last.iter().all(|v| !v.is_empty() && *v == last[0]), "{csv}");
    assert!(t.explain().contains("at every occupancy"));
    // One line more than without the weights.
    gpu.unified_model = None;
    let without = models::analytical_table(&kernel, &timings, &gpu, 1..=16).unwrap();
    let paths = |t: &models::Table| t.to_svg().matches("<path d=\"M").count();
    assert_eq!(paths(&t), paths(&without) + 1);
}

#[test]
fn snapshots() {
    let (kernel, timings, gpu) = launch(480);
    let t = models_table(
        &kernel,
        &timings,
        &gpu,
        &sim::ModelConfig::validated(&gpu),
        None,
        1..=12,
    )
    .unwrap();
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../snapshots/models"
    ));
    s.set_prepend_module_to_snapshot(false);
    s.bind(|| {
        insta::assert_snapshot!("example_table2_csv", t.to_csv(sim::number::DEFAULT_DIGITS));
        insta::assert_snapshot!("example_table2_explain", t.explain());
    });
}

#[test]
fn occupancy_rows_are_whole_groups() {
    let (mut kernel, timings, gpu) = launch(64);
    kernel.warps_per_group = 4;
    kernel.block = [128, 1, 1];
    kernel.classes[0].warps = vec![0, 1, 2, 3];
    let t = models_table(
        &kernel,
        &timings,
        &gpu,
        &sim::ModelConfig::validated(&gpu),
        None,
        2..=17,
    )
    .unwrap();
    let omegas: Vec<u32> = t.rows.iter().map(|r| r.occupancy_warps).collect();
    assert_eq!(omegas, [4, 8, 12, 16]);
    assert!(t.rows.iter().all(|r| r.pipeline.is_some()));
    assert!(models_table(
        &kernel,
        &timings,
        &gpu,
        &sim::ModelConfig::validated(&gpu),
        None,
        1..=3
    )
    .is_err());
}
