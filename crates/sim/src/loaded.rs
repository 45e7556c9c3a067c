//! Loaded DRAM latency (docs/simulator.md, "Loaded DRAM latency"): a launch that keeps the
//! memory system busy sees a longer DRAM Λ than the unloaded one the profile measures, and
//! how busy it keeps it depends on that Λ. This module owns the fixed point between the two:
//! the utilization u a simulation reaches (the launch's DRAM bytes over the sustained bandwidth,
//! against the simulated time) and the Λ0 · f(u, w) it runs with (`gpu::LoadedLatency`).
//!
//! The exact simulation at Λ0 gives u0 (the highest u: a longer Λ can only slow the launch).
//! Two runs, at Λ0 and at Λ0 · f(u0), say how much the longer latency slows it, so u1 =
//! u0 · t(Λ0) / t(Λ0 · f(u0)) ≤ u0: where the launch has so many waves that it pays
//! ([`probes_pay`]) they are probes that extrapolate its time from a few
//! ([`extrapolated_cycles`]), since only their ratio is used; otherwise the exact run at Λ0
//! and one exact run at Λ0 · f(u0). The fixed
//! point u* = u(Λ0 · f(u*)) lies between u1 and u0; taking u linear in ln Λ between them locates
//! it, and the launch is simulated exactly at Λ0 · f(u*). The result is always an exact
//! simulation at the Λ it reports. A launch whose u0 changes Λ by less than [`TOLERANCE`], or
//! whose probes moved u by less than [`TOLERANCE`] of u0 (its time does not depend on the
//! latency), keeps its run at Λ0.

use gpu::{GMetrics, GpuProfile, LoadedLatency, Traffic};
use idg::KernelIdgs;
use rayon::prelude::*;

use crate::config::{ExecConfig, Hardware, SimOptions};
use crate::result::SimResult;
use crate::sweep::SweepPoint;
use crate::{simulate, SimError};

/// Relative change of Λ (first shortcut) and of u (second) below which a run is kept.
pub const TOLERANCE: f64 = 0.01;

/// The DRAM load of one launch: what the fixed point needs besides the simulations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DramLoad {
    /// The least time in microseconds the launch's DRAM bytes take at the sustained bandwidth
    /// of their mix (`GpuProfile::dram_time_us`).
    pub floor_us: f64,
    /// Share of the DRAM bytes written.
    pub write_share: f64,
    pub curve: LoadedLatency,
}

impl DramLoad {
    /// The load of a launch moving `traffic` on `profile`; `None` when the profile has no
    /// `[loaded_latency]` or the launch no DRAM bytes.
    pub fn new(profile: &GpuProfile, traffic: &Traffic) -> Option<DramLoad> {
        let curve = profile.loaded_latency?;
        let (floor_us, write_share) = profile.dram_time_us(traffic)?;
        (floor_us > 0.0).then_some(DramLoad {
            floor_us,
            write_share,
            curve,
        })
    }

    /// DRAM utilization of a run that takes `time_us`: at most 1.
    pub fn utilization(&self, time_us: f64) -> f64 {
        if time_us > 0.0 {
            (self.floor_us / time_us).min(1.0)
        } else {
            1.0
        }
    }

    /// Λ / Λ0 at utilization `u`.
    pub fn factor(&self, u: f64) -> f64 {
        self.curve.factor(u, self.write_share)
    }

