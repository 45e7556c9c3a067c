//! `ptx2idg gpus [--show NAME|--gpu-file PATH]`: lists the bundled GPU profiles, one name at
//! the start of each line, or prints one resolved profile: every instruction class and memory
//! level with its subsystem, λ, Λ and whether the file gave it or a rule derived it.

use crate::diag::out;
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::gpu_args::GpuArgs;

#[derive(clap::Args, Debug)]
pub struct GpusArgs {
    /// Print this profile in full (a bundled name or a TOML file path).
    #[arg(long, value_name = "NAME", conflicts_with = "gpu_file")]
    pub show: Option<String>,
    /// Print this profile file in full (checks it, too).
    #[arg(long, value_name = "PATH")]
    pub gpu_file: Option<PathBuf>,
}

pub fn run(args: &GpusArgs) -> ExitCode {
    if args.show.is_none() && args.gpu_file.is_none() {
        out!("{}", list());
        return ExitCode::SUCCESS;
    }
    let sel = GpuArgs {
        gpu: args.show.clone(),
        gpu_file: args.gpu_file.clone(),
    };
    match sel.load() {
        Ok(p) => {
            out!("{}", show(&p));
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}

/// One line per bundled profile: `name  display name (architecture, N SMs, F MHz)`.
pub fn list() -> String {
    let names = gpu::bundled_names();
    let w = names.iter().map(|n| n.len()).max().unwrap_or(0);
    let mut out = String::new();
    for name in names {
        match gpu::GpuProfile::bundled(name) {
            Ok(p) => {
                let _ = writeln!(
                    out,
                    "{name:<w$}  {} ({}, {} SMs, {} MHz)",
                    p.display_name, p.architecture, p.sm_count, p.clock_mhz
                );
            }
            // A bundled file that does not resolve is a bug; still list the name.
            Err(e) => {
                let _ = writeln!(out, "{name:<w$}  (broken: {e})");
            }
        }
    }
    out
}

/// The resolved profile as text.
pub fn show(p: &gpu::GpuProfile) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} — {} ({}, {})",
        p.name, p.display_name, p.architecture, p.vendor
    );
    let _ = writeln!(
        out,
        "{} SMs at {} MHz, warp {}, issue limit {} (interval {}), {} sub-partitions, scheduler {:?}",
        p.sm_count,
        p.clock_mhz,
        p.warp_size,
        p.issue_limit,
        p.issue_interval(),
        p.sub_partitions,
        p.scheduler
    );
    let subs: Vec<String> = p
        .subsystems
        .iter()
        .map(|s| match s.nominal_lambda {
            Some(l) => format!("{} (nominal λ {l})", s.name),
            None => s.name.clone(),
        })
        .collect();
    let _ = writeln!(out, "subsystems: {}", subs.join(", "));
    let l = &p.limits;
    let _ = writeln!(
        out,
        "limits per SM: {} warps, {} blocks, {} threads, {} registers, {} B shared; per block: {} threads, {} B shared",
        l.max_warps_per_sm,
        l.max_blocks_per_sm,
        l.max_threads_per_sm,
        l.registers_per_sm,
        l.shared_memory_per_sm,
        l.max_threads_per_block,
        l.max_shared_memory_per_block
    );
    let _ = writeln!(out, "\nclass        subsystem  lambda  latency  from");
    for &c in gpu::InstClass::ALL {
        let cp = p.class(c);
        let _ = writeln!(
            out,
            "{:<12} {:<10} {:>6}  {:>7}  {}",
            c.name(),
            p.subsystem(cp.subsystem).name,
            cp.lambda.to_string(),
            cp.latency.to_string(),
            origin(cp.origin)
        );
    }
    let _ = writeln!(out, "\nmemory       lambda  latency  from");
    for &m in gpu::MemLevel::ALL {
        let mp = p.mem(m);
        let _ = writeln!(
            out,
            "{:<12} {:>6}  {:>7}  {}",
            m.name(),
            mp.lambda.to_string(),
            mp.latency.to_string(),
            origin(mp.origin)
        );
    }
    out
}

fn origin(o: gpu::Origin) -> &'static str {
    match o {
        gpu::Origin::File => "file",
        gpu::Origin::Rule => "rule",
    }
}
