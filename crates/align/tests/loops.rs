//! The alignment pass on IDGs built from small PTX kernels and hand-written listings of their
//! machine code (`tests/fixtures`): loops unrolled as ptxas unrolls them (every iteration
//! still runs once, the loads of a block first, the carried values chained through the
//! copies), spill accesses where the machine code has them, loads serialized where it reuses a
//! destination register, and loops that cannot be paired left as they are with a warning.

use std::path::Path;

use idg::{Idg, Item, KernelIdgs, MemSpace, Node};

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The IDGs of kernel `k` of `ptx` for one 32-thread group per SM of a 1056-group grid.
fn idgs(ptx: &str, params: &[(&str, i64)], block: u32) -> (KernelIdgs, ptx::ast::Module) {
    let module = ptx::parse(ptx).unwrap();
    let launch = ir::Launch {
        grid: [1056, 1, 1],
        block: [block, 1, 1],
        params: params
            .iter()
            .map(|(n, v)| (n.to_string(), (*v).into()))
            .collect(),
    };
    let fe = walk::front_end(
        &module,
        "k",
        &launch,
        &ir::TripInputs::default(),
        &walk::Options::default(),
    )
    .unwrap();
    (fe.built.idgs, module)
}

fn aligned(ptx: &str, sass: &str, params: &[(&str, i64)]) -> (KernelIdgs, align::Report) {
    let (mut idgs, module) = idgs(ptx, params, 32);
    let listing = sass::parse_listing(sass).unwrap();
    let report = align::apply(
        &mut idgs,
        listing.kernel("k").unwrap(),
        &align::file_table(&module),
    );
    for c in &idgs.classes {
        c.idg.validate().unwrap();
    }
    (idgs, report)
}

/// Dynamic executions of the nodes `pick` selects.
fn executed(idg: &Idg, pick: impl Fn(&Node) -> bool + Copy) -> u64 {
    fn walk(idg: &Idg, items: &[Item], pick: impl Fn(&Node) -> bool + Copy) -> u64 {
        items
            .iter()
            .map(|it| match it {
                Item::Node(id) => u64::from(pick(idg.node(*id))),
                Item::Repeat(r) => r.count * walk(idg, &r.body, pick),
            })
            .sum()
    }
    walk(idg, &idg.body, pick)
}

fn is_global_load(n: &Node) -> bool {
    n.op.opcode == ptx::ast::Opcode::Ld
        && n.mem
            .is_some_and(|m| m.space == MemSpace::Global && !m.store)
}

fn is_sum(n: &Node) -> bool {
    n.op.to_string() == "add.f32"
}

/// The nodes of the tree in program order, each repeat's body once.
fn flat(idg: &Idg) -> Vec<&Node> {
    fn walk<'a>(idg: &'a Idg, items: &[Item], out: &mut Vec<&'a Node>) {
        for it in items {
            match it {
                Item::Node(id) => out.push(idg.node(*id)),
                Item::Repeat(r) => walk(idg, &r.body, out),
            }
        }
    }
    let mut out = Vec::new();
    walk(idg, &idg.body, &mut out);
    out
}

#[test]
fn an_unrolled_loop_runs_every_iteration_once() {
    let (ptx, sass) = (fixture("unroll.ptx"), fixture("unroll.sass"));
    for n in [320, 256, 160, 128, 96, 64, 32] {
        let (plain, _) = idgs(&ptx, &[("n", n)], 32);
        let (idgs, report) = aligned(&ptx, &sass, &[("n", n)]);
        if n > 32 {
            assert_eq!(report.loops.len(), 1, "n = {n}");
            assert_eq!(report.loops[0].unroll, 4);
        } else {
            // One iteration: the IDG has no repeat of the loop, nothing to pair or overlap.
            assert!(report.loops.is_empty() && report.warnings().is_empty());
        }
        let (a, b) = (&plain.classes[0].idg, &idgs.classes[0].idg);
        assert_eq!(executed(b, is_global_load), (n / 32) as u64, "n = {n}");
        assert_eq!(executed(b, is_sum), executed(a, is_sum), "n = {n}");
        // One branch per pass instead of one per iteration.
        assert!(executed(b, |x| x.op.is_branch()) <= executed(a, |x| x.op.is_branch()));
    }
}

