#!/usr/bin/env python3
"""End-to-end check of a whole model: cuvil-compiled executable vs ONNX Runtime.

    python tests/e2e/test_models.py --cuvil PATH --models-dir DIR --model NAME [--atol A] [--rtol R]

Exports DIR/NAME.onnx and its inputs with models/export_models.py if missing,
compiles it with `cuvil compile --target x86_64-linux --input NAME.onnx
--output infer.bin`, runs it on DIR/NAME.inputs/*.npy, compares every output
with ONNX Runtime and exits non-zero on any mismatch.
"""

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cuvil_e2e as e2e  # noqa: E402


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
        e2e.compile(model_path, exe, args.compile_arg, cuvil=cuvil)
    except e2e.CuvilError as exc:
        print(f"FAIL {args.model}: {exc}")
        return 1
    print(f"compiled {model_path} -> {exe} in {time.perf_counter() - start:.1f} s")
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
