//! Trip counts solved jointly over several measured counters (issue 16, part 3b).
//!
//! The model of every counter is the one of the instruction total (docs/trips.md, "Profile
//! solution"): `C_j = Σ_b n_j(b) · Π_{loops L ∋ b} trips(L)`, with `n_j(b)` the block's static
//! count of class `j` (all instructions, global loads, global stores, shared loads, shared
//! stores). Each `C_j` is multilinear in the trip counts, so the least-squares fit of the
//! relative residuals `(C_j − M_j) / M_j` is minimised one loop at a time in closed form
//! (coordinate descent), starting from the shared count of the one-equation solution, then
//! rounded to integers with a ±1 search. The instruction total weighs [`INSTRUCTION_WEIGHT`]
//! times the others: it is what the simulated time follows, and the static model counts
//! conditional code as executed, so the load and store counters decide how the total splits
//! among loops rather than the total itself.
//!
//! An unrolled loop and its remainder loop share one bound `n`: ptxas' `n / k` iterations of
//! the main loop (induction step k > 1) and `n mod k` of the remainder (step 1). The
//! remainder of a data-dependent `n` is not measurable apart from the main loop (the two
//! bodies have the same instruction mix), so it is fixed at `k / 2`, the mean of `n mod k`
//! over the `k − 1` non-zero remainders the loop runs for when entered, and the main loop
//! is solved. Owns only the solve; `trips::resolve_trips` decides which loops take part.

use serde::Serialize;

use crate::analysis::Analysis;
use crate::ids::LoopId;
use crate::kernel::Kernel;
use ptx::ast::StateSpace;

/// Measured per-warp counts of instruction classes besides the total, in PTX instructions
/// (the caller converts the profiler's SASS counts); `None` where the profile lacks one.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct ClassCounts {
    pub global_loads: Option<f64>,
    pub global_stores: Option<f64>,
    pub shared_loads: Option<f64>,
    pub shared_stores: Option<f64>,
}

/// The counters of the fit: all instructions, then the classes of [`ClassCounts`].
pub const COUNTERS: [&str; 5] = [
    "instructions",
    "global loads",
    "global stores",
    "shared loads",
    "shared stores",
];

impl ClassCounts {
    fn measured(&self, insts: f64) -> [Option<f64>; 5] {
        [
            Some(insts),
            self.global_loads,
            self.global_stores,
            self.shared_loads,
            self.shared_stores,
        ]
    }
}

/// Static counts of each counter class per reachable block, indexed by block.
pub(crate) fn block_counts(kernel: &Kernel, an: &Analysis) -> Vec<[f64; 5]> {
    kernel
        .cfg
        .blocks()
        .map(|b| {
            let mut c = [0.0; 5];
            if !an.dom.is_reachable(b) {
                return c;
            }
            for &i in &kernel.block(b).insts {
                let op = &kernel.inst(i).op;
                c[0] += 1.0;
                if !op.is_memory() || op.is_atomic() {
                    continue;
                }
                let j = match (op.space(), op.is_store()) {
                    (Some(StateSpace::Global), false) => 1,
                    (Some(StateSpace::Global), true) => 2,
                    (Some(StateSpace::Shared | StateSpace::SharedCta), false) => 3,
                    (Some(StateSpace::Shared | StateSpace::SharedCta), true) => 4,
                    _ => continue,
                };
                c[j] += 1.0;
            }
            c
        })
        .collect()
}

/// Every counter when loop `l` runs `trips[l]` times per entry.
fn modelled(kernel: &Kernel, an: &Analysis, counts: &[[f64; 5]], trips: &[f64]) -> [f64; 5] {
    let mut out = [0.0; 5];
    for (b, c) in kernel.cfg.blocks().zip(counts) {
        let f: f64 = an.loops.enclosing(b).map(|l| trips[l.index()]).product();
        for (o, v) in out.iter_mut().zip(c) {
            *o += f * v;
        }
    }
    out
}

/// Weight of the instruction total's squared relative residual against each other counter's.
pub const INSTRUCTION_WEIGHT: f64 = 100.0;

/// Largest unroll factor taken for a main loop's step: larger constant steps are strides
/// (lanes of a warp, threads of a block), not unrolled copies.
pub const MAX_UNROLL: u64 = 16;

/// An unrolled main loop and its remainder loop, both without a count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnrollPair {
    pub main: LoopId,
    pub remainder: LoopId,
    /// The main loop's induction step: iterations of the source loop per main iteration.
    pub k: u64,
}

