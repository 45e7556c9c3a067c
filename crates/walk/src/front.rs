//! The whole front end in one call, shared by every command and by the evaluation: a parsed
//! module, a kernel name and a launch in; the lowered kernel, its analyses, trip counts and
//! IDGs out. Each stage stays a pure function of the previous one; this only sequences them.

use ir::{Analysis, BoundLaunch, Kernel, Launch, TripInputs, Trips};

use crate::{build, profile_consistent, Built, Choice, Options, WalkError};

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

/// [`front_end`], with branches on unknown data shared among warps as the profiled launch's
/// counters support ([`profile_consistent`]) when `measured` gives the launch and the SASS
/// instructions per PTX instruction; also returns the choice made.
pub fn front_end_fitted(
    module: &ptx::ast::Module,
    entry: &str,
    launch: &Launch,
    inputs: &TripInputs<'_>,
    opts: &Options,
    measured: Option<(&profile::Launch, f64)>,
) -> Result<(FrontEnd, Option<Choice>), FrontError> {
    let Some((counters, inst_factor)) = measured else {
        return front_end(module, entry, launch, inputs, opts).map(|fe| (fe, None));
    };
    let kernel = ir::lower_kernel_with_budget(module, entry, opts.max_inlined)?;
    let analysis = ir::analyze(&kernel)?;
    let launch = launch.bind(&kernel)?;
    let trips = ir::resolve_trips(&kernel, &analysis, &launch, inputs)?;
    let (built, choice) = profile_consistent(
        &kernel,
        &analysis,
        &launch,
        &trips,
        opts,
        counters,
        inst_factor,
    )?;
    Ok((
        FrontEnd {
            kernel,
            analysis,
            launch,
            trips,
            built,
        },
        choice,
    ))
}
