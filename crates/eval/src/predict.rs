//! The IDG-based predictor: builds a kernel's IDGs once from its PTX (trip counts the launch
//! does not decide come from the ncu instruction count at the highest-occupancy point,
//! `ir::resolve_trips`), then at each measured point asks a [`Backend`] for the node timings
//! (mapper f, plus mapper g with that point's counters) and simulates the Pipeline model with
//! `blocks_per_sm` concurrent groups on one of `sm_count` cores; the backend also evaluates the
//! analytical models on the same timings. Without counters (`--counters none`,
//! [`crate::CountersMode::None`]) the trip counts are fitted to the instruction count alone
//! and everything else takes the static path a launch without a profile takes.
//!
//! [`Variant`] switches the mechanisms the ablation study measures (mapper g, scheduler,
//! sub-partitions, in-order issue, barriers). Barriers are switched off by dropping the
//! barrier role of every IDG node, so the simulator needs no option for it.
//!
//! Invariant: for fixed inputs and variant the curves are bit-identical between runs (the walk,
//! mappers and simulator are deterministic; nothing here depends on thread scheduling).

use idg::KernelIdgs;
use rayon::prelude::*;
use sim::{ClassCosts, ExecConfig, Hardware, IssueOrder, Scheduler, SimOptions};

use crate::model::{CoreShape, Curve, KernelPrediction, Model, Note, Predictor, Topic};
use crate::suite::{KernelCase, MeasuredPoint};
use crate::EvalError;

/// The mechanisms an evaluation run switches: the model's configuration (`sim::ModelConfig`).
pub use sim::ModelConfig as Variant;

/// The ablation study: `(name, description, variant)`, the base first, then each mechanism
/// switched on its own.
pub fn ablations(base: &Variant) -> Vec<(String, String, Variant)> {
    let mut out = vec![("base".to_string(), base.describe(), *base)];
    let mut push = |name: &str, what: String, v: Variant| {
        if v != *base {
            out.push((name.to_string(), what, v));
        }
    };
    push(
        "no-mapper-g",
        "mapper f only: memory λ/Λ of the class, no counters".into(),
        Variant {
            mapper_g: false,
            ..*base
        },
    );
    for s in Scheduler::ALL {
        push(
            &format!("sched-{s}"),
            format!("scheduler {s}"),
            Variant {
                scheduler: s,
                ..*base
            },
        );
    }
    let (name, what, v) = flipped(
        base,
        base.sub_partitions,
        ["no-subpartitions", "subpartitions"],
        [
            "scheduler sub-partitions off",
            "scheduler sub-partitions on",
        ],
        |v| v.sub_partitions = !v.sub_partitions,
    );
    push(name, what, v);
    // The IDG is in PTX order; the hardware issues ptxas' schedule in order. Strict
    // in-order ignores the compiler's reordering, `scheduled` models it, and unconfined
    // dataflow windows bound what any reordering could give (64: the paper's model).
    let orders = [
        ("in-order", IssueOrder::InOrder, base.window),
        ("scheduled", IssueOrder::Scheduled, base.window),
        ("dataflow-w4", IssueOrder::Dataflow, 4),
        ("dataflow-w16", IssueOrder::Dataflow, 16),
        ("dataflow-w64", IssueOrder::Dataflow, 64),
    ];
    for (name, order, window) in orders {
        let v = Variant {
            order,
            window,
            ..*base
        };
        push(name, format!("{} issue", v.issue_text()), v);
    }
    let flips: [Flip; 12] = [
        (
            base.sm_wide_pipes,
            ["partition-pipes", "sm-wide-pipes"],
            [
                "memory pipes split among the sub-partitions (1/P each)",
                "memory pipes core-wide (one pipe every sub-partition feeds)",
            ],
            |v| v.sm_wide_pipes = !v.sm_wide_pipes,
        ),
        (
            base.latch_blocks,
            ["no-latch-blocks", "latch-blocks"],
            [
                "loop latches do not end compiled blocks",
                "loop latches end compiled blocks",
            ],
            |v| v.latch_blocks = !v.latch_blocks,
        ),
        (
            base.posted_stores,
            ["wait-stores", "posted-stores"],
            ["stores complete at issue + Λ (not posted)", "stores posted"],
            |v| v.posted_stores = !v.posted_stores,
        ),
        (
            base.dispatch,
            ["no-dispatch", "dispatch"],
            [
                "block dispatch latency and interval off",
                "block dispatch latency and interval on",
            ],
            |v| v.dispatch = !v.dispatch,
        ),
        (
            base.barriers,
            ["no-barriers", "barriers"],
            ["barriers ignored", "barriers honoured"],
            |v| v.barriers = !v.barriers,
        ),
        (
            base.bandwidth_floor,
            ["no-bandwidth-floor", "bandwidth-floor"],
            [
                "no device-wide DRAM/L2 bandwidth floor",
                "device-wide DRAM/L2 bandwidth floor",
            ],
            |v| v.bandwidth_floor = !v.bandwidth_floor,
        ),
        (
            base.atomic_floor,
            ["no-atomic-floor", "atomic-floor"],
            [
                "no floor from the busiest L2 slice's atomics",
                "floor from the busiest L2 slice's atomics",
            ],
            |v| v.atomic_floor = !v.atomic_floor,
        ),
        (
            base.launch_overhead,
            ["no-launch-overhead", "launch-overhead"],
            ["launch overhead not added", "launch overhead added"],
            |v| v.launch_overhead = !v.launch_overhead,
        ),
        (
            base.reread_pipe,
            ["no-reread-pipe", "reread-pipe"],
            [
                "coalesced re-reads on the memory subsystem",
                "coalesced re-reads on their own pipe",
            ],
            |v| v.reread_pipe = !v.reread_pipe,
        ),
        (
            base.fit_branches,
            ["no-fit-branches", "fit-branches"],
            [
                "branches on unknown data from the divergent-branch count",
                "branches on unknown data fitted to the counters (a mix of warp classes)",
            ],
            |v| v.fit_branches = !v.fit_branches,
        ),
        (
            base.uneven_warps,
            ["even-warps", "uneven-warps"],
            [
                "every warp runs the profile-fitted trip counts",
                "one warp per group runs the fitted loops 1/busy share times (walk::uneven)",
            ],
            |v| v.uneven_warps = !v.uneven_warps,
        ),
        (
            base.loaded_latency,
            ["unloaded-latency", "loaded-latency"],
            [
                "DRAM loads at the unloaded latency",
                "DRAM latency at the fixed point of the launch's utilization (sim::loaded)",
            ],
            |v| v.loaded_latency = !v.loaded_latency,
        ),
    ];
    for (on, names, whats, flip) in flips {
        let (name, what, v) = flipped(base, on, names, whats, flip);
        push(name, what, v);
    }
    out
}

