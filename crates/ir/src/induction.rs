//! Induction-variable recognition and closed-form trip counts.
//!
//! A loop is recognised when one of its exiting branches tests a predicate set by
//! `setp.CMP iv', bound` where `bound` is loop-invariant and `iv'` is either an induction
//! register `iv` updated once per iteration by `add/sub iv, iv, step` (step loop-invariant), or
//! `iv + step` computed before a `mov iv, iv'`. Start, step and bound are read from the
//! thread's abstract state at loop entry, so one recognised loop gives a per-thread trip
//! function (a grid-stride loop runs a different number of iterations per thread).
//!
//! Trip count = number of times the loop header executes per entry into the loop. With
//! `v(k) = start + step * (k + post)` the value the exit test sees in iteration `k` (`post` = 1
//! when the test follows the update), the loop leaves at the first `k` where the continue
//! condition fails, so trips = k + 1. Wrap-around of the register width is not modelled: a
//! count that would need it is reported as unknown.

use crate::dom::DomTree;
use crate::ids::{BlockId, InstId, LoopId, RegId};
use crate::interp::{ThreadState, Value};
use crate::kernel::{Kernel, Operand, Term};
use crate::loops::LoopForest;
use crate::sem::{Cmp, IntTy, Sem};
use serde::Serialize;

/// A recognised counted loop.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Induction {
    /// The register whose value at loop entry is the start.
    pub iv: RegId,
    /// The per-iteration increment (negated when `negate_step`, for `sub`).
    pub step: Operand,
    pub negate_step: bool,
    /// The loop-invariant bound.
    pub bound: Operand,
    /// The loop continues while `v(k) cont bound`.
    pub cont: Cmp,
    /// The type of the comparison.
    pub ty: IntTy,
    /// True when the exit test sees the value after this iteration's update.
    pub post: bool,
    /// The block whose branch implements the exit test.
    pub exiting: BlockId,
    /// The `setp` feeding that branch.
    pub test: InstId,
    /// The update of the induction register.
    pub update: InstId,
    /// The loop has other exits (breaks) this count ignores: it is an upper bound.
    pub other_exits: bool,
}

impl Induction {
    /// The trip count for a thread whose state is taken at loop entry; `None` when start,
    /// step or bound is unknown for this thread or the loop would not terminate without
    /// wrapping around.
    pub fn trips(&self, state: &ThreadState<'_>) -> Option<u64> {
        let step_ty = self.ty.as_signed();
        let step = match state.eval(&self.step) {
            Value::Int(s) => step_ty.to_i128(s),
            _ => return None,
        };
        let step = if self.negate_step { -step } else { step };
        let (start, bound, lo, hi) = match (state.get(self.iv), state.eval(&self.bound)) {
            (Value::Int(a), Value::Int(b)) => (
                self.ty.to_i128(a),
                self.ty.to_i128(b),
                self.ty.min_value(),
                self.ty.max_value(),
            ),
            (
                Value::Addr {
                    base: b1,
                    offset: a,
                },
                Value::Addr {
                    base: b2,
                    offset: b,
                },
            ) if b1 == b2 => (
                i128::from(a),
                i128::from(b),
                i128::from(i64::MIN),
                i128::from(i64::MAX),
            ),
            _ => return None,
        };
        closed_form(start, step, bound, self.cont, self.post, lo, hi)
    }
}

/// Trips of `for (k = 0; cont(start + step*(k+post), bound); k++)` counting the first test:
/// `k_exit + 1`, where every value seen must lie in `[lo, hi]`.
pub fn closed_form(
    start: i128,
    step: i128,
    bound: i128,
    cont: Cmp,
    post: bool,
    lo: i128,
    hi: i128,
) -> Option<u64> {
    let a = start + if post { step } else { 0 };
    // Smallest k >= 0 with a + s*k >= b.
    let first_ge = |a: i128, s: i128, b: i128| -> Option<i128> {
        if a >= b {
            Some(0)
        } else if s <= 0 {
            None
        } else {
            Some((b - a + s - 1) / s)
        }
    };
    let k = match cont {
        Cmp::Lt => first_ge(a, step, bound)?,
        Cmp::Le => first_ge(a, step, bound + 1)?,
        Cmp::Gt => first_ge(-a, -step, -bound)?,
        Cmp::Ge => first_ge(-a, -step, -bound + 1)?,
        Cmp::Ne => {
            if step == 0 {
                if a == bound {
                    0
                } else {
                    return None;
                }
            } else {
                let d = bound - a;
                if d % step != 0 || d / step < 0 {
                    return None;
                }
                d / step
            }
        }
        Cmp::Eq => {
            if a != bound {
                0
            } else if step != 0 {
                1
            } else {
                return None;
            }
        }
    };
    let last = a + step * k;
    if start < lo || start > hi || last < lo || last > hi {
        return None;
    }
    u64::try_from(k + 1).ok()
}

