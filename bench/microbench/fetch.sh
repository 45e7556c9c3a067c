#!/usr/bin/env bash
# Build fetch.cu and run it under Nsight Compute (what one scattered DRAM read fetches).
#   bash bench/microbench/fetch.sh [OUTDIR]
# Writes OUTDIR/${gpu}_fetch_raw.csv (the program's lines), OUTDIR/${gpu}_fetch_ncu.csv (one row
# per metric and launch, in launch order) and OUTDIR/${gpu}_fetch_env.txt.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
run_under_ncu fetch "--cache-control none -k k_fetch" \
  dram__bytes_read.sum,lts__t_sectors_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum
