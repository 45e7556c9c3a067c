//! `ptx2idg._ptx2idg`: the native half of the Python package. Owns the conversion between
//! Python arguments and the library crates' inputs, and the mapping of their errors onto
//! Python exceptions; everything it computes comes from the same library calls the CLI makes,
//! and tables come back as the CLI's CSV text so the Python side reads exactly the CLI's
//! columns and numbers. The Python wrapper (`python/ptx2idg/__init__.py`) turns the text into
//! dicts and DataFrames.
//!
//! Long calls run on a worker thread while the calling thread, without the GIL, waits in short
//! slices and checks for signals between them, so Ctrl-C raises `KeyboardInterrupt` at once;
//! the abandoned worker finishes in the background and its result is dropped.

use std::ops::RangeInclusive;
use std::sync::mpsc;
use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;

create_exception!(
    _ptx2idg,
    Ptx2idgError,
    PyException,
    "An input ptx2idg cannot use (a kernel, a launch, a profile, a GPU profile)."
);
create_exception!(
    _ptx2idg,
    PtxError,
    Ptx2idgError,
    "PTX that does not parse; the message starts with file:line:column."
);

/// `LaunchError(Ptx2idgError, ValueError)`: a launch value the kernel cannot take. Both
/// bases, so that `except ValueError` catches a bad argument as for any Python function, and
/// `except Ptx2idgError` still catches every refusal of the library. `create_exception!` takes
/// one base, so the class is made by calling `type` when the module loads.
static LAUNCH_ERROR: pyo3::sync::GILOnceCell<Py<pyo3::types::PyType>> =
    pyo3::sync::GILOnceCell::new();

fn launch_error_type(py: Python<'_>) -> PyResult<&Py<pyo3::types::PyType>> {
    LAUNCH_ERROR.get_or_try_init(py, || {
        let bases = (py.get_type::<Ptx2idgError>(), py.get_type::<PyValueError>());
        let attrs = pyo3::types::PyDict::new(py);
        attrs.set_item(
            "__doc__",
            "A launch value the kernel cannot take (a parameter's type, width or name); both a \
             Ptx2idgError and a ValueError.",
        )?;
        attrs.set_item("__module__", "ptx2idg")?;
        py.get_type::<pyo3::types::PyType>()
            .call1(("LaunchError", bases, attrs))?
            .downcast_into::<pyo3::types::PyType>()
            .map(Bound::unbind)
            .map_err(PyErr::from)
    })
}

/// An error of a library crate, rendered once for Python.
enum Failure {
    Parse {
        file: String,
        line: u32,
        col: u32,
        message: String,
    },
    Input(String),
    /// A launch value the kernel cannot take, the message naming the argument.
    Launch(String),
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        match f {
            Failure::Parse {
                file,
                line,
                col,
                message,
            } => PtxError::new_err(format!("{file}:{line}:{col}: {message}")),
            Failure::Input(m) => Ptx2idgError::new_err(m),
            Failure::Launch(m) => Python::with_gil(|py| match launch_error_type(py) {
                Ok(t) => PyErr::from_type(t.bind(py).clone(), m),
                Err(e) => e,
            }),
        }
    }
}

/// A value of `params`, as the Python wrapper normalises it (an int in the i64 range or a
/// float): extracted by Python type, so that an int is never read as a float.
struct PyParam(ir::ParamValue);

impl<'py> FromPyObject<'py> for PyParam {
    fn extract_bound(v: &Bound<'py, PyAny>) -> PyResult<Self> {
        if v.is_instance_of::<pyo3::types::PyInt>() {
            Ok(PyParam(ir::ParamValue::Int(v.extract()?)))
        } else {
            Ok(PyParam(ir::ParamValue::Float(v.extract()?)))
        }
    }
}

fn input(file: &str, e: impl std::fmt::Display) -> Failure {
    Failure::Input(format!("{file}: {e}"))
}

