#!/usr/bin/env bash
# Runs the corpus suite's occupancy sweeps and Nsight Compute runs on the current GPU, with
# the held-out suite's method (docs/rodinia-suite.md: every blocks-per-SM point by dynamic
# shared-memory padding, cold L2 before every timed launch, median of 9, one ncu launch per
# point, --clock-control none).
#
#   bench/corpus_suite/scripts/measure.sh OUTDIR [NCU_DEADLINE_S]
#
# Requires scripts/build.sh first. Kernels run in batches of BATCH (default 12) consecutive
# ids in `bench list` order, each batch in its own driver process, into
# OUTDIR/parts/<nn>/ (suite.toml, data/timings.csv, timings_repeat.csv, checks*.csv); a batch
# whose process dies (a CUDA error ends the driver) is run again one kernel per process
# (parts/<nn>_<kk>/), so a broken kernel costs only itself. After each batch's two sweeps its
# counters: one ncu process per part, whose CSV scripts/split_ncu.py cuts into
# OUTDIR/data/ncu/<id>.csv. OUTDIR/data/env.txt is written after the first batch (clocks
# still up). No batch starts later than NCU_DEADLINE_S seconds after the start (default 420):
# OUTDIR/not_measured.txt lists those kernels, ncu_missing.txt timed kernels without
# counters, crashed.txt kernels whose driver process died. scripts/merge.py joins the parts.
set -uo pipefail
SUITE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(cd "$SUITE/../.." && pwd)"
mkdir -p "$1"
OUT="$(cd "$1" && pwd)"
DEADLINE=${2:-420}
BATCH=${BATCH:-12}
START=$(date +%s)
cd "$SUITE"
mkdir -p "$OUT/parts" "$OUT/data/ncu" "$OUT/logs"
: > "$OUT/ncu_missing.txt"
: > "$OUT/crashed.txt"
: > "$OUT/not_measured.txt"

. "$ROOT/ptx_samples/heldout/scripts/metrics.sh"
# the validation suites' additions (SM busy spread, branch count) and the held-out suite's
# global-atomics set, where this ncu lists the names
EXTRA=$EXTRA,sm__cycles_active.max,sm__cycles_active.min,smsp__sass_inst_executed_op_branch.sum
ATOMICS="smsp__sass_inst_executed_op_global_red.sum smsp__sass_inst_executed_op_global_atom.sum \
l1tex__t_requests_pipe_lsu_mem_global_op_red.sum l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum \
l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum \
lts__t_requests_op_red.sum lts__t_requests_op_red.avg lts__t_requests_op_red.max \
lts__t_requests_op_atom.sum lts__t_requests_op_atom.avg lts__t_requests_op_atom.max \
lts__d_atomic_input_cycles_active.sum lts__d_atomic_input_cycles_active.avg \
lts__d_atomic_input_cycles_active.max lts__cycles_elapsed.avg"
KNOWN=$(ncu --query-metrics 2>/dev/null || true)
for m in $ATOMICS; do
  if grep -q -w "${m%.*}" <<< "$KNOWN"; then EXTRA="$EXTRA,$m"; else echo "ncu lacks $m: left out" >&2; fi
done

nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active \
  --format=csv -lms 500 > "$OUT/data/clocks_during_run.csv" 2>&1 &
SMI_PID=$!
trap 'kill $SMI_PID 2>/dev/null' EXIT

mapfile -t IDS < <(build/bench list | awk '{print $1}')
echo "$(date -u +%T) ${#IDS[@]} kernels, batches of $BATCH"

# time + repeat of the given ids into parts/$1; 0 unless the driver died (check failures
# are recorded in checks.csv and do not count)
run_part() {
  local d="$OUT/parts/$1"; shift
  mkdir -p "$d/data"
  build/bench time build "$d" "$@" >> "$OUT/logs/time.log" 2>&1
  local rc=$?
  [[ $rc -gt 1 ]] && return $rc
  build/bench repeat build "$d" "$@" >> "$OUT/logs/time.log" 2>&1
  rc=$?
  [[ $rc -gt 1 ]] && return $rc
  return 0
}

