//! Sampled simulation over long loops by truncation.
//!
//! A launch whose warps spend their time in long loops, in few waves of groups at different
//! points of those loops, has no window in which every warp moves at one steady pace (the
//! in-engine sampling, `engine/sampled.rs`, then finds nothing to skip): its core's
//! instruction rate beats as the groups' memory phases meet and part. Its time is still
//! linear in the loops' trip counts: each iteration adds the same work to every warp, and
//! the waves, the drain and the stagger of the groups stretch with them.
//!
//! So, as the sampling model of the papers times a launch cut to 2 and 3 times the groups a
//! device holds and extrapolates linearly in the groups, a core whose outermost loops run at
//! least [`MIN_COUNT`] iterations is simulated three times with those loops cut to 1, 2 and 4
//! times `q` iterations (`q` = the count / [`PARTS`], at least [`MIN_Q`]), and every output
//! (time, counters, busy time) is extrapolated linearly in the run's instructions to the
//! instructions of the whole core, along the line through the first and last runs. The
//! middle run checks that line: its miss, scaled to the extrapolated length, is the error
//! bound the run reports; past [`TOLERANCE`] of the time the core is simulated whole
//! instead. The cuts double rather than step by `q` so that the check spans a doubling: a
//! schedule that settles over tens of iterations into a slower rate (oldest-first warps of
//! groups that drift apart: 1165 cycles per iteration over the first 15, 1297 from the 60th
//! on) bends the line between `q` and `4q` where it stayed straight between `q` and `3q`.
//! No check on the cut runs sees a schedule that changes only after `4q` iterations: random
//! barrier loops of a few warps exist whose time per iteration steps after 30 (or at one
//! count only), and their estimates miss by up to 9 % within a bound far below it. A core with
//! fewer than [`MIN_INSTRUCTIONS`] instructions, or with a loop whose count differs between
//! its warps ([`even_loops`]), is simulated whole.

use idg::{GroupClasses, Item, KernelIdgs};

use crate::config::{ExecConfig, Hardware, SimOptions};
use crate::cost::ClassCosts;
use crate::engine::{self, sampled::Totals, Outcome};
use crate::SimError;

/// Loops of fewer iterations run whole.
pub const MIN_COUNT: u64 = 48;

/// A cut loop runs `2^(j-1) · count / PARTS` iterations in the `j`-th run (at least
/// `2^(j-1) · MIN_Q`).
pub const PARTS: u64 = 32;
pub const MIN_Q: u64 = 4;

/// Largest error bound, relative to the extrapolated time, a truncated estimate may carry;
/// past it the core is simulated whole.
pub const TOLERANCE: f64 = 0.005;

/// Cores of fewer instructions are simulated whole: the three cut runs would cost more.
pub const MIN_INSTRUCTIONS: u64 = 200_000;

/// Iterations of a cut loop of `count` in run `j` (1, 2 or 3).
fn cut_count(count: u64, j: u64) -> u64 {
    (1 << (j - 1)) * MIN_Q.max(count / PARTS)
}

/// Whether every repeat of one loop runs one count in every class: a loop whose count
/// differs between warps (uneven warps, where one warp of a group runs it 1/ρ times longer)
/// would be cut to other proportions, and the line through the cut runs would not reach the
/// whole run.
fn even_loops(kernel: &KernelIdgs) -> bool {
    fn visit(items: &[Item], seen: &mut Vec<(idg::LoopId, u64)>) -> bool {
        items.iter().all(|item| match item {
            Item::Node(_) => true,
            Item::Repeat(r) => {
                let same = match seen.iter().find(|(l, _)| *l == r.loop_id) {
                    Some(&(_, c)) => c == r.count,
                    None => {
                        seen.push((r.loop_id, r.count));
                        true
                    }
                };
                same && visit(&r.body, seen)
            }
        })
    }
    let mut seen = Vec::new();
    kernel.classes.iter().all(|c| visit(&c.idg.body, &mut seen))
}

