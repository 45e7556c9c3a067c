//! Induction-variable recognition and closed-form trip counts.
//!
//! One iteration of a loop is evaluated symbolically along its spine (the blocks that run in
//! every iteration: those dominating the latch, in dominator order). Every register is tracked
//! as an affine form `Start(R) + s*S + k`, where `Start(R)` is the value of a loop-carried
//! register `R` when the iteration begins, `S` one loop-invariant step operand and `s`, `k`
//! constants. A loop is counted when one of its spine exiting branches tests a predicate set by
//! `setp.CMP x, bound` with `bound` loop-invariant and `x = Start(R) + off` where `R` ends the
//! iteration as `Start(R) + step`, `step != 0`. This covers nvcc's shapes: `add %r, %r, 1`
//! before or after the test, `mov %a, %r; add %r, %a, 1; ...; add %t, %a, 2; setp %t, 16`
//! (unrolled loops) and grid-stride steps `%ntid.x * %nctaid.x` held in a register.
//!
//! Start, `S` and bound are read from the thread's abstract state at loop entry, so one
//! recognised loop gives a per-thread trip function (a grid-stride loop runs a different number
//! of iterations per thread). Trip count = number of times the loop header executes per entry
//! into the loop: with `v(j) = start + off + step * j` the value the exit test sees in
//! iteration `j`, the loop leaves at the first `j` where the continue condition fails, so
//! trips = j + 1. Wrap-around of the register width is not modelled: a count that would need
//! it is reported as unknown.

use crate::dom::DomTree;
use crate::ids::{BlockId, InstId, LoopId, RegId};
use crate::interp::{ThreadState, Value};
use crate::kernel::{Kernel, Operand, Term};
use crate::loops::LoopForest;
use crate::sem::{Cmp, IntTy, Sem};
use serde::Serialize;
use std::collections::HashMap;

/// `s * S + k` for the loop's symbolic step operand `S`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Affine {
    pub s: i64,
    pub k: i64,
}

/// A recognised counted loop.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Induction {
    /// The loop-carried register whose value at loop entry is the start.
    pub iv: RegId,
    /// The invariant operand `S` of the affine forms, when one is used.
    pub symbol: Option<Operand>,
    /// Increment of `iv` per iteration.
    pub step: Affine,
    /// The exit test compares `start + offset + step * j` in iteration `j`.
    pub offset: Affine,
    /// The loop-invariant bound.
    pub bound: Operand,
    /// The loop continues while `v(j) cont bound`.
    pub cont: Cmp,
    /// The type of the comparison.
    pub ty: IntTy,
    /// The block whose branch implements the exit test.
    pub exiting: BlockId,
    /// The `setp` feeding that branch.
    pub test: InstId,
    /// The loop has other exits (breaks) this count ignores: it is an upper bound.
    pub other_exits: bool,
}

impl Induction {
    /// The trip count for a thread whose state is taken at loop entry; `None` when start,
    /// step or bound is unknown for this thread or the loop would not terminate without
    /// wrapping around.
    pub fn trips(&self, state: &ThreadState<'_>) -> Option<u64> {
        let sty = self.ty.as_signed();
        let uses_symbol = self.step.s != 0 || self.offset.s != 0;
        let sym = match &self.symbol {
            Some(o) if uses_symbol => match state.eval(o) {
                Value::Int(v) => sty.to_i128(v),
                _ => return None,
            },
            _ => 0,
        };
        let aff = |a: Affine| i128::from(a.s) * sym + i128::from(a.k);
        let step = aff(self.step);
        let (a, bound, lo, hi) = match (state.get(self.iv), state.eval(&self.bound)) {
            // The first tested value wraps at the register width (`mov %r, -1; add %r, %r, 1;
            // setp.lt.u32` starts at 0), later ones must not.
            (Value::Int(a), Value::Int(b)) => (
                self.ty
                    .to_i128(self.ty.wrap((i128::from(a) + aff(self.offset)) as u64)),
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
                i128::from(a) + aff(self.offset),
                i128::from(b),
                i128::from(i64::MIN),
                i128::from(i64::MAX),
            ),
            _ => return None,
        };
        closed_form(a, step, bound, self.cont, lo, hi)
    }
}

