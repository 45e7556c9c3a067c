//! `sim::run_key`: equal keys mean equal runs, and the key tells apart what changes a run.

use sim::synth::{self, TABLE2};
use sim::{run_key, simulate, ExecConfig, Hardware, IssueOrder, Scheduler, SimOptions};

fn setup() -> (
    synth::SynthKernel,
    Hardware,
    Vec<sim::ClassCosts>,
    ExecConfig,
) {
    let k = synth::paper_example(2, 12);
    let hw = Hardware {
        subsystems: vec!["compute".into(), "memory".into()],
        ..synth::hardware(2, None, 2)
    };
    let costs = synth::costs_for(&k, &TABLE2, &hw);
    let exec = ExecConfig {
        warps_per_group: 2,
        concurrent_groups: 3,
        total_groups: 12,
        sm_count: 1,
    };
    (k, hw, costs, exec)
}

/// The example kernel has no store and no loop latch: posted stores and latch blocks change
/// none of its nodes, so the key is the same and so is the run.
#[test]
fn switches_that_change_no_node_share_the_key() {
    let (k, hw, costs, exec) = setup();
    let base = SimOptions {
        order: IssueOrder::Scheduled,
        window: 4,
        sub_partitions: true,
        ..SimOptions::default()
    };
    let key = run_key(&k.kernel, &costs, &hw, &exec, &base).unwrap();
    for other in [
        SimOptions {
            posted_stores: false,
            ..base
        },
        SimOptions {
            latch_blocks: false,
            ..base
        },
    ] {
        assert_eq!(run_key(&k.kernel, &costs, &hw, &exec, &other).unwrap(), key);
        let a = simulate(&k.kernel, &costs, &hw, &exec, &base).unwrap();
        let b = simulate(&k.kernel, &costs, &hw, &exec, &other).unwrap();
        assert_eq!(a.ticks, b.ticks);
        assert_eq!(a.instructions, b.instructions);
    }
}

#[test]
fn what_changes_a_run_changes_the_key() {
    let (k, hw, costs, exec) = setup();
    let base = SimOptions::default();
    let key = run_key(&k.kernel, &costs, &hw, &exec, &base).unwrap();
    let scheduler = SimOptions {
        scheduler: if base.scheduler == Scheduler::OldestFirst {
            Scheduler::LooseRoundRobin
        } else {
            Scheduler::OldestFirst
        },
        ..base
    };
    assert_ne!(
        run_key(&k.kernel, &costs, &hw, &exec, &scheduler).unwrap(),
        key
    );
    let dispatch = Hardware {
        dispatch_interval: hw.dispatch_interval + 1,
        ..hw.clone()
    };
    assert_ne!(
        run_key(&k.kernel, &costs, &dispatch, &exec, &base).unwrap(),
        key
    );
    let fewer = ExecConfig {
        concurrent_groups: 2,
        ..exec
    };
    assert_ne!(run_key(&k.kernel, &costs, &hw, &fewer, &base).unwrap(), key);
    let mut slower = costs.clone();
    slower[0][0].latency += 1;
    assert_ne!(run_key(&k.kernel, &slower, &hw, &exec, &base).unwrap(), key);
    // An input the run would refuse has no key.
    let bad = ExecConfig {
        concurrent_groups: 0,
        ..exec
    };
    assert!(run_key(&k.kernel, &costs, &hw, &bad, &base).is_err());
}
