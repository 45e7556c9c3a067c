//! The unified hardware-fitted model (Stevens and Klöckner, "A Unified, Hardware-Fitted,
//! Cross-GPU Performance Model"): a launch's wall time is a linear combination of kernel
//! properties, `T = Σ α_i p_i`, with one weight α_i per property fitted per GPU on a set of
//! measurement kernels (`bench/unified/`) by relative least squares (section 4.3).
//!
//! This module owns the property list and its names ([`Property`]), the property counts of
//! the project's own IDGs ([`count_properties`]), the fit ([`fit`], [`lstsq`]) and the
//! prediction ([`predict_seconds`]). The weights live in the GPU profile's optional
//! `[unified_model]` section (`gpu::UnifiedModel`); this module reads them by name.
//!
//! # Properties (section 2), counted per thread over the whole launch
//! The paper counts with Loopy per work item (one OpenCL thread); here every count is a
//! thread count of the launch: each execution of an IDG node counts its active lanes, a node
//! inside a repeat counts its trip counts ([`idg::counts::for_each_execution`]), every warp
//! class counts its warps, and the walked groups stand for all `grid` groups (their mean is
//! multiplied by the group count).
//!
//! - **Global memory** (section 2.1): `global_{load,store}_{32,64,128}_{class}`, by access
//!   size (bytes per lane ≤ 4 → 32, ≤ 8 → 64, else 128; the paper groups 32-, 64- and
//!   128-bit accesses), direction and amortized stride fraction `class`: `stride0` (uniform:
//!   the address does not depend on the lane), `stride1`, and `uofs` for a stride of `s`
//!   elements with `u` used of `s` (`1of2`, `2of2`, `1of3` … `3of3`, `1of4` … `4of4`), and
//!   `uofmany` for strides past 4 (the paper's '1/>4' … '4/>4').
//!   Atomics and generic-space accesses are not counted (the paper has neither).
//! - **min(loads, stores)** per access size and class: `global_minls_{size}_{class}`, the
//!   paper's roofline-like term ("Min(Stride-1 Loads, Stride-1 Stores)").
//! - **Shared loads** (the paper's "local" loads, OpenCL's local memory is CUDA's shared
//!   memory): `shared_load_{32,64,128}` by access size; strides not distinguished, as in the
//!   paper. Shared stores are not a property (the paper has none).
//! - **Floating point** (section 2.2): `f32_{add,mul,div,exp,special}` and the same for
//!   `f64`: addition and subtraction (`add`, `sub`), multiplication (`mul`), division (`div`,
//!   and `rcp`, which is `1/x` at source level), exponentiation (`ex2`) and other special
//!   functions (`sqrt`, `rsqrt`, `sin`, `cos`, `lg2`, `tanh`). **`fma` and `mad` count as one
//!   multiplication and one addition**: the paper counts the operations of the source
//!   expression (Loopy's `a*b + c` is a product and a sum; the contraction into an FMA is the
//!   compiler's), so the PTX FMA is split back into its two source operations. Integer
//!   arithmetic is not counted (section 2.2). The counts are of PTX instructions: a library
//!   function counts as what it compiles to (CUDA's `exp` of a double is FMAs and integer
//!   operations, no `ex2`; `expf` is an `ex2.approx` plus multiplications).
//! - **Barriers** (section 2.3): `barrier`, waiting barriers (`bar.sync`, `bar.red`)
//!   encountered by all threads.
//! - **Overhead** (section 2.4): `work_group`, the launch's work groups, and `const`, 1.
//!
//! # The amortized stride fraction from the IDG
//! The paper's numerator is the per-array data utilisation ratio (cells accessed over the
//! footprint with the stride gaps filled in), quantized; the denominator the lane stride in
//! elements. The IDG node's access analysis (`idg::AccessPattern`) gives the lane stride in
//! bytes; the stride in elements is `|stride bytes| / bytes per lane` (rounded up; a nonzero
//! stride below one element is stride 1). The IDG keeps no per-array footprint, so the
//! numerator comes from the walk's reuse analysis: among a warp class's global accesses of
//! one direction, size and stride `s ≥ 2`, if any re-reads sectors the warp touched before
//! (`idg::Reuse::Warp`, e.g. the second half of the paper's "stride-2 filled" prefetch), the
//! gaps are filled: all of them count as `sofs` (100 %); otherwise `1ofs` (1/s). Intermediate
//! numerators (`2of3`, `2of4`, `3of4`, …) are named so weights can be given, but this
//! counting never produces them. Stores carry no reuse, so strided stores are `1ofs`. An
//! access whose addresses the walk could not analyse (no pattern) counts as `1ofmany`, the
//! paper's uncoalesced class.
//!
//! # The fit (section 4.3)
//! One row per measured launch, one column per property that is non-zero in some row. Each
//! row is divided by its measured time, and ordinary least squares against a vector of ones
//! minimizes Σ (1 − pred/t)², the paper's relative error. **Negative weights are allowed**,
//! as in the paper (its Table 2 has negative weights for local loads and the min term); no
//! non-negativity constraint. The solver ([`lstsq`]) scales each column to unit norm and
//! orthogonalizes the columns in property order (modified Gram-Schmidt, twice); a column the
//! earlier ones span within 1e-9 of its norm is dropped (weight absent, listed in
//! [`Fit::dropped`]), so collinear measurement sets fit what they determine.
//!
//! # Prediction
//! `T = Σ α_i p_i` in seconds. The model is flat in occupancy by construction (section 2:
//! occupancy, latency hiding and overlap are out of its scope): the same launch predicts the
//! same time at every occupancy. A property the kernel has (non-zero count) but the weights
//! lack is an error naming it, never a zero weight: the measurement kernels did not
//! determine its cost.

use std::collections::BTreeMap;
use std::fmt;

use idg::{BarrierKind, Idg, KernelIdgs, MemSpace, Reuse};
use ptx::ast::{Opcode, ScalarType};

/// Direction of a global access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dir {
    Load,
    Store,
}

/// Access size class: 32-, 64- or 128-bit per lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Size {
    B32,
    B64,
    B128,
}

impl Size {
    pub const ALL: [Size; 3] = [Size::B32, Size::B64, Size::B128];

    fn of_bytes(bytes: u32) -> Size {
        match bytes {
            0..=4 => Size::B32,
            5..=8 => Size::B64,
            _ => Size::B128,
        }
    }

    fn bits(self) -> u32 {
        match self {
            Size::B32 => 32,
            Size::B64 => 64,
            Size::B128 => 128,
        }
    }
}

/// The amortized stride fraction `used/of` (section 2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StrideClass {
    /// Stride 0: uniform access.
    Uniform,
    /// Stride 1.
    Unit,
    /// Stride `of` (2, 3, 4; [`StrideClass::MANY`] for > 4) with `used` of `of` cells used.
    Frac { used: u8, of: u8 },
}

impl StrideClass {
    /// The `of` of strides past 4.
    pub const MANY: u8 = 5;

    pub fn all() -> Vec<StrideClass> {
        let mut v = vec![StrideClass::Uniform, StrideClass::Unit];
        for of in 2..=Self::MANY {
            for used in 1..=of.min(4) {
                v.push(StrideClass::Frac { used, of });
            }
        }
        v
    }

    fn name(self) -> String {
        match self {
            StrideClass::Uniform => "stride0".into(),
            StrideClass::Unit => "stride1".into(),
            StrideClass::Frac { used, of } if of >= Self::MANY => format!("{used}ofmany"),
            StrideClass::Frac { used, of } => format!("{used}of{of}"),
        }
    }
}

/// Floating-point width of an arithmetic property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Float {
    F32,
    F64,
}

