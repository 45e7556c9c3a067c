#!/usr/bin/env bash
# Build fetch.cu and run it under Nsight Compute (what one scattered DRAM read fetches).
#   bash bench/microbench/fetch.sh [OUTDIR]
# Writes OUTDIR/${gpu}_fetch_raw.csv (the program's lines), OUTDIR/${gpu}_fetch_ncu.csv (one row
# per metric and launch, in launch order) and OUTDIR/${gpu}_fetch_env.txt.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
$NVCC -O3 -arch="$ARCH" -std=c++17 -o "$build/fetch" "$here/fetch.cu"
{
  env_header "$NVCC -O3 -arch=$ARCH -std=c++17 -o fetch fetch.cu"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  ncu --version | tail -n 1
} > "$out/${gpu}_fetch_env.txt" 2>&1
ncu --clock-control none --cache-control none --csv --page details --print-units base -k k_fetch \
  --metrics dram__bytes_read.sum,lts__t_sectors_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum \
  --log-file "$out/${gpu}_fetch_ncu.csv" "$build/fetch" > "$out/${gpu}_fetch_raw.csv"
# ncu's connect lines name the build folder, a path of the measuring machine.
sed -i '/^==PROF==/d' "$out/${gpu}_fetch_ncu.csv"
rm -rf "$build"
