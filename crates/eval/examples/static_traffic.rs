//! The static access analysis's DRAM traffic against the counters: for every kernel of a
//! suite, the DRAM bytes read and written that mapper g gives the launch without counters
//! (`sim::cost::static_dram_bytes`, what the bandwidth floor and the loaded latency read
//! under `--counters none`) beside ncu's `dram__bytes_read.sum` / `dram__bytes_write.sum` of
//! the launch at the highest measured occupancy, at that occupancy.
//!
//! `cargo run --release -p eval --example static_traffic -- SUITE_DIR [KERNEL...]`
//!
//! One line per kernel: the bytes in MB, static then measured, and their ratio (static over
//! measured); then the 32-byte sectors per global load request, the mean over the loads whose
//! addresses the walk knows, the share of load requests whose addresses it does not, and
//! ncu's mean over all loads (`l1tex__t_sectors/requests_pipe_lsu_mem_global_op_ld`); a last
//! line the median and the geometric mean of the |log| ratios, reads and writes apart.
//! A kernel with global atomics gets a second line: the launch's atomic sectors by the static
//! analysis (`sim::cost::static_atomic_sectors`), their even share of the profile's L2 slices
//! (what the atomic floor reads without counters) and ncu's busiest slice
//! (`lts__d_atomic_input_cycles_active.max`), in millions of sectors.
//! Predicts nothing: it checks the input the mode without counters times memory with, and
//! how much of a kernel's loads the static address analysis sees.

use eval::predict::{build_graphs, Backend, GpuBackend, Variant};
use eval::CountersMode;
use profile::Quantity;
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = Path::new(&args[0]);
    let mut measured = eval::load(dir, &args[1..]).expect("suite");
    let profile = gpu::GpuProfile::bundled("hopper-h100").expect("profile");
    // The machine code as `eval` aligns it (`--sass auto`, or PTX2IDG_SASS).
    let (source, _) = eval::machine::MachineSource::given_or_env(None);
    for note in eval::machine::attach(&mut measured, source, profile.sass_arch.as_deref()) {
        eprintln!("note: {note}");
    }
    let blind = measured.clone().with_counters(CountersMode::None);
    let backend = GpuBackend {
        profile: profile.clone(),
    };
    let variant = Variant::validated(&profile);
    let expansion = backend.sass_expansion();
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    println!(
        "{:28} {:>10} {:>10} {:>7}   {:>10} {:>10} {:>7}   {:>7} {:>7} {:>7}",
        "kernel",
        "read_st",
        "read_ncu",
        "ratio",
        "write_st",
        "write_ncu",
        "ratio",
        "sec_st",
        "unknown",
        "sec_ncu"
    );
    for (case, truth) in blind.kernels.iter().zip(&measured.kernels) {
        let g = match build_graphs(case, &variant, &expansion, backend.slots()) {
            Ok(g) => g,
            Err(e) => {
                println!("{:28} error: {e}", case.spec.id);
                continue;
            }
        };
        let shape = eval::model::CoreShape::of(case, blind.sm_count);
        let p = case.max_point();
        let t = backend.timings(&g.idgs, p, &variant).expect("timings");
        let exec = sim::ExecConfig {
            warps_per_group: shape.warps_per_group,
            concurrent_groups: p.blocks_per_sm,
            total_groups: shape.total_groups,
            sm_count: shape.sm_count,
        };
        let (r, w) = sim::cost::static_dram_bytes(&g.idgs, &t.costs, &exec).unwrap_or((0.0, 0.0));
        let ncu = &truth.max_point().ncu;
        let q = |k| ncu.quantity(k).map_or(f64::NAN, |m| m.value);
        let (mr, mw) = (q(Quantity::DramReadBytes), q(Quantity::DramWriteBytes));
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        let (rr, rw) = (ratio(r, mr), ratio(w, mw));
        // Small traffic (under 1 MB) is noise beside the launch's other costs; a level the
        // analysis gives no bytes sets no floor, and is counted apart.
        for (v, ratio, m) in [(&mut reads, rr, mr), (&mut writes, rw, mw)] {
            if m > 1e6 && ratio.is_finite() {
                v.push((ratio > 0.0).then(|| ratio.ln().abs()));
            }
        }
        // Sectors per load request over the loads of known address, weighted by executions.
        let (mut known, mut sectors, mut unknown) = (0.0, 0.0, 0.0);
        for (class, &warps) in g.idgs.classes.iter().zip(&g.idgs.class_weights()) {
            idg::counts::for_each_execution(&class.idg, &mut |id, runs| {
                let node = class.idg.node(id);
                let Some(m) = node.mem else { return };
                if m.space != idg::MemSpace::Global || m.store || m.atomic {
                    return;
                }
                match m.pattern {
                    Some(p) => {
                        known += warps * runs;
                        sectors += warps * runs * f64::from(p.sectors_per_request);
                    }
                    None => unknown += warps * runs,
                }
            });
        }
        let measured_sectors = q(Quantity::GlobalLoadSectors) / q(Quantity::GlobalLoadRequests);
        println!(
            "{:28} {:10.2} {:10.2} {:7.2}   {:10.2} {:10.2} {:7.2}   {:7.2} {:7.2} {:7.2}",
            case.spec.id,
            r / 1e6,
            mr / 1e6,
            rr,
            w / 1e6,
            mw / 1e6,
            rw,
            sectors / known,
            unknown / (known + unknown),
            measured_sectors
        );
        if let Some(a) = sim::cost::static_atomic_sectors(&g.idgs, &exec) {
            let share = profile.even_slice_share(a).unwrap_or(f64::NAN);
            println!(
                "{:28} atomics: static {:.3} M sectors, even slice share {:.3} M, ncu busiest \
                 slice {:.3} M",
                "",
                a / 1e6,
                share / 1e6,
                q(Quantity::L2AtomicBusiestSliceSectors) / 1e6
            );
        }
    }
    let summary = |v: &[Option<f64>]| {
        let mut logs: Vec<f64> = v.iter().flatten().copied().collect();
        logs.sort_by(f64::total_cmp);
        let median = logs.get(logs.len() / 2).copied().unwrap_or(f64::NAN);
        let mean = logs.iter().sum::<f64>() / logs.len().max(1) as f64;
        format!(
            "median {:.2} geomean {:.2} over {} ({} with no static bytes)",
            median.exp(),
            mean.exp(),
            logs.len(),
            v.len() - logs.len()
        )
    };
    println!(
        "off by (factor): reads {}; writes {}",
        summary(&reads),
        summary(&writes)
    );
}
