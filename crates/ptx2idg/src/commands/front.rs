//! The CLI side of the front end: reads the PTX file and the `--trips` inputs, selects the
//! kernel, runs `walk::front_end`, and renders every failure through `diag`. Commands that
//! start from PTX (`ptx2idg FILE`, `simulate`, `models`, `map`) share it; `simulate` and
//! `models` also take IDG JSON through [`launch_idgs`], whose `--trips` inputs are read once
//! and give mapper g's counters ([`LaunchIdgs::counters`]) and `--explain`'s comparison.

use std::path::Path;
use std::process::ExitCode;

use super::args::{LaunchArgs, TripData, TripsArgs};
use super::idg::WalkArgs;
use super::sass_args::{KernelResources, SassArgs};
use crate::diag;

/// A parsed module and the name of the selected kernel.
pub struct Source {
    pub file: String,
    pub module: ptx::ast::Module,
    pub entry: String,
}

/// Reads and parses `path` and selects the kernel named by `query` (mangled, demangled or an
/// unambiguous substring; optional when the module has one kernel).
pub fn load(path: &Path, query: Option<&str>) -> Result<Source, ExitCode> {
    let file = path.display().to_string();
    let src = ptx::read_source(path).map_err(|e| diag::fail(&file, e))?;
    let module = ptx::parse(&src).map_err(|e| {
        diag::parse_error(&file, &src, &e);
        ExitCode::from(1)
    })?;
    let names: Vec<&str> = module.kernels().map(|f| f.name.as_str()).collect();
    let entry = ir::names::select_kernel(&names, query)
        .map_err(|e| diag::fail(&file, e))?
        .to_string();
    Ok(Source {
        file,
        module,
        entry,
    })
}

/// The IDGs of one launch and where they came from.
pub struct LaunchIdgs {
    pub file: String,
    pub idgs: idg::KernelIdgs,
    /// Static shared memory per block the PTX declares (0 for IDG JSON, which does not
    /// record it); more than `u32::MAX` bytes is refused when the PTX is read.
    pub static_shared: u32,
    /// The walk's divergent branches per warp class (`None` for IDG JSON).
    pub divergent: Option<Vec<u64>>,
    /// The `--trips` inputs for the kernel, read once.
    pub trips: TripData,
    /// The PTX's `.file` table by number (empty for IDG JSON), for the alignment pass.
    pub files: std::collections::BTreeMap<u32, String>,
}

impl LaunchIdgs {
    /// The profiled launch among `--trips` (the one `--invocation` picks), if any.
    pub fn profiled(&self, trips: &TripsArgs) -> Option<&profile::Launch> {
        self.trips.launch(&self.idgs.kernel, trips.invocation())
    }

    /// Mapper g's metrics and the launch's device-wide traffic from the profiled launch.
    pub fn counters(&self, trips: &TripsArgs) -> Option<(gpu::GMetrics, gpu::Traffic)> {
        self.profiled(trips)
            .map(|l| (gpu::GMetrics::from_launch(l), gpu::Traffic::from_launch(l)))
    }

    /// Mappers f and g over the IDGs with the counters `config` lets mapper g use; mapper
    /// warnings are printed against the file.
    pub fn map(
        self,
        trips: &TripsArgs,
        config: &sim::ModelConfig,
        gpu: &gpu::GpuProfile,
    ) -> Mapped {
        let (metrics, traffic) = self.counters(trips).filter(|_| config.mapper_g).unzip();
        let (timings, warnings) =
            gpu::map_kernel(&self.idgs, &config.mapping_profile(gpu), metrics.as_ref());
        for w in &warnings {
            diag::warning(&self.file, &w.to_string());
        }
        Mapped {
            file: self.file,
            idgs: self.idgs,
            timings,
            metrics,
            traffic,
        }
    }
}

/// A launch ready for the models: its IDGs, their node timings, and the counters mapper g and
/// the device-wide floors read (`None` without counters or with mapper g off).
pub struct Mapped {
    pub file: String,
    pub idgs: idg::KernelIdgs,
    pub timings: Vec<gpu::ClassTiming>,
    /// Mapper g's metrics (`None` without counters or with mapper g off): a run at the
    /// loaded DRAM latency maps the IDGs again with them.
    pub metrics: Option<gpu::GMetrics>,
    pub traffic: Option<gpu::Traffic>,
}

