//! One launch exported with three metric sets (the full list, bytes instead of sectors,
//! the minimal set `ptx2idg metrics` prints) gives mapper g the same inputs.

mod common;

use common::launch;
use gpu::GMetrics;

// A gather: about 17 sectors per load request (values of a real H100 launch, rounded).
const FULL: [(&str, f64); 14] = [
    ("dram__bytes_read.sum", 134310400.0),
    ("dram__bytes_write.sum", 60709632.0),
    ("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum", 1015808000.0),
    ("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum", 89522176.0),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 31744000.0),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 2797568.0),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1867320.0),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 700416.0),
    ("smsp__sass_inst_executed_op_shared_ld.sum", 11438532.0),
    ("smsp__sass_inst_executed_op_shared_st.sum", 4435056.0),
    (
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        139207.0,
    ),
    (
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        119473.0,
    ),
    (
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        11577739.0,
    ),
    (
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        4554529.0,
    ),
];

fn subset(keep: impl Fn(&str) -> bool) -> profile::Launch {
    let m: Vec<(&str, f64)> = FULL.iter().filter(|(n, _)| keep(n)).copied().collect();
    launch(&m)
}

fn close(a: Option<f64>, b: Option<f64>) {
    let (a, b) = (a.unwrap(), b.unwrap());
    assert!((a - b).abs() <= 0.01 * a.abs().max(1e-9), "{a} vs {b}");
}

fn same(a: &GMetrics, b: &GMetrics) {
    close(
        a.dram_bytes.map(|x| x as f64),
        b.dram_bytes.map(|x| x as f64),
    );
    close(
        a.global_bytes.map(|x| x as f64),
        b.global_bytes.map(|x| x as f64),
    );
    close(a.load_sectors_per_request, b.load_sectors_per_request);
    close(a.store_sectors_per_request, b.store_sectors_per_request);
    close(a.shared_load_conflict_degree, b.shared_load_conflict_degree);
    close(
        a.shared_store_conflict_degree,
        b.shared_store_conflict_degree,
    );
}

#[test]
fn three_metric_sets_give_the_same_mapper_g_inputs() {
    let full = GMetrics::from_launch(&subset(|_| true));
    assert!(full.load_sectors_per_request.unwrap() > 16.0);
    let bytes_only = GMetrics::from_launch(&subset(|n| !n.contains("t_sectors")));
    let minimal = GMetrics::from_launch(&subset(|n| profile::metrics::NCU_METRICS.contains(&n)));
    same(&full, &bytes_only);
    same(&full, &minimal);
}

#[test]
fn without_requests_sectors_per_request_is_not_derivable() {
    let m = GMetrics::from_launch(&subset(|n| !n.contains("requests")));
    assert_eq!(m.load_sectors_per_request, None);
}
