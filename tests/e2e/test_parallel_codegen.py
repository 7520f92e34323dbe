#!/usr/bin/env python3
"""A module compiled in parts on several threads: the executable is byte for byte the one a single thread
makes, and it runs every ISA variant it carries correctly (against ONNX Runtime).

    python tests/e2e/test_parallel_codegen.py --cuvil PATH
"""

import argparse
import os
import re
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cuvil_e2e as e2e  # noqa: E402


def conv_stack(path):
    """Convolutions of distinct shapes (each its own specialised kernels, so the module has many units):
    3x3, 1x1, depthwise, strided, with residual Adds and activations, then a Gemm head."""
    rng = np.random.default_rng(7)
    nodes, inits = [], []

    def weight(name, shape):
        inits.append(numpy_helper.from_array(
            (rng.standard_normal(shape) / np.sqrt(np.prod(shape[1:]))).astype(np.float32), name))
        return name

    x, channels = "x", 3
    # (out channels, kernel, group, stride); a part needs ~40k of the builder's instructions, so 48 layers.
    plan = [(c + 8 * r, k, c + 8 * r if depthwise else 1, 1)
            for r in range(8) for c, k, depthwise in ((16, 1, False), (16, 3, True), (24, 3, False),
                                                      (24, 1, False), (24, 5, True), (32, 1, False))]
    for i, (out, k, group, stride) in enumerate(plan):
        w = weight(f"w{i}", [out, channels // group if group > 1 else channels, k, k])
        b = weight(f"b{i}", [out])
        y = f"c{i}"
        nodes.append(helper.make_node("Conv", [x, w, b], [y], kernel_shape=[k, k], pads=[k // 2] * 4,
                                      strides=[stride, stride], group=group if group > 1 else 1))
        if out == channels and stride == 1:
            nodes.append(helper.make_node("Add", [y, x], [f"r{i}"]))
            y = f"r{i}"
        act = ["Relu", "HardSwish", "Sigmoid"][i % 3]
        nodes.append(helper.make_node(act, [y], [f"a{i}"]))
        x, channels = f"a{i}", out
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["pooled"]))
    nodes.append(helper.make_node("Flatten", ["pooled"], ["flat"]))
    nodes.append(helper.make_node("Gemm", ["flat", weight("fc", [10, channels]), weight("fcb", [10])],
                                  ["logits"], transB=1))
    graph = helper.make_graph(nodes, "conv_stack",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 24, 24])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", help="cuvil binary (default: $CUVIL_BIN)")
    args = parser.parse_args()
    checks = e2e.Checks()
    with tempfile.TemporaryDirectory(prefix="cuvil-parts-") as work:
        model = os.path.join(work, "conv_stack.onnx")
        conv_stack(model)
        exes = {}
        for jobs in (1, 3):
            exes[jobs] = os.path.join(work, f"j{jobs}.bin")
            proc = e2e.compile(model, exes[jobs], ["--no-cache", "--jobs", str(jobs)], cuvil=args.cuvil)
            parts = re.search(r"in (\d+) parts? on (\d+) threads?", proc.stdout)
            checks.expect(parts is not None and int(parts.group(1)) >= 2
                          and int(parts.group(2)) == min(jobs, int(parts.group(1))),
                          f"--jobs {jobs}: the module compiled in parts ({parts.group(0) if parts else proc.stdout})")
        checks.expect(open(exes[1], "rb").read() == open(exes[3], "rb").read(),
                      "--jobs 1 and --jobs 3 give the same executable")
        inputs = {"x": np.random.default_rng(1).standard_normal([1, 3, 24, 24]).astype(np.float32)}
        ref = e2e.run_ort(model, inputs)
        # Every variant this CPU runs: each is its own part of the module.
        isas = [None] + (["avx2"] if e2e.TARGET.startswith("x86_64") else [])
        for isa in isas:
            if isa:
                os.environ["CUVIL_ISA"] = isa
            ok, lines = e2e.compare_all(e2e.cuvil_outputs(model, exes[3], inputs, work), ref)
            os.environ.pop("CUVIL_ISA", None)
            checks.expect(ok, f"variant {isa or 'default'} against ONNX Runtime: {'; '.join(lines)}")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