impl UnrollPair {
    /// The remainder loop's count: `k / 2` (at least 1), the mean of `n mod k` over the
    /// non-zero remainders.
    pub fn remainder_trips(&self) -> u64 {
        (self.k / 2).max(1)
    }
}

/// Pairs each unknown loop with constant induction step 1 with an unknown sibling (same
/// parent) whose constant step is 1 < k <= [`MAX_UNROLL`] and whose own blocks hold k times
/// the remainder's memory instructions (k copies of its body; with no memory instruction on
/// either side, k times its instructions within a factor 2), the nearest in block order; each
/// loop in at most one pair.
pub fn unroll_pairs(kernel: &Kernel, an: &Analysis, unknown: &[LoopId]) -> Vec<UnrollPair> {
    let step = |l: LoopId| {
        an.induction(l)
            .filter(|iv| iv.step.s == 0)
            .map(|iv| iv.step.k.unsigned_abs())
    };
    // (instructions, memory instructions) of the loop's own blocks, nested loops excluded.
    let body = |l: LoopId| {
        let mut n = (0u64, 0u64);
        for &b in &an.loops.get(l).blocks {
            if an.loops.innermost(b) != Some(l) {
                continue;
            }
            for &i in &kernel.block(b).insts {
                n.0 += 1;
                n.1 += u64::from(kernel.inst(i).op.is_memory());
            }
        }
        n
    };
    let copies = |m: LoopId, r: LoopId, k: u64| {
        let ((mi, mm), (ri, rm)) = (body(m), body(r));
        if mm + rm > 0 {
            mm == k * rm
        } else {
            2 * mi >= k * ri && mi <= 2 * k * ri
        }
    };
    let parent = |l: LoopId| an.loops.get(l).parent;
    let header = |l: LoopId| an.loops.get(l).header.index();
    let mut used: Vec<LoopId> = Vec::new();
    let mut out = Vec::new();
    for &r in unknown {
        if step(r) != Some(1) || used.contains(&r) {
            continue;
        }
        let main = unknown
            .iter()
            .copied()
            .filter(|&m| m != r && !used.contains(&m) && parent(m) == parent(r))
            .filter(|&m| step(m).is_some_and(|k| k > 1 && k <= MAX_UNROLL && copies(m, r, k)))
            .min_by_key(|&m| header(m).abs_diff(header(r)));
        if let Some(m) = main {
            used.extend([m, r]);
            out.push(UnrollPair {
                main: m,
                remainder: r,
                k: step(m).unwrap_or(1),
            });
        }
    }
    out
}

/// The joint solution.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    /// Trip count per solved loop, in the order given.
    pub trips: Vec<u64>,
    /// Counters that took part (names from [`COUNTERS`]).
    pub counters: Vec<&'static str>,
    /// The counters cannot tell the loops apart (fewer independent counters than loops):
    /// the loops keep the shared count.
    pub ambiguous: bool,
    /// Modelled minus measured, relative, per counter that took part.
    pub relative_residuals: Vec<f64>,
}