/// An on/off mechanism of the ablation: the base's setting, (name, description) when the base
/// has it on and when off, and the switch.
type Flip = (bool, [&'static str; 2], [&'static str; 2], fn(&mut Variant));

/// `base` with one on/off mechanism switched: its name and description are the first of
/// each pair when the base has it on, the second when off.
fn flipped<'n>(
    base: &Variant,
    on: bool,
    names: [&'n str; 2],
    whats: [&str; 2],
    flip: fn(&mut Variant),
) -> (&'n str, String, Variant) {
    let i = usize::from(!on);
    let mut v = *base;
    flip(&mut v);
    (names[i], whats[i].to_string(), v)
}

/// Node timings and the core for one point.
pub struct Timed {
    /// The mappers' side tables (the analytical models read these).
    pub timings: Vec<gpu::ClassTiming>,
    /// The same in the simulator's units.
    pub costs: Vec<ClassCosts>,
    pub hardware: Hardware,
    pub notes: Vec<Note>,
}

/// The GPU side of a prediction: mappers f and g, and the analytical models.
pub trait Backend: Sync {
    /// Timings of every class of `idgs` at `point` under `config`'s mapping switches: mapper g
    /// reads `point.ncu` when `mapper_g` is set, re-reads take the profile's re-read pipe when
    /// `reread_pipe` is.
    fn timings(
        &self,
        idgs: &KernelIdgs,
        point: &MeasuredPoint,
        config: &Variant,
    ) -> Result<Timed, String>;

    /// Timings as [`Backend::timings`] with the DRAM level's Λ multiplied by `scale` (loaded
    /// latency, `sim::loaded`). A backend without a device (tests) has no loaded latency.
    fn timings_at_dram_scale(
        &self,
        idgs: &KernelIdgs,
        point: &MeasuredPoint,
        config: &Variant,
        scale: f64,
    ) -> Result<Timed, String> {
        let _ = scale;
        self.timings(idgs, point, config)
    }

    /// The DRAM load of a run of `idgs` under `costs` and `exec` at `point` under `config`
    /// (`sim::ModelConfig::dram_load`: the point's counters, else the static bytes); `None`
    /// for a backend without a device.
    fn dram_load(
        &self,
        config: &Variant,
        point: &MeasuredPoint,
        idgs: &KernelIdgs,
        costs: &[sim::ClassCosts],
        exec: &sim::ExecConfig,
    ) -> Option<sim::DramLoad> {
        let _ = (config, point, idgs, costs, exec);
        None
    }

    /// The launch's time in microseconds from the simulated core's `core_us` at `point`: the
    /// device-wide limits `config` switches on (`sim::ModelConfig::device_time_us`).
    /// `static_traffic` is what the run moves by the static access analysis
    /// (`sim::cost::static_traffic`), given where the point has no counters
    /// ([`MeasuredPoint::profiled`]): the floors read it there, as `simulate` does without
    /// counters. A backend without a device (tests) keeps the core's time.
    fn device_time_us(
        &self,
        config: &Variant,
        core_us: f64,
        point: &MeasuredPoint,
        static_traffic: Option<sim::cost::StaticTraffic>,
    ) -> f64 {
        let _ = (config, point, static_traffic);
        core_us
    }

    /// SASS per PTX instruction by class, converting the IDGs' counts to the profiler's when
    /// branch assumptions are fitted to the counters (`walk::profile_consistent`). A backend
    /// without a GPU profile (tests) counts PTX.
    fn sass_expansion(&self) -> gpu::SassExpansion {
        gpu::SassExpansion::default()
    }