#[test]
fn a_block_issues_its_loads_first_and_chains_the_sum_through_its_copies() {
    let (idgs, report) = aligned(
        &fixture("unroll.ptx"),
        &fixture("unroll.sass"),
        &[("n", 320)],
    );
    assert!(report.warnings().is_empty(), "{:?}", report.warnings());
    let idg = &idgs.classes[0].idg;
    // 10 iterations: a repeat of two blocks of 4, then a block of 2.
    let repeat = first_repeat(idg);
    assert_eq!(repeat.count, 2);
    let body: Vec<&Node> = repeat
        .body
        .iter()
        .map(|it| match it {
            Item::Node(id) => idg.node(*id),
            Item::Repeat(_) => panic!("nested"),
        })
        .collect();
    let loads: Vec<usize> = (0..body.len())
        .filter(|&i| is_global_load(body[i]))
        .collect();
    let sums: Vec<usize> = (0..body.len()).filter(|&i| is_sum(body[i])).collect();
    assert_eq!((loads.len(), sums.len()), (4, 4));
    assert!(loads.iter().max() < sums.iter().min());
    // Each sum reads what the sum of the copy before it wrote; the last writes the original
    // register, which the first reads (carried from the previous pass).
    let acc = |n: &Node| n.writes[0];
    for k in 1..4 {
        assert!(body[sums[k]].reads.contains(&acc(body[sums[k - 1]])));
    }
    assert!(body[sums[0]].reads.contains(&acc(body[sums[3]])));
    // Each sum adds its own copy's loaded value.
    for k in 0..4 {
        assert!(body[sums[k]].reads.contains(&body[loads[k]].writes[0]));
    }
    // The remainder: two more copies after the repeat, their loads first.
    let all = flat(idg);
    let tail: Vec<&&Node> = all
        .iter()
        .skip_while(|n| !std::ptr::eq(**n, body[body.len() - 1]))
        .skip(1)
        .collect();
    let tl: Vec<usize> = (0..tail.len())
        .filter(|&i| is_global_load(tail[i]))
        .collect();
    let ts: Vec<usize> = (0..tail.len()).filter(|&i| is_sum(tail[i])).collect();
    assert_eq!((tl.len(), ts.len()), (2, 2));
    assert!(tl[1] < ts[0]);
}

#[test]
fn loops_the_machine_code_runs_as_written_stay() {
    // The machine code loads what the PTX loads per iteration: nothing to unroll.
    let sass: String = fixture("unroll.sass")
        .lines()
        .filter(|l| !l.contains("LDG.E R5") && !l.contains("LDG.E R6") && !l.contains("LDG.E R7"))
        .map(|l| format!("{l}\n"))
        .collect();
    let ptx = fixture("unroll.ptx");
    let (plain, _) = idgs(&ptx, &[("n", 320)], 32);
    let (idgs, report) = aligned(&ptx, &sass, &[("n", 320)]);
    assert_eq!(report.loops[0].unroll, 1);
    assert_eq!(
        flat(&idgs.classes[0].idg).len(),
        flat(&plain.classes[0].idg).len()
    );
    assert!(report.notes().iter().any(|n| n.contains("as in the PTX")));
}

#[test]
fn spills_run_where_the_machine_code_has_them() {
    let (idgs, report) = aligned(&fixture("spills.ptx"), &fixture("spills.sass"), &[]);
    assert_eq!(report.entry_spills, 2);
    assert_eq!(report.loops[0].spills, 2);
    let idg = &idgs.classes[0].idg;
    let local = |n: &Node| n.mem.is_some_and(|m| m.space == MemSpace::Local);
    let shown: Vec<String> = flat(idg)
        .into_iter()
        .filter(|n| local(n))
        .map(|n| n.op.to_string())
        .collect();
    // At the entry, then at the top of the loop's repeat and of its last iteration (which
    // the builder places after the repeat).
    assert_eq!(
        shown,
        [
            "st.local.b32",
            "ld.local.b8",
            "st.local.b64",
            "ld.local.v2.b64",
            "st.local.b64",
            "ld.local.v2.b64"
        ]
    );
    // The loop's pair runs every iteration (256), the others once.
    assert_eq!(executed(idg, local), 2 + 2 * 256);
}