/// Runs `work` off the calling thread with the GIL released, answering Ctrl-C.
fn interruptible<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, Failure> + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        // The receiver is gone only after an interrupt; the result is then unwanted.
        let _ = tx.send(work());
    });
    let mut rx = rx;
    loop {
        // The receiver travels into the GIL-free section and back (it is Send, not Sync).
        let (got, back) = py.allow_threads(move || {
            let got = rx.recv_timeout(Duration::from_millis(50));
            (got, rx)
        });
        rx = back;
        match got {
            Ok(r) => return r.map_err(PyErr::from),
            Err(mpsc::RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Ptx2idgError::new_err("the worker thread panicked"))
            }
        }
    }
}

fn parse(file: &str, src: &str) -> Result<ptx::ast::Module, Failure> {
    ptx::parse(src).map_err(|e| Failure::Parse {
        file: file.to_string(),
        line: e.span.line,
        col: e.span.col,
        message: e.message,
    })
}

/// The kernels of a PTX source as JSON: `ptx2idg check --json`'s kernel objects
/// (`ptx::KernelSummary` with the name and demangled name) plus the static shared bytes.
#[pyfunction]
fn kernels(file: &str, src: &str) -> PyResult<String> {
    let module = parse(file, src)?;
    let list: Vec<serde_json::Value> = module
        .kernels()
        .map(|f| -> PyResult<serde_json::Value> {
            let mut v = serde_json::json!({
                "name": f.name,
                "demangled": profile::names::demangle(&f.name),
            });
            if let (Some(o), Ok(serde_json::Value::Object(s))) = (
                v.as_object_mut(),
                serde_json::to_value(ptx::kernel_summary(f)),
            ) {
                o.extend(s);
                let shared = module
                    .static_shared_bytes(&f.name)
                    .map_err(|e| PyErr::from(input(file, format!("kernel `{}`: {e}", f.name))))?;
                o.insert("shared_bytes".into(), shared.unwrap_or(0).into());
            }
            Ok(v)
        })
        .collect::<PyResult<_>>()?;
    Ok(serde_json::Value::Array(list).to_string())
}

/// One kernel launch as the front end takes it.
#[derive(Clone)]
struct Front {
    file: String,
    src: String,
    kernel: Option<String>,
    launch: ir::Launch,
    /// `(name or index, label)` of each parameter value: the label (`params['n']`) names the
    /// argument in errors.
    param_labels: Vec<(String, String)>,
    /// `(origin, text)` of every trips table or profiler export.
    trips: Vec<(String, String)>,
    invocation: Option<usize>,
    unknown_branch: Option<walk::UnknownBranch>,
    groups: walk::Groups,
}

struct Built {
    idgs: ::idg::KernelIdgs,
    static_shared: u32,
    /// The PTX's `.file` table, for the alignment pass.
    files: std::collections::BTreeMap<u32, String>,
    metrics: Option<gpu::GMetrics>,
    traffic: Option<gpu::Traffic>,
    notes: Vec<String>,
}

