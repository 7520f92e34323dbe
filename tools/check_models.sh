#!/usr/bin/env bash
# Checks every benchmark model, including the full 12-layer BERT-base that CI
# replaces by its 2-layer twin, against ONNX Runtime: each compiled
# statically, and exported with symbolic batch (and sequence) dims and
# compiled with --shape-range.
#   tools/check_models.sh [models-dir]      (default: build/models)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build/models}
python=${CUVIL_PYTHON:-.venv/bin/python}
status=0
for model in resnet50 mobilenet_v2 squeezenet1_1 bert_base; do
  "$python" tests/e2e/test_models.py --cuvil build/tools/cuvil --models-dir "$dir" --model "$model" ||
    status=1
  "$python" tests/e2e/test_dynamic_models.py --cuvil build/tools/cuvil --models-dir "$dir" --model "$model" ||
    status=1
done
exit $status
