//! Mapper f (pipeline-model-analysis §3.1.3, §4.3): PTX opcode + typed modifiers →
//! instruction class → (subsystem, λ, Λ) of a GPU profile.
//!
//! `classify` is a pure function of `ptx::ast::Op`; it returns `None` only for opcodes or
//! type combinations outside the taxonomy of docs/gpu-profile.md, which then take the
//! conservative `unknown` class (source `Conservative`) and are reported once per mnemonic
//! with every PTX line where they occur. Nothing here panics on any `Op`.

use crate::class::InstClass;
use crate::profile::GpuProfile;
use crate::timing::{MapSource, NodeTiming};
use ptx::ast::{Flag, Op, Opcode, ScalarType, StateSpace};
use std::collections::BTreeMap;
use std::fmt;

/// The numeric family of an instruction's (first) type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    F16,
    F32,
    F64,
    Int,
    Pred,
    Other,
}

fn kind(t: ScalarType) -> Kind {
    use ScalarType::*;
    match t {
        F32 | F32x2 | Tf32 => Kind::F32,
        F64 => Kind::F64,
        Pred => Kind::Pred,
        t if t.is_float() => Kind::F16,
        S4 | U4 | B1 | S8 | S16 | S32 | S64 | U8 | U16 | U32 | U64 | B8 | B16 | B32 | B64
        | B128 | S16x2 | U16x2 => Kind::Int,
        _ => Kind::Other,
    }
}

fn first_kind(op: &Op) -> Option<Kind> {
    op.mods.types.first().map(|&t| kind(t))
}

/// Loads by state space; `None` space is generic addressing, which we treat as global.
fn load_class(space: Option<StateSpace>) -> Option<InstClass> {
    use StateSpace::*;
    Some(match space {
        None | Some(Global) | Some(Tex) => InstClass::LdGlobal,
        Some(s) if s.is_shared() => InstClass::LdShared,
        Some(Local) => InstClass::LdLocal,
        Some(Const) => InstClass::LdConst,
        Some(Param | ParamEntry | ParamFunc) => InstClass::LdParam,
        Some(_) => return None,
    })
}

fn store_class(space: Option<StateSpace>) -> Option<InstClass> {
    use StateSpace::*;
    Some(match space {
        None | Some(Global) => InstClass::StGlobal,
        Some(s) if s.is_shared() => InstClass::StShared,
        Some(Local) => InstClass::StLocal,
        Some(Param | ParamEntry | ParamFunc) => InstClass::StParam,
        Some(_) => return None,
    })
}

