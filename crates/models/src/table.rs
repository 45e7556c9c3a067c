//! The occupancy table of `ptx2idg models`: one row per occupancy ω, the Pipeline simulation's
//! WPC beside every analytical model's, with the stable CSV contract [`CSV_HEADER`], the
//! `--explain` text and the chart.
//!
//! Invariants: rows ascend in ω; only whole work groups are simulated, so the rows are the
//! multiples of the group size (in warps) inside the requested range, and every column of a
//! row is filled (`pipeline` is empty only in tables built without the simulator, `unified`
//! only when the GPU profile has no `[unified_model]` or its weights do not cover the kernel:
//! [`Table::unified`] says why). `unified` is the same in every row (flat by construction).

use std::fmt::Write as _;
use std::ops::RangeInclusive;

use gpu::{ClassTiming, GpuProfile};
use idg::KernelIdgs;
use serde::Serialize;

use crate::{
    gpumech, mwp_cwp, roofline, unified, HwParams, KernelCharacterization, ModelError, ModelKind,
    Prediction,
};

/// The CSV header, a contract for scripts (docs/models.md): columns are only ever appended
/// (`unified`, the last, was added after the others).
pub const CSV_HEADER: &str = "occupancy_warps,pipeline,roofline,volkov,mwp_cwp,mwp_cwp_corr,wfg,wfg_corr,gpumech_rr,gpumech_gto,unified";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub occupancy_warps: u32,
    /// The Pipeline simulation's WPC.
    pub pipeline: Option<f64>,
    /// One prediction per [`ModelKind::ALL`] entry, in that order.
    pub models: Vec<Prediction>,
    /// The unified model's WPC ([`unified::wpc`]), the same in every row; `None` when it
    /// predicts nothing ([`Table::unified`] says why).
    pub unified: Option<f64>,
}

impl Row {
    /// The WPC of `kind` at this row (NaN when it has none).
    pub fn wpc(&self, kind: ModelKind) -> f64 {
        if kind == ModelKind::Unified {
            return self.unified.unwrap_or(f64::NAN);
        }
        let i = ModelKind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
        self.models.get(i).map_or(f64::NAN, |p| p.wpc)
    }
}

/// The unified model's prediction for the launch (one for every occupancy).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct UnifiedPrediction {
    /// The launch time `Σ α·p` in seconds.
    pub seconds: f64,
    /// As WPC ([`unified::wpc`]).
    pub wpc: f64,
}

/// The unified model on `idgs` launched on `gpu` ([`unified::count_properties`],
/// [`unified::wpc`] at the profile's clock), or why it predicts nothing.
pub fn unified_prediction(
    idgs: &KernelIdgs,
    gpu: &GpuProfile,
) -> Result<UnifiedPrediction, String> {
    let counts = unified::count_properties(idgs);
    let warps = unified::warps_per_core(idgs.total_groups(), gpu.sm_count, idgs.warps_per_group);
    let wpc = unified::wpc(&counts, gpu.unified_model.as_ref(), warps, gpu.clock_mhz)
        .map_err(|e| e.to_string())?;
    let seconds = warps as f64 / (wpc * gpu.clock_mhz * 1e6);
    Ok(UnifiedPrediction { seconds, wpc })
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    pub kernel: String,
    pub gpu: String,
    /// Subsystem names by `gpu::SubsystemId` index, for `--explain`.
    pub subsystem_names: Vec<String>,
    pub characterization: KernelCharacterization,
    pub hw: HwParams,
    /// The unified model's prediction (the `unified` column), or why there is none.
    pub unified: Result<UnifiedPrediction, String>,
    pub rows: Vec<Row>,
}

/// The multiples of `warps_per_group` in `range`.
pub fn occupancies(
    range: &RangeInclusive<u32>,
    warps_per_group: u32,
) -> Result<Vec<u32>, ModelError> {
    let g = warps_per_group.max(1);
    let out: Vec<u32> = (*range.start().max(&1)..=*range.end())
        .filter(|w| w % g == 0)
        .collect();
    if out.is_empty() {
        return Err(ModelError::NoOccupancy {
            lo: *range.start(),
            hi: *range.end(),
            warps_per_group: g,
        });
    }
    Ok(out)
}