/// Operation kind of an arithmetic property (section 2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FlopKind {
    AddSub,
    Mul,
    Div,
    Exp,
    Special,
}

/// One kernel property of the model (see the module docs for what each counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Property {
    Global {
        dir: Dir,
        size: Size,
        stride: StrideClass,
    },
    /// min(loads, stores) of one size and stride class.
    MinLoadStore {
        size: Size,
        stride: StrideClass,
    },
    SharedLoad {
        size: Size,
    },
    Flop {
        ty: Float,
        kind: FlopKind,
    },
    Barrier,
    WorkGroup,
    Const,
}

impl Property {
    /// Every property, in the order of fits and printed sections.
    pub fn all() -> Vec<Property> {
        let mut v = Vec::new();
        for dir in [Dir::Load, Dir::Store] {
            for size in Size::ALL {
                for stride in StrideClass::all() {
                    v.push(Property::Global { dir, size, stride });
                }
            }
        }
        for size in Size::ALL {
            for stride in StrideClass::all() {
                v.push(Property::MinLoadStore { size, stride });
            }
        }
        for size in Size::ALL {
            v.push(Property::SharedLoad { size });
        }
        for ty in [Float::F32, Float::F64] {
            for kind in [
                FlopKind::AddSub,
                FlopKind::Mul,
                FlopKind::Div,
                FlopKind::Exp,
                FlopKind::Special,
            ] {
                v.push(Property::Flop { ty, kind });
            }
        }
        v.extend([Property::Barrier, Property::WorkGroup, Property::Const]);
        v
    }

    /// The property by its [`fmt::Display`] name.
    pub fn from_name(name: &str) -> Option<Property> {
        Property::all().into_iter().find(|p| p.to_string() == name)
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Property::Global { dir, size, stride } => {
                let d = match dir {
                    Dir::Load => "load",
                    Dir::Store => "store",
                };
                write!(f, "global_{d}_{}_{}", size.bits(), stride.name())
            }
            Property::MinLoadStore { size, stride } => {
                write!(f, "global_minls_{}_{}", size.bits(), stride.name())
            }
            Property::SharedLoad { size } => write!(f, "shared_load_{}", size.bits()),
            Property::Flop { ty, kind } => {
                let t = match ty {
                    Float::F32 => "f32",
                    Float::F64 => "f64",
                };
                let k = match kind {
                    FlopKind::AddSub => "add",
                    FlopKind::Mul => "mul",
                    FlopKind::Div => "div",
                    FlopKind::Exp => "exp",
                    FlopKind::Special => "special",
                };
                write!(f, "{t}_{k}")
            }
            Property::Barrier => f.write_str("barrier"),
            Property::WorkGroup => f.write_str("work_group"),
            Property::Const => f.write_str("const"),
        }
    }
}

/// A launch's property counts; properties not listed are zero.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PropertyCounts(pub BTreeMap<Property, f64>);

impl PropertyCounts {
    pub fn get(&self, p: Property) -> f64 {
        self.0.get(&p).copied().unwrap_or(0.0)
    }

    pub fn add(&mut self, p: Property, v: f64) {
        if v != 0.0 {
            *self.0.entry(p).or_default() += v;
        }
    }

    /// The non-zero counts by name, in [`Property::all`] order.
    pub fn named(&self) -> Vec<(String, f64)> {
        self.0
            .iter()
            .filter(|(_, v)| **v != 0.0)
            .map(|(p, v)| (p.to_string(), *v))
            .collect()
    }
}

/// Stride in elements of an access with `stride_bytes` between lanes.
fn stride_elements(stride_bytes: i64, bytes: u32) -> u64 {
    let s = stride_bytes.unsigned_abs();
    if s == 0 {
        0
    } else {
        s.div_ceil(u64::from(bytes.max(1)))
    }
}

