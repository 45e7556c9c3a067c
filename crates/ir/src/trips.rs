//! Trip-count resolution: every loop gets a [`LoopTrip`] with a rule (a fixed count, or a
//! per-thread induction formula) and its [`TripSource`], resolved in this order:
//!
//! 1. explicit rows of a trips table (`kernel,loop,trips`; loop = header label or `line:N`);
//! 2. static induction recognition (`crate::induction`), kept only when start, step and bound
//!    are known under the launch for every sampled thread that reaches the loop;
//! 3. profile evidence: measured warp instructions per warp solved against the CFG's
//!    instruction counts (pipeline-model-analysis §3.1.1 builds IDGs with loops replicated by
//!    trip counts, so the counts must make the instruction totals match), jointly with the
//!    measured loads and stores and pairing unrolled loops with their remainders
//!    ([`crate::joint`]);
//! 4. a default of 1 with a [`Warning`].
//!
//! Sampled threads are all threads of the first and the last block of the grid (boundary
//! blocks are where per-thread counts differ). A thread's state at loop entry comes from
//! [`entry_state`], which walks one path from the kernel entry to the loop header without
//! iterating any loop (loops on the way are skipped, their registers made unknown).

use crate::analysis::Analysis;
use crate::error::IrError;
use crate::ids::{BlockId, LoopId};
use crate::induction::Induction;
use crate::interp::{thread_invariant, BoundLaunch, ThreadState, Value};
use crate::joint::{self, ClassCounts};
use crate::kernel::{Kernel, Term};
use serde::Serialize;

/// Where a loop's trip count comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum TripSource {
    /// A row of a trips table.
    Explicit { file: String, row: usize },
    /// Induction variable recognised in the IR, evaluated from the launch.
    Static,
    /// Solved from profiler instruction counts. `residual` is measured minus modelled warp
    /// instructions per warp; `ambiguous` when several loops shared one equation.
    Profile {
        file: String,
        residual: f64,
        ambiguous: bool,
    },
    /// Nothing known: 1, with a warning.
    Default,
}

/// How to get a loop's trip count for one thread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum TripRule {
    /// The same count for every thread.
    Fixed(u64),
    /// Evaluate the induction from the thread's state at loop entry.
    Induction(Induction),
}

/// Per-thread trip counts over the sampled threads that reach the loop.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TripStats {
    pub min: u64,
    pub max: u64,
    /// Mean over sampled warp entries of the warp's count (the maximum over its lanes: a warp
    /// runs a loop while any lane is active). A loop nested in another is sampled at its first
    /// few entries, so triangular loops are represented by their first outer iterations.
    pub warp_mean: f64,
    /// Distinct per-warp counts, ascending (at most 16 listed).
    pub warp_values: Vec<u64>,
    /// Sampled threads that reach the loop.
    pub threads: u64,
}

impl TripStats {
    /// True when all sampled threads agree.
    pub fn is_uniform(&self) -> bool {
        self.min == self.max
    }
}

/// The resolved trip count of one loop.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoopTrip {
    pub rule: TripRule,
    pub source: TripSource,
    /// Per-thread statistics for static rules.
    pub stats: Option<TripStats>,
}

impl LoopTrip {
    /// The count for a thread at loop entry. An induction that cannot be evaluated for this
    /// thread (unknown on its path) falls back to the largest sampled count.
    pub fn trips_for(&self, state: &ThreadState<'_>) -> u64 {
        match &self.rule {
            TripRule::Fixed(n) => *n,
            TripRule::Induction(iv) => iv
                .trips(state)
                .unwrap_or_else(|| self.stats.as_ref().map_or(1, |s| s.max)),
        }
    }

    /// A single representative count (per-warp mean for per-thread rules, rounded).
    pub fn representative(&self) -> f64 {
        match (&self.rule, &self.stats) {
            (TripRule::Fixed(n), _) => *n as f64,
            (TripRule::Induction(_), Some(s)) => s.warp_mean,
            (TripRule::Induction(_), None) => 1.0,
        }
    }
}

