//! Every quantity is derived from whichever equivalent metrics a file carries, and the
//! metric lists `ptx2idg metrics` prints derive every quantity the tool uses.

use profile::metrics::{NCU_METRICS, NVPROF_EVENTS, NVPROF_METRICS};
use profile::{Launch, Quantity};

/// One launch of a raw-page export holding exactly `metrics` (name, value).
fn launch(metrics: &[(&str, f64)]) -> Launch {
    let names: Vec<String> = metrics.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    // A duration needs its unit; counters may go without.
    let units: Vec<&str> = metrics
        .iter()
        .map(|(n, _)| {
            if n.contains("duration") {
                "\"ns\""
            } else {
                "\"\""
            }
        })
        .collect();
    let values: Vec<String> = metrics.iter().map(|(_, v)| format!("\"{v}\"")).collect();
    let text = format!(
        "\"ID\",\"Kernel Name\",{}\n\"\",\"\",{}\n\"0\",\"k\",{}\n",
        names.join(","),
        units.join(","),
        values.join(",")
    );
    let p = profile::parse(&text, "t.csv").unwrap();
    p.kernels[0].launches[0].clone()
}

fn q(l: &Launch, q: Quantity) -> Option<f64> {
    l.quantity(q).map(|m| m.value)
}

#[test]
fn sectors_and_bytes_derive_each_other() {
    let l = launch(&[
        ("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum", 3200.0),
        ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 10.0),
        ("dram__sectors_read.sum", 5.0),
        ("lts__t_bytes.sum", 640.0),
    ]);
    assert_eq!(q(&l, Quantity::GlobalLoadSectors), Some(100.0));
    assert_eq!(q(&l, Quantity::GlobalLoadBytes), Some(3200.0));
    assert_eq!(q(&l, Quantity::DramReadBytes), Some(160.0));
    assert_eq!(q(&l, Quantity::L2Sectors), Some(20.0));
    assert_eq!(q(&l, Quantity::DramBytes), None);
}

/// A launch restricted to some quantities keeps exactly the metrics they are read from (the
/// first recipe present, sums through both parts) and its identity; every other quantity is
/// then absent.
#[test]
fn restricted_launch_keeps_only_what_its_quantities_read() {
    let l = launch(&[
        ("smsp__inst_executed.sum", 640.0),
        ("sm__warps_launched.sum", 8.0),
        ("dram__bytes_read.sum", 96.0),
        ("dram__bytes_write.sum", 32.0),
        ("lts__t_sectors_op_read.sum", 7.0),
    ]);
    let inst = l.restricted_to(&[Quantity::WarpInstsExecuted]);
    assert_eq!(inst.id, l.id);
    assert_eq!((inst.grid, inst.block), (l.grid, l.block));
    let names: Vec<&str> = inst.metrics.keys().map(String::as_str).collect();
    assert_eq!(names, ["smsp__inst_executed.sum"]);
    assert_eq!(q(&inst, Quantity::WarpInstsExecuted), Some(640.0));
    for absent in [
        Quantity::WarpsLaunched,
        Quantity::DramReadBytes,
        Quantity::DramBytes,
        Quantity::L2ReadSectors,
    ] {
        assert_eq!(q(&inst, absent), None, "{absent:?}");
    }
    assert_eq!(inst.warp_insts_per_warp(), None);
    // A sum keeps both parts; a quantity the launch lacks keeps nothing.
    let dram = l.restricted_to(&[Quantity::DramBytes, Quantity::SharedLoadInsts]);
    let names: Vec<&str> = dram.metrics.keys().map(String::as_str).collect();
    assert_eq!(names, ["dram__bytes_read.sum", "dram__bytes_write.sum"]);
    assert_eq!(q(&dram, Quantity::DramBytes), Some(128.0));
    assert!(l.restricted_to(&[]).metrics.is_empty());
}

#[test]
fn sass_and_older_names_and_combined_forms() {
    let old = launch(&[
        ("smsp__branch_targets_threads_divergent.sum", 7.0),
        ("smsp__inst_executed_op_shared_ld.sum", 4.0),
        ("smsp__inst_executed_op_shared_st.sum", 2.0),
        ("smsp__inst_executed_op_global_ld.sum", 9.0),
        ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", 3.0),
    ]);
    assert_eq!(q(&old, Quantity::DivergentBranches), Some(7.0));
    assert_eq!(q(&old, Quantity::SharedInsts), Some(6.0));
    assert_eq!(q(&old, Quantity::SharedBankConflicts), Some(3.0));
    assert_eq!(q(&old, Quantity::SharedLoadBankConflicts), None);
    assert_eq!(q(&old, Quantity::GlobalLoadRequests), Some(9.0));
    let split = launch(&[
        (
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
            1.0,
        ),
        (
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
            2.0,
        ),
    ]);
    assert_eq!(q(&split, Quantity::SharedBankConflicts), Some(3.0));
}

#[test]
fn nvprof_shared_transactions_per_request() {
    let l = launch(&[
        ("shared_load_transactions", 30.0),
        ("inst_executed_shared_loads", 10.0),
    ]);
    assert_eq!(q(&l, Quantity::SharedLoadTransactionsPerRequest), Some(3.0));
}

fn all_used_derivable(names: &[&str], except: &[Quantity]) {
    let metrics: Vec<(&str, f64)> = names.iter().map(|n| (*n, 1.0)).collect();
    let l = launch(&metrics);
    for u in Quantity::USED.into_iter().filter(|u| !except.contains(u)) {
        assert!(
            l.quantity(u).is_some(),
            "{u:?} not derivable from {names:?}"
        );
    }
    // Each listed metric is read by some recipe: the list has nothing superfluous.
    let read: Vec<&str> = Quantity::ALL
        .iter()
        .flat_map(|q| q.metric_names())
        .collect();
    for n in names {
        assert!(read.contains(n), "{n} is read by no recipe");
    }
}

#[test]
fn collected_lists_derive_every_used_quantity() {
    all_used_derivable(&NCU_METRICS, &[]);
    let nvprof: Vec<&str> = NVPROF_METRICS
        .iter()
        .chain(&NVPROF_EVENTS)
        .copied()
        .collect();
    all_used_derivable(&nvprof, &Quantity::NCU_ONLY);
}

#[test]
fn dropping_a_needed_metric_is_noticed() {
    let fewer: Vec<&str> = NCU_METRICS
        .iter()
        .filter(|n| !n.contains("requests_pipe_lsu_mem_global_op_st"))
        .copied()
        .collect();
    let metrics: Vec<(&str, f64)> = fewer.iter().map(|n| (*n, 1.0)).collect();
    let l = launch(&metrics);
    assert!(l.quantity(Quantity::GlobalStoreRequests).is_none());
}

#[test]
fn command_lines_name_every_metric() {
    let ncu = profile::metrics::collect_command(false);
    assert!(ncu.starts_with("ncu --csv"));
    assert!(NCU_METRICS.iter().all(|m| ncu.contains(m)));
    let nv = profile::metrics::collect_command(true);
    assert!(nv.starts_with("nvprof --csv"));
    assert!(NVPROF_METRICS
        .iter()
        .chain(&NVPROF_EVENTS)
        .all(|m| nv.contains(m)));
}