/// The float type of an arithmetic instruction, from its first type modifier.
fn float_of(op: &ptx::ast::Op) -> Option<Float> {
    match op.mods.types.first()? {
        ScalarType::F32 => Some(Float::F32),
        ScalarType::F64 => Some(Float::F64),
        _ => None,
    }
}

/// The arithmetic properties one execution of `op` counts (an FMA counts a multiplication
/// and an addition).
fn flops(op: &ptx::ast::Op) -> &'static [FlopKind] {
    if float_of(op).is_none() {
        return &[];
    }
    match op.opcode {
        Opcode::Add | Opcode::Sub => &[FlopKind::AddSub],
        Opcode::Mul => &[FlopKind::Mul],
        Opcode::Fma | Opcode::Mad => &[FlopKind::Mul, FlopKind::AddSub],
        Opcode::Div | Opcode::Rcp => &[FlopKind::Div],
        Opcode::Ex2 => &[FlopKind::Exp],
        Opcode::Sqrt | Opcode::Rsqrt | Opcode::Sin | Opcode::Cos | Opcode::Lg2 | Opcode::Tanh => {
            &[FlopKind::Special]
        }
        _ => &[],
    }
}

/// Thread-level property counts of one warp running `idg`, global accesses and min terms
/// excepted: those need the class's reuse grouping, done in [`count_idg`].
fn count_idg(idg: &Idg) -> PropertyCounts {
    let mut out = PropertyCounts::default();
    // Global accesses of stride ≥ 2 by (dir, size, stride elements): thread counts and
    // whether any re-reads the warp's data.
    let mut strided: BTreeMap<(Dir, Size, u8), (f64, bool)> = BTreeMap::new();
    idg::counts::for_each_execution(idg, &mut |id, runs| {
        let n = idg.node(id);
        let threads = runs * f64::from(n.active_lanes);
        if let Some(ty) = float_of(&n.op) {
            for &kind in flops(&n.op) {
                out.add(Property::Flop { ty, kind }, threads);
            }
        }
        if let Some(b) = n.barrier {
            if matches!(b.kind, BarrierKind::Sync | BarrierKind::Red) {
                out.add(Property::Barrier, threads);
            }
        }
        let Some(m) = n.mem else { return };
        if m.atomic {
            return;
        }
        let size = Size::of_bytes(m.bytes_per_lane);
        match (m.space, m.store) {
            (MemSpace::Shared, false) => out.add(Property::SharedLoad { size }, threads),
            (MemSpace::Global, store) => {
                let dir = if store { Dir::Store } else { Dir::Load };
                let s = m
                    .pattern
                    .and_then(|p| p.lane_stride_bytes)
                    .map(|b| stride_elements(b, m.bytes_per_lane));
                let stride = match s {
                    Some(0) => StrideClass::Uniform,
                    Some(1) => StrideClass::Unit,
                    Some(s) => {
                        let of = s.min(u64::from(StrideClass::MANY)) as u8;
                        let e = strided.entry((dir, size, of)).or_default();
                        e.0 += threads;
                        e.1 |= matches!(m.reuse, Some(Reuse::Warp { .. }));
                        return;
                    }
                    None => StrideClass::Frac {
                        used: 1,
                        of: StrideClass::MANY,
                    },
                };
                out.add(Property::Global { dir, size, stride }, threads);
            }
            _ => {}
        }
    });
    for ((dir, size, of), (threads, filled)) in strided {
        let used = if filled { of.min(4) } else { 1 };
        let stride = StrideClass::Frac { used, of };
        out.add(Property::Global { dir, size, stride }, threads);
    }
    out
}