/// Cuts every outermost repeat of at least [`MIN_COUNT`] iterations to run `j`'s count;
/// returns how many it cut.
fn cut(items: &mut [Item], j: u64) -> u64 {
    let mut n = 0;
    for item in items {
        if let Item::Repeat(r) = item {
            if r.count >= MIN_COUNT {
                r.count = cut_count(r.count, j);
                n += 1;
            } else {
                n += cut(&mut r.body, j);
            }
        }
    }
    n
}

/// Warp instructions of the core's whole run: every group it runs with its classes.
fn core_instructions(kernel: &KernelIdgs, exec: &ExecConfig) -> u64 {
    let per_class: Vec<u64> = kernel
        .classes
        .iter()
        .map(|c| c.idg.instruction_count())
        .collect();
    let classes = GroupClasses::new(kernel);
    let per_list: Vec<u64> = classes
        .lists()
        .iter()
        .map(|l| {
            l.iter()
                .map(|c| per_class[c.index()])
                .fold(0u64, u64::saturating_add)
        })
        .collect();
    let groups = exec.groups_per_core();
    if let [one] = per_list[..] {
        return groups.saturating_mul(one);
    }
    // Core 0 runs every SM-count-th group.
    let sm = u64::from(exec.sm_count.max(1));
    (0..groups)
        .map(|i| per_list[classes.list_of(i * sm)])
        .fold(0u64, u64::saturating_add)
}

/// The core's outcome extrapolated from three runs with its long loops cut; None where it
/// has no loop to cut or is cheap enough to simulate whole.
pub(crate) fn run(
    kernel: &KernelIdgs,
    costs: &[ClassCosts],
    hw: &Hardware,
    exec: &ExecConfig,
    opts: &SimOptions,
) -> Result<Option<Outcome>, SimError> {
    let full = core_instructions(kernel, exec);
    if full < MIN_INSTRUCTIONS || !even_loops(kernel) {
        return Ok(None);
    }
    let mut runs = Vec::with_capacity(3);
    for j in 1..=3 {
        let mut k = kernel.clone();
        let loops: u64 = k.classes.iter_mut().map(|c| cut(&mut c.idg.body, j)).sum();
        if loops == 0 {
            return Ok(None);
        }
        let tables = engine::prepare_all(&k, costs, hw, exec, opts)?;
        runs.push((
            loops,
            engine::Engine::new(&k, &tables, hw, *exec, *opts).run()?,
        ));
    }
    let [(loops, a), (_, b), (_, c)] = <[(u64, Outcome); 3]>::try_from(runs)
        .map_err(|_| SimError::Config("three cut runs".into()))?;
    let x = |o: &Outcome| o.counters.instructions as f64;
    let (xa, xb, xc) = (x(&a), x(&b), x(&c));
    if !(xa < xb && xb < xc && xc < full as f64) {
        return Ok(None);
    }
    // The line through the first and last runs, at `at` instructions.
    let line = |va: u64, vc: u64, at: f64| -> f64 {
        va as f64 + (vc as f64 - va as f64) * (at - xa) / (xc - xa)
    };
    let at = full as f64;
    let value = |va: u64, vc: u64| -> u64 { line(va, vc, at).round().max(vc as f64) as u64 };
    let ticks = value(a.ticks, c.ticks);
    let miss = (b.ticks as f64 - line(a.ticks, c.ticks, xb)).abs() * (at - xa) / (xb - xa);
    if miss > TOLERANCE * ticks as f64 {
        // Not linear enough to extrapolate within the bound: the whole run.
        return Ok(None);
    }
    let mut counters = c.counters;
    counters.extrapolate(&a.counters, xa, xc, at);
    counters.instructions = full;
    let sub_busy = a
        .sub_busy
        .iter()
        .zip(&c.sub_busy)
        .map(|(&va, &vc)| value(va, vc))
        .collect();
    let before = c.sampled.unwrap_or_default();
    let sampled = Totals {
        truncated_loops: loops,
        instructions: before.instructions + (full - c.counters.instructions),
        ticks: before.ticks + (ticks - c.ticks),
        error_ticks: before.error_ticks + miss.ceil() as u64,
        ..before
    };
    Ok(Some(Outcome {
        ticks,
        fast_forwarded: c.fast_forwarded,
        sampled: Some(sampled),
        counters,
        sub_busy,
        records: Vec::new(),
    }))
}
