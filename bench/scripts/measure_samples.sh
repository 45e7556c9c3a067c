#!/usr/bin/env bash
# Measures the sampled launches of every bundled occupancy suite (ptx_samples/rodinia,
# ptx_samples/heldout, bench/uneven_suite, bench/branch_suite) in one pass, for the sampling
# models (docs/models.md): per occupancy point already in the suite, the launch truncated to
# 2 and 3 Psat work groups (Psat = blocks_per_sm * SMs) and the full grid, with each suite's
# timing method (cold L2, 2 warm-up and 9 timed launches, median), `bench samples`.
#
#   bench/scripts/measure_samples.sh OUT_DIR
#
# Builds the four drivers from the committed PTX (in parallel), then writes
# OUT_DIR/<suite>/data/samples.csv for suite = rodinia, heldout, uneven, branch, and
# OUT_DIR/env.txt (GPU, driver and toolchain), OUT_DIR/clocks.csv (nvidia-smi clock and
# power samples every 0.5 s during the run) and OUT_DIR/log.txt (the drivers' checks and
# per-point times). Copy each samples.csv to <suite>/data/ and add
# `samples = "data/samples.csv"` to the suite's manifest. Never changes clocks.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"
cd "$ROOT"
(cd ptx_samples/rodinia && scripts/build.sh) > "$OUT/build_rodinia.log" 2>&1 &
B1=$!
(cd ptx_samples/heldout && scripts/build.sh) > "$OUT/build_heldout.log" 2>&1 &
B2=$!
bench/scripts/validation_build.sh bench/uneven_suite > "$OUT/build_uneven.log" 2>&1 &
B3=$!
bench/scripts/validation_build.sh bench/branch_suite > "$OUT/build_branch.log" 2>&1 &
B4=$!
for p in $B1 $B2 $B3 $B4; do
  wait $p || { cat "$OUT"/build_*.log; exit 1; }
done
cat "$OUT"/build_*.log && rm "$OUT"/build_*.log

nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active \
  --format=csv -lms 500 > "$OUT/clocks.csv" 2>&1 &
SMI_PID=$!
trap 'kill $SMI_PID' EXIT
{
  echo "# date"; date -u
  echo "# nvidia-smi --query-gpu"
  nvidia-smi --query-gpu=name,driver_version,vbios_version,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,power.limit,persistence_mode,compute_mode,mig.mode.current --format=csv
  echo "# nvcc --version"; nvcc --version
} > "$OUT/env.txt" 2>&1

run() {
  local name=$1 dir=$2
  mkdir -p "$OUT/$name/data"
  local start=$(date +%s)
  echo "# $name" >> "$OUT/log.txt"
  if ! (cd "$dir" && build/bench samples build "$OUT/$name") 2>> "$OUT/log.txt"; then
    echo "samples $name: the driver failed (a check or a launch, see log.txt)"
  fi
  echo "samples $name: $(($(date +%s) - start)) s, $(($(wc -l < "$OUT/$name/data/samples.csv") - 1)) rows"
}
run rodinia ptx_samples/rodinia
run heldout ptx_samples/heldout
run uneven bench/uneven_suite
run branch bench/branch_suite
