//! Loading a suite directory (docs/rodinia-suite.md): the `suite.toml` manifest, the event
//! timings (`data/timings.csv`), the per-kernel Nsight Compute CSVs, the SM clock of the run
//! (`data/env.txt`) and, when the manifest names one, the sampled launches of the sampling
//! models (`samples = "data/samples.csv"`, [`KernelSamples`]).
//!
//! Invariants of a loaded [`Suite`] (checked here, so later stages may rely on them): every
//! kernel has at least one measured point; points are in ascending `blocks_per_sm`, each with
//! a positive median time and its own ncu launch (unless [`Suite::with_counters`] gave every
//! point the top point's, [`CountersMode::One`], or only its instruction count,
//! [`CountersMode::None`]); `grid_blocks`, `warps_per_block` and
//! `occupancy_warps` agree with `grid`/`block`; the clock is positive. Every error names the
//! file, and where it applies the kernel and key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::EvalError;

/// The manifest's top level (only what the evaluation uses is typed; other keys are allowed).
#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    pub schema_version: u32,
    pub device: String,
    pub sm_count: u32,
    pub l2_bytes: u64,
    pub timings: String,
    pub env: String,
    /// The sampled launches (optional: suites measured before them have none).
    #[serde(default)]
    pub samples: Option<String>,
    #[serde(rename = "kernel")]
    pub kernels: Vec<KernelSpec>,
}

/// One `[[kernel]]` table.
#[derive(Debug, Clone, Deserialize)]
pub struct KernelSpec {
    pub id: String,
    pub app: String,
    /// The kernel's family (optional; docs/rodinia-suite.md): variants of one source
    /// template share it, so results can be split into folds by family.
    #[serde(default)]
    pub family: Option<String>,
    pub paper_name: String,
    pub ptx: String,
    pub entry: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub grid_blocks: u64,
    pub warps_per_block: u32,
    pub registers_per_thread: u32,
    pub static_smem_bytes: u32,
    pub max_blocks_per_sm: u32,
    pub ncu: String,
    #[serde(default)]
    pub notes: String,
    #[serde(default, rename = "param")]
    pub params: Vec<ParamSpec>,
    #[serde(rename = "point")]
    pub points: Vec<PointSpec>,
}

/// One `[[kernel.param]]`.
#[derive(Debug, Clone, Deserialize)]
pub struct ParamSpec {
    pub index: u32,
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub value: Option<toml::Value>,
}

/// One `[[kernel.point]]`.
#[derive(Debug, Clone, Deserialize)]
pub struct PointSpec {
    pub blocks_per_sm: u32,
    pub occupancy_warps: u32,
    pub dyn_smem_bytes: u32,
    pub ncu_launch: u32,
}

/// One measured occupancy point with its timing and counters.
#[derive(Debug, Clone)]
pub struct MeasuredPoint {
    pub blocks_per_sm: u32,
    pub occupancy_warps: u32,
    pub median_us: f64,
    /// The point's Nsight Compute launch (crate `profile`), as [`MeasuredPoint::counters`]
    /// says.
    pub ncu: profile::Launch,
    /// Which launch `ncu` is ([`Suite::with_counters`]): the point's own (`All`, as loaded),
    /// the top point's (`One`), or the top point's with no metric but its instruction count
    /// (`None`), which only the trip counts read.
    pub counters: CountersMode,
}

impl MeasuredPoint {
    /// The counters the models may read at this point (mapper g, the device floors, loaded
    /// latency): `None` under [`CountersMode::None`].
    pub fn profiled(&self) -> Option<&profile::Launch> {
        (self.counters != CountersMode::None).then_some(&self.ncu)
    }
}

/// A raw metric of a launch by its profiler name.
pub fn metric(launch: &profile::Launch, name: &str) -> Option<f64> {
    launch.get(name).map(|m| m.value)
}

