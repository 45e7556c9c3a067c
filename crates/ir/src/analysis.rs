//! The per-kernel analyses bundled as side tables over the kernel's typed ids: dominators,
//! post-dominators, the loop forest, per-loop defined registers and recognised inductions.
//!
//! Invariant: built only for reducible CFGs; `analyze` reports irreducible control flow as
//! [`IrError::Irreducible`] instead of returning a forest that would mis-describe it.

use crate::dom::{DomTree, PostDomTree};
use crate::error::IrError;
use crate::ids::{LoopId, RegId};
use crate::induction::{loop_defs, recognize, Induction};
use crate::kernel::Kernel;
use crate::loops::{LoopError, LoopForest, MAX_LOOP_DEPTH, MAX_LOOP_MEMBERSHIPS};

/// Dominators, post-dominators, loops and inductions of one kernel.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub dom: DomTree,
    pub pdom: PostDomTree,
    pub loops: LoopForest,
    /// Registers defined inside each loop (sorted), indexed by `LoopId`.
    pub loop_defs: Vec<Vec<RegId>>,
    /// The recognised counted exit of each loop, indexed by `LoopId`.
    pub inductions: Vec<Option<Induction>>,
}

impl Analysis {
    /// The induction of loop `l`, if recognised.
    pub fn induction(&self, l: LoopId) -> Option<&Induction> {
        self.inductions[l.index()].as_ref()
    }
}

/// Runs every analysis on `kernel`.
pub fn analyze(kernel: &Kernel) -> Result<Analysis, IrError> {
    let cfg = &kernel.cfg;
    let dom = DomTree::new(cfg);
    let pdom = PostDomTree::new(cfg);
    let loops = LoopForest::new(cfg, &dom).map_err(|e| match e {
        LoopError::Irreducible(e) => IrError::Irreducible {
            kernel: kernel.name.clone(),
            from: kernel.block_name(e.from),
            from_line: kernel.block_line(e.from),
            to: kernel.block_name(e.to),
            to_line: kernel.block_line(e.to),
        },
        LoopError::TooDeep { header } => IrError::LoopNest {
            kernel: kernel.name.clone(),
            header: kernel.block_name(header),
            line: kernel.block_line(header),
            what: format!("nests more than {MAX_LOOP_DEPTH} loops deep"),
        },
        LoopError::TooLarge { header } => IrError::LoopNest {
            kernel: kernel.name.clone(),
            header: kernel.block_name(header),
            line: kernel.block_line(header),
            what: format!(
                "brings the loop bodies past {MAX_LOOP_MEMBERSHIPS} (block, loop) pairs (nesting too deep or too wide)"
            ),
        },
    })?;
    let defs = loop_defs(kernel, &loops);
    let inductions = loops
        .ids()
        .map(|l| recognize(kernel, &dom, &loops, &defs, l))
        .collect();
    Ok(Analysis {
        dom,
        pdom,
        loops,
        loop_defs: defs,
        inductions,
    })
}