/// A problem that did not stop the analysis, reported as data.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Warning {
    pub loop_id: Option<LoopId>,
    pub message: String,
}

/// Trip counts of every loop of a kernel, indexed by `LoopId`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trips {
    pub loops: Vec<LoopTrip>,
    pub warnings: Vec<Warning>,
}

impl Trips {
    /// The trip count of loop `l`.
    pub fn get(&self, l: LoopId) -> &LoopTrip {
        &self.loops[l.index()]
    }

    /// The count of loop `l` for the thread whose state at loop entry is `state`.
    pub fn trips_for(&self, l: LoopId, state: &ThreadState<'_>) -> u64 {
        self.get(l).trips_for(state)
    }
}

/// A trips-table row for this kernel (kernel name matching is the caller's job).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExplicitTrip {
    pub file: String,
    /// 1-based row number in the file (header = row 1).
    pub row: usize,
    /// `$L__BB0_3` (header label) or `line:N` (CUDA source line of the header).
    pub loop_ref: String,
    pub trips: u64,
}

/// Profiler evidence for one kernel launch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileEvidence {
    /// The file the numbers come from.
    pub file: String,
    /// Warp instructions executed per warp: `inst_executed / warps_launched`
    /// (`smsp__inst_executed.sum / sm__warps_launched.sum`), compared with the IDG's PTX
    /// instruction counts: in the profiler's (SASS) instructions as read, in PTX instructions
    /// after [`ProfileEvidence::in_ptx`].
    pub warp_insts_per_warp: f64,
    /// Global and shared loads and stores per warp, when measured: the other counters the
    /// unknown trip counts are fitted to ([`crate::joint`]).
    pub classes: ClassCounts,
}

impl ProfileEvidence {
    /// The evidence in PTX instructions, for a GPU whose machine code has `sass_per_ptx`
    /// instructions per PTX instruction (its profile's measured factor): the trip counts are
    /// then fitted to the instructions the PTX would execute. The memory counters stay: their
    /// classes lower one to one.
    pub fn in_ptx(self, sass_per_ptx: f64) -> ProfileEvidence {
        let f = if sass_per_ptx.is_finite() && sass_per_ptx > 0.0 {
            sass_per_ptx
        } else {
            1.0
        };
        ProfileEvidence {
            warp_insts_per_warp: self.warp_insts_per_warp / f,
            ..self
        }
    }
}

/// Inputs to [`resolve_trips`] beyond the kernel and launch.
#[derive(Debug, Clone, Default)]
pub struct TripInputs<'a> {
    pub explicit: &'a [ExplicitTrip],
    pub profile: Option<&'a ProfileEvidence>,
}

/// Resolves the loop named by a trips-table reference.
pub fn find_loop(kernel: &Kernel, an: &Analysis, row: &ExplicitTrip) -> Result<LoopId, IrError> {
    let r = &row.loop_ref;
    let known = || {
        an.loops
            .ids()
            .map(|l| loop_name(kernel, an, l))
            .collect::<Vec<_>>()
    };
    if let Some(n) = r.strip_prefix("line:") {
        let line: u32 = n.trim().parse().map_err(|_| IrError::TripsTable {
            file: row.file.clone(),
            row: row.row,
            message: format!("loop `{r}`: `line:` needs a source line number"),
        })?;
        // First the loops whose header starts at that line, then those whose header or latch
        // contains it (a rotated loop's header maps to its body's first line).
        let header_at =
            |l: &LoopId| kernel.block_loc(an.loops.get(*l).header).map(|s| s.line) == Some(line);
        let touches = |l: &LoopId| {
            let lp = an.loops.get(*l);
            std::iter::once(lp.header)
                .chain(lp.latches.iter().copied())
                .flat_map(|b| kernel.block(b).insts.iter())
                .any(|i| kernel.inst(*i).loc.map(|s| s.line) == Some(line))
        };
        for pick in [&header_at as &dyn Fn(&LoopId) -> bool, &touches] {
            let found: Vec<LoopId> = an.loops.ids().filter(|l| pick(l)).collect();
            match found.len() {
                0 => continue,
                1 => return Ok(found[0]),
                _ => {
                    return Err(IrError::AmbiguousLoop {
                        file: row.file.clone(),
                        row: row.row,
                        kernel: kernel.name.clone(),
                        loop_ref: r.clone(),
                        line,
                        headers: found.iter().map(|l| loop_name(kernel, an, *l)).collect(),
                    })
                }
            }
        }
    } else if let Some(l) = an
        .loops
        .ids()
        .find(|l| kernel.block(an.loops.get(*l).header).label.as_deref() == Some(r.as_str()))
    {
        return Ok(l);
    }
    Err(IrError::NoSuchLoop {
        file: row.file.clone(),
        row: row.row,
        kernel: kernel.name.clone(),
        loop_ref: r.clone(),
        known: known(),
    })
}

