//! Static analysis of one kernel's SASS: an instruction class per opcode, which instructions
//! never run, basic blocks, loops from back edges, and counts per class for the kernel and
//! each loop. Results live in side tables indexed like [`Kernel::instructions`]; the listing
//! itself is not changed.
//!
//! What "never runs" means follows `bench/sass/expansion.py`'s fast path: NOPs (alignment
//! padding) and the `BRA` to itself that ptxas places after the last `EXIT` (a trap for a
//! warp that would fall off the end). Device functions ptxas appends after the kernel body
//! (from the lowest `CALL` target on) run only when called; they are marked
//! [`Reach::Subroutine`] so counts can take the kernel body alone.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::ast::{Instruction, Kernel, OperandKind};

/// What an instruction does, for counting. Uniform-datapath forms (`UIADD3`, `ULDC`) count
/// with their vector forms where one exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Class {
    /// `LDG`
    GlobalLoad,
    /// `STG`
    GlobalStore,
    /// `LDS`, `LDSM`
    SharedLoad,
    /// `STS`, `STSM`
    SharedStore,
    /// `LDL`: a register spill reload or a local array.
    LocalLoad,
    /// `STL`: a register spill or a local array.
    LocalStore,
    /// `LD`: generic address space, resolved at run time.
    GenericLoad,
    /// `ST`
    GenericStore,
    /// `LDC`, `ULDC`: constant bank loads.
    ConstantLoad,
    /// `LDGSTS`, `LDGDEPBAR`, Hopper's TMA (`UTMALDG`, `UTMASTG`, `UBLKCP`, …).
    AsyncCopy,
    /// `ATOM`, `ATOMG`, `ATOMS`, `RED`, `REDG`, `REDUX`.
    Atomic,
    /// `BRA`, `BRX`, `JMP`, `JMX`: executed control transfers.
    Branch,
    /// `CALL`
    Call,
    /// `EXIT`, `RET`: ends of a thread or a subroutine.
    Exit,
    /// `BAR`, `SYNCS` (mbarriers), `DEPBAR`.
    Barrier,
    /// `HMMA`, `IMMA`, `DMMA`, `BMMA`, `HGMMA`, `IGMMA`, `QGMMA`, `BGMMA`.
    Tensor,
    /// `SHFL`
    Shuffle,
    /// `MUFU`
    SpecialFunction,
    /// `FFMA`, `FADD`, `FMUL`, `FMNMX`, `FSETP`, `FSEL`, `FCHK`, …
    Fp32,
    /// `DFMA`, `DADD`, `DMUL`, `DSETP`, `DMNMX`
    Fp64,
    /// `HFMA2`, `HADD2`, `HMUL2`, `HSETP2`, `HMNMX2`
    Fp16,
    /// `IMAD`, `IADD3`, `ISETP`, `LOP3`, `SHF`, `LEA`, `VIADD`, … and uniform forms.
    Int,
    /// `F2F`, `I2F`, `F2I`, `F2FP`, `I2I`, `I2FP`, `F2IP`, `FRND`
    Conversion,
    /// `NOP`
    Nop,
    /// Everything else: moves, special registers, votes, convergence barriers, fences.
    Other,
}

