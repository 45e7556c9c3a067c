//! Analysis time on deep and wide input (issue 17): dominators, post-dominators and the loop
//! forest of a kernel of nested loops, and the CFG of a kernel whose blocks all branch to one
//! label. The deep case was quadratic in the nesting depth before Lengauer–Tarjan.

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
    let wide = one_join(200_000);
    g.bench_function("lower_200000_branches_to_one_label", |b| {
        b.iter(|| black_box(lower(wide.clone()).cfg.len()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
