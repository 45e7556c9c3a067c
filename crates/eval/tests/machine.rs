//! The alignment pass on real machine code (`eval --sass auto`, `eval::machine`): every kernel
//! of the bundled suites assembled by ptxas and disassembled by nvdisasm, its IDGs aligned
//! with the listing. The aligned IDGs are valid, and every warp class executes the same global
//! loads and stores as the PTX-only IDGs (the pass reorders and renames, it never drops or
//! duplicates an access). Skips with a message without the tools, fails instead under `CI`.

use std::path::PathBuf;

use eval::machine::{attach, MachineSource};
use eval::predict::{build_graphs, Variant};
use idg::{Idg, Item, MemSpace};

fn tools() -> bool {
    let t = sass::tools::Toolchain::discover();
    let found = t.ptxas.is_some() && (t.nvdisasm.is_some() || t.cuobjdump.is_some());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have ptxas and nvdisasm (pip install nvidia-cuda-nvcc nvidia-cuda-nvdisasm)"
        );
        eprintln!("skipping: no ptxas and nvdisasm found");
    }
    found
}

/// Global loads and stores one warp of `idg` executes, as (loads, stores).
fn global_accesses(idg: &Idg) -> (u64, u64) {
    fn walk(idg: &Idg, items: &[Item], times: u64, out: &mut (u64, u64)) {
        for it in items {
            match it {
                Item::Node(id) => {
                    if let Some(m) = idg.node(*id).mem {
                        if m.space == MemSpace::Global && !m.atomic {
                            if m.store {
                                out.1 += times;
                            } else {
                                out.0 += times;
                            }
                        }
                    }
                }
                Item::Repeat(r) => walk(idg, &r.body, times.saturating_mul(r.count), out),
            }
        }
    }
    let mut out = (0, 0);
    walk(idg, &idg.body, 1, &mut out);
    out
}

#[test]
fn aligned_idgs_keep_every_global_access() {
    if !tools() {
        return;
    }
    let profile = gpu::GpuProfile::bundled("hopper-h100").unwrap();
    let variant: Variant = sim::ModelConfig::validated(&profile);
    let mut aligned_loops = 0;
    for dir in ["ptx_samples/rodinia", "ptx_samples/heldout"] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(dir);
        let plain = eval::load(&path, &[]).unwrap();
        let mut with = plain.clone();
        let notes = attach(&mut with, MachineSource::Auto, profile.sass_arch.as_deref());
        assert!(notes.is_empty(), "{dir}: {notes:?}");
        for (a, b) in plain.kernels.iter().zip(&with.kernels) {
            assert!(b.machine.is_some(), "{}: no listing", b.spec.id);
            let ga = build_graphs(
                a,
                &variant,
                &profile.sass_expansion,
                Some(eval::predict::slots(&profile)),
            )
            .unwrap();
            let gb = build_graphs(
                b,
                &variant,
                &profile.sass_expansion,
                Some(eval::predict::slots(&profile)),
            )
            .unwrap();
            assert_eq!(
                ga.idgs.classes.len(),
                gb.idgs.classes.len(),
                "{}",
                b.spec.id
            );
            for (ca, cb) in ga.idgs.classes.iter().zip(&gb.idgs.classes) {
                cb.idg.validate().unwrap();
                assert_eq!(
                    global_accesses(&ca.idg),
                    global_accesses(&cb.idg),
                    "{}: global loads and stores per warp",
                    b.spec.id
                );
                if ca.idg.instruction_count() != cb.idg.instruction_count() {
                    aligned_loops += 1;
                }
            }
        }
    }
    // The pass changed something somewhere (kmeans_assign's unrolled loop at least).
    assert!(aligned_loops > 0);
}
