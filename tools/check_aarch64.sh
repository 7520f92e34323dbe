#!/usr/bin/env bash
# Checks --target aarch64-linux under qemu-user against ONNX Runtime: the
# whole op-family suite and the four benchmark models, on the NEON variant
# (SVE off) and on the SVE variant at 128-, 256- and 512-bit vectors. CI runs
# a sample (tests/e2e/CMakeLists.txt, e2e_*_aarch64_*); this is all of it.
#   tools/check_aarch64.sh [models-dir]      (default: build/models)
# CUVIL_AARCH64_LENGTHS="neon 16 32 64" picks the runs (SVE lengths in bytes);
# CUVIL_AARCH64_OPS=0 skips the op suite, CUVIL_AARCH64_MODELS=0 the models.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build/models}
python=${CUVIL_PYTHON:-.venv/bin/python}
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64)
export CUVIL_E2E_TARGET=aarch64-linux
# Every run compiles (a cache hit's report has no arena line for test_models.py).
export CUVIL_NO_CACHE=1
status=0
for length in ${CUVIL_AARCH64_LENGTHS:-neon 16 32 64}; do
  if [[ $length == neon ]]; then
    export CUVIL_E2E_RUNNER="$qemu -cpu max,sve=off"
  else
    export CUVIL_E2E_RUNNER="$qemu -cpu max,sve-default-vector-length=$length"
  fi
  echo "=== $CUVIL_E2E_RUNNER ==="
  if [[ ${CUVIL_AARCH64_OPS:-1} != 0 ]]; then
    "$python" tests/e2e/test_ops.py --cuvil build/tools/cuvil -j "$(nproc)" | tail -n 40 || status=1
  fi
  if [[ ${CUVIL_AARCH64_MODELS:-1} != 0 ]]; then
    for model in resnet50 mobilenet_v2 squeezenet1_1 bert_2layer; do
      "$python" tests/e2e/test_models.py --cuvil build/tools/cuvil --models-dir "$dir" \
        --model "$model" || status=1
    done
  fi
done
exit $status
