//! `map_kernel` end to end on small PTX kernels: conservative class and one warning per
//! unclassifiable mnemonic, profiler metrics deciding the memory level while the static
//! pattern decides coalescing, generic accesses resolved to shared memory.

use gpu::{map_kernel, Cycles, GMetrics, GpuProfile, InstClass, MapSource, MemLevel, Warning};

fn build(body: &str, block: u32) -> idg::KernelIdgs {
    let src = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 p)\n{{\n\
         \t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n\t.reg .f32 %f<16>;\n\
         \t.shared .align 4 .b8 buf[4096];\n{body}\tret;\n}}\n"
    );
    let module = ptx::parse(&src).unwrap_or_else(|e| panic!("{e:?}\n{src}"));
    walk::front_end(
        &module,
        "k",
        &ir::Launch {
            grid: [1, 1, 1],
            block: [block, 1, 1],
            params: vec![],
        },
        &ir::TripInputs::default(),
        &walk::Options::default(),
    )
    .unwrap()
    .built
    .idgs
}

const GLOBAL_LOAD: &str = "\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
     \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\
     \tld.global.f32 %f1, [%rd4];\n";

fn timing_of(idgs: &idg::KernelIdgs, t: &[gpu::ClassTiming], mnemonic: &str) -> gpu::NodeTiming {
    let (i, _) = idgs.classes[0]
        .idg
        .nodes
        .iter()
        .enumerate()
        .find(|(_, n)| n.op.to_string() == mnemonic)
        .unwrap_or_else(|| panic!("no {mnemonic}"));
    t[0].nodes[i]
}

/// Without counters a global access moves its sectors to or from DRAM: a coalesced warp's
/// 4-byte load and store 128 bytes each; a word every lane reads stays on chip; arithmetic
/// moves none.
#[test]
fn global_accesses_carry_their_static_dram_bytes() {
    let body = format!("{GLOBAL_LOAD}\tst.global.f32 [%rd4], %f1;\n\tld.global.u32 %r5, [%rd2];\n");
    let idgs = build(&body, 32);
    let g = GpuProfile::bundled("hopper-h100").unwrap();
    let (t, _) = map_kernel(&idgs, &g, None);
    assert_eq!(timing_of(&idgs, &t, "ld.global.f32").dram_bytes, 128);
    assert_eq!(timing_of(&idgs, &t, "st.global.f32").dram_bytes, 128);
    assert_eq!(timing_of(&idgs, &t, "ld.global.u32").dram_bytes, 0);
    assert_eq!(timing_of(&idgs, &t, "mul.wide.u32").dram_bytes, 0);
}

