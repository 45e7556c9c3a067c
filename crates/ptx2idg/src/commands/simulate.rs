//! `ptx2idg simulate FILE.ptx|FILE.json [--gpu NAME] [launch] [trips] [occupancy] [scheduler]
//! [--profile F] [--profile-svg F] [--plot F] [--format text|json|csv]`: runs the Pipeline-model
//! simulator (crate `sim`) on one kernel launch (its
//! registers per thread from `--regs` or ptxas, `sass_args`), once or as an occupancy sweep.
//!
//! A single run prints the `SimResult` (text or JSON); `--occupancy A..=B` (warps) or
//! `--blocks-per-sm A..=B` sweeps the resident groups and prints CSV with the header
//! `occupancy_warps,blocks_per_sm,cycles,wpc,time_us`. Mappers f and g time the nodes
//! (profiler files among `--trips` feed g, as in `map`). Errors go through `diag`.

use crate::diag::{out, outln};
use std::io::IsTerminal;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::args::{parse_range, LaunchArgs, TripsArgs};
use super::front;
use super::gpu_args::GpuArgs;
use super::idg::WalkArgs;
use super::model_args::ModelArgs;
use super::sass_args::SassArgs;
use crate::diag;
use gpu::GpuProfile;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Csv,
}

#[derive(clap::Args)]
pub struct SimulateArgs {
    /// A PTX file, or the IDG JSON of a launch (`ptx2idg FILE --format json`).
    file: PathBuf,
    /// The kernel (PTX input): mangled name, demangled name or an unambiguous substring.
    #[arg(long)]
    kernel: Option<String>,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    launch: LaunchArgs,
    #[command(flatten)]
    trips: TripsArgs,
    #[command(flatten)]
    walk: WalkArgs,
    /// `--sass`, `--regs`, `--shared`: the resources that set the occupancy.
    #[command(flatten)]
    sass: SassArgs,
    /// Sweep resident warps: A..=B (whole groups only) or N.
    #[arg(long, value_name = "A..=B", value_parser = parse_range, conflicts_with = "blocks_per_sm")]
    occupancy: Option<RangeInclusive<u32>>,
    /// Sweep resident blocks per SM: A..=B, or N for one run with N blocks.
    #[arg(long, value_name = "A..=B", value_parser = parse_range)]
    blocks_per_sm: Option<RangeInclusive<u32>>,
    /// The model: the validated configuration unless a flag changes it.
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    /// Simulate every repeat of a steady state instead of fast-forwarding over it (same
    /// results, slower; for measuring the engine).
    #[arg(long, hide_short_help = true)]
    no_fast_forward: bool,
    /// Simulated-instruction budget: most instructions a run may issue one by one
    /// (fast-forwarded repeats do not count); past it the run stops with an error.
    #[arg(long, value_name = "N", default_value_t = sim::DEFAULT_MAX_SIMULATED, hide_short_help = true)]
    max_simulated: u64,
    /// Trace budget: most instructions --profile and --profile-svg may record (each costs
    /// about 220 bytes of memory and trace); past it the run stops with an error.
    #[arg(long, value_name = "N", default_value_t = sim::DEFAULT_MAX_RECORDED, hide_short_help = true)]
    max_traced: u64,
    /// Write the execution profile as a Chrome trace (Perfetto, chrome://tracing).
    #[arg(long, value_name = "FILE")]
    profile: Option<PathBuf>,
    /// Write a Gantt chart of the execution (small runs) as SVG.
    #[arg(long, value_name = "FILE")]
    profile_svg: Option<PathBuf>,
    /// Write the occupancy curve of a sweep as SVG.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Output format (default: text for one run, csv for a sweep).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Significant digits of the numbers in CSV output (1-17; 17 reads back every value
    /// exactly).
    #[arg(long, value_name = "DIGITS", default_value_t = sim::number::DEFAULT_DIGITS,
          value_parser = clap::value_parser!(u32).range(1..=17))]
    precision: u32,
}