/// A loop's printable name: header label (or block id) plus CUDA line when known.
pub fn loop_name(kernel: &Kernel, an: &Analysis, l: LoopId) -> String {
    let h = an.loops.get(l).header;
    match kernel.block_loc(h) {
        Some(loc) => format!("{} (line:{})", kernel.block_name(h), loc.line),
        None => kernel.block_name(h),
    }
}

fn describe(kernel: &Kernel, an: &Analysis, l: LoopId) -> String {
    let h = an.loops.get(l).header;
    let mut s = format!(
        "loop {l} at {} (PTX line {}",
        kernel.block_name(h),
        kernel.block_line(h)
    );
    if let Some(loc) = kernel.block_loc(h) {
        s.push_str(&format!(
            ", {}:{}",
            kernel.file_name(loc).unwrap_or("?"),
            loc.line
        ));
    }
    s.push(')');
    s
}

/// Blocks that can reach `target` (reverse reachability, `target` included).
fn reaching(kernel: &Kernel, target: BlockId) -> Vec<bool> {
    let mut seen = vec![false; kernel.cfg.len()];
    seen[target.index()] = true;
    let mut work = vec![target];
    while let Some(b) = work.pop() {
        for &p in kernel.cfg.preds(b) {
            if !seen[p.index()] {
                seen[p.index()] = true;
                work.push(p);
            }
        }
    }
    seen
}

/// The state of thread (`ctaid`, `tid`) when it first reaches the header of loop `target`
/// (see [`entry_states`]).
pub fn entry_state<'l>(
    kernel: &Kernel,
    an: &Analysis,
    launch: &'l BoundLaunch,
    ctaid: [u32; 3],
    tid: [u32; 3],
    target: LoopId,
) -> Option<ThreadState<'l>> {
    let reach = reaching(kernel, an.loops.get(target).header);
    entry_states_with(kernel, an, launch, ctaid, tid, target, &reach, 1).pop()
}

/// The states of thread (`ctaid`, `tid`) at its first `max` entries into loop `target`.
/// One path is followed from the kernel entry: unknown branches take the side that can reach
/// the loop, loops that do not contain the target are skipped (their registers become
/// unknown), loops around it iterate for real, bounded by a budget of block visits.
pub fn entry_states<'l>(
    kernel: &Kernel,
    an: &Analysis,
    launch: &'l BoundLaunch,
    ctaid: [u32; 3],
    tid: [u32; 3],
    target: LoopId,
    max: usize,
) -> Vec<ThreadState<'l>> {
    let reach = reaching(kernel, an.loops.get(target).header);
    entry_states_with(kernel, an, launch, ctaid, tid, target, &reach, max)
}

