#!/usr/bin/env bash
# Installs every dependency, builds Cuvil with its tests and runs the whole
# suite (unit, lit, end-to-end against ONNX Runtime), then the sanitized
# build's (scripts/test-sanitized.sh). CI runs this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
scripts/build.sh -DCUVIL_BUILD_TESTS=ON -DCUVIL_PYTHON="$PWD/.venv/bin/python"
ctest --test-dir build --output-on-failure -j "$(nproc)"
scripts/test-sanitized.sh