fn write_out(path: &Path, text: &str) -> Result<(), ExitCode> {
    diag::write_file(path, text.as_bytes()).map_err(|e| diag::fail(&path.display().to_string(), e))
}

/// `--explain` with a profiler file among `--trips`: the IDGs' counters per warp beside the
/// profiled launch's (`gpu::counters`), with a warning per counter that disagrees.
fn explain_counters(li: &front::LaunchIdgs, trips: &TripsArgs, profile: &gpu::GpuProfile) {
    let Some(launch) = li.profiled(trips) else {
        return;
    };
    let divergent = li.divergent.as_deref();
    if let Some(rows) = gpu::counters::compare(&li.idgs, divergent, &profile.sass_expansion, launch)
    {
        eprint!("{}", gpu::counters::explain(&rows));
    }
}

pub fn run(args: &SimulateArgs) -> ExitCode {
    match run_inner(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn run_inner(args: &SimulateArgs) -> Result<(), ExitCode> {
    let inputs: Vec<&Path> = std::iter::once(args.file.as_path())
        .chain(args.trips.files())
        .chain(args.gpu.file())
        .collect();
    diag::refuse_overwrites(
        &[
            ("--profile", args.profile.as_deref()),
            ("--profile-svg", args.profile_svg.as_deref()),
            ("--plot", args.plot.as_deref()),
        ],
        &inputs,
        &[],
    )?;
    let profile = args.gpu.load()?;
    let config = args.model.config(&profile);
    let (li, resources) = front::model_idgs(
        &args.file,
        args.kernel.as_deref(),
        &args.launch,
        &args.trips,
        &args.walk,
        &config,
        &profile,
        &args.sass,
    )?;
    let model_line = config.describe_run(li.profiled(&args.trips).is_some());
    if args.trips.explain {
        eprintln!("model: {model_line}");
        explain_counters(&li, &args.trips, &profile);
    }
    let front::Mapped {
        file,
        idgs,
        timings,
        metrics,
        traffic,
    } = li.map(&args.trips, &config, &profile);
    if args.trips.explain {
        explain_floors(&config, traffic.as_ref(), &profile);
        eprint!("{}", resources.explain());
    }
    // The device-wide limits (bandwidth floor, launch overhead) on a simulated core's result.
    let limit = |r: &mut sim::SimResult| {
        config.apply_device_limits(r, traffic.as_ref(), &profile);
    };
    let hw = config.hardware(&profile);
    let costs = sim::costs_from_timing(&timings);
    let opts = sim::SimOptions {
        record: args.profile.is_some() || args.profile_svg.is_some(),
        fast_forward: !args.no_fast_forward,
        max_simulated: args.max_simulated,
        max_recorded: args.max_traced,
        ..config.sim_options()
    };
    // Runs at the loaded DRAM latency map the IDGs again (`sim::loaded`).
    let mapping_profile = config.mapping_profile(&profile);
    // The DRAM load of a run: the counters' bytes, else the static bytes at its occupancy.
    let load_of =
        |exec: &sim::ExecConfig| config.dram_load(&profile, traffic.as_ref(), &idgs, &costs, exec);
    let rerun = sim::Rerun {
        idgs: &idgs,
        profile: &mapping_profile,
        metrics: metrics.as_ref(),
        hardware: &hw,
        opts: &sim::SimOptions {
            record: false,
            ..opts
        },
    };
    let launch = sim::Launch {
        regs_per_thread: resources.regs,
        shared_bytes_per_block: resources.shared,
        blocks_per_sm: None,
    };
    let axis = match (&args.occupancy, &args.blocks_per_sm) {
        (Some(r), _) => Some(sim::SweepAxis::Warps(r.clone())),
        (None, Some(r)) if r.start() != r.end() => Some(sim::SweepAxis::BlocksPerSm(r.clone())),
        _ => None,
    };

    let Some(axis) = axis else {
        let launch = sim::Launch {
            blocks_per_sm: args.blocks_per_sm.as_ref().map(|r| *r.start()),
            ..launch
        };
        if let Some(b) = launch.blocks_per_sm {
            let limit = launch.occupancy(&idgs, &profile);
            if b > limit.blocks_per_sm {
                diag::error(&format!(
                    "--blocks-per-sm {b} is above this kernel's maximum of {} blocks per \
                     SM ({} threads per block, {} registers per thread, {} shared bytes per \
                     block on {}; limited by {}); --regs and --shared change the limit",
                    limit.blocks_per_sm,
                    idgs.block.iter().product::<u32>(),
                    launch.regs_per_thread,
                    launch.shared_bytes_per_block,
                    profile.name,
                    limit.limiting_resource,
                ));
                return Err(ExitCode::from(2));
            }
        }
        let exec =
            sim::exec_for_occupancy(&idgs, &profile, &launch).map_err(|e| diag::fail(&file, e))?;
        let (mut result, records) = match &load_of(&exec) {
            None => sim::simulate_with_records(&idgs, &costs, &hw, &exec, &opts),
            Some(load) => {
                // The fixed point first; a recording is of the run at its latency.
                let first = sim::simulate(&idgs, &costs, &hw, &exec, rerun.opts)
                    .map_err(|e| diag::fail(&file, e))?;
                let (settled, scale) = load
                    .settle(
                        first,
                        |r| r.time_us,
                        |s| rerun.unchanged(&exec, s),
                        sim::loaded::probes_pay(&exec),
                        |s| rerun.probe(&exec, s),
                        |s| rerun.run(&exec, s),
                    )
                    .map_err(|e| diag::fail(&file, e))?;
                if args.trips.explain {
                    eprintln!(
                        "loaded DRAM latency: utilization {:.2} (writes {:.0} %), DRAM latency x{scale:.3}",
                        load.utilization(settled.time_us),
                        100.0 * load.write_share,
                    );
                }
                if opts.record {
                    let p = mapping_profile.with_dram_latency_scale(scale);
                    let (t, _) = gpu::map_kernel(&idgs, &p, metrics.as_ref());
                    let c = sim::costs_from_timing(&t);
                    sim::simulate_with_records(&idgs, &c, &hw, &exec, &opts)
                } else {
                    Ok((settled, Vec::new()))
                }
            }
        }
        .map_err(|e| diag::fail(&file, e))?;
        if args.trips.explain && config.sampled {
            explain_sampling(&result);
        }
        limit(&mut result);
        if let Some(p) = &args.profile {
            write_out(p, &sim::trace::chrome_trace(&idgs, &hw, &records))?;
        }
        if let Some(p) = &args.profile_svg {
            let svg =
                sim::trace::gantt_svg(&idgs, &hw, &records).map_err(|e| diag::fail(&file, e))?;
            write_out(p, &svg)?;
        }
        if args.plot.is_some() {
            diag::error("--plot draws a sweep; give --occupancy or --blocks-per-sm A..=B");
            return Err(ExitCode::from(2));
        }
        match args.format.unwrap_or(Format::Text) {
            Format::Text => {
                outln!("model: {model_line}");
                out!("{}", result.to_text());
            }
            Format::Json => outln!("{}", result.to_json()),
            Format::Csv => out!(
                "{}",
                sim::sweep_csv(
                    &[sim::SweepPoint {
                        occupancy_warps: result.occupancy_warps,
                        blocks_per_sm: result.concurrent_groups,
                        cycles: result.cycles,
                        wpc: result.wpc,
                        time_us: result.time_us,
                        result,
                    }],
                    args.precision
                )
            ),
        }
        return Ok(());
    };

    if args.profile.is_some() || args.profile_svg.is_some() {
        diag::error("--profile and --profile-svg record one run; drop the sweep range");
        return Err(ExitCode::from(2));
    }
    let plan =
        sim::LaunchSweep::new(&idgs, &profile, &launch, axis).map_err(|e| diag::fail(&file, e))?;
    if let Some(cut) = &plan.cut {
        diag::warning(
            &file,
            &format!("{}; --regs and --shared change the limit", cut.message()),
        );
    }
    let points = plan.points().map_err(|e| diag::fail(&file, e))?;
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(points as u64);
        b.set_message("simulating");
        b
    });
    let tick = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let sweep = plan.run(&idgs, &costs, &hw, &opts, &tick);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let mut sweep = sweep.map_err(|e| diag::fail(&file, e))?;
    rerun
        .settle_sweep(&load_of, &plan.base, &mut sweep)
        .map_err(|e| diag::fail(&file, e))?;
    config.apply_device_limits_to_sweep(&mut sweep, traffic.as_ref(), &profile);
    if let Some(p) = &args.plot {
        let title = format!(
            "{} on {}",
            profile::names::readable(&idgs.kernel),
            profile.name
        );
        write_out(p, &sim::sweep_plot_svg(&sweep, &title))?;
    }
    match args.format.unwrap_or(Format::Csv) {
        Format::Csv => out!("{}", sim::sweep_csv(&sweep, args.precision)),
        Format::Json => outln!(
            "{}",
            serde_json::to_string_pretty(&sweep).unwrap_or_default()
        ),
        Format::Text => {
            outln!("model: {model_line}");
            for p in &sweep {
                outln!(
                    "== {} warps ({} blocks per SM)",
                    p.occupancy_warps,
                    p.blocks_per_sm
                );
                out!("{}", p.result.to_text());
            }
        }
    }
    Ok(())
}

