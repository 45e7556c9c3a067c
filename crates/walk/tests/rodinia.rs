//! Builds the IDGs of Rodinia kernels from the committed suite and checks their shape against
//! what the CUDA source does by construction.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn build(
    ptx: &str,
    entry: &str,
    grid: [u32; 3],
    block: [u32; 3],
    params: &[(&str, i64)],
) -> walk::Built {
    let text = std::fs::read_to_string(root().join(ptx)).unwrap();
    let module = ptx::parse(&text).unwrap();
    let kernel = ir::lower_kernel(&module, entry).unwrap();
    let an = ir::analyze(&kernel).unwrap();
    let launch = ir::Launch {
        grid,
        block,
        params: params.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
    }
    .bind(&kernel)
    .unwrap();
    let trips = ir::resolve_trips(&kernel, &an, &launch, &ir::TripInputs::default()).unwrap();
    walk::build(&kernel, &an, &launch, &trips, &walk::Options::default()).unwrap()
}

#[test]
fn gaussian_fan2() {
    let b = build(
        "ptx_samples/rodinia/gaussian.ptx",
        "_Z13gaussian_fan2PfS_PKfii",
        [512, 512, 1],
        [8, 8, 1],
        &[("3", 4096), ("4", 0)],
    );
    for c in &b.idgs.classes {
        eprintln!("warps {:?} stats {:?}", c.warps, c.idg.stats());
    }
    if b.idgs.classes.len() > 1 {
        let (a, c) = (&b.idgs.classes[0].idg, &b.idgs.classes[1].idg);
        for (x, y) in a.nodes.iter().zip(&c.nodes) {
            if x != y {
                eprintln!("{:?}\n{:?}", x, y);
                break;
            }
        }
    }
    assert!(!b.idgs.classes.is_empty());
}