#[allow(clippy::too_many_arguments)]
fn entry_states_with<'l>(
    kernel: &Kernel,
    an: &Analysis,
    launch: &'l BoundLaunch,
    ctaid: [u32; 3],
    tid: [u32; 3],
    target: LoopId,
    reach: &[bool],
    max: usize,
) -> Vec<ThreadState<'l>> {
    let header = an.loops.get(target).header;
    let mut out = Vec::new();
    let mut st = ThreadState::new(kernel, launch, ctaid, tid);
    let mut b = kernel.cfg.entry();
    let budget = 16 * kernel.cfg.len() + 64;
    for _ in 0..budget {
        if b == header {
            out.push(st.clone());
            if out.len() >= max {
                break;
            }
        }
        if let Some(m) = an.loops.loop_with_header(b) {
            let lp = an.loops.get(m);
            if m == target || !lp.contains(header) {
                for r in &an.loop_defs[m.index()] {
                    st.set(*r, Value::Unknown);
                }
                let exits = || lp.exits.iter().map(|e| e.1);
                match exits()
                    .find(|t| reach[t.index()])
                    .or_else(|| exits().next())
                {
                    Some(t) => b = t,
                    None => break,
                }
                continue;
            }
        }
        for &i in &kernel.block(b).insts {
            st.step(kernel.inst(i));
        }
        let prefer = |a: BlockId, c: BlockId| if reach[a.index()] { a } else { c };
        b = match &kernel.block(b).term {
            Term::Goto(t) => *t,
            Term::Cond { guard, taken, fall } => match st.eval_guard(Some(*guard)) {
                Some(true) => *taken,
                Some(false) => *fall,
                None => prefer(*taken, *fall),
            },
            Term::Switch { index, targets } => {
                let known = match st.get(*index) {
                    Value::Int(i) => targets.get(i as usize).copied(),
                    _ => None,
                };
                match known.or_else(|| targets.iter().copied().find(|t| reach[t.index()])) {
                    Some(t) => t,
                    None => break,
                }
            }
            Term::Exit => break,
        };
    }
    out
}

/// Entries into a loop sampled per thread for statistics.
const ENTRIES_PER_THREAD: usize = 8;

/// The sampled threads: every thread of the first, the central and the last block. The
/// central block is the one the walk builds by default; in a 2-D grid whose edge rows return
/// early (a stencil's boundary), the first and the last block both sit on an edge and no
/// thread of theirs reaches the loop.
fn sample_threads(launch: &BoundLaunch) -> Vec<([u32; 3], Vec<[u32; 3]>)> {
    let mut blocks = vec![0, launch.middle_block(), launch.blocks().saturating_sub(1)];
    blocks.dedup();
    blocks
        .into_iter()
        .map(|b| {
            let tids = (0..launch.threads_per_block())
                .map(|t| launch.tid_of(t))
                .collect();
            (launch.ctaid_of(b), tids)
        })
        .collect()
}

/// Per-thread counts of an induction over the sampled threads; `Err` when some thread that
/// reaches the loop cannot evaluate it, `Ok(None)` when no sampled thread reaches it.
/// `invariant`: every thread computes the same values ([`thread_invariant`]), so the
/// first sampled thread's counts stand for all of them (one walk instead of one a thread; the
/// statistics are the same as walking each).
fn induction_stats(
    kernel: &Kernel,
    an: &Analysis,
    launch: &BoundLaunch,
    l: LoopId,
    iv: &Induction,
    invariant: bool,
) -> Result<Option<TripStats>, ()> {
    let reach = reaching(kernel, an.loops.get(l).header);
    let mut first: Option<Vec<u64>> = None;
    let mut min = u64::MAX;
    let mut max = 0;
    let mut threads = 0u64;
    let mut warp_sum = 0f64;
    let mut warps = 0u64;
    let mut values: Vec<u64> = Vec::new();
    for (ctaid, tids) in sample_threads(launch) {
        for warp in tids.chunks(32) {
            // Entry e of every lane forms the warp's e-th entry (lanes on one path).
            let mut wmax: Vec<u64> = Vec::new();
            for &tid in warp {
                let counts = match &first {
                    Some(c) if invariant => c.clone(),
                    _ => {
                        let states = entry_states_with(
                            kernel,
                            an,
                            launch,
                            ctaid,
                            tid,
                            l,
                            &reach,
                            ENTRIES_PER_THREAD,
                        );
                        let c = states
                            .iter()
                            .map(|st| iv.trips(st).ok_or(()))
                            .collect::<Result<Vec<u64>, ()>>()?;
                        if invariant && first.is_none() {
                            first = Some(c.clone());
                        }
                        c
                    }
                };
                if !counts.is_empty() {
                    threads += 1;
                }
                for (e, &t) in counts.iter().enumerate() {
                    min = min.min(t);
                    max = max.max(t);
                    if e < wmax.len() {
                        wmax[e] = wmax[e].max(t);
                    } else {
                        wmax.push(t);
                    }
                }
            }
            for w in wmax {
                warp_sum += w as f64;
                warps += 1;
                if let Err(pos) = values.binary_search(&w) {
                    values.insert(pos, w);
                }
            }
        }
    }
    if threads == 0 {
        return Ok(None);
    }
    values.truncate(16);
    Ok(Some(TripStats {
        min,
        max,
        warp_mean: warp_sum / warps as f64,
        warp_values: values,
        threads,
    }))
}

