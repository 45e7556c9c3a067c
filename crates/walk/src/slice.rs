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

/// Which instructions a walk interprets, by instruction index, and what the walk reads: a
/// walk given a [`Reads::Trace`] slice records its loads only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Slice {
    reads: Reads,
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

/// The backward closure over the kernel's definitions: registers seeded or reached, and the
/// instructions that define one of them.
struct Closure<'k> {
    kernel: &'k Kernel,
    defs_of: Vec<Vec<usize>>,
    in_slice: Vec<bool>,
    work: Vec<RegId>,
    needed: Vec<bool>,
}

impl<'k> Closure<'k> {
    fn new(kernel: &'k Kernel) -> Self {
        let mut defs_of: Vec<Vec<usize>> = vec![Vec::new(); kernel.regs.len()];
        for (i, inst) in kernel.insts.iter().enumerate() {
            for r in inst.defs() {
                defs_of[r.index()].push(i);
            }
        }
        Closure {
            kernel,
            defs_of,
            in_slice: vec![false; kernel.regs.len()],
            work: Vec::new(),
            needed: vec![false; kernel.insts.len()],
        }
    }

    fn add(&mut self, r: RegId) {
        if !self.in_slice[r.index()] {
            self.in_slice[r.index()] = true;
            self.work.push(r);
        }
    }

    /// Marks every definition of a register reached, and adds what it reads.
    fn close(&mut self) {
        while let Some(r) = self.work.pop() {
            for k in 0..self.defs_of[r.index()].len() {
                let i = self.defs_of[r.index()][k];
                if self.needed[i] {
                    continue;
                }
                self.needed[i] = true;
                // The guard too: whether (and, when unknown, what) the instruction writes.
                for u in self.kernel.insts[i].uses() {
                    self.add(u);
                }
            }
        }
    }
}

impl Slice {
    /// The slices of `kernel` for a trace and for an IDG walk, with the trip rules of
    /// `trips`. An IDG walk reads what a trace reads and every instruction's guard, so its
    /// closure goes on from the trace's.
    pub(crate) fn both(kernel: &Kernel, trips: &Trips) -> [Slice; 2] {
        let mut c = Closure::new(kernel);
        for inst in &kernel.insts {
            if !inst.op.is_memory() {
                continue;
            }
            if let Some(g) = inst.guard {
                c.add(g.pred);
            }
            for o in &inst.operands {
                if let Operand::Addr {
                    base: AddrBase::Reg(r),
                    ..
                } = o
                {
                    c.add(*r);
                }
            }
        }
        for block in &kernel.blocks {
            match &block.term {
                Term::Cond { guard, .. } => c.add(guard.pred),
                Term::Switch { index, .. } => c.add(*index),
                Term::Goto(_) | Term::Exit => {}
            }
        }
        for trip in &trips.loops {
            if let TripRule::Induction(iv) = &trip.rule {
                c.add(iv.iv);
                for o in iv.symbol.iter().chain(std::iter::once(&iv.bound)) {
                    if let Operand::Reg(r) | Operand::NotPred(r) = o {
                        c.add(*r);
                    }
                }
            }
        }
        c.close();
        let trace = Slice {
            reads: Reads::Trace,
            needed: c.needed.clone(),
        };
        for inst in &kernel.insts {
            if let Some(g) = inst.guard {
                c.add(g.pred);
            }
        }
        c.close();
        [
            trace,
            Slice {
                reads: Reads::Idg,
                needed: c.needed,
            },
        ]
    }

    /// What the walk given this slice reads.
    pub(crate) fn reads(&self) -> Reads {
        self.reads
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

    /// Every instruction interpreted: what a walk did before it had a slice.
    fn everything(kernel: &Kernel, reads: Reads) -> Slice {
        Slice {
            reads,
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
                for (k, sliced) in Slice::both(&kernel, &trips).into_iter().enumerate() {
                    let full = everything(&kernel, sliced.reads);
                    for w in 0..4 {
                        let run = |slice| {
                            WarpWalk::new(
                                &kernel,
                                &an,
                                &trips,
                                &opts,
                                opts.unknown_branch,
                                ir::WarpState::new(&kernel, &launch, launch.ctaid_of(2), w),
                                Peers::default(),
                                opts.max_idg_nodes,
                                slice,
                            )
                            .run()
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
