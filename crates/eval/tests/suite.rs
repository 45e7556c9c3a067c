//! The committed Rodinia suite loads, and every kernel goes through the IDG front end and the
//! Pipeline simulation with a fixed toy timing backend (the real mappers are tested in `gpu`).

use std::path::PathBuf;

use eval::predict::{build_graphs, Backend, IdgPredictor, Timed, Variant};
use eval::{MeasuredPoint, Model};
use idg::{Category, KernelIdgs, MemSpace};
use sim::{Hardware, NodeCost};

fn h100() -> gpu::GpuProfile {
    gpu::GpuProfile::bundled("hopper-h100").unwrap()
}

fn suite_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../ptx_samples/rodinia"
    ))
}

#[test]
fn committed_suite_loads_with_every_point_matched() {
    let s = eval::load(&suite_dir(), &[]).unwrap();
    assert_eq!(s.sm_count, 132);
    assert_eq!(s.clock_mhz, 1980.0);
    assert_eq!(s.kernels.len(), 15);
    let fan2 = &s.kernels[0];
    assert_eq!(fan2.spec.id, "gaussian_fan2");
    assert_eq!(fan2.points.len(), 32);
    assert_eq!(fan2.points[0].median_us, 1297.696);
    assert_eq!(
        fan2.launch_params(),
        vec![("3".to_string(), 4096.into()), ("4".to_string(), 0.into())]
    );
    for k in &s.kernels {
        assert_eq!(
            k.points.last().unwrap().blocks_per_sm,
            k.spec.max_blocks_per_sm
        );
        for p in &k.points {
            assert!(p.ncu.warp_insts_per_warp().unwrap() > 1.0, "{}", k.spec.id);
        }
    }
    // Measured WPC at the first point of Fan2: 1986 blocks of 2 warps per SM.
    let wpc = eval::real_wpc(fan2, 132, 1980.0);
    assert!((wpc[0] - 3972.0 / (1297.696 * 1980.0)).abs() < 1e-12);
}

/// The corpus suite (bench/corpus_suite) loads with every point matched to its own ncu launch,
/// and every kernel names its family (the optional manifest key); the Rodinia suite, which has
/// no such key, loads with none.
#[test]
fn corpus_suite_loads_with_families() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bench/corpus_suite"
    ));
    let s = eval::load(&dir, &[]).unwrap();
    assert_eq!(s.kernels.len(), 87);
    assert_eq!(s.clock_mhz, 1980.0);
    let mut families = std::collections::BTreeSet::new();
    for k in &s.kernels {
        let family = k
            .spec
            .family
            .as_deref()
            .unwrap_or_else(|| panic!("{}", k.spec.id));
        families.insert(family.to_string());
        assert_eq!(
            k.points.len() as u32,
            k.spec.max_blocks_per_sm,
            "{}",
            k.spec.id
        );
        for p in &k.points {
            assert!(p.ncu.warp_insts_per_warp().unwrap() > 1.0, "{}", k.spec.id);
        }
    }
    assert_eq!(families.len(), 17);
    assert!(families.contains("stream") && families.contains("gather"));
    let rodinia = eval::load(&suite_dir(), &["gaussian_fan2".to_string()]).unwrap();
    assert_eq!(rodinia.kernels[0].spec.family, None);
}