/// One timed launch of the samples file: the kernel on `groups` work groups (a box `grid` of
/// the kernel's own grid), its median time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampledLaunch {
    pub groups: u64,
    /// The launch's grid, when the file gives it.
    pub grid: Option<[u32; 3]>,
    pub median_us: f64,
}

/// The sampled launches of one measured point (docs/rodinia-suite.md, `data/samples.csv`):
/// the grid truncated to 2 and 3 Psat groups (absent where the grid has fewer groups) and
/// the full grid timed in the same pass.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PointSamples {
    pub full: Option<SampledLaunch>,
    pub two_psat: Option<SampledLaunch>,
    pub three_psat: Option<SampledLaunch>,
}

/// A kernel's sampled launches, one [`PointSamples`] per measured point (the same order).
#[derive(Debug, Clone, PartialEq)]
pub struct KernelSamples {
    /// The kernel reads the grid size (`%nctaid`, a grid-stride loop): a smaller grid does
    /// different work per group, so its samples are not samples of the launch.
    pub grid_dependent: bool,
    pub points: Vec<PointSamples>,
}

/// A kernel ready for prediction.
#[derive(Debug, Clone)]
pub struct KernelCase {
    pub spec: KernelSpec,
    /// The PTX text of `spec.ptx`.
    pub ptx: String,
    /// `spec.ptx` relative to the suite directory, for messages.
    pub ptx_file: String,
    pub points: Vec<MeasuredPoint>,
    /// The sampled launches; `None` when the suite has no samples file (a kernel the file has
    /// no row of has every point empty).
    pub samples: Option<KernelSamples>,
    /// The kernel's machine code, for the alignment pass (`crate::machine`); `None` until
    /// attached, or where it could not be made.
    pub machine: Option<sass::Kernel>,
}

impl KernelCase {
    /// The parameters given a value, as `(index, value)` for `ir::Launch`, which binds each
    /// by its PTX type (a float parameter as its IEEE bits). Pointers have no value and stay
    /// symbolic.
    pub fn launch_params(&self) -> Vec<(String, ir::ParamValue)> {
        self.spec
            .params
            .iter()
            .filter_map(|p| {
                let v = match p.value {
                    Some(toml::Value::Integer(v)) => ir::ParamValue::Int(v),
                    Some(toml::Value::Float(v)) => ir::ParamValue::Float(v),
                    // Refused by validation.
                    _ => return None,
                };
                Some((p.index.to_string(), v))
            })
            .collect()
    }

    /// The point with the most resident blocks (the unpadded launch).
    pub fn max_point(&self) -> &MeasuredPoint {
        // Non-empty by the suite invariant.
        &self.points[self.points.len() - 1]
    }

    /// Which counters the points read ([`Suite::with_counters`]; the same for every point).
    pub fn counters(&self) -> CountersMode {
        self.max_point().counters
    }
}

/// Which Nsight Compute launch each measured point's counters (`MeasuredPoint::ncu`) come
/// from: everything that reads them (mapper g, the device floors, loaded latency, the trip
/// counts, the branch fit and the uneven-warp busy share) reads what this leaves there. The
/// timings stay each point's own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CountersMode {
    /// Every point its own launch, as measured (the default).
    #[default]
    All,
    /// Every point the launch of the highest measured occupancy ([`KernelCase::max_point`]):
    /// the counters of a user who profiled the kernel once, at its real launch.
    One,
    /// No profiler counter: PTX, launch and static analysis only. Every point holds the top
    /// launch restricted to its warp instruction count ([`INSTRUCTION_COUNT`],
    /// `smsp__inst_executed.sum`), the one number the trip counts of loops that depend on
    /// data are fitted to; nothing else reads it ([`MeasuredPoint::profiled`] is `None`), so
    /// mapper g, the floors and loaded latency take the static path, branches on unknown
    /// data are not fitted and warps run evenly.
    None,
}