    /// The GPU's SMs and warp slots, which a small grid's busy share is read against
    /// (`walk::uneven::busy_share`). A backend without a GPU profile (tests) reads the
    /// occupancy limit's slots.
    fn slots(&self) -> Option<walk::uneven::Slots> {
        None
    }

    /// Analytical models this backend evaluates, in [`Model::ALL`] order.
    fn analytical_models(&self) -> Vec<Model>;

    /// What the analytical models read of a kernel that does not depend on the point (the
    /// unified model's property counts and the launch's warps per core), computed once per
    /// kernel and IDG and passed to every [`Backend::analytical`] call on them.
    type Prepared: Send + Sync;

    /// [`Backend::Prepared`] of `idgs`, launched as `shape`.
    fn prepare(&self, idgs: &KernelIdgs, shape: CoreShape) -> Self::Prepared;

    /// WPC of each of [`Backend::analytical_models`] with `occupancy_warps` resident warps.
    fn analytical(
        &self,
        idgs: &KernelIdgs,
        prepared: &Self::Prepared,
        timed: &Timed,
        occupancy_warps: u32,
    ) -> Vec<Result<f64, String>>;
}

/// Mappers f and g of crate `gpu` on a GPU profile, and the models of crate `models`.
pub struct GpuBackend {
    pub profile: gpu::GpuProfile,
}

/// The models predicting from the characterization at each occupancy; the unified model
/// ([`Model::Unified`]) follows them, last as in [`Model::ALL`].
const ANALYTICAL: [(Model, models::ModelKind); 8] = [
    (Model::Roofline, models::ModelKind::Roofline),
    (Model::Volkov, models::ModelKind::Volkov),
    (Model::MwpCwp, models::ModelKind::MwpCwp),
    (Model::MwpCwpCorr, models::ModelKind::MwpCwpCorr),
    (Model::Wfg, models::ModelKind::Wfg),
    (Model::WfgCorr, models::ModelKind::WfgCorr),
    (Model::GpumechRr, models::ModelKind::GpuMechRr),
    (Model::GpumechGto, models::ModelKind::GpuMechGto),
];

impl GpuBackend {
    /// Mappers f and g of `profile` (this backend's, as `config` sees it) at `point`.
    fn map(
        &self,
        idgs: &KernelIdgs,
        point: &MeasuredPoint,
        config: &Variant,
        profile: &gpu::GpuProfile,
    ) -> Timed {
        // Without counters mapper g takes the static path (`--counters none`).
        let metrics = config
            .mapper_g
            .then(|| point.profiled().map(gpu::GMetrics::from_launch))
            .flatten();
        let (timings, warnings) = gpu::map_kernel(idgs, profile, metrics.as_ref());
        Timed {
            costs: sim::costs_from_timing(&timings),
            timings,
            hardware: sim::hardware_from_profile(&self.profile),
            notes: warnings
                .iter()
                .map(|w| Note::new(Topic::Mapping, w.to_string()))
                .collect(),
        }
    }
}

/// The launch's traffic at `point` as `config` sees it: the counters are mapper g's input, so
/// without it, or without counters at the point, neither the loaded latency nor the floors
/// have measured bytes.
fn traffic(config: &Variant, point: &MeasuredPoint) -> Option<gpu::Traffic> {
    config
        .mapper_g
        .then(|| point.profiled().map(gpu::Traffic::from_launch))
        .flatten()
}

impl Backend for GpuBackend {
    fn timings(
        &self,
        idgs: &KernelIdgs,
        point: &MeasuredPoint,
        config: &Variant,
    ) -> Result<Timed, String> {
        Ok(self.map(idgs, point, config, &config.mapping_profile(&self.profile)))
    }

    fn timings_at_dram_scale(
        &self,
        idgs: &KernelIdgs,
        point: &MeasuredPoint,
        config: &Variant,
        scale: f64,
    ) -> Result<Timed, String> {
        let profile = config
            .mapping_profile(&self.profile)
            .with_dram_latency_scale(scale);
        Ok(self.map(idgs, point, config, &profile))
    }

    fn dram_load(
        &self,
        config: &Variant,
        point: &MeasuredPoint,
        idgs: &KernelIdgs,
        costs: &[sim::ClassCosts],
        exec: &sim::ExecConfig,
    ) -> Option<sim::DramLoad> {
        config.dram_load(
            &self.profile,
            traffic(config, point).as_ref(),
            idgs,
            costs,
            exec,
        )
    }

    fn device_time_us(
        &self,
        config: &Variant,
        core_us: f64,
        point: &MeasuredPoint,
        static_traffic: Option<sim::cost::StaticTraffic>,
    ) -> f64 {
        let traffic = match point.profiled() {
            Some(_) => traffic(config, point),
            // No counters: the run's own static traffic, as `simulate` reads it without
            // counters (`sim::ModelConfig::traffic_of`).
            None => static_traffic.and_then(|s| sim::ModelConfig::static_traffic(s, &self.profile)),
        };
        config.device_time_us(core_us, traffic.as_ref(), &self.profile)
    }

    fn sass_expansion(&self) -> gpu::SassExpansion {
        self.profile.sass_expansion
    }