impl Class {
    /// The class of an opcode (the mnemonic before the first `.`).
    pub fn of(opcode: &str) -> Class {
        match opcode {
            "LDG" => Class::GlobalLoad,
            "STG" => Class::GlobalStore,
            "LDS" | "LDSM" => Class::SharedLoad,
            "STS" | "STSM" => Class::SharedStore,
            "LDL" => Class::LocalLoad,
            "STL" => Class::LocalStore,
            "LD" => Class::GenericLoad,
            "ST" => Class::GenericStore,
            "LDC" | "ULDC" => Class::ConstantLoad,
            "LDGSTS" | "LDGDEPBAR" | "UTMALDG" | "UTMASTG" | "UTMAPF" | "UTMAREDG" | "UBLKCP"
            | "UBLKRED" | "UBLKPF" => Class::AsyncCopy,
            "ATOM" | "ATOMG" | "ATOMS" | "RED" | "REDG" | "REDUX" => Class::Atomic,
            "BRA" | "BRX" | "JMP" | "JMX" => Class::Branch,
            "CALL" => Class::Call,
            "EXIT" | "RET" => Class::Exit,
            "BAR" | "SYNCS" | "DEPBAR" => Class::Barrier,
            "HMMA" | "IMMA" | "DMMA" | "BMMA" | "HGMMA" | "IGMMA" | "QGMMA" | "BGMMA" => {
                Class::Tensor
            }
            "SHFL" => Class::Shuffle,
            "MUFU" => Class::SpecialFunction,
            "FFMA" | "FADD" | "FMUL" | "FMNMX" | "FSETP" | "FSET" | "FSEL" | "FCHK" | "FSWZADD"
            | "FFMA32I" | "FADD32I" | "FMUL32I" => Class::Fp32,
            "DFMA" | "DADD" | "DMUL" | "DSETP" | "DMNMX" => Class::Fp64,
            "HFMA2" | "HADD2" | "HMUL2" | "HSETP2" | "HSET2" | "HMNMX2" | "HFMA2_32I"
            | "HADD2_32I" | "HMUL2_32I" => Class::Fp16,
            "IMAD" | "IMAD32I" | "IADD3" | "IADD" | "IADD32I" | "IMUL" | "ISETP" | "ISCADD"
            | "LOP3" | "LOP" | "LOP32I" | "SHF" | "SHL" | "SHR" | "LEA" | "IMNMX" | "IABS"
            | "POPC" | "FLO" | "BREV" | "PRMT" | "SEL" | "XMAD" | "IDP" | "IDP4A" | "VIADD"
            | "VIMNMX" | "VIMNMX3" | "IADD2" | "UIMAD" | "UIADD3" | "ULOP3" | "ULOP" | "USHF"
            | "ULEA" | "UISETP" | "USEL" | "UPRMT" | "UFLO" | "UPOPC" | "UBREV" | "UIMNMX"
            | "UVIADD" => Class::Int,
            "F2F" | "I2F" | "F2I" | "F2FP" | "I2I" | "I2FP" | "F2IP" | "FRND" => Class::Conversion,
            "NOP" => Class::Nop,
            _ => Class::Other,
        }
    }

    /// Whether the class moves data to or from memory (any space, atomics, async copies).
    pub fn is_memory(self) -> bool {
        matches!(
            self,
            Class::GlobalLoad
                | Class::GlobalStore
                | Class::SharedLoad
                | Class::SharedStore
                | Class::LocalLoad
                | Class::LocalStore
                | Class::GenericLoad
                | Class::GenericStore
                | Class::AsyncCopy
                | Class::Atomic
        )
    }
}

/// Whether an instruction can run, for counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Reach {
    /// Part of the kernel body.
    Body,
    /// Part of a device function ptxas appended after the body (runs when called).
    Subroutine,
    /// The final `BRA` to itself after the last `EXIT`: never runs.
    Trap,
    /// A `NOP`: alignment padding, never counted.
    Padding,
}

impl Reach {
    /// Whether the instruction counts as executable code (body or subroutine).
    pub fn runs(self) -> bool {
        matches!(self, Reach::Body | Reach::Subroutine)
    }
}

/// Counts per class (classes with no instruction are absent) and their total.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ClassCounts {
    pub total: u32,
    pub by_class: BTreeMap<Class, u32>,
}

impl ClassCounts {
    fn add(&mut self, c: Class) {
        self.total += 1;
        *self.by_class.entry(c).or_insert(0) += 1;
    }

    /// The count of one class (0 when absent).
    pub fn get(&self, c: Class) -> u32 {
        self.by_class.get(&c).copied().unwrap_or(0)
    }
}

/// A basic block: instructions `start..end` (indices into [`Kernel::instructions`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Block {
    pub start: usize,
    pub end: usize,
    /// The address of the first instruction.
    pub address: u64,
    /// Indices of the blocks control can reach next (fall-through first, then the branch
    /// targets); an indirect branch (`BRX`, `JMX`) has known targets only where nvdisasm
    /// listed them (`BRANCH_TARGETS`).
    pub successors: Vec<usize>,
}

