//! The instruction-class taxonomy: the closed set of classes mapper f sorts every PTX
//! instruction into, the memory levels, and the documented rule that fills each class a
//! profile file does not list (docs/gpu-profile.md, "Derivation rules").
//!
//! Invariants: `InstClass::ALL` is closed and every class has exactly one `Rule`; following
//! rules from any class ends at a `Required` class or a memory level in a bounded number of
//! steps (the rules form a DAG; `tests::rules_are_acyclic` checks it). The required classes
//! are exactly the compute rows of Table 5 of pipeline-model-analysis; the required memory
//! levels are its two memory rows.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! classes {
    ($($(#[$m:meta])* $var:ident = $s:literal => $rule:expr),* $(,)?) => {
        /// An instruction class: what mapper f decides from the opcode and its typed modifiers.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum InstClass { $($(#[$m])* $var),* }

        impl InstClass {
            /// Every class, in taxonomy order.
            pub const ALL: &'static [InstClass] = &[$(InstClass::$var),*];

            /// The class name used in profile files and output (`f32.mul`).
            pub fn name(self) -> &'static str {
                match self { $(InstClass::$var => $s),* }
            }

            pub fn from_name(s: &str) -> Option<InstClass> {
                match s { $($s => Some(InstClass::$var),)* _ => None }
            }

            /// How the class is filled when a profile file does not list it.
            pub fn rule(self) -> Rule {
                use InstClass::*;
                #[allow(unused_imports)]
                use MemLevel::*;
                match self { $(InstClass::$var => $rule),* }
            }
        }
    };
}

/// How a class missing from a profile file is derived. Ratios are exact integers (`num/den`),
/// applied to `Cycles` ticks with round-half-up, so derived values are reproducible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// A Table 5 row: the file must give it.
    Required,
    /// Same subsystem, λ and Λ as `0`.
    SameAs(InstClass),
    /// `0`'s subsystem; λ scaled by `lambda.0/lambda.1`, Λ by `latency.0/latency.1`.
    Scaled {
        base: InstClass,
        lambda: (u64, u64),
        latency: (u64, u64),
    },
    /// The memory level's λ and Λ scaled by the two ratios, on the profile's memory subsystem.
    Memory {
        level: MemLevel,
        lambda: (u64, u64),
        latency: (u64, u64),
    },
    /// The slowest arithmetic class of the profile (largest λ, then largest Λ) among the
    /// `f32.*`, `f64.*`, `f16.*`, `int.*` and `sfu.*` classes: the conservative choice for
    /// instructions mapper f cannot classify.
    SlowestArithmetic,
}

const ONE: (u64, u64) = (1, 1);

const fn mem(level: MemLevel) -> Rule {
    Rule::Memory {
        level,
        lambda: ONE,
        latency: ONE,
    }
}

const fn scaled(base: InstClass, lambda: (u64, u64), latency: (u64, u64)) -> Rule {
    Rule::Scaled {
        base,
        lambda,
        latency,
    }
}

