//! Cost of the one streaming pass (`KernelCharacterization::new`) per dynamic instruction, and
//! of predicting every model at 64 occupancies from it.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gpu::{ClassTiming, Cycles, InstClass, MapSource, NodeTiming, SubsystemId};
use idg::{Category, Idg, IdgBuilder, LoopInfo, Node, ResourceKind};
use models::{HwParams, KernelCharacterization, ModelKind};
use ptx::ast::{Modifiers, Op, Opcode};

/// Fig. 1's kernel in a loop whose first computation depends on the previous iteration's load.
fn looped_example(reps: u64) -> (Idg, ClassTiming) {
    // (memory, reads, writes)
    let body: [(bool, &[u32], u32); 6] = [
        (false, &[6], 1),
        (false, &[], 2),
        (true, &[1, 2], 3),
        (false, &[3], 4),
        (false, &[4], 5),
        (true, &[5], 6),
    ];
    let mut b = IdgBuilder::new();
    let mut timing = ClassTiming::default();
    let l = b.add_loop(LoopInfo {
        label: "$L".into(),
        ptx_line: 0,
        src: None,
        trip_source: "bench".into(),
    });
    b.begin_repeat(l, reps);
    for (line, (mem, reads, write)) in body.iter().enumerate() {
        let reads = reads
            .iter()
            .map(|r| b.resource(ResourceKind::Register, &format!("%r{r}")))
            .collect();
        let writes = vec![b.resource(ResourceKind::Register, &format!("%r{write}"))];
        b.push(Node {
            op: Op {
                opcode: if *mem { Opcode::Ld } else { Opcode::Add },
                mods: Modifiers::default(),
            },
            category: if *mem {
                Category::Memory
            } else {
                Category::Compute
            },
            reads,
            writes,
            moves: Vec::new(),
            ptx_line: line as u32,
            src: None,
            mem: None,
            barrier: None,
            active_lanes: 32,
            register_conflicts: 0,
        });
        let (lambda, latency) = if *mem { (2, 6) } else { (1, 4) };
        timing.nodes.push(NodeTiming {
            subsystem: SubsystemId(u16::from(*mem)),
            lambda: Cycles::from_cycles(lambda),
            latency: Cycles::from_cycles(latency),
            source: MapSource::F,
            class: if *mem {
                InstClass::LdGlobal
            } else {
                InstClass::F32Add
            },
            l2_reuse: None,
            dram_bytes: 0,
        });
    }
    b.end_repeat().expect("balanced");
    (b.finish().expect("valid IDG"), timing)
}

fn bench(c: &mut Criterion) {
    let reps = 100_000;
    let (idg, timing) = looped_example(reps);
    let mut g = c.benchmark_group("characterize");
    g.throughput(Throughput::Elements(6 * reps));
    g.sample_size(20);
    g.bench_function("looped_example_600k_instructions", |b| {
        b.iter(|| KernelCharacterization::new(&idg, &timing, 4.0).expect("non-empty"))
    });
    g.finish();

    let ch = KernelCharacterization::new(&idg, &timing, 4.0).expect("non-empty");
    let hw = HwParams::derive(&ch, 4.0, None);
    c.bench_function("predict_all_models_64_occupancies", |b| {
        b.iter(|| {
            (1..=64)
                .flat_map(|w| ModelKind::ALL.iter().map(move |k| (k, w)))
                .filter_map(|(k, w)| k.predict(&ch, &hw, w).map(|p| p.wpc))
                .sum::<f64>()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