/// The quantities a point keeps under [`CountersMode::None`]: the launch's warp instructions.
pub const INSTRUCTION_COUNT: [profile::Quantity; 1] = [profile::Quantity::WarpInstsExecuted];

impl CountersMode {
    /// The mode's name as the CLI's `--counters` spells it.
    pub fn name(self) -> &'static str {
        match self {
            CountersMode::All => "all",
            CountersMode::One => "one",
            CountersMode::None => "none",
        }
    }

    /// What an evaluation in this mode reads, for a note beside its tables (`None` for the
    /// modes that read the counters as measured).
    /// Whether the sampling models, which time the kernel on the GPU and read its counters,
    /// belong in the run: not without counters (`None`), the case of a user without a GPU.
    pub fn runs_the_kernel(self) -> bool {
        self != CountersMode::None
    }

    pub fn note(self) -> Option<&'static str> {
        (self == CountersMode::None).then_some(
            "--counters none: no profiler counter reaches the models (mapper g, the DRAM \
             floors and loaded latency take the static path, branches on unknown data are not \
             fitted, warps run evenly); the trip counts of loops that depend on data are \
             fitted to one number, the warp instruction count (smsp__inst_executed.sum) of the \
             launch at the highest measured occupancy; the sampling models, which time the \
             kernel on the GPU, are left out",
        )
    }
}

impl std::str::FromStr for CountersMode {
    type Err = EvalError;
    fn from_str(s: &str) -> Result<Self, EvalError> {
        [CountersMode::All, CountersMode::One, CountersMode::None]
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| EvalError::Usage(format!("counters `{s}`: expected all, one or none")))
    }
}

#[derive(Debug, Clone)]
pub struct Suite {
    pub dir: PathBuf,
    pub manifest_file: String,
    pub device: String,
    pub sm_count: u32,
    /// SM clock of the timed run in MHz (see [`read_clock_mhz`]).
    pub clock_mhz: f64,
    /// The manifest's samples file, if it names one.
    pub samples_file: Option<String>,
    pub kernels: Vec<KernelCase>,
}

impl Suite {
    /// The suite with its points' counters chosen by `mode` ([`CountersMode`]) from each
    /// kernel's top launch; `All` leaves every point as it is (its own launch, as loaded).
    pub fn with_counters(mut self, mode: CountersMode) -> Suite {
        for k in &mut self.kernels {
            let top = match mode {
                CountersMode::All => continue,
                CountersMode::One => k.max_point().ncu.clone(),
                CountersMode::None => k.max_point().ncu.restricted_to(&INSTRUCTION_COUNT),
            };
            for p in &mut k.points {
                p.ncu = top.clone();
                p.counters = mode;
            }
        }
        self
    }
}

