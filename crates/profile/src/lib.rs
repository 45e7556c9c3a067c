//! Profiler outputs parsed into one typed value that later stages reuse.
//!
//! Owns: reading nvprof `--csv` output (`--metrics`/`--events` summaries and
//! `--print-gpu-trace`), Nsight Compute `--csv` output (long form, one row per metric, and
//! `--page raw`, one row per launch under a units row) and plain `kernel,loop,trips`
//! tables, detected by content ([`parse`], [`load`]); the per-kernel, per-launch metric
//! values with normalised units ([`Launch`], [`units::Unit`]); the quantities the pipeline
//! needs under either profiler's metric names ([`Quantity`]); matching the kernel names
//! profilers print against mangled PTX names ([`names`]).
//!
//! Invariants: every stored value is finite and scaled to its [`units::Unit`]; a metric the
//! crate interprets (see [`metrics::expected_unit`]) never holds a value in another unit —
//! that is a [`ProfileError::UnexpectedUnit`] naming file, row and column; nothing is
//! defaulted silently: an absent metric is `None`, a malformed field is an error.
//! The measured warp instructions per warp feed the trip-count solver of issue 3 (step 3);
//! DRAM, L2, global and shared traffic feed mapper g (pipeline-model-analysis §3.1.2).

mod error;
mod formats;
pub mod metrics;
pub mod names;
mod table;
pub mod units;

use std::collections::BTreeMap;
use std::path::Path;

pub use error::{Loc, ProfileError};
pub use metrics::Quantity;
pub use names::{match_name, matches, NameMatch};
pub use units::Unit;

/// The input formats, as detected from the header record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// nvprof `--csv --metrics …` and/or `--events …` summary (Min/Max/Avg per kernel).
    NvprofSummary,
    /// nvprof `--csv --print-gpu-trace` (one row per launch or copy, a units row).
    NvprofTrace,
    /// Nsight Compute `--csv` (details page): one row per launch and metric.
    NcuLong,
    /// Nsight Compute `--csv --page raw`: one row per launch, one column per metric.
    NcuRaw,
    /// `kernel,loop,trips`.
    TripsTable,
}

/// One metric value of one launch, scaled to `unit`.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    pub value: f64,
    pub unit: Unit,
    /// nvprof summaries: the minimum and maximum over the averaged invocations.
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// The file row (1-based line) the value came from.
    pub row: usize,
}

/// The metrics of one kernel launch. For nvprof summaries there is a single `Launch`
/// holding the averages over `aggregated` invocations.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Launch {
    /// The profiler's launch ID (Nsight Compute `ID`, nvprof `Correlation_ID`).
    pub id: Option<String>,
    /// `Some(n)`: the values are averages over `n` invocations (nvprof summary).
    pub aggregated: Option<u64>,
    pub grid: Option<[u64; 3]>,
    pub block: Option<[u64; 3]>,
    pub metrics: BTreeMap<String, Metric>,
}

/// A value derived for a [`Quantity`], with the metric(s) it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    pub value: f64,
    pub from: String,
}

impl Launch {
    /// The raw metric by its profiler name.
    pub fn get(&self, metric: &str) -> Option<&Metric> {
        self.metrics.get(metric)
    }

    fn val(&self, m: &str) -> Option<f64> {
        self.metrics.get(m).map(|x| x.value)
    }

    /// The quantity from whichever equivalent metrics this launch holds: the first recipe
    /// of [`Quantity`] whose metrics are all present (Nsight Compute names first).
    pub fn quantity(&self, q: Quantity) -> Option<Measure> {
        use metrics::{Recipe, SECTOR_BYTES};
        q.recipes().iter().find_map(|r| match *r {
            Recipe::One(a) => self.val(a).map(|v| Measure {
                value: v,
                from: a.to_string(),
            }),
            Recipe::Sectors(a) => self.val(a).map(|v| Measure {
                value: v * SECTOR_BYTES,
                from: format!("{a} * 32"),
            }),
            Recipe::Bytes(a) => self.val(a).map(|v| Measure {
                value: v / SECTOR_BYTES,
                from: format!("{a} / 32"),
            }),
            Recipe::Add(a, b) => {
                let (x, y) = (self.quantity(a)?, self.quantity(b)?);
                Some(Measure {
                    value: x.value + y.value,
                    from: format!("{} + {}", group(&x.from), group(&y.from)),
                })
            }
            Recipe::Div(a, b) => {
                let (x, y) = (self.quantity(a)?, self.quantity(b)?);
                (y.value != 0.0).then(|| Measure {
                    value: x.value / y.value,
                    from: format!("{} / {}", group(&x.from), group(&y.from)),
                })
            }
        })
    }