impl Front {
    /// The launch's IDGs, as the CLI builds them: for a model run on a GPU (`model`: its
    /// profile, for its SASS instructions per PTX instruction and its warp slots, and the
    /// model configuration) trip
    /// counts are fitted to the profile's instructions in PTX units; with the configuration's
    /// `fit_branches` and no explicit `unknown_branch`, branches on unknown data are shared
    /// among warps as the profiled launch's counters support (`walk::profile_consistent`);
    /// with its `uneven_warps` the profile-fitted loops split between the warps of a group by
    /// the profiled launch's busy share (`walk::uneven`).
    fn build(
        &self,
        model: Option<(&gpu::GpuProfile, &sim::ModelConfig)>,
    ) -> Result<Built, Failure> {
        let sass_per_ptx = model.map(|(p, _)| p.sass_expansion.inst);
        let uneven = model
            .filter(|(_, c)| c.uneven_warps)
            .map(|(p, _)| eval::predict::slots(p));
        let module = parse(&self.file, &self.src)?;
        let names: Vec<&str> = module.kernels().map(|f| f.name.as_str()).collect();
        let entry = ir::names::select_kernel(&names, self.kernel.as_deref())
            .map_err(|e| input(&self.file, e))?
            .to_string();
        let files = self
            .trips
            .iter()
            .map(|(origin, text)| profile::parse(text, origin))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| Failure::Input(e.to_string()))?;
        let inv = match self.invocation {
            Some(n) => profile::Invocation::Index(n),
            None => profile::Invocation::Median,
        };
        let mut data = walk::trip_data(files, &entry, Some(&names), inv)
            .map_err(|e| Failure::Input(e.to_string()))?;
        if let Some(f) = sass_per_ptx {
            data = data.in_ptx(f);
        }
        let unknown_branch = self
            .unknown_branch
            .or_else(|| data.unknown_branch(&entry, inv).map(|(u, _)| u))
            .unwrap_or_default();
        let busy_share = uneven.and_then(|slots| data.busy_share(&entry, inv, Some(slots)));
        let opts = walk::Options {
            unknown_branch,
            groups: self.groups,
            busy_share,
            // Counters, where the profile has the launch, give mapper g the DRAM share.
            nearby_groups: data.launch(&entry, inv).is_none(),
            ..walk::Options::default()
        };
        let measured = match (self.unknown_branch, model) {
            (None, Some((p, c))) if c.fit_branches => {
                data.launch(&entry, inv).map(|l| (l, p.sass_expansion.inst))
            }
            _ => None,
        };
        let (fe, choice) = walk::front_end_fitted(
            &module,
            &entry,
            &self.launch,
            &data.inputs(),
            &opts,
            measured,
        )
        .map_err(|e| self.front_failure(e))?;
        let mut notes = data.notes.clone();
        notes.extend(fe.trips.warnings.iter().map(|w| w.message.clone()));
        notes.extend(choice.map(|c| c.describe()));
        Ok(Built {
            files: align::file_table(&module),
            static_shared: module
                .static_shared_bytes(&entry)
                .map_err(|e| input(&self.file, format!("kernel `{entry}`: {e}")))?
                .unwrap_or(0),
            metrics: data.launch(&entry, inv).map(gpu::GMetrics::from_launch),
            traffic: data.launch(&entry, inv).map(gpu::Traffic::from_launch),
            idgs: fe.built.idgs,
            notes,
        })
    }
}