/// Loads a suite and everything its manifest points to: `path` is a suite folder (its
/// `suite.toml`) or a manifest file in one (`suite-h200.toml`: the same kernels measured on
/// another GPU, whose data the manifest names inside the folder). `only`: kernel ids to keep
/// (empty = all); an unknown id is an error.
pub fn load(path: &Path, only: &[String]) -> Result<Suite, EvalError> {
    let (dir, manifest_file) = if path.is_file() {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        (
            path.parent().unwrap_or_else(|| Path::new(".")),
            name.unwrap_or_else(|| "suite.toml".into()),
        )
    } else {
        (path, "suite.toml".to_string())
    };
    let manifest_path = dir.join(&manifest_file);
    let text = ptx::source::read_toml(&manifest_path).map_err(|e| EvalError::Io {
        file: manifest_file.clone(),
        message: e.to_string(),
    })?;
    let manifest: Manifest = toml::from_str(&text).map_err(|e| EvalError::Manifest {
        file: manifest_file.clone(),
        message: e.to_string(),
    })?;
    if manifest.schema_version != 1 {
        return Err(bad(
            &manifest_file,
            format!(
                "schema_version {} (this build reads 1)",
                manifest.schema_version
            ),
        ));
    }
    if manifest.sm_count == 0 {
        return Err(bad(&manifest_file, "sm_count must be positive".into()));
    }
    for id in only {
        if !manifest.kernels.iter().any(|k| &k.id == id) {
            return Err(EvalError::UnknownKernel {
                id: id.clone(),
                known: manifest.kernels.iter().map(|k| k.id.clone()).collect(),
            });
        }
    }
    let timings = read_timings(
        &within(dir, &manifest_file, &manifest.timings)?,
        &manifest.timings,
    )?;
    let clock_mhz = read_clock_mhz(&within(dir, &manifest_file, &manifest.env)?, &manifest.env)?;
    let mut samples = match &manifest.samples {
        Some(file) => Some(read_samples(
            &within(dir, &manifest_file, file)?,
            file,
            &manifest.kernels,
        )?),
        None => None,
    };
    let mut kernels = Vec::new();
    for spec in &manifest.kernels {
        if !only.is_empty() && !only.contains(&spec.id) {
            continue;
        }
        validate_spec(spec, &manifest_file)?;
        let ptx = read(&within(dir, &manifest_file, &spec.ptx)?, &spec.ptx)?;
        let ncu_text = read(&within(dir, &manifest_file, &spec.ncu)?, &spec.ncu)?;
        let ncu =
            profile::parse(&ncu_text, &spec.ncu).map_err(|e| bad(&spec.ncu, e.to_string()))?;
        let launches = &ncu
            .kernel(&spec.entry)
            .map_err(|e| bad(&spec.ncu, e.to_string()))?
            .launches;
        let mut points = Vec::with_capacity(spec.points.len());
        for p in &spec.points {
            let median_us = timings
                .get(&(spec.id.clone(), p.blocks_per_sm))
                .copied()
                .ok_or_else(|| {
                    bad(
                        &manifest.timings,
                        format!(
                            "no row for kernel `{}` at blocks_per_sm = {}",
                            spec.id, p.blocks_per_sm
                        ),
                    )
                })?;
            let launch = launches
                .iter()
                .find(|l| l.id.as_deref() == Some(p.ncu_launch.to_string().as_str()))
                .cloned()
                .ok_or_else(|| {
                    bad(
                        &spec.ncu,
                        format!(
                            "no launch with ID {} (kernel `{}`, point blocks_per_sm = {})",
                            p.ncu_launch, spec.id, p.blocks_per_sm
                        ),
                    )
                })?;
            // The dynamic shared memory of the launch identifies the point independently of
            // the ID; a mismatch means the manifest and the CSV come from different runs.
            if let Some(dyn_smem) = metric(&launch, "launch__shared_mem_per_block_dynamic") {
                if dyn_smem.round() as u64 != u64::from(p.dyn_smem_bytes) {
                    return Err(bad(
                        &spec.ncu,
                        format!(
                            "launch {} has {dyn_smem} bytes of dynamic shared memory, the manifest point of `{}` has {}",
                            p.ncu_launch, spec.id, p.dyn_smem_bytes
                        ),
                    ));
                }
            }
            points.push(MeasuredPoint {
                blocks_per_sm: p.blocks_per_sm,
                occupancy_warps: p.occupancy_warps,
                median_us,
                ncu: launch,
                counters: CountersMode::All,
            });
        }
        let kernel_samples = samples.as_mut().map(|by_kernel| {
            by_kernel.remove(&spec.id).unwrap_or_else(|| KernelSamples {
                grid_dependent: false,
                points: vec![PointSamples::default(); spec.points.len()],
            })
        });
        kernels.push(KernelCase {
            spec: spec.clone(),
            ptx,
            ptx_file: spec.ptx.clone(),
            points,
            samples: kernel_samples,
            machine: None,
        });
    }
    Ok(Suite {
        dir: dir.to_path_buf(),
        manifest_file,
        device: manifest.device,
        sm_count: manifest.sm_count,
        clock_mhz,
        samples_file: manifest.samples,
        kernels,
    })
}