/// Resolves the trip count of every loop (see the module doc for the order).
pub fn resolve_trips(
    kernel: &Kernel,
    an: &Analysis,
    launch: &BoundLaunch,
    inputs: &TripInputs<'_>,
) -> Result<Trips, IrError> {
    let n = an.loops.len();
    let mut out: Vec<Option<LoopTrip>> = vec![None; n];
    let mut warnings = Vec::new();
    for row in inputs.explicit {
        let l = find_loop(kernel, an, row)?;
        if let Some(LoopTrip {
            source: TripSource::Explicit { file, row: r },
            ..
        }) = &out[l.index()]
        {
            warnings.push(Warning {
                loop_id: Some(l),
                message: format!(
                    "{}: row {}: overrides {file}: row {r} for {}",
                    row.file,
                    row.row,
                    describe(kernel, an, l)
                ),
            });
        }
        out[l.index()] = Some(LoopTrip {
            rule: TripRule::Fixed(row.trips),
            source: TripSource::Explicit {
                file: row.file.clone(),
                row: row.row,
            },
            stats: None,
        });
    }
    let invariant = thread_invariant(kernel);
    for l in an.loops.ids() {
        if out[l.index()].is_some() {
            continue;
        }
        let Some(iv) = an.induction(l) else { continue };
        match induction_stats(kernel, an, launch, l, iv, invariant) {
            Ok(Some(stats)) => {
                if iv.other_exits {
                    warnings.push(Warning {
                        loop_id: Some(l),
                        message: format!(
                            "{} has other exits; its static trip count is an upper bound",
                            describe(kernel, an, l)
                        ),
                    });
                }
                out[l.index()] = Some(LoopTrip {
                    rule: TripRule::Induction(iv.clone()),
                    source: TripSource::Static,
                    stats: Some(stats),
                });
            }
            Ok(None) => warnings.push(Warning {
                loop_id: Some(l),
                message: format!(
                    "{}: induction recognised but no sampled thread reaches the loop on a known path",
                    describe(kernel, an, l)
                ),
            }),
            Err(()) => warnings.push(Warning {
                loop_id: Some(l),
                message: format!(
                    "{}: induction recognised but its start, step or bound is not known from the launch (pass --param?)",
                    describe(kernel, an, l)
                ),
            }),
        }
    }
    // A loop with other exits (a data-dependent `break`, an escape test) runs at most its
    // static count. When the profile counts fewer instructions than the static counts give,
    // the bound was not reached: such loops are solved from the profile with the unknown ones,
    // each capped at its bound.
    let mut bounds: Vec<Option<f64>> = vec![None; n];
    if let Some(p) = inputs.profile {
        let bounded: Vec<LoopId> = an
            .loops
            .ids()
            .filter(|l| {
                matches!(&out[l.index()], Some(t) if t.source == TripSource::Static)
                    && an.induction(*l).is_some_and(|iv| iv.other_exits)
            })
            .collect();
        let known: Vec<Option<f64>> = out
            .iter()
            .map(|t| t.as_ref().map(LoopTrip::representative))
            .collect();
        if !bounded.is_empty()
            && p.warp_insts_per_warp < modelled_instructions(kernel, an, &known, 1.0)
        {
            for l in bounded {
                bounds[l.index()] = known[l.index()];
                out[l.index()] = None;
                warnings.push(Warning {
                    loop_id: Some(l),
                    message: format!(
                        "{}: the profile counts fewer instructions than its static trip count \
                         gives (an early exit is taken); its trip count comes from the profile",
                        describe(kernel, an, l)
                    ),
                });
            }
        }
    }
    let unknown: Vec<LoopId> = an
        .loops
        .ids()
        .filter(|l| out[l.index()].is_none())
        .collect();
    if let (Some(p), false) = (inputs.profile, unknown.is_empty()) {
        let mut known: Vec<Option<f64>> = out
            .iter()
            .map(|t| t.as_ref().map(LoopTrip::representative))
            .collect();
        // An unrolled loop and its remainder share one bound: the remainder is fixed at the
        // mean remainder, the main loop is solved with the others.
        let pairs = joint::unroll_pairs(kernel, an, &unknown);
        let mut fixed: Vec<(LoopId, u64)> = Vec::new();
        for pair in &pairs {
            let r = pair.remainder_trips();
            let r = match bounds[pair.remainder.index()] {
                Some(b) => r.min(b.ceil().max(1.0) as u64),
                None => r,
            };
            known[pair.remainder.index()] = Some(r as f64);
            fixed.push((pair.remainder, r));
        }
        let free: Vec<LoopId> = unknown
            .iter()
            .copied()
            .filter(|l| !fixed.iter().any(|f| f.0 == *l))
            .collect();
        let (shared, _) = solve_profile(kernel, an, &known, p.warp_insts_per_warp);
        let start: Vec<f64> = known.iter().map(|k| k.unwrap_or(shared as f64)).collect();
        let fit = joint::solve(
            kernel,
            an,
            &start,
            &free,
            &bounds,
            p.warp_insts_per_warp,
            &p.classes,
        );
        for (l, t) in free.iter().zip(&fit.trips) {
            known[l.index()] = Some(*t as f64);
        }
        let residual = p.warp_insts_per_warp - modelled_instructions(kernel, an, &known, 1.0);
        let ambiguous = free.len() > 1 && fit.ambiguous;
        for pair in &pairs {
            let main = fit.trips[free.iter().position(|l| *l == pair.main).unwrap_or(0)];
            let r = known[pair.remainder.index()].unwrap_or(1.0);
            warnings.push(Warning {
                loop_id: Some(pair.main),
                message: format!(
                    "{}: {} (step {}) and its remainder {} share one bound n: the remainder runs \
                     {r} (the mean of n mod {}), the main loop {main} (n about {})",
                    p.file,
                    describe(kernel, an, pair.main),
                    pair.k,
                    describe(kernel, an, pair.remainder),
                    pair.k,
                    pair.k * main + r as u64
                ),
            });
        }
        if ambiguous {
            warnings.push(Warning {
                loop_id: None,
                message: format!(
                    "{}: {} loops without a trip count and counters ({}) that cannot tell them apart; assumed equal trip counts ({}) for {}",
                    p.file,
                    free.len(),
                    fit.counters.join(", "),
                    fit.trips.first().copied().unwrap_or(1),
                    free.iter().map(|l| describe(kernel, an, *l)).collect::<Vec<_>>().join(", ")
                ),
            });
        } else if fit.counters.len() > 1 {
            let residuals: Vec<String> = fit
                .counters
                .iter()
                .zip(&fit.relative_residuals)
                .map(|(c, r)| format!("{c} {:+.1} %", 100.0 * r))
                .collect();
            warnings.push(Warning {
                loop_id: None,
                message: format!(
                    "{}: trip counts fitted to {} counters (modelled vs measured: {}): {}",
                    p.file,
                    fit.counters.len(),
                    residuals.join(", "),
                    free.iter()
                        .zip(&fit.trips)
                        .map(|(l, t)| format!("{} = {t}", describe(kernel, an, *l)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        for &l in &unknown {
            let t = known[l.index()].unwrap_or(1.0) as u64;
            out[l.index()] = Some(LoopTrip {
                rule: TripRule::Fixed(t),
                source: TripSource::Profile {
                    file: p.file.clone(),
                    residual,
                    ambiguous,
                },
                stats: None,
            });
        }
    }
    let loops = out
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            t.unwrap_or_else(|| {
                let l = LoopId::from_index(i);
                warnings.push(Warning {
                    loop_id: Some(l),
                    message: format!("{}: no trip count known; using 1", describe(kernel, an, l)),
                });
                LoopTrip {
                    rule: TripRule::Fixed(1),
                    source: TripSource::Default,
                    stats: None,
                }
            })
        })
        .collect::<Vec<LoopTrip>>();
    for (i, t) in loops.iter().enumerate() {
        let most = match (&t.rule, &t.stats) {
            (TripRule::Fixed(n), _) => *n,
            (TripRule::Induction(_), Some(s)) => s.max,
            (TripRule::Induction(_), None) => 0,
        };
        if most > MAX_TRIPS {
            return Err(IrError::TripsOutOfRange {
                kernel: kernel.name.clone(),
                what: describe(kernel, an, LoopId::from_index(i)),
                trips: most,
                limit: MAX_TRIPS,
            });
        }
    }
    Ok(Trips { loops, warnings })
}

/// Most iterations per entry a loop may have: no launch runs 2^40 iterations of a loop in one
/// thread, so a larger count (an overflowing bound, a typo in a trips table) is refused.
pub const MAX_TRIPS: u64 = 1 << 40;

/// Modelled warp instructions per warp when the loops without a count all run `t` times:
/// `sum_b insts(b) * prod_{L containing b} trips(L)`. Conditional code is counted as
/// executed (a warp issues a branch side if any lane takes it).
pub fn modelled_instructions(kernel: &Kernel, an: &Analysis, known: &[Option<f64>], t: f64) -> f64 {
    kernel
        .cfg
        .blocks()
        .filter(|b| an.dom.is_reachable(*b))
        .map(|b| {
            let n = kernel.block(b).insts.len() as f64;
            an.loops
                .enclosing(b)
                .map(|l| known[l.index()].unwrap_or(t))
                .product::<f64>()
                * n
        })
        .sum()
}

/// Solves `modelled_instructions(T) = measured` for one integer T >= 1 shared by all loops
/// without a count. Returns T and the residual (measured - modelled at T).
pub fn solve_profile(
    kernel: &Kernel,
    an: &Analysis,
    known: &[Option<f64>],
    measured: f64,
) -> (u64, f64) {
    let f = |t: f64| modelled_instructions(kernel, an, known, t);
    // f is non-decreasing in t (non-negative coefficients): bisection.
    let (mut lo, mut hi) = (1.0f64, 1.0f64);
    while f(hi) < measured && hi < 1e15 {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < measured {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let t = 0.5 * (lo + hi);
    let cands = [t.floor().max(1.0), t.ceil().max(1.0)];
    let best = cands
        .into_iter()
        .min_by(|a, b| {
            (measured - f(*a))
                .abs()
                .total_cmp(&(measured - f(*b)).abs())
        })
        .unwrap_or(1.0);
    (best as u64, measured - f(best))
}

/// Parses a plain trips table (`kernel,loop,trips` header, one row per loop; `#` comments).
/// Returns `(kernel, row)` pairs.
pub fn parse_trips_table(text: &str, file: &str) -> Result<Vec<(String, ExplicitTrip)>, IrError> {
    let err = |row: usize, message: String| IrError::TripsTable {
        file: file.to_string(),
        row,
        message,
    };
    let mut out = Vec::new();
    let mut header_seen = false;
    for (i, line) in text.lines().enumerate() {
        let row = i + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if !header_seen {
            header_seen = true;
            if cols != ["kernel", "loop", "trips"] {
                return Err(err(
                    row,
                    format!("expected the header `kernel,loop,trips`, found `{line}`"),
                ));
            }
            continue;
        }
        let [kernel, loop_ref, trips] = cols[..] else {
            return Err(err(
                row,
                format!(
                    "expected 3 columns (kernel,loop,trips), found {}",
                    cols.len()
                ),
            ));
        };
        let trips: u64 = trips.parse().map_err(|_| {
            err(
                row,
                format!("column `trips`: `{trips}` is not a non-negative integer"),
            )
        })?;
        out.push((
            kernel.to_string(),
            ExplicitTrip {
                file: file.to_string(),
                row,
                loop_ref: loop_ref.to_string(),
                trips,
            },
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::Launch;

    #[test]
    fn evidence_in_ptx_units_divides_the_instructions_only() {
        let e = ProfileEvidence {
            file: "p.csv".into(),
            warp_insts_per_warp: 1053.0,
            classes: ClassCounts {
                global_loads: Some(10.0),
                ..ClassCounts::default()
            },
        };
        let p = e.clone().in_ptx(1.053);
        assert!((p.warp_insts_per_warp - 1000.0).abs() < 1e-9);
        assert_eq!(p.classes, e.classes);
        // A factor that is not a positive number converts nothing.
        for bad in [0.0, -1.0, f64::NAN] {
            assert_eq!(e.clone().in_ptx(bad), e);
        }
    }

    /// Two nested loops, the inner one triangular (bound = the outer counter), with no index
    /// that differs between threads, launched over two blocks of 96 threads.
    fn invariant_kernel() -> (Kernel, Analysis, BoundLaunch) {
        let text = ".version 7.0\n.target sm_80\n.address_size 64\n\
            .visible .entry k(.param .u32 n)\n{\n .reg .pred %p<3>;\n .reg .b32 %r<4>;\n \
            ld.param.u32 %r3, [n];\n mov.u32 %r1, 0;\nOUTER:\n mov.u32 %r2, 0;\nINNER:\n \
            add.u32 %r2, %r2, 1;\n setp.lt.u32 %p2, %r2, %r1;\n @%p2 bra INNER;\n \
            add.u32 %r1, %r1, 1;\n setp.lt.u32 %p1, %r1, %r3;\n @%p1 bra OUTER;\n ret;\n}\n";
        let module = ptx::parse(text).unwrap();
        let k = crate::lower_kernel(&module, "k").unwrap();
        let an = crate::analyze(&k).unwrap();
        let launch = Launch {
            grid: [2, 1, 1],
            block: [96, 1, 1],
            params: vec![("n".into(), 11.into())],
        }
        .bind(&k)
        .unwrap();
        (k, an, launch)
    }

    #[test]
    fn thread_invariant_kernels_give_the_same_stats_from_one_walk() {
        let (k, an, launch) = invariant_kernel();
        assert!(thread_invariant(&k));
        assert_eq!(an.loops.len(), 2);
        for l in an.loops.ids() {
            let iv = an.induction(l).expect("both loops are counted");
            let once = induction_stats(&k, &an, &launch, l, iv, true).unwrap();
            let each = induction_stats(&k, &an, &launch, l, iv, false).unwrap();
            assert_eq!(once, each);
            assert_eq!(once.unwrap().threads, 192);
        }
    }

    #[test]
    fn a_kernel_reading_its_thread_index_is_not_invariant() {
        let text = ".version 7.0\n.target sm_80\n.address_size 64\n\
            .visible .entry k()\n{\n .reg .b32 %r<2>;\n mov.u32 %r1, %laneid;\n ret;\n}\n";
        let module = ptx::parse(text).unwrap();
        let k = crate::lower_kernel(&module, "k").unwrap();
        assert!(!thread_invariant(&k));
        let (k, ..) = invariant_kernel();
        assert!(thread_invariant(&k));
    }
}
