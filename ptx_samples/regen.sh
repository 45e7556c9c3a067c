#!/usr/bin/env bash
# Regenerates every PTX file under ptx_samples/ from ptx_samples/cuda/*.cu.
# Tools are taken from PATH or from these variables (see README.md for installing them):
#   NVCC   (default: nvcc)      CUDA 13 nvcc; targets sm_75, sm_80, sm_90, sm_90a, -G debug
#   CLANG  (default: clang-14)  LLVM NVPTX back end; targets sm_52 and the llvm/ set
#   PYTHON (default: python3)   runs scrub_paths.py (strips build-machine paths)
#   TRITON_PYTHON (optional)    a Python with the `triton` package; regenerates triton/*.ptx
# ptx_samples/rodinia/ is not touched.
set -euo pipefail

NVCC=${NVCC:-nvcc}
CLANG=${CLANG:-clang-14}
PYTHON=${PYTHON:-python3}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$here/cuda
cd "$src"

# Samples that need CUDA's own headers (wmma, cuda_pipeline, cuda::barrier, inline PTX that
# needs sm_75+); everything else also builds with clang without any CUDA installation.
nvcc_only="tensor_core cp_async wgmma"
# wgmma only exists on sm_90a; big_debug is the benchmark module, built once into large/.
skip_targets="wgmma big_debug"
all=$(ls *.cu | sed 's/\.cu$//' | grep -v -x -F -e big_debug)

contains() { case " $1 " in *" $2 "*) return 0 ;; *) return 1 ;; esac; }

# nvcc only emits a jump table (brx.idx) for a switch when the density threshold allows it;
# the default (101) never does. Applied to the switch sample only.
extra_flags() { if [ "$1" = switch ]; then echo "-Xcicc -jump-table-density=0"; fi; }

nvcc_build() { # outdir arch name [flags...]
  local out=$1 arch=$2 name=$3
  shift 3
  # shellcheck disable=SC2046
  "$NVCC" -ptx -arch="$arch" "$@" $(extra_flags "$name") "$name.cu" -o "$here/$out/$name.ptx"
}

for arch in sm_75 sm_80 sm_90; do
  mkdir -p "$here/$arch"
  for s in $all; do
    contains "$skip_targets" "$s" && continue
    nvcc_build "$arch" "$arch" "$s" -lineinfo
  done
done

mkdir -p "$here/sm_90a"
nvcc_build sm_90a sm_90a wgmma -lineinfo

mkdir -p "$here/debug"
for s in $all; do
  contains "$skip_targets" "$s" && continue
  nvcc_build debug sm_90 "$s" -G
done

mkdir -p "$here/large"
"$NVCC" -ptx -arch=sm_90 -G big_debug.cu -o "$here/large/big_debug.ptx"

# clang: no CUDA headers; portable.cuh supplies the few intrinsics the samples use.
# +ptx70 enables the *_sync shuffle builtins (and makes clang write .version 7.0).
clang_build() { # outdir arch name
  "$CLANG" -x cuda --cuda-gpu-arch="$2" --cuda-device-only -nocudainc -nocudalib -O3 -S \
    -Xclang -target-feature -Xclang +ptx70 -Wno-unknown-cuda-version \
    -DPTX_SAMPLES_NO_CUDA_HEADERS -o "$here/$1/$3.ptx" "$3.cu"
}
mkdir -p "$here/sm_52" "$here/llvm"
for s in $all; do
  contains "$nvcc_only" "$s" && continue
  clang_build sm_52 sm_52 "$s"
  clang_build llvm sm_80 "$s"
done

"$PYTHON" "$here/scrub_paths.py" "$src" \
  "$here"/sm_75/*.ptx "$here"/sm_80/*.ptx "$here"/sm_90/*.ptx "$here"/sm_90a/*.ptx \
  "$here"/debug/*.ptx "$here"/large/*.ptx "$here"/sm_52/*.ptx "$here"/llvm/*.ptx

if [ -n "${TRITON_PYTHON:-}" ]; then
  TRITON_DEFAULT_FP_FUSION=1 "$TRITON_PYTHON" "$here/triton/gen_triton.py"
else
  echo "TRITON_PYTHON unset: triton/*.ptx left as they are"
fi

echo "regenerated PTX under $here"
