#!/usr/bin/env bash
# Runs the occupancy sweep of a validation suite (bench/<name>_suite) on the current GPU,
# with the method of the held-out suite (ptx_samples/heldout/scripts/measure.sh,
# docs/rodinia-suite.md).
#
#   bench/scripts/validation_measure.sh <suite> <out_dir> [samples]
#
# Writes <out_dir>/suite.toml, data/timings.csv, data/checks.csv, data/timings_repeat.csv,
# data/checks_repeat.csv, data/ncu/<kernel_id>.csv (one Nsight Compute run per kernel, one
# launch per occupancy point), data/env.txt and data/clocks_during_run.csv, and copies
# <name>.ptx and cuda/<name>.cu there. Requires validation_build.sh first. Never changes
# clocks (ncu --clock-control none).
# `samples` writes <out_dir>/data/samples.csv alone (the launch truncated to 2 and 3 Psat
# work groups and the full grid per point, ptx_samples/common/samples.h); `bench time`
# below writes it too.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$2/data/ncu" "$2/cuda"
OUTDIR="$(cd "$2" && pwd)"
cd "$1"
NAME=$(basename "$PWD" _suite)
if [[ "${3:-}" == samples ]]; then
  build/bench samples build "$OUTDIR"
  exit 0
fi
if [[ "$OUTDIR" != "$(pwd)" ]]; then
  cp "$NAME.ptx" "$OUTDIR/"
  cp "cuda/$NAME.cu" "$OUTDIR/cuda/"
fi

# the held-out suite's metric set, plus the branch count `ptx2idg metrics` asks for;
# sm__warps_active.avg.pct_of_peak_sustained_active over
# sm__maximum_warps_per_active_cycle_pct is the busy share of the resident warp
# slots, and sm__cycles_active.avg over sm__cycles_elapsed.max the SMs' busy share
. "$ROOT/ptx_samples/heldout/scripts/metrics.sh"
EXTRA=$EXTRA,sm__cycles_active.max,sm__cycles_active.min,smsp__sass_inst_executed_op_branch.sum

nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active \
  --format=csv -lms 500 > "$OUTDIR/data/clocks_during_run.csv" 2>&1 &
SMI_PID=$!
trap 'kill $SMI_PID' EXIT

build/bench time build "$OUTDIR"
build/bench repeat build "$OUTDIR"

build/bench list | while read -r id entry; do
  start=$(date +%s)
  ncu --clock-control none --cache-control all --kernel-name-base mangled \
      -k "$entry" --metrics "$METRICS,$EXTRA" -f -o "build/ncu_$id" \
      build/bench profile build "$id" > "build/ncu_$id.log" 2>&1 \
    || { echo "ncu failed for $id"; tail -20 "build/ncu_$id.log"; exit 1; }
  ncu --import "build/ncu_$id.ncu-rep" --csv --page details --print-units base \
      --print-kernel-base mangled > "$OUTDIR/data/ncu/$id.csv"
  echo "ncu $id: $(($(date +%s) - start)) s, $(wc -l < "$OUTDIR/data/ncu/$id.csv") lines"
done

{
  echo "# date"; date -u
  echo "# nvidia-smi"; nvidia-smi
  echo "# nvidia-smi --query-gpu"
  nvidia-smi --query-gpu=name,driver_version,vbios_version,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,power.limit,persistence_mode,compute_mode,mig.mode.current --format=csv
  echo "# nvcc --version"; nvcc --version
  echo "# ncu --version"; ncu --version
  echo "# ptxas -v (build/$NAME.ptxas.txt)"; cat "build/$NAME.ptxas.txt"
} > "$OUTDIR/data/env.txt" 2>&1
