#!/usr/bin/env bash
# Build and run the uneven-warps benchmark (uneven.cu): event times over blocks per SM, then
# one Nsight Compute pass over the 1- and 8-block points of every long-warp factor.
#   bash bench/microbench/uneven.sh [OUTDIR]
# Writes OUTDIR/${gpu}_uneven_raw.csv (times), OUTDIR/${gpu}_uneven_ncu.csv (ncu --csv, launches in
# the order long factor 1, 2, 4, 8 x blocks per SM 1, 8, each after its flush kernel) and
# OUTDIR/${gpu}_uneven_env.txt.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
$NVCC -O3 -arch=sm_90 -std=c++17 -o "$build/uneven" "$here/uneven.cu"
{
  env_header "$NVCC -O3 -arch=sm_90 -std=c++17 -o uneven uneven.cu"
  echo "ncu: $(ncu --version | tail -n 1)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
} > "$out/${gpu}_uneven_env.txt" 2>&1
"$build/uneven" > "$out/${gpu}_uneven_raw.csv"
ncu --clock-control none --kernel-name k_uneven --csv \
  --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,smsp__inst_executed.sum,smsp__warps_launched.sum,launch__occupancy_limit_shared_mem \
  "$build/uneven" profile 2> "$build/ncu.log" | grep -v "^==" > "$out/${gpu}_uneven_ncu.csv" \
  || { tail -20 "$build/ncu.log"; exit 1; }
rm -rf "$build"
echo "wrote $out/${gpu}_uneven_raw.csv ($(wc -l < "$out/${gpu}_uneven_raw.csv") lines)"
