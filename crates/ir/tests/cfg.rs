//! Hand-written PTX: CFG shape, dominators, post-dominators, loops, inlining, the interpreter,
//! static trip counts and the error cases.

use ir::{analyze, lower_kernel, BlockId, IrError, Launch, LoopId, Term, ThreadState, Value};

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

fn module(body: &str) -> ptx::Module {
    let text = format!("{HEAD}{body}");
    ptx::parse(&text).unwrap_or_else(|e| panic!("test PTX must parse: {e:?}\n{text}"))
}

fn kernel(body: &str) -> ir::Kernel {
    let m = module(body);
    let name = m.kernels().next().expect("one kernel").name.clone();
    lower_kernel(&m, &name).expect("lowers")
}

fn block(k: &ir::Kernel, label: &str) -> BlockId {
    k.block_by_label(label)
        .unwrap_or_else(|| panic!("label {label}"))
}

const COUNTED: &str = r#"
.visible .entry counted(.param .u32 counted_param_0)
{
    .reg .pred %p<3>;
    .reg .b32 %r<5>;
    ld.param.u32 %r1, [counted_param_0];
    mov.u32 %r2, %tid.x;
    setp.ge.s32 %p1, %r2, %r1;
    @%p1 bra $L_end;
    mov.u32 %r3, 0;
$L_loop:
    add.s32 %r3, %r3, 1;
    setp.lt.s32 %p2, %r3, %r1;
    @%p2 bra $L_loop;
$L_end:
    ret;
}
"#;

#[test]
fn blocks_edges_dominators_postdominators() {
    let k = kernel(COUNTED);
    let an = analyze(&k).unwrap();
    let (entry, pre, lp, end) = (
        BlockId(0),
        BlockId(1),
        block(&k, "$L_loop"),
        block(&k, "$L_end"),
    );
    assert_eq!(k.blocks.len(), 4);
    assert!(
        matches!(k.block(entry).term, Term::Cond { taken, fall, .. } if taken == end && fall == pre)
    );
    assert_eq!(k.block(pre).term, Term::Goto(lp));
    assert_eq!(k.cfg.succs(lp), &[lp, end]);
    assert_eq!(k.cfg.exits(), &[end]);
    assert_eq!(an.dom.idom(lp), Some(pre));
    assert_eq!(an.dom.idom(end), Some(entry));
    assert!(an.dom.dominates(entry, end) && !an.dom.dominates(lp, end));
    // The divergent branch of the entry reconverges at $L_end.
    assert_eq!(an.pdom.ipdom(entry), Some(end));
    assert_eq!(an.pdom.ipdom(lp), Some(end));
    assert_eq!(an.pdom.ipdom(end), None);
    assert!(an.pdom.post_dominates(end, pre));
}

#[test]
fn loop_forest_and_static_trips_per_thread() {
    let k = kernel(COUNTED);
    let an = analyze(&k).unwrap();
    assert_eq!(an.loops.len(), 1);
    let l = an.loops.get(LoopId(0));
    let lp = block(&k, "$L_loop");
    assert_eq!(
        (l.header, l.latches.clone(), l.blocks.clone()),
        (lp, vec![lp], vec![lp])
    );
    assert_eq!(l.exits, vec![(lp, block(&k, "$L_end"))]);
    let launch = Launch {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        params: vec![("counted_param_0".into(), 10.into())],
    }
    .bind(&k)
    .unwrap();
    let trips = ir::resolve_trips(&k, &an, &launch, &ir::TripInputs::default()).unwrap();
    let t = trips.get(LoopId(0));
    assert_eq!(t.source, ir::TripSource::Static);
    let stats = t.stats.as_ref().unwrap();
    assert_eq!(
        (stats.min, stats.max, stats.threads),
        (10, 10, 10),
        "only tid < 10 enter"
    );
    assert!(trips.warnings.is_empty(), "{:?}", trips.warnings);
    // Per-thread evaluation at loop entry.
    let st = ir::entry_state(&k, &an, &launch, [0, 0, 0], [3, 0, 0], LoopId(0)).unwrap();
    assert_eq!(trips.trips_for(LoopId(0), &st), 10);
    assert!(ir::entry_state(&k, &an, &launch, [0, 0, 0], [12, 0, 0], LoopId(0)).is_none());
    // By index too.
    let by_index = Launch {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        params: vec![("0".into(), 3.into())],
    };
    assert_eq!(by_index.bind(&k).unwrap().params[0], Value::Int(3));
}