/// Solves the loops `free` (each capped by `caps`, at least 1) so the modelled counters match
/// `classes` and `insts` in the least-squares sense of the relative residuals; `trips` holds
/// every other loop's count and, for the loops in `free`, the starting point.
pub fn solve(
    kernel: &Kernel,
    an: &Analysis,
    trips: &[f64],
    free: &[LoopId],
    caps: &[Option<f64>],
    insts: f64,
    classes: &ClassCounts,
) -> Joint {
    let counts = block_counts(kernel, an);
    let measured = classes.measured(insts);
    let used: Vec<usize> = (0..5).filter(|&j| measured[j].is_some()).collect();
    let target: Vec<f64> = used.iter().map(|&j| measured[j].unwrap_or(0.0)).collect();
    // Relative residuals; the instruction total (the first counter) weighs more.
    let scale: Vec<f64> = target
        .iter()
        .enumerate()
        .map(|(i, m)| {
            m.max(1.0)
                / if i == 0 {
                    INSTRUCTION_WEIGHT.sqrt()
                } else {
                    1.0
                }
        })
        .collect();
    let mut t: Vec<f64> = trips.to_vec();
    let cap = |l: LoopId| caps[l.index()].unwrap_or(f64::INFINITY).max(1.0);
    let model = |t: &[f64]| -> Vec<f64> {
        let m = modelled(kernel, an, &counts, t);
        used.iter().map(|&j| m[j]).collect()
    };
    let objective = |t: &[f64]| -> f64 {
        model(t)
            .iter()
            .zip(&target)
            .zip(&scale)
            .map(|((c, m), s)| ((c - m) / s).powi(2))
            .sum()
    };
    // Sensitivity of each counter to each loop (linear in that loop alone), scaled.
    let slope = |t: &[f64], l: LoopId| -> (Vec<f64>, Vec<f64>) {
        let mut u = t.to_vec();
        u[l.index()] = 0.0;
        let a = model(&u);
        u[l.index()] = 1.0;
        let b: Vec<f64> = model(&u).iter().zip(&a).map(|(x, y)| x - y).collect();
        (a, b)
    };
    let ambiguous = free.len()
        > independent(
            &free
                .iter()
                .map(|&l| {
                    slope(&t, l)
                        .1
                        .iter()
                        .zip(&scale)
                        .map(|(b, s)| b / s)
                        .collect()
                })
                .collect::<Vec<Vec<f64>>>(),
        );
    if !ambiguous {
        for _ in 0..200 {
            let mut moved = 0.0f64;
            for &l in free {
                let (a, b) = slope(&t, l);
                let (mut num, mut den) = (0.0, 0.0);
                for j in 0..a.len() {
                    let w = 1.0 / (scale[j] * scale[j]);
                    num += w * b[j] * (target[j] - a[j]);
                    den += w * b[j] * b[j];
                }
                if den <= 0.0 {
                    continue;
                }
                let x = (num / den).clamp(1.0, cap(l));
                moved = moved.max((x - t[l.index()]).abs());
                t[l.index()] = x;
            }
            if moved < 1e-9 {
                break;
            }
        }
    }
    // Round each count to the better of floor and ceiling (the lower on a tie).
    for &l in free {
        let x = t[l.index()];
        let lo = x.floor().clamp(1.0, cap(l).floor());
        let hi = x.ceil().clamp(1.0, cap(l).floor());
        t[l.index()] = hi;
        let at_hi = objective(&t);
        t[l.index()] = lo;
        if at_hi < objective(&t) {
            t[l.index()] = hi;
        }
    }
    // Rounding moved the fit: step each count by ±1 while that improves it (not for loops the
    // counters cannot tell apart: they keep one shared count).
    for _ in 0..if ambiguous { 0 } else { 16 } {
        let mut improved = false;
        for &l in free {
            let best = objective(&t);
            for d in [-1.0, 1.0] {
                let x = t[l.index()] + d;
                if x < 1.0 || x > cap(l) {
                    continue;
                }
                let old = t[l.index()];
                t[l.index()] = x;
                if objective(&t) < best - 1e-15 {
                    improved = true;
                    break;
                }
                t[l.index()] = old;
            }
        }
        if !improved {
            break;
        }
    }
    let relative_residuals = model(&t)
        .iter()
        .zip(&target)
        .map(|(c, m)| (c - m) / m.max(1.0))
        .collect();
    Joint {
        trips: free.iter().map(|l| t[l.index()] as u64).collect(),
        counters: used.iter().map(|&j| COUNTERS[j]).collect(),
        ambiguous,
        relative_residuals,
    }
}

/// How many of `vectors` are linearly independent (Gram–Schmidt; a vector keeping less than
/// 1 % of its length after the projections is dependent).
fn independent(vectors: &[Vec<f64>]) -> usize {
    let mut basis: Vec<Vec<f64>> = Vec::new();
    for v in vectors {
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm == 0.0 {
            continue;
        }
        let mut r = v.clone();
        for q in &basis {
            let d: f64 = r.iter().zip(q).map(|(a, b)| a * b).sum();
            for (x, y) in r.iter_mut().zip(q) {
                *x -= d * y;
            }
        }
        let left = r.iter().map(|x| x * x).sum::<f64>().sqrt();
        if left > 0.01 * norm {
            basis.push(r.iter().map(|x| x / left).collect());
        }
    }
    basis.len()
}

#[cfg(test)]
mod tests {
    use super::independent;

    #[test]
    fn parallel_vectors_are_one_direction() {
        assert_eq!(independent(&[vec![1.0, 2.0], vec![2.0, 4.0]]), 1);
        assert_eq!(independent(&[vec![1.0, 2.0], vec![2.0, 1.0]]), 2);
        assert_eq!(independent(&[vec![0.0, 0.0], vec![1.0, 0.0]]), 1);
        assert_eq!(independent(&[vec![1.0], vec![3.0], vec![2.0]]), 1);
    }
}
