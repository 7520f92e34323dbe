#!/usr/bin/env bash
# Every op case with symbolic dims (about 700 variants: first and last dims
# of each case's inputs made symbols, run at MIN, OPT and MAX against ONNX
# Runtime). CI runs the sample that covers each op once (e2e_ops_symbolic).
#   tools/check_symbolic_ops.sh [-k FILTER]
set -euo pipefail
cd "$(dirname "$0")/.."
python=${CUVIL_PYTHON:-.venv/bin/python}
exec "$python" tests/e2e/test_ops.py --cuvil build/tools/cuvil --symbolic -j "$(nproc)" "$@"