/// `--explain`: what the sampled simulation extrapolated instead of simulating.
fn explain_sampling(r: &sim::SimResult) {
    match &r.sampled {
        Some(s) => eprintln!(
            "sampled simulation: {} of {} instructions and {:.1} % of the core's cycles \
             extrapolated ({} steady stretches of loop iterations, {} of waves over {} groups, \
             {} long loops truncated); error bound {:.3} % of the cycles (--exact simulates \
             every instruction)",
            s.instructions,
            r.instructions,
            100.0 * s.cycles / r.cycles.max(f64::MIN_POSITIVE),
            s.skips - s.wave_skips,
            s.wave_skips,
            s.groups,
            s.truncated_loops,
            100.0 * s.error_bound_cycles / r.cycles.max(f64::MIN_POSITIVE),
        ),
        None => eprintln!(
            "sampled simulation: nothing extrapolated (no schedule stayed steady long enough); \
             the run is exact"
        ),
    }
}

/// `--explain`: the device-wide floors the launch's counters set and the overhead added, so a
/// user sees when the time is the floor's rather than the simulated core's.
fn explain_floors(config: &sim::ModelConfig, traffic: Option<&gpu::Traffic>, profile: &GpuProfile) {
    let us = |on: bool, v: Option<f64>| match (on, v) {
        (false, _) => "off".to_string(),
        (true, Some(v)) => format!("{v:.1} us"),
        (true, None) => "none (no counters or rates)".to_string(),
    };
    let floor =
        |f: fn(&GpuProfile, &gpu::Traffic) -> Option<f64>| traffic.and_then(|t| f(profile, t));
    // Without counters the bandwidth floor reads each run's own DRAM bytes
    // (`sim::ModelConfig::traffic_of`), printed with the run.
    let bandwidth = match traffic {
        None if config.bandwidth_floor && profile.bandwidth.is_some() => {
            "from each run's static DRAM bytes (no counters)".to_string()
        }
        _ => us(
            config.bandwidth_floor,
            floor(GpuProfile::bandwidth_floor_us),
        ),
    };
    eprintln!(
        "device floors: bandwidth {}, atomic {}; launch overhead {}",
        bandwidth,
        us(config.atomic_floor, floor(GpuProfile::atomic_floor_us)),
        us(config.launch_overhead, Some(profile.launch.overhead_us)),
    );
}
