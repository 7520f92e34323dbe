#!/usr/bin/env bash
# Builds Cuvil with clang-19, AddressSanitizer and UndefinedBehaviorSanitizer
# in build-sanitized/ (the compiler, the runtime's unit tests and the
# libFuzzer targets; generated executables link the unsanitized runtime) and
# runs under it the tests labelled `sanitized`: unit and lit tests, the
# example, one op case per op type, the malformed models, the model-mutation
# fuzzer sample and the two libFuzzer targets for 60 s each. Any sanitizer
# report fails the run. scripts/test.sh calls it; FULL=1 runs every op case,
# the ONNX backend suite and the exported models instead (about 40 minutes
# more on 2 cores).
#   [FULL=1] scripts/test-sanitized.sh [extra ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
CC=clang-19 CXX=clang++-19 cmake -S . -B build-sanitized -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCUVIL_SANITIZE=address,undefined -DCUVIL_FUZZ=ON -DCUVIL_BUILD_TESTS=ON \
  -DCUVIL_PYTHON="$PWD/.venv/bin/python"
cmake --build build-sanitized -j "$(nproc)"
# LLVM's own allocations at exit are not ours to free.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS=suppressions="$PWD/tests/fuzz/lsan.supp"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [[ ${FULL:-0} == 1 ]]; then
  select=(-E '^e2e_(ops_avx2|ops_symbolic|ops_sample|spills)')
else
  select=(-L sanitized)
fi
ctest --test-dir build-sanitized --output-on-failure -j "$(nproc)" "${select[@]}" "$@"