const GRID_STRIDE: &str = r#"
.visible .entry stride(.param .u32 stride_param_0)
{
    .reg .pred %p<3>;
    .reg .b32 %r<9>;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    mov.u32 %r5, %nctaid.x;
    mul.lo.s32 %r6, %r5, %r2;
    ld.param.u32 %r7, [stride_param_0];
    setp.ge.s32 %p1, %r4, %r7;
    @%p1 bra $L_end;
$L_loop:
    add.s32 %r4, %r4, %r6;
    setp.lt.s32 %p2, %r4, %r7;
    @%p2 bra $L_loop;
$L_end:
    ret;
}
"#;

#[test]
fn grid_stride_trips_differ_per_thread() {
    let k = kernel(GRID_STRIDE);
    let an = analyze(&k).unwrap();
    let iv = an.induction(LoopId(0)).expect("recognised");
    assert!(iv.symbol.is_some(), "the stride is a register");
    let launch = Launch {
        grid: [2, 1, 1],
        block: [32, 1, 1],
        params: vec![("stride_param_0".into(), 100.into())],
    }
    .bind(&k)
    .unwrap();
    // stride 64: i < 36 runs twice, 36 <= i < 64 once.
    for (ctaid, tid, want) in [(0, 0, 2), (0, 31, 2), (1, 3, 2), (1, 4, 1), (1, 31, 1)] {
        let st = ir::entry_state(&k, &an, &launch, [ctaid, 0, 0], [tid, 0, 0], LoopId(0)).unwrap();
        assert_eq!(iv.trips(&st), Some(want), "block {ctaid} thread {tid}");
    }
    let trips = ir::resolve_trips(&k, &an, &launch, &ir::TripInputs::default()).unwrap();
    let s = trips.get(LoopId(0)).stats.clone().unwrap();
    assert_eq!((s.min, s.max, s.warp_values.clone()), (1, 2, vec![2]));
}

#[test]
fn warp_state_evaluates_lanes() {
    let k = kernel(GRID_STRIDE);
    let launch = Launch {
        grid: [2, 1, 1],
        block: [40, 1, 1],
        params: vec![("0".into(), 70.into())],
    }
    .bind(&k)
    .unwrap();
    let mut w = ir::WarpState::new(&k, &launch, [1, 0, 0], 1);
    assert_eq!(w.lanes.len(), 8, "partial last warp");
    let full = w.full_mask();
    for &i in &k.block(BlockId(0)).insts {
        w.step(k.inst(i), full);
    }
    let Term::Cond { guard, .. } = k.block(BlockId(0)).term else {
        panic!("entry ends in a conditional branch")
    };
    // Global index 40 + 32 + lane = 72.. >= 70: every lane skips the loop.
    let m = w.eval_guard(Some(guard), full);
    assert_eq!((m.taken, m.not_taken, m.unknown), (0xff, 0, 0));
}