classes! {
    // --- single precision ---
    /// add/sub/min/max/abs/neg/copysign/testp on f32 (and f32x2).
    F32Add = "f32.add" => Rule::SameAs(F32Mul),
    F32Mul = "f32.mul" => Rule::Required,
    /// fma.f32 and mad.f32.
    F32Fma = "f32.fma" => Rule::SameAs(F32Mul),
    /// div.f32 in every rounding/approximation mode.
    F32Div = "f32.div" => Rule::Required,
    /// sqrt.rn/rz/rm/rp.f32 (IEEE: an iterative sequence like division).
    F32Sqrt = "f32.sqrt" => Rule::SameAs(F32Div),
    /// rcp.rn/rz/rm/rp.f32 (IEEE).
    F32Rcp = "f32.rcp" => Rule::SameAs(F32Div),
    // --- special function unit (approximations) ---
    SfuSin = "sfu.sin" => Rule::SameAs(SfuCos),
    SfuCos = "sfu.cos" => Rule::Required,
    SfuEx2 = "sfu.ex2" => Rule::SameAs(SfuCos),
    SfuLg2 = "sfu.lg2" => Rule::SameAs(SfuCos),
    /// rcp.approx.f32.
    SfuRcp = "sfu.rcp" => Rule::SameAs(SfuCos),
    /// rsqrt.approx.f32.
    SfuRsqrt = "sfu.rsqrt" => Rule::SameAs(SfuCos),
    /// sqrt.approx.f32: a reciprocal square root then a reciprocal, two dependent SFU ops.
    SfuSqrt = "sfu.sqrt" => scaled(SfuCos, (2, 1), (2, 1)),
    SfuTanh = "sfu.tanh" => Rule::SameAs(SfuCos),
    // --- double precision ---
    F64Add = "f64.add" => Rule::SameAs(F64Mul),
    F64Mul = "f64.mul" => Rule::Required,
    F64Fma = "f64.fma" => Rule::SameAs(F64Mul),
    /// Table 5 lists it except for Turing; the rule is the median div/mul ratio of the five
    /// GPUs that list it (λ: 6.5, Λ: 9.7).
    F64Div = "f64.div" => scaled(F64Mul, (13, 2), (97, 10)),
    F64Sqrt = "f64.sqrt" => Rule::SameAs(F64Div),
    /// rcp.f64 and rcp.approx.ftz.f64, rsqrt.approx.f64.
    F64Rcp = "f64.rcp" => Rule::SameAs(F64Div),
    // --- half precision ---
    /// Every f16/f16x2/bf16/bf16x2 arithmetic instruction.
    F16Arith = "f16.arith" => Rule::SameAs(F32Mul),
    // --- integer ---
    /// add/sub/min/max/abs/neg/addc/subc on integers.
    IntAdd = "int.add" => Rule::SameAs(F32Mul),
    /// mul/mul24 (.lo/.hi/.wide) on integers.
    IntMul = "int.mul" => Rule::Required,
    /// mad/mad24/madc/sad/dp4a/dp2a and the video instructions.
    IntMad = "int.mad" => Rule::SameAs(IntMul),
    IntDiv = "int.div" => Rule::Required,
    IntRem = "int.rem" => Rule::SameAs(IntDiv),
    /// and/or/xor/not/cnot/lop3 (also on predicates).
    IntLogic = "int.logic" => Rule::SameAs(IntAdd),
    /// shl/shr/shf.
    IntShift = "int.shift" => Rule::SameAs(IntAdd),
    /// popc/clz/bfind/fns/brev/bfe/bfi/bmsk/szext/prmt: reduced-rate bit manipulation.
    IntBits = "int.bits" => Rule::SameAs(IntMul),
    // --- compare, select, convert, move ---
    /// setp and set.
    Setp = "setp" => Rule::SameAs(IntAdd),
    /// selp and slct.
    Selp = "selp" => Rule::SameAs(IntAdd),
    /// cvt with a floating-point source or destination.
    Cvt = "cvt" => Rule::SameAs(SfuCos),
    /// cvt between f16 (or f16x2) and f32: on NVIDIA GPUs since Volta an FP16 add with an
    /// f32 result or a pack of two (HADD2.F32, F2FP.PACK_AB), not a conversion unit's op.
    /// Profiles that do not measure it take the other float conversions' rate.
    CvtF16 = "cvt.f16" => Rule::SameAs(Cvt),
    /// cvt between integer types, cvta, isspacep.
    CvtInt = "cvt.int" => Rule::SameAs(IntAdd),
    /// mov (also of special registers and addresses).
    Mov = "mov" => Rule::SameAs(IntAdd),
    // --- warp-level ---
    /// shfl, match, redux: cross-lane exchange through the shared-memory crossbar.
    Shfl = "shfl" => mem(Shared),
    /// vote, activemask, elect.
    Vote = "vote" => Rule::SameAs(IntAdd),
    // --- atomics ---
    /// atom/red on global (or generic) memory: resolved in the L2.
    AtomGlobal = "atom.global" => mem(L2),
    /// atom/red on shared memory: a read-modify-write, two shared accesses.
    AtomShared = "atom.shared" => Rule::Memory { level: Shared, lambda: (2, 1), latency: (2, 1) },
    // --- loads and stores ---
    /// ld/ldu on global or generic memory, texture and surface loads; mapper g refines it.
    LdGlobal = "ld.global" => mem(Dram),
    StGlobal = "st.global" => Rule::SameAs(LdGlobal),
    /// ld.shared and ldmatrix.
    LdShared = "ld.shared" => mem(Shared),
    /// st.shared and stmatrix.
    StShared = "st.shared" => Rule::SameAs(LdShared),
    LdLocal = "ld.local" => mem(Local),
    StLocal = "st.local" => Rule::SameAs(LdLocal),
    LdConst = "ld.const" => mem(Constant),
    /// Kernel parameters live in a constant bank.
    LdParam = "ld.param" => Rule::SameAs(LdConst),
    StParam = "st.param" => Rule::SameAs(LdParam),
    /// cp.async (global to shared); its cost is the global read.
    CpAsync = "cp.async" => Rule::SameAs(LdGlobal),
    // --- tensor cores ---
    /// mma/wmma.mma/wgmma, per m16n8k16-equivalent: 2048 FMAs at 8x the FMA cost of one
    /// warp-wide fma (Ampere: 1024 FP16 FMA/clk/SM vs 128 FP32 FMA/clk/SM).
    TensorMma = "tensor.mma" => scaled(F32Fma, (8, 1), (8, 1)),
    /// wgmma.mma_async, per m16n8k16-equivalent of the warpgroup's instruction (N/2 for a
    /// m64nNk16 of any input type); each warp's node is a quarter of it (crate::fragment).
    /// Profiles that do not measure it take mma.sync's rate.
    TensorWgmma = "tensor.wgmma" => Rule::SameAs(TensorMma),
    // --- synchronization and control ---
    /// bar.sync/bar.red/bar.arrive/barrier.*.
    BarSync = "bar.sync" => Rule::Required,
    /// membar/fence: ordered like a barrier (no paper measures a fence).
    Fence = "fence" => Rule::SameAs(BarSync),
    /// bra/brx/call/ret/exit.
    Branch = "branch" => Rule::SameAs(IntAdd),
    /// Hints and bookkeeping: prefetch, createpolicy, nanosleep, mbarrier, cp.async.commit/wait,
    /// bar.warp.sync, griddepcontrol, setmaxnreg, trap, ...
    Misc = "misc" => Rule::SameAs(IntAdd),
    /// Opcodes mapper f cannot classify.
    Unknown = "unknown" => Rule::SlowestArithmetic,
}

