# Sourced by the benchmark scripts after they set `here` (their folder): `out` (the first
# argument, else data/), a scratch `build` folder, the compiler `NVCC` and target `ARCH`
# (both overridable from the environment), and `env_header BUILD`, the first lines of every
# *_env.txt (date, the build command as recorded, the nvcc version).
set -euo pipefail
out="${1:-$here/data}"
mkdir -p "$out"
build="$(mktemp -d)"
NVCC="${NVCC:-nvcc}"
ARCH="${ARCH:-sm_90}"

env_header() {
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "build: $1"
  echo "nvcc: $($NVCC --version | tail -n 2 | tr '\n' ' ')"
}
