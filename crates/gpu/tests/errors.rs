//! Malformed profile files: every error names the offending key.

use gpu::{GpuError, GpuProfile};

/// A minimal valid profile; tests break one thing at a time.
const BASE: &str = r#"
name = "t"
architecture = "Test"
vendor = "X"
sm_count = 2
clock_mhz = 1000
issue_limit = 1
subsystems = [{ name = "alu" }, { name = "mem" }]

[limits]
max_warps_per_sm = 48
max_blocks_per_sm = 8
max_threads_per_sm = 1536
registers_per_sm = 32768
shared_memory_per_sm = 49152
max_threads_per_block = 1024
max_shared_memory_per_block = 49152

[classes]
"f32.mul"  = { subsystem = "alu", lambda = 1, latency = 18 }
"f32.div"  = { subsystem = "alu", lambda = 3, latency = 45 }
"f64.mul"  = { subsystem = "alu", lambda = 2, latency = 22 }
"int.mul"  = { subsystem = "alu", lambda = 2, latency = 18 }
"int.div"  = { subsystem = "alu", lambda = 20, latency = 200 }
"sfu.cos"  = { subsystem = "alu", lambda = 8, latency = 40 }
"bar.sync" = { subsystem = "alu", lambda = 2, latency = 40 }

[memory]
dram   = { lambda = 23, latency = 475 }
shared = { lambda = 2, latency = 28 }
"#;

fn err(text: &str) -> String {
    match GpuProfile::from_toml_str(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn assert_names(text: &str, key: &str) {
    let e = err(text);
    assert!(e.contains(key), "error does not name `{key}`: {e}");
}

#[test]
fn base_is_valid() {
    let p = GpuProfile::from_toml_str(BASE).unwrap();
    // Derived by rules: f64.div = f64.mul · (13/2, 97/10).
    let d = p.class(gpu::InstClass::F64Div);
    assert_eq!(d.lambda.to_string(), "13");
    assert_eq!(d.latency.to_string(), "213.4");
    // unknown = the slowest arithmetic class (int.div here: λ 20 > f64.div's 13).
    assert_eq!(p.class(gpu::InstClass::Unknown).lambda.to_string(), "20");
}

#[test]
fn missing_top_level_key() {
    assert_names(&BASE.replace("sm_count = 2\n", ""), "sm_count");
}

#[test]
fn wrong_type() {
    assert_names(
        &BASE.replace("sm_count = 2", "sm_count = \"two\""),
        "sm_count",
    );
}

#[test]
fn unknown_field() {
    assert_names(
        &BASE.replace("vendor = \"X\"", "vendor = \"X\"\nspeed = 3"),
        "speed",
    );
}

#[test]
fn missing_required_class() {
    let e = GpuProfile::from_toml_str(&BASE.replace(
        "\"f32.mul\"  = { subsystem = \"alu\", lambda = 1, latency = 18 }\n",
        "",
    ))
    .unwrap_err();
    assert!(
        matches!(&e, GpuError::MissingKey { key, .. } if key == "classes.\"f32.mul\""),
        "{e}"
    );
}

#[test]
fn missing_required_memory_level() {
    assert_names(
        &BASE.replace("dram   = { lambda = 23, latency = 475 }\n", ""),
        "memory.dram",
    );
}

#[test]
fn unknown_class_and_level() {
    assert_names(
        &BASE.replace(
            "[memory]",
            "\"f32.pow\" = { subsystem = \"alu\", lambda = 1, latency = 1 }\n[memory]",
        ),
        "classes.\"f32.pow\"",
    );
    assert_names(
        &BASE.replace("[memory]", "[memory]\nl3 = { lambda = 1, latency = 1 }"),
        "memory.l3",
    );
}

#[test]
fn unknown_subsystem() {
    assert_names(
        &BASE.replace(
            "\"sfu.cos\"  = { subsystem = \"alu\"",
            "\"sfu.cos\"  = { subsystem = \"sfu\"",
        ),
        "classes.\"sfu.cos\".subsystem",
    );
    assert_names(
        &BASE.replace(
            "issue_limit = 1",
            "issue_limit = 1\nmemory_subsystem = \"lsu\"",
        ),
        "memory_subsystem",
    );
    assert_names(
        &BASE.replace(
            "issue_limit = 1",
            "issue_limit = 1\nreread_subsystem = \"l2\"",
        ),
        "reread_subsystem",
    );
}

#[test]
fn inexact_and_negative_times() {
    assert_names(
        &BASE.replace("lambda = 3, latency = 45", "lambda = 0.3333, latency = 45"),
        "classes.\"f32.div\".lambda",
    );
    assert_names(
        &BASE.replace("lambda = 23, latency = 475", "lambda = 23, latency = -1"),
        "memory.dram.latency",
    );
}

#[test]
fn zero_counts_and_duplicates() {
    assert_names(
        &BASE.replace("max_warps_per_sm = 48", "max_warps_per_sm = 0"),
        "limits.max_warps_per_sm",
    );
    assert_names(
        &BASE.replace("{ name = \"mem\" }]", "{ name = \"alu\" }]"),
        "subsystems[1].name",
    );
    assert_names(
        &BASE.replace("issue_limit = 1", "issue_limit = 0"),
        "issue_limit",
    );
}

#[test]
fn file_errors_name_the_file() {
    let e = GpuProfile::from_file(std::path::Path::new("no/such/profile.toml")).unwrap_err();
    assert!(e.to_string().contains("no/such/profile.toml"), "{e}");
}

#[test]
fn sass_expansion_factors_must_be_positive_and_complete() {
    let table = "\n[sass_expansion]\ninst = 1.1\nglobal_ld = 1\nglobal_st = 1\nshared_ld = 1\nshared_st = 1\nbranch = 1.2\n";
    let p = GpuProfile::from_toml_str(&format!("{BASE}{table}")).unwrap();
    assert_eq!(p.sass_expansion.inst, 1.1);
    assert_eq!(p.sass_expansion.branch, 1.2);
    assert_names(
        &format!("{BASE}{}", table.replace("branch = 1.2", "branch = 0")),
        "sass_expansion.branch",
    );
    assert_names(
        &format!("{BASE}{}", table.replace("branch = 1.2\n", "")),
        "branch",
    );
}

#[test]
fn unified_model_weights_are_optional_and_finite() {
    assert_eq!(GpuProfile::from_toml_str(BASE).unwrap().unified_model, None);
    let table = "\n[unified_model]\nsource = \"synthetic\"\n\n[unified_model.weights]\nconst = 3e-6\nglobal_load_32_stride1 = -1.5e-12\n";
    let p = GpuProfile::from_toml_str(&format!("{BASE}{table}")).unwrap();
    let u = p.unified_model.unwrap();
    assert_eq!(u.source, "synthetic");
    assert_eq!(u.weights["const"], 3e-6);
    assert_eq!(u.weights["global_load_32_stride1"], -1.5e-12);
    assert_names(
        &format!("{BASE}{}", table.replace("-1.5e-12", "nan")),
        "unified_model.weights.global_load_32_stride1",
    );
    assert_names(
        &format!("{BASE}{}", table.replace("source", "origin")),
        "origin",
    );
}