/// The instruction class of `op`, or `None` when the taxonomy has no class for it.
pub fn classify(op: &Op) -> Option<InstClass> {
    use InstClass as C;
    use Opcode::*;
    let k = first_kind(op);
    let approx = op.mods.flags.contains(Flag::Approx);
    let arith = |f32: C, f64: C, f16: C, int: Option<C>| match k? {
        Kind::F32 => Some(f32),
        Kind::F64 => Some(f64),
        Kind::F16 => Some(f16),
        Kind::Int => int,
        Kind::Pred | Kind::Other => None,
    };
    match &op.opcode {
        Add | Sub | Min | Max | Abs | Neg | Copysign | Testp => {
            arith(C::F32Add, C::F64Add, C::F16Arith, Some(C::IntAdd))
        }
        Addc | Subc => Some(C::IntAdd),
        Mul => arith(C::F32Mul, C::F64Mul, C::F16Arith, Some(C::IntMul)),
        Mul24 => Some(C::IntMul),
        Mad => arith(C::F32Fma, C::F64Fma, C::F16Arith, Some(C::IntMad)),
        Fma => arith(C::F32Fma, C::F64Fma, C::F16Arith, None),
        Mad24 | Madc | Sad | Dp4a | Dp2a => Some(C::IntMad),
        Div => match k? {
            Kind::F32 => Some(C::F32Div),
            Kind::F64 => Some(C::F64Div),
            Kind::Int => Some(C::IntDiv),
            _ => None,
        },
        Rem => (k? == Kind::Int).then_some(C::IntRem),
        Popc | Clz | Bfind | Fns | Brev | Bfe | Bfi | Bmsk | Szext | Prmt => Some(C::IntBits),
        Rcp => match k? {
            Kind::F32 if approx => Some(C::SfuRcp),
            Kind::F32 => Some(C::F32Rcp),
            Kind::F64 => Some(C::F64Rcp),
            _ => None,
        },
        Sqrt => match k? {
            Kind::F32 if approx => Some(C::SfuSqrt),
            Kind::F32 => Some(C::F32Sqrt),
            Kind::F64 => Some(C::F64Sqrt),
            _ => None,
        },
        Rsqrt => match k? {
            Kind::F32 | Kind::F16 => Some(C::SfuRsqrt),
            Kind::F64 => Some(C::F64Rcp),
            _ => None,
        },
        Sin => Some(C::SfuSin),
        Cos => Some(C::SfuCos),
        Lg2 => Some(C::SfuLg2),
        Ex2 => Some(C::SfuEx2),
        Tanh => Some(C::SfuTanh),
        Setp | Set => Some(C::Setp),
        Selp | Slct => Some(C::Selp),
        And | Or | Xor | Not | Cnot | Lop3 => Some(C::IntLogic),
        Shf | Shl | Shr => Some(C::IntShift),
        Mov => Some(C::Mov),
        Ld | Ldu => load_class(op.mods.space),
        St => store_class(op.mods.space),
        Cvt => {
            let t = &op.mods.types;
            let half = |x: &ScalarType| matches!(x, ScalarType::F16 | ScalarType::F16x2);
            Some(
                if t.len() == 2
                    && t.iter().any(half)
                    && t.iter().all(|x| half(x) || *x == ScalarType::F32)
                {
                    C::CvtF16
                } else if t.iter().any(|t| t.is_float()) {
                    C::Cvt
                } else {
                    C::CvtInt
                },
            )
        }
        Cvta | Isspacep => Some(C::CvtInt),
        Shfl | Match | Redux | Movmatrix => Some(C::Shfl),
        Vote | Activemask | Elect => Some(C::Vote),
        Atom | Red => Some(match op.mods.space {
            Some(s) if s.is_shared() => C::AtomShared,
            _ => C::AtomGlobal,
        }),
        Cp => {
            let m = &op.mods;
            let bookkeeping = ["commit_group", "wait_group", "wait_all", "mbarrier"]
                .iter()
                .any(|w| m.has_other(w));
            Some(if bookkeeping { C::Misc } else { C::CpAsync })
        }
        Tex | Tld4 | Suld | Multimem => Some(C::LdGlobal),
        Sust => Some(C::StGlobal),
        Sured => Some(C::AtomGlobal),
        Ldmatrix => Some(C::LdShared),
        Stmatrix => Some(C::StShared),
        Wmma => {
            let m = &op.mods;
            if m.has_other("load") {
                load_class(m.space)
            } else if m.has_other("store") {
                store_class(m.space)
            } else if m.has_other("mma") {
                Some(C::TensorMma)
            } else {
                None
            }
        }
        Mma => Some(C::TensorMma),
        Wgmma => Some(if op.mods.has_other("mma_async") {
            C::TensorWgmma
        } else {
            C::Misc
        }),
        Tcgen05 => Some(if op.mods.has_other("mma") {
            C::TensorMma
        } else {
            C::Misc
        }),
        Bar | Barrier => Some(if op.mods.has_other("warp") {
            C::Misc
        } else {
            C::BarSync
        }),
        Membar | Fence => Some(C::Fence),
        Bra | Brx | Call | Ret | Exit => Some(C::Branch),
        Prefetch | Prefetchu | Createpolicy | Applypriority | Discard | Mapa | Getctarank
        | Stacksave | Stackrestore | Alloca | Tensormap | Txq | Istypep | Suq | Trap | Brkpt
        | Pmevent | Nanosleep | Mbarrier | Griddepcontrol | Setmaxnreg | Clusterlaunchcontrol => {
            Some(C::Misc)
        }
        o if o.is_video() => Some(C::IntMad),
        _ => None,
    }
}

/// Mapper f for one instruction: its class's profile values, or the conservative `unknown`
/// class when `classify` has no answer.
pub fn map_f(op: &Op, gpu: &GpuProfile) -> NodeTiming {
    let (class, source) = match classify(op) {
        Some(c) => (c, MapSource::F),
        None => (InstClass::Unknown, MapSource::Conservative),
    };
    let p = gpu.class(class);
    NodeTiming {
        subsystem: p.subsystem,
        lambda: p.lambda,
        latency: p.latency,
        source,
        class,
        l2_reuse: None,
        dram_bytes: 0,
    }
}