/// A loop found from back edges: branches to an address at or before their own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Loop {
    /// The target of the back edge: the first instruction of the loop.
    pub header: u64,
    /// The last back edge to `header` (several branches back to one header are one loop).
    pub latch: u64,
    /// Instruction indices `start..=end` from the header to the latch, inner loops included.
    pub start: usize,
    pub end: usize,
    /// Counts of the instructions between header and latch that run (no NOPs).
    pub counts: ClassCounts,
}

/// Everything [`analyze`] computes for one kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernelAnalysis {
    pub name: String,
    /// Per instruction, like [`Kernel::instructions`].
    pub classes: Vec<Class>,
    /// Per instruction, like [`Kernel::instructions`].
    pub reach: Vec<Reach>,
    /// Per instruction: the resolved target address of a direct branch or call.
    pub targets: Vec<Option<u64>>,
    pub blocks: Vec<Block>,
    /// Loops by header address, outer before inner.
    pub loops: Vec<Loop>,
    /// Static counts of the kernel body (no subroutines, NOPs or trap).
    pub body: ClassCounts,
    /// Static counts of everything that runs (body and subroutines).
    pub all: ClassCounts,
}

/// Label name → address, built once per kernel: branches look labels up by name.
type Labels<'a> = HashMap<&'a str, u64>;

fn labels(kernel: &Kernel) -> Labels<'_> {
    let mut m = HashMap::new();
    for l in &kernel.labels {
        // The first definition wins, as in [`Kernel::label_address`].
        m.entry(l.name.as_str()).or_insert(l.address);
    }
    m
}

/// The target address of a direct branch or call: an integer operand (cuobjdump) or a label
/// defined in the kernel (nvdisasm), whichever comes last.
pub fn branch_target(kernel: &Kernel, inst: &Instruction) -> Option<u64> {
    target_with(&labels(kernel), inst)
}

fn target_with(labels: &Labels<'_>, inst: &Instruction) -> Option<u64> {
    inst.operands.iter().rev().find_map(|o| match &o.kind {
        OperandKind::Int(v) => u64::try_from(*v).ok(),
        OperandKind::Label(l) => labels.get(l.as_str()).copied(),
        _ => None,
    })
}

/// Classes, reach, blocks, loops and counts of one kernel.
pub fn analyze(kernel: &Kernel) -> KernelAnalysis {
    let insts = &kernel.instructions;
    let labels = labels(kernel);
    let classes: Vec<Class> = insts.iter().map(|i| Class::of(&i.opcode)).collect();
    let targets: Vec<Option<u64>> = insts
        .iter()
        .zip(&classes)
        .map(|(i, c)| match c {
            Class::Branch | Class::Call => target_with(&labels, i),
            _ => None,
        })
        .collect();
    let reach = reach(kernel, &classes, &targets);
    let blocks = blocks(kernel, &labels, &classes, &targets);
    let loops = loops(kernel, &classes, &targets, &reach);
    let mut body = ClassCounts::default();
    let mut all = ClassCounts::default();
    for (c, r) in classes.iter().zip(&reach) {
        if r.runs() {
            all.add(*c);
        }
        if *r == Reach::Body {
            body.add(*c);
        }
    }
    KernelAnalysis {
        name: kernel.name.clone(),
        classes,
        reach,
        targets,
        blocks,
        loops,
        body,
        all,
    }
}

fn reach(kernel: &Kernel, classes: &[Class], targets: &[Option<u64>]) -> Vec<Reach> {
    let insts = &kernel.instructions;
    let subroutines_from = classes
        .iter()
        .zip(targets)
        .filter(|(c, _)| **c == Class::Call)
        .filter_map(|(_, t)| *t)
        .min();
    let mut reach: Vec<Reach> = insts
        .iter()
        .zip(classes)
        .map(|(i, c)| {
            if *c == Class::Nop {
                Reach::Padding
            } else if subroutines_from.is_some_and(|s| i.address >= s) {
                Reach::Subroutine
            } else {
                Reach::Body
            }
        })
        .collect();
    // Self-branches at the end, behind the padding: the trap after the last EXIT (or RET of
    // the last subroutine).
    for (k, i) in insts.iter().enumerate().rev() {
        match classes[k] {
            Class::Nop => continue,
            Class::Branch if i.predicate.is_none() && targets[k] == Some(i.address) => {
                reach[k] = Reach::Trap;
            }
            _ => break,
        }
    }
    reach
}