    /// The fixed point from the exact run at the unloaded Λ: `first`, the time of a run
    /// (`time_us`), `unchanged`, whether the launch at Λ0 times a scale is the very run
    /// `first` is (no node's timing that the engine reads follows the DRAM Λ), `probe`, the
    /// time in microseconds of a probe at Λ0 times a scale, used when `probes` (the launch
    /// has enough waves for probes to pay, [`probes_pay`]), and `rerun`, the exact run at Λ0
    /// times a scale, which otherwise stands in for the probes. Returns the run at the fixed
    /// point and its scale (1 when `first` is kept).
    pub fn settle<R, E>(
        &self,
        first: R,
        time_us: impl Fn(&R) -> f64,
        unchanged: impl FnOnce(f64) -> bool,
        probes: bool,
        mut probe: impl FnMut(f64) -> Result<f64, E>,
        mut rerun: impl FnMut(f64) -> Result<R, E>,
    ) -> Result<(R, f64), E> {
        let u0 = self.utilization(time_us(&first));
        let f0 = self.factor(u0);
        if f0 - 1.0 < TOLERANCE {
            return Ok((first, 1.0));
        }
        // The run at Λ0 · f(u0) would repeat `first` word for word: u1 = u0, and `first` is
        // kept, as it would be after that run. (A compute-bound launch whose only DRAM
        // accesses are posted stores: their Λ is never waited for.)
        if unchanged(f0) {
            return Ok((first, 1.0));
        }
        let (t0, t1) = if probes {
            (probe(1.0)?, probe(f0)?)
        } else {
            (time_us(&first), time_us(&rerun(f0)?))
        };
        let u1 = if t1 > 0.0 && t0.is_finite() {
            (u0 * t0 / t1).min(u0)
        } else {
            u0
        };
        if u0 - u1 <= TOLERANCE * u0 {
            return Ok((first, 1.0));
        }
        let scale = self.factor(self.crossing(u0, u1, f0));
        Ok((rerun(scale)?, scale))
    }

    /// The u in [u1, u0] where u = u0 + (u1 − u0) · ln f(u) / ln f(u0): the fixed point with
    /// u taken linear in ln Λ between the runs at Λ0 (u0) and Λ0 · f(u0) (u1). The right side
    /// falls as u rises, so the difference has one root; found by bisection.
    fn crossing(&self, u0: f64, u1: f64, f0: f64) -> f64 {
        let gap = |u: f64| u0 + (u1 - u0) * self.factor(u).ln() / f0.ln() - u;
        let (mut lo, mut hi) = (u1, u0);
        for _ in 0..50 {
            let mid = 0.5 * (lo + hi);
            if gap(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }
}

/// Waves simulated before a probe's steady state is measured, and the waves it is measured over.
pub const WARMUP_WAVES: u64 = 8;
pub const MEASURED_WAVES: u64 = 8;

/// Whether [`extrapolated_cycles`] extrapolates `exec` (more waves than it simulates) rather
/// than simulating it exactly.
pub fn extrapolates(exec: &ExecConfig) -> bool {
    waves(exec) > WARMUP_WAVES + MEASURED_WAVES + 2
}

/// Whether two probes of `exec` cost less than one exact run: each simulates
/// `2·WARMUP_WAVES + MEASURED_WAVES` waves in its two runs, so the launch needs at least twice
/// that many.
pub fn probes_pay(exec: &ExecConfig) -> bool {
    extrapolates(exec) && waves(exec) > 2 * (2 * WARMUP_WAVES + MEASURED_WAVES)
}

fn waves(exec: &ExecConfig) -> u64 {
    exec.groups_per_core() / u64::from(exec.concurrent_groups.max(1))
}

/// Cycles of one core running ⌈total / SMs⌉ groups, γ at a time, extrapolated from a few waves.
///
/// Every group of a launch has the same IDGs, so after a few waves the schedule repeats once
/// per wave of γ groups. A core with more than `WARMUP_WAVES + MEASURED_WAVES + 2` waves is
/// simulated twice, with `r + γ·WARMUP_WAVES` and `r + γ·(WARMUP_WAVES + MEASURED_WAVES)`
/// groups (`r` = groups mod γ, so the partial wave is kept), and the time of the remaining whole
/// waves is extrapolated linearly from the difference; a shorter one is simulated exactly.
/// `eval`'s integration test `extrapolation_matches_exact_simulation` bounds the error at 3 %.
pub fn extrapolated_cycles(
    idgs: &KernelIdgs,
    costs: &[crate::ClassCosts],
    hw: &Hardware,
    exec: &ExecConfig,
    opts: &SimOptions,
) -> Result<f64, SimError> {
    if !extrapolates(exec) {
        return simulate(idgs, costs, hw, exec, opts).map(|r| r.cycles);
    }
    let groups = exec.groups_per_core();
    let gamma = u64::from(exec.concurrent_groups.max(1));
    let cycles_for = |g: u64| -> Result<f64, SimError> {
        let e = ExecConfig {
            total_groups: g,
            sm_count: 1,
            ..*exec
        };
        simulate(idgs, costs, hw, &e, opts).map(|r| r.cycles)
    };
    let rem = groups % gamma;
    let g1 = rem + gamma * WARMUP_WAVES;
    let g2 = g1 + gamma * MEASURED_WAVES;
    let (t1, t2) = (cycles_for(g1)?, cycles_for(g2)?);
    let per_wave = (t2 - t1) / MEASURED_WAVES as f64;
    Ok(t2 + per_wave * ((groups - g2) / gamma) as f64)
}

/// What a run at a scaled DRAM Λ needs: the mappers again, with the DRAM level's Λ scaled,
/// then the simulator.
#[derive(Clone, Copy)]
pub struct Rerun<'a> {
    pub idgs: &'a KernelIdgs,
    /// The profile the mappers read (`ModelConfig::mapping_profile`).
    pub profile: &'a GpuProfile,
    pub metrics: Option<&'a GMetrics>,
    pub hardware: &'a Hardware,
    pub opts: &'a SimOptions,
}

impl Rerun<'_> {
    fn costs(&self, scale: f64) -> Vec<crate::ClassCosts> {
        let profile = self.profile.with_dram_latency_scale(scale);
        let (timings, _) = gpu::map_kernel(self.idgs, &profile, self.metrics);
        crate::costs_from_timing(&timings)
    }

