//! The hardware parameters of Table 2 as the aggregate models use them.
//!
//! λ and Λ are per instruction in this project (mapper f/g give every node its own), while the
//! aggregate models (MWP-CWP, the WFG memory arcs) take one λ_comp, Λ_comp, λ_mem, Λ_mem. They
//! are the averages over the kernel's dynamic instructions of each role, so Σ over the kernel is
//! preserved: α_comp·λ_comp = Σ λ of its computations, and so on. For the worked example every
//! instruction of a role has the same values and the averages are Table 2's.

use serde::Serialize;

use crate::KernelCharacterization;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HwParams {
    /// Instructions issued per cycle per core; infinite when there is no issue limit.
    pub issue_limit: f64,
    pub lambda_comp: f64,
    pub latency_comp: f64,
    /// 1 / BW in warp memory instructions per cycle.
    pub lambda_mem: f64,
    pub latency_mem: f64,
    /// The CPI a memory instruction costs the computational side (WFG, section 2.4.1).
    pub lambda_mem_instr: f64,
}

fn avg(sum: f64, n: u64) -> f64 {
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

impl HwParams {
    /// Averages of the characterization's mapped timings; `lambda_mem_instr` defaults to
    /// λ_comp, the value Baghsorkhi et al. use (section 2.4.1: λ_mem^instr = λ_comp).
    pub fn derive(
        ch: &KernelCharacterization,
        issue_limit: f64,
        lambda_mem_instr: Option<f64>,
    ) -> Self {
        let lambda_comp = avg(ch.lambda_comp_sum, ch.alpha_comp);
        HwParams {
            issue_limit,
            lambda_comp,
            latency_comp: avg(ch.latency_comp_sum, ch.alpha_comp),
            lambda_mem: avg(ch.lambda_mem_sum, ch.alpha_mem),
            latency_mem: avg(ch.latency_mem_sum, ch.alpha_mem),
            lambda_mem_instr: lambda_mem_instr.unwrap_or(lambda_comp),
        }
    }

    pub fn from_profile(ch: &KernelCharacterization, gpu: &gpu::GpuProfile) -> Self {
        Self::derive(ch, gpu.issue_limit, None)
    }

    /// Cycles between two issues allowed by the issue limit (0 without a limit).
    pub fn issue_interval(&self) -> f64 {
        if self.issue_limit.is_finite() && self.issue_limit > 0.0 {
            1.0 / self.issue_limit
        } else {
            0.0
        }
    }

    /// The ridge point λ_mem / λ_comp of the two-subsystem Roofline (section 2.1).
    pub fn ridge(&self) -> f64 {
        if self.lambda_comp > 0.0 {
            self.lambda_mem / self.lambda_comp
        } else {
            f64::INFINITY
        }
    }
}
