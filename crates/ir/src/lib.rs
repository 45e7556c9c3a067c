//! Kernel IR: lowering of parsed PTX kernels ([`lower`]), the control-flow graph ([`Cfg`]),
//! dominator and post-dominator trees, natural loops ([`LoopForest`]), an abstract interpreter
//! over integer and predicate registers ([`ThreadState`], [`WarpState`]) and trip counts
//! ([`resolve_trips`]).
//!
//! Typical use:
//! ```text
//! let module = ptx::parse(&text)?;
//! let kernel = ir::lower_kernel(&module, "_Z5saxpyifPKfPf")?;
//! let an = ir::analyze(&kernel)?;                       // Err on irreducible CFGs
//! let launch = ir::Launch { grid, block, params }.bind(&kernel)?;
//! let trips = ir::resolve_trips(&kernel, &an, &launch, &ir::TripInputs::default())?;
//! ```
//! Analyses are side tables over typed ids ([`BlockId`], [`InstId`], [`RegId`], [`LoopId`]).

pub mod analysis;
pub mod cfg;
pub mod dom;
pub mod error;
pub mod ids;
pub mod induction;
pub mod interp;
pub mod joint;
pub mod kernel;
pub mod loops;
pub mod lower;
pub mod names;
pub mod param;
pub mod render;
pub mod sem;
pub mod trips;

pub use analysis::{analyze, Analysis};
pub use cfg::Cfg;
pub use dom::{DomTree, PostDomTree};
pub use error::IrError;
pub use ids::{BaseId, BlockId, InstId, LoopId, RegId};
pub use induction::Induction;
pub use interp::{
    AbstractAddr, BoundLaunch, LaneMasks, Launch, SymId, ThreadState, Value, WarpState, MAX_BLOCK,
    MAX_BLOCK_THREADS, MAX_GRID,
};
pub use joint::ClassCounts;
pub use kernel::{
    AddrBase, BaseInfo, BaseKind, Block, Guard, Inst, Kernel, Operand, Param, RegInfo, RegKind,
    Special, SrcLoc, Term,
};
pub use loops::{Loop, LoopError, LoopForest, MAX_LOOP_DEPTH, MAX_LOOP_MEMBERSHIPS};
pub use lower::{
    lower_all, lower_kernel, lower_kernel_owned, lower_kernel_with_budget, DEFAULT_INLINE_BUDGET,
    MAX_CALL_DEPTH,
};
pub use param::{ParamKind, ParamValue};
pub use sem::{Cmp, IntTy, Sem};
pub use trips::{
    entry_state, entry_states, resolve_trips, ExplicitTrip, LoopTrip, ProfileEvidence, TripInputs,
    TripRule, TripSource, TripStats, Trips, Warning, MAX_TRIPS,
};
