//! Analysis time on deep and wide input (issue 17): dominators, post-dominators and the loop
//! forest of a kernel of nested loops, and the CFG of a kernel whose blocks all branch to one
//! label. The deep case was quadratic in the nesting depth before Lengauer–Tarjan. Also the
//! refusals and trip counts the `patho` fuzz target spent its time on: a nest past the depth
//! limit, trip statistics of a deep thread-invariant nest, a doubling call tree past the
//! inlining budget.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

const HEAD: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

fn nested_loops(n: usize) -> String {
    let mut s = format!(
        "{HEAD}.visible .entry k()\n{{\n .reg .pred %p<2>;\n .reg .s32 %r<{}>;\n",
        n + 1
    );
    for i in 0..n {
        s += &format!(" mov.s32 %r{i}, 0;\nL{i}:\n");
    }
    for i in (0..n).rev() {
        s += &format!(" add.s32 %r{i}, %r{i}, 1;\n setp.lt.s32 %p1, %r{i}, 4;\n @%p1 bra L{i};\n");
    }
    s + " ret;\n}\n"
}

/// `f0 -> f1 -> ... -> f{n-1}`, each calling the next twice; the kernel calls `f0`.
fn doubling_calls(n: usize) -> String {
    let mut s = HEAD.to_string();
    for i in (0..n).rev() {
        s += &format!(".func f{i}()\n{{\n .reg .b32 %r<2>;\n add.s32 %r1, %r1, 1;\n");
        if i + 1 < n {
            s += &format!(" call f{}, ();\n call f{}, ();\n", i + 1, i + 1);
        }
        s += " ret;\n}\n";
    }
    s + ".visible .entry k()\n{\n call f0, ();\n ret;\n}\n"
}

fn one_join(n: usize) -> String {
    format!(
        "{HEAD}.visible .entry k()\n{{\n .reg .pred %p<2>;\n .reg .u32 %r<2>;\n \
         mov.u32 %r1, %tid.x;\n setp.lt.u32 %p1, %r1, 7;\n{}L0:\n ret;\n}}\n",
        " @%p1 bra L0;\n".repeat(n)
    )
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("deep");
    g.sample_size(10);
    let lower = |text: String| {
        let m = ptx::parse(&text).expect("parses");
        ir::lower_kernel(&m, "k").expect("lowers")
    };
    let deep = lower(nested_loops(20_000));
    g.bench_function("dominators_20000_nested_loops", |b| {
        b.iter(|| black_box(ir::DomTree::new(&deep.cfg).idom(deep.cfg.entry())))
    });
    g.bench_function("post_dominators_20000_nested_loops", |b| {
        b.iter(|| black_box(ir::PostDomTree::new(&deep.cfg).ipdom(deep.cfg.entry())))
    });
    // Refused by the depth limit at loop 257 (all 5,000 bodies were built before).
    let too_deep = lower(nested_loops(5_000));
    g.bench_function("analyze_5000_nested_loops_refused_by_depth", |b| {
        b.iter(|| black_box(ir::analyze(&too_deep).is_err()))
    });
    // No per-thread index: one walk per loop stands for the 256 sampled threads.
    let nest = lower(nested_loops(256));
    let an = ir::analyze(&nest).expect("256 deep is within the limit");
    let launch = ir::Launch {
        grid: [2, 1, 1],
        block: [128, 1, 1],
        params: Vec::new(),
    }
    .bind(&nest)
    .expect("binds");
    g.bench_function("trips_256_nested_thread_invariant_loops", |b| {
        b.iter(|| {
            black_box(ir::resolve_trips(&nest, &an, &launch, &ir::TripInputs::default()).is_ok())
        })
    });
    // 2^24 inlined calls, refused by the default inlining budget from the call graph.
    let tree = ptx::parse(&doubling_calls(24)).expect("parses");
    g.bench_function("lower_call_tree_doubling_24_times_refused", |b| {
        b.iter(|| black_box(ir::lower_kernel(&tree, "k").is_err()))
    });
    let wide = one_join(200_000);
    g.bench_function("lower_200000_branches_to_one_label", |b| {
        b.iter(|| black_box(lower(wide.clone()).cfg.len()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
