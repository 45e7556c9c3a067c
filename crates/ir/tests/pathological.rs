//! Inputs that are valid PTX but deep or large (issue 17): each ends in a result or an error
//! naming its cause, never a stack overflow or an unbounded run. The inputs are generated here.

use ir::{
    analyze, lower_kernel, lower_kernel_with_budget, IrError, MAX_CALL_DEPTH, MAX_LOOP_DEPTH,
};

const HEAD: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

/// `f0 -> f1 -> ... -> f{n-1}`, each calling the next `fanout` times; the kernel calls `f0`.
fn call_tree(n: usize, fanout: usize) -> String {
    let mut s = HEAD.to_string();
    for i in (0..n).rev() {
        s += &format!(".func f{i}()\n{{\n .reg .b32 %r<2>;\n add.s32 %r1, %r1, 1;\n");
        if i + 1 < n {
            for _ in 0..fanout {
                s += &format!(" call f{}, ();\n", i + 1);
            }
        }
        s += " ret;\n}\n";
    }
    s + ".visible .entry k()\n{\n call f0, ();\n ret;\n}\n"
}

/// `n` loops nested in each other, each counting from `lo` to `hi`.
fn nested_loops(n: usize, lo: i64, hi: i64) -> String {
    let mut s = format!(
        "{HEAD}.visible .entry k()\n{{\n .reg .pred %p<2>;\n .reg .s32 %r<{}>;\n",
        n + 1
    );
    for i in 0..n {
        s += &format!(" mov.s32 %r{i}, {lo};\nL{i}:\n");
    }
    for i in (0..n).rev() {
        s += &format!(
            " add.s32 %r{i}, %r{i}, 1;\n setp.lt.s32 %p1, %r{i}, {hi};\n @%p1 bra L{i};\n"
        );
    }
    s + " ret;\n}\n"
}

fn lower(text: &str) -> Result<ir::Kernel, IrError> {
    let module = ptx::parse(text).expect("generated PTX parses");
    lower_kernel(&module, "k")
}

#[test]
fn a_chain_of_ten_thousand_calls_is_refused_at_the_depth_limit() {
    match lower(&call_tree(10_000, 1)) {
        Err(IrError::CallDepth { callee, limit, .. }) => {
            assert_eq!(limit, MAX_CALL_DEPTH);
            assert_eq!(callee, format!("f{MAX_CALL_DEPTH}"));
        }
        other => panic!("expected the call-depth error, got {other:?}"),
    }
}

#[test]
fn a_chain_within_the_depth_limit_is_inlined() {
    let k = lower(&call_tree(MAX_CALL_DEPTH, 1)).expect("inlines");
    analyze(&k).expect("analyses");
}

#[test]
fn a_call_tree_doubling_twenty_times_is_refused_by_the_inlining_budget() {
    // A small budget keeps the debug-build test fast; the mechanism is the same at the default.
    let module = ptx::parse(&call_tree(20, 2)).expect("generated PTX parses");
    let err = lower_kernel_with_budget(&module, "k", 10_000).expect_err("2^20 calls exceed it");
    assert!(matches!(err, IrError::InlineBudget { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("--max-inlined") && msg.contains("`f0`"),
        "{msg}"
    );
}

#[test]
fn recursion_is_reported_by_name() {
    let text = format!(
        "{HEAD}.func b();\n.func a()\n{{\n call b, ();\n ret;\n}}\n.func b()\n{{\n call a, ();\n ret;\n}}\n\
         .visible .entry k()\n{{\n call a, ();\n ret;\n}}\n"
    );
    let err = lower(&text).expect_err("mutual recursion");
    assert!(err.to_string().contains("k -> a -> b -> a"), "{err}");
}

#[test]
fn loops_nested_past_the_depth_limit_are_refused_with_the_loop() {
    let depth = MAX_LOOP_DEPTH as usize + 1;
    let k = lower(&nested_loops(
        depth,
        i64::from(i32::MIN),
        i64::from(i32::MAX),
    ))
    .expect("lowers");
    match analyze(&k) {
        Err(IrError::LoopNest { header, line, .. }) => {
            assert_eq!(header, format!("L{}", depth - 1));
            assert!(line > 0);
        }
        other => panic!("expected the loop-nest error, got {other:?}"),
    }
}

#[test]
fn thousands_of_nested_loops_are_refused() {
    let k = lower(&nested_loops(600, 0, 4)).expect("lowers");
    let err = analyze(&k).expect_err("too deep");
    assert!(matches!(err, IrError::LoopNest { .. }), "{err:?}");
}

/// 5,000 nested loops hold about 25 million (block, loop) pairs: the depth limit refuses the
/// nest at its first loop too deep, before the bodies of the deeper loops are built (patho
/// fuzz target: building them all first took most of a second per input).
#[test]
fn a_deep_nest_is_refused_at_its_first_loop_past_the_depth_limit() {
    let k = lower(&nested_loops(5000, 0, 4)).expect("lowers");
    match analyze(&k) {
        Err(IrError::LoopNest { header, what, .. }) => {
            assert_eq!(header, format!("L{MAX_LOOP_DEPTH}"));
            assert!(what.contains("loops deep"), "{what}");
        }
        other => panic!("expected the loop-nest error, got {other:?}"),
    }
}