fn validate_spec(spec: &KernelSpec, file: &str) -> Result<(), EvalError> {
    let key = |k: &str, m: String| bad(file, format!("kernel `{}`: `{k}`: {m}", spec.id));
    // Checked products: a hostile manifest must not overflow them (fuzz finding).
    let product = |d: &[u32; 3]| d.iter().try_fold(1u64, |a, &x| a.checked_mul(u64::from(x)));
    let blocks = product(&spec.grid).unwrap_or(0);
    if blocks != spec.grid_blocks || blocks == 0 {
        return Err(key(
            "grid_blocks",
            format!("{} but grid {:?} has {blocks}", spec.grid_blocks, spec.grid),
        ));
    }
    let threads = product(&spec.block).unwrap_or(0);
    if threads == 0 || threads.div_ceil(32) != u64::from(spec.warps_per_block) {
        return Err(key(
            "warps_per_block",
            format!("{} but block {:?}", spec.warps_per_block, spec.block),
        ));
    }
    ir::Launch::check_dims(spec.grid, spec.block).map_err(|m| key("grid` / `block", m))?;
    let mut indices = std::collections::HashSet::new();
    for p in &spec.params {
        if !indices.insert(p.index) {
            return Err(key(
                "param.index",
                format!("{} twice (parameter `{}`)", p.index, p.name),
            ));
        }
        check_param(p).map_err(|m| key(m.0, m.1))?;
    }
    if spec.points.is_empty() {
        return Err(key("point", "no measured points".into()));
    }
    let mut last = 0;
    for p in &spec.points {
        if p.blocks_per_sm <= last {
            return Err(key(
                "point.blocks_per_sm",
                format!("{} is not ascending", p.blocks_per_sm),
            ));
        }
        last = p.blocks_per_sm;
        if p.blocks_per_sm.checked_mul(spec.warps_per_block) != Some(p.occupancy_warps) {
            return Err(key(
                "point.occupancy_warps",
                format!(
                    "{} at {} blocks per SM of {} warps",
                    p.occupancy_warps, p.blocks_per_sm, spec.warps_per_block
                ),
            ));
        }
    }
    Ok(())
}

/// Whether a `[[kernel.param]]`'s type is one a kernel parameter has, and its value one the
/// type holds, as binding the launch will check against the PTX (`ir::param`): so that a
/// wrong value is refused when the suite loads, naming the kernel and key. Err: the key and
/// the cause.
fn check_param(p: &ParamSpec) -> Result<(), (&'static str, String)> {
    let what = |v: &dyn std::fmt::Display| {
        format!("{v} for parameter {} (`{}`, {})", p.index, p.name, p.ty)
    };
    // A pointer is a buffer the walk keeps symbolic: `ptr` takes no value.
    let ty = match p.ty.as_str() {
        "ptr" => None,
        t => Some(ptx::ast::ScalarType::from_name(t).ok_or_else(|| {
            (
                "param.type",
                format!(
                    "`{t}` for parameter {} (`{}`): expected ptr or a PTX scalar type (s32, \
                     u32, s64, u64, f32, ...)",
                    p.index, p.name
                ),
            )
        })?),
    };
    let Some(v) = &p.value else {
        return Ok(());
    };
    let value = match (v, ty) {
        (toml::Value::Integer(i), Some(_)) => ir::ParamValue::Int(*i),
        (toml::Value::Float(f), Some(_)) => ir::ParamValue::Float(*f),
        (v, None) => {
            return Err((
                "param.value",
                format!("{}: a pointer takes no value", what(v)),
            ))
        }
        (v, Some(t)) => {
            let expected = if t.is_float() {
                "a number"
            } else {
                "an integer"
            };
            return Err(("param.value", format!("{}: expected {expected}", what(v))));
        }
    };
    if let Some(t) = ty {
        ir::param::param_bits(ir::ParamKind::of(t, t.bytes()), t, value)
            .map_err(|m| ("param.value", format!("{}: {m}", what(&value))))?;
    }
    Ok(())
}

