//! Hand-built IDGs with Table 2 timings for the paper's worked examples.

use gpu::{ClassTiming, Cycles, InstClass, MapSource, NodeTiming, SubsystemId};
use idg::{Category, Idg, IdgBuilder, LoopInfo, Node, ResourceKind};
use models::{HwParams, KernelCharacterization};
use ptx::ast::{Modifiers, Op, Opcode};

/// One instruction of a hand-built kernel: memory or computation, registers read and written,
/// λ and Λ.
#[derive(Clone, Copy)]
pub struct Inst {
    pub mem: bool,
    pub reads: &'static [u32],
    pub writes: &'static [u32],
    pub lambda: f64,
    pub latency: f64,
}

pub fn c(reads: &'static [u32], writes: &'static [u32]) -> Inst {
    Inst {
        mem: false,
        reads,
        writes,
        lambda: 1.0,
        latency: 4.0,
    }
}

pub fn m(reads: &'static [u32], writes: &'static [u32]) -> Inst {
    Inst {
        mem: true,
        reads,
        writes,
        lambda: 2.0,
        latency: 6.0,
    }
}

/// Builds the IDG (the body repeated `reps` times when `reps > 1`) and its timing table:
/// subsystem 0 computes, subsystem 1 is memory.
pub fn build(body: &[Inst], reps: u64) -> (Idg, ClassTiming) {
    let mut b = IdgBuilder::new();
    let mut timing = ClassTiming::default();
    if reps > 1 {
        let l = b.add_loop(LoopInfo {
            label: "$L".into(),
            ptx_line: 0,
            src: None,
            trip_source: "test".into(),
        });
        b.begin_repeat(l, reps);
    }
    for (line, i) in body.iter().enumerate() {
        let reads = i
            .reads
            .iter()
            .map(|r| b.resource(ResourceKind::Register, &format!("%r{r}")))
            .collect();
        let writes = i
            .writes
            .iter()
            .map(|r| b.resource(ResourceKind::Register, &format!("%r{r}")))
            .collect();
        b.push(Node {
            op: Op {
                opcode: if i.mem { Opcode::Ld } else { Opcode::Add },
                mods: Modifiers::default(),
            },
            category: if i.mem {
                Category::Memory
            } else {
                Category::Compute
            },
            reads,
            writes,
            moves: Vec::new(),
            ptx_line: line as u32 + 1,
            src: None,
            mem: None,
            barrier: None,
            active_lanes: 32,
            register_conflicts: 0,
        });
        timing.nodes.push(NodeTiming {
            subsystem: SubsystemId(u16::from(i.mem)),
            lambda: Cycles::from_f64(i.lambda).unwrap(),
            latency: Cycles::from_f64(i.latency).unwrap(),
            source: MapSource::F,
            class: if i.mem {
                InstClass::LdGlobal
            } else {
                InstClass::F32Add
            },
            l2_reuse: None,
            dram_bytes: 0,
        });
    }
    if reps > 1 {
        b.end_repeat().unwrap();
    }
    (b.finish().unwrap(), timing)
}

/// The example kernel of Fig. 1: four computations, two memory instructions. The figure is not
/// in the text; this structure gives the paper's Λ_app = 25 (Eq. 2) and its MWP-CWP reading of
/// "two periods of two instructions followed by a memory instruction": c0 and c1 are
/// independent and feed m0, then c2 → c3 → m1.
pub fn example() -> Vec<Inst> {
    vec![
        c(&[], &[1]),
        c(&[], &[2]),
        m(&[1, 2], &[3]),
        c(&[3], &[4]),
        c(&[4], &[5]),
        m(&[5], &[6]),
    ]
}

/// Table 2: no issue limit, λ_mem^instr = 1.
pub fn table2(body: &[Inst]) -> (KernelCharacterization, HwParams) {
    let (idg, timing) = build(body, 1);
    let ch = KernelCharacterization::new(&idg, &timing, f64::INFINITY).unwrap();
    let hw = HwParams::derive(&ch, f64::INFINITY, Some(1.0));
    (ch, hw)
}