    fn slots(&self) -> Option<walk::uneven::Slots> {
        Some(slots(&self.profile))
    }

    fn analytical_models(&self) -> Vec<Model> {
        ANALYTICAL
            .iter()
            .map(|(m, _)| *m)
            .chain([Model::Unified])
            .collect()
    }

    /// The unified model's property counts of the launch (`models::unified::count_properties`
    /// scales the walked groups to all of them), or why it has none (no `[unified_model]`).
    type Prepared = UnifiedInputs;

    fn prepare(&self, idgs: &KernelIdgs, shape: CoreShape) -> UnifiedInputs {
        let counts = match &self.profile.unified_model {
            None => Err(models::unified::UnifiedError::NoWeights.to_string()),
            Some(_) => Ok(models::unified::count_properties(idgs)),
        };
        UnifiedInputs {
            counts,
            warps_per_core: shape.warps_per_core(),
        }
    }

    fn analytical(
        &self,
        idgs: &KernelIdgs,
        prepared: &UnifiedInputs,
        timed: &Timed,
        occupancy_warps: u32,
    ) -> Vec<Result<f64, String>> {
        // The Pipeline model's time is converted to WPC at this clock (`predict_variants`).
        let unified = prepared
            .counts
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|c| {
                models::unified::wpc(
                    c,
                    self.profile.unified_model.as_ref(),
                    prepared.warps_per_core,
                    timed.hardware.clock_mhz,
                )
                .map_err(|e| e.to_string())
            });
        let ch = match models::KernelCharacterization::from_kernel(
            idgs,
            &timed.timings,
            self.profile.issue_limit,
        ) {
            Ok(ch) => ch,
            Err(e) => {
                let mut out = vec![Err(e.to_string()); ANALYTICAL.len()];
                out.push(unified);
                return out;
            }
        };
        let hw = models::HwParams::from_profile(&ch, &self.profile);
        ANALYTICAL
            .iter()
            .map(|(_, k)| match k.predict(&ch, &hw, occupancy_warps) {
                Some(p) if p.wpc.is_finite() => Ok(p.wpc),
                _ => Err(format!("{} predicts a non-finite WPC", k.column())),
            })
            .chain([unified])
            .collect()
    }
}

/// [`GpuBackend`]'s per-kernel inputs: the unified model's property counts of the launch
/// (`Err` when the profile has no `[unified_model]`: the curve is then that error, never a
/// number) and the warps per simulated core of every WPC ([`CoreShape::warps_per_core`]).
pub struct UnifiedInputs {
    pub counts: Result<models::unified::PropertyCounts, String>,
    pub warps_per_core: u64,
}

/// The kernel's IDGs and what building them assumed.
pub struct Graphs {
    pub idgs: KernelIdgs,
    pub notes: Vec<Note>,
    /// The walk's divergent branch executions per warp of each class.
    pub divergent: Vec<u64>,
    /// Why the IDGs stand for no prediction: without counters (`--counters none`), a loop
    /// whose trip count neither the launch nor the instruction count fixes. Every model's
    /// curve of the kernel is then this error, never a number.
    pub unpredictable: Option<String>,
}

/// The trip-count evidence of `--counters none`: the top launch's warp instructions (the one
/// counter its points keep, [`crate::suite::INSTRUCTION_COUNT`]) per warp of the launch,
/// whose warps the grid and block fix; no class counts. `None` without the instruction count.
fn instruction_evidence(case: &KernelCase, file: &str) -> Option<ir::ProfileEvidence> {
    let inst = case
        .max_point()
        .ncu
        .quantity(profile::Quantity::WarpInstsExecuted)?
        .value;
    let warps = case.spec.grid_blocks as f64 * f64::from(case.spec.warps_per_block);
    (warps > 0.0 && inst.is_finite()).then(|| ir::ProfileEvidence {
        file: format!("{file}, its instruction count alone"),
        warp_insts_per_warp: inst / warps,
        classes: ir::ClassCounts::default(),
    })
}

