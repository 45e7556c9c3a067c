//! Every parse error names its 1-based line and column and says what was expected.

fn err(text: &str) -> (u32, u32, String) {
    let e = sass::parse_listing(text).unwrap_err();
    (e.line, e.col, e.message)
}

const HEAD: &str = "\tcode for sm_90\n\t\tFunction : k\n";

#[test]
fn listing_errors_point_at_the_fault() {
    // (body line, expected column, part of the message)
    let cases: &[(&str, u32, &str)] = &[
        ("        /*0010*/   MOV R0, RZ", 30, "expected `;`"),
        (
            "        /*0010*/   @ MOV R0, RZ ;",
            20,
            "predicate register",
        ),
        (
            "        /*0010*/   @P0MOV R0 ;",
            23,
            "whitespace after the predicate",
        ),
        ("        /*0010*/   @P0 mov R0 ;", 24, "expected an opcode"),
        ("        /*0010*/   MOV R0, , RZ ;", 28, "empty operand"),
        (
            "        /*0010*/   LDG.E R2, [R4.64]] ;",
            37,
            "unbalanced `]`",
        ),
        ("        /*0010*/   LDG.E R2, [R4.64 ;", 37, "unclosed `[`"),
        (
            "        /*0010*/   EXIT ; junk",
            27,
            "unexpected text after `;`",
        ),
        ("        /*00zz*/   EXIT ;", 9, "expected an address"),
        ("        garbage here", 9, "expected an instruction"),
        ("        /* 0xzz */", 9, "expected an encoding"),
        ("\t//## File \"a.cu\" line x", 7, "expected `File"),
        ("\t//## File \"a.cu\", line 3 inlined by", 27, "inlined at"),
        (
            "        /*0010*/   BRX R8 (*\"BRANCH_TARGETS .L_x_1 ;",
            27,
            "unclosed annotation",
        ),
    ];
    for (body, col, msg) in cases {
        let (line, c, m) = err(&format!("{HEAD}{body}\n"));
        assert_eq!((line, c), (3, *col), "{body:?}: {m}");
        assert!(m.contains(msg), "{body:?}: {m}");
    }
}

#[test]
fn addresses_must_increase() {
    let text = format!("{HEAD}        /*0010*/ EXIT ;\n        /*0010*/ EXIT ;\n");
    let (line, col, m) = err(&text);
    assert_eq!((line, col), (4, 9));
    assert!(m.contains("does not follow"), "{m}");
}

#[test]
fn columns_count_characters() {
    // `é` is two bytes; the column (of the second comma) counts it once.
    let (line, col, _) = err(&format!("{HEAD}/*0000*/ MOV é, , R1 ;\n"));
    assert_eq!((line, col), (3, 17));
}

#[test]
fn display_is_line_col_message() {
    let e = sass::parse_listing(&format!("{HEAD}  oops\n")).unwrap_err();
    assert!(
        e.to_string().starts_with("3:3: expected an instruction"),
        "{e}"
    );
}

#[test]
fn text_outside_functions_is_skipped() {
    let l =
        sass::parse_listing("Fatbin elf code:\n================\narch = sm_90\nnot a listing\n")
            .unwrap();
    assert!(l.kernels.is_empty());
    assert_eq!(l.format, sass::Format::Unknown);
}

#[test]
fn resource_usage_errors() {
    let e = sass::parse_resource_usage(" Function k:\n  REG:xx STACK:0\n").unwrap_err();
    assert_eq!((e.line, e.col), (2, 7), "{e}");
    assert!(e.message.contains("number after `REG:`"), "{e}");
    let e = sass::parse_resource_usage("  REG:3\n").unwrap_err();
    assert_eq!((e.line, e.col), (1, 3), "{e}");
    let e = sass::parse_resource_usage(" Function k:\n  REG:3 bogus\n").unwrap_err();
    assert_eq!((e.line, e.col), (2, 9), "{e}");
    // The older one-line form.
    let r = sass::parse_resource_usage("Function k:REG:32 STACK:8 SHARED:0 LOCAL:4\n").unwrap();
    assert_eq!(r[0].registers, Some(32));
    assert_eq!(r[0].stack_bytes, Some(8));
    assert_eq!(r[0].local_bytes, Some(4));
    // A module with `__constant__` data (rodinia's cfd) lists its bank 3 under `Common:`.
    let r = sass::parse_resource_usage(
        "Resource usage:\n Common:\n  GLOBAL:0 CONSTANT[3]:68\n Function k:\n  REG:69 SHARED:0\n",
    )
    .unwrap();
    assert_eq!((r.len(), r[0].registers), (1, Some(69)));
    assert!(r[0].constant_bytes.is_empty());
}

#[test]
fn ptxas_info_errors() {
    let text = "ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
                ptxas info    : Used xx registers, used 0 barriers\n";
    let e = sass::parse_ptxas_info(text).unwrap_err();
    assert_eq!((e.line, e.col), (2, 22), "{e}");
    assert!(e.message.contains("expected a number"), "{e}");
    let e = sass::parse_ptxas_info("    0 bytes stack frame, 0 bytes spill stores\n").unwrap_err();
    assert_eq!((e.line, e.col), (1, 5), "{e}");
    let e = sass::parse_ptxas_info("ptxas info    : Compiling entry function k for 'sm_90'\n")
        .unwrap_err();
    assert!(e.message.contains("in quotes"), "{e}");
}
