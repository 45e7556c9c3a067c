//! What the gpu crate's integration tests share: PTX text through the whole front end, and
//! one profiled launch of kernel `k` as an `ncu --csv` export would give it.
// Each test binary compiles this module and uses part of it.
#![allow(dead_code)]

/// The IDGs of kernel `entry` of `ptx` at a launch without parameters or trip inputs.
pub fn front_end(ptx: &str, entry: &str, grid: [u32; 3], block: [u32; 3]) -> walk::Built {
    let module = ptx::parse(ptx).unwrap();
    walk::front_end(
        &module,
        entry,
        &ir::Launch {
            grid,
            block,
            params: vec![],
        },
        &ir::TripInputs::default(),
        &walk::Options::default(),
    )
    .unwrap()
    .built
}

/// A launch of kernel `k` with these metric values, parsed from an `ncu --csv` text.
pub fn launch(metrics: &[(&str, f64)]) -> profile::Launch {
    let names: Vec<String> = metrics.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    let units: Vec<&str> = metrics.iter().map(|_| "\"\"").collect();
    let values: Vec<String> = metrics.iter().map(|(_, v)| format!("\"{v}\"")).collect();
    let text = format!(
        "\"ID\",\"Kernel Name\",{}\n\"\",\"\",{}\n\"0\",\"k\",{}\n",
        names.join(","),
        units.join(","),
        values.join(",")
    );
    profile::parse(&text, "t.csv").unwrap().kernels[0].launches[0].clone()
}
