//! The worked example of pipeline-model-analysis section 2 (Fig. 1's kernel, Table 2's
//! parameters) and the shapes of Figs. 2, 6 and 14.

mod support;

use models::{
    gpumech, mwp_cwp, roofline, volkov, wfg, HwParams, KernelCharacterization, ModelKind, Regime,
};
use support::*;

const EPS: f64 = 1e-9;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < EPS
}

fn curve(
    ch: &KernelCharacterization,
    hw: &HwParams,
    f: fn(&KernelCharacterization, &HwParams, u32) -> models::Prediction,
    max: u32,
) -> Vec<f64> {
    (1..=max).map(|w| f(ch, hw, w).wpc).collect()
}

fn non_decreasing(v: &[f64]) -> bool {
    v.windows(2).all(|w| w[1] >= w[0] - EPS)
}

#[test]
fn software_characterization_of_the_example() {
    let (ch, hw) = table2(&example());
    assert_eq!((ch.alpha_comp, ch.alpha_mem, ch.alpha_sync), (4, 2, 0));
    assert!(close(ch.ci(), 2.0));
    assert_eq!(
        (
            hw.lambda_comp,
            hw.latency_comp,
            hw.lambda_mem,
            hw.latency_mem
        ),
        (1.0, 4.0, 2.0, 6.0)
    );
    // Eq. 2: the chain c1 → m0 → c2 → c3 → m1 (24 cycles) plus c0's λ.
    assert!(close(ch.chain_latency, 24.0));
    assert_eq!(ch.chain_instructions, 5);
    assert!(close(ch.lambda_app(), 25.0));
    assert_eq!(ch.depth, 5);
}

#[test]
fn roofline_is_at_the_ridge() {
    let (ch, hw) = table2(&example());
    // Section 2.1: ridge λ_mem/λ_comp = 2 = CI, IPC_roof = 1, WPC = 1/4.
    assert!(close(hw.ridge(), 2.0));
    assert!(close(hw.ridge(), ch.ci()));
    assert!(close(roofline::ipc(&ch, &hw), 1.0));
    for w in [1, 7, 64] {
        assert!(close(roofline::predict(&ch, &hw, w).wpc, 0.25));
    }
}

#[test]
fn volkov_occupancy_roofline() {
    let (ch, hw) = table2(&example());
    // Section 2.2: 1/25 at one warp, the roof 1/4 from seven warps on.
    assert!(close(volkov::predict(&ch, &hw, 1).wpc, 1.0 / 25.0));
    assert_eq!(volkov::predict(&ch, &hw, 1).regime, Regime::Latency);
    assert!(close(volkov::predict(&ch, &hw, 6).wpc, 6.0 / 25.0));
    assert!(close(volkov::predict(&ch, &hw, 7).wpc, 0.25));
    assert_eq!(volkov::predict(&ch, &hw, 7).regime, Regime::Throughput);
    assert!(close(volkov::predict(&ch, &hw, 64).wpc, 0.25));
}

#[test]
fn mwp_cwp_is_memory_bound() {
    let (ch, hw) = table2(&example());
    // Section 2.3.2: MWP = 3 < CWP = 6/2 + 1 = 4.
    let p = mwp_cwp::parameters(&ch, &hw);
    assert!(close(p.mwp, 3.0));
    assert!(close(p.cwp, 4.0));
    // Occupancy bound up to MWP: Eq. 28 with Λ*_app = 2·6 + 4·1 = 16.
    assert!(close(mwp_cwp::lambda_app_star(&ch, &hw), 16.0));
    let one = mwp_cwp::predict(&ch, &hw, 1);
    assert_eq!(one.regime, Regime::OccupancyBound);
    assert!(close(one.cycles_per_run, 16.0));
    assert!(close(
        mwp_cwp::predict(&ch, &hw, 3).cycles_per_run,
        16.0 + 2.0 * 2.0
    ));
    // Beyond MWP the memory-bound Eq. 26: 2·ω·2 + 2·1·3.
    for w in 4..=64 {
        let p = mwp_cwp::predict(&ch, &hw, w);
        assert_eq!(p.regime, Regime::MemoryBound);
        assert!(close(p.cycles_per_run, 4.0 * f64::from(w) + 6.0));
    }
    // "For low occupancies, the performance is higher than Volkov's model."
    for w in 1..=4 {
        assert!(mwp_cwp::predict(&ch, &hw, w).wpc > volkov::predict(&ch, &hw, w).wpc);
    }
}