/// Trips of a loop whose exit test sees `a + step * j` in iteration `j` and continues while
/// `cont(value, bound)`: `j_exit + 1`, where every value seen must lie in `[lo, hi]`.
pub fn closed_form(a: i128, step: i128, bound: i128, cont: Cmp, lo: i128, hi: i128) -> Option<u64> {
    // Smallest j >= 0 with a + s*j >= b.
    let first_ge = |a: i128, s: i128, b: i128| -> Option<i128> {
        if a >= b {
            Some(0)
        } else if s <= 0 {
            None
        } else {
            Some((b - a + s - 1) / s)
        }
    };
    let j = match cont {
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
    let last = a + step * j;
    if a < lo || a > hi || last < lo || last > hi {
        return None;
    }
    u64::try_from(j + 1).ok()
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

/// A register's value within one iteration: `Start(reg) + s*S + k` with `S = symbol`.
#[derive(Debug, Clone, PartialEq)]
struct Sym {
    reg: RegId,
    symbol: Option<Operand>,
    off: Affine,
}

struct Tracker<'a> {
    defs: &'a [RegId],
    /// Registers written in this iteration so far (None: not affine).
    cur: HashMap<RegId, Option<Sym>>,
}

impl Tracker<'_> {
    fn invariant(&self, o: &Operand) -> bool {
        match o {
            Operand::Reg(r) => self.defs.binary_search(r).is_err(),
            Operand::Imm(_) | Operand::Special(_) | Operand::Base { .. } => true,
            _ => false,
        }
    }

    fn sym(&self, o: &Operand) -> Option<Sym> {
        let Operand::Reg(r) = o else { return None };
        match self.cur.get(r) {
            Some(v) => v.clone(),
            None if self.invariant(o) => None,
            None => Some(Sym {
                reg: *r,
                symbol: None,
                off: Affine { s: 0, k: 0 },
            }),
        }
    }

    /// `x + sign * o` for an immediate or loop-invariant `o` (one symbol per value).
    fn term(&self, x: Sym, o: &Operand, ty: IntTy, sign: i64) -> Option<Sym> {
        match o {
            Operand::Imm(v) => {
                let k = sign.checked_mul(ty.as_signed().to_i128(*v) as i64)?;
                Some(Sym {
                    off: Affine {
                        s: x.off.s,
                        k: x.off.k.checked_add(k)?,
                    },
                    ..x
                })
            }
            o if self.invariant(o) => {
                if x.symbol.as_ref().is_some_and(|s| s != o) {
                    return None;
                }
                Some(Sym {
                    reg: x.reg,
                    symbol: Some(o.clone()),
                    off: Affine {
                        s: x.off.s.checked_add(sign)?,
                        k: x.off.k,
                    },
                })
            }
            _ => None,
        }
    }

    fn step(&mut self, k: &Kernel, i: InstId) {
        let inst = k.inst(i);
        let srcs = inst.srcs();
        let val = if inst.guard.is_some() {
            None
        } else {
            match (inst.sem, inst.ty, srcs.first(), srcs.get(1)) {
                (Sem::Mov, _, Some(a), None) => self.sym(a),
                (Sem::Add, Some(ty), Some(a), Some(b)) => match (self.sym(a), self.sym(b)) {
                    (Some(x), None) => self.term(x, b, ty, 1),
                    (None, Some(y)) => self.term(y, a, ty, 1),
                    _ => None,
                },
                (Sem::Sub, Some(ty), Some(a), Some(b)) => match self.sym(a) {
                    Some(x) if self.sym(b).is_none() => self.term(x, b, ty, -1),
                    _ => None,
                },
                _ => None,
            }
        };
        for d in inst.defs() {
            self.cur.insert(d, val.clone());
        }
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
    let defs = &defs[l.index()];
    // The spine: blocks of this loop (not of loops nested in it, which run a varying number
    // of times per iteration) that dominate every latch, in dominator order.
    let mut spine: Vec<BlockId> = lp
        .blocks
        .iter()
        .copied()
        .filter(|b| forest.innermost(*b) == Some(l))
        .filter(|b| lp.latches.iter().all(|x| dom.dominates(*b, *x)))
        .collect();
    spine.sort_by(|a, b| {
        if a == b {
            std::cmp::Ordering::Equal
        } else if dom.dominates(*a, *b) {
            std::cmp::Ordering::Less
        } else {
            std::cmp::Ordering::Greater
        }
    });
    // Registers written off the spine (nested loops included) are not affine anywhere in the
    // iteration.
    let mut dirty: Vec<RegId> = lp
        .blocks
        .iter()
        .filter(|b| !spine.contains(b))
        .flat_map(|b| kernel.block(*b).insts.iter())
        .flat_map(|i| kernel.inst(*i).defs())
        .collect();
    dirty.sort();
    dirty.dedup();
    let mut tr = Tracker {
        defs,
        cur: dirty.iter().map(|r| (*r, None)).collect(),
    };
    let exiting: Vec<BlockId> = {
        let mut e: Vec<BlockId> = lp.exits.iter().map(|(b, _)| *b).collect();
        e.dedup();
        e
    };
    // Candidate tests: (exiting block, setp, compared sym, bound, cmp as "continue while").
    let mut tests = Vec::new();
    let exit_tests: Vec<(BlockId, (InstId, crate::kernel::Guard, BlockId))> = spine
        .iter()
        .filter_map(|b| exit_test(kernel, *b, &exiting).map(|t| (*b, t)))
        .collect();
    for &sb in &spine {
        for &i in &kernel.block(sb).insts {
            for &(b, (test, guard, taken)) in exit_tests.iter().filter(|t| t.1 .0 == i) {
                let ti = kernel.inst(test);
                if let (Sem::Setp(cmp, None), Some(ty), None, Some(x), Some(y)) =
                    (ti.sem, ti.ty, ti.guard, ti.srcs().first(), ti.srcs().get(1))
                {
                    let found = if tr.invariant(y) {
                        tr.sym(x).map(|c| (c, y.clone(), cmp))
                    } else if tr.invariant(x) {
                        tr.sym(y).map(|c| (c, x.clone(), cmp.swapped()))
                    } else {
                        None
                    };
                    if let Some((c, bound, cmp)) = found {
                        // A `p|q` destination: q is the negation.
                        let mut p_true =
                            !(ti.ndefs == 2 && ti.dsts().get(1) == Some(&Operand::Reg(guard.pred)));
                        if guard.negated {
                            p_true = !p_true;
                        }
                        let cont_when_p = if lp.contains(taken) { p_true } else { !p_true };
                        let cont = if cont_when_p { cmp } else { cmp.negated() };
                        tests.push((b, test, c, bound, cont, ty));
                    }
                }
            }
            tr.step(kernel, i);
        }
    }
    for (b, test, c, bound, cont, ty) in tests {
        let Some(Some(end)) = tr.cur.get(&c.reg) else {
            continue;
        };
        if end.reg != c.reg || end.off == (Affine { s: 0, k: 0 }) {
            continue;
        }
        let symbol = match (&end.symbol, &c.symbol) {
            (Some(a), Some(b)) if a != b => continue,
            (Some(a), _) | (None, Some(a)) => Some(a.clone()),
            (None, None) => None,
        };
        return Some(Induction {
            iv: c.reg,
            symbol,
            step: end.off,
            offset: c.off,
            bound,
            cont,
            ty,
            exiting: b,
            test,
            other_exits: exiting.len() > 1,
        });
    }
    None
}

/// The `setp` deciding the exit branch of block `b`: (setp, guard on its result, taken
/// target). The search goes back through `not.pred` (debug builds negate before branching)
/// and through straight-line predecessors (debug builds put labels between the two).
fn exit_test(
    kernel: &Kernel,
    b: BlockId,
    exiting: &[BlockId],
) -> Option<(InstId, crate::kernel::Guard, BlockId)> {
    if !exiting.contains(&b) {
        return None;
    }
    let Term::Cond { guard, taken, .. } = kernel.block(b).term else {
        return None;
    };
    let mut guard = guard;
    let mut block = b;
    let mut end = kernel.block(b).insts.len();
    for _ in 0..64 {
        let insts = &kernel.block(block).insts;
        let Some(pos) = insts[..end]
            .iter()
            .rposition(|i| kernel.inst(*i).defs().contains(&guard.pred))
        else {
            // Not defined here: continue in the only predecessor if it falls into this block.
            match kernel.cfg.preds(block) {
                [p] if kernel.block(*p).term == Term::Goto(block) => {
                    block = *p;
                    end = kernel.block(block).insts.len();
                    continue;
                }
                _ => return None,
            }
        };
        let inst = kernel.inst(insts[pos]);
        match (inst.sem, inst.ty, inst.guard, inst.srcs().first()) {
            (Sem::Not, Some(IntTy::PRED), None, Some(Operand::Reg(q))) => {
                guard = crate::kernel::Guard {
                    pred: *q,
                    negated: !guard.negated,
                };
                end = pos;
            }
            _ => return Some((insts[pos], guard, taken)),
        }
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
        assert_eq!(closed_form(1, 1, 10, Cmp::Lt, I32.0, I32.1), Some(10));
        // top-tested: header runs 11 times, the 11th exits.
        assert_eq!(closed_form(0, 1, 10, Cmp::Lt, I32.0, I32.1), Some(11));
        // grid-stride: i = tid; i < 100; i += 32.
        assert_eq!(closed_form(37, 32, 100, Cmp::Lt, I32.0, I32.1), Some(3));
        assert_eq!(closed_form(36, 32, 100, Cmp::Lt, I32.0, I32.1), Some(3));
        assert_eq!(closed_form(35, 32, 100, Cmp::Lt, I32.0, I32.1), Some(4));
        assert_eq!(closed_form(3, 32, 100, Cmp::Lt, I32.0, I32.1), Some(5));
        // count down to zero with ne.
        assert_eq!(closed_form(6, -2, 0, Cmp::Ne, I32.0, I32.1), Some(4));
        assert_eq!(closed_form(5, -2, 0, Cmp::Ne, I32.0, I32.1), None);
        assert_eq!(closed_form(9, -1, 0, Cmp::Gt, I32.0, I32.1), Some(10));
        assert_eq!(closed_form(1, 1, 10, Cmp::Le, I32.0, I32.1), Some(11));
        assert_eq!(closed_form(-1, -1, 10, Cmp::Lt, I32.0, I32.1), None);
        // bound already passed: the body runs once (do-while).
        assert_eq!(closed_form(51, 1, 10, Cmp::Lt, I32.0, I32.1), Some(1));
    }

    proptest::proptest! {
        #[test]
        fn closed_form_matches_simulation(start in -50i128..50, step in -5i128..6, bound in -60i128..60,
                                          cmp in 0usize..6) {
            let cmp = [Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Ne, Cmp::Eq][cmp];
            let mut k = 0i128;
            let mut sim = None;
            while k < 1000 {
                let v = start + step * k;
                if !cmp.eval(v, bound) { sim = Some((k + 1) as u64); break; }
                k += 1;
            }
            let cf = closed_form(start, step, bound, cmp, I32.0, I32.1);
            proptest::prop_assert_eq!(cf, sim);
        }
    }
}
