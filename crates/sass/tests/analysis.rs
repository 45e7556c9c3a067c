//! Hand-checked analysis of small kernels: classes, reach, blocks, loops and counts, on a
//! fixture from ptxas (numbers read off the listing by hand) and on written listings.

use sass::analysis::{analyze, Class, Reach};

fn fixture(name: &str) -> sass::Listing {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    sass::parse_listing(&text).unwrap()
}

/// loops.cu's `nested`: an outer loop at 0xe0 (latch `@!P1 BRA 0xe0` at 0x1f0) around an
/// inner loop at 0x140 (latch `@!P0 BRA 0x140` at 0x1e0) that holds the kernel's only LDG.
#[test]
fn nested_loops_of_a_ptxas_listing() {
    for file in ["loops.cuobjdump.sass", "loops.nvdisasm.sass"] {
        let l = fixture(file);
        let k = l.kernel("_Z6nestedPKfPfii").unwrap();
        let a = analyze(k);
        assert_eq!(a.loops.len(), 2, "{file}");
        let (outer, inner) = (&a.loops[0], &a.loops[1]);
        assert_eq!((outer.header, outer.latch), (0xe0, 0x1f0), "{file}");
        assert_eq!((inner.header, inner.latch), (0x140, 0x1e0), "{file}");
        assert_eq!(outer.counts.total, 18);
        assert_eq!(inner.counts.total, 11);
        assert_eq!(inner.counts.get(Class::GlobalLoad), 1);
        assert_eq!(outer.counts.get(Class::GlobalLoad), 1);
        assert_eq!(inner.counts.get(Class::Fp32), 1);
        assert_eq!(a.body.get(Class::GlobalLoad), 1);
        assert_eq!(a.body.get(Class::GlobalStore), 1);
        assert_eq!(a.body.get(Class::Branch), 3);
        assert_eq!(a.body.get(Class::Exit), 1);
        // 36 instructions 0x0..=0x230; the self-branch at 0x240 and 11 NOPs never run.
        assert_eq!(a.body.total, 36);
        assert_eq!(a.reach[36], Reach::Trap);
        assert_eq!(k.instructions[36].address, 0x240);
        assert!(a.reach[37..].iter().all(|r| *r == Reach::Padding));
        // Leaders: 0x0, 0xb0, 0xe0, 0x140, 0x1f0, 0x200, 0x240 (trap), 0x250 (padding).
        let starts: Vec<u64> = a.blocks.iter().map(|b| b.address).collect();
        assert_eq!(starts, [0x0, 0xb0, 0xe0, 0x140, 0x1f0, 0x200, 0x240, 0x250]);
        // The inner loop's block goes on to 0x1f0 or back to itself.
        assert_eq!(a.blocks[3].successors, [4, 3]);
        // `@P0 BRA 0x200` at 0xa0 skips both loops.
        assert_eq!(a.blocks[0].successors, [1, 5]);
    }
}

/// A caller's unroll factor: SASS loads per iteration over PTX loads per iteration.
#[test]
fn unrolled_loop_counts() {
    let l = fixture("kmeans_spill.cuobjdump.sass");
    let a = analyze(&l.kernels[0]);
    let lp = a.loops.iter().find(|lp| lp.header == 0x750).unwrap();
    // The PTX loop `$L__BB0_11` loads 8 floats per iteration (NVVM unrolled it by 4);
    // ptxas unrolled it 4 times more: an unroll factor of 32 / 8 = 4.
    assert_eq!(lp.counts.get(Class::GlobalLoad), 32);
    // Spills: stores and reloads of the stack.
    assert_eq!(a.body.get(Class::LocalStore), 4);
    assert_eq!(a.body.get(Class::LocalLoad), 5);
}

const WRITTEN: &str = "
\tcode for sm_90
\t\tFunction : k
\t.headerflags\t@\"EF_CUDA_SM90\"
        /*0000*/                   MOV R0, RZ ;
        /*0010*/                   ISETP.NE.AND P0, PT, R0, 0x3, PT ;
        /*0020*/              @PT BRA 0x40 ;
        /*0030*/                   NOP ;
        /*0040*/                   CALL.REL.NOINC 0x90 ;
        /*0050*/              @!P0 BRA 0x10 ;
        /*0060*/                   EXIT ;
        /*0070*/                   BRA 0x70;
        /*0080*/                   NOP;
        /*0090*/                   MUFU.RCP R2, R0 ;
        /*00a0*/                   RET.REL.NODEC R4 0x0 ;
        /*00b0*/                   BRA 0xb0;