impl Front {
    /// An error of the front end; one about a parameter value names the argument.
    fn front_failure(&self, e: walk::FrontError) -> Failure {
        use ir::IrError as E;
        let given = match &e {
            walk::FrontError::Ir(
                E::ParamRange { given, .. }
                | E::ParamType { given, .. }
                | E::ParamTwice { second: given, .. }
                | E::UnknownParam { param: given, .. },
            ) => given,
            _ => return input(&self.file, e),
        };
        let label = self.param_labels.iter().find(|(g, _)| g == given);
        let value = self.launch.params.iter().find(|(g, _)| g == given);
        match (label, value) {
            (Some((_, label)), Some((_, v))) => Failure::Launch(format!("{label}={v}: {e}")),
            _ => Failure::Launch(e.to_string()),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn front(
    file: String,
    src: String,
    kernel: Option<String>,
    grid: [u32; 3],
    block: [u32; 3],
    params: Vec<(String, String, PyParam)>,
    trips: Vec<(String, String)>,
    invocation: Option<usize>,
    unknown_branch: Option<&str>,
    groups: Option<u64>,
) -> PyResult<Front> {
    let unknown_branch = match unknown_branch {
        None => None,
        Some("taken") => Some(walk::UnknownBranch::Taken),
        Some("not_taken") => Some(walk::UnknownBranch::NotTaken),
        Some("heavier") => Some(walk::UnknownBranch::Heavier),
        Some("both") => Some(walk::UnknownBranch::Both),
        Some(o) => {
            return Err(PyValueError::new_err(format!(
                "unknown_branch={o:?}: expected 'taken', 'not_taken', 'heavier' or 'both'"
            )))
        }
    };
    ir::Launch::check_dims(grid, block)
        .map_err(|e| PyValueError::new_err(format!("grid={grid:?}, block={block:?}: {e}")))?;
    Ok(Front {
        file,
        src,
        kernel,
        param_labels: params
            .iter()
            .map(|(given, label, _)| (given.clone(), label.clone()))
            .collect(),
        launch: ir::Launch {
            grid,
            block,
            params: params.into_iter().map(|(g, _, v)| (g, v.0)).collect(),
        },
        trips,
        invocation,
        unknown_branch,
        groups: match groups {
            None => walk::Groups::Middle,
            Some(0) => return Err(PyValueError::new_err("groups=0: expected a positive count")),
            Some(n) => walk::Groups::Count(n),
        },
    })
}

/// The IDGs of one launch: `(idg_json, stats_json, notes)`.
#[pyfunction]
#[pyo3(name = "idg", signature = (file, src, kernel, grid, block, params, trips, invocation, unknown_branch, groups))]
#[allow(clippy::too_many_arguments)]
fn build_idg(
    py: Python<'_>,
    file: String,
    src: String,
    kernel: Option<String>,
    grid: [u32; 3],
    block: [u32; 3],
    params: Vec<(String, String, PyParam)>,
    trips: Vec<(String, String)>,
    invocation: Option<usize>,
    unknown_branch: Option<&str>,
    groups: Option<u64>,
) -> PyResult<(String, String, Vec<String>)> {
    let f = front(
        file,
        src,
        kernel,
        grid,
        block,
        params,
        trips,
        invocation,
        unknown_branch,
        groups,
    )?;
    interruptible(py, move || {
        let b = f.build(None)?;
        b.idgs
            .check_analysis()
            .map_err(|e| Failure::Input(e.to_string()))?;
        Ok((
            b.idgs.to_json(),
            ::idg::render::stats_json(&b.idgs),
            b.notes,
        ))
    })
}

fn gpu_profile(gpu: &str) -> Result<gpu::GpuProfile, Failure> {
    match gpu::GpuProfile::bundled(gpu) {
        Err(gpu::GpuError::UnknownGpu { .. }) if std::path::Path::new(gpu).is_file() => {
            gpu::GpuProfile::from_file(std::path::Path::new(gpu))
        }
        r => r,
    }
    .map_err(|e| Failure::Input(e.to_string()))
}

/// The model's switches a caller may change; `None` keeps the validated configuration's.
#[derive(Clone, Copy)]
struct ModelSwitches {
    scheduler: Option<sim::Scheduler>,
    order: Option<sim::IssueOrder>,
    sub_partitions: Option<bool>,
    window: Option<u32>,
    mapper_g: bool,
}

impl ModelSwitches {
    fn parse(
        scheduler: Option<&str>,
        order: Option<&str>,
        sub_partitions: Option<bool>,
        window: Option<u32>,
        mapper_g: bool,
    ) -> PyResult<ModelSwitches> {
        // The CLI's --window bound: a window of a million allocated about 15 GB.
        if let Some(w) = window.filter(|w| !(1..=1024).contains(w)) {
            return Err(PyValueError::new_err(format!(
                "window={w}: expected 1 to 1024 instructions"
            )));
        }
        Ok(ModelSwitches {
            scheduler: match scheduler {
                None => None,
                Some("gto") => Some(sim::Scheduler::GreedyThenOldest),
                Some("lrr") => Some(sim::Scheduler::LooseRoundRobin),
                Some("oldest") => Some(sim::Scheduler::OldestFirst),
                Some(o) => {
                    return Err(PyValueError::new_err(format!(
                        "scheduler={o:?}: expected 'gto', 'lrr' or 'oldest'"
                    )))
                }
            },
            order: match order {
                None => None,
                Some("scheduled") => Some(sim::IssueOrder::Scheduled),
                Some("dataflow") => Some(sim::IssueOrder::Dataflow),
                Some("in_order") => Some(sim::IssueOrder::InOrder),
                Some(o) => {
                    return Err(PyValueError::new_err(format!(
                        "order={o:?}: expected 'scheduled', 'dataflow' or 'in_order'"
                    )))
                }
            },
            sub_partitions,
            window,
            mapper_g,
        })
    }

    /// The validated configuration for `profile` with these changes.
    fn config(&self, profile: &gpu::GpuProfile) -> sim::ModelConfig {
        let base = sim::ModelConfig::validated(profile);
        sim::ModelConfig {
            mapper_g: self.mapper_g,
            scheduler: self.scheduler.unwrap_or(base.scheduler),
            order: self.order.unwrap_or(base.order),
            sub_partitions: self.sub_partitions.unwrap_or(base.sub_partitions),
            window: self.window.unwrap_or(base.window),
            ..base
        }
    }
}

fn range(lo: u32, hi: u32, what: &str) -> PyResult<RangeInclusive<u32>> {
    if lo == 0 || hi < lo {
        return Err(PyValueError::new_err(format!(
            "{what}: {lo}..={hi} is not a non-empty range of positive integers"
        )));
    }
    Ok(lo..=hi)
}

/// `sass=` (`None`: `PTX2IDG_SASS`, else `auto`), as the CLI's `--sass` takes it.
fn sass_source(sass: Option<&str>) -> PyResult<sass::resolve::Source> {
    sass::resolve::Source::given_or_env(sass).map_err(|e| {
        let shown = sass.map_or_else(
            || {
                format!(
                    "{}={:?}",
                    sass::resolve::SASS_ENV,
                    std::env::var(sass::resolve::SASS_ENV).unwrap_or_default()
                )
            },
            |s| format!("sass={s:?}"),
        );
        PyValueError::new_err(format!("{shown}: {e}"))
    })
}

/// The launch's IDGs made ready for a model run under `config` on `profile`, as the CLI's
/// `model_idgs` and `map` do: the resolution's notes kept, the IDGs aligned with the kernel's
/// listing where it has one (`crates/align`, its warnings kept), the configuration's
/// preparation, then mappers f and g (their warnings kept); returns the node timings.
fn prepare(
    b: &mut Built,
    r: &sass::resolve::Resolved,
    config: &sim::ModelConfig,
    profile: &gpu::GpuProfile,
) -> Vec<gpu::ClassTiming> {
    b.notes
        .extend(r.diagnostics.iter().map(ToString::to_string));
    if let Some(kernel) = r.listing.as_ref().and_then(|l| l.kernel(&b.idgs.kernel)) {
        let report = align::apply(&mut b.idgs, kernel, &b.files);
        b.notes.extend(report.warnings());
    }
    config.prepare_idgs(&mut b.idgs);
    let (timings, warnings) = gpu::map_kernel(
        &b.idgs,
        &config.mapping_profile(profile),
        b.metrics.as_ref().filter(|_| config.mapper_g),
    );
    b.notes.extend(warnings.iter().map(ToString::to_string));
    timings
}

/// The launch's registers per thread and shared bytes per block as the CLI resolves them
/// (`sass::resolve`): the caller's `(regs, shared)`, else ptxas' report, else the defaults;
/// with `listing`, the kernel's SASS listing too.
#[allow(clippy::too_many_arguments)]
fn resolve_resources(
    source: &sass::resolve::Source,
    file: &str,
    src: &str,
    kernel: &str,
    profile: &gpu::GpuProfile,
    (regs, shared): (Option<u32>, Option<u32>),
    ptx_shared: u32,
    listing: bool,
) -> Result<sass::resolve::Resolved, Failure> {
    sass::resolve::resolve(&sass::resolve::Request {
        source,
        ptx: sass::resolve::Ptx::Text(src),
        input: file,
        kernel,
        arch: profile.sass_arch.as_deref(),
        gpu: &profile.name,
        regs,
        shared,
        ptx_shared,
        spelling: sass::resolve::Spelling::PYTHON,
        listing,
    })
    .map_err(|e| Failure::Input(e.to_string()))
}

/// The registers per thread and shared bytes per block a launch of the kernel is modelled
/// with, as `(json, notes)`: `regs`, `regs_from`, `shared`, and ptxas' report when there is
/// one (`spill_store_bytes`, `spill_load_bytes`, `stack_bytes`, `local_bytes`).
#[pyfunction]
#[pyo3(signature = (file, src, kernel, gpu, regs, shared, sass))]
#[allow(clippy::too_many_arguments)]
fn resources(
    py: Python<'_>,
    file: String,
    src: String,
    kernel: Option<String>,
    gpu: String,
    regs: Option<u32>,
    shared: Option<u32>,
    sass: Option<&str>,
) -> PyResult<(String, Vec<String>)> {
    let source = sass_source(sass)?;
    interruptible(py, move || {
        let profile = gpu_profile(&gpu)?;
        let module = parse(&file, &src)?;
        let names: Vec<&str> = module.kernels().map(|f| f.name.as_str()).collect();
        let entry = ir::names::select_kernel(&names, kernel.as_deref())
            .map_err(|e| input(&file, e))?
            .to_string();
        let ptx_shared = module
            .static_shared_bytes(&entry)
            .map_err(|e| input(&file, format!("kernel `{entry}`: {e}")))?
            .unwrap_or(0);
        let r = resolve_resources(
            &source,
            &file,
            &src,
            &entry,
            &profile,
            (regs, shared),
            ptx_shared,
            false,
        )?;
        let report = r.report.as_ref();
        let json = serde_json::json!({
            "kernel": entry,
            "regs": r.regs,
            "regs_from": r.regs_from,
            "shared": r.shared,
            "spill_store_bytes": report.and_then(|x| x.spill_store_bytes),
            "spill_load_bytes": report.and_then(|x| x.spill_load_bytes),
            "stack_bytes": report.and_then(|x| x.stack_bytes),
            "local_bytes": report.and_then(|x| x.local_bytes),
        });
        Ok((
            json.to_string(),
            r.diagnostics.iter().map(ToString::to_string).collect(),
        ))
    })
}

/// A simulation sweep, or one run at the launch's occupancy, as the CLI's CSV
/// (`sim::CSV_HEADER`), with the warnings.
#[pyfunction]
#[pyo3(signature = (file, src, kernel, grid, block, params, trips, invocation, unknown_branch, groups, gpu, regs, shared, sass, axis, lo, hi, scheduler, order, sub_partitions, window, metrics))]
#[allow(clippy::too_many_arguments)]
fn simulate(
    py: Python<'_>,
    file: String,
    src: String,
    kernel: Option<String>,
    grid: [u32; 3],
    block: [u32; 3],
    params: Vec<(String, String, PyParam)>,
    trips: Vec<(String, String)>,
    invocation: Option<usize>,
    unknown_branch: Option<&str>,
    groups: Option<u64>,
    gpu: String,
    regs: Option<u32>,
    shared: Option<u32>,
    sass: Option<&str>,
    axis: &str,
    lo: u32,
    hi: u32,
    scheduler: Option<&str>,
    order: Option<&str>,
    sub_partitions: Option<bool>,
    window: Option<u32>,
    metrics: bool,
) -> PyResult<(String, Vec<String>)> {
    let f = front(
        file,
        src,
        kernel,
        grid,
        block,
        params,
        trips,
        invocation,
        unknown_branch,
        groups,
    )?;
    // `None`: one run at the occupancy the launch's registers and shared memory allow.
    let axis = match axis {
        "warps" => Some(sim::SweepAxis::Warps(range(lo, hi, "occupancy")?)),
        "blocks" => Some(sim::SweepAxis::BlocksPerSm(range(lo, hi, "blocks_per_sm")?)),
        "launch" => None,
        o => return Err(PyValueError::new_err(format!("unknown sweep axis {o:?}"))),
    };
    let switches = ModelSwitches::parse(scheduler, order, sub_partitions, window, metrics)?;
    let source = sass_source(sass)?;
    interruptible(py, move || {
        let profile = gpu_profile(&gpu)?;
        let config = switches.config(&profile);
        let mut b = f.build(Some((&profile, &config)))?;
        let r = resolve_resources(
            &source,
            &f.file,
            &f.src,
            &b.idgs.kernel,
            &profile,
            (regs, shared),
            b.static_shared,
            true,
        )?;
        let timings = prepare(&mut b, &r, &config, &profile);
        let fail = |e: sim::SimError| input(&f.file, e);
        let mut notes = std::mem::take(&mut b.notes);
        let launch = sim::Launch {
            regs_per_thread: r.regs,
            shared_bytes_per_block: r.shared,
            blocks_per_sm: None,
        };
        let axis = match axis {
            Some(a) => a,
            None => {
                let blocks = sim::exec_for_occupancy(&b.idgs, &profile, &launch)
                    .map_err(fail)?
                    .concurrent_groups;
                sim::SweepAxis::BlocksPerSm(blocks..=blocks)
            }
        };
        let plan = sim::LaunchSweep::new(&b.idgs, &profile, &launch, axis).map_err(fail)?;
        if let Some(cut) = &plan.cut {
            notes.push(cut.message());
        }
        let (hw, opts) = (config.hardware(&profile), config.sim_options());
        let mut points = plan
            .run(
                &b.idgs,
                &sim::costs_from_timing(&timings),
                &hw,
                &opts,
                &|| {},
            )
            .map_err(fail)?;
        let traffic = b.traffic.filter(|_| config.mapper_g);
        let costs = sim::costs_from_timing(&timings);
        sim::Rerun {
            idgs: &b.idgs,
            profile: &config.mapping_profile(&profile),
            metrics: b.metrics.as_ref(),
            hardware: &hw,
            opts: &opts,
        }
        .settle_sweep(
            &|e| config.dram_load(&profile, traffic.as_ref(), &b.idgs, &costs, e),
            &plan.base,
            &mut points,
        )
        .map_err(fail)?;
        config.apply_device_limits_to_sweep(&mut points, traffic.as_ref(), &profile);
        Ok((sim::sweep_csv(&points, sim::number::MAX_DIGITS), notes))
    })
}

/// Every analytical model beside the simulation, as the CLI's CSV (`models::CSV_HEADER`).
#[pyfunction]
#[pyo3(name = "models", signature = (file, src, kernel, grid, block, params, trips, invocation, unknown_branch, groups, gpu, lo, hi, pipeline, metrics, sass))]
#[allow(clippy::too_many_arguments)]
fn models_table(
    py: Python<'_>,
    file: String,
    src: String,
    kernel: Option<String>,
    grid: [u32; 3],
    block: [u32; 3],
    params: Vec<(String, String, PyParam)>,
    trips: Vec<(String, String)>,
    invocation: Option<usize>,
    unknown_branch: Option<&str>,
    groups: Option<u64>,
    gpu: String,
    lo: u32,
    hi: u32,
    pipeline: bool,
    metrics: bool,
    sass: Option<&str>,
) -> PyResult<(String, Vec<String>)> {
    let f = front(
        file,
        src,
        kernel,
        grid,
        block,
        params,
        trips,
        invocation,
        unknown_branch,
        groups,
    )?;
    let occupancy = range(lo, hi, "occupancy")?;
    let switches = ModelSwitches::parse(None, None, None, None, metrics)?;
    let source = sass_source(sass)?;
    interruptible(py, move || {
        let profile = gpu_profile(&gpu)?;
        let config = switches.config(&profile);
        let mut b = f.build(Some((&profile, &config)))?;
        let r = resolve_resources(
            &source,
            &f.file,
            &f.src,
            &b.idgs.kernel,
            &profile,
            (None, None),
            b.static_shared,
            true,
        )?;
        let timings = prepare(&mut b, &r, &config, &profile);
        let notes = std::mem::take(&mut b.notes);
        let table = if pipeline {
            ::models::models_table(
                &b.idgs,
                &timings,
                &profile,
                &config,
                b.metrics
                    .as_ref()
                    .zip(b.traffic.as_ref())
                    .filter(|_| config.mapper_g),
                occupancy,
            )
        } else {
            ::models::analytical_table(&b.idgs, &timings, &profile, occupancy)
        }
        .map_err(|e| input(&f.file, e))?;
        Ok((table.to_csv(sim::number::MAX_DIGITS), notes))
    })
}

/// The evaluation of a suite directory under the base configuration: `(mape_csv,
/// points_csv, notes)` as `ptx2idg eval --format csv` and `--format points` print them, with
/// the counters `counters` (`all`, `one` or `none`) says, as `eval --counters`.
#[pyfunction]
#[pyo3(signature = (suite, gpu, kernels, counters, sass))]
fn evaluate(
    py: Python<'_>,
    suite: String,
    gpu: String,
    kernels: Vec<String>,
    counters: String,
    sass: Option<String>,
) -> PyResult<(String, String, Vec<String>)> {
    let mode: eval::CountersMode = counters
        .parse()
        .map_err(|e: eval::EvalError| PyValueError::new_err(e.to_string()))?;
    let given = sass
        .as_deref()
        .map(eval::machine::MachineSource::parse)
        .transpose()
        .map_err(|e| {
            PyValueError::new_err(format!("sass={}: {e}", sass.as_deref().unwrap_or("")))
        })?;
    let (source, env_note) = eval::machine::MachineSource::given_or_env(given);
    interruptible(py, move || {
        let profile = gpu_profile(&gpu)?;
        let mut s = eval::load(std::path::Path::new(&suite), &kernels)
            .map_err(|e| input(&suite, e))?
            .with_counters(mode);
        let machine_notes = eval::machine::attach(&mut s, source, profile.sass_arch.as_deref());
        let p = eval::predict::IdgPredictor {
            variant: sim::ModelConfig::validated(&profile),
            backend: eval::predict::GpuBackend { profile },
            analytical: true,
            exact: true,
        };
        let mut ev = eval::evaluate(&s, &p).map_err(|e| Failure::Input(e.to_string()))?;
        // The sampling models, as `ptx2idg eval` adds them: the ML model trained on every
        // kernel of the suite with the same counters, also those `kernels` leaves out.
        let training = if kernels.is_empty() {
            eval::sampling::SamplingModels::train(&[&s])
        } else {
            let all = eval::load(std::path::Path::new(&suite), &[])
                .map_err(|e| input(&suite, e))?
                .with_counters(mode);
            eval::sampling::SamplingModels::train(&[&all])
        };
        if mode.runs_the_kernel() {
            eval::sampling::attach(&mut ev, &s, &training);
        }
        let mut notes: Vec<String> = mode
            .note()
            .map(|n| format!("note: {n}"))
            .into_iter()
            .collect();
        notes.extend(
            env_note
                .into_iter()
                .chain(machine_notes)
                .map(|n| format!("note: {n}")),
        );
        notes.extend(
            eval::report::failures(&ev)
                .into_iter()
                .map(|l| format!("no prediction: {l}")),
        );
        for k in &ev.kernels {
            notes.extend(
                k.notes
                    .iter()
                    .map(|n| format!("note: {}: {}: {n}", k.id, n.topic.describe())),
            );
        }
        Ok((
            eval::report::csv(&ev),
            eval::report::points_csv(&ev, sim::number::MAX_DIGITS),
            notes,
        ))
    })
}

#[pymodule]
fn _ptx2idg(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Ptx2idgError", m.py().get_type::<Ptx2idgError>())?;
    m.add("PtxError", m.py().get_type::<PtxError>())?;
    m.add("LaunchError", launch_error_type(m.py())?.bind(m.py()))?;
    m.add("SIMULATE_CSV_HEADER", sim::CSV_HEADER)?;
    m.add("MODELS_CSV_HEADER", ::models::CSV_HEADER)?;
    m.add_function(wrap_pyfunction!(kernels, m)?)?;
    m.add_function(wrap_pyfunction!(build_idg, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(models_table, m)?)?;
    m.add_function(wrap_pyfunction!(resources, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    Ok(())
}