/// A mapper diagnostic, returned as data (library code never prints).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Warning {
    /// Mapper f could not classify this mnemonic; it took the conservative `unknown` class.
    Unclassified {
        mnemonic: String,
        /// PTX lines where it occurs, ascending, without duplicates.
        ptx_lines: Vec<u32>,
    },
    /// Profiler metrics were given but could not be used for this memory space.
    MetricsUnusable { what: String, reason: String },
    /// Profiler metrics were given but none of the metrics that derive this quantity.
    MetricMissing {
        quantity: String,
        /// The Nsight Compute metrics that give it, each quantity by its first metric name.
        looked_for: String,
        assumed: String,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::Unclassified {
                mnemonic,
                ptx_lines,
            } => {
                let lines: Vec<String> = ptx_lines.iter().map(|l| l.to_string()).collect();
                write!(
                    f,
                    "cannot classify `{mnemonic}`; using the conservative class `unknown` (PTX line{} {})",
                    if lines.len() == 1 { "" } else { "s" },
                    lines.join(", ")
                )
            }
            Warning::MetricsUnusable { what, reason } => {
                write!(f, "profiler metrics not used for {what}: {reason}")
            }
            Warning::MetricMissing {
                quantity,
                looked_for,
                assumed,
            } => write!(
                f,
                "the profile lacks {quantity} (metrics {looked_for}; `ptx2idg metrics` prints \
                 the command that collects every metric the tool reads); assumed {assumed}"
            ),
        }
    }
}

/// Collects unclassified mnemonics so each is reported once with all its lines.
#[derive(Debug, Default)]
pub(crate) struct Unclassified {
    seen: BTreeMap<String, Vec<u32>>,
}

impl Unclassified {
    pub(crate) fn note(&mut self, op: &Op, line: u32) {
        self.seen.entry(op.to_string()).or_default().push(line);
    }

    pub(crate) fn into_warnings(self) -> Vec<Warning> {
        self.seen
            .into_iter()
            .map(|(mnemonic, mut ptx_lines)| {
                ptx_lines.sort_unstable();
                ptx_lines.dedup();
                Warning::Unclassified {
                    mnemonic,
                    ptx_lines,
                }
            })
            .collect()
    }
}

