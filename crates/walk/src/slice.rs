//! What a trace-only walk must interpret: the instructions that compute a register some
//! decision of the walk reads.
//!
//! A walk of a neighbouring group ([`crate::warp::WarpWalk::trace_only`]) wants the sectors
//! of the group's global loads, in order. What decides them is the lanes' path (branch
//! guards, switch indices, the registers a loop's trip count is evaluated from) and the
//! lanes' addresses and guards at each memory access; nothing else of the lane state is
//! read. The interpreter keeps no memory, so these values depend on registers only, and the
//! instructions that define a register of that backward slice are the ones to interpret.
//! The others (the floating-point work of a matrix product or an attention tile, most of a
//! kernel) are counted, not run: a loaded term's identity includes the warp's instruction
//! count ([`ir::WarpState::skip`]), so the trace's terms stay those of a full walk.

use ir::{AddrBase, Kernel, Operand, RegId, Term, TripRule, Trips};

/// Which instructions a trace-only walk interprets, by instruction index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TraceSlice {
    needed: Vec<bool>,
}

impl TraceSlice {
    /// The slice of `kernel` for a walk with the trip rules of `trips`.
    pub(crate) fn of(kernel: &Kernel, trips: &Trips) -> TraceSlice {
        let mut in_slice = vec![false; kernel.regs.len()];
        let mut work: Vec<RegId> = Vec::new();
        let mut add = |r: RegId, work: &mut Vec<RegId>| {
            if !in_slice[r.index()] {
                in_slice[r.index()] = true;
                work.push(r);
            }
        };
        for inst in &kernel.insts {
            if !inst.op.is_memory() {
                continue;
            }
            if let Some(g) = inst.guard {
                add(g.pred, &mut work);
            }
            for o in &inst.operands {
                if let Operand::Addr {
                    base: AddrBase::Reg(r),
                    ..
                } = o
                {
                    add(*r, &mut work);
                }
            }
        }
        for block in &kernel.blocks {
            match &block.term {
                Term::Cond { guard, .. } => add(guard.pred, &mut work),
                Term::Switch { index, .. } => add(*index, &mut work),
                Term::Goto(_) | Term::Exit => {}
            }
        }
        for trip in &trips.loops {
            if let TripRule::Induction(iv) = &trip.rule {
                add(iv.iv, &mut work);
                for o in iv.symbol.iter().chain(std::iter::once(&iv.bound)) {
                    if let Operand::Reg(r) | Operand::NotPred(r) = o {
                        add(*r, &mut work);
                    }
                }
            }
        }
        let mut defs_of: Vec<Vec<usize>> = vec![Vec::new(); kernel.regs.len()];
        for (i, inst) in kernel.insts.iter().enumerate() {
            for r in inst.defs() {
                defs_of[r.index()].push(i);
            }
        }
        let mut needed = vec![false; kernel.insts.len()];
        while let Some(r) = work.pop() {
            for &i in &defs_of[r.index()] {
                if needed[i] {
                    continue;
                }
                needed[i] = true;
                // The guard too: whether (and, when unknown, what) the instruction writes.
                for u in kernel.insts[i].uses() {
                    add(u, &mut work);
                }
            }
        }
        TraceSlice { needed }
    }

    /// Whether the instruction of index `i` must be interpreted.
    pub(crate) fn needs(&self, i: usize) -> bool {
        self.needed[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::warp::{Peers, WarpWalk};
    use crate::Options;

    /// Every instruction interpreted: what a trace walk did before it had a slice.
    fn everything(kernel: &Kernel) -> TraceSlice {
        TraceSlice {
            needed: vec![true; kernel.insts.len()],
        }
    }

    /// For every kernel of the bundled Rodinia and held-out PTX, launched as 4 groups of 4
    /// warps with its default trip counts: the trace of each warp of group 2 is the one a
    /// walk that interprets every instruction records, and the slice leaves some out.
    #[test]
    fn a_sliced_trace_records_what_a_full_interpretation_does() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ptx_samples");
        let (mut walked, mut skipping) = (0, 0);
        for dir in ["rodinia", "heldout"] {
            let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
                .collect();
            files.sort();
            for file in files {
                let module = ptx::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
                for f in module.kernels() {
                    let Ok(kernel) = ir::lower_kernel_with_budget(&module, &f.name, 100_000) else {
                        continue;
                    };
                    let an = ir::analyze(&kernel).unwrap();
                    let launch = ir::Launch {
                        grid: [4, 1, 1],
                        block: [128, 1, 1],
                        params: vec![],
                    };
                    let Ok(launch) = launch.bind(&kernel) else {
                        continue;
                    };
                    let Ok(trips) =
                        ir::resolve_trips(&kernel, &an, &launch, &ir::TripInputs::default())
                    else {
                        continue;
                    };
                    let opts = Options::default();
                    let (sliced, full) = (TraceSlice::of(&kernel, &trips), everything(&kernel));
                    for w in 0..4 {
                        let trace = |slice| {
                            WarpWalk::new(
                                &kernel,
                                &an,
                                &trips,
                                &opts,
                                opts.unknown_branch,
                                ir::WarpState::new(&kernel, &launch, launch.ctaid_of(2), w),
                                Peers::default(),
                                opts.max_idg_nodes,
                            )
                            .trace_only(slice)
                            .run()
                            .map(|o| (o.loads, o.unknown_branches, o.divergent_branches))
                            .ok()
                        };
                        let expected = trace(&full);
                        assert_eq!(trace(&sliced), expected, "{} warp {w}", f.name);
                        walked += usize::from(expected.is_some());
                    }
                    skipping += usize::from(sliced.needed.contains(&false));
                }
            }
        }
        assert!(walked > 100, "{walked} warps walked");
        assert!(
            skipping > 20,
            "{skipping} kernels with instructions left out"
        );
    }
}