/// Fig. 6's three (α_comp·Λ_comp, Λ_mem) pairs: a dependent chain of computations, then one
/// load; throughputs high enough that all are occupancy bound for ω ≤ 8.
fn fig6_case(
    alpha: usize,
    latency_comp: f64,
    latency_mem: f64,
) -> (KernelCharacterization, HwParams) {
    const REGS: [&[u32]; 4] = [&[], &[1], &[2], &[3]];
    const OUT: [&[u32]; 4] = [&[1], &[2], &[3], &[4]];
    let mut body: Vec<Inst> = (0..alpha)
        .map(|i| Inst {
            mem: false,
            reads: REGS[i],
            writes: OUT[i],
            lambda: 0.125,
            latency: latency_comp,
        })
        .collect();
    body.push(Inst {
        mem: true,
        reads: REGS[alpha],
        writes: &[9],
        lambda: 0.125,
        latency: latency_mem,
    });
    let (idg, timing) = build(&body, 1);
    let ch = KernelCharacterization::new(&idg, &timing, f64::INFINITY).unwrap();
    // λ_mem^instr neglected, as in Eq. 37.
    let hw = HwParams::derive(&ch, f64::INFINITY, Some(0.0));
    (ch, hw)
}

#[test]
fn wfg_fig6_cases() {
    let cpr =
        |ch: &KernelCharacterization, hw: &HwParams, w| wfg::predict(ch, hw, w).cycles_per_run;
    let volkov_cpr =
        |ch: &KernelCharacterization, hw: &HwParams, w| volkov::predict(ch, hw, w).cycles_per_run;
    let cases = [
        fig6_case(2, 4.0, 6.0),
        fig6_case(1, 11.0, 3.0),
        fig6_case(1, 3.0, 11.0),
    ];
    for (ch, hw) in &cases {
        for w in 1..=8 {
            // Volkov: CPR 14 for every pair and occupancy.
            assert!(close(volkov_cpr(ch, hw, w), 14.0));
        }
        assert!(close(cpr(ch, hw, 1), 14.0));
    }
    // Case 1 (like the example): Eq. 40, 8 + 6ω − 4(ω−1), slowly increasing.
    let (ch, hw) = &cases[0];
    for w in 1..=8 {
        assert!(close(cpr(ch, hw, w), 12.0 + 2.0 * f64::from(w)));
    }
    // Case 2 (compute intensive): the CPR drops below that of one warp, which is impossible.
    let (ch, hw) = &cases[1];
    assert!(close(cpr(ch, hw, 2), 11.0 + 6.0 - 5.5));
    for w in 2..=8 {
        assert!(cpr(ch, hw, w) < 14.0 - 1.0);
        assert!(cpr(ch, hw, w) <= cpr(ch, hw, w - 1) + EPS);
    }
    // Case 3 (high memory latency): Eq. 40, 3 + 11ω − 1.5(ω−1), fast increasing.
    let (ch, hw) = &cases[2];
    for w in 1..=8 {
        let omega = f64::from(w);
        assert!(close(
            cpr(ch, hw, w),
            3.0 + 11.0 * omega - 1.5 * (omega - 1.0)
        ));
    }
    assert!(cpr(ch, hw, 8) > 5.0 * 14.0);
    // WFG* repairs both: never faster than one warp alone, never slower than ω warps in a row.
    for (ch, hw) in &cases {
        for w in 1..=8 {
            let c = wfg::predict_corrected(ch, hw, w).cycles_per_run;
            assert!(c >= 14.0 - EPS, "{c}");
            assert!(c <= 14.0 * f64::from(w) + EPS, "{c}");
        }
    }
}

#[test]
fn fig2_shapes() {
    let (ch, hw) = table2(&example());
    let volkov = curve(&ch, &hw, volkov::predict, 64);
    for f in [
        volkov::predict,
        mwp_cwp::predict,
        wfg::predict,
        gpumech::predict_rr_original,
        gpumech::predict_gto,
    ] {
        assert!(non_decreasing(&curve(&ch, &hw, f, 64)));
    }
    // WFG lies slightly above Volkov's roofline at ω = 3 and 4 (section 2.4.4).
    for w in [3u32, 4] {
        let v = volkov[w as usize - 1];
        let x = wfg::predict(&ch, &hw, w).wpc;
        assert!(x > v && x < v * 1.1, "ω={w}: wfg {x} volkov {v}");
    }
    // GPUMech round robin as published goes through the roof; GTO converges to it.
    assert!(gpumech::predict_rr_original(&ch, &hw, 8).wpc > 0.25);
    assert!(gpumech::predict_rr_original(&ch, &hw, 64).wpc > 1.0);
    let gto = curve(&ch, &hw, gpumech::predict_gto, 64);
    assert!(gto.iter().all(|&x| x <= 0.25 + EPS));
    assert!(close(gto[63], 0.25));
}

