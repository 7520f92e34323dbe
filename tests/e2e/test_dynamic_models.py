#!/usr/bin/env python3
"""A whole model with symbolic dims: one executable checked against ONNX Runtime at several shapes.

    python tests/e2e/test_dynamic_models.py --cuvil PATH --models-dir DIR --model NAME

Exports DIR/NAME_dynamic.onnx (batch, and for BERT sequence, left symbolic by
the exporter) if missing, compiles it once with --shape-range, and runs the
executable at the range's MIN, OPT and MAX shapes and one in between: OPT
takes the static path, the others the generic one. Every output must match
ONNX Runtime's on the same model. Shapes outside the range, and inputs that
disagree on a shared symbol, must be refused with exit status 1 and a
message naming the input and the dim.
"""

import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cuvil_e2e as e2e  # noqa: E402

BERT_VOCAB = 30522

# Per model kind: the --shape-range of each input (MIN:OPT:MAX as dims) and
# the shapes to run, as (batch, sequence) for BERT and batch for the CNNs.
CNN_RANGE = {"input": ((1, 3, 224, 224), (2, 3, 224, 224), (3, 3, 224, 224))}
CNN_SHAPES = [1, 2, 3]
BERT_RANGE = {name: ((1, 8), (1, 64), (2, 128)) for name in ("input_ids", "attention_mask")}
BERT_SHAPES = [(1, 8), (1, 64), (2, 37), (2, 128)]


def range_args(ranges):
    """--shape-range arguments for {input: (min, opt, max)}."""
    args = []
    for name, bounds in ranges.items():
        args += ["--shape-range", f"{name}=" + ":".join("x".join(map(str, dims)) for dims in bounds)]
    return args


def cnn_inputs(batch, seed):
    rng = np.random.default_rng(seed)
    return {"input": rng.standard_normal((batch, 3, 224, 224)).astype(np.float32)}


def bert_inputs(batch, sequence, seed):
    """Token ids and a mask whose tail is padding (a quarter of each row)."""
    rng = np.random.default_rng(seed)
    mask = np.ones((batch, sequence), np.int64)
    mask[:, sequence - sequence // 4:] = 0
    return {"input_ids": rng.integers(0, BERT_VOCAB, (batch, sequence)).astype(np.int64),
            "attention_mask": mask}


def expect_refusal(exe, inputs, workdir, fragments):
    """infer.bin must exit 1 with every fragment in its message."""
    args = e2e.write_inputs(inputs, os.path.join(workdir, "refused"))
    proc = e2e.run_process([exe, *args, "--output-dir", os.path.join(workdir, "refused-out")])
    missing = [f for f in fragments if f not in proc.stderr]
    ok = proc.returncode == 1 and not missing
    print(f"  {'refused' if ok else 'NOT REFUSED'}: exit {proc.returncode}, {proc.stderr.strip()!r}")
    return ok


def check(args, cuvil, workdir):
    is_bert = args.model.startswith("bert")
    name = f"{args.model}_dynamic"
    model_path = e2e.ensure_model(args.models_dir, name)
    ranges = BERT_RANGE if is_bert else CNN_RANGE
    exe = os.path.join(workdir, "infer.bin")
    try:
        report = e2e.compile(model_path, exe, range_args(ranges), cuvil=cuvil).stdout
    except e2e.CuvilError as exc:
        print(f"FAIL {name}: {exc}")
        return 1
    print(report.strip())
    ok = True
    for i, shape in enumerate(BERT_SHAPES if is_bert else CNN_SHAPES):
        inputs = bert_inputs(*shape, seed=i) if is_bert else cnn_inputs(shape, seed=i)
        try:
            ours = e2e.cuvil_outputs(model_path, exe, inputs, workdir)
        except e2e.CuvilError as exc:
            print(f"FAIL {name} at {shape}: {exc}")
            ok = False
            continue
        same, lines = e2e.compare_all(ours, e2e.run_ort(model_path, inputs), args.atol, args.rtol)
        print(f"{'PASS' if same else 'FAIL'} {name} at {shape}")
        for line in lines:
            print("  " + line)
        ok &= same
    if is_bert:
        ok &= expect_refusal(exe, bert_inputs(1, 129, 0), workdir,
                             ["input 'input_ids' dim 1 is 129", "[8, 128]", "'sequence'"])
        mismatched = bert_inputs(1, 16, 0)
        mismatched["attention_mask"] = np.ones((1, 17), np.int64)
        ok &= expect_refusal(exe, mismatched, workdir,
                             ["input 'attention_mask' dim 1 is 17", "input 'input_ids' dim 1 is 16"])
    else:
        ok &= expect_refusal(exe, cnn_inputs(4, 0), workdir,
                             ["input 'input' dim 0 is 4", "[1, 3]", "'batch'"])
        ok &= expect_refusal(exe, {"input": np.zeros((1, 3, 224, 225), np.float32)}, workdir,
                             ["input 'input': expected f32 batchx3x224x224"])
    print(f"{'PASS' if ok else 'FAIL'} {name}")
    return 0 if ok else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", help="cuvil binary (default: $CUVIL_BIN)")
    parser.add_argument("--models-dir", required=True, help="where NAME_dynamic.onnx is (or is exported to)")
    parser.add_argument("--model", required=True, help="resnet50, mobilenet_v2, squeezenet1_1 or bert_2layer")
    parser.add_argument("--atol", type=float, default=e2e.DEFAULT_ATOL)
    parser.add_argument("--rtol", type=float, default=e2e.DEFAULT_RTOL)
    parser.add_argument("--workdir", help="where infer.bin and outputs go (default: a temp dir)")
    args = parser.parse_args(argv)
    try:
        cuvil = e2e.cuvil_path(args.cuvil)
    except RuntimeError as exc:
        parser.error(str(exc))
    if args.workdir:
        os.makedirs(args.workdir, exist_ok=True)
        return check(args, cuvil, args.workdir)
    with tempfile.TemporaryDirectory(prefix=f"cuvil_{args.model}_dynamic_") as workdir:
        return check(args, cuvil, workdir)


if __name__ == "__main__":
    sys.exit(main())