#[test]
fn a_load_that_reuses_the_previous_destination_waits_for_its_data() {
    let (idgs, report) = aligned(&fixture("serialized.ptx"), &fixture("serialized.sass"), &[]);
    assert_eq!(report.loops[0].serialized, 1);
    let idg = &idgs.classes[0].idg;
    let loads: Vec<&Node> = flat(idg)
        .into_iter()
        .filter(|n| is_global_load(n))
        .collect();
    // The first loop's second load reads the first load's first register.
    assert!(loads[1].reads.contains(&loads[0].writes[0]));
    assert!(!loads[0].reads.contains(&loads[1].writes[0]));
}

#[test]
fn loops_that_cannot_be_paired_keep_their_ptx_form_with_a_warning() {
    // A second loop in the machine code, none added to the PTX, no line info: the counts differ.
    let sass = fixture("unroll.sass").replace(
        "        /*0090*/                   EXIT ;",
        ".L_x_5:\n        /*0090*/                   FADD R12, R12, 1 ;\n        \
         /*0098*/               @P1 BRA `(.L_x_5) ;\n        /*009c*/                   EXIT ;",
    );
    let listing = sass::parse_listing(&sass).unwrap();
    assert_eq!(
        align::MachineCode::of(listing.kernel("k").unwrap())
            .loops
            .len(),
        2
    );
    let ptx = fixture("unroll.ptx");
    let (plain, _) = idgs(&ptx, &[("n", 320)], 32);
    let (idgs, report) = aligned(&ptx, &sass, &[("n", 320)]);
    assert!(report.loops.is_empty());
    assert!(
        report.warnings()[0].contains("has 2 loops and the PTX 1"),
        "{:?}",
        report.warnings()
    );
    let ops = |k: &KernelIdgs| -> Vec<String> {
        flat(&k.classes[0].idg)
            .iter()
            .map(|n| n.op.to_string())
            .collect()
    };
    assert_eq!(ops(&idgs), ops(&plain));
    assert_eq!(
        executed(&idgs.classes[0].idg, is_global_load),
        executed(&plain.classes[0].idg, is_global_load)
    );
}

/// Positions, in program order, of the global loads and of the multiply-adds.
fn loads_and_fmas(idg: &Idg) -> (Vec<usize>, Vec<usize>) {
    let nodes = flat(idg);
    let at = |pick: &dyn Fn(&Node) -> bool| -> Vec<usize> {
        (0..nodes.len()).filter(|&i| pick(nodes[i])).collect()
    };
    (
        at(&is_global_load),
        at(&|n: &Node| n.op.opcode == ptx::ast::Opcode::Fma),
    )
}

/// Straight-line code whose PTX interleaves each load with its use: where the machine code
/// issues all three loads first, so does the IDG; where it waits for the first load's data
/// before the third load, the third comes after that use. Every node still runs once.
#[test]
fn straight_runs_issue_their_loads_as_the_machine_code_does() {
    let ptx = fixture("straight.ptx");
    let (plain, _) = idgs(&ptx, &[("n", 1 << 20)], 32);
    let (p_loads, p_fmas) = loads_and_fmas(&plain.classes[0].idg);
    assert!(p_loads[1] > p_fmas[0], "the PTX interleaves");

    let (hoisted, report) = aligned(&ptx, &fixture("straight.sass"), &[("n", 1 << 20)]);
    assert_eq!(report.hoisted, 1);
    assert!(report
        .notes()
        .iter()
        .any(|n| n.contains("ahead of their uses")));
    let (loads, fmas) = loads_and_fmas(&hoisted.classes[0].idg);
    assert!(loads[2] < fmas[0], "{loads:?} {fmas:?}");
    assert_eq!(
        hoisted.classes[0].idg.nodes.len(),
        plain.classes[0].idg.nodes.len()
    );

    let (waited, _) = aligned(&ptx, &fixture("straight_wait.sass"), &[("n", 1 << 20)]);
    let (loads, fmas) = loads_and_fmas(&waited.classes[0].idg);
    assert!(
        loads[1] < fmas[0] && fmas[0] < loads[2],
        "{loads:?} {fmas:?}"
    );
}