#[test]
fn unknown_opcodes_get_the_conservative_class_and_one_warning() {
    let body = format!("{GLOBAL_LOAD}\tfrobnicate.b32 %r2, %r1;\n\tfrobnicate.b32 %r3, %r2;\n");
    let idgs = build(&body, 32);
    let g = GpuProfile::bundled("pascal-gtx1060").unwrap();
    let (t, w) = map_kernel(&idgs, &g, None);
    let u = timing_of(&idgs, &t, "frobnicate.b32");
    assert_eq!(u.class, InstClass::Unknown);
    assert_eq!(u.source, MapSource::Conservative);
    // The slowest arithmetic class of Pascal: f64.div (λ 47, Λ 376).
    assert_eq!(
        (u.lambda, u.latency),
        (Cycles::from_cycles(47), Cycles::from_cycles(376))
    );
    assert_eq!(w.len(), 1, "{w:?}");
    match &w[0] {
        Warning::Unclassified {
            mnemonic,
            ptx_lines,
        } => {
            assert_eq!(mnemonic, "frobnicate.b32");
            assert_eq!(ptx_lines.len(), 2);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn profile_metrics_decide_the_memory_level() {
    let idgs = build(GLOBAL_LOAD, 32);
    let g = GpuProfile::bundled("pascal-gtx1060").unwrap();
    let (t, w) = map_kernel(&idgs, &g, None);
    assert!(w.is_empty());
    let s = timing_of(&idgs, &t, "ld.global.f32");
    // Coalesced 4-byte loads are the 128-byte reference request: mapper f's DRAM λ/Λ
    // (Table 5: 12 / 345) stand, labelled f.
    assert_eq!(s.source, MapSource::F);
    assert_eq!(
        (s.lambda, s.latency),
        (Cycles::from_cycles(12), Cycles::from_cycles(345))
    );

    // R = 1.5: λ = 18, Λ = 345 + 0.5·12 = 351.
    let m = GMetrics {
        dram_bytes: Some(3000),
        global_bytes: Some(2000),
        ..GMetrics::default()
    };
    let (t, _) = map_kernel(&idgs, &g, Some(&m));
    let p = timing_of(&idgs, &t, "ld.global.f32");
    assert_eq!(p.source, MapSource::GProfile);
    assert_eq!(
        (p.lambda, p.latency),
        (Cycles::from_cycles(18), Cycles::from_cycles(351))
    );

    // Zero global bytes: R undefined, a warning, and mapper f's (reference-size) value stands.
    let z = GMetrics {
        dram_bytes: Some(10),
        global_bytes: Some(0),
        ..GMetrics::default()
    };
    let (t, w) = map_kernel(&idgs, &g, Some(&z));
    assert!(matches!(w[..], [Warning::MetricsUnusable { .. }]), "{w:?}");
    assert_eq!(timing_of(&idgs, &t, "ld.global.f32").source, MapSource::F);
}

#[test]
fn strided_global_loads_scale_with_sectors() {
    // Stride 32 bytes: 32 sectors where 4 suffice, R_s = 8: λ = 8·12 = 96, Λ = 345 + 7·12.
    let body = GLOBAL_LOAD.replace("%r1, 4;", "%r1, 32;");
    let idgs = build(&body, 32);
    let g = GpuProfile::bundled("pascal-gtx1060").unwrap();
    let (t, _) = map_kernel(&idgs, &g, None);
    let s = timing_of(&idgs, &t, "ld.global.f32");
    assert_eq!(s.source, MapSource::GStatic);
    assert_eq!(
        (s.lambda, s.latency),
        (Cycles::from_cycles(96), Cycles::from_cycles(429))
    );
}

#[test]
fn profile_level_mix_and_static_coalescing_combine() {
    // R = 1 (DRAM: λ 12, Λ 345) from the profile, 8 sectors per 4 needed from the stride-32
    // pattern: λ = 8·12 = 96, Λ = 345 + 7·12 = 429, decided by the profile path.
    let body = GLOBAL_LOAD.replace("%r1, 4;", "%r1, 32;");
    let idgs = build(&body, 32);
    let g = GpuProfile::bundled("pascal-gtx1060").unwrap();
    let m = GMetrics {
        dram_bytes: Some(1000),
        global_bytes: Some(1000),
        ..GMetrics::default()
    };
    let (t, _) = map_kernel(&idgs, &g, Some(&m));
    let p = timing_of(&idgs, &t, "ld.global.f32");
    assert_eq!(p.source, MapSource::GProfile);
    assert_eq!(
        (p.lambda, p.latency),
        (Cycles::from_cycles(96), Cycles::from_cycles(429))
    );
}

#[test]
fn shared_bank_conflicts_from_pattern_and_metrics() {
    // Stride 8 words: lanes 0, 4, 8, ... share banks 4 ways... D from the static analysis.
    let body = "\tmov.u32 %r1, %tid.x;\n\tshl.b32 %r2, %r1, 5;\n\tmov.u32 %r3, buf;\n\
                \tadd.s32 %r4, %r3, %r2;\n\tld.shared.f32 %f1, [%r4];\n";
    let idgs = build(body, 32);
    let g = GpuProfile::bundled("fermi-c2050").unwrap();
    let sh = g.mem(MemLevel::Shared);
    let (t, _) = map_kernel(&idgs, &g, None);
    let s = timing_of(&idgs, &t, "ld.shared.f32");
    assert_eq!(s.source, MapSource::GStatic);
    let d = idgs.classes[0]
        .idg
        .nodes
        .iter()
        .find_map(|n| n.mem.and_then(|m| m.pattern))
        .unwrap()
        .bank_conflict_degree;
    assert!(d > 0, "a 32-byte lane stride must conflict");
    assert_eq!(s.lambda, sh.lambda * u64::from(1 + d));
    assert_eq!(s.latency, sh.latency + sh.lambda * u64::from(d));

    // Measured D = 0.5: λ 3, Λ 29.
    let m = GMetrics {
        shared_load_conflict_degree: Some(0.5),
        ..GMetrics::default()
    };
    let (t, _) = map_kernel(&idgs, &g, Some(&m));
    let p = timing_of(&idgs, &t, "ld.shared.f32");
    assert_eq!(p.source, MapSource::GProfile);
    assert_eq!(
        (p.lambda, p.latency),
        (Cycles::from_cycles(3), Cycles::from_cycles(29))
    );
}

#[test]
fn generic_access_to_shared_memory_is_timed_as_shared() {
    // A generic load of a shared variable: mapper f says global (generic), the IDG builder
    // resolved the space, so g times it as shared memory.
    let idgs = build("\tld.f32 %f1, [buf+4];\n", 32);
    let g = GpuProfile::bundled("fermi-c2050").unwrap();
    assert_eq!(
        gpu::classify(&idgs.classes[0].idg.nodes[0].op),
        Some(InstClass::LdGlobal)
    );
    let (t, _) = map_kernel(&idgs, &g, None);
    let s = timing_of(&idgs, &t, "ld.f32");
    assert_eq!(s.class, InstClass::LdShared);
    assert_eq!(s.source, MapSource::GStatic);
    assert_eq!(s.latency, g.mem(MemLevel::Shared).latency);
}

/// A global atomic whose address the builder cannot evaluate (an index loaded from memory).
const GATHERED_ATOMIC: &str = "\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
     \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\
     \tld.global.u32 %r2, [%rd4];\n\tmul.wide.u32 %rd5, %r2, 4;\n\tadd.s64 %rd6, %rd2, %rd5;\n\
     \tred.global.add.u32 [%rd6], 1;\n";

#[test]
fn global_atomics_scale_with_their_sectors_but_never_below_the_reference() {
    let g = GpuProfile::bundled("hopper-h100").unwrap();
    let f = g.class(InstClass::AtomGlobal);
    let idgs = build(GATHERED_ATOMIC, 32);
    let with = |sectors: Option<f64>| {
        let m = GMetrics {
            atomic_sectors_per_request: sectors,
            ..GMetrics::default()
        };
        let (t, w) = map_kernel(&idgs, &g, Some(&m));
        (timing_of(&idgs, &t, "red.global.add.u32"), w)
    };
    // A histogram's scatter: 32 sectors a request, 8 coalesced requests' worth (the
    // request-size rule of loads): λ·8, Λ + 7·λ.
    let (s, _) = with(Some(32.0));
    assert_eq!(s.lambda, f.lambda.mul_ratio(8, 1).unwrap());
    assert_eq!(s.latency, f.latency + f.lambda.mul_ratio(7, 1).unwrap());
    // A few lanes (2 sectors): not cheaper than the coalesced warp λ was measured with.
    let (s, _) = with(Some(2.0));
    assert_eq!((s.lambda, s.latency), (f.lambda, f.latency));
    // Metrics without the atomic counters: one warning naming them, and the static rule.
    let (s, w) = with(None);
    assert_eq!(s.lambda, f.lambda.mul_ratio(8, 1).unwrap());
    assert!(
        w.iter()
            .any(|w| w.to_string().contains("sectors per global atomic request")),
        "{w:?}"
    );
}

/// Without counters an atomic whose address comes from data (a histogram's key) sends a
/// sector per lane (bench/microbench/atomics.cu: random keys over 4096 words or more take
/// 0.98-1.00 L2 atomic sectors each), 8 coalesced requests' worth; the launch's static
/// atomic sectors count them per lane too.
#[test]
fn without_counters_an_atomic_through_loaded_data_takes_a_sector_per_lane() {
    let g = GpuProfile::bundled("hopper-h100").unwrap();
    let f = g.class(InstClass::AtomGlobal);
    let idgs = build(GATHERED_ATOMIC, 32);
    let (t, _) = map_kernel(&idgs, &g, None);
    let s = timing_of(&idgs, &t, "red.global.add.u32");
    assert_eq!(s.lambda, f.lambda.mul_ratio(8, 1).unwrap());
    let red = idgs.classes[0]
        .idg
        .nodes
        .iter()
        .find(|n| n.op.to_string() == "red.global.add.u32")
        .unwrap();
    assert_eq!(
        gpu::static_atomic_sectors(red, red.mem.as_ref().unwrap()),
        32
    );
}

#[test]
fn atomics_of_every_lane_on_one_word_take_a_sector_each() {
    // Every lane adds to word 0 of the buffer: 32 sectors whatever the profile says.
    let body = "\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
                \tred.global.add.u32 [%rd2], 1;\n";
    let idgs = build(body, 32);
    let g = GpuProfile::bundled("hopper-h100").unwrap();
    let f = g.class(InstClass::AtomGlobal);
    let (t, _) = map_kernel(&idgs, &g, None);
    let s = timing_of(&idgs, &t, "red.global.add.u32");
    assert_eq!(s.source, MapSource::GStatic);
    assert_eq!(s.lambda, f.lambda.mul_ratio(8, 1).unwrap());
}

/// Behind a branch on loaded data the lanes of such an atomic are the walk's assumption
/// (`MemAccess::assumed`): a coalesced request, as before the walk assumed them.
#[test]
fn without_counters_an_assumed_gathered_atomic_is_a_coalesced_request() {
    let body = format!(
        "\t.reg .pred %p<2>;\n{GATHERED_ATOMIC}\tsetp.eq.u32 %p1, %r2, 0;\n\t@%p1 bra DONE;\n\
         \tred.global.add.u32 [%rd6+4], 1;\nDONE:\n"
    );
    let g = GpuProfile::bundled("hopper-h100").unwrap();
    let f = g.class(InstClass::AtomGlobal);
    let idgs = build(&body, 32);
    let (t, _) = map_kernel(&idgs, &g, None);
    let reds: Vec<(bool, Cycles)> = idgs.classes[0]
        .idg
        .nodes
        .iter()
        .zip(&t[0].nodes)
        .filter(|(n, _)| n.op.to_string() == "red.global.add.u32")
        .map(|(n, t)| (n.mem.unwrap().assumed, t.lambda))
        .collect();
    assert_eq!(
        reds,
        vec![(false, f.lambda.mul_ratio(8, 1).unwrap()), (true, f.lambda)]
    );
}

/// A `cp.async` costs what a load of the bytes it reads costs (bench/microbench/cp_async.cu:
/// a coalesced 512-byte copy and `ld.global.v4` of the same bytes take the same time from L2
/// and from DRAM): without counters a warp's 16-byte copies are a first touch of 16 sectors
/// (the load beside them reads other lines), four times a 4-byte load's λ, 512 bytes from
/// DRAM, on the profile's queue for copies.
#[test]
fn an_async_copy_costs_a_load_of_its_bytes() {
    let body = "\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
         \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 16;\n\tadd.s64 %rd4, %rd2, %rd3;\n\
         \tmul.wide.u32 %rd5, %r1, 4;\n\tadd.s64 %rd6, %rd2, %rd5;\n\
         \tld.global.f32 %f1, [%rd6+4096];\n\
         \tmov.u32 %r2, buf;\n\tshl.b32 %r3, %r1, 4;\n\tadd.s32 %r4, %r2, %r3;\n\
         \tcp.async.cg.shared.global [%r4], [%rd4], 16;\n\tcp.async.wait_all;\n";
    let idgs = build(body, 32);
    let g = GpuProfile::bundled("hopper-h100").unwrap();
    let (t, _) = map_kernel(&idgs, &g, None);
    let copy = timing_of(&idgs, &t, "cp.async.cg.shared.global");
    let load = timing_of(&idgs, &t, "ld.global.f32");
    assert_eq!(copy.class, InstClass::CpAsync);
    assert_eq!(copy.dram_bytes, 512);
    assert_eq!(
        copy.lambda,
        Cycles::from_f64(load.lambda.to_f64() * 4.0).unwrap()
    );
    // On the queue the profile names for copies: the warp goes on while the bytes move.
    assert_eq!(Some(copy.subsystem), g.async_copy_subsystem);
    assert_eq!(g.subsystem(copy.subsystem).name, "copy");
    assert!(g.subsystem(copy.subsystem).queued);
}

/// Shuffles run beside the DRAM stream on the H100 (bench/microbench/mio_dram_mix.cu: a kernel
/// doing both takes at most 1.02 times the longer alone), so they are not on the load/store
/// path a global load holds; f16 conversions run at the FP32 rate (arith.cu's round trip),
/// not at the rate of the conversions `cvt` was measured on.
#[test]
fn h100_shuffles_and_half_conversions_follow_their_measurements() {
    let body = "\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
         \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 2;\n\tadd.s64 %rd4, %rd2, %rd3;\n\
         \tld.global.b16 %rs1, [%rd4];\n\tcvt.f32.f16 %f1, %rs1;\n\
         \tshfl.sync.bfly.b32 %f2, %f1, 16, 31, -1;\n\tcvt.rn.f32.s32 %f3, %r1;\n";
    let idgs = build(body, 32);
    let g = GpuProfile::bundled("hopper-h100").unwrap();
    let (t, _) = map_kernel(&idgs, &g, None);
    let load = timing_of(&idgs, &t, "ld.global.b16");
    let shfl = timing_of(&idgs, &t, "shfl.sync.bfly.b32");
    assert_eq!(g.subsystem(load.subsystem).name, "mem");
    assert_eq!(g.subsystem(shfl.subsystem).name, "shfl");
    assert!(g.subsystem(shfl.subsystem).sm_wide);
    let half = timing_of(&idgs, &t, "cvt.f32.f16");
    let int = timing_of(&idgs, &t, "cvt.rn.f32.s32");
    assert_eq!((half.class, int.class), (InstClass::CvtF16, InstClass::Cvt));
    assert_eq!(half.lambda, g.class(InstClass::F32Add).lambda);
    assert!(int.lambda.to_f64() > 4.0 * half.lambda.to_f64());
}

/// A coalesced load, an index load at the same address and a gather through that index, on
/// the H100, with the profile's cost of a scattered sector from L2.
fn gather() -> (idg::KernelIdgs, GpuProfile, f64) {
    let body = format!(
        "{GLOBAL_LOAD}\tld.global.u32 %r2, [%rd4];\n\tmul.wide.u32 %rd5, %r2, 4;\n\
         \tadd.s64 %rd6, %rd2, %rd5;\n\tld.global.s32 %r3, [%rd6];\n"
    );
    let h100 = GpuProfile::bundled("hopper-h100").unwrap();
    let per_sector = h100.scattered.as_ref().unwrap().l2_cycles_per_sector;
    (build(&body, 32), h100, per_sector)
}

/// A gather (the address a loaded index) whose requests the counters say move 32 sectors on
/// the H100: every lane in a line of its own (φ = 1), so each sector costs the profile's
/// measured scattered cost (`[scattered]`, bench/microbench/gather.cu), here all from L2
/// (R = 0): λ = 32 · l2_cycles_per_sector, Λ grown by as much; a larger mean moves no more
/// than a sector per lane, and a mean over all loads is first rid of the known loads' sectors
/// (`attribute_sectors`). A coalesced mean (4 sectors)
/// and the index load itself, whose address is static, keep the coalesced scaling; a profile
/// without `[scattered]` keeps it too.
#[test]
fn scattered_gathers_cost_the_measured_scattered_sector() {
    let (idgs, h100, per_sector) = gather();
    let l2 = h100.mem(MemLevel::L2);
    let metrics = |sectors: f64| GMetrics {
        dram_bytes: Some(0),
        global_bytes: Some(1000),
        load_sectors_per_request: Some(sectors),
        ..GMetrics::default()
    };
    let (t, _) = map_kernel(&idgs, &h100, Some(&metrics(32.0)));
    let gather = timing_of(&idgs, &t, "ld.global.s32");
    let want = Cycles::from_f64(32.0 * per_sector).unwrap();
    assert_eq!(gather.lambda, want);
    // The coalesced scaling's Λ (L2 Λ + 7 λ_L2) plus what λ grew beyond it.
    let coalesced_lambda = Cycles::from_f64(l2.lambda.to_f64() * 8.0).unwrap();
    assert_eq!(
        gather.latency.to_f64(),
        l2.latency.to_f64() + 7.0 * l2.lambda.to_f64() + want.to_f64() - coalesced_lambda.to_f64()
    );
    let index = timing_of(&idgs, &t, "ld.global.u32");
    assert_eq!(index.lambda, l2.lambda);

    // The counters' mean is over all three loads: the two whose pattern is known move 4
    // sectors each, so a mean of 13.5 leaves 32.5 to the gather (a sector per lane: 32) and
    // a mean of 4 leaves it 4.
    let (t, _) = map_kernel(&idgs, &h100, Some(&metrics(13.5)));
    assert_eq!(timing_of(&idgs, &t, "ld.global.s32").lambda, want);
    let (t, _) = map_kernel(&idgs, &h100, Some(&metrics(4.0)));
    assert_eq!(timing_of(&idgs, &t, "ld.global.s32").lambda, l2.lambda);

    let mut plain = h100.clone();
    plain.scattered = None;
    let (t, _) = map_kernel(&idgs, &plain, Some(&metrics(32.0)));
    assert_eq!(
        timing_of(&idgs, &t, "ld.global.s32").lambda,
        coalesced_lambda
    );
}

/// The L1 hits no static pattern explains are on the loads whose address the static
/// analysis does not know (a CSR row read lane by lane, whose sectors the next iterations
/// read again), and those sectors take none of the scattered L2 cost (`spmv_scalar_fem`
/// moves its L2 sectors at the L2's measured rate). Here the index load re-reads the first
/// load's 4 sectors and the gather moves 32 (a mean of 40/3 over the three loads): a hit
/// share of 4/40 is the index load's, 20/40 leaves 16 hits to the gather, whose floor then
/// counts 16 sectors. The coalesced loads, and the gather's latency mix, do not change.
#[test]
fn a_gathers_unexplained_l1_hits_take_no_scattered_cost() {
    let (idgs, h100, per_sector) = gather();
    let metrics = |hits: f64| GMetrics {
        dram_bytes: Some(0),
        global_bytes: Some(1000),
        load_sectors_per_request: Some(40.0 / 3.0),
        l1_load_hit_share: Some(hits),
        ..GMetrics::default()
    };
    // The mean's thousandths round the gather's 32 sectors by a few ticks.
    let close = |c: Cycles, sectors: f64| (c.to_f64() / (sectors * per_sector) - 1.0).abs() < 1e-4;
    let (explained, _) = map_kernel(&idgs, &h100, Some(&metrics(0.1)));
    let gather = timing_of(&idgs, &explained, "ld.global.s32");
    assert!(close(gather.lambda, 32.0), "{:?}", gather.lambda);
    let (t, _) = map_kernel(&idgs, &h100, Some(&metrics(0.5)));
    let hit = timing_of(&idgs, &t, "ld.global.s32");
    assert!(close(hit.lambda, 16.0), "{:?}", hit.lambda);
    let grew = (gather.latency.to_f64() - hit.latency.to_f64())
        - (gather.lambda.to_f64() - hit.lambda.to_f64());
    assert!(grew.abs() < 1e-6, "{grew}");
    for m in ["ld.global.f32", "ld.global.u32"] {
        assert_eq!(
            timing_of(&idgs, &t, m),
            timing_of(&idgs, &explained, m),
            "{m}"
        );
    }
}

/// Counters with every global byte from L2 (R = 0) and the L1 hit share `hits`.
fn l1_metrics(hits: Option<f64>) -> GMetrics {
    GMetrics {
        dram_bytes: Some(0),
        global_bytes: Some(1000),
        l1_load_hit_share: hits,
        ..GMetrics::default()
    }
}

/// The counters' L1 hit share (1 − L2 read sectors / L1 load sectors) goes to the sectors a
/// warp touched before, and only those of a near-coalesced request: a row shifted by one word
/// (5 sectors, 4 of them the first row's) is priced at the L1 level for 4/5 of its sectors;
/// the first row (no sector seen) and a strided load (32 sectors, a line each) keep §6.3's
/// timing, and a share beyond what the static addresses show buys nothing more.
#[test]
fn l1_hits_go_to_the_sectors_a_warp_touched_before() {
    let body = format!(
        "{GLOBAL_LOAD}\tld.global.u32 %r2, [%rd4+4];\n\tmul.wide.u32 %rd5, %r1, 128;\n\
         \tadd.s64 %rd6, %rd2, %rd5;\n\tld.global.s32 %r3, [%rd6];\n"
    );
    let idgs = build(&body, 32);
    let h100 = GpuProfile::bundled("hopper-h100").unwrap();
    let metrics = l1_metrics;
    let (base, _) = map_kernel(&idgs, &h100, Some(&metrics(None)));
    // 4 + 5 + 32 sectors; the 4 seen ones of the shifted row are the hits.
    let (t, _) = map_kernel(&idgs, &h100, Some(&metrics(Some(4.0 / 41.0))));
    for m in ["ld.global.f32", "ld.global.s32"] {
        assert_eq!(timing_of(&idgs, &t, m), timing_of(&idgs, &base, m), "{m}");
    }
    let shifted = timing_of(&idgs, &t, "ld.global.u32");
    let before = timing_of(&idgs, &base, "ld.global.u32");
    let (l1, l2) = (h100.mem(MemLevel::L1), h100.mem(MemLevel::L2));
    // 4/5 at L1, 1/5 at L2 (R = 0), then the 5-sector request scaling.
    let mix = |a: Cycles, b: Cycles| (0.8 * a.to_f64() + 0.2 * b.to_f64()) * 1.25;
    assert!((shifted.lambda.to_f64() - mix(l1.lambda, l2.lambda)).abs() < 1e-3);
    assert!(shifted.lambda < before.lambda && shifted.latency < before.latency);
    // Twice the hits: the static addresses show no more.
    let (more, _) = map_kernel(&idgs, &h100, Some(&metrics(Some(8.0 / 41.0))));
    assert_eq!(timing_of(&idgs, &more, "ld.global.u32"), shifted);
    // No hits measured: §6.3 alone.
    let (none, _) = map_kernel(&idgs, &h100, Some(&metrics(Some(0.0))));
    assert_eq!(timing_of(&idgs, &none, "ld.global.u32"), before);
}

/// Hits the warp's own loads do not explain go to the sectors another warp of its group
/// loads: two warps reading one row, the second's 4 sectors the first's. The walk finds them
/// in the second warp only, but the warps issue together and either takes the miss: both
/// are priced half at the L1 level, half at §6.3's (L2 here: R = 0).
#[test]
fn l1_hits_go_to_the_sectors_a_sibling_warp_loads_shared_by_the_group() {
    let body = "\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
                \tmov.u32 %r1, %tid.x;\n\tand.b32 %r2, %r1, 31;\n\
                \tmul.wide.u32 %rd5, %r2, 4;\n\tadd.s64 %rd6, %rd2, %rd5;\n\
                \tld.global.s32 %r3, [%rd6];\n";
    let idgs = build(body, 64);
    assert_eq!(idgs.classes.len(), 2, "the walk tells the warps apart");
    let h100 = GpuProfile::bundled("hopper-h100").unwrap();
    let metrics = l1_metrics;
    let load = |t: &[gpu::ClassTiming], c: usize| {
        let i = idgs.classes[c]
            .idg
            .nodes
            .iter()
            .position(|n| n.op.to_string() == "ld.global.s32")
            .unwrap();
        t[c].nodes[i]
    };
    let (base, _) = map_kernel(&idgs, &h100, Some(&metrics(None)));
    let (t, _) = map_kernel(&idgs, &h100, Some(&metrics(Some(0.5))));
    // The same timing; the static DRAM bytes stay the first warp's.
    let (a, b) = (load(&t, 0), load(&t, 1));
    assert_eq!((a.lambda, a.latency), (b.lambda, b.latency));
    assert_eq!((a.dram_bytes, b.dram_bytes), (128, 0));
    let (l1, l2) = (h100.mem(MemLevel::L1), h100.mem(MemLevel::L2));
    let half = 0.5 * l1.lambda.to_f64() + 0.5 * l2.lambda.to_f64();
    assert!(
        (load(&t, 0).lambda.to_f64() - half).abs() < 1e-3,
        "{:?}",
        load(&t, 0)
    );
    assert!(load(&t, 0).latency < load(&base, 0).latency);
    // No hits measured: §6.3 alone, for both.
    let (none, _) = map_kernel(&idgs, &h100, Some(&metrics(Some(0.0))));
    assert_eq!(load(&none, 0), load(&base, 0));
    assert_eq!(load(&none, 1), load(&base, 1));
}

/// Without counters a load an earlier warp of the group made is an L1 hit, and the L1 serves
/// a request in a wavefront per line: a coalesced row at the level's λ, a column whose 32
/// lanes lie in 32 lines at 32 times it (8 times the coalesced rule's 32/4).
#[test]
fn without_counters_a_sibling_column_costs_a_wavefront_per_sector() {
    let body = "\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
                \tmov.u32 %r1, %tid.x;\n\tand.b32 %r2, %r1, 31;\n\
                \tmul.wide.u32 %rd5, %r2, 4;\n\tadd.s64 %rd6, %rd2, %rd5;\n\
                \tld.global.s32 %r3, [%rd6];\n\
                \tmul.wide.u32 %rd7, %r2, 128;\n\tadd.s64 %rd8, %rd2, %rd7;\n\
                \tld.global.u32 %r4, [%rd8+4096];\n";
    let idgs = build(body, 64);
    let h100 = GpuProfile::bundled("hopper-h100").unwrap();
    let (t, _) = map_kernel(&idgs, &h100, None);
    // The second warp's class: both loads repeat the first warp's.
    let c = idgs
        .classes
        .iter()
        .position(|c| c.warps.contains(&1))
        .unwrap();
    let load = |m: &str| {
        let i = idgs.classes[c]
            .idg
            .nodes
            .iter()
            .position(|n| n.op.to_string() == m)
            .unwrap();
        t[c].nodes[i]
    };
    let l1 = h100.mem(MemLevel::L1);
    assert_eq!(load("ld.global.s32").lambda, l1.lambda);
    assert_eq!(load("ld.global.u32").lambda, l1.lambda * 32);
}

/// Without counters the sectors a warp loaded before are on chip: the shifted row's 4 seen
/// sectors of 5 move no DRAM bytes and cost the L1 level, the fifth mapper f's; the first row
/// keeps its bytes and timing, and a strided load all but the bytes of the two sectors the rows
/// loaded before it.
#[test]
fn without_counters_seen_sectors_are_l1_hits() {
    let body = format!(
        "{GLOBAL_LOAD}\tld.global.u32 %r2, [%rd4+4];\n\tmul.wide.u32 %rd5, %r1, 128;\n\
         \tadd.s64 %rd6, %rd2, %rd5;\n\tld.global.s32 %r3, [%rd6];\n"
    );
    let idgs = build(&body, 32);
    let h100 = GpuProfile::bundled("hopper-h100").unwrap();
    let (t, _) = map_kernel(&idgs, &h100, None);
    assert_eq!(timing_of(&idgs, &t, "ld.global.f32").dram_bytes, 128);
    assert_eq!(timing_of(&idgs, &t, "ld.global.u32").dram_bytes, 32);
    assert_eq!(timing_of(&idgs, &t, "ld.global.s32").dram_bytes, 30 * 32);
    let shifted = timing_of(&idgs, &t, "ld.global.u32");
    let f = timing_of(&idgs, &t, "ld.global.f32");
    let l1 = h100.mem(MemLevel::L1);
    let mix = |a: Cycles, b: Cycles| (0.8 * a.to_f64() + 0.2 * b.to_f64()) * 1.25;
    assert!((shifted.lambda.to_f64() - mix(l1.lambda, f.lambda)).abs() < 1e-3);
    assert_eq!(shifted.source, MapSource::GStatic);
}

/// Register bank conflicts the alignment found in a node's region lengthen its arithmetic
/// nodes' λ by their share, and nothing else: half the instructions conflicting, an FMA's λ
/// is 1.5 times mapper f's, a load's is unchanged.
#[test]
fn register_bank_conflicts_lengthen_arithmetic_only() {
    let body = format!("{GLOBAL_LOAD}\tfma.rn.f32 %f2, %f1, %f1, %f1;\n");
    let mut idgs = build(&body, 32);
    let h100 = GpuProfile::bundled("hopper-h100").unwrap();
    let (before, _) = map_kernel(&idgs, &h100, None);
    for n in &mut idgs.classes[0].idg.nodes {
        n.register_conflicts = 500;
    }
    let (after, _) = map_kernel(&idgs, &h100, None);
    let fma = |t: &[gpu::ClassTiming]| timing_of(&idgs, t, "fma.rn.f32");
    assert_eq!(
        fma(&after).lambda,
        fma(&before).lambda.mul_ratio(3, 2).unwrap()
    );
    assert_eq!(fma(&after).latency, fma(&before).latency);
    assert_eq!(
        timing_of(&idgs, &after, "ld.global.f32"),
        timing_of(&idgs, &before, "ld.global.f32")
    );
}
