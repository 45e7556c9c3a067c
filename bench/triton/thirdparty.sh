#!/bin/sh
# Measures and predicts the third-party kernels of thirdparty_kernels.py on a GPU machine with
# torch and Triton: installs the given wheels (ptx2idg, liger-kernel) into a scratch folder,
# measures every configuration (measure.py) and predicts it (predict.py, no GPU call).
#   bench/triton/thirdparty.sh OUT_DIR GPU_PROFILE WHEEL...
# writes OUT_DIR/measured_thirdparty_kernels.csv, predicted_thirdparty_kernels.csv,
# predict.log and env.txt.
set -eu
out=$1
gpu=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
deps=$(mktemp -d)
python3 -m pip install -q --no-deps --target "$deps" "$@"
export PYTHONPATH="$deps:$here"
python3 "$here/measure.py" "$out" thirdparty_kernels
python3 "$here/predict.py" --kernels thirdparty_kernels --gpu "$gpu" 2>"$out/predict.log"
cp "$here/predicted_thirdparty_kernels.csv" "$out/"
{
    nvidia-smi --query-gpu=name,clocks.current.sm,clocks.max.sm --format=csv
    python3 -c "import triton, torch; print(triton.__version__, torch.__version__)"
    python3 -c "import importlib.metadata as m; print('liger-kernel', m.version('liger-kernel'))"
    echo "measured by: bench/triton/thirdparty.sh OUT $gpu (wheels: $*) ($(date -u +%F))"
} >"$out/env.txt"
