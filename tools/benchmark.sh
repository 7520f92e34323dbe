#!/usr/bin/env bash
# Benchmarks the four reference models against ONNX Runtime and OpenVINO (1 and 2
# threads, alternating rounds) and writes docs/BENCHMARKS.md; then the
# executables compiled with --shape-range against static compiles and ORT
# (tools/bench_dynamic.py, its own section of the same file).
#   tools/benchmark.sh [models-dir]        (default: build/models)
# On an AVX2-only CPU it writes docs/BENCHMARKS_AVX2.md instead: the goals
# hold on both kinds of CPU and each file keeps its kind's latest run.
# (Forcing cuvil's AVX2 variant on an AVX-512 CPU would race it against peers
# on their AVX-512 paths; tools/bench_vs_peers.py --isa avx2 does that ad hoc.)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${CUVIL_PYTHON:-.venv/bin/python}
out=docs/BENCHMARKS.md
grep -qw avx512f /proc/cpuinfo || out=docs/BENCHMARKS_AVX2.md
# fma_peak records how fast the cores are right now: on a shared VM the two
# vCPUs sometimes share FMA units, which slows every 2-thread figure.
cmake --build build --target fma_peak >/dev/null
"$python" tools/bench_vs_peers.py --cuvil build/tools/cuvil --models-dir "${1:-build/models}" \
  --models resnet50,mobilenet_v2,squeezenet1_1,bert_base --threads 1,2 --runs 20 --rounds 7 \
  --fma-peak build/tools/fma_peak --out "$out"
"$python" tools/bench_dynamic.py --cuvil build/tools/cuvil --models-dir "${1:-build/models}" \
  --threads 1 --runs 20 --rounds 3 --fma-peak build/tools/fma_peak --out "$out"
