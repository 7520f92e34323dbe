#!/usr/bin/env python3
"""Build check: the microkernels' innermost loops keep their register tiles.

    python tests/e2e/test_spills.py --cuvil PATH [--aarch64]

Compiles a model exercising every register-tiled kernel (direct blocked
convolutions with and without padding, the plain-input stem, depthwise,
Winograd, the fused inverted residual block, packed and run-time GEMMs, the
integer GEMM and convolution, the 3-D convolution's GEMM over vol2col
panels) with `--emit asm` for the default target
(AVX-512 and its AVX2 fallback, 16-channel blocks), for an AVX2-only CPU
(8-channel blocks) and, with --aarch64 (a cuvil built with that target), for
aarch64 (NEON's 32 q registers), and fails if
tools/check_spills.py finds a vector spill or reload inside an innermost
loop of any specialised kernel. For aarch64 it also checks that the SVE
variant's loop kernels are vector-length agnostic (predicated z
registers) and that the NEON variant's use no z register.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cuvil_e2e as e2e  # noqa: E402

CHECKER = os.path.join(HERE, "..", "..", "tools", "check_spills.py")
# (name, target, extra `cuvil compile` arguments)
TARGETS = [("default", "x86_64-linux", []), ("avx2-only", "x86_64-linux", ["--cpu", "x86-64-v3"]),
           # The bf16 GEMM's tiles (vdpbf16ps, and the widened fallback).
           ("bf16", "x86_64-linux", ["--precision", "bf16"]),
           ("aarch64", "aarch64-linux", [])]


def kernel_model():
    """Conv stem -> Winograd 3x3 (and a wider one whose transformed weights,
    2.4 MB, are prefetched) -> 1x1 -> inverted residual block (fused
    expansion, depthwise and projection) -> strided 3x3 (narrow rows) ->
    depthwise -> strided 3x3 with prefetched weights (1.2 MB) -> global pool ->
    packed GEMM (one row, and 24 rows: full tiles), plus a run-time batched MatMul, a MatMulInteger and a
    QLinearConv (the integer GEMM's tiles, i32 and requantized) and a 3-D
    convolution."""
    rng = np.random.default_rng(5)

    def weights(name, *shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.1, name)

    nodes = [
        helper.make_node("Conv", ["x", "stem"], ["c0"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c0"], ["r0"]),
        helper.make_node("Conv", ["r0", "w3"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["r0", "w3wide"], ["c6"], pads=[1, 1, 1, 1]),
        helper.make_node("GlobalAveragePool", ["c6"], ["g6"]),
        helper.make_node("Conv", ["c1", "w1"], ["c2"]),
        helper.make_node("Add", ["c2", "r0"], ["s2"]),
        helper.make_node("Conv", ["s2", "we"], ["e5"]),
        helper.make_node("Relu", ["e5"], ["r5"]),
        helper.make_node("Conv", ["r5", "wd5"], ["d5"], pads=[1, 1, 1, 1], group=384),
        helper.make_node("Relu", ["d5"], ["rd5"]),
        helper.make_node("Conv", ["rd5", "wp"], ["p5"]),
        helper.make_node("Add", ["p5", "s2"], ["ir"]),
        helper.make_node("Conv", ["ir", "w3s2"], ["c3"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Conv", ["c3", "dw"], ["c4"], pads=[1, 1, 1, 1], group=64),
        helper.make_node("Conv", ["c4", "wide"], ["c5"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["c5"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("MatMul", ["f", "fc"], ["logits"]),
        helper.make_node("MatMul", ["tokens", "proj"], ["projected"]),
        helper.make_node("MatMul", ["q", "k"], ["scores"]),
        helper.make_node("MatMulInteger", ["qa", "qb", "qa_zero"], ["qab"]),
        helper.make_node("QLinearConv", ["qx", "qscale", "qa_zero", "qw", "qscale", "qw_zero", "qscale",
                                         "qa_zero"], ["qc"], pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["v", "w3d", "b3d"], ["c3d"], pads=[1, 1, 1, 1, 1, 1]),
    ]
    graph = helper.make_graph(
        nodes, "kernels",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 64, 64]),
         helper.make_tensor_value_info("q", TensorProto.FLOAT, [4, 32, 48]),
         helper.make_tensor_value_info("tokens", TensorProto.FLOAT, [24, 64]),
         helper.make_tensor_value_info("k", TensorProto.FLOAT, [4, 48, 40]),
         helper.make_tensor_value_info("qa", TensorProto.UINT8, [32, 96]),
         helper.make_tensor_value_info("qx", TensorProto.UINT8, [1, 16, 20, 20]),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, 16, 4, 10, 12])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 100]),
         helper.make_tensor_value_info("projected", TensorProto.FLOAT, [24, 128]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [4, 32, 40]),
         helper.make_tensor_value_info("g6", TensorProto.FLOAT, [1, 256, 1, 1]),
         helper.make_tensor_value_info("qab", TensorProto.INT32, [32, 80]),
         helper.make_tensor_value_info("qc", TensorProto.UINT8, [1, 24, 20, 20]),
         helper.make_tensor_value_info("c3d", TensorProto.FLOAT, [1, 32, 4, 10, 12])],
        [weights("stem", 64, 3, 3, 3), weights("w3", 64, 64, 3, 3), weights("w1", 64, 64, 1, 1),
         weights("w3s2", 64, 64, 3, 3), weights("dw", 64, 1, 3, 3), weights("fc", 512, 100), weights("proj", 64, 128),
         weights("we", 384, 64, 1, 1), weights("wd5", 384, 1, 3, 3), weights("wp", 64, 384, 1, 1),
         weights("wide", 512, 64, 3, 3),
         weights("w3wide", 256, 64, 3, 3), weights("w3d", 32, 16, 3, 3, 3), weights("b3d", 32),
         numpy_helper.from_array(rng.integers(-128, 128, (96, 80)).astype(np.int8), "qb"),
         numpy_helper.from_array(rng.integers(-128, 128, (24, 16, 3, 3)).astype(np.int8), "qw"),
         numpy_helper.from_array(np.array(128, np.uint8), "qa_zero"),
         numpy_helper.from_array(np.array(0, np.int8), "qw_zero"),
         numpy_helper.from_array(np.array(0.05, np.float32), "qscale")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def loop_model():
    """Elementwise chain, softmax and a reduction: loops LLVM vectorises."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 1000])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    s = helper.make_tensor_value_info("s", TensorProto.FLOAT, None)
    nodes = [helper.make_node("Exp", ["x"], ["e"]), helper.make_node("Mul", ["e", "x"], ["m"]),
             helper.make_node("Softmax", ["m"], ["y"], axis=1),
             helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0)]
    graph = helper.make_graph(nodes, "loops", [x], [y, s])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def functions(asm_path):
    """{function name: body text} of an assembly file."""
    bodies, name = {}, None
    with open(asm_path) as f:
        for line in f:
            match = re.match(r"^([\w.$]+):", line)
            if match and not line.startswith("."):
                name = match.group(1)
                bodies[name] = []
            elif name:
                bodies[name].append(line)
    return {n: "".join(b) for n, b in bodies.items()}