    /// The raw metrics [`Launch::quantity`] reads for `q`: those of its first recipe whose
    /// metrics are all present; `None` when it has no value here.
    fn metrics_of(&self, q: Quantity) -> Option<Vec<&'static str>> {
        use metrics::Recipe;
        q.recipes().iter().find_map(|r| match *r {
            Recipe::One(a) | Recipe::Sectors(a) | Recipe::Bytes(a) => {
                self.metrics.contains_key(a).then(|| vec![a])
            }
            Recipe::Add(a, b) => {
                let mut v = self.metrics_of(a)?;
                v.extend(self.metrics_of(b)?);
                Some(v)
            }
            Recipe::Div(a, b) => {
                let y = self.quantity(b)?.value;
                let mut v = self.metrics_of(a)?;
                v.extend(self.metrics_of(b)?);
                (y != 0.0).then_some(v)
            }
        })
    }

    /// This launch with no metric but the ones [`Launch::quantity`] reads for each of
    /// `keep` (its ID, grid, block and aggregation stay): every other counter is absent, so
    /// whatever reads one finds `None`. `quantity(q)` of a kept `q` is unchanged.
    pub fn restricted_to(&self, keep: &[Quantity]) -> Launch {
        let names: Vec<&str> = keep
            .iter()
            .filter_map(|q| self.metrics_of(*q))
            .flatten()
            .collect();
        Launch {
            metrics: self
                .metrics
                .iter()
                .filter(|(k, _)| names.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            id: self.id.clone(),
            aggregated: self.aggregated,
            grid: self.grid,
            block: self.block,
        }
    }

    /// Warp instructions executed per warp: `inst_executed / warps_launched`
    /// (`smsp__inst_executed.sum / sm__warps_launched.sum`); `None` if either is missing or
    /// no warp was launched.
    pub fn warp_insts_per_warp(&self) -> Option<f64> {
        let i = self.quantity(Quantity::WarpInstsExecuted)?.value;
        let w = self.quantity(Quantity::WarpsLaunched)?.value;
        (w > 0.0).then_some(i / w)
    }
}

/// A derivation as an operand: parenthesised when it is more than one metric name.
fn group(from: &str) -> String {
    if from.contains(' ') {
        format!("({from})")
    } else {
        from.to_string()
    }
}

/// Which launch of a kernel launched several times to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Invocation {
    /// The launch with the median duration (or, without durations, the median warp
    /// instruction count; or the middle launch). Even counts take the lower middle, so the
    /// result is always a real launch whose metrics belong together.
    #[default]
    Median,
    /// The n-th launch of that kernel in file order, from 0.
    Index(usize),
}

/// All launches of one kernel in a file.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelProfile {
    /// The name as the profiler printed it (usually demangled).
    pub name: String,
    /// The mangled name, when the file printed it (or the printed name is mangled).
    pub mangled: Option<String>,
    pub launches: Vec<Launch>,
}

impl KernelProfile {
    /// The selected launch, `None` if `Index` is out of range (or there are no launches).
    pub fn launch(&self, inv: Invocation) -> Option<&Launch> {
        match inv {
            Invocation::Index(n) => self.launches.get(n),
            Invocation::Median => {
                let key = |l: &Launch| {
                    l.quantity(Quantity::Duration)
                        .or_else(|| l.quantity(Quantity::WarpInstsExecuted))
                        .map(|m| m.value)
                };
                let mut order: Vec<usize> = (0..self.launches.len()).collect();
                if self.launches.iter().all(|l| key(l).is_some()) {
                    order.sort_by(|&a, &b| {
                        let ka = key(&self.launches[a]).unwrap_or(0.0);
                        let kb = key(&self.launches[b]).unwrap_or(0.0);
                        ka.total_cmp(&kb).then(a.cmp(&b))
                    });
                }
                let mid = order.len().checked_sub(1)? / 2;
                self.launches.get(order[mid])
            }
        }
    }

    fn matched_by(&self, ptx_mangled: &str) -> Option<NameMatch> {
        let by_mangled = self
            .mangled
            .as_deref()
            .filter(|m| *m == ptx_mangled)
            .map(|_| NameMatch::Full);
        by_mangled.or_else(|| match_name(&self.name, ptx_mangled))
    }
}

/// A loop named by a trips-table row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopRef {
    /// The PTX label of the loop header, e.g. `$L__BB0_3`.
    Label(String),
    /// `line:N`: the CUDA source line the header maps to through `.loc`.
    Line(u32),
}

/// One row of a `kernel,loop,trips` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TripRow {
    pub kernel: String,
    pub loop_ref: LoopRef,
    pub trips: u64,
    /// 1-based line number in the file.
    pub row: usize,
}

/// A parsed profiler or trips file.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// The file name (or other origin) given to [`parse`], used in every error.
    pub origin: String,
    pub format: Format,
    /// Kernels in order of first appearance (empty for a trips table).
    pub kernels: Vec<KernelProfile>,
    /// Rows of a trips table (empty for profiler files).
    pub trips: Vec<TripRow>,
    /// Kernels whose rows a filtered read ([`load_filtered`]) checked but did not keep, in
    /// order of first appearance (at most 256 names; empty for [`parse`] and [`load`]).
    pub skipped: Vec<Skipped>,
}

