//! Properties of the characterization and the models on random small kernels.

use gpu::{ClassTiming, Cycles, InstClass, MapSource, NodeTiming, SubsystemId};
use idg::{Category, Idg, IdgBuilder, LoopInfo, Node, ResourceKind};
use models::{mwp_cwp, roofline, volkov, HwParams, KernelCharacterization, ModelKind};
use proptest::prelude::*;
use ptx::ast::{Modifiers, Op, Opcode};

#[derive(Debug, Clone)]
struct Gen {
    mem: bool,
    /// Registers read, by index of the writing instruction (a later index in a loop body is a
    /// loop-carried read).
    reads: Vec<usize>,
    lambda_eighths: u64,
    extra_latency: u64,
}

fn inst() -> impl Strategy<Value = Gen> {
    (
        any::<bool>(),
        prop::collection::vec(0usize..10, 0..3),
        1u64..24,
        0u64..30,
    )
        .prop_map(|(mem, reads, lambda_eighths, extra_latency)| Gen {
            mem,
            reads,
            lambda_eighths,
            extra_latency,
        })
}

fn build(body: &[Gen], reps: u64) -> (Idg, ClassTiming) {
    let mut b = IdgBuilder::new();
    let mut timing = ClassTiming::default();
    let l = b.add_loop(LoopInfo {
        label: "$L".into(),
        ptx_line: 0,
        src: None,
        trip_source: "test".into(),
    });
    b.begin_repeat(l, reps);
    for (i, g) in body.iter().enumerate() {
        let reads = g
            .reads
            .iter()
            .filter(|r| **r < body.len())
            .map(|r| b.resource(ResourceKind::Register, &format!("%r{r}")))
            .collect();
        let writes = vec![b.resource(ResourceKind::Register, &format!("%r{i}"))];
        b.push(Node {
            op: Op {
                opcode: if g.mem { Opcode::Ld } else { Opcode::Add },
                mods: Modifiers::default(),
            },
            category: if g.mem {
                Category::Memory
            } else {
                Category::Compute
            },
            reads,
            writes,
            moves: Vec::new(),
            ptx_line: i as u32,
            src: None,
            mem: None,
            barrier: None,
            active_lanes: 32,
            register_conflicts: 0,
        });
        let lambda = Cycles::from_ratio(g.lambda_eighths, 8).unwrap();
        timing.nodes.push(NodeTiming {
            subsystem: SubsystemId(u16::from(g.mem)),
            lambda,
            latency: lambda + Cycles::from_cycles(g.extra_latency),
            source: MapSource::F,
            class: if g.mem {
                InstClass::LdGlobal
            } else {
                InstClass::F32Add
            },
            l2_reuse: None,
            dram_bytes: 0,
        });
    }
    b.end_repeat().unwrap();
    (b.finish().unwrap(), timing)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn characterization_and_bounds(body in prop::collection::vec(inst(), 1..10), reps in 1u64..6) {
        let (idg, timing) = build(&body, reps);
        let ch = KernelCharacterization::new(&idg, &timing, f64::INFINITY).unwrap();
        let stats = idg.stats();
        prop_assert_eq!(ch.instructions, idg.instruction_count());
        prop_assert_eq!(ch.depth, stats.critical_path);
        prop_assert_eq!(ch.alpha_comp + ch.alpha_mem, ch.instructions);

        let latency_sum = ch.latency_comp_sum + ch.latency_mem_sum;
        prop_assert!(ch.chain_latency <= ch.lambda_app() + 1e-9);
        prop_assert!(ch.lambda_app() <= latency_sum + 1e-9);
        let intervals: u64 = ch.intervals.iter().map(|i| i.count * i.instructions).sum();
        prop_assert_eq!(intervals, ch.alpha_comp);
        prop_assert!(ch.gpumech_single_warp() <= ch.lambda_sum() + latency_sum + 1e-9);

        let hw = HwParams::derive(&ch, f64::INFINITY, None);
        let roof = roofline::roof(&ch, &hw).wpc();
        let mut last = 0.0;
        for w in 1..=32 {
            let v = volkov::predict(&ch, &hw, w).wpc;
            prop_assert!(v >= last - 1e-12 && v <= roof + 1e-12);
            last = v;
            for k in ModelKind::ALL {
                let p = k.predict(&ch, &hw, w).expect("a characterization model");
                prop_assert!(p.wpc.is_finite() && p.wpc > 0.0, "{:?} {:?}", k, p);
            }
            if ch.alpha_mem > 0 {
                // Section 5.1: MWP-CWP* never beats Volkov's upper bound.
                prop_assert!(mwp_cwp::predict_corrected(&ch, &hw, w).wpc <= v * (1.0 + 1e-9));
            }
        }
        prop_assert!((volkov::predict(&ch, &hw, 1).wpc - (1.0 / ch.lambda_app()).min(roof)).abs() < 1e-12);
    }
}

#[test]
fn loops_stream_without_unrolling_the_maps() {
    // A loop-carried chain: c0 reads m1 of the previous iteration. Every iteration adds the
    // chain c0 → m0 → c2 → c3 → m1 (24) and c1's λ (1): Λ_app = 25 per iteration.
    let g = |mem, reads: &[usize], lambda_eighths, extra_latency| Gen {
        mem,
        reads: reads.to_vec(),
        lambda_eighths,
        extra_latency,
    };
    let body = [
        g(false, &[5], 8, 3),
        g(false, &[], 8, 3),
        g(true, &[0, 1], 16, 4),
        g(false, &[2], 8, 3),
        g(false, &[3], 8, 3),
        g(true, &[4], 16, 4),
    ];
    let (idg, timing) = build(&body, 20_000);
    let ch = KernelCharacterization::new(&idg, &timing, f64::INFINITY).unwrap();
    assert_eq!(ch.instructions, 120_000);
    assert_eq!(ch.lambda_app(), 25.0 * 20_000.0);
    assert!(ch.intervals.len() <= 4, "{:?}", ch.intervals);
    assert!(ch.wfg_blocks.len() <= 4 && ch.wfg_mems.len() <= 4);
}