/// Each bundled suite's `suite-h200.toml` (the same kernels measured on an H200, data under
/// h200/) loads from the manifest file: the same kernels and PTX as `suite.toml`, every point
/// matched to its own H200 launch, other times; and a manifest's paths still may not leave
/// the folder.
#[test]
fn another_gpus_manifest_loads_the_same_kernels() {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    for dir in [
        "ptx_samples/rodinia",
        "ptx_samples/heldout",
        "bench/corpus_suite",
    ] {
        let h100 = eval::load(&root.join(dir), &[]).unwrap();
        let h200 = eval::load(&root.join(dir).join("suite-h200.toml"), &[]).unwrap();
        assert_eq!(h200.manifest_file, "suite-h200.toml");
        assert_eq!(h200.device, "NVIDIA H200", "{dir}");
        assert_eq!(h200.kernels.len(), h100.kernels.len(), "{dir}");
        let mut faster = 0;
        for (a, b) in h100.kernels.iter().zip(&h200.kernels) {
            assert_eq!((&a.spec.id, &a.ptx), (&b.spec.id, &b.ptx), "{dir}");
            assert_eq!(a.points.len(), b.points.len(), "{dir} {}", a.spec.id);
            for p in &b.points {
                assert!(p.ncu.warp_insts_per_warp().unwrap() > 1.0, "{}", b.spec.id);
            }
            let top = |k: &eval::KernelCase| k.points.last().unwrap().median_us;
            faster += usize::from(top(b) < top(a));
        }
        // HBM3e: most kernels run faster on the H200 at full occupancy.
        assert!(2 * faster > h200.kernels.len(), "{dir}: {faster}");
    }
    let tmp = std::env::temp_dir().join(format!("ptx2idg-manifest-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let text = std::fs::read_to_string(root.join("ptx_samples/rodinia/suite-h200.toml"))
        .unwrap()
        .replacen("timings = \"h200/", "timings = \"../h200/", 1);
    std::fs::write(tmp.join("other.toml"), text).unwrap();
    let err = eval::load(&tmp.join("other.toml"), &[])
        .unwrap_err()
        .to_string();
    std::fs::remove_dir_all(&tmp).unwrap();
    assert!(
        err.contains("other.toml") && err.contains("without `..`"),
        "{err}"
    );
}

/// `--counters one`: every point reads the launch of the highest measured occupancy and keeps
/// its own timing; `All` leaves the suite as loaded.
#[test]
fn counters_one_gives_every_point_the_top_launch() {
    let loaded = eval::load(&suite_dir(), &[]).unwrap();
    let all = loaded.clone().with_counters(eval::CountersMode::All);
    let one = loaded.clone().with_counters(eval::CountersMode::One);
    for ((k, a), o) in loaded.kernels.iter().zip(&all.kernels).zip(&one.kernels) {
        let top = &k.max_point().ncu;
        // The suite's points have distinct launches, so `One` changes something.
        assert_ne!(k.points[0].ncu, *top, "{}", k.spec.id);
        assert_eq!(o.points.len(), k.points.len());
        for ((p, pa), po) in k.points.iter().zip(&a.points).zip(&o.points) {
            assert_eq!(
                pa.ncu, p.ncu,
                "{}: All keeps each point's launch",
                k.spec.id
            );
            assert_eq!(po.ncu, *top, "{}", k.spec.id);
            assert_eq!(po.ncu.id, top.id);
            for (x, y) in [(p, pa), (p, po)] {
                assert_eq!(
                    (x.blocks_per_sm, x.occupancy_warps, x.median_us),
                    (y.blocks_per_sm, y.occupancy_warps, y.median_us)
                );
            }
        }
    }
    assert_eq!(eval::CountersMode::default(), eval::CountersMode::All);
}

#[test]
fn kernel_filter_and_unknown_ids() {
    let s = eval::load(&suite_dir(), &["srad1".to_string()]).unwrap();
    assert_eq!(s.kernels.len(), 1);
    let e = eval::load(&suite_dir(), &["nope".to_string()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("nope") && e.contains("srad1"), "{e}");
}

/// λ = 1 cycle everywhere; Λ = 4 for compute, 30 for shared, 500 for other memory.
struct Toy;

impl Backend for Toy {
    fn timings(&self, idgs: &KernelIdgs, _: &MeasuredPoint, _: &Variant) -> Result<Timed, String> {
        let tpc = 1000;
        let costs = idgs
            .classes
            .iter()
            .map(|c| {
                c.idg
                    .nodes
                    .iter()
                    .map(|n| {
                        let (sub, lat) = match (n.category, n.mem.as_ref().map(|m| m.space)) {
                            (Category::Memory, Some(MemSpace::Shared)) => (1, 30),
                            (Category::Memory, _) => (1, 500),
                            _ => (0, 4),
                        };
                        NodeCost {
                            subsystem: sub,
                            lambda: tpc,
                            latency: lat * tpc,
                            below_occupancy: None,
                            dram_bytes: 0,
                        }
                    })
                    .collect()
            })
            .collect();
        Ok(Timed {
            timings: vec![],
            costs,
            hardware: Hardware {
                subsystems: vec!["alu".into(), "mem".into()],
                issue_interval: tpc / 4,
                partitions: 4,
                ticks_per_cycle: tpc,
                clock_mhz: 1980.0,
                dispatch_latency: 0,
                dispatch_interval: 0,
                sm_wide: 0,
                queued: 0,
            },
            notes: vec![],
        })
    }
    fn analytical_models(&self) -> Vec<Model> {
        vec![]
    }
    type Prepared = ();
    fn prepare(&self, _: &KernelIdgs, _: eval::CoreShape) {}
    fn analytical(&self, _: &KernelIdgs, _: &(), _: &Timed, _: u32) -> Vec<Result<f64, String>> {
        vec![]
    }
}

#[test]
fn every_kernel_builds_and_simulates() {
    let s = eval::load(&suite_dir(), &[]).unwrap();
    for k in &s.kernels {
        let g = build_graphs(
            k,
            &Variant::validated(&h100()),
            &h100().sass_expansion,
            Some(eval::predict::slots(&h100())),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(!g.idgs.classes.is_empty(), "{}", k.spec.id);
    }
    // The simulation itself is slow in debug builds: two cheap kernels through the toy backend.
    let few = eval::load(
        &suite_dir(),
        &[
            "cfd_time_step".to_string(),
            "bpnn_adjust_weights".to_string(),
        ],
    )
    .unwrap();
    let p = IdgPredictor {
        backend: Toy,
        variant: Variant::validated(&h100()),
        analytical: false,
        exact: false,
    };
    let ev = eval::evaluate(&few, &p).unwrap();
    for k in &ev.kernels {
        let a = k.accuracy(Model::Pipeline);
        assert!(
            a.is_some(),
            "{}: {:?}",
            k.id,
            k.result(Model::Pipeline).map(|r| &r.outcome)
        );
    }
    let csv = eval::report::csv(&ev);
    assert!(csv.starts_with("kernel,model,mape,mape_shape\n"));
    assert_eq!(csv.lines().count(), 1 + 2 + 1);
}

#[test]
fn extrapolation_matches_exact_simulation() {
    let s = eval::load(
        &suite_dir(),
        &[
            "cfd_step_factor".to_string(),
            "kmeans_swap".to_string(),
            "lud_internal".to_string(),
        ],
    )
    .unwrap();
    let backend = eval::predict::GpuBackend {
        profile: gpu::GpuProfile::bundled("h100").unwrap(),
    };
    let v = Variant::validated(&h100());
    for k in &s.kernels {
        let g = build_graphs(
            k,
            &Variant::validated(&h100()),
            &h100().sass_expansion,
            Some(eval::predict::slots(&h100())),
        )
        .unwrap();
        let shape = eval::CoreShape::of(k, s.sm_count);
        for p in [&k.points[0], &k.points[2], k.max_point()] {
            let timed = backend.timings(&g.idgs, p, &v).unwrap();
            let exec = sim::ExecConfig {
                warps_per_group: shape.warps_per_group,
                concurrent_groups: p.blocks_per_sm,
                total_groups: shape.total_groups,
                sm_count: shape.sm_count,
            };
            let opts = v.sim_options();
            let exact = eval::predict::simulate_wpc(&g.idgs, &timed, &exec, &opts, true).unwrap();
            let fast = eval::predict::simulate_wpc(&g.idgs, &timed, &exec, &opts, false).unwrap();
            let err = (fast - exact).abs() / exact;
            eprintln!(
                "{} b={}: relative error {err:.4}",
                k.spec.id, p.blocks_per_sm
            );
            assert!(
                err < 0.03,
                "{} at b={}: exact {exact}, extrapolated {fast}",
                k.spec.id,
                p.blocks_per_sm
            );
        }
    }
}

/// The static shared memory the PTX declares is what the CUDA runtime reported for the
/// compiled kernel (`static_smem_bytes`, recorded on the H100 with each sweep).
#[test]
fn static_shared_memory_from_ptx_matches_the_runtime() {
    let s = eval::load(&suite_dir(), &[]).unwrap();
    let mut with_shared = 0;
    for case in &s.kernels {
        let module = ptx::parse(&case.ptx).unwrap();
        let bytes = module
            .static_shared_bytes(&case.spec.entry)
            .unwrap()
            .unwrap();
        assert_eq!(bytes, case.spec.static_smem_bytes, "{}", case.spec.id);
        with_shared += usize::from(bytes > 0);
    }
    assert!(
        with_shared >= 5,
        "only {with_shared} kernels declare shared memory"
    );
}

/// The ablation's variants evaluated together (IDGs, mappings and equal simulations shared)
/// give every variant exactly what it gets evaluated alone, on two suites at once.
#[test]
fn variants_evaluated_together_match_each_alone() {
    let few = eval::load(&suite_dir(), &["bpnn_adjust_weights".to_string()]).unwrap();
    let one = eval::load(&suite_dir(), &["cfd_time_step".to_string()]).unwrap();
    let base = Variant::validated(&h100());
    let studied = eval::predict::ablations(&base);
    assert!(studied.len() > 10);
    let variants: Vec<(Variant, bool)> = studied
        .iter()
        .enumerate()
        .map(|(i, (_, _, v))| (*v, i == 0))
        .collect();
    let together = eval::evaluate_variants(
        &[&few, &one],
        &eval::predict::VariantsPredictor {
            backend: Toy,
            variants: variants.clone(),
            exact: false,
        },
    )
    .unwrap();
    assert_eq!(together.len(), 2);
    for (suite, evs) in [&few, &one].into_iter().zip(&together) {
        assert_eq!(evs.len(), variants.len());
        for ((v, analytical), ev) in variants.iter().zip(evs) {
            let alone = eval::evaluate(
                suite,
                &IdgPredictor {
                    backend: Toy,
                    variant: *v,
                    analytical: *analytical,
                    exact: false,
                },
            )
            .unwrap();
            assert_eq!(
                eval::report::points_csv(ev, 6),
                eval::report::points_csv(&alone, 6),
                "{}",
                v.describe()
            );
            let notes = |e: &eval::Evaluation| -> Vec<Vec<eval::Note>> {
                e.kernels.iter().map(|k| k.notes.clone()).collect()
            };
            assert_eq!(notes(ev), notes(&alone));
        }
    }
}

/// Runs shared between variants must not carry one variant's loaded latency into another's:
/// with the GPU backend, the base and `unloaded-latency` evaluated together equal each alone,
/// and they differ on a kernel that streams.
#[test]
fn loaded_latency_variants_share_no_settled_run() {
    let suite = eval::load(&suite_dir(), &["bpnn_adjust_weights".to_string()]).unwrap();
    let base = Variant::validated(&h100());
    let unloaded = Variant {
        loaded_latency: false,
        ..base
    };
    let variants = vec![(base, false), (unloaded, false)];
    let backend = || eval::predict::GpuBackend { profile: h100() };
    let together = eval::evaluate_variants(
        &[&suite],
        &eval::predict::VariantsPredictor {
            backend: backend(),
            variants: variants.clone(),
            exact: false,
        },
    )
    .unwrap();
    let csv: Vec<String> = together[0]
        .iter()
        .map(|e| eval::report::points_csv(e, 6))
        .collect();
    assert_ne!(csv[0], csv[1]);
    for ((v, analytical), together) in variants.iter().zip(&csv) {
        let alone = eval::evaluate(
            &suite,
            &IdgPredictor {
                backend: backend(),
                variant: *v,
                analytical: *analytical,
                exact: false,
            },
        )
        .unwrap();
        assert_eq!(
            together,
            &eval::report::points_csv(&alone, 6),
            "{}",
            v.describe()
        );
    }
}

/// The unified model's curve is flat in occupancy (one launch time) and, for a profile without
/// `[unified_model]`, an error, never a number.
#[test]
fn unified_curve_is_flat_and_needs_the_profiles_weights() {
    let s = eval::load(&suite_dir(), &["bpnn_adjust_weights".to_string()]).unwrap();
    let k = &s.kernels[0];
    let v = Variant::validated(&h100());
    let g = build_graphs(
        k,
        &v,
        &h100().sass_expansion,
        Some(eval::predict::slots(&h100())),
    )
    .unwrap();
    let shape = eval::CoreShape::of(k, s.sm_count);
    let unified_at = |backend: &eval::predict::GpuBackend| -> Vec<Result<f64, String>> {
        let models = backend.analytical_models();
        assert_eq!(models.last(), Some(&Model::Unified));
        let i = models.len() - 1;
        let prepared = backend.prepare(&g.idgs, shape);
        [&k.points[0], &k.points[2], k.max_point()]
            .into_iter()
            .map(|p| {
                let timed = backend.timings(&g.idgs, p, &v).unwrap();
                let occ = p.blocks_per_sm * shape.warps_per_group;
                let out = backend.analytical(&g.idgs, &prepared, &timed, occ);
                assert_eq!(out.len(), models.len());
                out[i].clone()
            })
            .collect()
    };
    let with = eval::predict::GpuBackend { profile: h100() };
    assert!(with.profile.unified_model.is_some());
    let curve = unified_at(&with);
    let first = *curve[0].as_ref().unwrap();
    assert!(first.is_finite() && first > 0.0);
    for c in &curve {
        assert_eq!(c.as_ref().unwrap().to_bits(), first.to_bits(), "{curve:?}");
    }
    let mut bare = h100();
    bare.unified_model = None;
    let without = eval::predict::GpuBackend { profile: bare };
    for c in unified_at(&without) {
        let e = c.unwrap_err();
        assert!(e.contains("the GPU profile has no [unified_model]"), "{e}");
    }
}