/// The launch's property counts (module docs): every class's counts times its warps, the
/// walked groups' total scaled to all groups, plus `work_group` and `const`.
pub fn count_properties(idgs: &KernelIdgs) -> PropertyCounts {
    let mut out = PropertyCounts::default();
    let walked = idgs.groups_built.len().max(1) as f64;
    let scale = idgs.total_groups() as f64 / walked;
    let weights = idgs.class_weights();
    for (class, &warps) in idgs.classes.iter().zip(&weights) {
        for (p, v) in count_idg(&class.idg).0 {
            out.add(p, v * warps * scale);
        }
    }
    for size in Size::ALL {
        for stride in StrideClass::all() {
            let ld = out.get(Property::Global {
                dir: Dir::Load,
                size,
                stride,
            });
            let st = out.get(Property::Global {
                dir: Dir::Store,
                size,
                stride,
            });
            out.add(Property::MinLoadStore { size, stride }, ld.min(st));
        }
    }
    out.add(Property::WorkGroup, idgs.total_groups() as f64);
    out.add(Property::Const, 1.0);
    out
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UnifiedError {
    #[error("the GPU profile has no [unified_model] weights")]
    NoWeights,
    #[error("the unified model's weights name `{0}`, which is no property (see docs/models.md)")]
    UnknownProperty(String),
    #[error("the kernel has {count} of `{property}`, which the unified model's weights do not cover (the measurement kernels did not determine its cost)")]
    MissingWeight { property: String, count: f64 },
    #[error("the unified model predicts {0} s, not a positive time")]
    NotPositive(f64),
    #[error("fit: {0}")]
    Fit(String),
}

/// Predicted launch time in seconds from weights by property name (seconds per unit).
pub fn predict_seconds(
    counts: &PropertyCounts,
    weights: &BTreeMap<String, f64>,
) -> Result<f64, UnifiedError> {
    if weights.is_empty() {
        return Err(UnifiedError::NoWeights);
    }
    let mut by_prop = BTreeMap::new();
    for (name, w) in weights {
        let p =
            Property::from_name(name).ok_or_else(|| UnifiedError::UnknownProperty(name.clone()))?;
        by_prop.insert(p, *w);
    }
    let mut t = 0.0;
    for (p, &c) in &counts.0 {
        if c == 0.0 {
            continue;
        }
        let w = by_prop.get(p).ok_or_else(|| UnifiedError::MissingWeight {
            property: p.to_string(),
            count: c,
        })?;
        t += w * c;
    }
    if t > 0.0 && t.is_finite() {
        Ok(t)
    } else {
        Err(UnifiedError::NotPositive(t))
    }
}

/// Warps one simulated core runs over the launch: ⌈`total_groups` / `sm_count`⌉ groups of
/// `warps_per_group` warps (the numerator of every WPC of the tool).
pub fn warps_per_core(total_groups: u64, sm_count: u32, warps_per_group: u32) -> u64 {
    total_groups.div_ceil(u64::from(sm_count.max(1))) * u64::from(warps_per_group)
}

/// The unified model as WPC, the unit of the other models: `warps_per_core / (T · clock)`
/// with `T` = [`predict_seconds`] in microseconds and `clock_mhz` the clock the Pipeline
/// model's time is converted at. The launch has one time, so this is the same at every
/// occupancy (**flat by construction**). `None` weights (the profile has no
/// `[unified_model]`) are [`UnifiedError::NoWeights`], never a number.
pub fn wpc(
    counts: &PropertyCounts,
    model: Option<&gpu::UnifiedModel>,
    warps_per_core: u64,
    clock_mhz: f64,
) -> Result<f64, UnifiedError> {
    let model = model.ok_or(UnifiedError::NoWeights)?;
    let us = predict_seconds(counts, &model.weights)? * 1e6;
    let wpc = warps_per_core as f64 / (us * clock_mhz);
    if wpc.is_finite() && wpc > 0.0 {
        Ok(wpc)
    } else {
        Err(UnifiedError::NotPositive(us * 1e-6))
    }
}

/// A least-squares solution: `x[j]` is `None` for a dropped (dependent) column.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    pub x: Vec<Option<f64>>,
}