    /// Whether the run at Λ0 · `scale` is the run at Λ0 ([`crate::run_key`]): then neither
    /// needs simulating again.
    pub fn unchanged(&self, exec: &ExecConfig, scale: f64) -> bool {
        let key =
            |s: f64| crate::run_key(self.idgs, &self.costs(s), self.hardware, exec, self.opts);
        matches!((key(1.0), key(scale)), (Ok(a), Ok(b)) if a == b)
    }

    /// The exact run at Λ0 · `scale`.
    pub fn run(&self, exec: &ExecConfig, scale: f64) -> Result<SimResult, SimError> {
        simulate(
            self.idgs,
            &self.costs(scale),
            self.hardware,
            exec,
            self.opts,
        )
    }

    /// A probe at Λ0 · `scale`: the launch's time in microseconds, extrapolated from a few
    /// waves where it has many ([`extrapolated_cycles`]).
    pub fn probe(&self, exec: &ExecConfig, scale: f64) -> Result<f64, SimError> {
        let cycles = extrapolated_cycles(
            self.idgs,
            &self.costs(scale),
            self.hardware,
            exec,
            self.opts,
        )?;
        Ok(cycles / self.hardware.clock_mhz)
    }

    /// Every point of a sweep of `base` (one simulated core each, before the device-wide
    /// limits) moved to its fixed point; `load` gives a point's DRAM load from its execution
    /// (`ModelConfig::dram_load`: the counters' bytes, else the static bytes at its
    /// occupancy), and a point without one keeps its run.
    pub fn settle_sweep(
        &self,
        load: &(dyn Fn(&ExecConfig) -> Option<DramLoad> + Sync),
        base: &ExecConfig,
        points: &mut [SweepPoint],
    ) -> Result<(), SimError> {
        points.par_iter_mut().try_for_each(|p| {
            let exec = ExecConfig {
                concurrent_groups: p.blocks_per_sm,
                ..*base
            };
            let Some(load) = load(&exec) else {
                return Ok(());
            };
            let (r, _) = load.settle(
                p.result.clone(),
                |r| r.time_us,
                |s| self.unchanged(&exec, s),
                probes_pay(&exec),
                |s| self.probe(&exec, s),
                |s| self.run(&exec, s),
            )?;
            p.cycles = r.cycles;
            p.wpc = r.wpc;
            p.time_us = r.time_us;
            p.result = r;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(write_share: f64) -> DramLoad {
        DramLoad {
            floor_us: 100.0,
            write_share,
            curve: LoadedLatency {
                reads: 0.0816,
                reads_exp: 1.5,
                writes: 0.341,
                writes_exp: 0.3,
                capacity: 1.14,
            },
        }
    }

    /// A launch whose time is all DRAM latency: time ∝ Λ. Its fixed point solves
    /// u = u0 / f(u) in closed form by bisection; `settle` must land within a few per cent.
    #[test]
    fn latency_bound_launch_reaches_the_fixed_point() {
        for w in [0.0, 1.0 / 3.0, 0.5] {
            let l = load(w);
            let t0 = 125.0; // u0 = 0.8
            for probes in [true, false] {
                let (t, scale) = l
                    .settle(
                        t0,
                        |t| *t,
                        |_| false,
                        probes,
                        |s| Ok::<f64, ()>(t0 * s),
                        |s| Ok(t0 * s),
                    )
                    .unwrap();
                let u = l.utilization(t);
                assert!(
                    (scale - l.factor(u)).abs() / scale < 0.05,
                    "w {w}: {scale} vs f(u) {}",
                    l.factor(u)
                );
                assert!((t - t0 * scale).abs() < 1e-9);
                assert!(u < 0.8 && scale > 1.0);
            }
        }
    }

    /// Without probes the exact run at Λ0 · f(u0) measures the slow-down: a launch whose time
    /// does not change keeps its first run after that one rerun.
    #[test]
    fn without_probes_one_exact_rerun_decides() {
        let l = load(0.5);
        let mut reruns = 0;
        let (t, scale) = l
            .settle(
                150.0,
                |t| *t,
                |_| false,
                false,
                |_| -> Result<f64, ()> { panic!("no probe") },
                |_| {
                    reruns += 1;
                    Ok(150.0)
                },
            )
            .unwrap();
        assert_eq!((t, scale, reruns), (150.0, 1.0, 1));
    }

    /// A launch whose time does not depend on Λ keeps its run at Λ0: two probes, no rerun.
    #[test]
    fn latency_insensitive_launch_keeps_its_first_run() {
        let l = load(0.5);
        let mut probes = 0;
        let (t, scale) = l
            .settle(
                150.0,
                |t| *t,
                |_| false,
                true,
                |_| {
                    probes += 1;
                    Ok::<f64, ()>(140.0)
                },
                |_| panic!("no rerun"),
            )
            .unwrap();
        assert_eq!((t, scale, probes), (150.0, 1.0, 2));
    }

    /// Only the probes' ratio counts: a probe that extrapolates 5 % long moves nothing.
    #[test]
    fn probes_count_by_their_ratio() {
        let l = load(1.0 / 3.0);
        let exact = l.settle(
            125.0,
            |t| *t,
            |_| false,
            true,
            |s| Ok::<f64, ()>(125.0 * s),
            |s| Ok(125.0 * s),
        );
        let long = l.settle(
            125.0,
            |t| *t,
            |_| false,
            true,
            |s| Ok::<f64, ()>(131.25 * s),
            |s| Ok(125.0 * s),
        );
        assert_eq!(exact.unwrap(), long.unwrap());
    }

    /// A launch whose run at Λ0 · f(u0) would be its run at Λ0 keeps it: no probe, no rerun.
    #[test]
    fn unchanged_tables_run_nothing_again() {
        let l = load(1.0);
        let (t, scale) = l
            .settle(
                125.0,
                |t| *t,
                |s| s > 1.0,
                true,
                |_| -> Result<f64, ()> { panic!("no probe") },
                |_| -> Result<f64, ()> { panic!("no rerun") },
            )
            .unwrap();
        assert_eq!((t, scale), (125.0, 1.0));
    }

    /// An idle memory system changes nothing and runs nothing again.
    #[test]
    fn idle_dram_keeps_the_first_run() {
        let l = load(0.0);
        let (t, scale) = l
            .settle(
                1e6,
                |t| *t,
                |_| panic!("no mapping"),
                true,
                |_| -> Result<f64, ()> { panic!("no probe") },
                |_| -> Result<f64, ()> { panic!("no rerun") },
            )
            .unwrap();
        assert_eq!((t, scale), (1e6, 1.0));
    }

    #[test]
    fn factor_grows_with_load_and_writes() {
        let c = load(0.0).curve;
        assert_eq!(c.factor(0.0, 0.5), 1.0);
        let mut last = 1.0;
        for i in 1..=10 {
            let f = c.factor(f64::from(i) / 10.0, 1.0 / 3.0);
            assert!(f > last);
            last = f;
        }
        assert!(c.factor(0.8, 0.5) > c.factor(0.8, 0.0));
        // The measured points: reads only +19 % at u = 0.8, 2:1 +58 % (within the fit's 5 %).
        assert!((c.factor(0.8, 0.0) - 1.19).abs() < 0.05);
        assert!((c.factor(0.8, 1.0 / 3.0) - 1.58).abs() < 0.08);
        assert_eq!(c.factor(2.0, 0.0), c.factor(1.0, 0.0));
    }
}