def check_scalable(asm_path):
    """The aarch64 variants' registers: SVE loops scalable, NEON ones not."""
    bodies = functions(asm_path)
    sve = {n: b for n, b in bodies.items() if ".sve.spec" in n}
    neon = {n: b for n, b in bodies.items() if ".neon.spec" in n}
    scalable = [n for n, b in sve.items()
                if re.search(r"\bz\d+\.s\b", b) and re.search(r"\bp\d+/[mz]\b", b)]
    wrong = [n for n, b in neon.items() if re.search(r"\bz\d+\.", b)]
    print(f"--- aarch64 registers ---\n{len(scalable)} of {len(sve)} SVE kernels use predicated "
          f"z registers; {len(wrong)} of {len(neon)} NEON kernels use z registers")
    return 0 if sve and len(scalable) == len(sve) and neon and not wrong else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", help="cuvil binary (default: $CUVIL_BIN)")
    parser.add_argument("--aarch64", action="store_true", help="also check the aarch64-linux target")
    args = parser.parse_args()
    cuvil = e2e.cuvil_path(args.cuvil)
    targets = [t for t in TARGETS if args.aarch64 or t[1] != "aarch64-linux"]
    status = 0
    with tempfile.TemporaryDirectory(prefix="cuvil_spills_") as workdir:
        model = os.path.join(workdir, "kernels.onnx")
        onnx.save(kernel_model(), model)
        for name, target, target_args in targets:
            asm = os.path.join(workdir, f"kernels_{name}.s")
            e2e.compile(model, asm, extra_args=["--emit", "asm", *target_args], cuvil=cuvil,
                        target=target)
            result = subprocess.run([sys.executable, CHECKER, asm], capture_output=True, text=True)
            print(f"--- {name} ---")
            print(result.stdout, end="")
            status |= result.returncode
        if args.aarch64:
            loops = os.path.join(workdir, "loops.onnx")
            onnx.save(loop_model(), loops)
            asm = os.path.join(workdir, "loops_aarch64.s")
            e2e.compile(loops, asm, extra_args=["--emit", "asm"], cuvil=cuvil, target="aarch64-linux")
            status |= check_scalable(asm)
    return status


if __name__ == "__main__":
    sys.exit(main())
