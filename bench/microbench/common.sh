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
