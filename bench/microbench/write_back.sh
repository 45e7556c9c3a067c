#!/usr/bin/env bash
# Build write_back.cu and run it under Nsight Compute (the written bytes that reach DRAM
# before a launch ends), with the suites' cache control.
#   bash bench/microbench/write_back.sh [OUTDIR]
# Writes OUTDIR/${gpu}_write_back_raw.csv (the program's lines), OUTDIR/${gpu}_write_back_ncu.csv
# (one row per metric and launch, in launch order) and OUTDIR/${gpu}_write_back_env.txt.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
run_under_ncu write_back "--cache-control all" \
  dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,gpu__time_duration.sum
