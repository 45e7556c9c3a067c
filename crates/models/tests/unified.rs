//! The unified model's property counts of hand-written PTX (checked by hand in the comments)
//! and its fit on synthetic timings.

use std::collections::BTreeMap;

use models::unified::{
    count_properties, fit, predict_seconds, Dir, Float, FlopKind, Property, PropertyCounts, Size,
    StrideClass, UnifiedError,
};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/unified/{name}.ptx",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// PTX -> IDGs of `entry` for a 1-D launch, every group walked.
fn counts(name: &str, grid: u32, block: u32, params: &[(&str, i64)]) -> PropertyCounts {
    let module = ptx::parse(&fixture(name)).unwrap();
    let kernel = ir::lower_kernel(&module, name).unwrap();
    let an = ir::analyze(&kernel).unwrap();
    let launch = ir::Launch {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        params: params
            .iter()
            .map(|(n, v)| (n.to_string(), ir::ParamValue::Int(*v)))
            .collect(),
    }
    .bind(&kernel)
    .unwrap();
    let trips = ir::resolve_trips(
        &kernel,
        &an,
        &launch,
        &ir::TripInputs {
            explicit: &[],
            profile: None,
        },
    )
    .unwrap();
    let opts = walk::Options {
        groups: walk::Groups::All,
        ..walk::Options::default()
    };
    let built = walk::build(&kernel, &an, &launch, &trips, &opts).unwrap();
    count_properties(&built.idgs)
}

fn named(c: &PropertyCounts) -> BTreeMap<String, f64> {
    c.named().into_iter().collect()
}