/// What the front end takes from the GPU a launch is modelled on.
#[derive(Debug, Clone, Copy, Default)]
pub struct GpuFront<'a> {
    /// The GPU profile's SASS factors: a profiled launch's instruction count is converted to
    /// PTX instructions before trip counts are fitted to it (`None`, for commands without a
    /// GPU: taken as PTX instructions).
    pub sass: Option<&'a gpu::SassExpansion>,
    /// Branches on unknown data shared among warps as the counters support (on unless `--no-fit-branches`;
    /// needs `sass`).
    pub fit_branches: bool,
    /// Profile-fitted loops split between the warps of a group by the busy share, with the
    /// GPU's warp slots (`None`: not split).
    pub uneven: Option<walk::uneven::Slots>,
}

/// [`launch_idgs`] for a model run under `config` on `gpu`: trip counts fitted in PTX
/// instructions, unknown branches fitted and loops split when it says so, and the IDGs
/// prepared for its mechanisms (`sim::ModelConfig::prepare_idgs`).
#[allow(clippy::too_many_arguments)]
pub fn model_idgs(
    path: &Path,
    kernel: Option<&str>,
    launch: &LaunchArgs,
    trips: &TripsArgs,
    walk_args: &WalkArgs,
    config: &sim::ModelConfig,
    gpu: &gpu::GpuProfile,
    sass: &SassArgs,
) -> Result<(LaunchIdgs, KernelResources), ExitCode> {
    let g = GpuFront {
        sass: Some(&gpu.sass_expansion),
        fit_branches: config.fit_branches,
        uneven: config.uneven_warps.then(|| ::eval::predict::slots(gpu)),
    };
    let mut li = launch_idgs(path, kernel, launch, trips, walk_args, g)?;
    let resources = sass.resolve(path, &li.idgs.kernel, gpu, li.static_shared)?;
    if let Some(report) = align_machine_code(&mut li.idgs, &resources, &li.files) {
        for w in report.warnings() {
            diag::warning(&li.file, &w);
        }
        if trips.explain {
            for n in report.notes() {
                eprintln!("{n}");
            }
        }
    }
    config.prepare_idgs(&mut li.idgs);
    Ok((li, resources))
}

/// The alignment pass (`crates/align`) over `idgs` with the kernel's listing, when the
/// resolution has one that holds the kernel.
pub fn align_machine_code(
    idgs: &mut idg::KernelIdgs,
    resources: &KernelResources,
    files: &std::collections::BTreeMap<u32, String>,
) -> Option<align::Report> {
    let kernel = resources.listing.as_ref()?.kernel(&idgs.kernel)?;
    Some(align::apply(idgs, kernel, files))
}

/// The IDGs of the launch: read from IDG JSON (`*.json`), or built from PTX by the front end
/// under `g` (see [`run`]).
pub fn launch_idgs(
    path: &Path,
    kernel: Option<&str>,
    launch: &LaunchArgs,
    trips: &TripsArgs,
    walk_args: &WalkArgs,
    g: GpuFront<'_>,
) -> Result<LaunchIdgs, ExitCode> {
    let file = path.display().to_string();
    if path.extension().is_some_and(|e| e == "json") {
        let text = ptx::read_source(path).map_err(|e| diag::fail(&file, e))?;
        let idgs = idg::KernelIdgs::from_json(&text).map_err(|e| diag::fail(&file, e))?;
        let trips = trips.load(&idgs.kernel).map_err(|e| diag::fail(&file, e))?;
        return Ok(LaunchIdgs {
            file,
            idgs,
            static_shared: 0,
            divergent: None,
            trips,
            files: Default::default(),
        });
    }
    let source = load(path, kernel)?;
    // An array whose size overflows was counted as 0 bytes, a total past 4 GiB as 4 GiB.
    let static_shared = source
        .module
        .static_shared_bytes(&source.entry)
        .map_err(|e| diag::fail(&file, format!("kernel `{}`: {e}", source.entry)))?
        .unwrap_or(0);
    let (fe, trips) = run(&source, launch, trips, walk_args, g)?;
    Ok(LaunchIdgs {
        file,
        idgs: fe.built.idgs,
        static_shared,
        divergent: Some(fe.built.divergent_branches),
        trips,
        files: align::file_table(&source.module),
    })
}