/// PTX -> IR -> trip counts -> IDGs for the launch of `case`; with `config.fit_branches`,
/// branches on unknown data are fitted to the ncu counters, `expansion` converting the IDGs'
/// PTX counts to SASS. Without counters ([`crate::CountersMode::None`]) the trip counts are
/// fitted to the instruction count alone and the walk takes the path of a launch without a
/// profile: no branch fit, no busy share, shared data searched among nearby groups. `slots`:
/// the GPU's warp slots, which the busy share of a grid too small to fill them is read
/// against.
pub fn build_graphs(
    case: &KernelCase,
    config: &Variant,
    expansion: &gpu::SassExpansion,
    slots: Option<walk::uneven::Slots>,
) -> Result<Graphs, EvalError> {
    let kerr = |stage: &str, e: String| EvalError::Kernel {
        kernel: case.spec.id.clone(),
        message: format!("{stage}: {e}"),
    };
    let module = ptx::parse(&case.ptx)
        .map_err(|e| kerr(&format!("parsing {}", case.ptx_file), e.to_string()))?;
    let kernel =
        ir::lower_kernel(&module, &case.spec.entry).map_err(|e| kerr("lowering", e.to_string()))?;
    let an = ir::analyze(&kernel).map_err(|e| kerr("analysis", e.to_string()))?;
    let launch = ir::Launch {
        grid: case.spec.grid,
        block: case.spec.block,
        params: case.launch_params(),
    }
    .bind(&kernel)
    .map_err(|e| kerr("binding the launch", e.to_string()))?;
    let top = case.max_point();
    let profiled = top.profiled();
    let file = format!(
        "{} (launch {})",
        case.spec.ncu,
        top.ncu.id.as_deref().unwrap_or("?")
    );
    let evidence = match profiled {
        Some(l) => walk::evidence(l, &file),
        None => instruction_evidence(case, &file),
    };
    // The trip counts are fitted in the PTX's instructions.
    let evidence = evidence.map(|e| e.in_ptx(expansion.inst));
    let trips = ir::resolve_trips(
        &kernel,
        &an,
        &launch,
        &ir::TripInputs {
            explicit: &[],
            profile: evidence.as_ref(),
        },
    )
    .map_err(|e| kerr("trip counts", e.to_string()))?;
    let mut notes: Vec<Note> = trips
        .warnings
        .iter()
        .map(|w| Note::new(Topic::TripCounts, w.message.clone()))
        .collect();
    let unpredictable = match profiled {
        Some(_) => None,
        None => {
            let unknown: Vec<String> = an
                .loops
                .ids()
                .filter(|&l| trips.get(l).source == ir::TripSource::Default)
                .map(|l| ir::trips::loop_name(&kernel, &an, l))
                .collect();
            (!unknown.is_empty()).then(|| {
                format!(
                    "without counters: the trip count of loop(s) {} depends on data and neither \
                     the launch nor {}",
                    unknown.join(", "),
                    match &evidence {
                        Some(_) => "the instruction count fixes it",
                        None => "an instruction count (none in the top launch) fixes it",
                    }
                )
            })
        }
    };
    let divergent = profiled
        .and_then(|l| l.quantity(profile::Quantity::DivergentBranches))
        .map(|m| m.value);
    // The busy share at the lowest occupancy: there no group waits for a slot, so the idle
    // slots are warps that ended before the rest of their group.
    let busy_share = config
        .uneven_warps
        .then(|| {
            case.points[0]
                .profiled()
                .and_then(|l| walk::uneven::busy_share(l, slots))
        })
        .flatten();
    let opts = walk::Options {
        unknown_branch: walk::UnknownBranch::from_divergent_branches(divergent),
        busy_share,
        // With counters mapper g has the DRAM share of every access, so the walk need not
        // search for data nearby groups share; without, it does, as the front ends do for a
        // launch without a profile.
        nearby_groups: profiled.is_none(),
        ..walk::Options::default()
    };
    let (built, choice) = match profiled.filter(|_| config.fit_branches) {
        Some(measured) => walk::profile_consistent(
            &kernel,
            &an,
            &launch,
            &trips,
            &opts,
            measured,
            expansion.inst,
        ),
        None => walk::build(&kernel, &an, &launch, &trips, &opts).map(|b| (b, None)),
    }
    .map_err(|e| kerr("walk", e.to_string()))?;
    if !built.unknown_branches.is_empty() {
        notes.push(Note::new(
            Topic::Branches,
            format!(
                "{} data-dependent branch(es) at PTX lines {}; {}",
                built.unknown_branches.len(),
                built
                    .unknown_branches
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                match &choice {
                    Some(c) => c.describe(),
                    None => format!(
                        "assumed {}{}",
                        match opts.unknown_branch {
                            walk::UnknownBranch::Taken => "taken",
                            walk::UnknownBranch::NotTaken => "not taken",
                            walk::UnknownBranch::Heavier => "the side with more code",
                            walk::UnknownBranch::Both =>
                                "divergent, both sides run (the profile counts divergent branches)",
                        },
                        if profiled.is_none() {
                            " (no counters to fit them to)"
                        } else {
                            ""
                        }
                    ),
                }
            ),
        ));
    }
    if let (Some(rho), false) = (busy_share, built.uneven.is_empty()) {
        let loops: Vec<String> = built
            .uneven
            .iter()
            .map(|&(l, n, long, short)| {
                format!(
                    "{} {n} -> {long} (warp 0) / {short} (others)",
                    ir::trips::loop_name(&kernel, &an, l)
                )
            })
            .collect();
        // The launch the share was read at: the lowest point's own, or with one profile the
        // highest point's.
        let at = match case.points[0].counters {
            crate::CountersMode::One => top.blocks_per_sm,
            _ => case.points[0].blocks_per_sm,
        };
        notes.push(Note::new(
            Topic::UnevenWarps,
            format!(
                "busy share {rho:.2} of the warp slots at {at} block(s)/SM: {}",
                loops.join(", ")
            ),
        ));
    }
    let mut idgs = built.idgs;
    if let Some(machine) = &case.machine {
        let report = align::apply(&mut idgs, machine, &align::file_table(&module));
        notes.extend(
            report
                .warnings()
                .into_iter()
                .map(|w| Note::new(Topic::MachineCode, w)),
        );
    }
    config.prepare_idgs(&mut idgs);
    Ok(Graphs {
        idgs,
        notes,
        divergent: built.divergent_branches,
        unpredictable,
    })
}

