//! The whole front end in one call, shared by every command and by the evaluation: a parsed
//! module, a kernel name and a launch in; the lowered kernel, its analyses, trip counts and
//! IDGs out. Each stage stays a pure function of the previous one; this only sequences them.

use ir::{Analysis, BoundLaunch, Kernel, Launch, TripInputs, Trips};

use crate::{build, Built, Options, WalkError};

/// Everything the front end derived for one kernel launch.
#[derive(Debug, Clone)]
pub struct FrontEnd {
    pub kernel: Kernel,
    pub analysis: Analysis,
    pub launch: BoundLaunch,
    pub trips: Trips,
    pub built: Built,
}

#[derive(Debug, thiserror::Error)]
pub enum FrontError {
    #[error(transparent)]
    Ir(#[from] ir::IrError),
    #[error(transparent)]
    Walk(#[from] WalkError),
}

/// Lowers `entry` of `module`, analyses it, binds `launch`, resolves trip counts and walks
/// the warps.
pub fn front_end(
    module: &ptx::ast::Module,
    entry: &str,
    launch: &Launch,
    inputs: &TripInputs<'_>,
    opts: &Options,
) -> Result<FrontEnd, FrontError> {
    let kernel = ir::lower_kernel_with_budget(module, entry, opts.max_inlined)?;
    let analysis = ir::analyze(&kernel)?;
    let launch = launch.bind(&kernel)?;
    let trips = ir::resolve_trips(&kernel, &analysis, &launch, inputs)?;
    let built = build(&kernel, &analysis, &launch, &trips, opts)?;
    Ok(FrontEnd {
        kernel,
        analysis,
        launch,
        trips,
        built,
    })
}