impl Table {
    /// The analytical columns only (`pipeline` left empty); `unified` is the unified model's
    /// prediction for the launch ([`unified_prediction`]), the same in every row.
    pub fn analytical(
        kernel: &str,
        gpu: &str,
        subsystem_names: Vec<String>,
        ch: KernelCharacterization,
        hw: HwParams,
        unified: Result<UnifiedPrediction, String>,
        occupancies: &[u32],
    ) -> Table {
        let rows = occupancies
            .iter()
            .map(|&w| Row {
                occupancy_warps: w,
                pipeline: None,
                models: ModelKind::ALL
                    .iter()
                    .filter_map(|k| k.predict(&ch, &hw, w))
                    .collect(),
                unified: unified.as_ref().ok().map(|u| u.wpc),
            })
            .collect();
        Table {
            kernel: kernel.to_string(),
            gpu: gpu.to_string(),
            subsystem_names,
            characterization: ch,
            hw,
            unified,
            rows,
        }
    }

    /// CSV with [`CSV_HEADER`]; numbers with `digits` significant digits
    /// ([`sim::number::significant`]).
    pub fn to_csv(&self, digits: u32) -> String {
        let num = |x: f64| sim::number::significant(x, digits);
        let mut s = String::from(CSV_HEADER);
        s.push('\n');
        for r in &self.rows {
            let _ = write!(s, "{}", r.occupancy_warps);
            s.push(',');
            if let Some(p) = r.pipeline {
                s.push_str(&num(p));
            }
            for m in &r.models {
                s.push(',');
                s.push_str(&num(m.wpc));
            }
            s.push(',');
            if let Some(u) = r.unified {
                s.push_str(&num(u));
            }
            s.push('\n');
        }
        s
    }

    pub fn to_svg(&self) -> String {
        crate::plot::chart(self)
    }