/// Whether control never falls through to the next instruction.
fn ends_flow(inst: &Instruction, class: Class) -> bool {
    // `@PT` is always true; `@!PT` never, but ptxas does not emit it on control flow.
    let unconditional = inst
        .predicate
        .as_ref()
        .is_none_or(|p| p.register == "PT" && !p.negated);
    unconditional && matches!(class, Class::Branch | Class::Exit)
}

/// Instruction indices a branch or call at `k` can go to: its direct target, or the
/// `BRANCH_TARGETS` of an indirect branch.
fn jump_targets<'a>(
    kernel: &'a Kernel,
    labels: &'a Labels<'a>,
    k: usize,
    targets: &'a [Option<u64>],
) -> impl Iterator<Item = usize> + 'a {
    let listed = kernel.instructions[k]
        .branch_targets
        .iter()
        .filter_map(|l| labels.get(l.as_str()).copied());
    targets[k]
        .into_iter()
        .chain(listed)
        .filter_map(|a| kernel.index_of(a))
}

fn blocks(
    kernel: &Kernel,
    labels: &Labels<'_>,
    classes: &[Class],
    targets: &[Option<u64>],
) -> Vec<Block> {
    let insts = &kernel.instructions;
    if insts.is_empty() {
        return Vec::new();
    }
    let mut leader = vec![false; insts.len()];
    leader[0] = true;
    for (k, c) in classes.iter().enumerate() {
        if matches!(c, Class::Branch | Class::Exit) && k + 1 < insts.len() {
            leader[k + 1] = true;
        }
        if *c == Class::Branch || *c == Class::Call {
            for t in jump_targets(kernel, labels, k, targets) {
                leader[t] = true;
            }
        }
    }
    let starts: Vec<usize> = (0..insts.len()).filter(|&k| leader[k]).collect();
    let block_of = |idx: usize| starts.partition_point(|&s| s <= idx).saturating_sub(1);
    starts
        .iter()
        .enumerate()
        .map(|(b, &start)| {
            let end = starts.get(b + 1).copied().unwrap_or(insts.len());
            let last = end - 1;
            let mut successors = Vec::new();
            if !ends_flow(&insts[last], classes[last]) && end < insts.len() {
                successors.push(b + 1);
            }
            if classes[last] == Class::Branch {
                for t in jump_targets(kernel, labels, last, targets) {
                    let tb = block_of(t);
                    if !successors.contains(&tb) {
                        successors.push(tb);
                    }
                }
            }
            Block {
                start,
                end,
                address: insts[start].address,
                successors,
            }
        })
        .collect()
}

fn loops(
    kernel: &Kernel,
    classes: &[Class],
    targets: &[Option<u64>],
    reach: &[Reach],
) -> Vec<Loop> {
    let insts = &kernel.instructions;
    // Header address → (header index, latch index): the last back edge wins.
    let mut by_header: BTreeMap<u64, (usize, usize)> = BTreeMap::new();
    for (k, i) in insts.iter().enumerate() {
        if classes[k] != Class::Branch || reach[k] == Reach::Trap {
            continue;
        }
        let Some(t) = targets[k] else { continue };
        if t > i.address {
            continue;
        }
        let Some(h) = kernel.index_of(t) else {
            continue;
        };
        let e = by_header.entry(t).or_insert((h, k));
        e.1 = e.1.max(k);
    }
    by_header
        .into_iter()
        .map(|(header, (start, end))| {
            let mut counts = ClassCounts::default();
            for k in start..=end {
                if reach[k].runs() {
                    counts.add(classes[k]);
                }
            }
            Loop {
                header,
                latch: insts[end].address,
                start,
                end,
                counts,
            }
        })
        .collect()
}