/// Mapper f over a sequence of (instruction, PTX line): timings in order, plus one warning
/// per unclassified mnemonic.
pub fn map_ops<'a>(
    ops: impl IntoIterator<Item = (&'a Op, u32)>,
    gpu: &GpuProfile,
) -> (Vec<NodeTiming>, Vec<Warning>) {
    let mut unc = Unclassified::default();
    let timings = ops
        .into_iter()
        .map(|(op, line)| {
            let t = map_f(op, gpu);
            if t.source == MapSource::Conservative {
                unc.note(op, line);
            }
            t
        })
        .collect();
    (timings, unc.into_warnings())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx::ast::{Modifiers, Op};

    fn op(s: &str) -> Op {
        ptx::parse_instruction(s).unwrap().op
    }

    #[test]
    fn representative_instructions() {
        let cases = [
            ("mul.f32 %f1, %f2, %f3;", InstClass::F32Mul),
            ("fma.rn.f32 %f1, %f2, %f3, %f4;", InstClass::F32Fma),
            ("div.rn.f32 %f1, %f2, %f3;", InstClass::F32Div),
            ("div.full.f32 %f1, %f2, %f3;", InstClass::F32Div),
            ("sqrt.approx.f32 %f1, %f2;", InstClass::SfuSqrt),
            ("sqrt.rn.f64 %fd1, %fd2;", InstClass::F64Sqrt),
            ("rcp.approx.ftz.f64 %fd1, %fd2;", InstClass::F64Rcp),
            ("rcp.rn.f32 %f1, %f2;", InstClass::F32Rcp),
            ("cos.approx.f32 %f1, %f2;", InstClass::SfuCos),
            ("ex2.approx.f16 %h1, %h2;", InstClass::SfuEx2),
            ("mul.wide.s32 %rd1, %r1, 4;", InstClass::IntMul),
            ("mad.lo.s32 %r1, %r2, %r3, %r4;", InstClass::IntMad),
            ("fma.rn.f16x2 %r1, %r2, %r3, %r4;", InstClass::F16Arith),
            ("div.s32 %r1, %r2, %r3;", InstClass::IntDiv),
            ("rem.u32 %r1, %r2, %r3;", InstClass::IntRem),
            ("and.pred %p1, %p2, %p3;", InstClass::IntLogic),
            ("cvt.rn.f32.s32 %f1, %r1;", InstClass::Cvt),
            ("cvt.f32.f16 %f1, %rs1;", InstClass::CvtF16),
            ("cvt.rn.f16x2.f32 %r1, %f1, %f2;", InstClass::CvtF16),
            ("cvt.rn.f16.f32 %rs1, %f1;", InstClass::CvtF16),
            ("cvt.f32.bf16 %f1, %rs1;", InstClass::Cvt),
            ("cvt.f64.f16 %fd1, %rs1;", InstClass::Cvt),
            ("cvt.u64.u32 %rd1, %r1;", InstClass::CvtInt),
            ("ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];", InstClass::LdGlobal),
            ("ld.u32 %r1, [%rd1];", InstClass::LdGlobal),
            ("ld.shared::cta.u32 %r1, [%r2];", InstClass::LdShared),
            ("st.local.u32 [%rd1], %r1;", InstClass::StLocal),
            ("ld.param.u64 %rd1, [p];", InstClass::LdParam),
            ("atom.shared.add.u32 %r1, [%r2], 1;", InstClass::AtomShared),
            ("red.global.add.f32 [%rd1], %f1;", InstClass::AtomGlobal),
            ("cp.async.cg.shared.global [%r1], [%rd1], 16;", InstClass::CpAsync),
            ("cp.async.wait_group 0;", InstClass::Misc),
            ("bar.sync 0;", InstClass::BarSync),
            ("bar.warp.sync -1;", InstClass::Misc),
            ("membar.gl;", InstClass::Fence),
            ("shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;", InstClass::Shfl),
            ("vote.sync.any.pred %p1, %p2, -1;", InstClass::Vote),
            ("bra $L1;", InstClass::Branch),
            ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};", InstClass::TensorMma),
        ];
        for (src, want) in cases {
            assert_eq!(classify(&op(src)), Some(want), "{src}");
        }
    }

    #[test]
    fn unknown_and_untyped_opcodes_are_unclassified() {
        assert_eq!(classify(&op("frobnicate.b32 %r1, %r2;")), None);
        let bare = |o: Opcode| Op {
            opcode: o,
            mods: Modifiers::default(),
        };
        // Arithmetic needs a type to pick a family.
        assert_eq!(classify(&bare(Opcode::Mul)), None);
        assert_eq!(classify(&bare(Opcode::Div)), None);
    }

    /// Mapper f is total: every known opcode with every type, space and approx flag either
    /// classifies or falls back to `unknown`, and the timing names a real subsystem.
    #[test]
    fn map_f_is_total() {
        let gpu = GpuProfile::bundled("fermi-c2050").unwrap();
        let spaces: Vec<Option<StateSpace>> = std::iter::once(None)
            .chain(
                [
                    "reg",
                    "sreg",
                    "const",
                    "global",
                    "local",
                    "param",
                    "shared",
                    "shared::cta",
                    "shared::cluster",
                    "tex",
                ]
                .iter()
                .map(|s| StateSpace::from_name(s)),
            )
            .collect();
        let types: Vec<Option<ScalarType>> = std::iter::once(None)
            .chain(ScalarType::ALL.iter().copied().map(Some))
            .collect();
        for opcode in Opcode::KNOWN {
            for &space in &spaces {
                for &t in &types {
                    for approx in [false, true] {
                        let mut mods = Modifiers {
                            space,
                            types: t.into_iter().collect(),
                            ..Modifiers::default()
                        };
                        if approx {
                            mods.flags.insert(Flag::Approx);
                        }
                        let o = Op {
                            opcode: opcode.clone(),
                            mods,
                        };
                        let t = map_f(&o, &gpu);
                        assert!(t.subsystem.index() < gpu.subsystems.len());
                    }
                }
            }
        }
    }
}
