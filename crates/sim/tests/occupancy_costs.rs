//! Costs that depend on the occupancy (a re-read that hits L2 only while the resident warps'
//! data fits): each point of a sweep runs with the cost of its own resident warps.

use sim::synth;
use sim::{simulate, sweep, OccupancyCost, SimOptions, SweepAxis};

#[test]
fn each_sweep_point_uses_the_cost_of_its_occupancy() {
    let k = synth::chain(50, 1, 8);
    let hw = synth::hardware(1, None, 1);
    let slow = synth::costs_for(&k, &[(8.0, 400.0)], &hw);
    let fast = synth::costs_for(&k, &[(2.0, 200.0)], &hw);
    let mut both = slow.clone();
    for (c, f) in both[0].iter_mut().zip(&fast[0]) {
        c.below_occupancy = Some(OccupancyCost {
            max_warps: 2,
            subsystem: f.subsystem,
            lambda: f.lambda,
            latency: f.latency,
            graded: None,
        });
    }
    let opts = SimOptions::default();
    let run = |costs: &[sim::ClassCosts], g: u32| {
        simulate(&k.kernel, costs, &hw, &k.exec(g), &opts)
            .unwrap()
            .cycles
    };
    for g in 1..=2 {
        assert_eq!(run(&both, g), run(&fast, g), "{g} warps resident");
    }
    for g in 3..=4 {
        assert_eq!(run(&both, g), run(&slow, g), "{g} warps resident");
    }
    let points = sweep(
        &k.kernel,
        &both,
        &hw,
        &k.exec(1),
        &opts,
        &SweepAxis::BlocksPerSm(1..=4),
        &|| {},
    )
    .unwrap();
    let cycles: Vec<f64> = points.iter().map(|p| p.cycles).collect();
    assert_eq!(
        cycles,
        vec![run(&fast, 1), run(&fast, 2), run(&slow, 3), run(&slow, 4)]
    );
}