#[test]
fn fig14_shapes() {
    let (ch, hw) = table2(&example());
    let volkov = curve(&ch, &hw, volkov::predict, 64);
    for f in [
        mwp_cwp::predict_corrected,
        wfg::predict_corrected,
        gpumech::predict_rr,
        gpumech::predict_gto,
    ] {
        let c = curve(&ch, &hw, f, 64);
        assert!(non_decreasing(&c));
        // Never above the roof, and converging to it (MWP-CWP's fill time of Eq. 26 keeps it
        // just below).
        assert!(c.iter().all(|&x| x <= 0.25 + EPS));
        assert!(c[63] > 0.24, "{}", c[63]);
    }
    // Volkov is the upper bound of the corrected MWP-CWP and WFG. WFG's Eq. 30 charges a
    // block of ILP 2 Λ/ILP and not the λ of the overlapped instruction (24 cycles alone, not
    // 25), so WFG* may exceed it by that one cycle at the lowest occupancies.
    let mwp = curve(&ch, &hw, mwp_cwp::predict_corrected, 64);
    assert!(mwp.iter().zip(&volkov).all(|(x, v)| *x <= v + EPS));
    assert!(close(mwp[0], 1.0 / 25.0));
    let wfg = curve(&ch, &hw, wfg::predict_corrected, 64);
    assert!(close(wfg[0], 1.0 / 24.0));
    assert!(wfg
        .iter()
        .zip(&volkov)
        .all(|(x, v)| *x <= v * 25.0 / 24.0 + EPS));
    assert!(wfg.iter().zip(&volkov).skip(2).all(|(x, v)| *x <= v + EPS));
    // GPUMech ignores computational latencies: GTO is at or a bit above Volkov's curve; the
    // corrected round robin too, except near the ridge where interleaving one instruction per
    // warp leaves it a few percent below.
    let gto = curve(&ch, &hw, gpumech::predict_gto, 64);
    assert!(gto.iter().zip(&volkov).all(|(x, v)| *x >= v - EPS));
    let rr = curve(&ch, &hw, gpumech::predict_rr, 64);
    assert!(rr.iter().zip(&volkov).take(5).all(|(x, v)| *x >= v - EPS));
    assert!(rr.iter().zip(&volkov).all(|(x, v)| *x >= 0.95 * v));
}

#[test]
fn gpumech_intervals_of_the_example() {
    let (ch, _) = table2(&example());
    // Computational latencies ignored, memory instructions free to issue: two intervals of two
    // computations, each waiting 6 cycles for its load.
    assert_eq!(ch.intervals.len(), 1);
    let iv = &ch.intervals[0];
    assert_eq!(
        (iv.count, iv.instructions, iv.issue_cycles, iv.stall_cycles),
        (2, 2, 2.0, 6.0)
    );
    assert!(close(ch.gpumech_single_warp(), 16.0));
    assert!(close(gpumech::issue_probability(&ch), 0.25));
}

#[test]
fn gpumech_fig8_round_robin_example() {
    // One interval of 3 instructions and 6 stall cycles: issue limit 1 makes every instruction
    // cost one cycle, and a load of Λ = 7 issued at cycle 2 completes 6 cycles after the issue
    // stage ends.
    let body = [
        c(&[], &[1]),
        c(&[], &[2]),
        Inst {
            mem: true,
            reads: &[1, 2],
            writes: &[3],
            lambda: 1.0,
            latency: 7.0,
        },
    ];
    let (idg, timing) = build(&body, 1);
    let ch = KernelCharacterization::new(&idg, &timing, 1.0).unwrap();
    let hw = HwParams::derive(&ch, 1.0, None);
    assert_eq!(ch.intervals.len(), 1);
    let iv = &ch.intervals[0];
    assert_eq!(
        (iv.instructions, iv.issue_cycles, iv.stall_cycles),
        (3, 3.0, 6.0)
    );
    assert!(close(gpumech::issue_probability(&ch), 1.0 / 3.0));
    // 4 warps: Eq. 11 gives 2 non-overlapped instructions, the corrected equations 6 (Fig. 8).
    assert!(close(
        gpumech::predict_rr_original(&ch, &hw, 4).cycles_per_run,
        3.0 + 6.0 + 2.0
    ));
    assert!(close(
        gpumech::predict_rr(&ch, &hw, 4).cycles_per_run,
        3.0 + 6.0 + 6.0
    ));
    // With enough warps every stall cycle is covered: IPC 1.
    assert!(close(gpumech::predict_rr(&ch, &hw, 7).cycles_per_run, 21.0));
}

#[test]
fn model_kinds_match_the_header() {
    let cols: Vec<&str> = ModelKind::COLUMNS.iter().map(|k| k.column()).collect();
    assert_eq!(
        format!("occupancy_warps,pipeline,{}", cols.join(",")),
        models::CSV_HEADER
    );
    assert_eq!(
        models::CSV_HEADER,
        "occupancy_warps,pipeline,roofline,volkov,mwp_cwp,mwp_cwp_corr,wfg,wfg_corr,gpumech_rr,gpumech_gto,unified"
    );
    // The unified model is a column, not a characterization model.
    assert!(!ModelKind::ALL.contains(&ModelKind::Unified));
    assert_eq!(ModelKind::COLUMNS.last(), Some(&ModelKind::Unified));
}
