//! The validated configuration of the Pipeline model: which mechanisms a prediction uses
//! (mapper g, scheduler, sub-partitions, issue order and lookahead, barriers, posted stores,
//! block dispatch) as one value, [`ModelConfig`]. `ptx2idg simulate`, `models` and `eval` all
//! start from [`ModelConfig::validated`], so what a user simulates is the model the results
//! page (docs/results.md) measures; every switch of the CLI and of the ablation study is a
//! change of this value.
//!
//! It owns no mechanism itself: it only says which ones are on, and translates that into the
//! simulator's [`SimOptions`] and [`Hardware`] and the IDG transformation barriers need.

use gpu::GpuProfile;
use idg::KernelIdgs;
use serde::Serialize;

use crate::{hardware_from_profile, Hardware, IssueOrder, Scheduler, SimOptions};

/// Lookahead of the validated configuration's scheduled issue: how far ptxas moves independent
/// instructions up a basic block. Chosen by sweeping 4, 8 and 16 on the Rodinia suite
/// (average Pipeline MAPE 20.5, 21.1, 22.5 %): the one fitted parameter, stated in the results.
pub const SCHEDULED_WINDOW: u32 = 4;

/// The mechanisms of one prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct ModelConfig {
    /// Mapper g: memory λ/Λ from the launch's counters when a profile gives them (off: mapper
    /// f's class values only).
    pub mapper_g: bool,
    pub scheduler: Scheduler,
    /// Split the core into the profile's scheduler partitions.
    pub sub_partitions: bool,
    pub order: IssueOrder,
    /// Lookahead of scheduled and dataflow issue (instructions a warp may issue past a stalled
    /// one); unused in order.
    pub window: u32,
    /// Barriers hold a group's warps (off: every node's barrier role is dropped).
    pub barriers: bool,
    /// Stores complete when the pipeline accepts them (`SimOptions::posted_stores`).
    pub posted_stores: bool,
    /// The profile's block dispatch latency and interval (off: groups start when a slot frees).
    pub dispatch: bool,
}

impl ModelConfig {
    /// The configuration validated on the H100 (docs/results.md): mapper g on, the profile's
    /// scheduler, its scheduler partitions, issue in the order ptxas would schedule (lookahead
    /// [`SCHEDULED_WINDOW`]), barriers, posted stores and the profile's block dispatch.
    pub fn validated(profile: &GpuProfile) -> Self {
        ModelConfig {
            mapper_g: true,
            scheduler: crate::scheduler_from_profile(profile),
            sub_partitions: true,
            order: IssueOrder::Scheduled,
            window: SCHEDULED_WINDOW,
            barriers: true,
            posted_stores: true,
            dispatch: true,
        }
    }

    /// The simulator's options (fast-forward on, nothing recorded).
    pub fn sim_options(&self) -> SimOptions {
        SimOptions {
            scheduler: self.scheduler,
            order: self.order,
            sub_partitions: self.sub_partitions,
            window: self.window,
            ring: ring_for(self.window),
            posted_stores: self.posted_stores,
            ..SimOptions::default()
        }
    }

    /// The core of `profile` as this configuration sees it.
    pub fn hardware(&self, profile: &GpuProfile) -> Hardware {
        self.adjust_hardware(hardware_from_profile(profile))
    }

    /// `hw` with the mechanisms this configuration switches off removed.
    pub fn adjust_hardware(&self, mut hw: Hardware) -> Hardware {
        if !self.dispatch {
            hw.dispatch_latency = 0;
            hw.dispatch_interval = 0;
        }
        hw
    }

    /// Applies the configuration to the IDGs of a launch: without barriers every node loses
    /// its barrier role, so the simulator needs no option for it.
    pub fn prepare_idgs(&self, idgs: &mut KernelIdgs) {
        if !self.barriers {
            for class in &mut idgs.classes {
                for node in &mut class.idg.nodes {
                    node.barrier = None;
                }
            }
        }
    }

    /// The issue order in words, e.g. `compiler-scheduled (lookahead 4)`.
    pub fn issue_text(&self) -> String {
        match self.order {
            IssueOrder::InOrder => "in-order".to_string(),
            IssueOrder::Scheduled => format!("compiler-scheduled (lookahead {})", self.window),
            IssueOrder::Dataflow => format!("dataflow (lookahead {})", self.window),
        }
    }

    /// One line naming every mechanism, as the CLI and the results page print it.
    pub fn describe(&self) -> String {
        format!(
            "mapper g {}, scheduler {}, sub-partitions {}, {} issue, barriers {}, stores {}, \
             block dispatch {}",
            on_off(self.mapper_g),
            self.scheduler,
            on_off(self.sub_partitions),
            self.issue_text(),
            on_off(self.barriers),
            if self.posted_stores {
                "posted"
            } else {
                "waited"
            },
            on_off(self.dispatch)
        )
    }
}

/// The per-warp ring holds issued-but-incomplete instructions plus the window; four windows
/// leave room for long memory latencies (a power of two, as the engine requires).
fn ring_for(window: u32) -> u32 {
    (window.max(1) * 4)
        .next_power_of_two()
        .max(SimOptions::default().ring)
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}
