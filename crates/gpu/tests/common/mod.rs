//! What the gpu crate's integration tests share: PTX text through the whole front end.

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
