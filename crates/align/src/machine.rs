//! What one kernel's machine code says, loop by loop: for each loop of the listing (back
//! edges, `sass::analysis`) the instructions it runs itself (not those of loops inside it),
//! their source lines, the bytes its global loads move per lane, its local-memory accesses
//! (spills) and which of its global loads reuse the previous load's destination register.

use std::collections::BTreeSet;

use sass::analysis::{analyze, Class, KernelAnalysis};
use sass::{Instruction, Kernel, OperandKind};

/// A source position compared between the PTX's `.loc` and the listing's line info: the
/// file's base name (ptxas prints the `.file` path; PTX tables may hold another prefix) and
/// the line.
pub type Line = (String, u32);

/// A local-memory instruction: a spill store or reload (or a local array access) of `bytes`
/// per lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalAccess {
    pub store: bool,
    pub bytes: u32,
}

/// One loop of the machine code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineLoop {
    /// Address of the loop's first instruction.
    pub header: u64,
    /// The source lines of the instructions the loop runs itself.
    pub lines: BTreeSet<Line>,
    /// Bytes per lane its global loads (`LDG`) move in one iteration.
    pub load_bytes: u32,
    /// Its global loads in order: whether each writes a register the previous one wrote
    /// (ptxas gave both one destination, so the second waits until the first's data was read).
    pub reused_destination: Vec<bool>,
    /// Its local-memory accesses in order.
    pub local: Vec<LocalAccess>,
    /// The most bytes per lane of global loads in flight at once in one pass: a load is in
    /// flight from its issue until an instruction reads one of its destination registers.
    /// ptxas, short of registers, interleaves the loads of an unrolled loop with their uses;
    /// this says how many iterations' loads it keeps in flight.
    pub in_flight_bytes: u32,
    /// Its global loads in order: whether each starts a group of loads the warp issues
    /// together, that is whether an instruction since the previous load read the data of a
    /// load still in flight (the warp waits there, and the loads after it do not overlap
    /// those before it).
    pub load_groups: Vec<bool>,
    /// Its FP32 and integer instructions, and those of them with a register bank conflict
    /// ([`bank_conflict`]).
    pub arithmetic: Arithmetic,
    /// The source lines of the instructions it runs itself, in the listing's order (one per
    /// instruction with line info): the order ptxas scheduled the source's work in.
    pub line_order: Vec<Line>,
}

/// FP32 and integer instructions of a region and how many read two registers of one bank.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Arithmetic {
    pub instructions: u32,
    pub conflicts: u32,
}

impl Arithmetic {
    fn count(&mut self, inst: &Instruction, class: Class) {
        if matches!(class, Class::Fp32 | Class::Int) {
            self.instructions += 1;
            self.conflicts += u32::from(bank_conflict(inst));
        }
    }

    /// The conflicting share in thousandths.
    pub fn share(&self) -> u16 {
        (u64::from(self.conflicts) * 1000)
            .checked_div(u64::from(self.instructions))
            .map_or(0, |s| s.min(1000) as u16)
    }
}

/// Whether an instruction with three register sources reads two of them from one register
/// bank: since Volta the register file has two banks, by the register number's parity, and an
/// operand the instruction takes from the reuse cache (`.reuse`) reads no bank. Measured on
/// the H100: `uneven_fma`'s chain `FFMA R10, R10, R4, R5` (R10 and R4 even) runs at 2.10
/// warp instructions per cycle and SM, `branch_fma`'s `FFMA R8, R8, R2.reuse, R3.reuse` at
/// 3.82, of 4 (bench/uneven_suite, bench/branch_suite counters at 8 blocks per SM). Two
/// sources are not counted: no measurement says they conflict.
pub fn bank_conflict(inst: &Instruction) -> bool {
    // (register number, taken from the reuse cache) of each source naming an R register
    // other than RZ; the first operand is the destination.
    let sources: Vec<(u32, bool)> = inst
        .operands
        .iter()
        .skip(1)
        .filter_map(|o| match &o.kind {
            OperandKind::Register(name) => name
                .strip_prefix('R')?
                .parse::<u32>()
                .ok()
                .map(|n| (n, o.text.contains(".reuse"))),
            _ => None,
        })
        .collect();
    if sources.len() < 3 {
        return false;
    }
    let mut read: Vec<u32> = sources
        .iter()
        .filter(|&&(_, reused)| !reused)
        .map(|&(n, _)| n)
        .collect();
    read.sort_unstable();
    read.dedup();
    let even = read.iter().filter(|&&n| n % 2 == 0).count();
    even >= 2 || read.len() - even >= 2
}