/// Registers defined inside each loop, for invariance tests and for skipping loops.
pub(crate) fn loop_defs(kernel: &Kernel, forest: &LoopForest) -> Vec<Vec<RegId>> {
    forest
        .ids()
        .map(|l| {
            let mut regs: Vec<RegId> = forest
                .get(l)
                .blocks
                .iter()
                .flat_map(|b| kernel.block(*b).insts.iter())
                .flat_map(|i| kernel.inst(*i).defs())
                .collect();
            regs.sort();
            regs.dedup();
            regs
        })
        .collect()
}

struct Ctx<'a> {
    kernel: &'a Kernel,
    dom: &'a DomTree,
    blocks: &'a [BlockId],
    latches: &'a [BlockId],
    defs: &'a [RegId],
}

impl Ctx<'_> {
    fn invariant(&self, o: &Operand) -> bool {
        match o {
            Operand::Reg(r) => self.defs.binary_search(r).is_err(),
            Operand::Imm(_) | Operand::Special(_) | Operand::Base { .. } => true,
            _ => false,
        }
    }

    /// The unique unguarded definition of `r` inside the loop.
    fn single_def(&self, r: RegId) -> Option<InstId> {
        let mut found = None;
        for b in self.blocks {
            for &i in &self.kernel.block(*b).insts {
                if self.kernel.inst(i).defs().contains(&r) {
                    if found.is_some() {
                        return None;
                    }
                    found = Some(i);
                }
            }
        }
        found.filter(|i| self.kernel.inst(*i).guard.is_none())
    }

    /// True when, within one iteration, `x` executes before `y`; `None` when neither order
    /// holds on every path.
    fn before(&self, x: InstId, y: InstId) -> Option<bool> {
        let (bx, by) = (self.kernel.inst(x).block, self.kernel.inst(y).block);
        if bx == by {
            return Some(x < y);
        }
        if self.dom.dominates(bx, by) {
            Some(true)
        } else if self.dom.dominates(by, bx) {
            Some(false)
        } else {
            None
        }
    }

    fn every_iteration(&self, i: InstId) -> bool {
        let b = self.kernel.inst(i).block;
        self.latches.iter().all(|l| self.dom.dominates(b, *l))
    }

    /// `add r, r, s` / `add r, s, r` / `sub r, r, s` with `s` invariant: (step, negated).
    fn self_update(&self, i: InstId, r: RegId) -> Option<(Operand, bool)> {
        let inst = self.kernel.inst(i);
        let s = inst.srcs();
        match (inst.sem, s.first(), s.get(1)) {
            (Sem::Add, Some(Operand::Reg(a)), Some(b)) if *a == r && self.invariant(b) => {
                Some((b.clone(), false))
            }
            (Sem::Add, Some(a), Some(Operand::Reg(b))) if *b == r && self.invariant(a) => {
                Some((a.clone(), false))
            }
            (Sem::Sub, Some(Operand::Reg(a)), Some(b)) if *a == r && self.invariant(b) => {
                Some((b.clone(), true))
            }
            _ => None,
        }
    }

    /// Recognises `c` as an induction value seen by `test`: (iv, step, negated, update, post).
    fn induction_value(
        &self,
        c: RegId,
        test: InstId,
    ) -> Option<(RegId, Operand, bool, InstId, bool)> {
        let d = self.single_def(c)?;
        if !self.every_iteration(d) {
            return None;
        }
        if let Some((step, neg)) = self.self_update(d, c) {
            let post = self.before(d, test)?;
            return Some((c, step, neg, d, post));
        }
        // c = r + s; r = c (mov), with c computed before r is overwritten.
        let inst = self.kernel.inst(d);
        let (r, step, neg) = match (inst.sem, inst.srcs().first(), inst.srcs().get(1)) {
            (Sem::Add, Some(Operand::Reg(r)), Some(s)) if self.invariant(s) => {
                (*r, s.clone(), false)
            }
            (Sem::Sub, Some(Operand::Reg(r)), Some(s)) if self.invariant(s) => {
                (*r, s.clone(), true)
            }
            _ => return None,
        };
        let m = self.single_def(r)?;
        let mi = self.kernel.inst(m);
        let is_copy = mi.sem == Sem::Mov && mi.srcs().first() == Some(&Operand::Reg(c));
        if !is_copy || !self.every_iteration(m) || !self.before(d, test)? || !self.before(d, m)? {
            return None;
        }
        Some((r, step, neg, m, true))
    }
}

