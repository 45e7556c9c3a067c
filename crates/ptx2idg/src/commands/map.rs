//! `ptx2idg map FILE [--kernel K] [--gpu NAME|--gpu-file PATH] [--trips CSV]... [launch]
//! [--format table|json]`: builds the kernel's IDGs, runs mappers f and g, and prints per
//! distinct instruction its class, subsystem, λ, Λ and the deciding source (f, g-profile,
//! g-static, conservative). Profiler files among `--trips` feed mapper g (§6.3); without
//! them g uses the static access patterns. Mapper warnings go to stderr through `diag`.

use crate::diag::{out, outln};
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::{LaunchArgs, TripsArgs};
use super::front;
use super::gpu_args::GpuArgs;
use super::idg::WalkArgs;
use crate::diag;

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Table,
    Json,
}

#[derive(clap::Args, Debug)]
pub struct MapArgs {
    /// The PTX file.
    pub file: PathBuf,
    /// The kernel: mangled name, demangled name or an unambiguous substring.
    #[arg(long)]
    pub kernel: Option<String>,
    #[command(flatten)]
    pub gpu: GpuArgs,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Do not use profiler metrics for mapper g even when `--trips` gives a profiler file.
    #[arg(long)]
    pub no_metrics: bool,
    #[command(flatten)]
    pub launch: LaunchArgs,
    #[command(flatten)]
    pub trips: TripsArgs,
    #[command(flatten)]
    pub walk: WalkArgs,
}

pub fn run(args: &MapArgs) -> ExitCode {
    let gpu = match args.gpu.load() {
        Ok(g) => g,
        Err(code) => return code,
    };
    let source = match front::load(&args.file, args.kernel.as_deref()) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let (fe, _trip_data) = match front::run(
        &source,
        &args.launch,
        &args.trips,
        &args.walk,
        front::GpuFront {
            sass: Some(&gpu.sass_expansion),
            ..front::GpuFront::default()
        },
    ) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let metrics = if args.no_metrics {
        None
    } else {
        match metrics(&args.trips, &source.entry) {
            Ok(m) => m,
            Err(e) => {
                diag::file_error(&source.file, &e);
                return ExitCode::from(1);
            }
        }
    };
    let m = render_mapping(&fe.built.idgs, &gpu, metrics.as_ref());
    for w in &m.warnings {
        diag::warning(&source.file, &w.to_string());
    }
    match args.format {
        Format::Table => out!("{}", gpu::mapping_table(&m)),
        Format::Json => match serde_json::to_string_pretty(&m) {
            Ok(s) => outln!("{s}"),
            Err(e) => {
                diag::file_error(&source.file, &e.to_string());
                return ExitCode::from(1);
            }
        },
    }
    ExitCode::SUCCESS
}

/// Mappers f and g over a built launch, as the report `map` prints.
pub fn render_mapping(
    idgs: &idg::KernelIdgs,
    gpu: &gpu::GpuProfile,
    metrics: Option<&gpu::GMetrics>,
) -> gpu::Mapping {
    let (timings, warnings) = gpu::map_kernel(idgs, gpu, metrics);
    gpu::mapping(idgs, &timings, gpu, warnings)
}

/// Mapper g's metrics from the first profiler file among `--trips` that profiled `entry`.
fn metrics(trips: &TripsArgs, entry: &str) -> Result<Option<gpu::GMetrics>, String> {
    let data = trips.load(entry)?;
    for p in &data.profiles {
        if let Ok(launch) = p.launch(entry, trips.invocation()) {
            return Ok(Some(gpu::GMetrics::from_launch(launch)));
        }
    }
    Ok(None)
}
