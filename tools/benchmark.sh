#!/usr/bin/env bash
# Benchmarks the four reference models against ONNX Runtime and OpenVINO (1 and 2
# threads, alternating rounds) and writes docs/BENCHMARKS.md; then the
# executables compiled with --shape-range against static compiles and ORT
# (tools/bench_dynamic.py, its own section of the same file).
#   tools/benchmark.sh [--avx2] [models-dir]        (default: build/models)
# --avx2 runs the executables' AVX2 fallback (CUVIL_ISA=avx2) instead and
# writes docs/BENCHMARKS_AVX2.md.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${CUVIL_PYTHON:-.venv/bin/python}
variant=() out=docs/BENCHMARKS.md
if [[ ${1:-} == --avx2 ]]; then
  variant=(--isa avx2) out=docs/BENCHMARKS_AVX2.md
  shift
fi
# fma_peak records how fast the cores are right now: on a shared VM the two
# vCPUs sometimes share FMA units, which slows every 2-thread figure.
cmake --build build --target fma_peak >/dev/null
"$python" tools/bench_vs_peers.py --cuvil build/tools/cuvil --models-dir "${1:-build/models}" \
  --models resnet50,mobilenet_v2,squeezenet1_1,bert_base --threads 1,2 --runs 20 --rounds 7 \
  "${variant[@]}" --fma-peak build/tools/fma_peak --out "$out"
if [[ ${#variant[@]} -eq 0 ]]; then
  "$python" tools/bench_dynamic.py --cuvil build/tools/cuvil --models-dir "${1:-build/models}" \
    --threads 1 --runs 20 --rounds 3 --fma-peak build/tools/fma_peak --out "$out"
fi
