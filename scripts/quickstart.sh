#!/usr/bin/env bash
# Quick start: installs the dependencies, builds the compiler, compiles the
# bundled example model (models/example/tiny_cnn.onnx) and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
scripts/build.sh -DCUVIL_BUILD_TESTS=OFF
set -x
build/tools/cuvil compile --target x86_64-linux --input models/example/tiny_cnn.onnx \
  --output build/tiny_cnn.bin
build/tiny_cnn.bin --info
build/tiny_cnn.bin --input image=models/example/image.npy
build/tiny_cnn.bin --input image=models/example/image.npy --output-dir build/tiny_cnn.out
build/tiny_cnn.bin --input image=models/example/image.npy --bench 50
