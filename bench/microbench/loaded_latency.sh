#!/usr/bin/env bash
# Build and run the loaded-latency benchmark (loaded_latency.cu): five launches of every
# configuration (probe latency against the streamers' bandwidth), then one Nsight Compute pass
# over each configuration (DRAM bytes and duration per launch, the clocks left alone).
#   bash bench/microbench/loaded_latency.sh [OUTDIR]
# Writes OUTDIR/${gpu}_loaded_latency_raw.csv, OUTDIR/${gpu}_loaded_latency_ncu.csv (ncu --csv, the
# launches in the order of OUTDIR/${gpu}_loaded_latency_ncu_configs.csv) and
# OUTDIR/${gpu}_loaded_latency_env.txt.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
$NVCC -O3 -arch="$ARCH" -std=c++17 -o "$build/loaded_latency" "$here/loaded_latency.cu"
{
  env_header "$NVCC -O3 -arch=$ARCH -std=c++17 -o loaded_latency loaded_latency.cu"
  echo "run: ./loaded_latency > ${gpu}_loaded_latency_raw.csv"
  echo "ncu: $(ncu --version | tail -n 1)"
  echo "registers per thread (cuobjdump -res-usage):"
  cuobjdump -res-usage "$build/loaded_latency" | grep -A1 k_loaded | grep -o 'Function [^ ]*\|REG:[0-9]*' | paste - - || true
  echo "--- nvidia-smi before"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu,pstate --format=csv
} > "$out/${gpu}_loaded_latency_env.txt" 2>&1
"$build/loaded_latency" > "$out/${gpu}_loaded_latency_raw.csv"
{
  echo "--- nvidia-smi after"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv
} >> "$out/${gpu}_loaded_latency_env.txt" 2>&1
echo "sweep,rw,isolate,blocks_per_sm,warps_per_block,d,sleep_ns" > "$out/${gpu}_loaded_latency_ncu_configs.csv"
ncu --clock-control none --replay-mode application --kernel-name regex:k_loaded --launch-skip 1 --csv \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_elapsed.avg.per_second \
  "$build/loaded_latency" profile 2>> "$out/${gpu}_loaded_latency_ncu_configs.csv" \
  | grep -v "^==" > "$out/${gpu}_loaded_latency_ncu.csv" \
  || { tail -20 "$out/${gpu}_loaded_latency_ncu_configs.csv"; exit 1; }
rm -rf "$build"
echo "wrote $out/${gpu}_loaded_latency_raw.csv ($(wc -l < "$out/${gpu}_loaded_latency_raw.csv") lines)"