impl InstClass {
    /// True for the arithmetic families the conservative `unknown` class is drawn from.
    pub fn is_arithmetic(self) -> bool {
        let n = self.name();
        ["f32.", "f64.", "f16.", "int.", "sfu."]
            .iter()
            .any(|p| n.starts_with(p))
    }
}

impl fmt::Display for InstClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for InstClass {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for InstClass {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<InstClass, D::Error> {
        let s = String::deserialize(d)?;
        InstClass::from_name(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown instruction class `{s}`")))
    }
}

/// Memory levels of a profile's `[memory]` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemLevel {
    Dram,
    L2,
    L1,
    Shared,
    Local,
    Constant,
}

/// How a memory level missing from a profile file is derived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemRule {
    Required,
    /// Another level's λ and Λ scaled by the two ratios.
    From {
        level: MemLevel,
        lambda: (u64, u64),
        latency: (u64, u64),
    },
}

impl MemLevel {
    pub const ALL: &'static [MemLevel] = &[
        MemLevel::Dram,
        MemLevel::L2,
        MemLevel::L1,
        MemLevel::Shared,
        MemLevel::Local,
        MemLevel::Constant,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MemLevel::Dram => "dram",
            MemLevel::L2 => "l2",
            MemLevel::L1 => "l1",
            MemLevel::Shared => "shared",
            MemLevel::Local => "local",
            MemLevel::Constant => "constant",
        }
    }

    pub fn from_name(s: &str) -> Option<MemLevel> {
        MemLevel::ALL.iter().copied().find(|l| l.name() == s)
    }

    /// Table 5 gives `dram` (its `ld.global.s32` row) and `shared` (its `ld.local.s32` row:
    /// OpenCL local memory is CUDA shared memory). The rest follow docs/gpu-profile.md.
    pub fn rule(self) -> MemRule {
        let same = |level| MemRule::From {
            level,
            lambda: ONE,
            latency: ONE,
        };
        match self {
            MemLevel::Dram | MemLevel::Shared => MemRule::Required,
            // An L2 hit costs about half a DRAM access in latency (microbenchmarks of
            // Pascal/Volta/Turing: L2/DRAM latency 0.43-0.51) and the L2 delivers about
            // twice the DRAM bandwidth.
            MemLevel::L2 => MemRule::From {
                level: MemLevel::Dram,
                lambda: (1, 2),
                latency: (1, 2),
            },
            // L1 and shared memory are the same on-chip SRAM.
            MemLevel::L1 => same(MemLevel::Shared),
            // Local memory (spills) hits in L1; the constant cache answers like L1.
            MemLevel::Local | MemLevel::Constant => same(MemLevel::L1),
        }
    }
}

impl fmt::Display for MemLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &c in InstClass::ALL {
            assert_eq!(InstClass::from_name(c.name()), Some(c));
        }
        for &l in MemLevel::ALL {
            assert_eq!(MemLevel::from_name(l.name()), Some(l));
        }
    }

    #[test]
    fn rules_are_acyclic() {
        for &c in InstClass::ALL {
            let mut cur = c;
            for _ in 0..=InstClass::ALL.len() {
                match cur.rule() {
                    Rule::SameAs(b) | Rule::Scaled { base: b, .. } => cur = b,
                    _ => break,
                }
            }
            assert!(
                !matches!(cur.rule(), Rule::SameAs(_) | Rule::Scaled { .. }),
                "cycle from {c}"
            );
        }
    }

    #[test]
    fn required_classes_are_the_table5_compute_rows() {
        let req: Vec<&str> = InstClass::ALL
            .iter()
            .filter(|c| c.rule() == Rule::Required)
            .map(|c| c.name())
            .collect();
        assert_eq!(
            req,
            ["f32.mul", "f32.div", "sfu.cos", "f64.mul", "int.mul", "int.div", "bar.sync"]
        );
    }
}