/// The Pipeline simulation plus the backend's analytical models.
pub struct IdgPredictor<B> {
    pub backend: B,
    pub variant: Variant,
    /// Evaluate the analytical models too (the ablation only needs the Pipeline model).
    pub analytical: bool,
    /// Simulate every group of the core instead of extrapolating whole waves
    /// ([`simulate_wpc`]).
    pub exact: bool,
}

impl<B: Backend> Predictor for IdgPredictor<B> {
    fn predict(
        &self,
        case: &KernelCase,
        points: &[MeasuredPoint],
        shape: CoreShape,
    ) -> Result<KernelPrediction, EvalError> {
        let mut all = predict_variants(
            &self.backend,
            &[(self.variant, self.analytical)],
            self.exact,
            case,
            points,
            shape,
        )?;
        Ok(all.remove(0))
    }
}

/// Several variants of one prediction, each as [`IdgPredictor`] would give it, computed
/// together (the ablation study).
pub struct VariantsPredictor<B> {
    pub backend: B,
    /// Each variant, and whether its analytical models are evaluated too.
    pub variants: Vec<(Variant, bool)>,
    /// As [`IdgPredictor::exact`].
    pub exact: bool,
}

impl<B: Backend> VariantsPredictor<B> {
    /// One prediction per variant, in [`VariantsPredictor::variants`] order.
    pub fn predict(
        &self,
        case: &KernelCase,
        points: &[MeasuredPoint],
        shape: CoreShape,
    ) -> Result<Vec<KernelPrediction>, EvalError> {
        predict_variants(
            &self.backend,
            &self.variants,
            self.exact,
            case,
            points,
            shape,
        )
    }
}

