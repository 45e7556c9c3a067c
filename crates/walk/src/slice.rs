//! What a walk must interpret: the instructions that compute a register some decision of the
//! walk reads.
//!
//! A walk reads the lanes' state in a few places only: the lanes' path (branch guards, switch
//! indices, the registers a loop's trip count is evaluated from), the addresses and guards of
//! memory accesses, and, where it builds an IDG, every instruction's guard (a node's active
//! lanes). The interpreter keeps no memory, so these values depend on registers only, and
//! the instructions that define a register of that backward slice are the ones to
//! interpret. The others (the floating-point work of a matrix product or an attention tile,
//! most of a kernel) are counted, not run: a loaded term's identity includes the warp's
//! instruction count ([`ir::WarpState::skip`]), so the terms stay those of a walk that runs
//! everything.

use ir::{AddrBase, Kernel, Operand, RegId, Term, TripRule, Trips};

/// Which instructions a walk interprets, by instruction index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Slice {
    needed: Vec<bool>,
}

/// What the walk the slice is for reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reads {
    /// The global loads' sectors only (a trace of a nearby group).
    Trace,
    /// An IDG: every instruction's guard too.
    Idg,
}

impl Slice {
    /// The slice of `kernel` for a walk that reads `reads`, with the trip rules of `trips`.
    pub(crate) fn of(kernel: &Kernel, trips: &Trips, reads: Reads) -> Slice {
        let mut in_slice = vec![false; kernel.regs.len()];
        let mut work: Vec<RegId> = Vec::new();
        let mut add = |r: RegId, work: &mut Vec<RegId>| {
            if !in_slice[r.index()] {
                in_slice[r.index()] = true;
                work.push(r);
            }
        };
        for inst in &kernel.insts {
            let memory = inst.op.is_memory();
            if let Some(g) = inst.guard.filter(|_| memory || reads == Reads::Idg) {
                add(g.pred, &mut work);
            }
            if !memory {
                continue;
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
        Slice { needed }
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
    fn everything(kernel: &Kernel) -> Slice {
        Slice {
            needed: vec![true; kernel.insts.len()],
        }
    }

    /// A guard computed from the launch on an instruction whose result nothing reads: the
    /// node's active lanes still need it.
    const GUARDED: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry guarded(.param .u64 x)\n{\n\
        \t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<4>;\n\
        \tld.param.u64 %rd1, [x];\n\tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 7;\n\
        \tmov.f32 %f1, 0f3F800000;\n\t@%p1 add.f32 %f1, %f1, %f1;\n\
        \tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
        \tst.global.f32 [%rd3], %f1;\n\tret;\n}\n";

    /// For every kernel of the bundled Rodinia and held-out PTX, and [`GUARDED`], launched as
    /// 4 groups of 4 warps with its default trip counts: each warp of group 2 walked with the
    /// slice gives the trace, and the IDG, of a walk that interprets every instruction, and
    /// the slices leave some out.
    #[test]
    fn a_sliced_walk_gives_what_a_full_interpretation_does() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ptx_samples");
        let (mut walked, mut skipping) = (0, [0, 0]);
        let mut texts = vec![GUARDED.to_string()];
        for dir in ["rodinia", "heldout"] {
            let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
                .collect();
            files.sort();
            texts.extend(files.iter().map(|f| std::fs::read_to_string(f).unwrap()));
        }
        for text in texts {
            let module = ptx::parse(&text).unwrap();
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
                let full = everything(&kernel);
                for (k, reads) in [Reads::Trace, Reads::Idg].into_iter().enumerate() {
                    let sliced = Slice::of(&kernel, &trips, reads);
                    for w in 0..4 {
                        let run = |slice| {
                            let walk = WarpWalk::new(
                                &kernel,
                                &an,
                                &trips,
                                &opts,
                                opts.unknown_branch,
                                ir::WarpState::new(&kernel, &launch, launch.ctaid_of(2), w),
                                Peers::default(),
                                opts.max_idg_nodes,
                                slice,
                            );
                            let walk = match reads {
                                Reads::Trace => walk.trace_only(),
                                Reads::Idg => walk,
                            };
                            walk.run()
                                .map(|o| (o.idg, o.loads, o.unknown_branches, o.divergent_branches))
                                .ok()
                        };
                        let expected = run(&full);
                        assert_eq!(run(&sliced), expected, "{} warp {w}", f.name);
                        walked += usize::from(expected.is_some());
                    }
                    skipping[k] += usize::from(sliced.needed.contains(&false));
                }
            }
        }
        assert!(walked > 200, "{walked} warps walked");
        assert!(
            skipping.iter().all(|&n| n > 20),
            "kernels with instructions left out: {skipping:?}"
        );
    }
}
