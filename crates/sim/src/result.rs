//! What a simulation reports: cycles of the core, time at the profile clock, warp and
//! instruction throughput (WPC, IPC, Table 2 of the analysis paper), per-subsystem busy
//! fractions and the stall breakdown; plus the per-issue records traces are drawn from.
//!
//! Stall breakdown (warp-cycles): the gap between two consecutive issues of a warp is split
//! into time before its next instruction was ready (`barrier` while the warp waited at a
//! barrier, otherwise `dependence`, which includes waiting for window or ring room) and time
//! after: `subsystem_busy` while its pipeline was occupied, then `issue_limit` while the
//! valve was closed, and `not_selected` for the rest (the scheduler picked another warp).
//! The tail after a warp's last issue is not a stall and is not counted.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// Raw counters of one run, in ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counters {
    pub warps: u64,
    pub instructions: u64,
    pub stall_dependence: u64,
    pub stall_subsystem: u64,
    pub stall_issue_limit: u64,
    pub stall_barrier: u64,
    pub stall_not_selected: u64,
}

impl Counters {
    fn fields(&mut self) -> [&mut u64; 7] {
        [
            &mut self.warps,
            &mut self.instructions,
            &mut self.stall_dependence,
            &mut self.stall_subsystem,
            &mut self.stall_issue_limit,
            &mut self.stall_barrier,
            &mut self.stall_not_selected,
        ]
    }

    /// Every field's value.
    pub fn values(mut self) -> [u64; 7] {
        self.fields().map(|f| *f)
    }

    /// `self - earlier`, field by field (counters only grow).
    pub fn since(mut self, mut earlier: Counters) -> Counters {
        for (a, b) in self.fields().into_iter().zip(earlier.fields()) {
            *a -= *b;
        }
        self
    }

    /// Every field times `num / den`, rounded to the nearest count.
    pub fn scaled(mut self, num: u64, den: u64) -> Counters {
        let den = u128::from(den.max(1));
        for f in self.fields() {
            let x = (u128::from(*f) * u128::from(num) + den / 2) / den;
            *f = u64::try_from(x).unwrap_or(u64::MAX);
        }
        self
    }

    /// Every field on the line through `(xa, a)` and `(xc, self)`, at `at` (never below its
    /// value in `self`): the extrapolation of truncated runs (`crate::truncated`).
    pub fn extrapolate(&mut self, a: &Counters, xa: f64, xc: f64, at: f64) {
        let mut a = *a;
        for (c, a) in self.fields().into_iter().zip(a.fields()) {
            let v = *a as f64 + (*c as f64 - *a as f64) * (at - xa) / (xc - xa);
            *c = v.round().max(*c as f64) as u64;
        }
    }

    /// Adds `m` times `d`, field by field.
    pub fn add_times(&mut self, mut d: Counters, m: u64) {
        for (a, b) in self.fields().into_iter().zip(d.fields()) {
            *a += *b * m;
        }
    }
}

/// One issued instruction, kept when `SimOptions::record` is set. Times in ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssueRecord {
    /// Global warp id: `group * warps_per_group + warp_in_group`.
    pub warp: u64,
    /// Warp class (index into `KernelIdgs::classes`) the node belongs to.
    pub class: u32,
    pub partition: u32,
    pub subsystem: u32,
    /// Template node of the warp's class.
    pub node: u32,
    /// Position in the warp's unrolled stream.
    pub seq: u64,
    pub issue: u64,
    /// Occupancy of the subsystem (λ as simulated, partition scaling included).
    pub lambda: u64,
    pub complete: u64,
}

/// Warp-cycles lost per cause; see the module documentation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct StallBreakdown {
    pub dependence: f64,
    pub subsystem_busy: f64,
    pub issue_limit: f64,
    pub barrier: f64,
    pub not_selected: f64,
}

