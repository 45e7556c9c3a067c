//! A suite manifest is read as written or refused with the cause: files stay inside the suite
//! folder, a parameter index appears once, and a value has its parameter's type (a value of
//! the wrong type was dropped as if the parameter had none).

use std::path::{Path, PathBuf};

mod support;

/// A copy of the Rodinia suite whose manifest `edit` changes (the data files linked).
fn suite_with(name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    support::suite_with("manifest", name, edit, &[])
}

fn refused(name: &str, edit: impl Fn(&str) -> String, cause: &str) {
    refused_in("gaussian_fan2", name, edit, cause);
}

fn refused_in(kernel: &str, name: &str, edit: impl Fn(&str) -> String, cause: &str) {
    let dir = suite_with(name, edit);
    let e = eval::load(&dir, &[kernel.to_string()])
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains(cause), "{name}: {e}");
}

#[test]
fn files_outside_the_suite_folder_are_refused() {
    refused(
        "parent",
        |t| {
            t.replacen(
                "ptx = \"gaussian.ptx\"",
                "ptx = \"../heldout/a_dgemm.ptx\"",
                1,
            )
        },
        "`../heldout/a_dgemm.ptx`: files are named relative to the suite folder",
    );
    refused(
        "absolute",
        |t| t.replacen("ptx = \"gaussian.ptx\"", "ptx = \"/etc/hostname\"", 1),
        "`/etc/hostname`: files are named relative to the suite folder",
    );
}

#[test]
fn parameter_values_have_their_type_and_indices_appear_once() {
    let fan2_n =
        "index = 3\nname = \"_Z13gaussian_fan2PfS_PKfii_param_3\"\ntype = \"s32\"\nvalue = 4096";
    refused(
        "float",
        |t| t.replacen(fan2_n, &fan2_n.replace("4096", "4096.7"), 1),
        "4096.7 for parameter 3",
    );
    refused(
        "string",
        |t| t.replacen(fan2_n, &fan2_n.replace("4096", "\"4096\""), 1),
        "expected an integer",
    );
    refused(
        "duplicate",
        |t| {
            t.replacen(
                "index = 3\nname = \"_Z13gaussian_fan2",
                "index = 2\nname = \"_Z13gaussian_fan2",
                1,
            )
        },
        "`param.index`: 2 twice",
    );
}

/// Hotspot's `Cap` (`.f32`, value 0.5) as the manifest gives it.
const HOTSPOT_CAP: &str =
    "index = 8\nname = \"_Z10hotspot_2diPKfS0_Pfiiiifffff_param_8\"\ntype = \"f32\"\nvalue = 0.5";

#[test]
fn float_parameters_take_numbers_their_type_holds() {
    // Floats of float parameters are launch values, bound as their IEEE bits.
    let s = eval::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ptx_samples/rodinia"),
        &["hotspot".to_string()],
    )
    .unwrap();
    let params = s.kernels[0].launch_params();
    assert!(
        params.contains(&("8".to_string(), ir::ParamValue::Float(0.5))),
        "{params:?}"
    );
    // An integer is a number too (2 is 2.0), as long as the type holds it exactly.
    let dir = suite_with("float_int", |t| {
        t.replacen(HOTSPOT_CAP, &HOTSPOT_CAP.replace("0.5", "2"), 1)
    });
    eval::load(&dir, &["hotspot".to_string()]).unwrap();
    refused_in(
        "hotspot",
        "float_past_f32",
        |t| t.replacen(HOTSPOT_CAP, &HOTSPOT_CAP.replace("0.5", "1e39"), 1),
        "1e39 for parameter 8 (`_Z10hotspot_2diPKfS0_Pfiiiifffff_param_8`, f32): 1e39 is past \
         the largest finite .f32 value",
    );
    refused_in(
        "hotspot",
        "float_inexact_int",
        |t| t.replacen(HOTSPOT_CAP, &HOTSPOT_CAP.replace("0.5", "16777217"), 1),
        "16777217 has no exact .f32 value",
    );
    refused_in(
        "hotspot",
        "float_nan",
        |t| t.replacen(HOTSPOT_CAP, &HOTSPOT_CAP.replace("0.5", "nan"), 1),
        "is not a finite number",
    );
    refused_in(
        "hotspot",
        "float_string",
        |t| t.replacen(HOTSPOT_CAP, &HOTSPOT_CAP.replace("0.5", "\"0.5\""), 1),
        "expected a number",
    );
}

#[test]
fn parameter_types_are_known_and_pointers_take_no_value() {
    let fan2_a = "index = 0\nname = \"_Z13gaussian_fan2PfS_PKfii_param_0\"\ntype = \"ptr\"";
    refused(
        "ptr_value",
        |t| t.replacen(fan2_a, &format!("{fan2_a}\nvalue = 4096"), 1),
        "4096 for parameter 0 (`_Z13gaussian_fan2PfS_PKfii_param_0`, ptr): a pointer takes no value",
    );
    refused(
        "unknown_type",
        |t| t.replacen(fan2_a, &fan2_a.replace("ptr", "float"), 1),
        "`param.type`: `float` for parameter 0",
    );
}
