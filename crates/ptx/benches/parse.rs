//! Parser throughput on a large real module.
//!
//! Input: the largest `.ptx` under `ptx_samples/` if it is at least 5 MB; otherwise a valid
//! module built from the real kernels of all samples, repeated with every function and
//! module-scope variable renamed per copy (debug sections dropped, since their labels would
//! collide), until it reaches 5 MB. Run:
//! `cargo bench -p ptx --bench parse -- --warm-up-time 1 --measurement-time 3`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ptx::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const MIN_BYTES: usize = 5 << 20;

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

fn rename(s: &mut String, names: &HashMap<String, String>) {
    if let Some(n) = names.get(s.as_str()) {
        *s = n.clone();
    }
}

fn rename_operand(o: &mut Operand, names: &HashMap<String, String>) {
    match o {
        Operand::Sym(s) | Operand::SymOffset { name: s, .. } => rename(s, names),
        Operand::Addr(Address {
            base: AddrBase::Sym(s),
            ..
        }) => rename(s, names),
        Operand::AddrList(v) | Operand::Vector(v) | Operand::List(v) => {
            v.iter_mut().for_each(|o| rename_operand(o, names))
        }
        _ => {}
    }
}

fn rename_init(i: &mut Initializer, names: &HashMap<String, String>) {
    match i {
        Initializer::List(v) => v.iter_mut().for_each(|i| rename_init(i, names)),
        Initializer::Expr(ConstExpr::Sym { name, .. } | ConstExpr::Generic { name, .. }) => {
            rename(name, names)
        }
        Initializer::Expr(_) => {}
    }
}

fn rename_stmts(stmts: &mut [Statement], names: &HashMap<String, String>) {
    for s in stmts {
        match s {
            Statement::Inst(i) => i.operands.iter_mut().for_each(|o| rename_operand(o, names)),
            Statement::Block(b, _) => rename_stmts(b, names),
            Statement::CallTargets { targets, .. } => {
                targets.iter_mut().for_each(|t| rename(t, names))
            }
            _ => {}
        }
    }
}

/// One copy of a module's functions and variables with every global name suffixed.
fn renamed_copy(m: &Module, k: usize) -> Vec<ModuleItem> {
    let mut names = HashMap::new();
    for item in &m.items {
        match item {
            ModuleItem::Function(f) => {
                names.insert(f.name.clone(), format!("{}_c{k}", f.name));
            }
            ModuleItem::Var(v) => {
                names.insert(v.name.clone(), format!("{}_c{k}", v.name));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for item in &m.items {
        let mut item = item.clone();
        match &mut item {
            ModuleItem::Function(f) => {
                rename(&mut f.name, &names);
                if let Some(b) = &mut f.body {
                    rename_stmts(b, &names);
                }
            }
            ModuleItem::Var(v) => {
                rename(&mut v.name, &names);
                if let Some(i) = &mut v.init {
                    rename_init(i, &names);
                }
            }
            ModuleItem::Section(_) | ModuleItem::Alias { .. } | ModuleItem::Pragma(_) => continue,
        }
        out.push(item);
    }
    out
}

fn input() -> (String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ptx_samples");
    let mut files = Vec::new();
    ptx_files(&root, &mut files);
    let mut sources: Vec<(PathBuf, String)> = files
        .into_iter()
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|s| (p, s)))
        .collect();
    sources.sort_by_key(|(_, s)| std::cmp::Reverse(s.len()));
    let Some((path, largest)) = sources.first() else {
        panic!("no PTX samples under {}", root.display());
    };
    if largest.len() >= MIN_BYTES {
        return (path.display().to_string(), largest.clone());
    }
    let modules: Vec<Module> = sources
        .iter()
        .map(|(p, s)| parse(s).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect();
    let header = Module {
        version: modules[0].version,
        target: modules[0].target.clone(),
        address_size: modules[0].address_size,
        files: modules[0].files.clone(),
        items: Vec::new(),
    };
    let mut text = header.to_string();
    let mut k = 0;
    while text.len() < MIN_BYTES {
        for m in &modules {
            for item in renamed_copy(m, k) {
                text.push('\n');
                text.push_str(&item.to_string());
                text.push('\n');
            }
        }
        k += 1;
    }
    let desc = format!("{} samples x {k} renamed copies", modules.len());
    (desc, text)
}

fn bench(c: &mut Criterion) {
    let (desc, src) = input();
    let m = parse(&src).expect("benchmark input parses");
    eprintln!(
        "input: {desc}: {:.1} MB, {} functions",
        src.len() as f64 / 1e6,
        m.functions().count()
    );
    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Bytes(src.len() as u64));
    g.sample_size(10);
    // Dropping the AST is not parsing; keep it out of the measurement.
    g.bench_function("module", |b| {
        b.iter_with_large_drop(|| parse(std::hint::black_box(&src)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
