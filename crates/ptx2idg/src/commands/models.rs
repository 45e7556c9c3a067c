//! `ptx2idg models FILE.ptx|FILE.json [--gpu NAME] [launch] [trips] [--occupancy A..=B]
//! [--explain] [--plot F]`: the analytical models of pipeline-model-analysis section 2 (crate
//! `models`) beside the Pipeline simulation, one row per resident-warp count.
//!
//! Prints CSV with the stable header `models::CSV_HEADER` on stdout; `--explain` (shared with
//! the trip-count explanation) writes the derived software and hardware quantities to stderr;
//! `--plot` writes all curves on one SVG chart (Fig. 14). Mappers f and g time the nodes exactly
//! as `simulate` does, so both read the same λ/Λ; `--no-pipeline` skips the simulation (long
//! loops make it the slow part). Errors go through `diag`.

use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::{LaunchArgs, TripsArgs};
use super::front;
use super::gpu_args::GpuArgs;
use super::idg::WalkArgs;
use super::model_args::ModelArgs;
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
    /// Resident warps per core: A..=B, A..B (exclusive end), A-B or N; only whole groups.
    #[arg(long, value_name = "A..=B", value_parser = parse_range, default_value = "1..=64")]
    occupancy: RangeInclusive<u32>,
    /// Leave the `pipeline` column empty: the analytical models only, without simulating.
    #[arg(long)]
    no_pipeline: bool,
    /// Write all curves (WPC against occupancy) on one SVG chart.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
}

fn parse_range(s: &str) -> Result<RangeInclusive<u32>, String> {
    let num = |t: &str| {
        t.trim()
            .parse::<u32>()
            .ok()
            .filter(|v| *v > 0)
            .ok_or_else(|| format!("`{t}` in `{s}` is not a positive integer"))
    };
    let r = if let Some((a, b)) = s.split_once("..=") {
        num(a)?..=num(b)?
    } else if let Some((a, b)) = s.split_once("..") {
        num(a)?..=num(b)?.saturating_sub(1)
    } else if let Some((a, b)) = s.split_once('-') {
        num(a)?..=num(b)?
    } else {
        let n = num(s)?;
        n..=n
    };
    if r.is_empty() {
        return Err(format!("`{s}` is an empty range"));
    }
    Ok(r)
}

fn fail(file: &str, e: impl std::fmt::Display) -> ExitCode {
    diag::file_error(file, &e.to_string());
    ExitCode::from(1)
}

fn load_idgs(args: &ModelsArgs) -> Result<(String, idg::KernelIdgs), ExitCode> {
    let file = args.file.display().to_string();
    if args.file.extension().is_some_and(|e| e == "json") {
        let text = ptx::read_source(&args.file).map_err(|e| fail(&file, e))?;
        let k = idg::KernelIdgs::from_json(&text).map_err(|e| fail(&file, e))?;
        return Ok((file, k));
    }
    let source = front::load(&args.file, args.kernel.as_deref())?;
    let (fe, _trip_data) = front::run(&source, &args.launch, &args.trips, &args.walk)?;
    Ok((file, fe.built.idgs))
}

pub fn run(args: &ModelsArgs) -> ExitCode {
    match run_inner(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn run_inner(args: &ModelsArgs) -> Result<(), ExitCode> {
    let profile = args.gpu.load()?;
    let config = args.model.config(&profile);
    let (file, mut idgs) = load_idgs(args)?;
    config.prepare_idgs(&mut idgs);
    let counters = if !config.mapper_g {
        None
    } else {
        let data = args.trips.load(&idgs.kernel).map_err(|e| fail(&file, e))?;
        data.launch(&idgs.kernel, args.trips.invocation())
            .map(|l| (gpu::GMetrics::from_launch(l), gpu::Traffic::from_launch(l)))
    };
    let (metrics, traffic) = counters.unzip();
    let (timings, warnings) = gpu::map_kernel(&idgs, &profile, metrics.as_ref());
    for w in &warnings {
        diag::file_error(&file, &format!("warning: {w}"));
    }
    let table = if args.no_pipeline {
        models::analytical_table(&idgs, &timings, &profile, args.occupancy.clone())
    } else {
        models::models_table(
            &idgs,
            &timings,
            &profile,
            &config,
            traffic.as_ref(),
            args.occupancy.clone(),
        )
    }
    .map_err(|e| fail(&file, e))?;
    if args.trips.explain {
        if !args.no_pipeline {
            eprintln!("model: {}", config.describe());
        }
        eprint!("{}", table.explain());
    }
    if let Some(path) = &args.plot {
        std::fs::write(path, table.to_svg()).map_err(|e| fail(&path.display().to_string(), e))?;
    }
    print!("{}", table.to_csv());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_range;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("1..=64").unwrap(), 1..=64);
        assert_eq!(parse_range("8..64").unwrap(), 8..=63);
        assert_eq!(parse_range("8-64").unwrap(), 8..=64);
        assert_eq!(parse_range("32").unwrap(), 32..=32);
        assert!(parse_range("0..=4").is_err());
        assert!(parse_range("9..=4").is_err());
    }
}
