#!/usr/bin/env python3
"""Stable results and reproducible builds.

For models that together reach every kernel family (blocked convolutions,
Winograd, depthwise, pooling, GEMM with packed and with run-time operands,
softmax, layer norm, elementwise chains, reductions, gathers, TopK):
- `infer.bin --bench` at 1 and 2 threads: every timed run must compute run
  0's outputs bit for bit (infer.bin checks it and exits 1 if not), and run
  0's outputs must match ONNX Runtime;
- the same model compiled twice, into two places, gives byte-identical
  executables;
- compiles racing into one directory each leave a whole, working executable.

    python tests/e2e/test_stability.py --cuvil PATH
"""

import argparse
import concurrent.futures
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuvil_e2e as e2e  # noqa: E402

RNG = np.random.default_rng(7)


def weight(name, *shape, scale=0.2):
    return numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def cnn():
    """Stem conv, Winograd-sized 3x3, depthwise, 1x1, pooling, residual, head."""
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c2"], ["r2"]),
             helper.make_node("Conv", ["r2", "wd"], ["d"], pads=[1, 1, 1, 1], group=32),
             helper.make_node("Conv", ["d", "wp"], ["p"]),
             helper.make_node("Add", ["p", "r2"], ["res"]),
             helper.make_node("MaxPool", ["res"], ["mp"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("GlobalAveragePool", ["mp"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "wf", "bf"], ["logits"], transB=1),
             helper.make_node("Softmax", ["logits"], ["y"], axis=-1)]
    inits = [weight("w1", 32, 3, 3, 3), weight("b1", 32), weight("w2", 32, 32, 3, 3, scale=0.05),
             weight("b2", 32), weight("wd", 32, 1, 3, 3), weight("wp", 32, 32, 1, 1, scale=0.1),
             weight("wf", 10, 32), weight("bf", 10)]
    return nodes, {"x": (1, 3, 64, 64)}, ["y"], inits


def transformer():
    """A self-attention block: packed MatMuls, run-time MatMuls, softmax, layer norm, GELU."""
    d, heads, seq = 64, 4, 24
    nodes = [helper.make_node("MatMul", ["x", "wq"], ["q"]), helper.make_node("MatMul", ["x", "wk"], ["k"]),
             helper.make_node("MatMul", ["x", "wv"], ["v"])]
    for name in ("q", "k", "v"):
        nodes += [helper.make_node("Reshape", [name, "split_heads"], [name + "h"]),
                  helper.make_node("Transpose", [name + "h"], [name + "t"], perm=[0, 2, 1, 3])]
    nodes += [helper.make_node("Transpose", ["kt"], ["ktt"], perm=[0, 1, 3, 2]),
              helper.make_node("MatMul", ["qt", "ktt"], ["scores"]),
              helper.make_node("Mul", ["scores", "scale"], ["scaled"]),
              helper.make_node("Softmax", ["scaled"], ["attn"], axis=-1),
              helper.make_node("MatMul", ["attn", "vt"], ["ctx"]),
              helper.make_node("Transpose", ["ctx"], ["ctxt"], perm=[0, 2, 1, 3]),
              helper.make_node("Reshape", ["ctxt", "merge_heads"], ["merged"]),
              helper.make_node("Add", ["merged", "x"], ["res"]),
              helper.make_node("LayerNormalization", ["res", "gamma", "beta"], ["ln"], axis=-1),
              helper.make_node("MatMul", ["ln", "w1"], ["h"]),
              helper.make_node("Gelu", ["h"], ["gh"], domain=""),
              helper.make_node("MatMul", ["gh", "w2"], ["y"])]
    inits = [weight("wq", d, d), weight("wk", d, d), weight("wv", d, d), weight("w1", d, 4 * d),
             weight("w2", 4 * d, d),
             numpy_helper.from_array(np.array([1, seq, heads, d // heads], np.int64), "split_heads"),
             numpy_helper.from_array(np.array([1, seq, d], np.int64), "merge_heads"),
             numpy_helper.from_array(np.array(0.25, np.float32), "scale"),
             numpy_helper.from_array(np.ones(d, np.float32), "gamma"),
             numpy_helper.from_array(np.zeros(d, np.float32), "beta")]
    return nodes, {"x": (1, seq, d)}, ["y"], inits, 20


def assorted():
    """Broadcast elementwise chains, reductions, Gather, TopK, Concat."""
    nodes = [helper.make_node("Mul", ["x", "scale"], ["a"]), helper.make_node("Add", ["a", "bias"], ["b"]),
             helper.make_node("Tanh", ["b"], ["c"]), helper.make_node("ReduceMean", ["c", "axes"], ["m"]),
             helper.make_node("Gather", ["c", "ids"], ["g"], axis=2),
             helper.make_node("TopK", ["c", "k"], ["top", "idx"], axis=-1),
             helper.make_node("Concat", ["top", "g"], ["y"], axis=1)]
    inits = [weight("scale", 1, 1, 33), weight("bias", 1, 7, 1),
             numpy_helper.from_array(np.array([2], np.int64), "axes"),
             numpy_helper.from_array(np.array([0, 5, 3, 32], np.int64), "ids"),
             numpy_helper.from_array(np.array([4], np.int64), "k")]
    return nodes, {"x": (2, 7, 33)}, ["y", "m", "idx"], inits, 18


def build(spec):
    nodes, inputs, outputs, inits, *opset = spec()
    graph = helper.make_graph(nodes, spec.__name__,
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs.items()],
                              [helper.make_empty_tensor_value_info(n) for n in outputs], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset[0] if opset else 17)])
    model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    onnx.checker.check_model(model)
    feeds = {n: RNG.standard_normal(s).astype(np.float32) for n, s in inputs.items()}
    return model, feeds


def check_model(cuvil, spec, root):
    lines, ok = [], True
    model, feeds = build(spec)
    directory = os.path.join(root, spec.__name__)
    os.makedirs(directory)
    path = os.path.join(directory, "model.onnx")
    onnx.save(model, path)
    exe = os.path.join(directory, "infer.bin")
    e2e.compile(path, exe, cuvil=cuvil)
    args = e2e.write_inputs(feeds, os.path.join(directory, "inputs"))
    reference = e2e.run_ort(path, feeds)
    for threads in (1, 2):
        out = os.path.join(directory, f"out{threads}")
        proc = e2e.run_process([exe, *args, "--bench", "30", "--warmup", "2", "--threads", str(threads),
                                "--output-dir", out])
        if proc.returncode != 0:
            ok = False
            lines.append(f"--bench at {threads} threads exited {proc.returncode}: {proc.stderr.strip()}")
            continue
        ours = {o.name: np.load(os.path.join(out, e2e.sanitise(o.name) + ".npy")) for o in model.graph.output}
        same, report = e2e.compare_all(ours, reference)
        ok &= same
        lines += [f"{threads} threads: 30 timed runs equal to run 0; run 0 against ORT:"] + report
    # Reproducible: the same compile elsewhere gives the same bytes.
    again = os.path.join(directory, "again", "infer.bin")
    os.makedirs(os.path.dirname(again))
    e2e.compile(path, again, cuvil=cuvil)
    if not filecmp.cmp(exe, again, shallow=False):
        ok = False
        lines.append("two compiles of the model gave different executables")
    return ok, lines


def check_racing_compiles(cuvil, root):
    """Four compiles of one model into one path at once: the survivor is whole."""
    model, feeds = build(cnn)
    directory = os.path.join(root, "race")
    os.makedirs(directory)
    path = os.path.join(directory, "model.onnx")
    onnx.save(model, path)
    exe = os.path.join(directory, "infer.bin")
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        procs = list(pool.map(lambda _: subprocess.run([cuvil, "compile", "-q", "--input", path, "--output", exe],
                                                       capture_output=True, text=True), range(4)))
    lines = [f"compile exit statuses {[p.returncode for p in procs]}"]
    leftovers = [n for n in os.listdir(directory) if ".tmp." in n]
    ours = e2e.cuvil_outputs(path, exe, feeds, directory)
    same, report = e2e.compare_all(ours, e2e.run_ort(path, feeds))
    if leftovers:
        lines.append(f"temporary files left: {leftovers}")
    return same and not leftovers and all(p.returncode == 0 for p in procs), lines + report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", default=os.environ.get("CUVIL_BIN"))
    args = parser.parse_args(argv)
    cuvil = e2e.cuvil_path(args.cuvil)
    root = tempfile.mkdtemp(prefix="cuvil_stability_")
    failed = 0
    try:
        checks = [(spec.__name__, lambda spec=spec: check_model(cuvil, spec, root))
                  for spec in (cnn, transformer, assorted)]
        checks.append(("racing_compiles", lambda: check_racing_compiles(cuvil, root)))
        for name, check in checks:
            ok, lines = check()
            print(f"{'PASS' if ok else 'FAIL'} {name}")
            if not ok:
                failed += 1
            print("\n".join("    " + line for line in lines))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
