//! `ptx2idg models FILE.ptx|FILE.json [--gpu NAME] [launch] [trips] [--occupancy A..=B]
//! [--explain] [--plot F]`: the analytical models of pipeline-model-analysis section 2 (crate
//! `models`) beside the Pipeline simulation, one row per resident-warp count.
//!
//! Prints CSV with the stable header `models::CSV_HEADER` on stdout (its last column,
//! `unified`, is the unified hardware-fitted model: one value in every row, empty when the
//! profile has no `[unified_model]`); `--explain` (shared with
//! the trip-count explanation) writes the derived software and hardware quantities to stderr;
//! `--plot` writes all curves on one SVG chart (Fig. 14). Mappers f and g time the nodes exactly
//! as `simulate` does, so both read the same λ/Λ; `--no-pipeline` skips the simulation (long
//! loops make it the slow part). Errors go through `diag`.

use crate::diag::out;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::{parse_range, LaunchArgs, TripsArgs};
use super::front;
use super::gpu_args::GpuArgs;
use super::idg::WalkArgs;
use super::model_args::ModelArgs;
use super::sass_args::SassArgs;
use crate::diag;

#[derive(clap::Args)]
pub struct ModelsArgs {
    /// A PTX file, or the IDG JSON of a launch (`ptx2idg FILE --format json`).
    file: PathBuf,
    /// The kernel (PTX input): mangled name, demangled name or an unambiguous substring.
    #[arg(long)]
    kernel: Option<String>,
    #[command(flatten)]
    gpu: GpuArgs,
    /// The model of the `pipeline` column: the validated configuration unless a flag changes
    /// it (mapper g also times the analytical models' nodes).
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    #[command(flatten)]
    launch: LaunchArgs,
    #[command(flatten)]
    trips: TripsArgs,
    #[command(flatten)]
    walk: WalkArgs,
    /// `--sass`, `--regs`, `--shared`: the kernel's occupancy limit, which `--explain` prints.
    #[command(flatten)]
    sass: SassArgs,
    /// Resident warps per core: A..=B, A..B (exclusive end), A-B or N; only whole groups.
    #[arg(long, value_name = "A..=B", value_parser = parse_range, default_value = "1..=64")]
    occupancy: RangeInclusive<u32>,
    /// Leave the `pipeline` column empty: the analytical models only, without simulating.
    #[arg(long)]
    no_pipeline: bool,
    /// Write all curves (WPC against occupancy) on one SVG chart.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Significant digits of the numbers in CSV output (1-17; 17 reads back every value
    /// exactly).
    #[arg(long, value_name = "DIGITS", default_value_t = sim::number::DEFAULT_DIGITS,
          value_parser = clap::value_parser!(u32).range(1..=17))]
    precision: u32,
}

pub fn run(args: &ModelsArgs) -> ExitCode {
    match run_inner(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn run_inner(args: &ModelsArgs) -> Result<(), ExitCode> {
    let inputs: Vec<&std::path::Path> = std::iter::once(args.file.as_path())
        .chain(args.trips.files())
        .chain(args.gpu.file())
        .collect();
    diag::refuse_overwrites(&[("--plot", args.plot.as_deref())], &inputs, &[])?;
    let profile = args.gpu.load()?;
    let most = profile.limits.max_warps_per_sm;
    if *args.occupancy.end() > most {
        diag::error(&format!(
            "--occupancy {}..={} reaches past the {most} warps an SM of {} holds; give at \
             most {}..={most}",
            args.occupancy.start(),
            args.occupancy.end(),
            profile.name,
            (*args.occupancy.start()).min(most),
        ));
        return Err(ExitCode::from(2));
    }
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
    let front::Mapped {
        file,
        idgs,
        timings,
        traffic,
        metrics,
    } = li.map(&args.trips, &config, &profile);
    // The rows cover the requested warps whatever the kernel's resources allow; `--explain`
    // says where its occupancy limit lies.
    let occupancy_line = if args.trips.explain {
        let r = resources;
        let limit = gpu::occupancy(&profile, idgs.block.iter().product(), r.regs, r.shared);
        Some(format!(
            "{}occupancy limit: {} warps ({} blocks per SM, limited by {}; {} shared bytes per \
             block)\n",
            r.explain(),
            limit.warps_per_sm,
            limit.blocks_per_sm,
            limit.limiting_resource,
            r.shared,
        ))
    } else {
        None
    };
    let table = if args.no_pipeline {
        models::analytical_table(&idgs, &timings, &profile, args.occupancy.clone())
    } else {
        models::models_table(
            &idgs,
            &timings,
            &profile,
            &config,
            metrics.as_ref().zip(traffic.as_ref()),
            args.occupancy.clone(),
        )
    }
    .map_err(|e| diag::fail(&file, e))?;
    if args.trips.explain {
        if !args.no_pipeline {
            eprintln!("model: {}", config.describe_run(metrics.is_some()));
        }
        eprint!("{}", table.explain());
        eprint!("{}", occupancy_line.unwrap_or_default());
    }
    if let Some(path) = &args.plot {
        diag::write_file(path, table.to_svg().as_bytes())
            .map_err(|e| diag::fail(&path.display().to_string(), e))?;
    }
    out!("{}", table.to_csv(args.precision));
    Ok(())
}