impl StallBreakdown {
    pub fn total(&self) -> f64 {
        self.dependence + self.subsystem_busy + self.issue_limit + self.barrier + self.not_selected
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubsystemUse {
    pub name: String,
    /// Fraction of the run the subsystem was accepting instructions (Σλ / cycles, averaged over
    /// partitions); never above 1.
    pub busy: f64,
}

/// The part of a sampled run that was extrapolated from a steady schedule instead of simulated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sampled {
    /// Extrapolations made (each over whole periods of one steady schedule).
    pub skips: u64,
    /// Of those, the ones over whole waves of groups (the others moved loops ahead).
    #[serde(default)]
    pub wave_skips: u64,
    /// Groups the wave extrapolations accounted for.
    #[serde(default)]
    pub groups: u64,
    /// Long loops cut for three truncated runs whose outputs were extrapolated to the whole
    /// core (0: none; `docs/simulator.md`, "Sampled simulation").
    #[serde(default)]
    pub truncated_loops: u64,
    /// Warp instructions the extrapolations accounted for.
    pub instructions: u64,
    /// Cycles the extrapolations accounted for.
    pub cycles: f64,
    /// Bound on their error in cycles: per extrapolation, the difference between the last
    /// two periods' times, once per period added.
    pub error_bound_cycles: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimResult {
    /// Cycles the simulated core needs for its ⌈groups / SMs⌉ groups.
    pub cycles: f64,
    /// The same, exact, in ticks of `ticks_per_cycle`.
    pub ticks: u64,
    pub ticks_per_cycle: u64,
    /// `cycles` at the profile's clock.
    pub time_us: f64,
    /// Warps the core ran.
    pub warps: u64,
    /// Concurrent warps ω.
    pub occupancy_warps: u64,
    /// Resident groups γ (capped by the groups the core runs).
    pub concurrent_groups: u32,
    pub groups: u64,
    pub instructions: u64,
    /// Of `instructions`, those a fast-forward over a repeating schedule accounted for in
    /// closed form instead of issuing one by one (`SimOptions::fast_forward`).
    #[serde(default)]
    pub fast_forwarded: u64,
    /// What the sampled simulation extrapolated (`SimOptions::sampled`); None when the run
    /// was exact (the exact engine, or a sampled run that found no steady schedule to skip).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<Sampled>,
    /// Warp throughput (warps per cycle).
    pub wpc: f64,
    /// Warp instructions per cycle.
    pub ipc: f64,
    pub subsystems: Vec<SubsystemUse>,
    pub stalls: StallBreakdown,
    pub scheduler: String,
    /// The issue order in words, as `--issue` set it (`compiler-scheduled (lookahead 4)`).
    pub issue: String,
    pub partitions: u32,
    /// DRAM (read, write) bytes of the whole launch at this occupancy by the static access
    /// analysis ([`crate::cost::static_dram_bytes`]); the bandwidth floor's traffic where no
    /// counters measured it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_dram_bytes: Option<(f64, f64)>,
    /// L2 atomic sectors of the whole launch by the static access analysis
    /// ([`crate::cost::static_atomic_sectors`]); the atomic floor's where no counters measured
    /// the busiest slice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_atomic_sectors: Option<f64>,
}

impl SimResult {
    pub fn to_json(&self) -> String {
        // Plain data with string keys: serialization cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Human-readable summary.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "cycles        {:.3}  ({:.3} us)",
            self.cycles, self.time_us
        );
        let _ = writeln!(
            s,
            "warps         {} in {} groups on the simulated SM, {} concurrent ({} groups)",
            self.warps, self.groups, self.occupancy_warps, self.concurrent_groups
        );
        if self.fast_forwarded > 0 {
            let _ = writeln!(
                s,
                "instructions  {}  ({} fast-forwarded)",
                self.instructions, self.fast_forwarded
            );
        } else {
            let _ = writeln!(s, "instructions  {}", self.instructions);
        }
        if let Some(x) = self.sampled {
            let _ =
                writeln!(
                s,
                "sampled       {} instructions, {:.1} % of the cycles extrapolated ({} over loop \
                 iterations, {} over {} groups' waves, {} loops truncated), error bound {:.3} %",
                x.instructions,
                if self.cycles > 0.0 { x.cycles / self.cycles * 100.0 } else { 0.0 },
                x.skips - x.wave_skips,
                x.wave_skips,
                x.groups,
                x.truncated_loops,
                if self.cycles > 0.0 { x.error_bound_cycles / self.cycles * 100.0 } else { 0.0 },
            );
        }
        let _ = writeln!(s, "WPC           {:.6}", self.wpc);
        let _ = writeln!(s, "IPC           {:.6}", self.ipc);
        if let Some((r, w)) = self.static_dram_bytes {
            let _ = writeln!(
                s,
                "DRAM (static) {:.1} MB read, {:.1} MB written by the launch",
                r / 1e6,
                w / 1e6
            );
        }
        if let Some(a) = self.static_atomic_sectors {
            let _ = writeln!(
                s,
                "atomics (static) {:.3} M L2 atomic sectors sent by the launch",
                a / 1e6
            );
        }
        let _ = writeln!(
            s,
            "scheduler     {}, {} issue, {} partition(s)",
            self.scheduler, self.issue, self.partitions
        );
        let _ = writeln!(s, "subsystem busy:");
        for u in &self.subsystems {
            let _ = writeln!(s, "  {:<12} {:6.2}%", u.name, u.busy * 100.0);
        }
        let t = self.stalls.total();
        let pct = |x: f64| if t > 0.0 { x / t * 100.0 } else { 0.0 };
        let _ = writeln!(s, "stalls (warp-cycles):");
        for (name, v) in [
            ("dependence", self.stalls.dependence),
            ("subsystem", self.stalls.subsystem_busy),
            ("issue limit", self.stalls.issue_limit),
            ("barrier", self.stalls.barrier),
            ("not selected", self.stalls.not_selected),
        ] {
            let _ = writeln!(s, "  {name:<12} {v:14.3} {:6.2}%", pct(v));
        }
        s
    }
}
