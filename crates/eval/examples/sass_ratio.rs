//! A kernel's static machine-code instruction count over its PTX count, the ratio a per-kernel
//! SASS factor read off the listing would use, for every kernel of a suite:
//! `cargo run --release -p eval --example sass_ratio -- SUITE_DIR` (needs ptxas and a
//! disassembler, as `--sass auto`). Beside `eval --format counters`, whose measured warp
//! instructions over the IDG's PTX count give the dynamic ratio of kernels with static trip
//! counts, it measures whether the listing predicts that ratio (docs/sass-input.md).
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut suite = eval::load(Path::new(&args[0]), &[]).expect("suite");
    for note in eval::machine::attach(
        &mut suite,
        eval::machine::MachineSource::Auto,
        Some("sm_90a"),
    ) {
        eprintln!("{note}");
    }
    println!("kernel,ptx,sass,ratio");
    for k in &suite.kernels {
        let module = ptx::parse(&k.ptx).expect("PTX");
        let kernel = ir::lower_kernel(&module, &k.spec.entry).expect("kernel");
        // Every statement and every block's terminator (a branch or return in the PTX).
        let ptx: usize = kernel.blocks.iter().map(|b| b.insts.len() + 1).sum();
        let Some(m) = &k.machine else { continue };
        let sass = sass::analysis::analyze(m).body.total;
        println!(
            "{},{ptx},{sass},{:.3}",
            k.spec.id,
            f64::from(sass) / ptx as f64
        );
    }
}