\t\t..........
";

#[test]
fn written_listing() {
    let l = sass::parse_listing(WRITTEN).unwrap();
    assert_eq!(l.arch.as_deref(), Some("sm_90"));
    let k = &l.kernels[0];
    assert_eq!(k.instructions.len(), 12);
    let p = k.instructions[5].predicate.as_ref().unwrap();
    assert_eq!((p.register.as_str(), p.negated), ("P0", true));
    assert_eq!(k.instructions[4].modifiers, ["REL", "NOINC"]);
    let a = analyze(k);
    use Reach::*;
    // Code from the CALL target on is a subroutine; the BRA 0x70 in the middle is not the
    // final trap (it is followed by code), the one at 0xb0 is.
    assert_eq!(
        a.reach,
        [
            Body, Body, Body, Padding, Body, Body, Body, Body, Padding, Subroutine, Subroutine,
            Trap
        ]
    );
    assert_eq!(a.body.total, 7);
    assert_eq!(a.all.total, 9);
    assert_eq!(a.all.get(Class::SpecialFunction), 1);
    // `@PT BRA` is unconditional: its block's only successor is the target's.
    let b = a.blocks.iter().position(|b| b.address == 0x10).unwrap();
    let target = a.blocks.iter().position(|b| b.address == 0x40).unwrap();
    assert_eq!(a.blocks[b].successors, [target]);
    // The back edge 0x50 → 0x10 makes a loop; the self-branch at 0x70 does too (it is
    // reachable code as far as the listing tells).
    let headers: Vec<u64> = a.loops.iter().map(|l| l.header).collect();
    assert_eq!(headers, [0x10, 0x70]);
}

#[test]
fn classes_of_opcodes() {
    let cases = [
        ("LDG", Class::GlobalLoad),
        ("STG", Class::GlobalStore),
        ("LDSM", Class::SharedLoad),
        ("STS", Class::SharedStore),
        ("LDL", Class::LocalLoad),
        ("STL", Class::LocalStore),
        ("LDGSTS", Class::AsyncCopy),
        ("ATOMG", Class::Atomic),
        ("RED", Class::Atomic),
        ("BRX", Class::Branch),
        ("JMP", Class::Branch),
        ("RET", Class::Exit),
        ("BAR", Class::Barrier),
        ("HGMMA", Class::Tensor),
        ("IMMA", Class::Tensor),
        ("SHFL", Class::Shuffle),
        ("MUFU", Class::SpecialFunction),
        ("FFMA", Class::Fp32),
        ("DFMA", Class::Fp64),
        ("IADD3", Class::Int),
        ("F2FP", Class::Conversion),
        ("NOP", Class::Nop),
        ("S2R", Class::Other),
        ("FUTUREOP", Class::Other),
    ];
    for (op, c) in cases {
        assert_eq!(Class::of(op), c, "{op}");
    }
}

/// nvdisasm prints `.sectionflags @"SHF_BARRIERS=1"` inside the text section of a kernel that
/// uses barriers: an attribute of that section, not a new one (read as one, the kernel was
/// empty).
#[test]
fn section_attributes_stay_in_the_kernel() {
    let text = "\t.section\t.text.k,\"ax\",@progbits\n\t.sectionflags\t@\"SHF_BARRIERS=1\"\n\
                \t.sectioninfo\t@\"SHI_REGISTERS=22\"\n\t.align\t128\nk:\n.text.k:\n\
                .L_x_0:\n        /*0000*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n\
                \x20       /*0010*/               @P0 BRA `(.L_x_0) ;\n\
                \x20       /*0020*/                   EXIT ;\n";
    let l = sass::parse_listing(text).unwrap();
    let k = l.kernel("k").unwrap();
    assert_eq!(k.instructions.len(), 3);
    assert_eq!(analyze(k).loops.len(), 1);
}