#[test]
fn addresses_stay_affine_over_pointer_params() {
    let k = kernel(
        r#"
.visible .entry addr(.param .u64 addr_param_0)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<6>;
    .reg .f32 %f<2>;
    ld.param.u64 %rd1, [addr_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.s32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4+8];
    ret;
}
"#,
    );
    let launch = Launch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        params: vec![],
    }
    .bind(&k)
    .unwrap();
    let mut st = ThreadState::new(&k, &launch, [0, 0, 0], [5, 0, 0]);
    for i in &k.insts {
        st.step(i);
    }
    let ld = k
        .insts
        .iter()
        .find(|i| i.op.is_load() && i.op.space() == Some(ptx::StateSpace::Global))
        .unwrap();
    let a = st.eval_addr(&ld.srcs()[0]).unwrap();
    assert_eq!(a.base, Some(k.params[0].base));
    assert_eq!(a.offset, 5 * 4 + 8);
    assert_eq!(ld.uses().as_slice(), &[k.reg_by_name("%rd4").unwrap()]);
    assert_eq!(ld.defs().as_slice(), &[k.reg_by_name("%f1").unwrap()]);
}

const CALLEE: &str = r#"
.func (.param .b32 func_retval0) sq(.param .b32 sq_param_0)
{
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [sq_param_0];
    mul.lo.s32 %r2, %r1, %r1;
    st.param.b32 [func_retval0], %r2;
    ret;
}
"#;

#[test]
fn calls_are_inlined_with_explicit_param_slots() {
    let k = kernel(&format!(
        "{CALLEE}{}",
        r#"
.visible .entry caller(.param .u32 caller_param_0)
{
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [caller_param_0];
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), sq, (param0);
    ld.param.b32 %r2, [retval0];
    }
    add.s32 %r3, %r2, 1;
    ret;
}
"#
    ));
    let an = analyze(&k).unwrap();
    assert!(an.loops.is_empty());
    // The callee's registers are renamed; the slot chain is explicit.
    assert!(k.reg_by_name("%r1@sq#1").is_some());
    let slot = k.reg_by_name("param0").unwrap();
    assert_eq!(k.regs[slot.index()].kind, ir::RegKind::CallSlot);
    let st_param = k.insts.iter().find(|i| i.defs().contains(&slot)).unwrap();
    assert!(st_param.op.is_store());
    let callee_ld = k
        .insts
        .iter()
        .find(|i| i.uses().contains(&slot) && !i.inlined_from.is_empty())
        .unwrap();
    assert_eq!(callee_ld.inlined_from, vec!["sq".to_string()]);
    let launch = Launch {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        params: vec![("caller_param_0".into(), 7.into())],
    }
    .bind(&k)
    .unwrap();
    // Walk the single path: values flow through the slots.
    let mut st = ThreadState::new(&k, &launch, [0, 0, 0], [0, 0, 0]);
    let mut b = BlockId(0);
    loop {
        for &i in &k.block(b).insts {
            st.step(k.inst(i));
        }
        match &k.block(b).term {
            Term::Goto(t) => b = *t,
            Term::Exit => break,
            t => panic!("unexpected {t:?}"),
        }
    }
    assert_eq!(st.get(k.reg_by_name("%r3").unwrap()), Value::Int(50));
}

#[test]
fn recursion_and_extern_callees_are_errors() {
    let rec = module(
        r#"
.func (.param .b32 func_retval0) f(.param .b32 f_param_0)
{
    .reg .b32 %r<2>;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), f, (param0);
    }
    ret;
}
.visible .entry k()
{
    {
    .param .b32 param0;
    .param .b32 retval0;
    call.uni (retval0), f, (param0);
    }
    ret;
}
"#,
    );
    let e = lower_kernel(&rec, "k").unwrap_err();
    assert!(
        matches!(&e, IrError::Recursion { chain, .. } if chain == &["k", "f", "f"]),
        "{e}"
    );
    let ext = module(
        r#"
.extern .func (.param .b32 func_retval0) g(.param .b32 g_param_0);
.visible .entry k()
{
    {
    .param .b32 param0;
    .param .b32 retval0;
    call.uni (retval0), g, (param0);
    }
    ret;
}
"#,
    );
    let e = lower_kernel(&ext, "k").unwrap_err();
    assert!(
        matches!(&e, IrError::ExternCallee { callee, .. } if callee == "g"),
        "{e}"
    );
    assert!(e.to_string().contains("`g`"));
}

