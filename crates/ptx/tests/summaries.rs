//! A per-kernel summary of every PTX sample of the repository, snapshotted under
//! `snapshots/ptx/`, so any change in what the parser extracts from real PTX shows up in
//! review. After adding samples, accept the new snapshots (`cargo insta accept`).

use ptx::{for_each_instruction, Function, Module, Statement};
use std::collections::BTreeMap;
use std::fmt::Write;

fn count_stmts(stmts: &[Statement], labels: &mut usize, blocks: &mut usize, locs: &mut usize) {
    for s in stmts {
        match s {
            Statement::Label { .. } => *labels += 1,
            Statement::Loc(_) => *locs += 1,
            Statement::Block(b, _) => {
                *blocks += 1;
                count_stmts(b, labels, blocks, locs);
            }
            _ => {}
        }
    }
}

fn function_summary(out: &mut String, f: &Function) {
    let body = f.body.as_deref().unwrap_or(&[]);
    let kind = if f.is_entry() { ".entry" } else { ".func" };
    let _ = writeln!(out, "{kind} {}", f.name);
    for p in f.ret_params.iter() {
        let _ = writeln!(out, "  returns {p}");
    }
    for p in f.params.iter() {
        let _ = writeln!(out, "  param {p}");
    }
    for d in &f.directives {
        let _ = writeln!(out, "  directive {d}");
    }
    if f.body.is_none() {
        let _ = writeln!(out, "  (declaration)");
        return;
    }
    let regs: Vec<String> = body
        .iter()
        .filter_map(|s| match s {
            Statement::Reg(r) => Some(
                r.to_string()
                    .trim_start_matches(".reg ")
                    .trim_end_matches(';')
                    .to_string(),
            ),
            _ => None,
        })
        .collect();
    let _ = writeln!(out, "  registers {}", regs.join(", "));
    let (mut labels, mut blocks, mut locs) = (0, 0, 0);
    count_stmts(body, &mut labels, &mut blocks, &mut locs);
    let mut n = 0;
    let mut ops: BTreeMap<String, usize> = BTreeMap::new();
    for_each_instruction(body, &mut |i| {
        n += 1;
        *ops.entry(i.op.opcode.to_string()).or_default() += 1;
    });
    let _ = writeln!(
        out,
        "  {n} instructions, {labels} labels, {blocks} nested scopes, {locs} .loc"
    );
    let hist: Vec<String> = ops.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(out, "  opcodes: {}", hist.join(", "));
}

fn summary(m: &Module) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "version {:?}, target {:?}, address_size {:?}, {} files, {} globals, {} sections",
        m.version.map(|v| format!("{}.{}", v.major, v.minor)),
        m.target.as_ref().map(|t| t.arch.clone()),
        m.address_size.map(|a| a.bits),
        m.files.len(),
        m.globals().count(),
        m.items
            .iter()
            .filter(|i| matches!(i, ptx::ModuleItem::Section(_)))
            .count()
    );
    let n = m.functions().count();
    if n > 64 {
        // Benchmark-sized modules: totals only, to keep the snapshot reviewable.
        let mut insts = 0;
        for f in m.functions() {
            for_each_instruction(f.body.as_deref().unwrap_or(&[]), &mut |_| insts += 1);
        }
        let _ = writeln!(
            out,
            "{n} functions ({} kernels), {insts} instructions",
            m.kernels().count()
        );
        return out;
    }
    for f in m.functions() {
        function_summary(&mut out, f);
    }
    out
}

#[test]
fn sample_summaries() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../../snapshots/ptx"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta::glob!("../../../ptx_samples", "**/*.ptx", |path| {
            let src = std::fs::read_to_string(path).unwrap();
            let m = ptx::parse(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            insta::assert_snapshot!(summary(&m));
        });
    });
}
