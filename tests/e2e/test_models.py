#!/usr/bin/env python3
"""End-to-end check of a whole model: cuvil-compiled executable vs ONNX Runtime.

    python tests/e2e/test_models.py --cuvil PATH --models-dir DIR --model NAME [--atol A] [--rtol R]

Exports DIR/NAME.onnx and its inputs with models/export_models.py if missing,
compiles it with `cuvil compile --target x86_64-linux --input NAME.onnx
--output infer.bin`, runs it on DIR/NAME.inputs/*.npy, compares every output
with ONNX Runtime and exits non-zero on any mismatch, or when the compiler
reports an arena over 1.1x the max-live lower bound.
"""

import argparse
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cuvil_e2e as e2e  # noqa: E402

# The static arena may exceed the max-live lower bound (the most bytes of
# intermediates alive at once) by at most this factor.
MAX_ARENA_RATIO = 1.1


def arena_ratio(compile_report):
    """The arena / max-live ratio `cuvil compile` reports, or None."""
    match = re.search(r"arena [0-9.]+ \w+ \(([0-9.]+)x the max-live lower bound", compile_report)
    return float(match.group(1)) if match else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", help="cuvil binary (default: $CUVIL_BIN)")
    parser.add_argument("--models-dir", required=True, help="directory with NAME.onnx and NAME.inputs/")
    parser.add_argument("--model", required=True, help="model name, e.g. resnet50 or bert_2layer")
    parser.add_argument("--atol", type=float, default=e2e.DEFAULT_ATOL)
    parser.add_argument("--rtol", type=float, default=e2e.DEFAULT_RTOL)
    parser.add_argument("--workdir", help="where infer.bin and outputs go (default: a temp dir)")
    parser.add_argument("--compile-arg", action="append", default=[],
                        help="extra `cuvil compile` argument, e.g. --compile-arg=--cpu=x86-64-v3 (repeatable)")
    args = parser.parse_args(argv)

    try:
        cuvil = e2e.cuvil_path(args.cuvil)
    except RuntimeError as exc:
        parser.error(str(exc))
    model_path = e2e.ensure_model(args.models_dir, args.model)
    inputs = e2e.load_model_inputs(args.models_dir, args.model)
    if args.workdir:
        os.makedirs(args.workdir, exist_ok=True)
        return check(args, cuvil, model_path, inputs, args.workdir)
    with tempfile.TemporaryDirectory(prefix=f"cuvil_{args.model}_") as workdir:
        return check(args, cuvil, model_path, inputs, workdir)


def check(args, cuvil, model_path, inputs, workdir):
    """Compile, run and compare; returns the exit status."""
    exe = os.path.join(workdir, "infer.bin")

    start = time.perf_counter()
    try:
        report = e2e.compile(model_path, exe, args.compile_arg, cuvil=cuvil).stdout
    except e2e.CuvilError as exc:
        print(f"FAIL {args.model}: {exc}")
        return 1
    print(f"compiled {model_path} -> {exe} in {time.perf_counter() - start:.1f} s")
    ratio = arena_ratio(report)
    if ratio is None or ratio > MAX_ARENA_RATIO:
        print(f"FAIL {args.model}: arena {ratio}x the max-live lower bound (at most "
              f"{MAX_ARENA_RATIO}x); the compile report:\n{report}")
        return 1
    print(f"  arena {ratio:.2f}x the max-live lower bound")
    try:
        ours = e2e.cuvil_outputs(model_path, exe, inputs, workdir)
    except e2e.CuvilError as exc:
        print(f"FAIL {args.model}: {exc}")
        return 1
    ref = e2e.run_ort(model_path, inputs)
    ok, lines = e2e.compare_all(ours, ref, args.atol, args.rtol)
    for line in lines:
        print("  " + line)
    print(f"{'PASS' if ok else 'FAIL'} {args.model} (atol={args.atol:g}, rtol={args.rtol:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