/// The rows of one kernel that a filtered read skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The printed name (trips table: the kernel column).
    pub kernel: String,
    /// 1-based line of its first row.
    pub first_row: usize,
    pub rows: u64,
}

impl Profile {
    /// The profiled kernel that is the PTX entry `ptx_mangled`: full-signature matches
    /// first, then bare-name matches; several candidates at the best level are an error.
    pub fn kernel(&self, ptx_mangled: &str) -> Result<&KernelProfile, ProfileError> {
        for level in [NameMatch::Full, NameMatch::BaseName] {
            let found: Vec<&KernelProfile> = self
                .kernels
                .iter()
                .filter(|k| k.matched_by(ptx_mangled) == Some(level))
                .collect();
            match found.as_slice() {
                [] => continue,
                [k] => return Ok(k),
                many => {
                    return Err(ProfileError::AmbiguousKernel {
                        file: self.origin.clone(),
                        kernel: ptx_mangled.to_string(),
                        candidates: many.iter().map(|k| k.name.clone()).collect(),
                    })
                }
            }
        }
        Err(ProfileError::NoKernel {
            file: self.origin.clone(),
            kernel: ptx_mangled.to_string(),
            available: self
                .kernels
                .iter()
                .map(|k| k.name.clone())
                .chain(self.skipped.iter().map(|s| s.kernel.clone()))
                .collect(),
        })
    }

    /// The selected launch of the kernel that is `ptx_mangled`.
    pub fn launch(&self, ptx_mangled: &str, inv: Invocation) -> Result<&Launch, ProfileError> {
        let k = self.kernel(ptx_mangled)?;
        k.launch(inv).ok_or_else(|| ProfileError::NoInvocation {
            file: self.origin.clone(),
            kernel: k.name.clone(),
            index: match inv {
                Invocation::Index(n) => n,
                Invocation::Median => 0,
            },
            count: k.launches.len(),
        })
    }
}

impl Profile {
    /// A quantity of the selected launch of `ptx_mangled`, or an error naming the file, the
    /// kernel and the metrics looked for.
    pub fn require(
        &self,
        ptx_mangled: &str,
        inv: Invocation,
        q: Quantity,
    ) -> Result<Measure, ProfileError> {
        let launch = self.launch(ptx_mangled, inv)?;
        launch
            .quantity(q)
            .ok_or_else(|| self.missing(ptx_mangled, &format!("{q:?}"), q.sources()))
    }

    /// Warp instructions executed per warp of the selected launch (the trip-count solver's
    /// measurement), or an error naming what is missing.
    pub fn warp_insts_per_warp(
        &self,
        ptx_mangled: &str,
        inv: Invocation,
    ) -> Result<f64, ProfileError> {
        let launch = self.launch(ptx_mangled, inv)?;
        launch.warp_insts_per_warp().ok_or_else(|| {
            let looked_for = format!(
                "({}) / ({}), with a non-zero warp count",
                Quantity::WarpInstsExecuted.sources(),
                Quantity::WarpsLaunched.sources()
            );
            self.missing(ptx_mangled, "warp instructions per warp", looked_for)
        })
    }

    fn missing(&self, ptx_mangled: &str, quantity: &str, looked_for: String) -> ProfileError {
        let kernel = self
            .kernel(ptx_mangled)
            .map_or_else(|_| ptx_mangled.to_string(), |k| k.name.clone());
        ProfileError::MissingMetric {
            file: self.origin.clone(),
            kernel,
            quantity: quantity.to_string(),
            looked_for,
        }
    }
}

/// Parses profiler or trips-table text; `origin` names it in errors (usually the path).
pub fn parse(text: &str, origin: &str) -> Result<Profile, ProfileError> {
    let mut rows = table::Records::new(text.as_bytes(), origin);
    formats::parse_records(&mut rows, origin, &mut |_| true)
}

/// Reads and parses a file, streaming it (see [`load_filtered`]).
pub fn load(path: &Path) -> Result<Profile, ProfileError> {
    load_filtered(path, &mut |_| true)
}

/// Reads a file record by record, keeping only the launches (profiler files) or rows (trips
/// tables) of kernels for which `keep(name)` holds, `name` being the name the file prints.
/// Every row is still checked, so the errors are those of [`load`]; memory grows with what
/// is kept, not with the file: a 100 MB profiler CSV of many kernels reads in seconds.
/// Skipped kernels are listed in [`Profile::skipped`].
pub fn load_filtered(
    path: &Path,
    keep: &mut dyn FnMut(&str) -> bool,
) -> Result<Profile, ProfileError> {
    let origin = path.display().to_string();
    // A named pipe nobody writes to is an error after a wait, not a hang.
    let file = ptx::source::open(path).map_err(|source| ProfileError::Io {
        file: origin.clone(),
        source,
    })?;
    let mut rows = table::Records::new(std::io::BufReader::new(file), &origin);
    formats::parse_records(&mut rows, &origin, keep)
}
