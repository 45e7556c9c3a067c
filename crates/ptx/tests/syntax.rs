//! Targeted checks of the typed AST the parser produces, and of its error reports.

use ptx::*;

fn inst(s: &str) -> Instruction {
    parse_instruction(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn err(src: &str) -> ParseError {
    parse(src).expect_err("expected a parse error")
}

#[test]
fn op_display_round_trips_source_order() {
    for s in [
        "ld.global.nc.v4.f32",
        "setp.lt.s32",
        "cvt.rn.f32.s32",
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
        "atom.acq_rel.gpu.global.max.s32",
        "ld.global.nc.L1::no_allocate.L2::256B.v2.f32",
        "setp.ne.and.u32",
        "vadd.s32.u32.s32.sat",
    ] {
        let i = inst(&format!("{s} _;"));
        assert_eq!(i.op.to_string(), s);
    }
}

#[test]
fn modifiers_are_typed() {
    let i = inst("ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];");
    assert_eq!(i.op.opcode, Opcode::Ld);
    assert_eq!(i.op.space(), Some(StateSpace::Global));
    assert!(i.op.mods.flags.contains(Flag::Nc));
    assert_eq!(i.op.mods.vector, Some(4));
    assert_eq!(i.op.data_type(), Some(ScalarType::F32));
    assert_eq!(i.op.bytes_per_lane(), Some(16));
    assert!(i.op.is_memory() && i.op.is_load() && !i.op.is_store());
    assert_eq!(
        i.operands[1],
        Operand::Addr(Address {
            base: AddrBase::Reg("%rd1".into()),
            offset: 16
        })
    );

    let s = inst("setp.lo.and.u32 %p1|%p2, %r1, %r2, !%p3;");
    assert_eq!(s.op.mods.cmp, Some(CmpOp::Lo));
    assert_eq!(s.op.mods.bool_op, Some(BoolOp::And));
    assert!(s.op.mods.flags.is_empty());
    assert!(matches!(s.operands[0], Operand::Pair(..)));
    assert_eq!(s.operands[3], Operand::NotPred("%p3".into()));

    let m = inst("mul.lo.s32 %r1, %r2, %r3;");
    assert!(m.op.mods.flags.contains(Flag::Lo));
    assert_eq!(m.op.mods.cmp, None);

    let a = inst("atom.relaxed.gpu.global.and.b32 %r1, [%rd1], %r2;");
    assert_eq!(a.op.mods.reduce, Some(ReduceOp::And));
    assert_eq!(a.op.mods.sem, Some(Semantics::Relaxed));
    assert_eq!(a.op.mods.scope, Some(Scope::Gpu));
    assert!(a.op.is_atomic());

    let c = inst("cvt.rzi.s32.f32 %r1, %f1;");
    assert_eq!(c.op.mods.rounding, Some(Rounding::Rzi));
    assert_eq!(c.op.mods.types, vec![ScalarType::S32, ScalarType::F32]);

    let cp = inst("cp.async.ca.shared.global [%rd2], [%rd1], 4;");
    assert_eq!(cp.op.mods.space, Some(StateSpace::Shared));
    assert_eq!(cp.op.mods.space2, Some(StateSpace::Global));
    assert!(cp.op.is_async_copy() && cp.op.is_memory());

    let b = inst("@!%p1 bra.uni $L__BB0_3;");
    assert_eq!(
        b.guard,
        Some(Guard {
            pred: "%p1".into(),
            negated: true
        })
    );
    assert!(b.op.is_branch() && b.op.mods.flags.contains(Flag::Uni));
    assert_eq!(b.operands, vec![Operand::Sym("$L__BB0_3".into())]);

    let u = inst("frobnicate.sync.newmod::deep.b32 %r1, 3;");
    assert_eq!(u.op.opcode, Opcode::Unknown("frobnicate".into()));
    assert_eq!(u.op.mods.other, vec!["newmod::deep".to_string()]);

    assert!(inst("bar.sync 0;").op.is_barrier());
    assert!(inst("membar.gl;").op.is_fence());
}

#[test]
fn operands_and_immediates() {
    let imm = |s: &str| match &inst(&format!("mov.b64 %rd1, {s};")).operands[1] {
        Operand::Imm(v) => *v,
        o => panic!("{o:?}"),
    };
    assert_eq!(imm("42"), Imm::Int(42));
    assert_eq!(imm("-42"), Imm::Int(-42));
    assert_eq!(imm("0x10"), Imm::Int(16));
    assert_eq!(imm("010"), Imm::Int(8));
    assert_eq!(imm("0b101"), Imm::Int(5));
    assert_eq!(imm("7U"), Imm::UInt(7));
    assert_eq!(imm("0xFFFFFFFFFFFFFFFF"), Imm::UInt(u64::MAX));
    assert_eq!(imm("-9223372036854775808"), Imm::Int(i64::MIN));
    assert_eq!(imm("0f3F800000"), Imm::F32(0x3F80_0000));
    assert_eq!(imm("-0f3F800000"), Imm::F32(0xBF80_0000));
    assert_eq!(imm("0d3FF0000000000000"), Imm::F64(1f64.to_bits()));
    assert_eq!(imm("2.5e-3"), Imm::F64(2.5e-3f64.to_bits()));

    let sp = |s: &str| inst(&format!("mov.u32 %r1, {s};")).operands[1].clone();
    assert_eq!(sp("%tid.x"), Operand::Special(SpecialReg::Tid(Dim::X)));
    assert_eq!(sp("%ctaid.y"), Operand::Special(SpecialReg::Ctaid(Dim::Y)));
    assert_eq!(sp("%laneid"), Operand::Special(SpecialReg::Laneid));
    assert_eq!(sp("%clock64"), Operand::Special(SpecialReg::Clock64));
    assert_eq!(sp("%envreg3"), Operand::Special(SpecialReg::Envreg(3)));
    assert_eq!(sp("WARP_SZ"), Operand::Special(SpecialReg::WarpSz));
    assert_eq!(
        sp("%r2.b0"),
        Operand::RegField {
            reg: "%r2".into(),
            field: "b0".into()
        }
    );
    assert_eq!(
        sp("sym+-4"),
        Operand::SymOffset {
            name: "sym".into(),
            offset: -4
        }
    );

    let t = inst("tex.2d.v4.f32.f32 {%f1, %f2, %f3, _}, [tex_a, {%f5, %f6}];");
    assert!(matches!(&t.operands[0], Operand::Vector(v) if v[3] == Operand::Sink));
    assert!(matches!(&t.operands[1], Operand::AddrList(v) if v.len() == 2));

    let c = inst("call.uni (retval0), helper, (param0, param1);");
    assert!(matches!(&c.operands[0], Operand::List(v) if v.len() == 1));
    assert!(matches!(&c.operands[2], Operand::List(v) if v.len() == 2));
}

#[test]
fn module_structure() {
    let src = r#"
.version 8.0
.target sm_80, debug
.address_size 64
.file 1 "a.cu", 12, 34
.global .align 4 .b8 g[2][3];
.visible .entry k(
    .param .u64 .ptr .global .align 16 k_param_0,
    .param .align 8 .b8 k_param_1[16]
)
.maxntid 128, 1, 1
.minnctapersm 4
{
    .reg .b32 %r<35>, %x;
    .shared .align 4 .b8 s[64];
    .loc 1 2 3, function_name $L__info_string0+2, inlined_at 1 9 4
    { { ret; } }
$L__BB0_1:
LBB0_7:
    exit;
}
"#;
    let m = parse(src).unwrap();
    let v = m.version.unwrap();
    assert_eq!((v.major, v.minor), (8, 0));
    assert_eq!((v.span.line, v.span.col, v.span.len), (2, 1, 12));
    let t = m.target.as_ref().unwrap();
    assert!(t.is_debug());
    assert_eq!((t.span.line, t.span.col), (3, 1));
    assert_eq!(
        &src[t.span.offset as usize..][..t.span.len as usize],
        ".target sm_80, debug"
    );
    let a = m.address_size.unwrap();
    assert_eq!(a.bits, 64);
    assert_eq!((a.span.line, a.span.col, a.span.len), (4, 1, 16));
    assert_eq!(m.file_name(1), Some("a.cu"));
    assert_eq!(m.files[0].timestamp, Some(12));
    let g = m.globals().next().unwrap();
    assert_eq!(g.ty.array, vec![Some(2), Some(3)]);
    assert_eq!(g.ty.size_bytes(), Some(6));
    let k = m.kernels().next().unwrap();
    assert_eq!(k.name, "k");
    assert_eq!(k.params.len(), 2);
    assert_eq!((k.span.line, k.span.col), (7, 1));
    assert_eq!(
        &src[k.span.offset as usize..][..k.span.len as usize]
            .chars()
            .last(),
        &Some('}')
    );
    let p0 = &k.params[0].ty;
    assert_eq!(
        p0.ptr,
        Some(PtrAttr {
            space: Some(StateSpace::Global),
            align: Some(16)
        })
    );
    assert_eq!(k.params[1].ty.align, Some(8));
    assert_eq!(k.params[1].span.line, 9);
    let text = |s: Span| &src[s.offset as usize..][..s.len as usize];
    match k.directives.as_slice() {
        [FunctionDirective::MaxNtid(v, s1), FunctionDirective::MinNctaPerSm(4, s2)] => {
            assert_eq!(v, &vec![128, 1, 1]);
            assert_eq!((s1.line, s1.col, text(*s1)), (11, 1, ".maxntid 128, 1, 1"));
            assert_eq!((s2.line, s2.col, text(*s2)), (12, 1, ".minnctapersm 4"));
        }
        d => panic!("{d:?}"),
    }
    let body = k.body.as_ref().unwrap();
    match &body[0] {
        Statement::Reg(r) => {
            assert_eq!(
                (r.name.as_str(), r.range, r.ty),
                ("%r", Some(35), ScalarType::B32)
            );
            assert_eq!((r.span.line, r.span.col), (14, 5));
        }
        s => panic!("{s:?}"),
    }
    assert!(matches!(&body[1], Statement::Reg(r) if r.name == "%x" && r.range.is_none()));
    assert!(matches!(&body[2], Statement::Var(v) if v.space == StateSpace::Shared));
    match &body[3] {
        Statement::Loc(l) => {
            assert_eq!((l.file, l.line, l.col), (1, 2, 3));
            assert_eq!(l.function_name, Some(("$L__info_string0".into(), 2)));
            assert_eq!(l.inlined_at, Some((1, 9, 4)));
        }
        s => panic!("{s:?}"),
    }
    assert!(matches!(&body[4], Statement::Block(b, _) if matches!(&b[0], Statement::Block(..))));
    assert_eq!(
        (body[4].span().line, body[4].span().col, body[4].span().len),
        (17, 5, 12)
    );
    assert!(matches!(&body[5], Statement::Label { name, .. } if name == "$L__BB0_1"));
    assert!(matches!(&body[6], Statement::Label { name, .. } if name == "LBB0_7"));
    match &body[7] {
        Statement::Inst(i) => assert_eq!((i.span.line, i.span.col, i.span.len), (20, 5, 5)),
        s => panic!("{s:?}"),
    }
    let mut n = 0;
    for_each_instruction(body, &mut |_| n += 1);
    assert_eq!(n, 2);
}

#[test]
fn empty_and_comment_only_inputs_are_empty_modules() {
    assert_eq!(parse("").unwrap(), Module::default());
    assert_eq!(
        parse("  // nothing\n/* at all */\n").unwrap(),
        Module::default()
    );
}

#[test]
fn errors_point_at_the_offending_token() {
    let e = err(".version 8.0\n.entry k()\n{\n  add.s32 %r1, %r2 %r3;\n}\n");
    assert_eq!((e.span.line, e.span.col), (4, 20));
    assert_eq!(e.message, "expected `,` or `;`, found `%r3`");

    let e = err(".version 8.0\n.entry k()\n{\n  ret;\n");
    assert_eq!((e.span.line, e.span.col), (3, 1));
    assert!(e.message.contains("unclosed `{`"), "{}", e.message);

    let e = err(".version 8.0\n.bogus 1;\n");
    assert_eq!((e.span.line, e.span.col), (2, 1));
    assert!(e.message.contains("`.bogus`"), "{}", e.message);

    let e = err("\u{0}\u{1}\u{fffd}binary");
    assert_eq!((e.span.line, e.span.col), (1, 1));

    let e = err(".entry k() { /* unterminated");
    assert_eq!(e.message, "unterminated block comment");

    let e = err(".entry k() { mov.u32 %r1, 0f3F80; }");
    assert!(e.message.contains("8 hex digits"), "{}", e.message);
}

#[test]
fn truncations_of_a_valid_module_never_panic() {
    let src = include_str!("fixtures/kitchen_sink.ptx");
    let mut ok = 0;
    for cut in (0..src.len())
        .filter(|c| src.is_char_boundary(*c))
        .step_by(13)
    {
        if parse(&src[..cut]).is_ok() {
            ok += 1;
        }
    }
    assert!(ok > 0);
}

fn nested(depth: usize) -> String {
    format!(
        ".entry k()\n{{\n{}ret;\n{}}}\n",
        "{\n".repeat(depth),
        "}\n".repeat(depth)
    )
}

#[test]
fn deep_nesting_is_a_clear_error_not_a_stack_overflow() {
    assert!(parse(&nested(MAX_NESTING as usize - 1)).is_ok());
    let e = err(&nested(100_000));
    assert!(e.message.contains("nested deeper"), "{}", e.message);
    let e = err(&format!(".global .u32 x[1] = {}1;", "{".repeat(100_000)));
    assert!(e.message.contains("nested deeper"), "{}", e.message);
    // Operand brackets do not nest at all.
    assert!(parse(&format!(
        ".entry k() {{ mov.b32 %r1, {}; }}",
        "{".repeat(100_000)
    ))
    .is_err());
    assert!(parse(&format!(
        ".entry k() {{ ld.b32 %r1, {}; }}",
        "[".repeat(100_000)
    ))
    .is_err());
}

#[test]
fn hand_built_ops_print_in_canonical_order() {
    let mut mods = Modifiers {
        space: Some(StateSpace::Global),
        types: vec![ScalarType::F32],
        vector: Some(4),
        ..Modifiers::default()
    };
    mods.flags.insert(Flag::Nc);
    let op = Op {
        opcode: Opcode::Ld,
        mods,
    };
    assert_eq!(op.to_string(), "ld.global.nc.v4.f32");
    // Equality ignores the recorded source order.
    assert_eq!(
        op,
        inst("ld.nc.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];").op
    );

    let atom = Op {
        opcode: Opcode::Atom,
        mods: Modifiers {
            space: Some(StateSpace::Shared),
            sem: Some(Semantics::AcqRel),
            scope: Some(Scope::Gpu),
            reduce: Some(ReduceOp::Add),
            types: vec![ScalarType::U32],
            ..Modifiers::default()
        },
    };
    assert_eq!(atom.to_string(), "atom.acq_rel.gpu.shared.add.u32");
}

#[test]
fn ast_round_trips_through_json() {
    let m = parse(include_str!("fixtures/kitchen_sink.ptx")).unwrap();
    let json = serde_json::to_string(&m).unwrap();
    let back: Module = serde_json::from_str(&json).unwrap();
    assert_eq!(m, back);
    assert_eq!(m.to_string(), back.to_string());
}

/// The section entries of `.section .debug_x { BODY }`, spans cleared.
fn section_entries(body: &str) -> Vec<SectionEntry> {
    let mut m = parse(&format!(
        ".version 8.0\n.section .debug_x\n{{\n{body}\n}}\n"
    ))
    .unwrap_or_else(|e| panic!("{body:?}: {e}"));
    m.clear_spans();
    match m.items.pop() {
        Some(ModuleItem::Section(s)) => s.entries,
        other => panic!("{other:?}"),
    }
}

#[test]
fn debug_section_lines_parse_alike_in_every_layout() {
    // Plain one-value lines (the fast path) and the same data written so that only the
    // general path takes it give the same entries.
    let plain = ".b8 5\n.b8 0\n.b8 144\n.b64 $L__tmp1\n.b32 7\n.b32 8\n.b64 $L__tmp3\n";
    let general = ".b8 5;\n.b8 0 , 144\n.b64 $L__tmp1 ;\n.b32 7, /* c */ 8\n.b64 $L__tmp3+0\n";
    let e = section_entries(plain);
    assert_eq!(e, section_entries(general));
    assert_eq!(
        e,
        vec![
            SectionEntry::Ints {
                ty: ScalarType::B8,
                values: vec![5, 0, 144],
                span: Span::default()
            },
            SectionEntry::Data {
                ty: ScalarType::B64,
                values: vec![ConstExpr::Sym {
                    name: "$L__tmp1".into(),
                    offset: 0
                }],
                span: Span::default()
            },
            SectionEntry::Ints {
                ty: ScalarType::B32,
                values: vec![7, 8],
                span: Span::default()
            },
            SectionEntry::Data {
                ty: ScalarType::B64,
                values: vec![ConstExpr::Sym {
                    name: "$L__tmp3".into(),
                    offset: 0
                }],
                span: Span::default()
            },
        ]
    );
    assert_eq!(
        section_entries(".b8 1,2, 3,\t4\n.b8 5\n"),
        section_entries(".b8 1 ,2 ,3 ,4 ,5;\n")
    );
    // A value continued on the next line is still one value list.
    assert_eq!(
        section_entries(".b8 5,\n6\n"),
        section_entries(".b8 5, 6\n")
    );
    assert_eq!(
        section_entries(".b8 5\n, 6\n"),
        section_entries(".b8 5, 6\n")
    );
    assert_eq!(
        section_entries(".b64 a\n+ 4\n"),
        section_entries(".b64 a+4\n")
    );
    assert_eq!(
        section_entries(".b64 a\n-b\n"),
        section_entries(".b64 a-b\n")
    );
    assert_eq!(
        section_entries(".b8 255\n(generic(a))\n"),
        section_entries(".b8 255(generic(a))\n")
    );
    // Literals the fast path leaves alone.
    for (line, v) in [(".b8 010\n", 8), (".b8 0x10\n", 16), (".b32 -1\n", -1)] {
        match &section_entries(line)[0] {
            SectionEntry::Ints { values, .. } => assert_eq!(values, &vec![v], "{line}"),
            e => panic!("{line}: {e:?}"),
        }
    }
    match &section_entries(".b64 1234567890123456789\n")[0] {
        SectionEntry::Ints { values, .. } => assert_eq!(values, &vec![1234567890123456789]),
        e => panic!("{e:?}"),
    }
    let e = err(".section .debug_x\n{\n.b8 5x\n}\n");
    assert_eq!((e.span.line, e.span.col), (3, 5));
    let e = err(".section .debug_x\n{\n.b8 5\n/* open\n}\n");
    assert_eq!(e.message, "unterminated block comment");
}

#[test]
fn spans_count_lines_across_long_stretches() {
    // Statement spans after long comment blocks and long lines (line counting works on
    // whole words).
    let mut src = String::from(".version 8.0\n.entry k()\n{\n");
    for n in 0..100 {
        src.push_str(&format!("// {}\n\n", "x".repeat(n)));
    }
    src.push_str("\tret; // trailing\n\t\t\texit;\n}\n");
    let m = parse(&src).unwrap();
    let body = m.kernels().next().unwrap().body.as_ref().unwrap();
    let spans: Vec<(u32, u32)> = body.iter().map(|s| (s.span().line, s.span().col)).collect();
    assert_eq!(spans, vec![(204, 2), (205, 4)]);
}
