//! `eval --counters none` (`eval::CountersMode::None`): PTX, launch and static analysis only.
//! Every point holds the top launch restricted to its warp instruction count, the one number
//! the trip counts of loops that depend on data are fitted to; nothing else reaches the models,
//! and every kernel of the Rodinia suite still gets a prediction from every model. A kernel the
//! IDGs cannot stand for without counters gets an error in every cell, never a number.

use std::path::PathBuf;

use eval::predict::{build_graphs, GpuBackend, IdgPredictor, Variant};
use eval::{CountersMode, Model};
use profile::Quantity;

fn h100() -> gpu::GpuProfile {
    gpu::GpuProfile::bundled("hopper-h100").unwrap()
}

fn suite(dir: &str, only: &[&str]) -> eval::Suite {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(dir);
    let only: Vec<String> = only.iter().map(|s| s.to_string()).collect();
    eval::load(&dir, &only).unwrap()
}

fn rodinia(only: &[&str]) -> eval::Suite {
    suite("ptx_samples/rodinia", only)
}

/// On every suite of the repository.
#[test]
fn points_hold_only_the_top_launchs_instruction_count() {
    for dir in [
        "ptx_samples/rodinia",
        "ptx_samples/heldout",
        "bench/uneven_suite",
        "bench/branch_suite",
    ] {
        stripped(suite(dir, &[]));
    }
    assert_eq!("none".parse::<CountersMode>().unwrap(), CountersMode::None);
    assert!("some".parse::<CountersMode>().is_err());
}

fn stripped(loaded: eval::Suite) {
    assert!(loaded
        .kernels
        .iter()
        .all(|k| k.counters() == CountersMode::All
            && k.points.iter().all(|p| p.profiled().is_some())));
    let none = loaded.clone().with_counters(CountersMode::None);
    for (k, n) in loaded.kernels.iter().zip(&none.kernels) {
        let id = &k.spec.id;
        let top = &k.max_point().ncu;
        assert!(
            top.metrics.len() > 30,
            "{id}: the loaded launch has its counters"
        );
        assert_eq!(n.counters(), CountersMode::None, "{id}");
        assert_eq!(n.points.len(), k.points.len());
        for (p, q) in k.points.iter().zip(&n.points) {
            let names: Vec<&str> = q.ncu.metrics.keys().map(String::as_str).collect();
            assert_eq!(names, ["smsp__inst_executed.sum"], "{id}");
            assert_eq!(
                q.ncu.get("smsp__inst_executed.sum"),
                top.get("smsp__inst_executed.sum")
            );
            assert_eq!(q.ncu.id, top.id, "{id}: the top point's launch");
            assert!(q.profiled().is_none(), "{id}: no counters for the models");
            assert_eq!(
                (q.blocks_per_sm, q.occupancy_warps, q.median_us),
                (p.blocks_per_sm, p.occupancy_warps, p.median_us),
                "{id}: the timings stay each point's own"
            );
        }
        // The instruction count is divided by the launch's warps, which the grid and block fix:
        // they are what ncu counted, so no second counter is needed.
        let warps = top.quantity(Quantity::WarpsLaunched).unwrap().value;
        assert_eq!(
            warps,
            k.spec.grid_blocks as f64 * f64::from(k.spec.warps_per_block),
            "{id}"
        );
    }
}

