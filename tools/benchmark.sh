#!/usr/bin/env bash
# Benchmarks the four reference models against ONNX Runtime (1 and 2
# threads, alternating rounds) and writes docs/BENCHMARKS.md.
#   tools/benchmark.sh [models-dir]        (default: build/models)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${CUVIL_PYTHON:-.venv/bin/python}
# fma_peak records how fast the cores are right now: on a shared VM the two
# vCPUs sometimes share FMA units, which slows every 2-thread figure.
cmake --build build --target fma_peak >/dev/null
exec "$python" tools/bench_vs_ort.py --cuvil build/tools/cuvil --models-dir "${1:-build/models}" \
  --models resnet50,mobilenet_v2,squeezenet1_1,bert_base --threads 1,2 --runs 20 --rounds 7 \
  --fma-peak build/tools/fma_peak --out docs/BENCHMARKS.md