/// The loops of one kernel's machine code, in address order, and the local-memory accesses
/// outside every loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineCode {
    pub loops: Vec<MachineLoop>,
    pub outside_local: Vec<LocalAccess>,
    /// The global loads outside every loop in order, each saying whether it starts a group
    /// (as [`MachineLoop::load_groups`]): ptxas issues a straight run's loads before their
    /// uses where it has the registers and no branch comes between (a 17-row column
    /// convolution: one group of 17).
    pub outside_load_groups: Vec<bool>,
    /// The FP32 and integer instructions outside every loop ([`MachineLoop::arithmetic`]).
    pub outside_arithmetic: Arithmetic,
    /// Whether any instruction carries line info (nvdisasm `-g`/`-gi`).
    pub has_lines: bool,
}

/// Bytes per lane of a load or store by its width modifier (none: 32 bits).
fn access_bytes(inst: &Instruction) -> u32 {
    for m in &inst.modifiers {
        match m.as_str() {
            "128" => return 16,
            "64" => return 8,
            "U16" | "S16" => return 2,
            "U8" | "S8" => return 1,
            _ => {}
        }
    }
    4
}

/// The file's base name: ptxas prints the path of the PTX's `.file` entry.
pub fn base_name(file: &str) -> &str {
    file.rsplit(['/', '\\']).next().unwrap_or(file)
}

/// The registers `R<n>` .. `R<n + width - 1>` a load's first operand writes.
fn destination(inst: &Instruction) -> Option<(u32, u32)> {
    let first = inst.operands.first()?;
    let OperandKind::Register(name) = &first.kind else {
        return None;
    };
    let n: u32 = name.strip_prefix('R')?.parse().ok()?;
    Some((n, access_bytes(inst).div_ceil(4)))
}