    /// The derived quantities and per-model parameters, for `--explain`.
    pub fn explain(&self) -> String {
        let ch = &self.characterization;
        let hw = &self.hw;
        let name = |id: u16| {
            self.subsystem_names
                .get(usize::from(id))
                .cloned()
                .unwrap_or_else(|| format!("subsystem {id}"))
        };
        let mut s = String::new();
        let _ = writeln!(s, "kernel {} on {}", self.kernel, self.gpu);
        let _ = writeln!(
            s,
            "representative warp class {} ({} warps; {} classes)",
            ch.class, ch.class_warps, ch.classes
        );
        let _ = writeln!(s, "\nsoftware (per warp)");
        let _ = writeln!(s, "  instructions N        {}", ch.instructions);
        let _ = writeln!(s, "  alpha_comp            {}", ch.alpha_comp);
        let _ = writeln!(s, "  alpha_mem             {}", ch.alpha_mem);
        let _ = writeln!(s, "  alpha_sync            {}", ch.alpha_sync);
        let _ = writeln!(s, "  CI                    {}", num(ch.ci()));
        let _ = writeln!(
            s,
            "  ILP                   {} (depth {})",
            num(ch.ilp()),
            ch.depth
        );
        let _ = writeln!(
            s,
            "  Lambda_app (Eq. 2)    {} = chain {} over {} instructions + lambda of the other {}",
            num(ch.lambda_app()),
            num(ch.chain_latency),
            ch.chain_instructions,
            ch.instructions - ch.chain_instructions.min(ch.instructions)
        );
        let _ = writeln!(s, "\nsubsystem load (per warp)");
        for l in &ch.subsystems {
            let _ = writeln!(
                s,
                "  {:<12} {:>10} instructions, sum lambda {}, sum Lambda {}",
                name(l.subsystem),
                l.instructions,
                num(l.lambda_sum),
                num(l.latency_sum)
            );
        }
        let _ = writeln!(s, "\nhardware (averages over the kernel's instructions)");
        let _ = writeln!(s, "  issue limit           {}", num(hw.issue_limit));
        let _ = writeln!(
            s,
            "  lambda_comp / Lambda_comp  {} / {}",
            num(hw.lambda_comp),
            num(hw.latency_comp)
        );
        let _ = writeln!(
            s,
            "  lambda_mem / Lambda_mem    {} / {}",
            num(hw.lambda_mem),
            num(hw.latency_mem)
        );
        let _ = writeln!(s, "  lambda_mem_instr      {}", num(hw.lambda_mem_instr));
        let roof = roofline::roof(ch, hw);
        let bound = match roof.bound {
            roofline::Bound::Subsystem(id) => name(id),
            roofline::Bound::Issue => "issue limit".to_string(),
        };
        let _ = writeln!(s, "\nRoofline (Eq. 1)");
        let _ = writeln!(
            s,
            "  WPC_roof {} bound by {} ({} cycles per warp); IPC_roof (computations) {}; ridge lambda_mem/lambda_comp {}",
            num(roof.wpc()),
            bound,
            num(roof.cycles_per_warp),
            num(roofline::ipc(ch, hw)),
            num(hw.ridge())
        );
        let p = mwp_cwp::parameters(ch, hw);
        let _ = writeln!(s, "\nMWP-CWP (Eqs. 15-28)");
        let _ = writeln!(
            s,
            "  MWP {}  CWP {}  Lambda*_app {}",
            num(p.mwp),
            num(p.cwp),
            num(mwp_cwp::lambda_app_star(ch, hw))
        );
        let _ = writeln!(s, "\nWFG (Eqs. 30-36, 42)");
        let _ = writeln!(
            s,
            "  {} distinct computation blocks, {} distinct memory nodes",
            ch.wfg_blocks.len(),
            ch.wfg_mems.len()
        );
        let mut blocks: Vec<_> = ch.wfg_blocks.iter().collect();
        blocks.sort_by_key(|b| std::cmp::Reverse(b.count));
        for b in blocks.iter().take(8) {
            let _ = writeln!(
                s,
                "  block {:>10} x {} computations, ILP {}, sum lambda {}, sum Lambda {}",
                b.count,
                b.instructions,
                num(b.ilp()),
                num(b.lambda_sum),
                num(b.latency_sum)
            );
        }
        let mut mems: Vec<_> = ch.wfg_mems.iter().collect();
        mems.sort_by_key(|m| std::cmp::Reverse(m.count));
        for m in mems.iter().take(8) {
            let _ = writeln!(
                s,
                "  memory {:>9} x {} lambda {} Lambda {}{}",
                m.count,
                if m.load { "load " } else { "store" },
                num(m.lambda),
                num(m.latency),
                m.preceding.map_or(String::new(), |(l, ilp)| format!(
                    ", after a block of sum Lambda {} ILP {}",
                    num(l),
                    num(ilp)
                ))
            );
        }
        let _ = writeln!(s, "\nGPUMech (section 2.5)");
        let _ = writeln!(
            s,
            "  single-warp cycles {}  issue probability (Eq. 9) {}  {} distinct intervals",
            num(ch.gpumech_single_warp()),
            num(gpumech::issue_probability(ch)),
            ch.intervals.len()
        );
        let mut ivs: Vec<_> = ch.intervals.iter().collect();
        ivs.sort_by_key(|iv| std::cmp::Reverse(iv.count));
        for iv in ivs.iter().take(8) {
            let _ = writeln!(
                s,
                "  interval {:>7} x {} instructions, {} issue cycles, {} stall cycles",
                iv.count,
                iv.instructions,
                num(iv.issue_cycles),
                num(iv.stall_cycles)
            );
        }
        let _ = writeln!(
            s,
            "\nUnified hardware-fitted model (flat in occupancy by construction)"
        );
        match &self.unified {
            Ok(u) => {
                let _ = writeln!(
                    s,
                    "  launch time {} us  WPC {} at every occupancy",
                    num(u.seconds * 1e6),
                    num(u.wpc)
                );
            }
            Err(e) => {
                let _ = writeln!(s, "  no prediction: {e}");
            }
        }
        s
    }
}