/// Runs the front end for `source` under the launch, trip and walk options; also returns the
/// parsed `--trips` inputs, whose profiler metrics mapper g reads. With the GPU's SASS
/// factors (`g.sass`), trip counts are fitted to a profiled launch's instructions converted to
/// PTX instructions; with `g.fit_branches` too, a profiled launch and no `--unknown-branch`,
/// branches on unknown data are shared among warps as the counters support
/// (`walk::profile_consistent`). With `g.uneven` and a profiled launch, its busy share of the
/// warp slots splits the profile-fitted loops between the warps of a group (`walk::uneven`).
pub fn run(
    source: &Source,
    launch: &LaunchArgs,
    trips: &TripsArgs,
    walk_args: &WalkArgs,
    g: GpuFront<'_>,
) -> Result<(walk::FrontEnd, TripData), ExitCode> {
    let kernels: Vec<&str> = source.module.kernels().map(|f| f.name.as_str()).collect();
    let mut data = trips.load_checked(&source.entry, &kernels).map_err(|e| {
        diag::error(&e);
        ExitCode::from(1)
    })?;
    if let Some(sass) = g.sass {
        data = data.in_ptx(sass.inst);
    }
    for n in &data.notes {
        diag::emit(diag::Level::Warning, None, n);
    }
    let (unknown, why) = unknown_branch_policy(walk_args, &data, &source.entry, trips);
    let busy_share = g
        .uneven
        .and_then(|slots| data.busy_share(&source.entry, trips.invocation(), Some(slots)));
    let opts = walk::Options {
        unknown_branch: unknown,
        busy_share,
        // Counters, where the profile has the launch, give mapper g the DRAM share.
        nearby_groups: data.launch(&source.entry, trips.invocation()).is_none(),
        ..walk_args.options()
    };
    let measured = match (walk_args.unknown_branch, g.sass) {
        (None, Some(sass)) if g.fit_branches => data
            .launch(&source.entry, trips.invocation())
            .map(|l| (l, sass.inst)),
        _ => None,
    };
    let (fe, choice) = walk::front_end_fitted(
        &source.module,
        &source.entry,
        &launch.launch(),
        &data.inputs(),
        &opts,
        measured,
    )
    .map_err(|e| diag::fail(&source.file, e))?;
    for w in &fe.trips.warnings {
        diag::warning(&source.file, &w.message);
    }
    if trips.explain {
        eprint!(
            "{}",
            ir::render::explain(&fe.kernel, &fe.analysis, &fe.trips)
        );
        if !fe.built.unknown_branches.is_empty() {
            let lines: Vec<String> = fe
                .built
                .unknown_branches
                .iter()
                .map(u32::to_string)
                .collect();
            match &choice {
                Some(c) => eprintln!(
                    "branches on data the launch does not decide (PTX lines {}): {}",
                    lines.join(", "),
                    c.describe()
                ),
                None => eprintln!(
                    "branches on data the launch does not decide (PTX lines {}): assumed {} ({why})",
                    lines.join(", "),
                    match unknown {
                        walk::UnknownBranch::Taken => "taken",
                        walk::UnknownBranch::NotTaken => "not taken",
                        walk::UnknownBranch::Heavier => "to take the side with more code",
                        walk::UnknownBranch::Both => "both sides (divergent)",
                    }
                ),
            }
        }
    }
    Ok((fe, data))
}

/// The assumption for branches on unknown data: the user's `--unknown-branch`, else profile
/// evidence (`TripData::unknown_branch`), else the default (`walk::UnknownBranch::Heavier`).
fn unknown_branch_policy(
    args: &WalkArgs,
    data: &TripData,
    entry: &str,
    trips: &TripsArgs,
) -> (walk::UnknownBranch, String) {
    if let Some(u) = args.unknown_branch {
        return (u.into(), "--unknown-branch".into());
    }
    data.unknown_branch(entry, trips.invocation())
        .unwrap_or((walk::UnknownBranch::default(), "default".into()))
}