/// A listing with another number of loads outside its loops runs another path: the IDG's
/// straight code keeps its PTX order.
#[test]
fn straight_runs_keep_their_order_when_the_loads_do_not_match() {
    let ptx = fixture("straight.ptx");
    let (plain, _) = idgs(&ptx, &[("n", 1 << 20)], 32);
    let two = fixture("straight.sass").replace(
        "        /*0050*/                   LDG.E.CONSTANT R9, desc[UR4][R10.64] ;\n",
        "",
    );
    let (same, report) = aligned(&ptx, &two, &[("n", 1 << 20)]);
    assert_eq!(report.hoisted, 0);
    assert_eq!(
        loads_and_fmas(&same.classes[0].idg),
        loads_and_fmas(&plain.classes[0].idg)
    );
}

/// The machine code's register bank conflicts reach the IDG's nodes of the region they were
/// counted in: here one of the six FP32 and integer instructions outside every loop.
#[test]
fn nodes_carry_their_regions_register_bank_conflicts() {
    let ptx = fixture("straight.ptx");
    let sass = fixture("straight.sass").replace("FFMA R4, R5, 0.5, R4", "FFMA R4, R5, R6, R8");
    let (idgs, _) = aligned(&ptx, &sass, &[("n", 1 << 20)]);
    let idg = &idgs.classes[0].idg;
    assert!(idg.nodes.iter().all(|n| n.register_conflicts == 166));
    let (plain, _) = aligned(&ptx, &fixture("straight.sass"), &[("n", 1 << 20)]);
    assert!(plain.classes[0]
        .idg
        .nodes
        .iter()
        .all(|n| n.register_conflicts == 0));
}

/// The first repeat of `idg`'s body.
fn first_repeat(idg: &Idg) -> &idg::Repeat {
    idg.body
        .iter()
        .find_map(|it| match it {
            Item::Repeat(r) => Some(r),
            Item::Node(_) => None,
        })
        .expect("a loop")
}

/// The source lines of the nodes of the first repeat's body, in order.
fn body_lines(idg: &Idg) -> Vec<u32> {
    first_repeat(idg)
        .body
        .iter()
        .filter_map(|it| match it {
            Item::Node(id) => idg.node(*id).src.map(|s| s.line),
            Item::Repeat(_) => None,
        })
        .collect()
}

#[test]
fn an_iteration_runs_its_source_lines_in_the_listings_order() {
    let ptx = fixture("interleave.ptx");
    let (plain, _) = idgs(&ptx, &[("n", 64)], 32);
    assert_eq!(
        body_lines(&plain.classes[0].idg),
        [4, 4, 4, 5, 5, 5, 3, 3, 3]
    );
    let (idgs, report) = aligned(&ptx, &fixture("interleave.sass"), &[("n", 64)]);
    assert_eq!(
        body_lines(&idgs.classes[0].idg),
        [4, 5, 4, 5, 4, 5, 3, 3, 3]
    );
    assert!(
        report
            .notes()
            .iter()
            .any(|n| n.contains("in the listing's line order")),
        "{:?}",
        report.notes()
    );
    // Without line info in the listing nothing moves.
    let bare: String = fixture("interleave.sass")
        .lines()
        .filter(|l| !l.contains("//## File"))
        .map(|l| format!("{l}\n"))
        .collect();
    let (idgs, _) = aligned(&ptx, &bare, &[("n", 64)]);
    assert_eq!(
        body_lines(&idgs.classes[0].idg),
        [4, 4, 4, 5, 5, 5, 3, 3, 3]
    );
}
