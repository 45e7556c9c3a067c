//! Snapshots of the CFG summary and loop forest of every kernel in `ptx_samples/*/` under a
//! fixed small launch (2 blocks of 128 threads, no parameter values). `ptx_samples/large/`
//! (parser stress input, half a million lines) is left to the parser's own tests to keep this
//! suite fast.

use std::path::Path;

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../../snapshots/ir"));
    s.set_prepend_module_to_snapshot(false);
    s
}

fn render_file(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("sample readable");
    let module = match ptx::parse(&text) {
        Ok(m) => m,
        Err(e) => return format!("parse error: {e}\n"),
    };
    let mut out = String::new();
    for f in module.kernels() {
        let kernel = match ir::lower_kernel(&module, &f.name) {
            Ok(k) => k,
            Err(e) => {
                out.push_str(&format!("kernel {}: error: {e}\n\n", f.name));
                continue;
            }
        };
        let an = match ir::analyze(&kernel) {
            Ok(a) => a,
            Err(e) => {
                out.push_str(&format!("kernel {}: error: {e}\n\n", f.name));
                continue;
            }
        };
        let launch = ir::Launch {
            grid: [2, 1, 1],
            block: [128, 1, 1],
            params: Vec::new(),
        }
        .bind(&kernel)
        .expect("launch binds");
        let trips = ir::resolve_trips(&kernel, &an, &launch, &ir::TripInputs::default())
            .expect("no explicit rows, cannot fail");
        out.push_str(&ir::render::summary(&kernel, &an, Some(&trips)));
        out.push('\n');
    }
    out
}

#[test]
fn sample_summaries() {
    settings().bind(|| {
        insta::glob!(
            "../../../ptx_samples",
            "{sm_*,debug,rodinia,llvm,triton}/*.ptx",
            |path| {
                insta::assert_snapshot!(render_file(path));
            }
        );
    });
}

/// JSON and DOT renderings of one small kernel with nested loops, under its documented launch.
#[test]
fn nested_loops_json_and_dot() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../ptx_samples/sm_90/loops.ptx"
    );
    let text = std::fs::read_to_string(path).expect("sample readable");
    let module = ptx::parse(&text).expect("parses");
    let kernel = ir::lower_kernel(&module, "_Z6nestedPKfPfii").expect("lowers");
    let an = ir::analyze(&kernel).expect("reducible");
    let launch = ir::Launch {
        grid: [4, 1, 1],
        block: [128, 1, 1],
        params: vec![("2".into(), 16.into()), ("3".into(), 8.into())],
    }
    .bind(&kernel)
    .expect("binds");
    let trips =
        ir::resolve_trips(&kernel, &an, &launch, &ir::TripInputs::default()).expect("resolves");
    settings().bind(|| {
        insta::assert_snapshot!("nested_json", ir::render::json(&kernel, &an, Some(&trips)));
        insta::assert_snapshot!("nested_dot", ir::render::dot(&kernel, &an, Some(&trips)));
        insta::assert_snapshot!("nested_explain", ir::render::explain(&kernel, &an, &trips));
    });
}
