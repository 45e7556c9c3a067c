//! Compiling the project's PTX with the NVIDIA tools found on this machine. Without them these
//! tests skip with a message; in CI (env CI set) a missing tool fails them instead.

use sass::analysis::{analyze, Class};
use sass::tools::{compile, CompileOptions, Disassembler, Tool, ToolError, Toolchain};

fn toolchain(needed: &[Tool]) -> Option<Toolchain> {
    let t = Toolchain::discover();
    for tool in needed {
        if let Err(e) = t.require(*tool) {
            if std::env::var_os("CI").is_some() {
                panic!("CI must have the NVIDIA tools: {e}");
            }
            eprintln!("skipping: {e}");
            return None;
        }
    }
    Some(t)
}

fn loops_ptx() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../ptx_samples/sm_90/loops.ptx"
    );
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn compile_and_disassemble_with_cuobjdump() {
    let Some(t) = toolchain(&[Tool::Ptxas, Tool::Cuobjdump]) else {
        return;
    };
    let c = compile(&t, &loops_ptx(), &CompileOptions::default()).unwrap();
    let k = c.listing.kernel("_Z6nestedPKfPfii").unwrap();
    let a = analyze(k);
    assert_eq!(a.loops.len(), 2);
    assert_eq!(a.body.get(Class::GlobalLoad), 1);
    assert_eq!(c.resources.len(), 5);
    let r = c.resources.iter().find(|r| r.name == k.name).unwrap();
    assert!(r.registers.is_some_and(|n| n > 0));
    assert_eq!(r.spill_store_bytes, Some(0));
    assert_eq!(r.arch.as_deref(), Some("sm_90"));
}

#[test]
fn compile_with_line_info_and_nvdisasm() {
    let Some(t) = toolchain(&[Tool::Ptxas, Tool::Nvdisasm]) else {
        return;
    };
    let opts = CompileOptions {
        disassembler: Disassembler::Nvdisasm,
        line_info: true,
        ..CompileOptions::default()
    };
    let c = compile(&t, &loops_ptx(), &opts).unwrap();
    assert_eq!(c.listing.kernels.len(), 5);
    for k in &c.listing.kernels {
        let src = k.instructions[0].source.as_ref().unwrap();
        assert_eq!(src.file, "ptx_samples/cuda/loops.cu");
    }
}

#[test]
fn ptxas_errors_are_reported() {
    let Some(t) = toolchain(&[Tool::Ptxas, Tool::Cuobjdump]) else {
        return;
    };
    let bad = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus; }\n";
    match compile(&t, bad, &CompileOptions::default()) {
        Err(ToolError::Failed { tool, stderr, .. }) => {
            assert_eq!(tool, Tool::Ptxas);
            assert!(!stderr.is_empty());
        }
        other => panic!("expected ptxas to fail, got {other:?}"),
    }
}

#[test]
fn a_missing_tool_says_how_to_get_it() {
    let none = Toolchain::default();
    let e = compile(&none, "", &CompileOptions::default()).unwrap_err();
    assert!(
        matches!(
            e,
            ToolError::Missing {
                tool: Tool::Ptxas,
                ..
            }
        ),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("pip install nvidia-cuda-nvcc nvidia-cuda-cuobjdump"),
        "{msg}"
    );
    assert!(msg.contains("ptxas is in nvidia-cuda-nvcc"), "{msg}");
}

#[test]
fn resources_alone_match_compile() {
    let Some(t) = toolchain(&[Tool::Ptxas, Tool::Cuobjdump]) else {
        return;
    };
    let r = sass::tools::resources(&t, &loops_ptx(), "sm_90").unwrap();
    let c = compile(&t, &loops_ptx(), &CompileOptions::default()).unwrap();
    assert_eq!(r, c.resources);
}

#[test]
fn a_second_compile_reads_the_cache() {
    let Some(t) = toolchain(&[Tool::Ptxas, Tool::Nvdisasm]) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("sass-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = CompileOptions {
        disassembler: Disassembler::Nvdisasm,
        line_info: true,
        cache: Some(dir.clone()),
        ..CompileOptions::default()
    };
    let first = compile(&t, &loops_ptx(), &opts).unwrap();
    let second = compile(&t, &loops_ptx(), &opts).unwrap();
    assert!(!first.cached && second.cached);
    assert_eq!(first.listing, second.listing);
    assert_eq!(first.resources, second.resources);
    // Other options are another entry: no line info, not the listing with it.
    let plain = CompileOptions {
        line_info: false,
        ..opts.clone()
    };
    let third = compile(&t, &loops_ptx(), &plain).unwrap();
    assert!(!third.cached);
    assert!(third.listing.kernels[0].instructions[0].source.is_none());
    // An entry that no longer parses is compiled again and replaced.
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "sass") {
            std::fs::write(&p, "\tcode for sm_90\n\t\tFunction : k\n\t/*0000*/ ???\n").unwrap();
        }
    }
    let again = compile(&t, &loops_ptx(), &opts).unwrap();
    assert!(!again.cached);
    assert_eq!(again.listing, first.listing);
    assert!(compile(&t, &loops_ptx(), &opts).unwrap().cached);
    let _ = std::fs::remove_dir_all(&dir);
}