/// The `R` registers an instruction reads: every register operand but a destination (the
/// first operand, except of stores, reductions and branches, whose operands are all read),
/// and the registers inside memory operands (`desc[UR4][R2.64+0x10]`: R2 and R3).
fn registers_read(inst: &Instruction, class: Class) -> Vec<u32> {
    let all_read = matches!(
        class,
        Class::GlobalStore
            | Class::SharedStore
            | Class::LocalStore
            | Class::GenericStore
            | Class::Branch
    ) || inst.opcode == "RED";
    let mut out = Vec::new();
    for (k, op) in inst.operands.iter().enumerate() {
        match &op.kind {
            OperandKind::Register(name) if k > 0 || all_read => {
                if let Some(n) = name.strip_prefix('R').and_then(|n| n.parse::<u32>().ok()) {
                    out.push(n);
                }
            }
            OperandKind::Memory => {
                for part in op
                    .text
                    .split(|c: char| !c.is_ascii_alphanumeric() && c != '.')
                {
                    let Some(rest) = part.strip_prefix('R') else {
                        continue;
                    };
                    let (num, wide) = match rest.split_once('.') {
                        Some((n, w)) => (n, w == "64"),
                        None => (rest, false),
                    };
                    if let Ok(n) = num.parse::<u32>() {
                        out.push(n);
                        if wide {
                            out.push(n + 1);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

impl MachineCode {
    /// Reads `kernel`'s loops.
    pub fn of(kernel: &Kernel) -> MachineCode {
        let a = analyze(kernel);
        MachineCode::from_analysis(kernel, &a)
    }

    fn from_analysis(kernel: &Kernel, a: &KernelAnalysis) -> MachineCode {
        let insts = &kernel.instructions;
        // The innermost loop around each instruction: the one with the latest start among
        // those whose range holds it (ranges nest: ptxas' loops are reducible).
        let owner = |i: usize| {
            a.loops
                .iter()
                .enumerate()
                .filter(|(_, l)| l.start <= i && i <= l.end)
                .max_by_key(|(_, l)| (l.start, std::cmp::Reverse(l.end)))
                .map(|(k, _)| k)
        };
        let mut loops: Vec<MachineLoop> = a
            .loops
            .iter()
            .map(|l| MachineLoop {
                header: l.header,
                lines: BTreeSet::new(),
                load_bytes: 0,
                reused_destination: Vec::new(),
                local: Vec::new(),
                in_flight_bytes: 0,
                load_groups: Vec::new(),
                arithmetic: Arithmetic::default(),
                line_order: Vec::new(),
            })
            .collect();
        // Per loop: the loads in flight, as (first register, registers, bytes).
        let mut in_flight: Vec<Flight> = vec![Flight::default(); loops.len()];
        let mut previous_load: Vec<Option<(u32, u32)>> = vec![None; loops.len()];
        let mut outside_local = Vec::new();
        let mut outside = Flight::default();
        let mut outside_arithmetic = Arithmetic::default();
        let mut has_lines = false;
        for (i, inst) in insts.iter().enumerate() {
            if a.reach[i] != sass::analysis::Reach::Body {
                continue;
            }
            has_lines |= inst.source.is_some();
            let class = a.classes[i];
            let local =
                matches!(class, Class::LocalLoad | Class::LocalStore).then(|| LocalAccess {
                    store: class == Class::LocalStore,
                    bytes: access_bytes(inst),
                });
            let reads = registers_read(inst, class);
            let Some(k) = owner(i) else {
                outside_local.extend(local);
                outside.step(inst, class, &reads);
                outside_arithmetic.count(inst, class);
                continue;
            };
            let l = &mut loops[k];
            l.arithmetic.count(inst, class);
            in_flight[k].step(inst, class, &reads);
            if let Some(s) = &inst.source {
                let line = (base_name(&s.file).to_string(), s.line);
                l.lines.insert(line.clone());
                l.line_order.push(line);
            }
            l.local.extend(local);
            if class == Class::GlobalLoad {
                l.load_bytes += access_bytes(inst);
                let dest = destination(inst);
                let reused = match (previous_load[k], dest) {
                    (Some((p, pw)), Some((d, dw))) => d < p + pw && p < d + dw,
                    _ => false,
                };
                l.reused_destination.push(reused);
                previous_load[k] = dest;
            }
        }
        for (l, f) in loops.iter_mut().zip(in_flight) {
            l.in_flight_bytes = f.most_bytes;
            l.load_groups = f.groups;
        }
        MachineCode {
            loops,
            outside_local,
            outside_load_groups: outside.groups,
            outside_arithmetic,
            has_lines,
        }
    }
}

/// The global loads in flight in one region (a loop's own instructions, or those outside
/// every loop), followed instruction by instruction.
#[derive(Debug, Clone, Default)]
struct Flight {
    /// In flight: (first register, registers, bytes per lane).
    loads: Vec<(u32, u32, u32)>,
    /// An instruction read a load in flight since the last load.
    waited: bool,
    most_bytes: u32,
    /// Per load: whether it starts a group.
    groups: Vec<bool>,
}

impl Flight {
    /// One instruction of class `class` reading `reads`: a load leaves when an instruction
    /// reads one of its registers, and a global load enters.
    fn step(&mut self, inst: &Instruction, class: Class, reads: &[u32]) {
        let before = self.loads.len();
        self.loads
            .retain(|&(r, w, _)| !reads.iter().any(|&x| r <= x && x < r + w));
        self.waited |= self.loads.len() < before;
        if class != Class::GlobalLoad {
            return;
        }
        self.groups.push(self.groups.is_empty() || self.waited);
        self.waited = false;
        if let Some((r, w)) = destination(inst) {
            self.loads.push((r, w, access_bytes(inst)));
        }
        let bytes = self.loads.iter().map(|&(_, _, b)| b).sum();
        self.most_bytes = self.most_bytes.max(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTING: &str = "\t.section\t.text.k,\"ax\",@progbits
k:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   STL [R1], R4 ;
.L_x_0:
\t//## File \"/x/k.py\", line 7
        /*0020*/                   LDG.E.128 R8, desc[UR4][R2.64] ;
        /*0030*/                   LDG.E R9, desc[UR4][R2.64+0x10] ;
        /*0040*/                   LDG.E R12, desc[UR4][R2.64+0x20] ;
\t//## File \"/x/k.py\", line 8
        /*0050*/                   LDL.64 R6, [R1+0x8] ;
        /*0060*/               @P0 BRA `(.L_x_0) ;
        /*0070*/                   EXIT ;
.L_x_1:
        /*0080*/                   BRA `(.L_x_1);
";

    #[test]
    fn loads_leave_flight_when_their_data_is_read() {
        let text = "\t.section\t.text.k,\"ax\",@progbits\nk:\n.L_x_0:\n\
            \x20       /*0000*/                   LDG.E R4, desc[UR4][R2.64] ;\n\
            \x20       /*0010*/                   LDG.E.64 R6, desc[UR4][R2.64+0x4] ;\n\
            \x20       /*0020*/                   FADD R10, R4, R10 ;\n\
            \x20       /*0030*/                   LDG.E R8, desc[UR4][R4.64] ;\n\
            \x20       /*0040*/                   STG.E desc[UR4][R2.64], R7 ;\n\
            \x20       /*0050*/                   LDG.E R9, desc[UR4][R2.64+0x8] ;\n\
            \x20       /*0060*/               @P0 BRA `(.L_x_0) ;\n\
            \x20       /*0070*/                   EXIT ;\n";
        let listing = sass::parse_listing(text).unwrap();
        let m = MachineCode::of(&listing.kernels[0]);
        // 4 + 8 in flight, R4 read (8 left), + 4 = 12; the store reads R7 (4 left), + 4.
        assert_eq!(m.loops[0].in_flight_bytes, 12);
    }

    fn instruction(text: &str) -> Instruction {
        let listing = sass::parse_listing(&format!(
            "\t.section\t.text.k,\"ax\",@progbits\nk:\n        /*0000*/                   {text} ;\n"
        ))
        .unwrap();
        listing.kernels[0].instructions[0].clone()
    }

    #[test]
    fn three_sources_two_in_one_bank_past_the_reuse_cache_conflict() {
        // R10 and R4 even; R8 the only bank read where R2 and R3 come from the reuse cache.
        assert!(bank_conflict(&instruction("FFMA R10, R10, R4, R5")));
        assert!(!bank_conflict(&instruction(
            "FFMA R8, R8, R2.reuse, R3.reuse"
        )));
        assert!(!bank_conflict(&instruction("FFMA R8, R9, R2, R3.reuse")));
        assert!(bank_conflict(&instruction("IMAD R4, R9, R11, R6")));
        // Two register sources, RZ and immediates: not counted.
        assert!(!bank_conflict(&instruction("FADD R4, R6, R8")));
        assert!(!bank_conflict(&instruction("IADD3 R8, R8, -0x4, RZ")));
        assert!(!bank_conflict(&instruction("IMAD R4, R0, UR4, R7")));
        // One register read three times is one read.
        assert!(!bank_conflict(&instruction("FFMA R4, R5, R5, R5")));
    }

    #[test]
    fn a_loops_arithmetic_share_of_conflicts() {
        let text = "\t.section\t.text.k,\"ax\",@progbits\nk:\n\
            \x20       /*0000*/                   FFMA R10, R10, R4, R5 ;\n\
            .L_x_0:\n\
            \x20       /*0010*/                   FFMA R10, R10, R4, R5 ;\n\
            \x20       /*0020*/                   FFMA R12, R12, R4.reuse, R5.reuse ;\n\
            \x20       /*0030*/                   IADD3 R8, R8, -0x1, RZ ;\n\
            \x20       /*0040*/                   ISETP.NE.AND P0, PT, R8, RZ, PT ;\n\
            \x20       /*0050*/               @P0 BRA `(.L_x_0) ;\n\
            \x20       /*0060*/                   EXIT ;\n";
        let listing = sass::parse_listing(text).unwrap();
        let m = MachineCode::of(&listing.kernels[0]);
        assert_eq!(
            m.loops[0].arithmetic,
            Arithmetic {
                instructions: 4,
                conflicts: 1
            }
        );
        assert_eq!(m.loops[0].arithmetic.share(), 250);
        assert_eq!(m.outside_arithmetic.share(), 1000);
    }

    #[test]
    fn a_load_after_a_wait_for_loaded_data_starts_a_group() {
        let text = "\t.section\t.text.k,\"ax\",@progbits\nk:\n\
            \x20       /*0000*/                   LDG.E R4, desc[UR4][R2.64] ;\n\
            \x20       /*0010*/                   LDG.E R5, desc[UR4][R2.64+0x4] ;\n\
            \x20       /*0020*/                   FADD R10, R4, R10 ;\n\
            \x20       /*0030*/                   LDG.E R6, desc[UR4][R2.64+0x8] ;\n\
            \x20       /*0040*/                   FADD R11, R3, R10 ;\n\
            \x20       /*0050*/                   LDG.E R7, desc[UR4][R2.64+0xc] ;\n\
            \x20       /*0060*/                   EXIT ;\n";
        let listing = sass::parse_listing(text).unwrap();
        let m = MachineCode::of(&listing.kernels[0]);
        assert!(m.loops.is_empty());
        // R4's use comes between the second and third load; R3 is no load's.
        assert_eq!(m.outside_load_groups, vec![true, false, true, false]);
    }

    #[test]
    fn loops_lines_loads_and_spills() {
        let listing = sass::parse_listing(LISTING).unwrap();
        let m = MachineCode::of(&listing.kernels[0]);
        assert!(m.has_lines);
        assert_eq!(
            m.outside_local,
            vec![LocalAccess {
                store: true,
                bytes: 4
            }]
        );
        assert_eq!(m.loops.len(), 1);
        let l = &m.loops[0];
        assert_eq!(l.header, 0x20);
        assert_eq!(l.load_bytes, 16 + 4 + 4);
        // R9 lies inside R8..R11; R12 does not overlap R9.
        assert_eq!(l.reused_destination, vec![false, true, false]);
        // Nothing reads a loaded register before the latch: all 24 bytes in flight.
        assert_eq!(l.in_flight_bytes, 24);
        assert_eq!(
            l.local,
            vec![LocalAccess {
                store: false,
                bytes: 8
            }]
        );
        let lines: Vec<_> = l.lines.iter().map(|(f, n)| (f.as_str(), *n)).collect();
        assert_eq!(lines, vec![("k.py", 7), ("k.py", 8)]);
    }
}