/// `(kernel, blocks_per_sm) -> median_us` from the timings CSV.
fn read_timings(path: &Path, file: &str) -> Result<BTreeMap<(String, u32), f64>, EvalError> {
    #[derive(Deserialize)]
    struct Row {
        kernel: String,
        blocks_per_sm: u32,
        median_us: f64,
    }
    let text = read(path, file)?;
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let mut out = BTreeMap::new();
    for (i, row) in rdr.deserialize::<Row>().enumerate() {
        let row = row.map_err(|e| bad(file, format!("row {}: {e}", i + 2)))?;
        if !(row.median_us.is_finite() && row.median_us > 0.0) {
            return Err(bad(
                file,
                format!("row {}: median_us {} is not positive", i + 2, row.median_us),
            ));
        }
        out.insert((row.kernel, row.blocks_per_sm), row.median_us);
    }
    Ok(out)
}

/// The samples file (docs/rodinia-suite.md, `data/samples.csv`) by kernel id, each aligned
/// with the kernel's manifest points. Required columns: `kernel`, `blocks_per_sm`, `sample`
/// (`full`, `2psat` or `3psat`), `groups`, `median_us`; optional: `grid_x`, `grid_y`,
/// `grid_z` (all three or none), `grid_dependent` (0 or 1), and any others (ignored). Refused:
/// a kernel the manifest lacks, a point it lacks, a row twice, a non-positive time, a sample
/// larger than the grid or not a box of it, a `full` row that is not the whole grid.
fn read_samples(
    path: &Path,
    file: &str,
    specs: &[KernelSpec],
) -> Result<BTreeMap<String, KernelSamples>, EvalError> {
    #[derive(Deserialize)]
    struct Row {
        kernel: String,
        blocks_per_sm: u32,
        sample: String,
        groups: u64,
        median_us: f64,
        #[serde(default)]
        grid_x: Option<u32>,
        #[serde(default)]
        grid_y: Option<u32>,
        #[serde(default)]
        grid_z: Option<u32>,
        #[serde(default)]
        grid_dependent: Option<u8>,
    }
    let text = read(path, file)?;
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let mut out: BTreeMap<String, KernelSamples> = BTreeMap::new();
    for (i, row) in rdr.deserialize::<Row>().enumerate() {
        let line = i + 2;
        let row = row.map_err(|e| bad(file, format!("row {line}: {e}")))?;
        let at = |m: String| bad(file, format!("row {line} (`{}`): {m}", row.kernel));
        let spec = specs
            .iter()
            .find(|k| k.id == row.kernel)
            .ok_or_else(|| at("no such kernel in the manifest".into()))?;
        let point = spec
            .points
            .iter()
            .position(|p| p.blocks_per_sm == row.blocks_per_sm)
            .ok_or_else(|| {
                at(format!(
                    "blocks_per_sm = {} is not a measured point",
                    row.blocks_per_sm
                ))
            })?;
        if !(row.median_us.is_finite() && row.median_us > 0.0) {
            return Err(at(format!("median_us {} is not positive", row.median_us)));
        }
        if row.groups == 0 || row.groups > spec.grid_blocks {
            return Err(at(format!(
                "{} groups (the grid has {})",
                row.groups, spec.grid_blocks
            )));
        }
        let grid = match (row.grid_x, row.grid_y, row.grid_z) {
            (Some(x), Some(y), Some(z)) => {
                let box_of = [x, y, z]
                    .iter()
                    .zip(&spec.grid)
                    .all(|(s, g)| *s >= 1 && s <= g);
                let n = u64::from(x) * u64::from(y) * u64::from(z);
                if !box_of || n != row.groups {
                    return Err(at(format!(
                        "grid [{x}, {y}, {z}] is not a box of {} groups of the grid {:?}",
                        row.groups, spec.grid
                    )));
                }
                Some([x, y, z])
            }
            (None, None, None) => None,
            _ => return Err(at("grid_x, grid_y and grid_z go together".into())),
        };
        let dependent = match row.grid_dependent {
            None | Some(0) => false,
            Some(1) => true,
            Some(v) => return Err(at(format!("grid_dependent {v} (0 or 1)"))),
        };
        let entry = out
            .entry(row.kernel.clone())
            .or_insert_with(|| KernelSamples {
                grid_dependent: false,
                points: vec![PointSamples::default(); spec.points.len()],
            });
        entry.grid_dependent |= dependent;
        let launch = SampledLaunch {
            groups: row.groups,
            grid,
            median_us: row.median_us,
        };
        let p = &mut entry.points[point];
        let slot = match row.sample.as_str() {
            "full" => {
                if row.groups != spec.grid_blocks {
                    return Err(at(format!(
                        "a `full` row of {} groups (the grid has {})",
                        row.groups, spec.grid_blocks
                    )));
                }
                &mut p.full
            }
            "2psat" => &mut p.two_psat,
            "3psat" => &mut p.three_psat,
            other => {
                return Err(at(format!(
                    "sample `{other}` (expected full, 2psat or 3psat)"
                )))
            }
        };
        if slot.is_some() {
            return Err(at(format!(
                "a second `{}` row at blocks_per_sm = {}",
                row.sample, row.blocks_per_sm
            )));
        }
        *slot = Some(launch);
    }
    Ok(out)
}