/// Six significant digits ([`sim::number::significant`]), as every CSV of the tool.
pub fn num(x: f64) -> String {
    sim::number::significant(x, sim::number::DEFAULT_DIGITS)
}

/// The analytical columns of [`models_table`] without the simulation (`pipeline` empty):
/// characterizes the kernel once and predicts every model at every whole-group occupancy.
pub fn analytical_table(
    idgs: &KernelIdgs,
    timings: &[ClassTiming],
    gpu: &GpuProfile,
    occupancies: RangeInclusive<u32>,
) -> Result<Table, ModelError> {
    let ch = KernelCharacterization::from_kernel(idgs, timings, gpu.issue_limit)?;
    let hw = HwParams::from_profile(&ch, gpu);
    let omegas = self::occupancies(&occupancies, idgs.warps_per_group)?;
    Ok(Table::analytical(
        &idgs.kernel,
        &gpu.name,
        gpu.subsystems.iter().map(|s| s.name.clone()).collect(),
        ch,
        hw,
        unified_prediction(idgs, gpu),
        &omegas,
    ))
}

/// The table of `ptx2idg models`: [`analytical_table`] plus the Pipeline model simulated at the
/// same occupancies with `config` (one core's share of the launch's groups) for the `pipeline`
/// column, at the loaded DRAM latency and with the device-wide limits of the launch's
/// `counters` (mapper g's metrics and the traffic; `sim::loaded`,
/// `sim::ModelConfig::device_time_us`).
/// `idgs` are already prepared for `config` (`sim::ModelConfig::prepare_idgs`).
pub fn models_table(
    idgs: &KernelIdgs,
    timings: &[ClassTiming],
    gpu: &GpuProfile,
    config: &sim::ModelConfig,
    counters: Option<(&gpu::GMetrics, &gpu::Traffic)>,
    occupancies: RangeInclusive<u32>,
) -> Result<Table, ModelError> {
    let (metrics, traffic) = counters.unzip();
    let mut table = analytical_table(idgs, timings, gpu, occupancies.clone())?;
    let sim_hw = config.hardware(gpu);
    let costs = sim::costs_from_timing(timings);
    let base = sim::ExecConfig {
        warps_per_group: idgs.warps_per_group,
        concurrent_groups: 1,
        total_groups: idgs.total_groups(),
        sm_count: gpu.sm_count,
    };
    let opts = config.sim_options();
    let mut points = sim::sweep(
        idgs,
        &costs,
        &sim_hw,
        &base,
        &opts,
        &sim::SweepAxis::Warps(occupancies),
        &|| {},
    )
    .map_err(|e| ModelError::Sim(e.to_string()))?;
    let profile = config.mapping_profile(gpu);
    sim::Rerun {
        idgs,
        profile: &profile,
        metrics,
        hardware: &sim_hw,
        opts: &opts,
    }
    .settle_sweep(
        &|e| config.dram_load(gpu, traffic, idgs, &costs, e),
        &base,
        &mut points,
    )
    .map_err(|e| ModelError::Sim(e.to_string()))?;
    config.apply_device_limits_to_sweep(&mut points, traffic, gpu);
    for row in &mut table.rows {
        row.pipeline = points
            .iter()
            .find(|p| p.blocks_per_sm * idgs.warps_per_group.max(1) == row.occupancy_warps)
            .map(|p| p.wpc);
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::num;

    #[test]
    fn six_significant_digits() {
        assert_eq!(num(0.25), "0.25");
        assert_eq!(num(1.0 / 24.0), "0.0416667");
        assert_eq!(num(25.0), "25");
        assert_eq!(num(1_412.75), "1412.75");
        assert_eq!(num(7.901_224e-7), "7.90122e-7");
        assert_eq!(num(2.5e7), "25000000");
        assert_eq!(num(2.5e17), "2.50000e17");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(f64::INFINITY), "inf");
    }
}
