# Sourced by the benchmark scripts after they set `here` (their folder): `out` (the first
# argument, else data/), a scratch `build` folder, the compiler `NVCC`, target `ARCH` and
# file prefix `gpu` (overridable from the environment: NVCC, ARCH, GPU=h200), and `env_header BUILD`, the first lines of every
# *_env.txt (date, the build command as recorded, the nvcc version).
set -euo pipefail
out="${1:-$here/data}"
mkdir -p "$out"
build="$(mktemp -d)"
NVCC="${NVCC:-nvcc}"
ARCH="${ARCH:-sm_90}"
# The prefix of every file written (h100_raw.csv, ...): the GPU the data come from.
gpu="${GPU:-h100}"

env_header() {
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "build: $1"
  echo "nvcc: $($NVCC --version | tail -n 2 | tr '\n' ' ')"
}

# `run_standalone NAME FLAGS PATTERN LABEL`: builds $here/NAME.cu with FLAGS, runs it into
# OUTDIR/${gpu}_NAME_raw.csv and writes OUTDIR/${gpu}_NAME_env.txt: the header, driver and
# clocks before, the SASS instructions matching PATTERN that ptxas emitted (LABEL, counted by
# form), and the clocks after.
run_standalone() {
  local name=$1 flags=$2 pattern=$3 label=$4
  local env="$out/${gpu}_${name}_env.txt" raw="$out/${gpu}_${name}_raw.csv"
  # shellcheck disable=SC2086 # FLAGS is a list of options
  $NVCC $flags -o "$build/$name" "$here/$name.cu"
  {
    env_header "$NVCC $flags -o $name $name.cu"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
    echo "--- $label instructions (count, form)"
    cuobjdump -sass "$build/$name" | grep -o "$pattern" | sort | uniq -c || true
  } > "$env" 2>&1
  "$build/$name" > "$raw"
  nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv >> "$env" 2>&1 || true
  rm -rf "$build"
  echo "wrote $raw ($(wc -l < "$raw") lines)"
}

# `run_under_ncu NAME NCU_OPTIONS METRICS`: builds $here/NAME.cu, writes
# OUTDIR/${gpu}_NAME_env.txt (the header, driver, clocks and the ncu version), runs it under
# Nsight Compute with NCU_OPTIONS (kernel filter, cache control) reading METRICS into
# OUTDIR/${gpu}_NAME_ncu.csv (one row per metric and launch, in launch order) and its own
# lines into OUTDIR/${gpu}_NAME_raw.csv. Clocks are never locked.
run_under_ncu() {
  local name=$1 options=$2 metrics=$3
  $NVCC -O3 -arch="$ARCH" -std=c++17 -o "$build/$name" "$here/$name.cu"
  {
    env_header "$NVCC -O3 -arch=$ARCH -std=c++17 -o $name $name.cu"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
    ncu --version | tail -n 1
  } > "$out/${gpu}_${name}_env.txt" 2>&1
  # shellcheck disable=SC2086 # OPTIONS is a list of options
  ncu --clock-control none $options --csv --page details --print-units base \
    --metrics "$metrics" --log-file "$out/${gpu}_${name}_ncu.csv" "$build/$name" \
    > "$out/${gpu}_${name}_raw.csv"
  # ncu's connect lines name the build folder, a path of the measuring machine.
  sed -i '/^==PROF==/d' "$out/${gpu}_${name}_ncu.csv"
  rm -rf "$build"
}