/// Every kernel builds without counters, with no loop left unknown, and its loops that depend
/// on data are fitted to the instruction count alone, which the notes say; nothing the
/// counters decide (busy share, branch fit) is noted.
#[test]
fn every_rodinia_kernel_builds_without_counters() {
    let none = rodinia(&[]).with_counters(CountersMode::None);
    let v = Variant::validated(&h100());
    let mut fitted = Vec::new();
    for k in &none.kernels {
        let g = build_graphs(
            k,
            &v,
            &h100().sass_expansion,
            Some(eval::predict::slots(&h100())),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(g.unpredictable, None, "{}", k.spec.id);
        let notes: Vec<String> = g.notes.iter().map(ToString::to_string).collect();
        if notes
            .iter()
            .any(|n| n.contains("its instruction count alone"))
        {
            fitted.push(k.spec.id.as_str());
        }
        assert!(
            !notes
                .iter()
                .any(|n| n.contains("busy share") || n.contains("counters fit with")),
            "{}: {notes:?}",
            k.spec.id
        );
    }
    // kmeans_assign's feature loops, which no sampled thread reaches on a known path.
    assert_eq!(fitted, ["kmeans_assign"]);
}

/// The whole suite predicts without counters with the H100 backend: the Pipeline model and
/// every analytical model give a curve for every kernel (the unified model lacks one only
/// where its weights do not cover the kernel, as with counters). A few CPU-seconds in a
/// release build, minutes in a debug one: `.ci/run` runs it with `--release -- --ignored`;
/// the debug run predicts two kernels.
#[test]
#[ignore = "the whole suite: run with --release -- --ignored (.ci/run does)"]
fn every_rodinia_kernel_is_predicted_without_counters() {
    predicted_without_counters(&[]);
}

#[test]
fn two_kernels_are_predicted_without_counters() {
    predicted_without_counters(&["cfd_time_step", "bpnn_adjust_weights"]);
}

fn predicted_without_counters(only: &[&str]) {
    let none = rodinia(only).with_counters(CountersMode::None);
    let p = IdgPredictor {
        backend: GpuBackend { profile: h100() },
        variant: Variant::validated(&h100()),
        analytical: true,
        exact: false,
    };
    let ev = eval::evaluate(&none, &p).unwrap();
    assert_eq!(
        ev.kernels.len(),
        if only.is_empty() { 15 } else { only.len() }
    );
    for k in &ev.kernels {
        for m in Model::ALL.into_iter().filter(|m| !m.runs_the_kernel()) {
            match &k.result(m).unwrap().outcome {
                Ok((wpc, a)) => assert!(
                    wpc.iter().all(|w| w.is_finite() && *w > 0.0) && a.mape.is_finite(),
                    "{} {m}: {wpc:?}",
                    k.id
                ),
                Err(e) => assert!(
                    m == Model::Unified && e.contains("weights do not cover"),
                    "{} {m}: {e}",
                    k.id
                ),
            }
        }
    }
}

/// Without even the instruction count, a loop the launch does not fix has no trip count: the
/// kernel's every cell is that reason, and the table shows no number for it.
#[test]
fn a_loop_nothing_fixes_is_an_error_in_every_cell() {
    let mut s =
        rodinia(&["kmeans_assign", "bpnn_adjust_weights"]).with_counters(CountersMode::None);
    for k in &mut s.kernels {
        for p in &mut k.points {
            p.ncu.metrics.clear();
        }
    }
    let v = Variant::validated(&h100());
    let g = build_graphs(
        &s.kernels[0],
        &v,
        &h100().sass_expansion,
        Some(eval::predict::slots(&h100())),
    )
    .unwrap();
    let why = g
        .unpredictable
        .expect("kmeans_assign's feature loops depend on data");
    assert!(
        why.contains("without counters") && why.contains("$L__BB0_7"),
        "{why}"
    );
    // bpnn_adjust_weights has no loop the launch leaves open: it needs no count.
    let g = build_graphs(
        &s.kernels[1],
        &v,
        &h100().sass_expansion,
        Some(eval::predict::slots(&h100())),
    )
    .unwrap();
    assert_eq!(g.unpredictable, None);
    let p = IdgPredictor {
        backend: GpuBackend { profile: h100() },
        variant: v,
        analytical: true,
        exact: false,
    };
    let ev = eval::evaluate(&s, &p).unwrap();
    let k = &ev.kernels[0];
    assert_eq!(k.id, "kmeans_assign");
    for m in Model::ALL.into_iter().filter(|m| !m.runs_the_kernel()) {
        let e = k.result(m).unwrap().outcome.as_ref().unwrap_err();
        assert_eq!(e, &why, "{m}");
    }
    assert!(ev.kernels[1].accuracy(Model::Pipeline).is_some());
    let csv = eval::report::csv(&ev);
    assert!(csv.contains("\nkmeans_assign,pipeline,,\n"), "{csv}");
    let table = eval::report::markdown(&ev);
    let row = table
        .lines()
        .find(|l| l.contains("`kmeans_assign`"))
        .unwrap();
    assert!(!row.chars().any(|c| c.is_ascii_digit()), "{row}");
}