#[test]
fn irreducible_cfg_is_reported() {
    let k = kernel(
        r#"
.visible .entry irr(.param .u32 irr_param_0)
{
    .reg .pred %p<3>;
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [irr_param_0];
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra $L_b;
$L_a:
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p2, %r1, 10;
    @%p2 bra $L_b;
    ret;
$L_b:
    add.s32 %r1, %r1, 2;
    bra.uni $L_a;
}
"#,
    );
    let e = analyze(&k).unwrap_err();
    assert!(matches!(e, IrError::Irreducible { .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.contains("irreducible") && msg.contains("$L_"), "{msg}");
}

const NESTED: &str = r#"
.visible .entry nested(.param .u32 nested_param_0)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    ld.param.u32 %r1, [nested_param_0];
    mov.u32 %r2, 0;
$L_outer:
    .loc 1 10 5
    mov.u32 %r3, 0;
$L_inner:
    .loc 1 11 9
    add.s32 %r3, %r3, 1;
    setp.lt.s32 %p1, %r3, 4;
    @%p1 bra $L_inner;
    add.s32 %r2, %r2, 1;
    setp.lt.s32 %p2, %r2, %r1;
    @%p2 bra $L_outer;
    ret;
}
"#;

#[test]
fn nested_loops_form_a_forest() {
    let k = kernel(&format!(".file 1 \"n.cu\"\n{NESTED}"));
    let an = analyze(&k).unwrap();
    assert_eq!(an.loops.len(), 2);
    let (outer, inner) = (LoopId(0), LoopId(1));
    assert_eq!(an.loops.get(outer).header, block(&k, "$L_outer"));
    assert_eq!(an.loops.get(inner).parent, Some(outer));
    assert_eq!(an.loops.get(outer).children, vec![inner]);
    assert_eq!(an.loops.roots(), &[outer]);
    assert_eq!(
        (an.loops.get(outer).depth, an.loops.get(inner).depth),
        (1, 2)
    );
    assert_eq!(an.loops.innermost(block(&k, "$L_inner")), Some(inner));
    let launch = Launch::default().bind(&k).unwrap();
    // Outer bound unknown (no value given), inner static; explicit row by source line.
    let rows = [ir::ExplicitTrip {
        file: "t.csv".into(),
        row: 2,
        loop_ref: "line:10".into(),
        trips: 7,
    }];
    let inputs = ir::TripInputs {
        explicit: &rows,
        profile: None,
    };
    let trips = ir::resolve_trips(&k, &an, &launch, &inputs).unwrap();
    assert_eq!(trips.get(outer).rule, ir::TripRule::Fixed(7));
    assert_eq!(
        trips.get(outer).source,
        ir::TripSource::Explicit {
            file: "t.csv".into(),
            row: 2
        }
    );
    assert_eq!(trips.get(inner).source, ir::TripSource::Static);
    assert_eq!(trips.get(inner).stats.as_ref().unwrap().max, 4);
}

#[test]
fn trips_rows_naming_missing_loops_are_errors() {
    let k = kernel(NESTED);
    let an = analyze(&k).unwrap();
    let launch = Launch::default().bind(&k).unwrap();
    let rows = [ir::ExplicitTrip {
        file: "t.csv".into(),
        row: 3,
        loop_ref: "$L__BB9_9".into(),
        trips: 7,
    }];
    let e = ir::resolve_trips(
        &k,
        &an,
        &launch,
        &ir::TripInputs {
            explicit: &rows,
            profile: None,
        },
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("t.csv") && msg.contains("row 3") && msg.contains("$L__BB9_9"),
        "{msg}"
    );
    assert!(msg.contains("$L_outer"), "lists the loops: {msg}");
}

#[test]
fn profile_solves_one_unknown_and_defaults_warn() {
    let k = kernel(NESTED);
    let an = analyze(&k).unwrap();
    let launch = Launch::default().bind(&k).unwrap();
    let trips = ir::resolve_trips(&k, &an, &launch, &ir::TripInputs::default()).unwrap();
    assert_eq!(trips.get(LoopId(0)).source, ir::TripSource::Default);
    assert!(trips
        .warnings
        .iter()
        .any(|w| w.loop_id == Some(LoopId(0)) && w.message.contains("using 1")));
    // Instructions: entry 2, outer header 1, inner 3 x 4, outer tail 3, exit 1.
    // Per warp with T outer trips: 2 + T * (1 + 12 + 3) + 1 = 3 + 16 T; T = 9 -> 147.
    let p = ir::ProfileEvidence {
        file: "prof.csv".into(),
        warp_insts_per_warp: 147.0,
        classes: ir::ClassCounts::default(),
    };
    let trips = ir::resolve_trips(
        &k,
        &an,
        &launch,
        &ir::TripInputs {
            explicit: &[],
            profile: Some(&p),
        },
    )
    .unwrap();
    assert_eq!(trips.get(LoopId(0)).rule, ir::TripRule::Fixed(9));
    assert!(matches!(
        trips.get(LoopId(0)).source,
        ir::TripSource::Profile { residual, ambiguous: false, .. } if residual.abs() < 1e-9
    ));
}

#[test]
fn branch_tables_become_switches() {
    let k = kernel(
        r#"
.visible .entry sw(.param .u32 sw_param_0)
{
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [sw_param_0];
    ts: .branchtargets $L_a, $L_b;
    brx.idx %r1, ts;
$L_a:
    add.s32 %r2, %r1, 1;
    ret;
$L_b:
    add.s32 %r2, %r1, 2;
    ret;
}
"#,
    );
    let an = analyze(&k).unwrap();
    let Term::Switch { targets, .. } = &k.block(BlockId(0)).term else {
        panic!("{:?}", k.block(BlockId(0)).term)
    };
    assert_eq!(targets, &[block(&k, "$L_a"), block(&k, "$L_b")]);
    assert_eq!(
        an.pdom.ipdom(BlockId(0)),
        None,
        "paths meet only at the exit"
    );
}

#[test]
fn shared_memory_addresses_are_affine_in_32_bits() {
    let k = kernel(
        r#"
.visible .entry sh()
{
    .shared .align 4 .b8 tile[512];
    .reg .b32 %r<6>;
    .reg .f32 %f<2>;
    mov.u32 %r1, tile;
    mov.u32 %r2, %tid.x;
    shl.b32 %r3, %r2, 3;
    add.s32 %r4, %r1, %r3;
    add.s32 %r5, %r4, -4;
    ld.shared.f32 %f1, [%r5+16];
    ret;
}
"#,
    );
    let launch = Launch::default().bind(&k).unwrap();
    let mut st = ThreadState::new(&k, &launch, [0, 0, 0], [3, 0, 0]);
    for i in &k.insts {
        st.step(i);
    }
    let ld = k
        .insts
        .iter()
        .find(|i| i.op.space().is_some_and(|s| s.is_shared()))
        .unwrap();
    let a = st.eval_addr(&ld.srcs()[0]).unwrap();
    let tile = k.bases.iter().position(|b| b.name == "tile").unwrap();
    assert_eq!(a.base, Some(ir::BaseId(tile as u32)));
    assert_eq!(a.offset, 3 * 8 - 4 + 16);
}

#[test]
fn profile_with_several_unknown_loops_is_ambiguous() {
    // Two sequential loops bounded by parameters given no value.
    let k = kernel(
        r#"
.visible .entry two(.param .u32 two_param_0, .param .u32 two_param_1)
{
    .reg .pred %p<3>;
    .reg .b32 %r<5>;
    ld.param.u32 %r1, [two_param_0];
    ld.param.u32 %r2, [two_param_1];
    mov.u32 %r3, 0;
$L_a:
    add.s32 %r3, %r3, 1;
    setp.lt.s32 %p1, %r3, %r1;
    @%p1 bra $L_a;
    mov.u32 %r4, 0;
$L_b:
    add.s32 %r4, %r4, 1;
    setp.lt.s32 %p2, %r4, %r2;
    @%p2 bra $L_b;
    ret;
}
"#,
    );
    let an = analyze(&k).unwrap();
    let launch = Launch::default().bind(&k).unwrap();
    // 3 + 3T + 1 + 3T + 1 = 5 + 6T; T = 10 -> 65.
    let p = ir::ProfileEvidence {
        file: "prof.csv".into(),
        warp_insts_per_warp: 65.0,
        classes: ir::ClassCounts::default(),
    };
    let trips = ir::resolve_trips(
        &k,
        &an,
        &launch,
        &ir::TripInputs {
            explicit: &[],
            profile: Some(&p),
        },
    )
    .unwrap();
    for l in [LoopId(0), LoopId(1)] {
        assert_eq!(trips.get(l).rule, ir::TripRule::Fixed(10));
        assert!(matches!(
            trips.get(l).source,
            ir::TripSource::Profile {
                ambiguous: true,
                ..
            }
        ));
    }
    assert!(trips
        .warnings
        .iter()
        .any(|w| w.message.contains("assumed equal trip counts")));
}

/// A counted loop with an early exit (an escape test): the profile decides its trip count when
/// it counts fewer instructions than the static count gives, never more than the static count.
#[test]
fn early_exit_loop_takes_its_trips_from_the_profile_below_its_bound() {
    let k = kernel(
        r#"
.visible .entry esc(.param .u64 esc_param_0)
{
    .reg .pred %p<3>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [esc_param_0];
    mov.u32 %r3, 0;
$L_loop:
    add.s32 %r3, %r3, 1;
    ld.global.u32 %r1, [%rd1];
    setp.ne.s32 %p2, %r1, 0;
    @%p2 bra $L_out;
    setp.lt.s32 %p1, %r3, 100;
    @%p1 bra $L_loop;
$L_out:
    ret;
}
"#,
    );
    let an = analyze(&k).unwrap();
    let launch = Launch::default().bind(&k).unwrap();
    let with = |measured: f64| {
        let p = ir::ProfileEvidence {
            file: "prof.csv".into(),
            warp_insts_per_warp: measured,
            classes: ir::ClassCounts::default(),
        };
        ir::resolve_trips(
            &k,
            &an,
            &launch,
            &ir::TripInputs {
                explicit: &[],
                profile: Some(&p),
            },
        )
        .unwrap()
    };
    // Static: 100 trips. Per warp: 2 + 6 T + 1 (the exit block); T = 20 -> 123.
    let t = with(123.0);
    assert_eq!(t.get(LoopId(0)).rule, ir::TripRule::Fixed(20));
    assert!(matches!(
        t.get(LoopId(0)).source,
        ir::TripSource::Profile { .. }
    ));
    assert!(
        t.warnings.iter().any(|w| w.message.contains("early exit")),
        "{:?}",
        t.warnings
    );
    // A profile at or above what the bound gives keeps the static count.
    let t = with(10_000.0);
    assert_eq!(t.get(LoopId(0)).source, ir::TripSource::Static);
}

fn resolve_with(k: &ir::Kernel, insts: f64, classes: ir::ClassCounts) -> ir::Trips {
    let an = analyze(k).unwrap();
    let launch = Launch::default().bind(k).unwrap();
    let p = ir::ProfileEvidence {
        file: "prof.csv".into(),
        warp_insts_per_warp: insts,
        classes,
    };
    ir::resolve_trips(
        k,
        &an,
        &launch,
        &ir::TripInputs {
            explicit: &[],
            profile: Some(&p),
        },
    )
    .unwrap()
}

/// Two loops on parameter bounds, one loading from global memory, the other storing to shared
/// memory: the instruction total alone cannot split it between them, the load and store
/// counters can (issue 16 part 3b).
#[test]
fn load_and_store_counters_split_the_total_between_unknown_loops() {
    let k = kernel(
        r#"
.visible .entry two(.param .u32 two_param_0, .param .u32 two_param_1, .param .u64 two_param_2)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<2>;
    .shared .align 4 .b8 buf[64];
    ld.param.u32 %r1, [two_param_0];
    ld.param.u32 %r2, [two_param_1];
    ld.param.u64 %rd1, [two_param_2];
    mov.u32 %r3, 0;
$L_a:
    ld.global.u32 %r5, [%rd1];
    add.s32 %r3, %r3, 1;
    setp.lt.s32 %p1, %r3, %r1;
    @%p1 bra $L_a;
    mov.u32 %r4, 0;
$L_b:
    st.shared.u32 [buf], %r4;
    add.s32 %r4, %r4, 1;
    setp.lt.s32 %p2, %r4, %r2;
    @%p2 bra $L_b;
    ret;
}
"#,
    );
    // 4 + 4 A + 1 + 4 B + 1 instructions; A = 5, B = 20 -> 106; 5 loads, 20 stores.
    let total = 6.0 + 4.0 * 5.0 + 4.0 * 20.0;
    let alone = resolve_with(&k, total, ir::ClassCounts::default());
    assert_eq!(alone.get(LoopId(0)).rule, alone.get(LoopId(1)).rule);
    let t = resolve_with(
        &k,
        total,
        ir::ClassCounts {
            global_loads: Some(5.0),
            shared_stores: Some(20.0),
            ..ir::ClassCounts::default()
        },
    );
    assert_eq!(t.get(LoopId(0)).rule, ir::TripRule::Fixed(5));
    assert_eq!(t.get(LoopId(1)).rule, ir::TripRule::Fixed(20));
    assert!(matches!(
        t.get(LoopId(0)).source,
        ir::TripSource::Profile {
            ambiguous: false,
            ..
        }
    ));
    assert!(
        t.warnings
            .iter()
            .any(|w| w.message.contains("fitted to 3 counters")),
        "{:?}",
        t.warnings
    );
}