/// The SM clock of the run in MHz: the `clocks.current.sm [MHz]` column of the
/// `nvidia-smi --query-gpu` table in the environment record. The suite never changes clocks and
/// records no throttling, so this one number converts every median time to cycles.
pub fn read_clock_mhz(path: &Path, file: &str) -> Result<f64, EvalError> {
    let text = read(path, file)?;
    parse_clock_mhz(&text).ok_or_else(|| {
        bad(
            file,
            "no `clocks.current.sm [MHz]` column with a positive value".into(),
        )
    })
}

fn parse_clock_mhz(text: &str) -> Option<f64> {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if let Some(i) = cols.iter().position(|c| *c == "clocks.current.sm [MHz]") {
            let values = lines.next()?;
            let v = values.split(',').map(str::trim).nth(i)?;
            let mhz: f64 = v.trim_end_matches("MHz").trim().parse().ok()?;
            return (mhz > 0.0).then_some(mhz);
        }
    }
    None
}

/// `dir/file` for a file the manifest names: relative, and without `..`, so that a suite reads
/// only what its folder holds (links it holds are followed as they are).
fn within(dir: &Path, manifest: &str, file: &str) -> Result<std::path::PathBuf, EvalError> {
    use std::path::Component;
    let path = Path::new(file);
    if path
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(bad(
            manifest,
            format!(
                "`{file}`: files are named relative to the suite folder, without `..` or a \
                 leading `/`"
            ),
        ));
    }
    Ok(dir.join(path))
}

fn read(path: &Path, file: &str) -> Result<String, EvalError> {
    ptx::read_source(path).map_err(|e| EvalError::Io {
        file: file.to_string(),
        message: e.to_string(),
    })
}

fn bad(file: &str, message: String) -> EvalError {
    EvalError::Data {
        file: file.to_string(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_from_query_table() {
        let env = "# x\nname, clocks.max.sm [MHz], clocks.current.sm [MHz], power\nH100, 1980 MHz, 1755 MHz, 700 W\n";
        assert_eq!(parse_clock_mhz(env), Some(1755.0));
        assert_eq!(parse_clock_mhz("nothing here"), None);
        assert_eq!(
            parse_clock_mhz("clocks.current.sm [MHz]\n0 MHz\n"),
            None,
            "a zero clock is rejected"
        );
    }
}
