#!/usr/bin/env bash
# Every measurement gen_profile.py reads, for a new GPU, in one go:
#   GPU=h200 bash bench/microbench/profile_gpu.sh [OUTDIR]
# runs run.sh (the λ/Λ suite and block dispatch), bandwidth.sh, bw_peak.sh, wgmma.sh,
# gather.sh, cp_async.sh, atomics.sh, mlp.sh, the standalone l2_reuse.cu and mio_dram_mix.cu,
# and loaded_latency.sh, writing OUTDIR/${GPU}_*.csv and *_env.txt (OUTDIR defaults to data/).
# Then, on any machine: python3 bench/microbench/gen_profile.py --gpu $GPU (README.md).
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
step() {
  local t0=$SECONDS
  "$@"
  echo "[$((SECONDS - t0)) s] $*" >&2
}
for s in run bandwidth bw_peak wgmma gather cp_async atomics mlp; do
  step bash "$here/$s.sh" "$out"
done
# Two standalone benchmarks (no script of their own): build, run, keep the env lines.
for name in l2_reuse mio_dram_mix; do
  $NVCC -O3 -arch="$ARCH" -std=c++17 -o "$build/$name" "$here/$name.cu"
  {
    env_header "$NVCC -O3 -arch=$ARCH -std=c++17 -o $name $name.cu"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  } > "$out/${gpu}_${name}_env.txt" 2>&1
  step "$build/$name" > "$out/${gpu}_${name}_raw.csv"
done
rm -rf "$build"
# Last: the longest (ncu over every configuration).
step bash "$here/loaded_latency.sh" "$out"