# counters of the kernels of parts/$1: one ncu process, one launch per point
ncu_part() {
  local d="$OUT/parts/$1" part=$1 now ids entries
  now=$(date +%s)
  ids=$(sed -n 's/^id = "\(.*\)"$/\1/p' "$d/suite.toml")
  entries=$(sed -n 's/^entry = "\(.*\)"$/\1/p' "$d/suite.toml" | sort -u | paste -sd'|')
  ncu --clock-control none --cache-control all --kernel-name-base mangled \
      -k "regex:^($entries)\$" --metrics "$METRICS,$EXTRA" -f -o "build/ncu_$part" \
      build/bench profile build $ids > "$OUT/logs/ncu_$part.log" 2>&1 \
    || { echo "ncu failed for part $part"; tail -5 "$OUT/logs/ncu_$part.log"; }
  ncu --import "build/ncu_$part.ncu-rep" --csv --page details --print-units base \
      --print-kernel-base mangled > "build/ncu_$part.csv" 2>> "$OUT/logs/ncu_$part.log"
  python3 scripts/split_ncu.py "build/ncu_$part.csv" "$d/suite.toml" "$OUT/data/ncu" \
    >> "$OUT/logs/ncu_$part.log" 2>&1 || { echo "split failed for part $part"; tail -5 "$OUT/logs/ncu_$part.log"; }
  echo "$(date -u +%T) ncu part $part: $(($(date +%s) - now)) s"
}

write_env() {
  {
    echo "# date"; date -u
    echo "# nvidia-smi"; nvidia-smi
    echo "# nvidia-smi --query-gpu"
    nvidia-smi --query-gpu=name,driver_version,vbios_version,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,power.limit,persistence_mode,compute_mode,mig.mode.current --format=csv
    echo "# nvcc --version"; nvcc --version
    echo "# ncu --version"; ncu --version
    echo "# ptxas -v (build/*.ptxas.txt)"; cat build/*.ptxas.txt
  } > "$OUT/data/env.txt" 2>&1
}

# batch by batch: timings, repeat, then counters, so that a run cut short leaves whole
# kernels; no batch starts after the deadline
nb=0
for ((i = 0; i < ${#IDS[@]}; i += BATCH)); do
  part=$(printf "%02d" $nb)
  batch=("${IDS[@]:i:BATCH}")
  nb=$((nb + 1))
  if (( $(date +%s) - START > DEADLINE )); then
    printf '%s\n' "${batch[@]}" >> "$OUT/not_measured.txt"
    continue
  fi
  done_parts=()
  if run_part "$part" "${batch[@]}"; then
    done_parts=("$part")
  else
    echo "batch $part died; one kernel per process" | tee -a "$OUT/logs/time.log"
    rm -rf "$OUT/parts/$part"
    kk=0
    for id in "${batch[@]}"; do
      sub="${part}_$(printf "%02d" $kk)"
      if run_part "$sub" "$id"; then
        done_parts+=("$sub")
      else
        echo "$id" >> "$OUT/crashed.txt"
        rm -rf "$OUT/parts/$sub"
      fi
      kk=$((kk + 1))
    done
  fi
  echo "$(date -u +%T) batch $part timed ($(($(date +%s) - START)) s)"
  [[ -s "$OUT/data/env.txt" ]] || write_env
  for p in "${done_parts[@]}"; do
    ncu_part "$p"
  done
done
for d in "$OUT"/parts/*/; do
  for id in $(sed -n 's/^id = "\(.*\)"$/\1/p' "$d/suite.toml"); do
    [[ -s "$OUT/data/ncu/$id.csv" ]] || echo "$id" >> "$OUT/ncu_missing.txt"
  done
done
echo "$(date -u +%T) done in $(($(date +%s) - START)) s; $(ls "$OUT/data/ncu" | wc -l) ncu files, $(grep -c . "$OUT/ncu_missing.txt") timed kernels without counters, $(cat "$OUT/not_measured.txt" | wc -l) not measured"