/// Minimizes ‖A x − b‖₂ for `a` of `rows × cols` (row-major rows): columns scaled to unit
/// norm, modified Gram-Schmidt with one re-orthogonalization, a column within `1e-9` of the
/// span of earlier kept columns dropped. Dependency-free; meant for tens of columns.
pub fn lstsq(a: &[Vec<f64>], b: &[f64]) -> Result<Solution, UnifiedError> {
    let m = a.len();
    if m != b.len() {
        return Err(UnifiedError::Fit(format!(
            "{m} rows but {} right-hand sides",
            b.len()
        )));
    }
    let n = a.first().map_or(0, Vec::len);
    if a.iter().any(|r| r.len() != n) {
        return Err(UnifiedError::Fit("rows of different lengths".into()));
    }
    if a.iter().flatten().chain(b).any(|v| !v.is_finite()) {
        return Err(UnifiedError::Fit("a non-finite entry".into()));
    }
    // Columns, scaled to unit norm.
    let mut scale = vec![0.0; n];
    let mut cols: Vec<Vec<f64>> = (0..n)
        .map(|j| {
            let c: Vec<f64> = a.iter().map(|r| r[j]).collect();
            let norm = c.iter().map(|v| v * v).sum::<f64>().sqrt();
            scale[j] = norm;
            if norm > 0.0 {
                c.iter().map(|v| v / norm).collect()
            } else {
                c
            }
        })
        .collect();
    let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>();
    // Q (kept columns) and R (upper triangular over kept columns).
    let mut q: Vec<Vec<f64>> = Vec::new();
    let mut kept: Vec<usize> = Vec::new();
    let mut r: Vec<Vec<f64>> = Vec::new(); // r[k] = coefficients of column kept[k] on q[0..=k]
    for j in 0..n {
        if scale[j] == 0.0 {
            continue;
        }
        let v = &mut cols[j];
        let mut coef = vec![0.0; q.len() + 1];
        for _pass in 0..2 {
            for (k, qk) in q.iter().enumerate() {
                let c = dot(qk, v);
                coef[k] += c;
                for (vi, qi) in v.iter_mut().zip(qk) {
                    *vi -= c * qi;
                }
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm < 1e-9 {
            continue;
        }
        coef[q.len()] = norm;
        q.push(v.iter().map(|x| x / norm).collect());
        kept.push(j);
        r.push(coef);
    }
    // R y = Qᵀ b, back substitution.
    let k = q.len();
    let qtb: Vec<f64> = q.iter().map(|qk| dot(qk, b)).collect();
    let mut y = vec![0.0; k];
    for i in (0..k).rev() {
        let mut s = qtb[i];
        for (jj, yj) in y.iter().enumerate().skip(i + 1) {
            s -= r[jj][i] * yj;
        }
        y[i] = s / r[i][i];
    }
    let mut x = vec![None; n];
    for (i, &j) in kept.iter().enumerate() {
        x[j] = Some(y[i] / scale[j]);
    }
    Ok(Solution { x })
}

/// One fitted model.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// Weights in seconds per unit of each property, in [`Property::all`] order.
    pub weights: Vec<(Property, f64)>,
    /// Properties present in the rows whose column the others span: no weight.
    pub dropped: Vec<Property>,
    /// Per row: (measured, predicted) seconds.
    pub rows: Vec<(f64, f64)>,
}

impl Fit {
    /// Geometric mean of |pred − t| / t over the rows (the paper's summary, section 5).
    pub fn geomean_rel_error(&self) -> f64 {
        geomean_rel_error(&self.rows)
    }

    pub fn weights_by_name(&self) -> BTreeMap<String, f64> {
        self.weights
            .iter()
            .map(|(p, w)| (p.to_string(), *w))
            .collect()
    }
}

/// Geometric mean of |pred − t| / t over (t, pred) pairs; a zero error counts as 1e-16.
pub fn geomean_rel_error(rows: &[(f64, f64)]) -> f64 {
    if rows.is_empty() {
        return f64::NAN;
    }
    let s: f64 = rows
        .iter()
        .map(|(t, p)| ((p - t).abs() / t).max(1e-16).ln())
        .sum();
    (s / rows.len() as f64).exp()
}

/// Fits weights to `(counts, measured seconds)` rows by relative least squares (module
/// docs): minimizes Σ (1 − Σ α p / t)², negative weights allowed.
pub fn fit(rows: &[(PropertyCounts, f64)]) -> Result<Fit, UnifiedError> {
    if let Some((_, t)) = rows.iter().find(|(_, t)| !(*t > 0.0 && t.is_finite())) {
        return Err(UnifiedError::Fit(format!("a measured time of {t} s")));
    }
    let props: Vec<Property> = Property::all()
        .into_iter()
        .filter(|p| rows.iter().any(|(c, _)| c.get(*p) != 0.0))
        .collect();
    if rows.len() < props.len() {
        return Err(UnifiedError::Fit(format!(
            "{} measurements for {} properties",
            rows.len(),
            props.len()
        )));
    }
    let a: Vec<Vec<f64>> = rows
        .iter()
        .map(|(c, t)| props.iter().map(|p| c.get(*p) / t).collect())
        .collect();
    let b = vec![1.0; rows.len()];
    let sol = lstsq(&a, &b)?;
    let mut weights = Vec::new();
    let mut dropped = Vec::new();
    for (p, x) in props.iter().zip(&sol.x) {
        match x {
            Some(w) => weights.push((*p, *w)),
            None => dropped.push(*p),
        }
    }
    let fitted: BTreeMap<Property, f64> = weights.iter().copied().collect();
    let out_rows = rows
        .iter()
        .map(|(c, t)| {
            let p: f64 =
                c.0.iter()
                    .map(|(p, v)| fitted.get(p).copied().unwrap_or(0.0) * v)
                    .sum();
            (*t, p)
        })
        .collect();
    Ok(Fit {
        weights,
        dropped,
        rows: out_rows,
    })
}

/// The `[unified_model]` section of a GPU profile for `fit` (weights in seconds per unit).
pub fn profile_section(fit: &Fit, source: &str) -> String {
    let mut s = String::from("[unified_model]\n");
    s.push_str(&format!("source = {}\n", toml_string(source)));
    s.push_str("\n[unified_model.weights]\n");
    for (p, w) in &fit.weights {
        s.push_str(&format!("{p} = {w:e}\n"));
    }
    s
}

fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_distinct() {
        let all = Property::all();
        let mut names: Vec<String> = all.iter().map(|p| p.to_string()).collect();
        for p in &all {
            assert_eq!(Property::from_name(&p.to_string()), Some(*p));
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        assert!(names.contains(&"global_load_32_stride1".to_string()));
        assert!(names.contains(&"global_load_32_1ofmany".to_string()));
        assert!(names.contains(&"global_minls_64_2of2".to_string()));
    }

    #[test]
    fn lstsq_solves_a_square_system_and_drops_a_copy() {
        // x + y = 3, x - y = 1, third column = 2 * first (dropped).
        let a = vec![
            vec![1.0, 1.0, 2.0],
            vec![1.0, -1.0, 2.0],
            vec![2.0, 0.0, 4.0],
        ];
        let s = lstsq(&a, &[3.0, 1.0, 4.0]).unwrap();
        assert!((s.x[0].unwrap() - 2.0).abs() < 1e-12);
        assert!((s.x[1].unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(s.x[2], None);
    }

    #[test]
    fn stride_in_elements() {
        assert_eq!(stride_elements(0, 4), 0);
        assert_eq!(stride_elements(4, 4), 1);
        assert_eq!(stride_elements(-8, 4), 2);
        assert_eq!(stride_elements(2, 4), 1);
        assert_eq!(stride_elements(4096, 4), 1024);
    }
}
