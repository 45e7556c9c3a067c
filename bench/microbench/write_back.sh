#!/usr/bin/env bash
# Build write_back.cu and run it under Nsight Compute (the written bytes that reach DRAM
# before a launch ends), with the suites' cache control.
#   bash bench/microbench/write_back.sh [OUTDIR]
# Writes OUTDIR/${gpu}_write_back_raw.csv (the program's lines), OUTDIR/${gpu}_write_back_ncu.csv
# (one row per metric and launch, in launch order) and OUTDIR/${gpu}_write_back_env.txt.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
$NVCC -O3 -arch="$ARCH" -std=c++17 -o "$build/write_back" "$here/write_back.cu"
{
  env_header "$NVCC -O3 -arch=$ARCH -std=c++17 -o write_back write_back.cu"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  ncu --version | tail -n 1
} > "$out/${gpu}_write_back_env.txt" 2>&1
ncu --clock-control none --cache-control all --csv --page details --print-units base \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,gpu__time_duration.sum \
  --log-file "$out/${gpu}_write_back_ncu.csv" "$build/write_back" > "$out/${gpu}_write_back_raw.csv"
# ncu's connect lines name the build folder, a path of the measuring machine.
sed -i '/^==PROF==/d' "$out/${gpu}_write_back_ncu.csv"
rm -rf "$build"
