#!/usr/bin/env bash
# Builds Cuvil with clang-19, AddressSanitizer and UndefinedBehaviorSanitizer
# in build-sanitized/ (the compiler, the runtime's unit tests and the
# libFuzzer targets; generated executables link the unsanitized runtime) and
# runs under it the unit, lit, malformed-model and stability tests, the
# fuzzer samples, a sample of the op tests and the two libFuzzer targets for
# 60 s each. Any sanitizer report fails the run. scripts/test.sh calls it.
#   scripts/test-sanitized.sh [extra ctest arguments...]
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
ctest --test-dir build-sanitized --output-on-failure -j "$(nproc)" \
  -E '^e2e_(model|dynamic|ops_avx2|ops_symbolic|spills)' "$@"
