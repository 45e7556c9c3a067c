#!/usr/bin/env bash
# Runs the occupancy sweep of the suite on the current GPU.
#
#   scripts/measure.sh <suite_dir> [all|time|repeat|ncu|env|samples] [kernel_id...]
#
# <suite_dir> receives a self-contained suite (the layout of
# ptx_samples/heldout, see docs/rodinia-suite.md):
#   time:   <suite_dir>/suite.toml, data/timings.csv, data/checks.csv,
#           data/samples.csv
#   samples: data/samples.csv alone: per point the launch truncated to 2 and
#           3 Psat work groups and the full grid (the sampling models,
#           docs/models.md; ../common/samples.h), for a suite measured before
#           the samples existed (its suite.toml then needs
#           `samples = "data/samples.csv"` added by hand)
#   repeat: data/timings_repeat.csv (second sweep, run-to-run spread)
#   ncu:    data/ncu/<kernel_id>.csv, one Nsight Compute run per kernel
#   env:    data/env.txt (nvidia-smi, driver, toolchain versions)
#   all:    all of the above, plus data/clocks_during_run.csv (nvidia-smi
#           clock/power samples every 0.5 s while it runs)
# The PTX files and cuda/ sources are copied into <suite_dir> when it is not
# this directory.
# Requires scripts/build.sh first. Never changes clocks: ncu runs with
# --clock-control none, so timings and counters see the same boost clocks.
set -euo pipefail
cd "$(dirname "$0")/.."
SUITE=$1
WHAT=${2:-all}
shift 2 || shift $#
mkdir -p "$SUITE/data/ncu"
if [[ "$(cd "$SUITE" && pwd)" != "$(pwd)" ]]; then
  mkdir -p "$SUITE/cuda"
  cp --parents $(find . -name "*.ptx" -not -path "./build/*") "$SUITE/"
  cp cuda/*.cu "$SUITE/cuda/"
fi

. scripts/metrics.sh
# global atomics (REDG/ATOMG): instructions, L1 requests and sectors, and the L2
# slices' requests and atomic-unit input cycles (.max / .avg: how unevenly the atomics
# load the slices) and the L2 clock (lts__cycles_elapsed); names this
# ncu does not list are left out (older versions lack some), see docs/profiler-csv.md
ATOMICS="smsp__sass_inst_executed_op_global_red.sum smsp__sass_inst_executed_op_global_atom.sum \
l1tex__t_requests_pipe_lsu_mem_global_op_red.sum l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum \
l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum \
lts__t_requests_op_red.sum lts__t_requests_op_red.avg lts__t_requests_op_red.max \
lts__t_requests_op_atom.sum lts__t_requests_op_atom.avg lts__t_requests_op_atom.max \
lts__d_atomic_input_cycles_active.sum lts__d_atomic_input_cycles_active.avg \
lts__d_atomic_input_cycles_active.max lts__cycles_elapsed.avg"
KNOWN=$(ncu --query-metrics 2>/dev/null || true)
for m in $ATOMICS; do
  base=${m%.*}
  if grep -q -w "$base" <<< "$KNOWN"; then EXTRA="$EXTRA,$m"; else echo "ncu lacks $m: left out" >&2; fi
done

SMI_PID=
if [[ $WHAT == all ]]; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active \
    --format=csv -lms 500 > "$SUITE/data/clocks_during_run.csv" 2>&1 &
  SMI_PID=$!
  trap '[[ -n $SMI_PID ]] && kill $SMI_PID' EXIT
fi

if [[ $WHAT == time || $WHAT == all ]]; then
  build/bench time build "$SUITE" "$@"
fi

if [[ $WHAT == samples ]]; then
  build/bench samples build "$SUITE" "$@"
fi

if [[ $WHAT == repeat || $WHAT == all ]]; then
  build/bench repeat build "$SUITE" "$@"
fi

if [[ $WHAT == ncu || $WHAT == all ]]; then
  build/bench list | while read -r id entry; do
    if [[ $# -gt 0 ]] && ! printf '%s\n' "$@" | grep -qx "$id"; then continue; fi
    start=$(date +%s)
    # one launch per occupancy point, ascending blocks_per_sm; default kernel
    # replay and --cache-control all (caches flushed before every pass)
    ncu --clock-control none --cache-control all --kernel-name-base mangled \
        -k "$entry" --metrics "$METRICS,$EXTRA" -f -o "build/ncu_$id" \
        build/bench profile build "$id" > "build/ncu_$id.log" 2>&1 \
      || { echo "ncu failed for $id"; tail -20 "build/ncu_$id.log"; exit 1; }
    # mangled names: ncu demangles numba's ABI tags in its own style ("f[v1,...]"),
    # while the mangled name is exactly the PTX entry
    ncu --import "build/ncu_$id.ncu-rep" --csv --page details --print-units base \
        --print-kernel-base mangled > "$SUITE/data/ncu/$id.csv"
    echo "ncu $id: $(($(date +%s) - start)) s, $(wc -l < "$SUITE/data/ncu/$id.csv") lines"
  done
fi

if [[ $WHAT == env || $WHAT == all ]]; then
  {
    echo "# date"; date -u
    echo "# nvidia-smi"; nvidia-smi
    echo "# nvidia-smi -q -d CLOCK,PERFORMANCE,POWER,TEMPERATURE"
    nvidia-smi -q -d CLOCK,PERFORMANCE,POWER,TEMPERATURE
    echo "# nvidia-smi --query-gpu"
    nvidia-smi --query-gpu=name,driver_version,vbios_version,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,power.limit,persistence_mode,compute_mode,mig.mode.current --format=csv
    echo "# nvcc --version"; nvcc --version
    echo "# ncu --version"; ncu --version
    echo "# ptxas -v (build/*.ptxas.txt)"; cat build/*.ptxas.txt
  } > "$SUITE/data/env.txt" 2>&1
fi