/// nvcc's unroll by 4 of a loop on a data-dependent bound n: a remainder loop (step 1, one
/// load) and a main loop (step 4, four loads) sharing n. The remainder runs the mean
/// remainder, 2; the main loop takes the rest of the total.
#[test]
fn unrolled_loop_and_its_remainder_share_one_bound() {
    let k = kernel(
        r#"
.visible .entry unr(.param .u32 unr_param_0, .param .u64 unr_param_1)
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<2>;
    ld.param.u32 %r1, [unr_param_0];
    ld.param.u64 %rd1, [unr_param_1];
    and.b32 %r2, %r1, 3;
    mov.u32 %r3, 0;
$L_rem:
    ld.global.u32 %r5, [%rd1];
    add.s32 %r3, %r3, 1;
    setp.lt.s32 %p1, %r3, %r2;
    @%p1 bra $L_rem;
    sub.s32 %r4, %r1, %r2;
    mov.u32 %r6, 0;
$L_main:
    ld.global.u32 %r7, [%rd1];
    ld.global.u32 %r8, [%rd1+4];
    ld.global.u32 %r9, [%rd1+8];
    ld.global.u32 %r10, [%rd1+12];
    add.s32 %r6, %r6, 4;
    setp.lt.s32 %p2, %r6, %r4;
    @%p2 bra $L_main;
    ret;
}
"#,
    );
    // 4 + 4 R + 2 + 7 M + 1 instructions; R = 2, M = 10 -> 85.
    let t = resolve_with(&k, 7.0 + 8.0 + 70.0, ir::ClassCounts::default());
    assert_eq!(t.get(LoopId(0)).rule, ir::TripRule::Fixed(2), "remainder");
    assert_eq!(t.get(LoopId(1)).rule, ir::TripRule::Fixed(10), "main");
    assert!(
        t.warnings
            .iter()
            .any(|w| w.message.contains("(step 4) and its remainder")
                && w.message.contains("n about 42")),
        "{:?}",
        t.warnings
    );
}
