#!/usr/bin/env bash
# Configures and builds Cuvil in build/ (Release, ccache when available).
#   scripts/build.sh [extra cmake -D options...]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "$(nproc)"