/// Recognises the counted exit of loop `l`, if any.
pub fn recognize(
    kernel: &Kernel,
    dom: &DomTree,
    forest: &LoopForest,
    defs: &[Vec<RegId>],
    l: LoopId,
) -> Option<Induction> {
    let lp = forest.get(l);
    let ctx = Ctx {
        kernel,
        dom,
        blocks: &lp.blocks,
        latches: &lp.latches,
        defs: &defs[l.index()],
    };
    let mut exiting: Vec<BlockId> = lp.exits.iter().map(|(b, _)| *b).collect();
    exiting.dedup();
    for &b in &exiting {
        let Term::Cond { guard, taken, .. } = kernel.block(b).term else {
            continue;
        };
        let Some(&test) = kernel
            .block(b)
            .insts
            .iter()
            .rev()
            .find(|i| kernel.inst(**i).defs().contains(&guard.pred))
        else {
            continue;
        };
        let ti = kernel.inst(test);
        let (Sem::Setp(cmp, None), Some(ty), None) = (ti.sem, ti.ty, ti.guard) else {
            continue;
        };
        // A `p|q` destination: q is the negation.
        let mut p_true = !(ti.ndefs == 2 && ti.dsts().get(1) == Some(&Operand::Reg(guard.pred)));
        let (Some(x), Some(y)) = (ti.srcs().first(), ti.srcs().get(1)) else {
            continue;
        };
        let (c, bound, cmp) = match (x, y) {
            (Operand::Reg(r), y) if ctx.invariant(y) => (*r, y.clone(), cmp),
            (x, Operand::Reg(r)) if ctx.invariant(x) => (*r, x.clone(), cmp.swapped()),
            _ => continue,
        };
        let Some((iv, step, negate_step, update, post)) = ctx.induction_value(c, test) else {
            continue;
        };
        // Branch taken iff (P != negated); continue iff taken stays in the loop.
        let taken_stays = lp.contains(taken);
        if guard.negated {
            p_true = !p_true;
        }
        let cont_when_p = if taken_stays { p_true } else { !p_true };
        let cont = if cont_when_p { cmp } else { cmp.negated() };
        return Some(Induction {
            iv,
            step,
            negate_step,
            bound,
            cont,
            ty,
            post,
            exiting: b,
            test,
            update,
            other_exits: exiting.len() > 1,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const I32: (i128, i128) = (i32::MIN as i128, i32::MAX as i128);

    #[test]
    fn counted_loops() {
        // for (i = 0; i < 10; i++), rotated: test after increment.
        assert_eq!(closed_form(0, 1, 10, Cmp::Lt, true, I32.0, I32.1), Some(10));
        // top-tested: header runs 11 times, the 11th exits.
        assert_eq!(
            closed_form(0, 1, 10, Cmp::Lt, false, I32.0, I32.1),
            Some(11)
        );
        // grid-stride: i = tid; i < 100; i += 32.
        assert_eq!(
            closed_form(5, 32, 100, Cmp::Lt, true, I32.0, I32.1),
            Some(3)
        );
        assert_eq!(
            closed_form(4, 32, 100, Cmp::Lt, true, I32.0, I32.1),
            Some(4)
        );
        // count down to zero with ne.
        assert_eq!(closed_form(8, -2, 0, Cmp::Ne, true, I32.0, I32.1), Some(4));
        assert_eq!(closed_form(7, -2, 0, Cmp::Ne, true, I32.0, I32.1), None);
        assert_eq!(
            closed_form(10, -1, 0, Cmp::Gt, true, I32.0, I32.1),
            Some(10)
        );
        assert_eq!(closed_form(0, 1, 10, Cmp::Le, true, I32.0, I32.1), Some(11));
        assert_eq!(closed_form(0, -1, 10, Cmp::Lt, true, I32.0, I32.1), None);
        // bound already passed: the body runs once (do-while).
        assert_eq!(closed_form(50, 1, 10, Cmp::Lt, true, I32.0, I32.1), Some(1));
    }

    proptest::proptest! {
        #[test]
        fn closed_form_matches_simulation(start in -50i128..50, step in -5i128..6, bound in -60i128..60,
                                          cmp in 0usize..6, post: bool) {
            let cmp = [Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Ne, Cmp::Eq][cmp];
            let mut k = 0i128;
            let mut sim = None;
            while k < 1000 {
                let v = start + step * (k + i128::from(post));
                if !cmp.eval(v, bound) { sim = Some((k + 1) as u64); break; }
                k += 1;
            }
            let cf = closed_form(start, step, bound, cmp, post, I32.0, I32.1);
            proptest::prop_assert_eq!(cf, sim);
        }
    }
}