fn expect(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
    pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

#[test]
fn saxpy_stride_1_counts_by_hand() {
    // 4 groups of 256 threads, all in range: per thread two f32 loads and one store of
    // stride 1 and one fma (a multiplication and an addition); the integer mad is not counted.
    let c = counts("saxpy_stride", 4, 256, &[("n", 1024), ("s", 1), ("a", 0)]);
    assert_eq!(
        named(&c),
        expect(&[
            ("global_load_32_stride1", 2048.0),
            ("global_store_32_stride1", 1024.0),
            ("global_minls_32_stride1", 1024.0),
            ("f32_add", 1024.0),
            ("f32_mul", 1024.0),
            ("work_group", 4.0),
            ("const", 1.0),
        ])
    );
}

#[test]
fn saxpy_strides_2_and_9_are_unfilled_fractions() {
    // Stride 2 (no access re-reads the warp's sectors): 1/2; stride 9: past 4, 1/>4.
    let c = counts("saxpy_stride", 2, 128, &[("n", 256), ("s", 2), ("a", 0)]);
    assert_eq!(
        c.get(Property::from_name("global_load_32_1of2").unwrap()),
        512.0
    );
    assert_eq!(
        c.get(Property::from_name("global_store_32_1of2").unwrap()),
        256.0
    );
    assert_eq!(
        c.get(Property::from_name("global_minls_32_1of2").unwrap()),
        256.0
    );
    assert_eq!(
        c.get(Property::from_name("global_load_32_stride1").unwrap()),
        0.0
    );
    let c = counts("saxpy_stride", 2, 128, &[("n", 256), ("s", 9), ("a", 0)]);
    assert_eq!(
        c.get(Property::Global {
            dir: Dir::Load,
            size: Size::B32,
            stride: StrideClass::Frac {
                used: 1,
                of: StrideClass::MANY
            }
        }),
        512.0
    );
}

#[test]
fn saxpy_out_of_range_threads_count_nothing() {
    // n = 200 of 256 threads: the last warps' loads are off. Every group is walked.
    let c = counts("saxpy_stride", 1, 256, &[("n", 200), ("s", 1), ("a", 0)]);
    assert_eq!(
        c.get(Property::from_name("global_load_32_stride1").unwrap()),
        400.0
    );
    assert_eq!(c.get(Property::from_name("f32_mul").unwrap()), 200.0);
}

#[test]
fn tile_loop_counts_by_hand() {
    // 2 groups of 256 threads, k = 10 iterations.
    // Once per thread: an f32 load of stride 1, an f64 uniform load (c[0]), a barrier, an
    // f64 add, an f64 store of stride 1. Per iteration: a shared load, add + sub (2 adds),
    // mul, div, ex2, rsqrt. The cvt and the integer loop counter are not counted.
    let c = counts("tile_loop", 2, 256, &[("k", 10)]);
    assert_eq!(
        named(&c),
        expect(&[
            ("global_load_32_stride1", 512.0),
            ("global_load_64_stride0", 512.0),
            ("global_store_64_stride1", 512.0),
            ("shared_load_32", 5120.0),
            ("f32_add", 10240.0),
            ("f32_mul", 5120.0),
            ("f32_div", 5120.0),
            ("f32_exp", 5120.0),
            ("f32_special", 5120.0),
            ("f64_add", 512.0),
            ("barrier", 512.0),
            ("work_group", 2.0),
            ("const", 1.0),
        ])
    );
}

/// A deterministic generator in [0, 1).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Measured rows and the true weights.
type Synthetic = (Vec<(PropertyCounts, f64)>, Vec<(Property, f64)>);

fn synthetic(noise: f64) -> Synthetic {
    let truth = vec![
        (
            Property::from_name("global_load_32_stride1").unwrap(),
            3e-12,
        ),
        (
            Property::from_name("global_store_32_stride1").unwrap(),
            5e-12,
        ),
        (Property::from_name("global_load_32_1of2").unwrap(), 9e-12),
        (
            Property::Flop {
                ty: Float::F32,
                kind: FlopKind::Mul,
            },
            1e-12,
        ),
        (
            Property::Flop {
                ty: Float::F64,
                kind: FlopKind::Div,
            },
            2e-12,
        ),
        (Property::Barrier, -1e-12),
        (Property::WorkGroup, 2e-9),
        (Property::Const, 3e-6),
    ];
    let mut rng = Lcg(7);
    let rows = (0..40)
        .map(|_| {
            let mut c = PropertyCounts::default();
            let mut t = 0.0;
            for (p, w) in &truth {
                let v = match p {
                    Property::Const => 1.0,
                    Property::WorkGroup => (1.0 + 4096.0 * rng.next()).round(),
                    _ => (1e6 * (1.0 + 99.0 * rng.next())).round(),
                };
                c.add(*p, v);
                t += w * v;
            }
            let t = t * (1.0 + noise * (2.0 * rng.next() - 1.0));
            (c, t)
        })
        .collect();
    (rows, truth)
}

#[test]
fn fit_recovers_known_weights_exactly_without_noise() {
    let (rows, truth) = synthetic(0.0);
    let f = fit(&rows).unwrap();
    assert!(f.dropped.is_empty());
    assert_eq!(f.weights.len(), truth.len());
    for (p, w) in &truth {
        let got = f.weights.iter().find(|(q, _)| q == p).unwrap().1;
        assert!((got - w).abs() <= 1e-8 * w.abs(), "{p}: {got} vs {w}");
    }
    assert!(f.geomean_rel_error() < 1e-10);
}

#[test]
fn fit_recovers_known_weights_approximately_with_one_percent_noise() {
    let (rows, truth) = synthetic(0.01);
    let f = fit(&rows).unwrap();
    let min_t = rows.iter().map(|(_, t)| *t).fold(f64::INFINITY, f64::min);
    for (p, w) in &truth {
        let got = f.weights.iter().find(|(q, _)| q == p).unwrap().1;
        let max_count = rows.iter().map(|(c, _)| c.get(*p)).fold(0.0, f64::max);
        // No weight's error moves a prediction by more than 3 % of the shortest time ...
        assert!(
            (got - w).abs() * max_count <= 0.03 * min_t,
            "{p}: {got} vs {w}"
        );
        // ... and the weights that carry a tenth of the time are within 10 %.
        if w.abs() * max_count >= 0.1 * min_t {
            assert!((got - w).abs() <= 0.1 * w.abs(), "{p}: {got} vs {w}");
        }
    }
    let e = f.geomean_rel_error();
    assert!(e > 1e-4 && e < 0.01, "{e}");
}

#[test]
fn fit_drops_a_collinear_property_and_refuses_too_few_rows() {
    let (mut rows, _) = synthetic(0.0);
    // f64_special always equals f32_mul: one of them is determined only with the other.
    let twin = Property::Flop {
        ty: Float::F64,
        kind: FlopKind::Special,
    };
    for (c, _) in &mut rows {
        let v = c.get(Property::Flop {
            ty: Float::F32,
            kind: FlopKind::Mul,
        });
        c.add(twin, v);
    }
    let f = fit(&rows).unwrap();
    assert_eq!(f.dropped, vec![twin]);
    assert!(f.geomean_rel_error() < 1e-10);
    assert!(matches!(fit(&rows[..5]), Err(UnifiedError::Fit(_))));
}

#[test]
fn prediction_needs_every_present_property_weighted() {
    let mut c = PropertyCounts::default();
    c.add(Property::Const, 1.0);
    c.add(Property::WorkGroup, 10.0);
    let mut w = BTreeMap::new();
    assert_eq!(predict_seconds(&c, &w), Err(UnifiedError::NoWeights));
    w.insert("const".to_string(), 2e-6);
    assert!(matches!(
        predict_seconds(&c, &w),
        Err(UnifiedError::MissingWeight { ref property, .. }) if property == "work_group"
    ));
    w.insert("work_group".to_string(), 1e-8);
    let t = predict_seconds(&c, &w).unwrap();
    assert!((t - 2.1e-6).abs() < 1e-18);
    w.insert("no_such".to_string(), 1.0);
    assert_eq!(
        predict_seconds(&c, &w),
        Err(UnifiedError::UnknownProperty("no_such".into()))
    );
}