/// The predictions of `variants` for one kernel. Work the variants have in common is done
/// once: the IDGs are built once per distinct (branch fitting, barriers) setting, and equal
/// IDGs are one; the mappers run once per IDG, mapper g setting and point; and each distinct
/// simulation ([`sim::RunKey`] on the same IDGs) runs once, the device-wide limits of each
/// variant applied to its result after. Every variant's curves and notes are those it would
/// get alone. Independent pieces run in parallel; the result does not depend on the schedule.
fn predict_variants<B: Backend>(
    backend: &B,
    variants: &[(Variant, bool)],
    exact: bool,
    case: &KernelCase,
    points: &[MeasuredPoint],
    shape: CoreShape,
) -> Result<Vec<KernelPrediction>, EvalError> {
    let expansion = backend.sass_expansion();
    let slots = backend.slots();
    // The IDGs depend on the variant only through branch fitting, barriers and uneven warps.
    let graph_setting = |v: &Variant| (v.fit_branches, v.barriers, v.uneven_warps);
    // The analytical models characterize one representative warp: they read the IDGs with
    // every warp at the fitted counts, not the Pipeline model's uneven classes.
    let analytical_variant = |v: &Variant| Variant {
        uneven_warps: false,
        ..*v
    };
    let wanted: Vec<Variant> = variants
        .iter()
        .flat_map(|(v, analytical)| {
            std::iter::once(*v).chain(analytical.then(|| analytical_variant(v)))
        })
        .collect();
    let mut settings: Vec<&Variant> = Vec::new();
    for v in &wanted {
        if !settings
            .iter()
            .any(|s| graph_setting(s) == graph_setting(v))
        {
            settings.push(v);
        }
    }
    let built: Vec<Graphs> = settings
        .par_iter()
        .map(|v| build_graphs(case, v, &expansion, slots))
        .collect::<Result<_, _>>()?;
    // A kernel the IDGs cannot stand for: every model's curve is the reason, never a number.
    if let Some((g, why)) = built
        .iter()
        .find_map(|g| g.unpredictable.as_ref().map(|why| (g, why)))
    {
        return Ok(variants
            .iter()
            .map(|(_, analytical)| {
                let models = analytical
                    .then(|| backend.analytical_models())
                    .unwrap_or_default();
                let curves = std::iter::once(Model::Pipeline)
                    .chain(models)
                    .map(|m| (m, Err(why.clone())))
                    .collect();
                KernelPrediction {
                    curves,
                    notes: g.notes.clone(),
                }
            })
            .collect());
    }
    let setting_of = |v: &Variant| {
        settings
            .iter()
            .position(|s| graph_setting(s) == graph_setting(v))
            .expect("every variant's setting is listed")
    };
    // Equal IDGs from different settings (no barrier and no unknown branch to fit) are one.
    let graph_of: Vec<usize> = (0..built.len())
        .map(|i| {
            (0..i)
                .find(|&j| built[j].idgs == built[i].idgs)
                .unwrap_or(i)
        })
        .collect();

    // Node timings per (IDG, mapping switches) and point.
    let mapping_key = |v: &Variant| (graph_of[setting_of(v)], v.mapper_g, v.reread_pipe);
    let mut mappings: Vec<(usize, bool, bool)> = Vec::new();
    let mut mapping_variant: Vec<&Variant> = Vec::new();
    for v in &wanted {
        let m = mapping_key(v);
        if !mappings.contains(&m) {
            mappings.push(m);
            mapping_variant.push(v);
        }
    }
    let timed: Vec<Vec<Result<Timed, String>>> = mappings
        .par_iter()
        .zip(&mapping_variant)
        .map(|(&(g, _, _), v)| {
            points
                .par_iter()
                .map(|p| backend.timings(&built[g].idgs, p, v))
                .collect()
        })
        .collect();
    let mapping_of = |v: &Variant| {
        let m = mapping_key(v);
        mappings
            .iter()
            .position(|x| *x == m)
            .expect("every variant's mapping is listed")
    };

    // The distinct simulations: per variant and point, the index of the run it reads.
    let exec_at = |p: &MeasuredPoint| ExecConfig {
        warps_per_group: shape.warps_per_group,
        concurrent_groups: p.blocks_per_sm,
        total_groups: shape.total_groups,
        sm_count: shape.sm_count,
    };
    struct Run<'t> {
        graph: usize,
        point: usize,
        variant: Variant,
        timed: &'t Timed,
        hardware: Hardware,
        exec: ExecConfig,
        opts: SimOptions,
        key: Option<sim::RunKey>,
    }
    let mut runs: Vec<Run<'_>> = Vec::new();
    let mut run_of: Vec<Vec<Option<usize>>> = Vec::with_capacity(variants.len());
    for (v, _) in variants {
        let m = mapping_of(v);
        let graph = mappings[m].0;
        let mut per_point = Vec::with_capacity(points.len());
        for (pi, p) in points.iter().enumerate() {
            let Ok(t) = &timed[m][pi] else {
                per_point.push(None);
                continue;
            };
            let hardware = v.adjust_hardware(t.hardware.clone());
            let exec = exec_at(p);
            let opts = v.sim_options();
            // A run whose key cannot be formed fails the same way when simulated: not shared.
            let key = sim::run_key(&built[graph].idgs, &t.costs, &hardware, &exec, &opts).ok();
            // The loaded-latency fixed point reads the point's counters and the variant's
            // switches beyond the key (mapper g gives the DRAM bytes): a run is shared only
            // within one point and between variants that settle it alike.
            let same = key.as_ref().and_then(|k| {
                runs.iter().position(|r| {
                    r.graph == graph
                        && r.point == pi
                        && r.variant.mapper_g == v.mapper_g
                        && r.variant.loaded_latency == v.loaded_latency
                        && r.key.as_ref() == Some(k)
                })
            });
            per_point.push(Some(same.unwrap_or_else(|| {
                runs.push(Run {
                    graph,
                    point: pi,
                    variant: *v,
                    timed: t,
                    hardware,
                    exec,
                    opts,
                    key,
                });
                runs.len() - 1
            })));
        }
        run_of.push(per_point);
    }
    let simulated: Vec<Result<f64, String>> = runs
        .par_iter()
        .map(|r| {
            let timed = Timed {
                timings: Vec::new(),
                costs: r.timed.costs.clone(),
                hardware: r.hardware.clone(),
                notes: Vec::new(),
            };
            let idgs = &built[r.graph].idgs;
            let first =
                simulate_wpc(idgs, &timed, &r.exec, &r.opts, exact).map_err(|e| e.to_string())?;
            let p = &points[r.point];
            let Some(load) = backend.dram_load(&r.variant, p, idgs, &r.timed.costs, &r.exec) else {
                return Ok(first);
            };
            // The core's time at a WPC: what the DRAM utilization is measured against.
            let warps = (r.exec.groups_per_core() * u64::from(r.exec.warps_per_group)) as f64;
            let clock = r.hardware.clock_mhz;
            let time_us = |wpc: &f64| {
                if *wpc > 0.0 && clock > 0.0 {
                    warps / (wpc * clock)
                } else {
                    f64::INFINITY
                }
            };
            let unchanged = |scale: f64| {
                backend
                    .timings_at_dram_scale(idgs, p, &r.variant, scale)
                    .ok()
                    .and_then(|t| sim::run_key(idgs, &t.costs, &r.hardware, &r.exec, &r.opts).ok())
                    .is_some_and(|k| r.key.as_ref() == Some(&k))
            };
            let at = |scale: f64, exact: bool| -> Result<f64, String> {
                let t = backend.timings_at_dram_scale(idgs, p, &r.variant, scale)?;
                let timed = Timed {
                    timings: Vec::new(),
                    costs: t.costs,
                    hardware: r.hardware.clone(),
                    notes: Vec::new(),
                };
                simulate_wpc(idgs, &timed, &r.exec, &r.opts, exact).map_err(|e| e.to_string())
            };
            // Probes extrapolate; the result is a run as exact as the first.
            let probe = |scale: f64| at(scale, false).map(|wpc| time_us(&wpc));
            let probes = sim::loaded::probes_pay(&r.exec);
            load.settle(first, time_us, unchanged, probes, probe, |scale| {
                at(scale, exact)
            })
            .map(|(wpc, _)| wpc)
        })
        .collect();

    let out = variants
        .iter()
        .zip(&run_of)
        .map(|((v, analytical), run_of)| {
            let g = setting_of(v);
            let m = mapping_of(v);
            // Listed only for variants whose analytical models run (`wanted`).
            let av = if *analytical {
                analytical_variant(v)
            } else {
                *v
            };
            let (am, aidgs) = (mapping_of(&av), &built[graph_of[setting_of(&av)]].idgs);
            let models = if *analytical {
                backend.analytical_models()
            } else {
                Vec::new()
            };
            let n_models = models.len();
            // Once per kernel: what the analytical models read independently of the point.
            let prepared = (n_models > 0).then(|| backend.prepare(aidgs, shape));
            let per_point: Vec<PointOutcome> = points
                .par_iter()
                .enumerate()
                .map(|(pi, p)| {
                    let t = match &timed[m][pi] {
                        Ok(t) => t,
                        Err(e) => {
                            let e = format!("mapping at {} blocks/SM: {e}", p.blocks_per_sm);
                            return PointOutcome {
                                pipeline: Err(e.clone()),
                                analytical: vec![Err(e); n_models],
                                notes: Vec::new(),
                            };
                        }
                    };
                    let run = run_of[pi].expect("a mapped point has a run");
                    let exec = exec_at(p);
                    let pipeline = simulated[run].clone().map(|wpc| {
                        let warps =
                            (exec.groups_per_core() * u64::from(exec.warps_per_group)) as f64;
                        let clock = runs[run].hardware.clock_mhz;
                        if wpc <= 0.0 || clock <= 0.0 {
                            return wpc;
                        }
                        let core_us = warps / (wpc * clock);
                        // Without counters the floors read the run's static traffic.
                        let static_traffic = p.profiled().is_none().then(|| {
                            let r = &runs[run];
                            sim::cost::static_traffic(&built[r.graph].idgs, &r.timed.costs, &r.exec)
                        });
                        let t = backend.device_time_us(v, core_us, p, static_traffic);
                        warps / (t * clock)
                    });
                    let analytical = match (n_models, &timed[am][pi]) {
                        (0, _) => Vec::new(),
                        (_, Ok(at)) => {
                            let occ = p.blocks_per_sm * shape.warps_per_group;
                            let adjusted = Timed {
                                timings: at.timings.clone(),
                                costs: at.costs.clone(),
                                hardware: v.adjust_hardware(at.hardware.clone()),
                                notes: at.notes.clone(),
                            };
                            let prepared = prepared.as_ref().expect("prepared with models");
                            backend.analytical(aidgs, prepared, &adjusted, occ)
                        }
                        (_, Err(e)) => {
                            let e = format!("mapping at {} blocks/SM: {e}", p.blocks_per_sm);
                            vec![Err(e); n_models]
                        }
                    };
                    PointOutcome {
                        pipeline,
                        analytical,
                        notes: t.notes.clone(),
                    }
                })
                .collect();
            let mut notes = built[g].notes.clone();
            let mut pipeline = Vec::with_capacity(points.len());
            let mut others: Vec<Vec<Result<f64, String>>> = vec![Vec::new(); n_models];
            for o in per_point {
                for n in o.notes {
                    if !notes.contains(&n) {
                        notes.push(n);
                    }
                }
                pipeline.push(o.pipeline);
                for (out, v) in others.iter_mut().zip(o.analytical) {
                    out.push(v);
                }
            }
            let mut curves: Vec<(Model, Curve)> = vec![(Model::Pipeline, collect(pipeline))];
            curves.extend(models.into_iter().zip(others).map(|(m, v)| (m, collect(v))));
            KernelPrediction { curves, notes }
        })
        .collect();
    Ok(out)
}

