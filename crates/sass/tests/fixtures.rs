//! Every fixture under tests/fixtures (listings from cuobjdump and nvdisasm, `ptxas -v` and
//! `cuobjdump -res-usage` reports made by `regen.sh` from ptx_samples/) read into a summary,
//! snapshotted under snapshots/sass. Adding a fixture adds its snapshot.

use std::fmt::Write as _;

use sass::analysis::{analyze, Reach};
use sass::{Instruction, Listing, OperandKind, Resources};

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../../snapshots/sass"));
    s.set_prepend_module_to_snapshot(false);
    s
}

/// Per kernel: instruction count, what never runs, counts by class, blocks and loops.
fn listing_summary(l: &Listing) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "format {:?}, arch {:?}", l.format, l.arch);
    for k in &l.kernels {
        let a = analyze(k);
        let with_source = k.instructions.iter().filter(|i| i.source.is_some()).count();
        let encoded = k
            .instructions
            .iter()
            .filter(|i| i.encoding.len() == 2)
            .count();
        let count = |r: Reach| a.reach.iter().filter(|x| **x == r).count();
        let _ = writeln!(
            out,
            "\n{} (line {}): {} instructions, {} labels, {} with source lines, {} with 2 encoding words",
            k.name,
            k.line,
            k.instructions.len(),
            k.labels.len(),
            with_source,
            encoded
        );
        let _ = writeln!(
            out,
            "  reach: {} body, {} subroutine, {} trap, {} padding",
            count(Reach::Body),
            count(Reach::Subroutine),
            count(Reach::Trap),
            count(Reach::Padding)
        );
        let _ = writeln!(out, "  body {}: {:?}", a.body.total, a.body.by_class);
        if a.all != a.body {
            let _ = writeln!(out, "  all {}: {:?}", a.all.total, a.all.by_class);
        }
        let _ = writeln!(out, "  {} blocks", a.blocks.len());
        for lp in &a.loops {
            let _ = writeln!(
                out,
                "  loop {:#x}..={:#x}: {} instructions {:?}",
                lp.header, lp.latch, lp.counts.total, lp.counts.by_class
            );
        }
    }
    out
}

fn resources_summary(rs: &[Resources]) -> String {
    let mut out = String::new();
    for r in rs {
        let _ = writeln!(out, "{r:?}");
    }
    out
}

#[test]
fn fixture_summaries() {
    settings().bind(|| {
        insta::glob!("fixtures/*.sass", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let l = sass::parse_listing(&text).unwrap_or_else(|e| panic!("{}:{e}", path.display()));
            insta::assert_snapshot!(listing_summary(&l));
        });
        insta::glob!("fixtures/*.ptxas-v.txt", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let r =
                sass::parse_ptxas_info(&text).unwrap_or_else(|e| panic!("{}:{e}", path.display()));
            insta::assert_snapshot!(resources_summary(&r));
        });
        insta::glob!("fixtures/*.res-usage.txt", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let r = sass::parse_resource_usage(&text)
                .unwrap_or_else(|e| panic!("{}:{e}", path.display()));
            insta::assert_snapshot!(resources_summary(&r));
        });
    });
}

fn render(i: &Instruction) -> String {
    let mut s = format!("{:#06x} ", i.address);
    if let Some(p) = &i.predicate {
        let _ = write!(s, "@{}{} ", if p.negated { "!" } else { "" }, p.register);
    }
    s.push_str(&i.mnemonic());
    for o in &i.operands {
        let kind = match &o.kind {
            OperandKind::Register(r) => format!("reg {r}"),
            OperandKind::Int(v) => format!("int {v}"),
            OperandKind::Float => "float".to_string(),
            OperandKind::ConstBank { bank, offset } => format!("c[{bank}][{offset}]"),
            OperandKind::Memory => "mem".to_string(),
            OperandKind::Label(l) => format!("label {l}"),
            OperandKind::Other => "other".to_string(),
        };
        let _ = write!(s, " | {} ({kind})", o.text);
    }
    if !i.branch_targets.is_empty() {
        let _ = write!(s, " -> {}", i.branch_targets.join(","));
    }
    if let Some(src) = &i.source {
        let _ = write!(s, "   // {}:{}", src.file, src.line);
        let mut at = &src.inlined_at;
        while let Some(a) = at {
            let _ = write!(s, " inlined at {}:{}", a.file, a.line);
            at = &a.inlined_at;
        }
    }
    s
}

/// One kernel in full, operand kinds included, from each listing form.
#[test]
fn full_kernels() {
    let cases = [
        ("loops.cuobjdump.sass", "_Z16thread_dependentPKfPf"),
        ("loops.nvdisasm-g.sass", "_Z16thread_dependentPKfPf"),
        ("switch.nvdisasm-gi.sass", "_Z12dense_switchPKfPfS1_Pi"),
    ];
    settings().bind(|| {
        for (file, kernel) in cases {
            let path = format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).unwrap();
            let l = sass::parse_listing(&text).unwrap();
            let k = l
                .kernel(kernel)
                .unwrap_or_else(|| panic!("{kernel} not in {file}"));
            let lines: Vec<String> = k.instructions.iter().map(render).collect();
            insta::assert_snapshot!(format!("full_{file}"), lines.join("\n"));
        }
    });
}