/// WPC of one core running ⌈total / SMs⌉ groups, γ at a time: exactly, or unless `exact`
/// extrapolated from a few waves (`sim::loaded::extrapolated_cycles`). The integration test
/// `extrapolation_matches_exact_simulation` bounds the error at 3 %.
pub fn simulate_wpc(
    idgs: &KernelIdgs,
    timed: &Timed,
    exec: &ExecConfig,
    opts: &SimOptions,
    exact: bool,
) -> Result<f64, sim::SimError> {
    if exact {
        return sim::simulate(idgs, &timed.costs, &timed.hardware, exec, opts).map(|r| r.wpc);
    }
    let warps = exec.groups_per_core() * u64::from(exec.warps_per_group);
    let cycles = sim::loaded::extrapolated_cycles(idgs, &timed.costs, &timed.hardware, exec, opts)?;
    Ok(if cycles > 0.0 {
        warps as f64 / cycles
    } else {
        0.0
    })
}

struct PointOutcome {
    pipeline: Result<f64, String>,
    analytical: Vec<Result<f64, String>>,
    notes: Vec<Note>,
}

/// The first error of a curve, or all its values.
fn collect(v: Vec<Result<f64, String>>) -> Curve {
    v.into_iter().collect()
}

/// The SMs and warp slots of `profile`'s GPU ([`build_graphs`]'s `slots`).
pub fn slots(profile: &gpu::GpuProfile) -> walk::uneven::Slots {
    walk::uneven::Slots {
        sms: profile.sm_count,
        max_warps_per_sm: profile.limits.max_warps_per_sm,
    }
}
