#!/usr/bin/env python3
"""End-to-end op tests: small ONNX models compiled by cuvil, checked against ONNX Runtime.

Every case builds a model with onnx.helper, compiles it with
`cuvil compile --target x86_64-linux`, runs the executable on seeded random
inputs and compares each output with ONNX Runtime (ORT_ENABLE_ALL). Negative
cases check that unsupported ops make `cuvil compile` fail naming every
offending node, and that infer.bin rejects bad inputs.

    python tests/e2e/test_ops.py --cuvil PATH [-k FILTER] [-j JOBS] [--list] [--workdir DIR]
    python tests/e2e/test_ops.py --cuvil PATH --symbolic [--cover-ops] [-k FILTER]   # symbolic dims
    python tests/e2e/test_ops.py --self-check        # no cuvil: ORT vs onnx.reference
    python -m pytest tests/e2e/test_ops.py --cuvil PATH   (or CUVIL_BIN=PATH; or --self-check)

--self-check replaces the compiled binary by onnx.reference.ReferenceEvaluator,
which proves every generated model valid, accepted by ORT and that ORT agrees
with the ONNX reference semantics the cases intend to test.

--symbolic turns every comparison case into cases with symbolic dims (see
symbolic_variants): compiled once with --shape-range, run at the range's
MIN, OPT (the static path) and MAX, each compared with ORT.
"""

import copy

import argparse
import concurrent.futures
import dataclasses
import os
import shutil
import sys
import tempfile
import traceback
import zlib
from typing import Callable, Optional

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuvil_e2e as e2e  # noqa: E402

F32, I64, I32, BOOL = np.float32, np.int64, np.int32, np.bool_
INT64_MAX, INT64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min
IR_VERSION = 8


# --------------------------------------------------------------------------
# Case description and model building
# --------------------------------------------------------------------------

@dataclasses.dataclass
class In:
    """A runtime graph input: static shape, dtype and an optional value generator gen(rng, shape)."""
    shape: tuple
    dtype: type = F32
    gen: Optional[Callable] = None

    def sample(self, rng):
        """Draw a seeded value for this input."""
        if self.gen is not None:
            value = self.gen(rng, self.shape)
        elif self.dtype == BOOL:
            value = rng.random(self.shape) < 0.5
        elif np.issubdtype(self.dtype, np.integer):
            value = rng.integers(-20, 20, self.shape)
        else:
            value = rng.standard_normal(self.shape)
        return np.asarray(value).astype(self.dtype)


def positive(rng, shape):
    """Values in [0.5, 3): safe for Sqrt, Pow with fractional exponents."""
    return rng.uniform(0.5, 3.0, shape)


def nonzero(rng, shape):
    """Values with |v| in [0.5, 2): safe divisors."""
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 2.0, shape)


def coarse(rng, shape):
    """Small integers as floats, so that equality and zeros actually occur."""
    return rng.integers(-2, 3, shape)


def scaled(k):
    """Standard normal values times k."""
    return lambda rng, shape: rng.standard_normal(shape) * k


def indices(n, negative=True):
    """Valid Gather indices for an axis of size n (optionally negative ones too)."""
    return lambda rng, shape: rng.integers(-n if negative else 0, n, shape)


@dataclasses.dataclass
class Case:
    """One end-to-end test case.

    kind: "compare" (outputs must match ORT), "compile_error" (cuvil compile
    must exit 1 with every string of `expect` on stderr) or "bad_input"
    (infer.bin run with `feeds` and `extra_args` must exit 1 with `expect`
    on stderr). reference_bug: why onnx.reference gets this case wrong (the
    self-check then compares ORT with ORT without graph optimisations).
    """
    name: str
    model: onnx.ModelProto
    feeds: dict
    kind: str = "compare"
    atol: float = e2e.DEFAULT_ATOL
    rtol: float = e2e.DEFAULT_RTOL
    expect: tuple = ()
    extra_args: tuple = ()
    compile_args: tuple = ()  # for compile_error and bad_input cases
    reference_bug: str = ""  # filled in from REFERENCE_BUGS


def _seed(name):
    return zlib.crc32(name.encode())


def make_model(nodes, inputs, outputs, inits=None, opset=17, opsets=(), infer=True, output_types=None):
    """Build and check a ModelProto.

    inputs: {name: In}; outputs: list of names, typed by shape inference unless
    output_types ({name: (dtype, shape)}) is given; inits: {name: ndarray}
    (float64 arrays are stored as float32). Shapes are inferred even with
    output_types, which is for outputs that ONNX shape inference cannot type.
    """
    inits = {k: np.asarray(v) for k, v in (inits or {}).items()}
    inits = {k: v.astype(F32) if v.dtype == np.float64 else v for k, v in inits.items()}
    for i, node in enumerate(nodes):
        if not node.name:
            node.name = f"n{i}_{node.op_type}"
    graph_inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(np.dtype(s.dtype)), s.shape)
                    for n, s in inputs.items()]
    if output_types:
        graph_outputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(np.dtype(output_types[n][0])),
                                                       output_types[n][1]) for n in outputs]
    else:
        graph_outputs = [helper.make_empty_tensor_value_info(n) for n in outputs]
    graph = helper.make_graph(nodes, "test", graph_inputs, graph_outputs,
                              initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, ir_version=IR_VERSION, producer_name="cuvil-test_ops",
                              opset_imports=[helper.make_opsetid("", opset)]
                              + [helper.make_opsetid(d, v) for d, v in opsets])
    if infer:
        model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    onnx.checker.check_model(model, full_check=infer)
    return model


def feeds_for(name, inputs):
    """Seeded random values for every runtime input."""
    rng = np.random.default_rng(_seed(name))
    return {n: spec.sample(rng) for n, spec in inputs.items()}


def graph(name, nodes, inputs, outputs, inits=None, opset=17, output_types=None, **case_args):
    """A comparison case from explicit nodes (output_types as in make_model)."""
    model = make_model(nodes, inputs, outputs, inits, opset, output_types=output_types)
    return Case(name, model, feeds_for(name, inputs), **case_args)


def single(name, op_type, args, attrs=None, opset=17, outputs=1, output_types=None, **case_args):
    """A comparison case with one node.

    args: In -> runtime input; None -> omitted optional input; anything else
    -> initializer (constant) with that value.
    """
    inputs, inits, names = {}, {}, []
    for i, arg in enumerate(args):
        if arg is None:
            names.append("")
        elif isinstance(arg, In):
            names.append(f"in{i}")
            inputs[names[-1]] = arg
        else:
            names.append(f"const{i}")
            inits[names[-1]] = arg
    while names and names[-1] == "":
        names.pop()
    outs = [f"out{j}" for j in range(outputs)]
    node = helper.make_node(op_type, names, outs, name=op_type.lower(), **(attrs or {}))
    return graph(name, [node], inputs, outs, inits, opset, output_types, **case_args)


def node(op_type, inputs, outputs, **attrs):
    """Shorthand for helper.make_node."""
    return helper.make_node(op_type, inputs, outputs, **attrs)


def i64(*values):
    """int64 1-D constant."""
    return np.array(values, dtype=I64)


def f32(*values):
    """float32 1-D constant."""
    return np.array(values, dtype=F32)


def scalar(value, dtype=F32):
    """0-d constant."""
    return np.array(value, dtype=dtype)


# --------------------------------------------------------------------------
# Op families
# --------------------------------------------------------------------------

def conv_cases():
    """Conv: kernel sizes, strides, pads, dilations, groups, auto_pad, bias."""
    rng = np.random.default_rng(1)

    def w(*shape):
        fan_in = int(np.prod(shape[1:]))
        return rng.standard_normal(shape) / np.sqrt(fan_in)

    def b(n):
        return rng.standard_normal(n) * 0.1

    specs = [
        ("1x1_nobias", (1, 8, 7, 9), w(5, 8, 1, 1), None, {}),
        ("1x1_stride2", (1, 8, 9, 9), w(16, 8, 1, 1), b(16), dict(strides=[2, 2])),
        ("3x3_pad1_bias", (1, 3, 11, 13), w(4, 3, 3, 3), b(4), dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])),
        ("3x3_nopad_batch2", (2, 3, 10, 9), w(6, 3, 3, 3), b(6), {}),
        ("3x3_stride2_asym_pads", (1, 3, 12, 11), w(4, 3, 3, 3), b(4), dict(strides=[2, 2], pads=[1, 0, 0, 1])),
        ("3x3_stride_2x1", (1, 2, 9, 8), w(3, 2, 3, 3), b(3), dict(strides=[2, 1], pads=[1, 1, 1, 1])),
        ("5x5_pad2", (1, 4, 12, 12), w(8, 4, 5, 5), b(8), dict(pads=[2, 2, 2, 2])),
        ("7x7_stride2_pad3", (1, 3, 29, 31), w(8, 3, 7, 7), b(8), dict(strides=[2, 2], pads=[3, 3, 3, 3])),
        ("dilation2", (1, 3, 15, 15), w(4, 3, 3, 3), b(4), dict(dilations=[2, 2], pads=[2, 2, 2, 2])),
        ("dilation_2x3_stride_1x2", (1, 3, 14, 17), w(4, 3, 3, 3), None, dict(dilations=[2, 3], strides=[1, 2])),
        ("group2", (1, 4, 9, 9), w(6, 2, 3, 3), b(6), dict(group=2, pads=[1, 1, 1, 1])),
        ("group4_1x1", (1, 8, 5, 6), w(8, 2, 1, 1), None, dict(group=4)),
        ("depthwise_3x3", (1, 6, 10, 10), w(6, 1, 3, 3), b(6), dict(group=6, pads=[1, 1, 1, 1])),
        ("depthwise_3x3_stride2", (1, 8, 15, 15), w(8, 1, 3, 3), b(8),
         dict(group=8, strides=[2, 2], pads=[1, 1, 1, 1])),
        ("depthwise_multiplier2", (1, 3, 8, 8), w(6, 1, 3, 3), None, dict(group=3)),
        ("depthwise_5x5", (1, 5, 11, 11), w(5, 1, 5, 5), b(5), dict(group=5, pads=[2, 2, 2, 2])),
        ("kernel_1x3", (1, 3, 6, 7), w(4, 3, 1, 3), b(4), dict(pads=[0, 1, 0, 1])),
        ("kernel_3x1_nonsquare_input", (1, 3, 5, 13), w(4, 3, 3, 1), b(4), dict(pads=[1, 0, 1, 0])),
        ("same_upper_k2", (1, 3, 9, 9), w(4, 3, 2, 2), b(4), dict(auto_pad="SAME_UPPER")),
        ("same_upper_stride2", (1, 3, 10, 12), w(4, 3, 3, 3), b(4), dict(auto_pad="SAME_UPPER", strides=[2, 2])),
        ("same_lower_k2", (1, 3, 9, 9), w(4, 3, 2, 2), b(4), dict(auto_pad="SAME_LOWER")),
        ("same_lower_stride2", (1, 3, 10, 12), w(4, 3, 3, 3), None, dict(auto_pad="SAME_LOWER", strides=[2, 2])),
        ("valid", (1, 3, 8, 9), w(4, 3, 3, 3), b(4), dict(auto_pad="VALID")),
        ("valid_stride2", (1, 3, 11, 11), w(4, 3, 3, 3), b(4), dict(auto_pad="VALID", strides=[2, 2])),
        ("wide_channels", (1, 32, 6, 6), w(48, 32, 3, 3), b(48), dict(pads=[1, 1, 1, 1])),
        # Reorders in and out of the blocked layout: channels that fill neither
        # blocks of 16 nor of 8, pixel counts off the transpose's B, 2 images.
        ("reorder_odd_batch2", (2, 20, 13, 11), w(20, 20, 1, 1), b(20), {}),
    ]
    for name, x, weight, bias, attrs in specs:
        args = [In(x), weight] + ([bias] if bias is not None else [])
        yield single(f"conv/{name}", "Conv", args, attrs)
    yield single("conv/weights_as_input", "Conv", [In((1, 3, 7, 7)), In((4, 3, 3, 3)), In((4,))],
                 dict(pads=[1, 1, 1, 1]))
    # Large enough for Winograd F(4x4, 3x3) (at least 16 output tiles), with
    # partial edge tiles and channel counts that are not multiples of 16.
    winograd = [
        ("winograd_pad1", (1, 32, 20, 20), w(48, 32, 3, 3), b(48), dict(pads=[1, 1, 1, 1])),
        ("winograd_odd_sizes", (1, 24, 17, 19), w(40, 24, 3, 3), b(40), dict(pads=[1, 1, 1, 1])),
        ("winograd_nopad_batch2", (2, 16, 18, 22), w(20, 16, 3, 3), None, {}),
        ("winograd_asym_pads", (1, 8, 21, 16), w(64, 8, 3, 3), b(64), dict(pads=[0, 1, 2, 1])),
        # 256 tiles split 8 ways, each share in two runs of at most 28 tiles.
        ("winograd_tile_runs", (1, 256, 64, 64), w(256, 256, 3, 3), b(256), dict(pads=[1, 1, 1, 1])),
    ]
    for name, x, weight, bias, attrs in winograd:
        args = [In(x), weight] + ([bias] if bias is not None else [])
        yield single(f"conv/{name}", "Conv", args, attrs)
    # A blocked (NCHWc) region: stem conv, relu, pool, Winograd conv with a
    # residual, depthwise conv, channel concat of a 24- and a 40-channel
    # branch, global pool, and a plain consumer.
    stem, body = w(24, 3, 3, 3), w(24, 24, 3, 3)
    nodes = [node("Conv", ["x", "stem"], ["c0"], pads=[1, 1, 1, 1]),
             node("Relu", ["c0"], ["r0"]),
             node("MaxPool", ["r0"], ["p0"], kernel_shape=[2, 2], strides=[2, 2]),
             node("Conv", ["p0", "body", "bb"], ["c1"], pads=[1, 1, 1, 1]),
             node("Add", ["c1", "p0"], ["s1"]),
             node("Relu", ["s1"], ["r1"]),
             node("Conv", ["r1", "dw"], ["c2"], group=24, pads=[1, 1, 1, 1]),
             node("Conv", ["r1", "wide"], ["c3"]),
             node("Concat", ["c2", "c3"], ["cat"], axis=1),
             node("GlobalAveragePool", ["cat"], ["g"]),
             node("Flatten", ["g"], ["y"])]
    silu = [node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
            node("Sigmoid", ["c"], ["s"]),
            node("Mul", ["c", "s"], ["y"])]
    yield graph("conv/silu_epilogue", silu, {"x": In((1, 8, 9, 9))}, ["y"], dict(w=w(20, 8, 3, 3)))
    yield graph("conv/nchwc_region", nodes, {"x": In((1, 3, 40, 36))}, ["y", "c1"],
                dict(stem=stem, body=body, bb=b(24), dw=w(24, 1, 3, 3), wide=w(40, 24, 1, 1)))
    # Fire-module concat (SqueezeNet): both branches are planned in place as
    # slabs of the concat, one of them also read by another consumer.
    fire = [node("Conv", ["x", "sq"], ["s"]),
            node("Relu", ["s"], ["rs"]),
            node("Conv", ["rs", "e1"], ["c1"]),
            node("Relu", ["c1"], ["r1"]),
            node("Conv", ["rs", "e3"], ["c3"], pads=[1, 1, 1, 1]),
            node("Relu", ["c3"], ["r3"]),
            node("Concat", ["r1", "r3"], ["cat"], axis=1),
            node("Conv", ["cat", "out"], ["y"]),
            node("GlobalAveragePool", ["r3"], ["g"])]
    yield graph("conv/fire_concat_in_place", fire, {"x": In((1, 16, 13, 13))}, ["y", "g"],
                dict(sq=w(16, 16, 1, 1), e1=w(32, 16, 1, 1), e3=w(48, 16, 3, 3), out=w(8, 80, 1, 1)))
    # MobileNetV2 inverted residual blocks (1x1 expansion + ReLU6, depthwise
    # 3x3 + ReLU6, 1x1 projection [+ residual]) whose expanded tensors exceed
    # L2 run as one band-by-band kernel: with and without expansion, stride
    # 2, dilation 2, batch 2, partly padded channel blocks, and heights that
    # split into uneven row parts and bands.
    def inverted_residual(name, n, c, e, o, hw, stride=1, dilation=1, expand=True, residual=False,
                          expand_kernel=1, expand_stride=1):
        nodes, src = [], "x"
        if expand:
            nodes += [node("Conv", ["x", "we", "be"], ["e"], pads=[expand_kernel // 2] * 4,
                           strides=[expand_stride] * 2),
                      node("Clip", ["e", "lo", "hi"], ["er"])]
            src = "er"
        nodes += [node("Conv", [src, "wd", "bd"], ["d"], group=e, pads=[dilation] * 4,
                       strides=[stride] * 2, dilations=[dilation] * 2),
                  node("Clip", ["d", "lo", "hi"], ["dr"]),
                  node("Conv", ["dr", "wp", "bp"], ["p"])]
        if residual:
            nodes.append(node("Add", ["p", "x"], ["y"]))
        inits = dict(wd=w(e, 1, 3, 3), bd=b(e), wp=w(o, e, 1, 1), bp=b(o),
                     lo=np.float32(0), hi=np.float32(6))
        if expand:
            inits.update(we=w(e, c, expand_kernel, expand_kernel), be=b(e))
        return graph(f"conv/inverted_residual_{name}", nodes, {"x": In((n, c, *hw))},
                     ["y" if residual else "p"], inits)

    yield inverted_residual("expand_residual", 1, 24, 144, 24, (58, 50), residual=True)
    yield inverted_residual("expand_stride2", 1, 16, 96, 24, (61, 57), stride=2)
    yield inverted_residual("no_expand", 1, 40, 40, 20, (80, 90), expand=False)
    yield inverted_residual("batch2_dilation2", 2, 20, 120, 20, (40, 44), dilation=2, residual=True)
    # A network's stem (3x3, stride 2, over the 3-channel image) as the
    # expansion, and a 3x3 one over blocked channels.
    yield inverted_residual("stem", 1, 3, 48, 24, (180, 150), expand_kernel=3, expand_stride=2)
    yield inverted_residual("expand_3x3", 1, 16, 64, 16, (72, 64), expand_kernel=3, residual=True)


def conv_transpose_cases():
    """ConvTranspose, 1-D and 2-D: strides, dilations, pads, output_padding,
    output_shape (including one beyond the windows), auto_pad, groups, batch,
    bias or none, weights as a run-time input."""
    rng = np.random.default_rng(21)

    def w(*shape):
        return (rng.standard_normal(shape) * 0.3).astype(F32)

    for name, x, weights, bias, attrs in [
            ("basic", In((1, 3, 5, 5)), w(3, 4, 3, 3), w(4), {}),
            ("stride2_pads", In((2, 4, 6, 7)), w(4, 5, 3, 3), w(5), dict(strides=[2, 2], pads=[1, 1, 1, 1])),
            ("stride2_output_padding", In((1, 2, 4, 4)), w(2, 3, 3, 3), None,
             dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])),
            ("dilated", In((1, 2, 5, 6)), w(2, 2, 3, 2), w(2), dict(dilations=[2, 3])),
            ("kernel4_stride2_upsample", In((1, 8, 8, 8)), w(8, 4, 4, 4), w(4), dict(strides=[2, 2], pads=[1, 1, 1, 1])),
            ("asymmetric_stride_pads", In((1, 3, 4, 6)), w(3, 2, 3, 5), w(2), dict(strides=[3, 1], pads=[0, 2, 1, 1])),
            ("groups", In((1, 6, 5, 5)), w(6, 2, 3, 3), w(6), dict(group=3, strides=[2, 2])),
            ("depthwise", In((2, 4, 5, 5)), w(4, 1, 3, 3), w(4), dict(group=4)),
            ("output_shape", In((1, 1, 3, 3)), w(1, 2, 3, 3), None, dict(strides=[3, 2], output_shape=[10, 8])),
            ("same_upper", In((1, 2, 4, 5)), w(2, 3, 3, 3), w(3), dict(strides=[2, 2], auto_pad="SAME_UPPER")),
            ("same_lower", In((1, 2, 4, 5)), w(2, 3, 4, 4), w(3), dict(strides=[2, 2], auto_pad="SAME_LOWER")),
            ("1d", In((2, 3, 9)), w(3, 4, 5), w(4), dict(strides=[2], pads=[1, 2])),
            ("1d_stft_like_long_kernel", In((1, 1, 40)), w(1, 2, 16), None, dict(strides=[4])),
            ("weights_as_input", In((1, 3, 4, 4)), In((3, 2, 3, 3)), None, dict(strides=[2, 2]))]:
        args = [x, weights] + ([bias] if bias is not None else [])
        yield single(f"convtranspose/{name}", "ConvTranspose", args, attrs)


def elementwise_chain_cases():
    """Chains of elementwise ops that fuse-elementwise runs in one pass."""
    rng = np.random.default_rng(11)
    nodes = [node("Mul", ["x", "a"], ["m"]),
             node("Add", ["w", "m"], ["s"]),
             node("Tanh", ["s"], ["t"]),
             node("Div", ["t", "d"], ["q"]),
             node("Clip", ["q", "lo", "hi"], ["c"]),
             node("Sub", ["one", "c"], ["y"])]
    yield graph("elementwise/chain_broadcast_operands", nodes,
                {"x": In((2, 3, 5, 8)), "w": In((8,))}, ["y"],
                dict(a=np.float32(1.7), d=rng.uniform(1, 2, (3, 1, 1)).astype(np.float32),
                     lo=np.float32(-0.5), hi=np.float32(0.75), one=np.float32(1.0)), opset=13)
    nodes = [node("Sigmoid", ["x"], ["s"]), node("Mul", ["x", "s"], ["m"]),
             node("Exp", ["m"], ["e"]), node("Relu", ["e"], ["y1"]), node("Neg", ["e"], ["y2"])]
    yield graph("elementwise/chain_with_shared_result", nodes, {"x": In((4, 7))}, ["y1", "y2"], {})


def batchnorm_cases():
    """BatchNormalization (inference) at opsets 9, 14, 15 and ranks 2-4, plus Conv+BN fusions."""
    rng = np.random.default_rng(2)

    def params(c):
        return [rng.uniform(0.5, 1.5, c), rng.standard_normal(c) * 0.1,
                rng.standard_normal(c) * 0.2, rng.uniform(0.5, 2.0, c)]

    for opset in (9, 14, 15):
        yield single(f"batchnorm/4d_opset{opset}", "BatchNormalization", [In((1, 5, 7, 9))] + params(5), opset=opset)
    yield single("batchnorm/3d_eps1e-3", "BatchNormalization", [In((2, 3, 6))] + params(3), dict(epsilon=1e-3))
    yield single("batchnorm/2d", "BatchNormalization", [In((4, 6))] + params(6))
    yield single("batchnorm/batch3", "BatchNormalization", [In((3, 4, 5, 5))] + params(4), dict(epsilon=1e-2))
    yield single("batchnorm/params_as_inputs", "BatchNormalization",
                 [In((1, 4, 3, 3)), In((4,)), In((4,)), In((4,)), In((4,), gen=positive)])
    weight = rng.standard_normal((6, 3, 3, 3)) / np.sqrt(27)
    for bias in (True, False):
        nodes = [node("Conv", ["x", "w"] + (["b"] if bias else []), ["c"], pads=[1, 1, 1, 1]),
                 node("BatchNormalization", ["c", "s", "beta", "m", "v"], ["bn"]),
                 node("Relu", ["bn"], ["y"])]
        inits = dict(zip(["s", "beta", "m", "v"], params(6)), w=weight, b=rng.standard_normal(6) * 0.1)
        if not bias:
            del inits["b"]
        yield graph(f"batchnorm/conv_bn_relu_{'bias' if bias else 'nobias'}", nodes, {"x": In((1, 3, 8, 8))},
                    ["y"], inits)


def uniform(lo, hi):
    """Values drawn uniformly from [lo, hi)."""
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def math_function_cases():
    """The circular and hyperbolic functions and their inverses over their domains (and past them:
    nan), Round (halves too), Sign, ThresholdedRelu and Shrink; alone and in a chain."""
    shape = (3, 4, 17)
    domains = {"Sin": [uniform(-4, 4), uniform(-200, 200)], "Cos": [uniform(-4, 4), uniform(-200, 200)],
               "Tan": [uniform(-1.5, 1.5), uniform(-40, 40)], "Atan": [scaled(3), scaled(1000)],
               "Asin": [uniform(-1, 1), uniform(-1.5, 1.5)], "Acos": [uniform(-1, 1), uniform(-1.5, 1.5)],
               "Sinh": [uniform(-1.5, 1.5), uniform(-20, 20)], "Cosh": [uniform(-1.5, 1.5), uniform(-20, 20)],
               "Asinh": [scaled(2), scaled(1e5)], "Acosh": [uniform(1, 3), uniform(0.5, 1e4)],
               "Atanh": [uniform(-0.999, 0.999), uniform(-1.2, 1.2)]}
    for op, gens in domains.items():
        for suffix, gen in zip(["typical", "wide"], gens):
            yield single(f"{op.lower()}/{suffix}", op, [In(shape, gen=gen)], rtol=2e-3)
    near_zero = In((2, 50), gen=scaled(1e-3))
    for op in ["Sin", "Tan", "Asin", "Atan", "Sinh", "Asinh", "Atanh"]:
        yield single(f"{op.lower()}/near_zero", op, [near_zero])
    yield single("round/halves", "Round", [In((4, 9), gen=lambda r, s: r.integers(-20, 20, s) / 2.0)])
    yield single("round/typical", "Round", [In(shape, gen=scaled(5))])
    yield single("sign/with_zeros", "Sign", [In((4, 9), gen=lambda r, s: r.integers(-2, 3, s) * 1.5)])
    yield single("thresholdedrelu/default", "ThresholdedRelu", [In(shape, gen=scaled(2))])
    yield single("thresholdedrelu/alpha", "ThresholdedRelu", [In(shape, gen=scaled(2))], dict(alpha=0.3))
    yield single("shrink/default", "Shrink", [In(shape, gen=scaled(2))])
    yield single("shrink/lambd_bias", "Shrink", [In(shape, gen=scaled(2))], dict(lambd=1.2, bias=0.7))
    yield graph("cos/in_a_chain", [node("Mul", ["x", "two"], ["m"]), node("Cos", ["m"], ["c"]),
                                   node("Sin", ["x"], ["s"]), node("Add", ["c", "s"], ["y"])],
                {"x": In((2, 16, 9), gen=scaled(2))}, ["y"], dict(two=scalar(2.0)))


def function_cases():
    """Ops ONNX defines by a function body, which the importer inlines: the losses (every reduction,
    weights, ignore_index, the log_prob output), Celu, MeanVarianceNormalization; and a model-local
    function with an attribute reference and a default taken from the call."""
    scores, labels = In((3, 5, 2)), In((3, 2), I64, gen=lambda r, s: r.integers(0, 5, s))
    weights = np.array([0.5, 1.0, 2.0, 0.1, 1.5], F32)
    for reduction in ["mean", "sum", "none"]:
        yield single(f"nllloss/{reduction}", "NegativeLogLikelihoodLoss", [scores, labels], dict(reduction=reduction))
        yield single(f"nllloss/{reduction}_weight_ignore_index", "NegativeLogLikelihoodLoss",
                     [scores, labels, weights], dict(reduction=reduction, ignore_index=2))
        yield single(f"softmaxcrossentropyloss/{reduction}", "SoftmaxCrossEntropyLoss", [scores, labels],
                     dict(reduction=reduction))
    yield single("softmaxcrossentropyloss/log_prob_weight_2d", "SoftmaxCrossEntropyLoss",
                 [In((4, 6)), In((4,), I64, gen=lambda r, s: r.integers(0, 6, s)), np.linspace(0.5, 2, 6)],
                 dict(reduction="mean"), outputs=2)
    yield single("celu/alpha", "Celu", [In((2, 3, 5), gen=scaled(3))], dict(alpha=0.7))
    yield single("meanvariancenormalization/axes_0_2", "MeanVarianceNormalization", [In((2, 3, 4, 5))],
                 dict(axes=[0, 2]))

    # local.ScaledTanh(x) = Tanh(x) * scale, scale = the call's `factor`.
    scale = helper.make_node("Constant", [], ["scale"])
    scale.attribute.append(onnx.AttributeProto(name="value_float", ref_attr_name="factor",
                                               type=onnx.AttributeProto.FLOAT))
    function = helper.make_function("local", "ScaledTanh", ["x"], ["y"],
                                    [scale, node("Tanh", ["x"], ["t"]), node("Mul", ["t", "scale"], ["y"])],
                                    [helper.make_opsetid("", 17)], attributes=["factor"])
    model = make_model([node("ScaledTanh", ["x"], ["h"], domain="local", factor=2.5), node("Relu", ["h"], ["y"])],
                       {"x": In((3, 4), gen=scaled(2))}, ["y"], opsets=[("local", 1)], infer=False,
                       output_types={"y": (F32, (3, 4))})
    model.functions.append(function)
    yield Case("function/model_local_with_attribute", model, feeds_for("function/model_local_with_attribute",
                                                                       {"x": In((3, 4), gen=scaled(2))}))


def relu_clip_cases():
    """Relu on several ranks; Clip with attributes (opsets 7, 9) and inputs (11, 13); Elu, Selu,
    Softplus, Softsign."""
    for shape in [(7,), (2, 3, 5), (1, 4, 9, 11), ()]:
        yield single(f"relu/{'x'.join(map(str, shape)) or 'scalar'}", "Relu", [In(shape)])
    x = In((3, 4, 5), gen=scaled(3))
    yield single("clip/opset13_min_max", "Clip", [x, scalar(-0.5), scalar(0.8)], opset=13)
    yield single("clip/opset13_min_only", "Clip", [x, scalar(-0.5)], opset=13)
    yield single("clip/opset13_max_only", "Clip", [x, None, scalar(0.8)], opset=13)
    yield single("clip/opset13_no_bounds", "Clip", [x], opset=13)
    yield single("clip/opset13_relu6", "Clip", [In((1, 8, 5, 5), gen=scaled(5)), scalar(0.0), scalar(6.0)])
    yield single("clip/opset13_runtime_bounds", "Clip", [x, In((), gen=lambda r, s: -r.uniform(0, 1)),
                                                         In((), gen=lambda r, s: r.uniform(0, 1))], opset=13)
    yield single("clip/opset11_min_max", "Clip", [x, scalar(-1.0), scalar(1.5)], opset=11)
    yield single("clip/opset9_attr_min_max", "Clip", [x], dict(min=-0.5, max=0.8), opset=9)
    yield single("clip/opset7_attr_min_only", "Clip", [x], dict(min=0.1), opset=7)
    yield single("clip/opset7_attr_max_only", "Clip", [x], dict(max=-0.2), opset=7)
    # The exponential activations, alone (large magnitudes too) and fused
    # into a chain and a convolution's epilogue.
    wide = In((2, 3, 17), gen=scaled(30))
    for op, attrs in [("Elu", {}), ("Elu", dict(alpha=0.5)), ("Selu", {}), ("Selu", dict(alpha=1.5, gamma=2.0)),
                      ("Softplus", {}), ("Softsign", {})]:
        suffix = "_".join(f"{k}{v}" for k, v in attrs.items()) or "default"
        yield single(f"{op.lower()}/{suffix}", op, [In((3, 4, 5), gen=scaled(3))], attrs)
        if not attrs:
            yield single(f"{op.lower()}/large_magnitude", op, [wide])
            yield graph(f"{op.lower()}/in_a_chain", [node("Mul", ["x", "two"], ["m"]), node(op, ["m"], ["a"]),
                                                    node("Add", ["a", "x"], ["y"])],
                        {"x": In((2, 16, 9), gen=scaled(2))}, ["y"], dict(two=scalar(2.0)))
            yield graph(f"{op.lower()}/conv_epilogue", [node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                                                       node(op, ["c"], ["y"])],
                        {"x": In((1, 16, 10, 10))}, ["y"],
                        dict(w=np.random.default_rng(7).standard_normal((32, 16, 3, 3)) * 0.1))


def pool_cases():
    """MaxPool, AveragePool and GlobalAveragePool attribute variants."""
    negative = In((1, 3, 9, 9), gen=lambda r, s: -np.abs(r.standard_normal(s)) - 1.0)
    maxpool = [
        ("k2_s2", (1, 3, 8, 8), dict(kernel_shape=[2, 2], strides=[2, 2])),
        ("k2_s2_odd_floor", (1, 3, 9, 11), dict(kernel_shape=[2, 2], strides=[2, 2])),
        ("k3_s2_p1", (1, 4, 15, 15), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
        ("k3_s2_p1_even", (2, 4, 16, 16), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
        ("k3_s1_p1", (1, 2, 7, 6), dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])),
        ("asym_pads", (1, 2, 8, 9), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 0, 2])),
        ("dilation2", (1, 2, 11, 11), dict(kernel_shape=[3, 3], dilations=[2, 2])),
        ("dilation2_stride2_pad", (1, 2, 12, 12), dict(kernel_shape=[2, 2], dilations=[2, 2], strides=[2, 2],
                                                        pads=[1, 1, 1, 1])),
        ("ceil_k3_s2", (1, 3, 10, 10), dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
        ("ceil_k2_s2_odd", (1, 3, 9, 7), dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)),
        ("ceil_pads", (1, 2, 10, 11), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)),
        ("same_upper_s2", (1, 2, 10, 11), dict(kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER")),
        ("same_lower_k2", (1, 2, 7, 7), dict(kernel_shape=[2, 2], auto_pad="SAME_LOWER")),
        ("valid_s2", (1, 2, 9, 9), dict(kernel_shape=[3, 3], strides=[2, 2], auto_pad="VALID")),
        ("rect_k3x2_s1x2", (1, 2, 8, 9), dict(kernel_shape=[3, 2], strides=[1, 2])),
    ]
    for name, shape, attrs in maxpool:
        yield single(f"maxpool/{name}", "MaxPool", [In(shape)], attrs)
    yield single("maxpool/negative_inputs_pads", "MaxPool", [negative],
                 dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    yield single("maxpool/opset11", "MaxPool", [In((1, 3, 8, 8))],
                 dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]), opset=11)

    avgpool = [
        ("k2_s2", (1, 3, 8, 8), dict(kernel_shape=[2, 2], strides=[2, 2])),
        ("k3_s1_p1_exclude_pad", (1, 2, 7, 6), dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=0)),
        ("k3_s1_p1_include_pad", (1, 2, 7, 6), dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1)),
        ("k3_s2_p1_include_pad", (1, 2, 9, 10), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                                                     count_include_pad=1)),
        ("asym_pads_exclude_pad", (1, 2, 8, 8), dict(kernel_shape=[2, 3], pads=[0, 1, 1, 2])),
        ("asym_pads_include_pad", (1, 2, 8, 8), dict(kernel_shape=[2, 3], pads=[0, 1, 1, 2], count_include_pad=1)),
        ("ceil_k3_s2", (1, 3, 10, 10), dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
        ("ceil_k2_s2_odd", (1, 3, 9, 7), dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)),
        ("ceil_pads_exclude_pad", (1, 2, 10, 11), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                                                       ceil_mode=1)),
        ("ceil_pads_include_pad", (1, 2, 10, 11), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                                                       ceil_mode=1, count_include_pad=1)),
        ("rect_k2x3_s1x2", (1, 2, 7, 9), dict(kernel_shape=[2, 3], strides=[1, 2])),
        ("same_upper_s2", (1, 2, 10, 11), dict(kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER")),
        ("valid", (1, 2, 9, 9), dict(kernel_shape=[3, 3], auto_pad="VALID")),
        ("k7_global_like", (1, 4, 7, 7), dict(kernel_shape=[7, 7])),
    ]
    for name, shape, attrs in avgpool:
        yield single(f"averagepool/{name}", "AveragePool", [In(shape)], attrs)
    yield single("averagepool/opset11_include_pad", "AveragePool", [In((1, 2, 6, 6))],
                 dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1), opset=11)

    for shape in [(1, 8, 7, 7), (2, 3, 5, 9), (1, 16, 1, 1), (1, 4, 10)]:
        yield single(f"globalaveragepool/{'x'.join(map(str, shape))}", "GlobalAveragePool", [In(shape)])


def nonzero_ints(dtype, lo, hi):
    """Integers in [lo, hi) without 0 (divisors)."""
    def gen(rng, shape):
        value = rng.integers(lo, hi, shape)
        return np.where(value == 0, 1, value).astype(dtype)
    return gen


def integer_binary_cases():
    """Mod (both signs, fmod 0 and 1, ints and floats), BitShift, PRelu (per channel, ints), f64
    arithmetic, Neg/Abs/Clip of integers, Pow with an exponent of another type."""
    for dtype in [I64, I32, np.int8]:
        a, b = In((3, 8), dtype, gen=lambda r, s: r.integers(-100, 100, s)), In((8,), dtype, gen=nonzero_ints(dtype, -9, 9))
        name = np.dtype(dtype).name
        yield single(f"mod/{name}_python_sign", "Mod", [a, b])
        yield single(f"mod/{name}_fmod", "Mod", [a, b], dict(fmod=1))
    yield single("mod/f32_fmod", "Mod", [In((3, 8), gen=scaled(20)), In((8,), gen=uniform(0.5, 4))], dict(fmod=1))
    yield single("mod/f64_fmod_negative_divisor", "Mod", [In((3, 8), np.float64, gen=scaled(20)),
                                                          In((3, 1), np.float64, gen=uniform(-4, -0.5))], dict(fmod=1))
    for dtype in [np.uint8, np.uint32, np.uint64]:
        name = np.dtype(dtype).name
        x = In((2, 6), dtype, gen=lambda r, s: r.integers(0, 200, s))
        shifts = In((6,), dtype, gen=lambda r, s: r.integers(0, 9, s))
        yield single(f"bitshift/{name}_left", "BitShift", [x, shifts], dict(direction="LEFT"))
        yield single(f"bitshift/{name}_right", "BitShift", [x, shifts], dict(direction="RIGHT"))
    yield single("prelu/per_channel", "PRelu", [In((2, 3, 4, 5)), np.array([0.1, 0.2, -0.5], F32).reshape(3, 1, 1)])
    yield single("prelu/scalar_slope", "PRelu", [In((2, 7)), scalar(0.25)])
    yield single("prelu/runtime_slope", "PRelu", [In((2, 7)), In((7,))])
    yield single("prelu/int64", "PRelu", [In((3, 4), I64), In((4,), I64, gen=lambda r, s: r.integers(-3, 4, s))])
    for op in ["Add", "Sub", "Mul", "Div", "Max", "Min"]:
        yield single(f"{op.lower()}/f64", op, [In((2, 3, 4), np.float64), In((3, 1), np.float64, gen=uniform(0.5, 2))])
    yield single("neg/int64", "Neg", [In((3, 5), I64)])
    yield single("abs/int32", "Abs", [In((3, 5), I32)])
    yield single("abs/int8_most_negative", "Abs", [np.array([-128, -5, 0, 7], np.int8)])
    yield single("clip/int8_constant_bounds", "Clip", [In((3, 5), np.int8), scalar(-5, np.int8), scalar(6, np.int8)])
    yield single("clip/int64_min_only", "Clip", [In((3, 5), I64), scalar(-3, I64)])
    yield single("pow/f32_base_i64_exponent", "Pow", [In((2, 5), gen=uniform(0.5, 2)),
                                                     In((5,), I64, gen=lambda r, s: r.integers(0, 4, s))])
    yield single("pow/i32_base_f32_exponent", "Pow", [In((2, 5), I32, gen=lambda r, s: r.integers(-4, 5, s)),
                                                     In((5,), gen=lambda r, s: r.integers(0, 4, s))])


def index_reduction_cases():
    """ArgMax/ArgMin (axes, keepdims, ties first and last, integer inputs); ReduceLogSum(Exp) and
    f64 reductions; DepthToSpace (both modes), SpaceToDepth, EyeLike; Trilu (upper, lower, k
    constant, run-time and omitted, batched)."""
    ties = In((3, 6), gen=lambda r, s: r.integers(0, 3, s).astype(np.float64))
    for op in ["ArgMax", "ArgMin"]:
        yield single(f"{op.lower()}/axis0_keepdims", op, [In((4, 5))], dict(axis=0))
        yield single(f"{op.lower()}/axis_minus1_no_keepdims", op, [In((2, 3, 7))], dict(axis=-1, keepdims=0))
        yield single(f"{op.lower()}/ties_first", op, [ties], dict(axis=1))
        yield single(f"{op.lower()}/ties_last", op, [ties], dict(axis=1, select_last_index=1))
        yield single(f"{op.lower()}/int32_axis1", op, [In((2, 9, 3), I32)], dict(axis=1))
    # ReduceLogSum(Exp) become ReduceSum/Log (with the max shifted out of the exponent).
    big = In((2, 3, 5), gen=scaled(40))
    for op in ["ReduceLogSum", "ReduceLogSumExp"]:
        x = In((2, 3, 5), gen=uniform(0.5, 3)) if op == "ReduceLogSum" else big
        yield single(f"{op.lower()}/axes1_keepdims", op, [x, i64(1)], opset=18)
        yield single(f"{op.lower()}/all_axes_no_keepdims", op, [x], dict(keepdims=0), opset=18)
        yield single(f"{op.lower()}/opset13_attribute_axes", op, [x], dict(axes=[0, 2], keepdims=0), opset=13)
    yield single("reducelogsumexp/f64", "ReduceLogSumExp", [In((3, 4), np.float64, gen=scaled(50)), i64(-1)], opset=18)
    yield single("reducesum/f64", "ReduceSum", [In((3, 4, 5), np.float64), i64(0, 2)], opset=18)
    yield single("exp/f64", "Exp", [In((3, 4), np.float64, gen=scaled(3))])
    for mode in ["DCR", "CRD"]:
        yield single(f"depthtospace/{mode.lower()}_b2", "DepthToSpace", [In((2, 8, 3, 4))], dict(blocksize=2, mode=mode))
    yield single("depthtospace/dcr_b3", "DepthToSpace", [In((1, 18, 2, 2))], dict(blocksize=3))
    yield single("spacetodepth/b2", "SpaceToDepth", [In((2, 3, 4, 6))], dict(blocksize=2))
    yield single("spacetodepth/b3", "SpaceToDepth", [In((1, 2, 6, 3))], dict(blocksize=3))
    yield single("eyelike/k1_i64", "EyeLike", [In((4, 5))], dict(k=1, dtype=onnx.TensorProto.INT64))
    yield single("eyelike/k_minus2_same_type", "EyeLike", [In((5, 3))], dict(k=-2))
    for upper in [1, 0]:
        name = "triu" if upper else "tril"
        yield single(f"trilu/{name}_default_k", "Trilu", [In((4, 6))], dict(upper=upper))
        yield single(f"trilu/{name}_constant_k", "Trilu", [In((2, 5, 3)), scalar(-1, I64)], dict(upper=upper))
        yield single(f"trilu/{name}_runtime_k", "Trilu", [In((3, 3, 4), I64), In((), I64, gen=lambda r, s: 1)],
                     dict(upper=upper))


def elementwise_cases():
    """Add/Sub/Mul/Div (float and int), Pow, Sqrt, Erf, Tanh with broadcasting."""
    rng = np.random.default_rng(3)
    shapes = [
        ("same_shape", (2, 3, 5), (2, 3, 5)),
        ("broadcast_both", (2, 1, 4), (3, 1)),
        ("broadcast_lhs", (5,), (2, 3, 5)),
        ("broadcast_rank4_channel", (1, 8, 5, 5), (8, 1, 1)),
        ("one_element", (3, 4), (1,)),
        ("scalar_input", (3, 4), ()),
        ("odd_shapes", (7, 1, 13), (1, 11, 1)),
    ]
    for op in ("Add", "Sub", "Mul", "Div"):
        rhs_gen = nonzero if op == "Div" else None
        for name, a, b in shapes:
            yield single(f"{op.lower()}/{name}", op, [In(a), In(b, gen=rhs_gen)])
        yield single(f"{op.lower()}/scalar_constant", op, [In((2, 3, 4)), scalar(1.75)])
        yield single(f"{op.lower()}/constant_lhs", op,
                     [rng.standard_normal((4, 1)) + (3.0 if op == "Div" else 0.0), In((3, 4, 5), gen=rhs_gen)])
        yield graph(f"{op.lower()}/same_operand_twice", [node(op, ["x", "x"], ["y"])],
                    {"x": In((3, 7), gen=rhs_gen)}, ["y"])
        int_rhs = (lambda r, s: r.integers(1, 7, s)) if op == "Div" else None
        yield single(f"{op.lower()}/int64_broadcast", op, [In((2, 3, 4), I64), In((3, 1), I64, gen=int_rhs)])
        yield single(f"{op.lower()}/int64_scalar_constant", op, [In((5, 3), I64), scalar(3, I64)])
    yield single("div/int64_negative_truncates", "Div",
                 [In((4, 5), I64), In((4, 5), I64, gen=lambda r, s: r.choice([-1, 1], s) * r.integers(1, 7, s))])
    yield single("add/int32", "Add", [In((3, 4), I32), In((4,), I32)])
    # Narrow and unsigned integers, wrapping on overflow.
    wide = lambda dtype: (lambda r, s: r.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, s, dtype=dtype,
                                                  endpoint=True))
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.uint64):
        name = np.dtype(dtype).name
        for op in ("Add", "Sub", "Mul"):
            yield single(f"{op.lower()}/{name}_wraps", op, [In((4, 6), dtype, gen=wide(dtype)),
                                                          In((6,), dtype, gen=wide(dtype))])
        if dtype != np.uint64:  # onnx.reference divides uint64 through float64
            yield single(f"div/{name}", "Div", [In((4, 6), dtype, gen=wide(dtype)),
                                                In((4, 6), dtype, gen=lambda r, s: r.integers(1, 9, s))])

    yield single("pow/positive_base_runtime_exp", "Pow", [In((3, 4), gen=positive), In((3, 4), gen=scaled(1.5))])
    yield single("pow/square", "Pow", [In((2, 3, 4)), scalar(2.0)])
    yield single("pow/cube_negative_base", "Pow", [In((5, 6), gen=scaled(2)), scalar(3.0)])
    yield single("pow/sqrt_exponent", "Pow", [In((5, 6), gen=positive), scalar(0.5)])
    yield single("pow/negative_exponent", "Pow", [In((5, 6), gen=positive), f32(-1.5)])
    yield single("pow/broadcast", "Pow", [In((3, 1), gen=positive), In((1, 4), gen=scaled(2))])
    yield single("pow/int64_exponent", "Pow", [In((2, 5)), scalar(3, I64)])
    yield single("pow/int64_base_and_exponent", "Pow",
                 [In((2, 5), I64, gen=lambda r, s: r.integers(-5, 6, s)),
                  In((5,), I64, gen=lambda r, s: r.integers(0, 4, s))])

    for shape in [(3, 4, 5), (17,), ()]:
        suffix = "x".join(map(str, shape)) or "scalar"
        yield single(f"sqrt/{suffix}", "Sqrt", [In(shape, gen=positive)])
        yield single(f"erf/{suffix}", "Erf", [In(shape, gen=scaled(2))])
        yield single(f"tanh/{suffix}", "Tanh", [In(shape, gen=scaled(3))])
    yield single("sqrt/with_zeros", "Sqrt", [In((4, 4), gen=lambda r, s: np.abs(coarse(r, s)))])
    yield single("tanh/large_magnitude", "Tanh", [In((1, 2, 7, 7), gen=scaled(30))])
    yield single("erf/large_magnitude", "Erf", [In((1, 2, 7, 7), gen=scaled(10))])
    yield graph("erf/gelu_as_exported", [
        node("Div", ["x", "sqrt2"], ["d"]), node("Erf", ["d"], ["e"]), node("Add", ["e", "one"], ["a"]),
        node("Mul", ["x", "a"], ["m"]), node("Mul", ["m", "half"], ["y"])],
        {"x": In((2, 7, 24), gen=scaled(3))}, ["y"], dict(sqrt2=scalar(np.sqrt(2)), one=scalar(1.0), half=scalar(0.5)))


def gemm_matmul_cases():
    """Gemm (transA/transB/alpha/beta, C shapes; opsets 9, 11, 13) and MatMul ranks/broadcast."""
    rng = np.random.default_rng(4)
    m, k, n = 3, 5, 4
    a, at = In((m, k)), In((k, m))
    b, bt = rng.standard_normal((k, n)), rng.standard_normal((n, k))
    gemms = [
        ("plain_no_c", [a, b], {}, 13),
        ("transA", [at, b], dict(transA=1), 13),
        ("transB", [a, bt], dict(transB=1), 13),
        ("transA_transB", [at, bt], dict(transA=1, transB=1), 13),
        ("alpha_beta_c_1d", [a, b, rng.standard_normal(n)], dict(alpha=0.5, beta=2.0), 13),
        ("c_2d_full", [a, b, rng.standard_normal((m, n))], dict(beta=-1.0), 13),
        ("c_row", [a, b, rng.standard_normal((1, n))], {}, 13),
        ("c_column", [a, b, rng.standard_normal((m, 1))], {}, 13),
        ("c_scalar", [a, b, scalar(0.25)], dict(alpha=2.0), 13),
        ("c_one_element", [a, b, f32(-0.5)], {}, 13),
        ("c_runtime", [a, bt, In((n,))], dict(transB=1, alpha=1.5, beta=0.5), 13),
        ("b_runtime", [a, In((k, n))], {}, 13),
        ("alpha_zero_ish", [a, b, rng.standard_normal(n)], dict(alpha=1e-3), 13),
        ("opset11_no_c", [at, bt], dict(transA=1, transB=1, alpha=0.75), 11),
        ("opset9_c_1d", [a, b, rng.standard_normal(n)], dict(alpha=0.5, beta=2.0), 9),
        ("opset9_transB_c_2d", [a, bt, rng.standard_normal((m, n))], dict(transB=1), 9),
        ("opset9_c_scalar", [at, b, scalar(1.5)], dict(transA=1, beta=0.5), 9),
        ("classifier_1x512x100", [In((1, 512)), rng.standard_normal((100, 512)) / 20, rng.standard_normal(100)],
         dict(transB=1), 13),
    ]
    for name, args, attrs, opset in gemms:
        yield single(f"gemm/{name}", "Gemm", args, attrs, opset=opset)

    matmuls = [
        ("2d_odd", (7, 13), (13, 5)),
        ("3d_batched", (2, 4, 6), (2, 6, 3)),
        ("4d_batched", (2, 3, 4, 5), (2, 3, 5, 6)),
        ("broadcast_batch", (2, 1, 4, 5), (3, 5, 6)),
        ("broadcast_batch_rhs", (4, 5), (2, 3, 5, 6)),
        ("3d_x_2d", (2, 4, 6), (6, 3)),
        ("1d_x_2d", (6,), (6, 3)),
        ("2d_x_1d", (4, 6), (6,)),
        ("1d_x_1d", (6,), (6,)),
        ("1d_x_3d", (6,), (2, 6, 3)),
        ("3d_x_1d", (2, 4, 6), (6,)),
        ("attention_scores", (1, 2, 5, 8), (1, 2, 8, 5)),
        ("outer_k1", (4, 1), (1, 3)),
        ("gemv_wide", (1, 300), (300, 33)),
    ]
    for name, sa, sb in matmuls:
        yield single(f"matmul/{name}", "MatMul", [In(sa), In(sb)])
    yield single("matmul/constant_weight_3d", "MatMul", [In((2, 7, 16)), rng.standard_normal((16, 9))])
    yield single("matmul/constant_lhs", "MatMul", [rng.standard_normal((3, 8)), In((2, 8, 5))])


def softmax_layernorm_cases():
    """Softmax (every axis; opset 11 coerce-to-2D vs opset 13), LayerNormalization and
    InstanceNormalization."""
    x4 = In((2, 3, 4, 5))
    for axis in (0, 1, 2, 3, -1, -2, -3, -4):
        yield single(f"softmax/opset13_4d_axis{axis}", "Softmax", [x4], dict(axis=axis), opset=13)
    yield single("softmax/opset13_default_axis_3d", "Softmax", [In((2, 3, 7))], opset=13)
    yield single("softmax/opset13_2d_axis0", "Softmax", [In((3, 7))], dict(axis=0), opset=13)
    yield single("softmax/opset13_1d", "Softmax", [In((9,))], opset=13)
    yield single("softmax/opset13_large_magnitude", "Softmax", [In((2, 3, 17), gen=scaled(50))], opset=13)
    yield single("softmax/opset11_3d_axis1_coerced", "Softmax", [In((2, 3, 4))], dict(axis=1), opset=11)
    yield single("softmax/opset11_4d_axis1_coerced", "Softmax", [x4], dict(axis=1), opset=11)
    yield single("softmax/opset11_4d_axis2_coerced", "Softmax", [x4], dict(axis=2), opset=11)
    yield single("softmax/opset11_4d_axis0_coerced", "Softmax", [x4], dict(axis=0), opset=11)
    yield single("softmax/opset11_default_axis_3d", "Softmax", [In((2, 3, 4))], opset=11)
    yield single("softmax/opset11_axis_last", "Softmax", [In((2, 3, 4))], dict(axis=-1), opset=11)
    yield single("softmax/opset11_2d", "Softmax", [In((4, 6))], dict(axis=1), opset=11)
    # InstanceNormalization: per (n, c) plane over 1-D, 2-D and 3-D spatial
    # extents, constant or run-time scale and B, an epsilon, a shifted mean.
    for name, shape, const in [("3d", (2, 3, 7), True), ("4d", (2, 4, 5, 6), True),
                               ("5d_runtime_params", (1, 2, 3, 4, 5), False)]:
        c = shape[1]
        params = ([np.linspace(0.5, 2, c), np.linspace(-1, 1, c)] if const
                  else [In((c,)), In((c,))])
        yield single(f"instancenorm/{name}", "InstanceNormalization", [In(shape)] + params)
    yield single("instancenorm/epsilon_offset_mean", "InstanceNormalization",
                 [In((1, 3, 8, 8), gen=lambda rng, shape: rng.standard_normal(shape) + 100),
                  np.ones(3), np.zeros(3)], dict(epsilon=0.01))
    yield graph("softmax/masked_attention", [node("Add", ["s", "mask"], ["a"]), node("Softmax", ["a"], ["p"], axis=-1)],
                {"s": In((1, 2, 6, 6))}, ["p"],
                dict(mask=np.array([0, 0, 0, 0, -10000.0, -10000.0]).reshape(1, 1, 1, 6)))

    rng = np.random.default_rng(5)

    def affine(*shape):
        return [rng.uniform(0.5, 1.5, shape), rng.standard_normal(shape) * 0.1]

    yield single("layernorm/axis_last_bias", "LayerNormalization", [In((2, 5, 16))] + affine(16), dict(axis=-1))
    yield single("layernorm/axis_last_no_bias", "LayerNormalization", [In((2, 5, 16)), affine(16)[0]], dict(axis=-1))
    yield single("layernorm/default_axis_eps1e-12", "LayerNormalization", [In((1, 7, 24))] + affine(24),
                 dict(epsilon=1e-12))
    yield single("layernorm/eps1e-3", "LayerNormalization", [In((3, 10))] + affine(10), dict(epsilon=1e-3))
    yield single("layernorm/axis_minus2", "LayerNormalization", [In((2, 5, 6))] + affine(5, 6), dict(axis=-2))
    yield single("layernorm/axis_minus2_no_bias", "LayerNormalization", [In((2, 3, 5, 6)), affine(5, 6)[0]],
                 dict(axis=-2))
    yield single("layernorm/axis1_3d", "LayerNormalization", [In((2, 4, 6))] + affine(4, 6), dict(axis=1))
    yield single("layernorm/axis0", "LayerNormalization", [In((3, 4))] + affine(3, 4), dict(axis=0))
    yield single("layernorm/runtime_scale_bias", "LayerNormalization", [In((2, 3, 8)), In((8,)), In((8,))])
    yield single("layernorm/offset_inputs", "LayerNormalization",
                 [In((1, 4, 32), gen=lambda r, s: r.standard_normal(s) * 0.1 + 100.0)] + affine(32))


def gather_concat_cases():
    """Gather (axes, index types, negative and scalar indices) and Concat."""
    rng = np.random.default_rng(6)
    yield single("gather/axis0_int64_runtime", "Gather", [In((5, 4)), In((3,), I64, gen=indices(5))], dict(axis=0))
    yield single("gather/axis1_int64_constant", "Gather", [In((5, 4)), i64(3, 0, 3, 1)], dict(axis=1))
    yield single("gather/axis_minus1_3d_2d_indices", "Gather", [In((2, 3, 6)), In((2, 2), I64, gen=indices(6))],
                 dict(axis=-1))
    yield single("gather/axis1_int32_indices", "Gather", [In((2, 5, 3)), In((4,), I32, gen=indices(5))], dict(axis=1))
    yield single("gather/int32_constant_indices", "Gather", [In((6, 2)), np.array([5, 0, -1], dtype=I32)])
    yield single("gather/negative_constant_indices", "Gather", [In((4, 5)), i64(-1, -4, 2)], dict(axis=0))
    yield single("gather/scalar_index_axis0", "Gather", [In((4, 5)), scalar(2, I64)], dict(axis=0))
    yield single("gather/scalar_index_axis1_runtime", "Gather", [In((2, 6, 3)), In((), I64, gen=indices(6))],
                 dict(axis=1))
    yield single("gather/scalar_negative_index_last_axis", "Gather", [In((2, 3, 4)), scalar(-1, I64)], dict(axis=-1))
    yield single("gather/embedding_lookup", "Gather",
                 [rng.standard_normal((50, 8)), In((2, 7), I64, gen=indices(50, negative=False))])
    yield single("gather/int64_data", "Gather", [In((6, 3), I64), In((4,), I64, gen=indices(6))], dict(axis=0))
    yield single("gather/repeated_indices", "Gather", [In((3, 4)), i64(1, 1, 1, 0, 2, 2)], dict(axis=1))

    yield single("gatherelements/axis0", "GatherElements", [In((4, 3)), In((2, 3), I64, gen=indices(4))],
                 dict(axis=0))
    yield single("gatherelements/axis1_i32_smaller", "GatherElements",
                 [In((3, 5)), In((2, 4), I32, gen=indices(5))], dict(axis=1))
    yield single("gatherelements/axis_minus1_3d", "GatherElements",
                 [In((2, 3, 6)), In((2, 3, 4), I64, gen=indices(6))], dict(axis=-1))
    yield single("gatherelements/axis1_rank7_merged", "GatherElements",
                 [In((2, 4, 2, 3, 1, 2, 3)), In((2, 1, 2, 3, 1, 2, 3), I64, gen=indices(4))], dict(axis=1))
    yield single("gatherelements/int64_data_constant_indices", "GatherElements",
                 [In((3, 3), I64), np.array([[2, 0, -1], [1, 1, 0]], I64)], dict(axis=0))
    yield single("size/4d", "Size", [In((2, 3, 4, 5))])
    yield graph("size/in_arithmetic", [node("Size", ["x"], ["n"]), node("Cast", ["n"], ["f"], to=1),
                                       node("Div", ["x", "f"], ["y"])], {"x": In((3, 7))}, ["y"])

    concats = [
        ("axis0_2inputs", [(2, 3), (4, 3)], 0),
        ("axis1_3inputs_3d", [(2, 1, 4), (2, 3, 4), (2, 2, 4)], 1),
        ("axis_minus1_4inputs_4d", [(1, 2, 3, 1), (1, 2, 3, 4), (1, 2, 3, 2), (1, 2, 3, 3)], -1),
        ("axis2_4d", [(1, 3, 2, 5), (1, 3, 4, 5)], 2),
        ("axis3_4d", [(2, 2, 3, 5), (2, 2, 3, 1)], 3),
        ("axis_minus3_3d", [(1, 4, 2), (3, 4, 2)], -3),
        ("axis1_4d_channels", [(1, 3, 5, 5), (1, 5, 5, 5), (1, 2, 5, 5)], 1),
        ("1d", [(3,), (5,), (1,)], 0),
    ]
    for name, shapes, axis in concats:
        yield single(f"concat/{name}", "Concat", [In(s) for s in shapes], dict(axis=axis))
    yield single("concat/with_constant", "Concat", [In((2, 3)), rng.standard_normal((2, 2))], dict(axis=1))
    yield single("concat/int64", "Concat", [In((2, 3), I64), In((1, 3), I64)], dict(axis=0))
    yield graph("concat/same_input_twice", [node("Concat", ["x", "x"], ["y"], axis=-1)], {"x": In((2, 3))}, ["y"])
    # Batch-1 concat of intermediates: planned in place, a slab also read by a view.
    yield graph("concat/in_place_slabs",
                [node("Relu", ["x"], ["a"]), node("Neg", ["x"], ["b"]),
                 node("Concat", ["a", "b"], ["c"], axis=1), node("Tanh", ["c"], ["y"]),
                 node("Flatten", ["b"], ["fb"]), node("Sigmoid", ["fb"], ["z"])],
                {"x": In((1, 3, 5))}, ["y", "z"])


def shape_manipulation_cases():
    """Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Expand."""
    x = In((2, 3, 4))
    reshapes = [("to_4_minus1", i64(4, -1), 14), ("zero_keeps_dim", i64(0, -1), 14),
                ("zero_zero_split", i64(0, 0, 2, 2), 14), ("flatten_minus1", i64(-1), 14),
                ("minus1_middle", i64(2, -1, 2), 13), ("add_unit_dims", i64(1, 1, 24), 13),
                ("zero_and_minus1_4d", i64(0, 3, -1, 1), 13)]
    for name, shape, opset in reshapes:
        attrs = dict(allowzero=0) if opset >= 14 else {}
        yield single(f"reshape/{name}_opset{opset}", "Reshape", [x, shape], attrs, opset=opset)
    yield single("reshape/int64_data", "Reshape", [In((2, 6), I64), i64(0, 3, -1)])

    for rank_shape in [(2, 3, 4, 5), (3, 4, 5)]:
        for axis in list(range(len(rank_shape) + 1)) + [-1, -len(rank_shape)]:
            yield single(f"flatten/rank{len(rank_shape)}_axis{axis}", "Flatten", [In(rank_shape)], dict(axis=axis))
    yield single("flatten/default_axis", "Flatten", [In((2, 3, 4))])

    transposes = [("2d_default", (3, 5), None), ("3d_default", (2, 3, 4), None), ("4d_default", (2, 3, 4, 5), None),
                  ("nchw_to_nhwc", (1, 3, 4, 5), [0, 2, 3, 1]), ("nhwc_to_nchw", (1, 4, 5, 3), [0, 3, 1, 2]),
                  ("3d_swap_first", (2, 3, 4), [1, 0, 2]), ("3d_swap_last", (2, 3, 4), [0, 2, 1]),
                  ("attention_heads", (1, 5, 2, 4), [0, 2, 1, 3]), ("5d", (2, 1, 3, 2, 4), [0, 2, 1, 4, 3]),
                  ("identity_perm", (2, 3, 4), [0, 1, 2])]
    for name, shape, perm in transposes:
        yield single(f"transpose/{name}", "Transpose", [In(shape)], {} if perm is None else dict(perm=perm))
    yield single("transpose/int64", "Transpose", [In((2, 3, 4), I64)], dict(perm=[2, 0, 1]))

    for name, shape, axes in [("front", (2, 3), [0]), ("back_negative", (2, 3), [-1]), ("two", (2, 3), [1, 3]),
                              ("unsorted", (2, 3), [3, 1]), ("mixed_negative", (2, 3), [-1, 0]),
                              ("scalar", (), [0])]:
        yield single(f"unsqueeze/opset13_{name}", "Unsqueeze", [In(shape), i64(*axes)], opset=13)
    yield single("unsqueeze/opset11_attr", "Unsqueeze", [In((2, 3))], dict(axes=[0, 2]), opset=11)
    yield single("unsqueeze/opset11_attr_negative", "Unsqueeze", [In((2, 3))], dict(axes=[-1]), opset=11)
    for name, shape, axes in [("one", (2, 1, 3), [1]), ("negative", (2, 3, 1), [-1]), ("two", (1, 3, 1, 4), [0, 2]),
                              ("to_scalar", (1, 1), [0, 1]), ("no_axes", (1, 3, 1, 4, 1), None)]:
        args = [In(shape)] + ([] if axes is None else [i64(*axes)])
        yield single(f"squeeze/opset13_{name}", "Squeeze", args, opset=13)
    yield single("squeeze/opset11_attr", "Squeeze", [In((1, 3, 1, 4))], dict(axes=[0, -2]), opset=11)
    yield single("squeeze/opset11_no_axes", "Squeeze", [In((1, 3, 1))], opset=11)

    expands = [("rank_up", (3, 1), i64(2, 3, 4)), ("shape_has_ones", (1, 4), i64(3, 1)),
               ("1d_to_3d", (4,), i64(2, 1, 4)), ("scalar", (), i64(2, 3)),
               ("shape_smaller_than_input", (2, 3), i64(1, 1)), ("both_broadcast", (3, 1, 5), i64(2, 1, 4, 1))]
    for name, shape, target in expands:
        yield single(f"expand/{name}", "Expand", [In(shape), target])
    yield single("expand/int64", "Expand", [In((1, 3), I64), i64(4, 3)])


def shape_op_cases():
    """Shape (opset 15 start/end), ConstantOfShape, shape subgraphs on inputs and as outputs."""
    x = In((2, 3, 4, 5))
    yield single("shape/plain", "Shape", [x])
    yield single("shape/1d", "Shape", [In((7,))])
    yield single("shape/opset13", "Shape", [x], opset=13)
    for name, attrs in [("start1", dict(start=1)), ("end_minus1", dict(end=-1)), ("start_minus2", dict(start=-2)),
                        ("start1_end3", dict(start=1, end=3)), ("end_large", dict(start=2, end=100))]:
        yield single(f"shape/opset15_{name}", "Shape", [x], attrs, opset=15)

    def const_of_shape(value):
        return {} if value is None else dict(value=numpy_helper.from_array(value))

    for name, value in [("default_float_zero", None), ("float", f32(1.5)), ("int64", i64(7)),
                        ("int32", np.array([-3], dtype=I32))]:
        yield graph(f"constantofshape/{name}", [node("ConstantOfShape", ["s"], ["c"], **const_of_shape(value)),
                                                node("Identity", ["x"], ["y"])],
                    {"x": In((2,))}, ["c", "y"], dict(s=i64(2, 3)))
    yield graph("constantofshape/from_shape_of_input", [
        node("Shape", ["x"], ["s"]), node("ConstantOfShape", ["s"], ["c"], value=numpy_helper.from_array(f32(2.5))),
        node("Add", ["x", "c"], ["y"])], {"x": In((2, 3, 4))}, ["c", "y", "s"])
    yield graph("shape/reshape_from_input_shape", [
        node("Shape", ["x"], ["s"]), node("Slice", ["s", "zero", "one"], ["n"]),
        node("Concat", ["n", "minus1"], ["target"], axis=0), node("Reshape", ["y", "target"], ["out"])],
        {"x": In((3, 5)), "y": In((3, 2, 4))}, ["out", "target"],
        dict(zero=i64(0), one=i64(1), minus1=i64(-1)))
    yield graph("shape/expand_to_shape_of_input", [node("Shape", ["x"], ["s"]), node("Expand", ["b", "s"], ["y"])],
                {"x": In((2, 3, 4)), "b": In((3, 1))}, ["y"])
    yield graph("shape/gather_dim_scale", [
        node("Shape", ["x"], ["s"]), node("Gather", ["s", "idx"], ["d"], axis=0),
        node("Cast", ["d"], ["df"], to=onnx.TensorProto.FLOAT), node("Sqrt", ["df"], ["r"]),
        node("Div", ["x", "r"], ["y"])], {"x": In((2, 3, 16))}, ["y", "d"], dict(idx=scalar(-1, I64)))
    yield graph("shape/of_intermediate", [
        node("Transpose", ["x"], ["t"], perm=[2, 0, 1]), node("Shape", ["t"], ["s"]),
        node("ConstantOfShape", ["s"], ["ones"], value=numpy_helper.from_array(f32(1.0))),
        node("Mul", ["t", "ones"], ["y"])], {"x": In((2, 3, 4))}, ["s", "y"])
    yield graph("shape/bert_position_ids", [
        node("Shape", ["ids"], ["s"]), node("Gather", ["s", "one"], ["seq"], axis=0),
        node("Unsqueeze", ["seq", "zero"], ["seq1"]), node("Slice", ["pos", "zero", "seq1", "axis1"], ["p"]),
        node("Gather", ["table", "p"], ["pe"], axis=0), node("Gather", ["table", "ids"], ["we"], axis=0),
        node("Add", ["we", "pe"], ["y"])],
        {"ids": In((1, 6), I64, gen=indices(16, negative=False))}, ["y"],
        dict(one=scalar(1, I64), zero=i64(0), axis1=i64(1), pos=np.arange(16, dtype=I64).reshape(1, 16),
             table=np.random.default_rng(7).standard_normal((16, 4))))


def slice_split_cases():
    """Slice (opset 9 attributes vs opset 13 inputs) and Split (opsets 11, 13, 18)."""
    x = In((6, 7))
    slices = [
        ("basic_axis0", [i64(1), i64(4), i64(0)]),
        ("negative_starts_ends", [i64(-3), i64(-1), i64(1)]),
        ("reverse_all", [i64(-1), i64(INT64_MIN), i64(1), i64(-1)]),
        ("reverse_step2", [i64(5), i64(0), i64(0), i64(-2)]),
        ("step2", [i64(0), i64(7), i64(1), i64(2)]),
        ("step3_negative_start", [i64(-6), i64(6), i64(1), i64(3)]),
        ("axes_omitted", [i64(1, 2), i64(5, 6)]),
        ("steps_omitted", [i64(2), i64(6), i64(-1)]),
        ("ends_int64_max", [i64(2), i64(INT64_MAX), i64(0)]),
        ("ends_clamped", [i64(-100), i64(100), i64(1)]),
        ("negative_axis", [i64(1), i64(-1), i64(-1)]),
        ("two_axes_unsorted", [i64(1, 0), i64(6, 5), i64(1, 0), i64(2, 1)]),
    ]
    for name, args in slices:
        yield single(f"slice/opset13_{name}", "Slice", [x] + args, opset=13)
    yield single("slice/opset13_4d_channels", "Slice", [In((1, 8, 3, 3)), i64(2), i64(6), i64(1)], opset=13)
    yield single("slice/opset13_3d_reverse_last", "Slice",
                 [In((2, 3, 5)), i64(-1, 2), i64(INT64_MIN, 0), i64(-1, 1), i64(-1, -1)], opset=13)
    yield single("slice/opset13_int64_data", "Slice", [In((10,), I64), i64(1), i64(9), i64(0), i64(3)], opset=13)
    yield single("slice/opset13_runtime_data_constant_params_on_shape", "Slice",
                 [In((3, 4, 5)), i64(0, 1), i64(2, -1)], opset=13)
    for name, attrs in [("axes", dict(starts=[1], ends=[4], axes=[1])),
                        ("axes_omitted", dict(starts=[1, 0], ends=[5, 3])),
                        ("negative_and_int64_max", dict(starts=[-4], ends=[INT64_MAX], axes=[0]))]:
        yield single(f"slice/opset9_attr_{name}", "Slice", [x], attrs, opset=9)
    # ONNX shape inference leaves the shape open for unsorted axes at opset 9.
    yield single("slice/opset9_attr_two_axes_unsorted", "Slice", [x], dict(starts=[0, 2], ends=[-1, 6], axes=[1, 0]),
                 opset=9, output_types={"out0": (F32, (4, 6))})

    y = In((6, 9))
    yield single("split/opset13_equal_3", "Split", [y], dict(axis=0), opset=13, outputs=3)
    yield single("split/opset13_equal_axis1", "Split", [y], dict(axis=1), opset=13, outputs=3)
    yield single("split/opset13_sizes", "Split", [y, i64(2, 3, 1)], dict(axis=0), opset=13, outputs=3)
    yield single("split/opset13_sizes_negative_axis", "Split", [y, i64(1, 8)], dict(axis=-1), opset=13, outputs=2)
    yield single("split/opset13_4d_channels", "Split", [In((1, 6, 2, 2)), i64(4, 2)], dict(axis=1), opset=13,
                 outputs=2)
    yield single("split/opset11_attr_sizes", "Split", [y], dict(axis=1, split=[2, 4, 3]), opset=11, outputs=3)
    yield single("split/opset11_equal", "Split", [y], dict(axis=0), opset=11, outputs=2)
    yield single("split/opset18_num_outputs_even", "Split", [y], dict(axis=1, num_outputs=3), opset=18, outputs=3)
    yield single("split/opset18_num_outputs_uneven", "Split", [In((7, 2))], dict(axis=0, num_outputs=3), opset=18,
                 outputs=3)
    yield single("split/opset18_sizes_input", "Split", [y, i64(1, 2, 6)], dict(axis=-1), opset=18, outputs=3)
    yield single("split/int64", "Split", [In((4, 3), I64), i64(1, 3)], dict(axis=0), opset=13, outputs=2)


def pad_cases():
    """Pad: attributes at opset 10, inputs at opsets 11/13, axes input at opset 18; all modes."""
    x = In((2, 3, 4))
    for mode in ("constant", "reflect", "edge"):
        attrs = dict(mode=mode, pads=[0, 1, 2, 1, 0, 1])
        if mode == "constant":
            attrs["value"] = 1.5
        yield single(f"pad/opset10_attr_{mode}", "Pad", [x], attrs, opset=10)
        yield single(f"pad/opset13_{mode}", "Pad", [x, i64(1, 0, 2, 0, 1, 1)], dict(mode=mode), opset=13)
    yield single("pad/opset11_constant_value", "Pad", [x, i64(0, 0, 1, 0, 0, 2), scalar(-2.0)], opset=11)
    yield single("pad/opset13_default_zero", "Pad", [In((1, 3, 5, 5)), i64(0, 0, 1, 1, 0, 0, 1, 1)], opset=13)
    yield single("pad/opset13_negative_crops", "Pad", [x, i64(0, -1, 1, 0, 0, -2)], opset=13)
    yield single("pad/opset13_int64", "Pad", [In((3, 4), I64), i64(1, 0, 0, 2), scalar(7, I64)], opset=13)
    yield single("pad/opset18_axes", "Pad", [x, i64(1, 2, 0, 1), scalar(0.5), i64(-1, 1)], opset=18)
    yield single("pad/opset18_axes_reflect", "Pad", [In((1, 2, 5, 6)), i64(2, 1, 2, 1), None, i64(2, 3)],
                 dict(mode="reflect"), opset=18)


def cast_where_equal_cases():
    """Cast between f32/i64/i32/bool, CastLike, Mean, Where with broadcasting, Equal."""
    T = onnx.TensorProto
    casts = [
        ("f32_to_i64", In((3, 5), gen=scaled(50)), T.INT64),
        ("i64_to_f32", In((3, 5), I64, gen=lambda r, s: r.integers(-10**6, 10**6, s)), T.FLOAT),
        ("f32_to_bool", In((4, 4), gen=coarse), T.BOOL),
        ("bool_to_f32", In((4, 4), BOOL), T.FLOAT),
        ("i64_to_bool", In((4, 4), I64, gen=coarse), T.BOOL),
        ("bool_to_i64", In((4, 4), BOOL), T.INT64),
        ("f32_to_i32", In((2, 3, 4), gen=scaled(1000)), T.INT32),
        ("i32_to_f32", In((2, 3, 4), I32), T.FLOAT),
        ("i64_to_i32", In((5,), I64), T.INT32),
        ("i32_to_i64", In((5,), I32), T.INT64),
        ("f32_to_f32", In((5,)), T.FLOAT),
        ("f32_to_f16", In((3, 7), gen=scaled(100)), T.FLOAT16),
        ("f16_to_f32", In((3, 7), np.float16, gen=scaled(100)), T.FLOAT),
        ("f64_to_f16", In((3, 7), np.float64, gen=scaled(10)), T.FLOAT16),
        ("f16_to_i64", In((3, 7), np.float16, gen=scaled(100)), T.INT64),
        ("u8_to_f16", In((9,), np.uint8, gen=lambda r, s: r.integers(0, 256, s)), T.FLOAT16),
        ("i16_to_u32", In((9,), np.int16, gen=lambda r, s: r.integers(-3000, 3000, s)), T.UINT32),
        ("u64_to_f64", In((9,), np.uint64, gen=lambda r, s: r.integers(0, 2**62, s, dtype=np.uint64)), T.DOUBLE),
    ]
    for name, x, to in casts:
        yield single(f"cast/{name}", "Cast", [x], dict(to=to))
    # bf16 has no numpy type: round trips through it, ORT as the reference
    # of the rounding (to nearest even, nan kept).
    yield graph("cast/f32_bf16_f32_round_trip", [node("Cast", ["x"], ["b"], to=T.BFLOAT16),
                                                 node("Cast", ["b"], ["y"], to=T.FLOAT)],
                {"x": In((4, 9), gen=scaled(1000))}, ["y"])
    yield graph("cast/i32_bf16_f32", [node("Cast", ["x"], ["b"], to=T.BFLOAT16), node("Cast", ["b"], ["y"], to=T.FLOAT)],
                {"x": In((4, 9), I32, gen=lambda r, s: r.integers(-70000, 70000, s))}, ["y"])

    # CastLike: the second input gives only the type (a run-time one too).
    yield single("castlike/f32_like_i64", "CastLike", [In((3, 5), gen=scaled(50)), In((2,), I64)], opset=15)
    yield single("castlike/i32_like_f16", "CastLike", [In((4, 3), I32), np.zeros((1,), np.float16)], opset=15)
    yield single("castlike/f64_like_f32", "CastLike", [In((6,), np.float64), In((), F32)], opset=19)
    # Mean: the broadcast sum of its inputs over their count.
    yield single("mean/one_input", "Mean", [In((3, 4))])
    yield single("mean/two_broadcast", "Mean", [In((2, 3, 4)), In((3, 1))])
    yield single("mean/three", "Mean", [In((5,)), In((5,)), In((1,))])
    yield single("mean/four_with_constant", "Mean", [In((2, 6)), In((6,)), np.array([[0.5], [-1.5]], F32), In((2, 6))], opset=8)

    wheres = [("same_shape", (3, 4), (3, 4), (3, 4)), ("broadcast_all", (3, 1), (1, 4), ()),
              ("cond_1d", (4,), (2, 3, 4), (3, 1)), ("cond_scalar", (), (2, 3), (2, 3))]
    for name, c, a, b in wheres:
        yield single(f"where/{name}", "Where", [In(c, BOOL), In(a), In(b)])
    yield single("where/int64", "Where", [In((2, 5), BOOL), In((2, 5), I64), In((5,), I64)])
    yield single("where/constant_branches", "Where", [In((3, 4), BOOL), scalar(-10000.0), scalar(0.0)])

    yield single("equal/f32", "Equal", [In((3, 4), gen=coarse), In((3, 4), gen=coarse)])
    yield single("equal/f32_broadcast_scalar", "Equal", [In((2, 3, 4), gen=coarse), scalar(1.0)])
    yield single("equal/i64_broadcast", "Equal", [In((2, 3, 4), I64, gen=coarse), In((3, 1), I64, gen=coarse)])
    yield single("equal/bool", "Equal", [In((4, 5), BOOL), In((5,), BOOL)])
    yield graph("equal/mask_where", [node("Equal", ["ids", "pad"], ["is_pad"]),
                                     node("Where", ["is_pad", "neg", "x"], ["y"])],
                {"ids": In((2, 6), I64, gen=lambda r, s: r.integers(0, 3, s)), "x": In((2, 6))}, ["y", "is_pad"],
                dict(pad=scalar(0, I64), neg=scalar(-10000.0)))


def reduce_dropout_cases():
    """ReduceMean (axes attribute at opset 13, input at 18, noop_with_empty_axes), every other
    reduction, and Dropout."""
    x = In((2, 3, 4))
    for name, attrs in [("axis1_keep", dict(axes=[1])), ("axis1_nokeep", dict(axes=[1], keepdims=0)),
                        ("axes_0_2", dict(axes=[0, 2])), ("negative_nokeep", dict(axes=[-1], keepdims=0)),
                        ("all_keep", {}), ("all_nokeep", dict(keepdims=0))]:
        yield single(f"reducemean/opset13_{name}", "ReduceMean", [x], attrs, opset=13)
    yield single("reducemean/opset13_spatial_4d", "ReduceMean", [In((1, 8, 5, 7))], dict(axes=[-1, -2]), opset=13)
    for name, args, attrs in [("axis1_keep", [i64(1)], {}), ("negative_nokeep", [i64(-1)], dict(keepdims=0)),
                              ("axes_0_2", [i64(0, 2)], {}), ("no_axes_reduce_all", [], {}),
                              ("no_axes_reduce_all_nokeep", [], dict(keepdims=0)),
                              ("no_axes_noop", [], dict(noop_with_empty_axes=1)),
                              ("empty_axes_noop", [np.zeros(0, I64)], dict(noop_with_empty_axes=1)),
                              ("axes_with_noop_flag", [i64(1)], dict(noop_with_empty_axes=1))]:
        yield single(f"reducemean/opset18_{name}", "ReduceMean", [x] + args, attrs, opset=18)
    yield single("reducemean/opset11_negative", "ReduceMean", [In((3, 5))], dict(axes=[-2]), opset=11)
    # Every reduction on the kernel's scalar path and on its vector path (the
    # kept innermost dim contiguous and a multiple of 16, as in a global pool
    # over blocked channels).
    for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2"):
        for name, shape in (("kept_inner_32", (3, 5, 4, 32)), ("kept_strided", (2, 3, 4))):
            yield single(f"{op.lower()}/opset18_axes_0_2_{name}", op, [In(shape), i64(0, 2)], opset=18)

    d = In((3, 4, 5))
    yield single("dropout/opset7_ratio_attr", "Dropout", [d], dict(ratio=0.5), opset=7)
    yield single("dropout/opset10", "Dropout", [d], dict(ratio=0.2), opset=10)
    yield single("dropout/opset12_no_ratio", "Dropout", [d], opset=12)
    yield single("dropout/opset12_ratio_input", "Dropout", [d, scalar(0.3)], opset=12)
    yield single("dropout/opset13_ratio_training_false", "Dropout", [d, scalar(0.1), scalar(False, BOOL)], opset=13)
    yield graph("dropout/between_ops", [node("MatMul", ["x", "w"], ["h"]), node("Dropout", ["h"], ["hd"]),
                                        node("Relu", ["hd"], ["y"])],
                {"x": In((2, 6))}, ["y"], dict(w=np.random.default_rng(8).standard_normal((6, 3))))


def constant_identity_cases():
    """Constant (every value attribute) and Identity."""
    rng = np.random.default_rng(9)
    yield graph("constant/value_tensor", [node("Constant", [], ["c"], value=numpy_helper.from_array(
        rng.standard_normal((2, 3)).astype(F32))), node("Add", ["x", "c"], ["y"])], {"x": In((2, 3))}, ["y"])
    yield graph("constant/value_scalar_tensor", [
        node("Constant", [], ["c"], value=numpy_helper.from_array(scalar(2.5))), node("Mul", ["x", "c"], ["y"])],
        {"x": In((4,))}, ["y"])
    yield graph("constant/value_float", [node("Constant", [], ["c"], value_float=-0.75),
                                         node("Mul", ["x", "c"], ["y"])], {"x": In((2, 3))}, ["y"])
    yield graph("constant/value_floats", [node("Constant", [], ["c"], value_floats=[1.0, -2.0, 0.5]),
                                          node("Add", ["x", "c"], ["y"])], {"x": In((2, 3))}, ["y"])
    yield graph("constant/value_int_output", [node("Constant", [], ["c"], value_int=42),
                                              node("Add", ["x", "c"], ["y"])], {"x": In((3,), I64)}, ["y", "c"])
    yield graph("constant/value_ints_as_shape", [node("Constant", [], ["s"], value_ints=[3, -1]),
                                                 node("Reshape", ["x", "s"], ["y"])], {"x": In((2, 3, 2))}, ["y", "s"])
    yield graph("constant/value_int64_tensor_as_axes", [
        node("Constant", [], ["axes"], value=numpy_helper.from_array(i64(0, 2))),
        node("Unsqueeze", ["x", "axes"], ["y"])], {"x": In((2, 3))}, ["y"])
    yield graph("constant/only_output", [node("Constant", [], ["c"], value=numpy_helper.from_array(
        np.arange(6, dtype=F32).reshape(2, 3))), node("Relu", ["x"], ["y"])], {"x": In((2,))}, ["c", "y"])

    yield single("identity/f32", "Identity", [In((2, 3, 4))])
    yield single("identity/int64", "Identity", [In((5,), I64)])
    yield single("identity/of_initializer", "Identity", [rng.standard_normal((3, 2))])
    yield graph("identity/chain", [node("Identity", ["x"], ["a"]), node("Relu", ["a"], ["b"]),
                                   node("Identity", ["b"], ["y"])], {"x": In((4, 4))}, ["y", "a"])


def sparse(rng, shape):
    """About half zeros, -0.0 among them, so that NonZero's count varies with the data."""
    values = rng.integers(-2, 3, shape).astype(np.float64)
    values[values == 0] = np.where(rng.random((values == 0).sum()) < 0.5, 0.0, -0.0)
    return values


def topk_cases():
    """TopK: values and i64 indices along any axis, largest and smallest, ties by the
    smaller index (coarse integers make many), every element type the kernel has; k a
    constant, the whole axis, the opset-1 attribute, or a shape computation."""
    ties = lambda rng, shape: rng.integers(-3, 4, shape)  # noqa: E731
    for name, x, k, attrs in [("f32_last_axis", In((3, 11)), 4, {}),
                              ("f32_axis0_smallest", In((9, 2, 3)), 3, dict(axis=0, largest=0)),
                              ("f32_middle_axis_ties", In((2, 7, 5), gen=ties), 5, dict(axis=1)),
                              ("f32_smallest_ties", In((4, 13), gen=ties), 6, dict(largest=0)),
                              ("f32_whole_axis", In((2, 6)), 6, dict(axis=-1)),
                              ("f32_k1", In((5, 40)), 1, {}),
                              ("f32_long_axis", In((2, 300)), 17, {}),
                              ("f64", In((3, 8), np.float64), 3, {}),
                              ("i64_ties", In((3, 10), I64, gen=ties), 4, dict(largest=0)),
                              ("i32", In((2, 9), I32), 2, dict(axis=1)),
                              ("u8", In((12,), np.uint8, gen=lambda rng, shape: rng.integers(0, 255, shape)), 5, {}),
                              ("i8", In((6, 3), np.int8), 2, dict(axis=0))]:
        yield single(f"topk/{name}", "TopK", [x, i64(k)], attrs, outputs=2, opset=11)
    yield single("topk/opset1_attribute", "TopK", [In((3, 6))], dict(k=2), outputs=2, opset=1)
    # k from the input's shape: min(4, axis length), as exporters write it.
    yield graph("topk/k_from_shape", [
        node("Shape", ["x"], ["s"]), node("Gather", ["s", "last"], ["n"], axis=0),
        node("Min", ["n", "four"], ["k"]), node("TopK", ["x", "k"], ["v", "i"])],
        {"x": In((2, 3))}, ["v", "i"], dict(last=i64(1), four=i64(4)), opset=13)


def cumsum_cases():
    """CumSum along every axis of a 3-D input, inclusive/exclusive, forward/reverse, each
    element type ORT has, an axis given as i32, and a constant input that folds."""
    for axis in (0, 1, -1):
        for exclusive in (0, 1):
            for reverse in (0, 1):
                yield single(f"cumsum/axis{axis}_exclusive{exclusive}_reverse{reverse}", "CumSum",
                             [In((3, 4, 5)), i64(axis)], dict(exclusive=exclusive, reverse=reverse), opset=14)
    for name, x in [("f64", In((2, 7), np.float64)), ("i64", In((2, 7), I64)), ("i32", In((9,), I32)),
                    ("long_axis", In((1, 1000), gen=uniform(0, 1)))]:
        yield single(f"cumsum/{name}", "CumSum", [x, i64(-1)], opset=14)
    yield single("cumsum/i32_axis", "CumSum", [In((4, 3)), np.array(0, I32)], dict(reverse=1), opset=14)
    yield graph("cumsum/of_a_constant_folds", [node("CumSum", ["c", "axis"], ["s"], exclusive=1),
                                               node("Add", ["x", "s"], ["y"])],
                {"x": In((2, 3))}, ["y"], dict(c=np.arange(6, dtype=F32).reshape(2, 3), axis=i64(1)), opset=14)


def hardmax_cases():
    """Hardmax: every axis at opset 13, ties (the first wins), and the opset-11 form
    over the input flattened at the axis."""
    ties = lambda rng, shape: rng.integers(0, 3, shape).astype(np.float64)  # noqa: E731
    for axis in (0, 1, -1):
        yield single(f"hardmax/axis{axis}", "Hardmax", [In((3, 4, 5))], dict(axis=axis), opset=13)
    yield single("hardmax/ties", "Hardmax", [In((4, 6), gen=ties)], opset=13)
    for axis in (0, 1, 2):
        yield single(f"hardmax/opset11_axis{axis}", "Hardmax", [In((2, 3, 4), gen=ties)], dict(axis=axis), opset=11)


def float_class_cases():
    """IsNaN, IsInf (each detect mode) and Not, on values with NaN and both infinities."""
    specials = lambda rng, shape: rng.choice(  # noqa: E731
        np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 3e38]), shape)
    for dtype, tag in [(F32, "f32"), (np.float64, "f64")]:
        yield single(f"isnan/{tag}", "IsNaN", [In((4, 6), dtype, gen=specials)])
        for name, attrs in [("both", {}), ("positive", dict(detect_negative=0)),
                            ("negative", dict(detect_positive=0)),
                            ("neither", dict(detect_negative=0, detect_positive=0))]:
            yield single(f"isinf/{tag}_{name}", "IsInf", [In((3, 8), dtype, gen=specials)], attrs)
    yield single("not/3d", "Not", [In((2, 3, 5), BOOL)])
    yield graph("not/of_a_comparison", [node("Greater", ["x", "y"], ["g"]), node("Not", ["g"], ["n"])],
                {"x": In((4, 5)), "y": In((1, 5))}, ["n"])


def range_tile_cases():
    """Range (constant bounds of every type, an empty range, negative steps, and the
    position-ids pattern: arange over a length from Shape) and Tile (every rank to 6,
    repeats of 0 and 1, bool and integer data, repeats from a shape computation)."""
    for name, dtype, (start, limit, delta) in [("i64", I64, (0, 10, 3)), ("i32_negative_delta", I32, (10, -4, -3)),
                                              ("i16", np.int16, (-5, 5, 2)), ("f32", F32, (0.5, 3.9, 0.25)),
                                              ("f64_negative", np.float64, (1.0, -2.0, -0.3)),
                                              ("i64_empty", I64, (5, 5, 1)), ("f32_empty", F32, (2.0, 1.0, 0.5))]:
        consts = {k: np.array(v, dtype) for k, v in zip(("start", "limit", "delta"), (start, limit, delta))}
        yield graph(f"range/{name}", [node("Range", ["start", "limit", "delta"], ["r"]),
                                      node("Cast", ["r"], ["rf"], to=onnx.TensorProto.FLOAT),
                                      node("Add", ["x", "rf"], ["y"])],
                    {"x": In((1,))}, ["y", "r"], consts, opset=11)
    # position ids: arange(seq) from x's shape, unsqueezed and added.
    yield graph("range/position_ids_from_shape", [
        node("Shape", ["x"], ["s"]), node("Gather", ["s", "one"], ["n"], axis=0),
        node("Range", ["zero", "n", "step"], ["pos"]), node("Unsqueeze", ["pos", "axis0"], ["pos2"]),
        node("Cast", ["pos2"], ["posf"], to=onnx.TensorProto.FLOAT), node("Add", ["x", "posf"], ["y"])],
        {"x": In((2, 7))}, ["y", "pos2"], dict(one=scalar(1, I64), zero=scalar(0, I64), step=scalar(1, I64),
                                                axis0=i64(0)), opset=13)
    for name, x, reps in [("1d", In((5,)), (3,)), ("2d", In((2, 3)), (2, 4)), ("4d_all_repeated", In((2, 3, 2, 2)), (2, 2, 3, 2)),
                          ("6d", In((1, 2, 1, 2, 1, 3)), (2, 1, 3, 1, 2, 2)), ("zero_repeats", In((3, 2)), (0, 2)),
                          ("ones", In((3, 4)), (1, 1)), ("bool", In((2, 3), BOOL), (2, 2)),
                          ("i64", In((3,), I64), (4,)), ("f16", In((2, 2), np.float16), (3, 1))]:
        yield single(f"tile/{name}", "Tile", [x, i64(*reps)])
    yield graph("tile/repeats_from_shape", [
        node("Shape", ["x"], ["s"]), node("Tile", ["x", "s"], ["y"])], {"x": In((2, 3))}, ["y"])


def data_dependent_cases():
    """NonZero, Compress, Unique and NonMaxSuppression: an extent computed from data at run time, bounded by the
    input's size; the cases check the extent itself (the output's shape) and the ops downstream that
    read it."""
    for name, spec in [("f32_2d", In((3, 5), gen=sparse)), ("f32_1d", In((9,), gen=sparse)),
                       ("f16_3d", In((2, 3, 4), np.float16, gen=sparse)),
                       ("i64_3d", In((2, 3, 4), I64, gen=coarse)), ("i32_2d", In((4, 4), I32, gen=coarse)),
                       ("u8_1d", In((11,), np.uint8, gen=lambda rng, shape: rng.integers(0, 3, shape))), ("bool_2d", In((3, 7), BOOL)),
                       ("rank6", In((2, 1, 3, 1, 2, 2), gen=sparse)),
                       ("all_zero", In((2, 5), gen=lambda rng, shape: np.zeros(shape))),
                       ("all_nonzero", In((2, 5), gen=nonzero))]:
        yield single(f"nonzero/{name}", "NonZero", [spec])
    yield single("nonzero/nan_is_nonzero", "NonZero",
                 [In((6,), gen=lambda rng, shape: np.array([0.0, np.nan, -0.0, 1.0, np.nan, 0.0]))])
    # The masked-select pattern exporters write: the coordinates transposed,
    # the values gathered by them, the count read back as a shape.
    yield graph("nonzero/masked_select", [
        node("Greater", ["x", "zero"], ["mask"]), node("NonZero", ["mask"], ["nz"]),
        node("Squeeze", ["nz", "axis0"], ["idx"]), node("Gather", ["x", "idx"], ["picked"], axis=0),
        node("Shape", ["nz"], ["extent"]), node("ReduceSum", ["picked"], ["total"], keepdims=0)],
        {"x": In((12,))}, ["picked", "extent", "total"], dict(zero=scalar(0.0), axis0=i64(0)))
    yield graph("nonzero/transposed_coordinates", [
        node("NonZero", ["x"], ["nz"]), node("Transpose", ["nz"], ["t"], perm=[1, 0]),
        node("Cast", ["t"], ["tf"], to=onnx.TensorProto.FLOAT),
        node("ReduceMax", ["tf"], ["last"], axes=[0], keepdims=1), node("Mul", ["tf", "two"], ["scaled"])],
        {"x": In((3, 4), gen=sparse)}, ["t", "last", "scaled"], dict(two=scalar(2.0)), opset=13)
    for name, x, cond, attrs in [("axis0", In((5, 3)), In((5,), BOOL), dict(axis=0)),
                                 ("axis1_short_condition", In((2, 6)), In((4,), BOOL), dict(axis=1)),
                                 ("negative_axis_i64", In((2, 3, 4), I64), In((4,), BOOL), dict(axis=-1)),
                                 ("flattened", In((3, 4)), In((12,), BOOL), {}),
                                 ("flattened_short_condition", In((3, 4)), In((5,), BOOL), {}),
                                 ("constant_condition", In((4, 3)), np.array([True, False, False, True]),
                                  dict(axis=0))]:
        yield single(f"compress/{name}", "Compress", [x, cond], attrs)
    yield graph("compress/none_selected", [node("Compress", ["x", "cond"], ["y"], axis=1),
                                           node("Shape", ["y"], ["s"])],
                {"x": In((2, 3)), "cond": In((3,), BOOL, gen=lambda rng, shape: np.zeros(shape))}, ["y", "s"])
    # Unique: every result, or Y alone (canonicalize adds the results its
    # kernel works in); coarse values make many repeats.
    ties = lambda rng, shape: rng.integers(-3, 4, shape)  # noqa: E731
    for name, x, attrs, outputs in [("f32_flat_sorted", In((4, 5), gen=ties), {}, 4),
                                    ("f32_flat_unsorted", In((23,), gen=ties), dict(sorted=0), 4),
                                    ("y_only", In((3, 7), gen=ties), {}, 1),
                                    ("y_and_indices_unsorted", In((15,), I64, gen=ties), dict(sorted=0), 2),
                                    ("rows_axis0", In((6, 2), I64, gen=lambda rng, shape: rng.integers(0, 2, shape)),
                                     dict(axis=0), 4),
                                    ("columns_axis1_unsorted", In((2, 7), gen=lambda rng, shape: rng.integers(0, 2, shape)),
                                     dict(axis=1, sorted=0), 4),
                                    ("negative_axis_3d", In((2, 5, 2), I64, gen=lambda rng, shape: rng.integers(0, 2, shape)),
                                     dict(axis=-2), 4),
                                    ("i8", In((30,), np.int8, gen=lambda rng, shape: rng.integers(-3, 3, shape)), {}, 4),
                                    ("f64_distinct", In((9,), np.float64), {}, 4),
                                    ("i8_single_value", In((5,), np.int8, gen=lambda rng, shape: np.full(shape, 3)), {}, 4)]:
        yield single(f"unique/{name}", "Unique", [x], attrs, outputs=outputs, opset=11)
    yield graph("unique/y_and_counts_of_a_computation", [
        node("Mul", ["x", "two"], ["m"]), node("Unique", ["m"], ["u", "", "", "counts"]),
        node("Shape", ["u"], ["extent"]), node("Cast", ["counts"], ["cf"], to=onnx.TensorProto.FLOAT),
        node("ReduceSum", ["cf"], ["total"], keepdims=0)],
        {"x": In((3, 4), gen=ties)}, ["u", "counts", "extent", "total"], dict(two=scalar(2.0)), opset=11)
    # NonMaxSuppression: random and clustered boxes (clusters suppress most
    # candidates, so a class runs more than one selection round in its small
    # share of the output), tied scores, centre boxes, omitted thresholds and
    # a per-class limit given as data.
    def boxes(rng, shape, clusters=0):
        centres = rng.uniform(0, 10, shape[:-1] + (2,))
        if clusters:
            centres = rng.uniform(0, 10, (clusters, 2))[rng.integers(0, clusters, shape[:-1])]
            centres += rng.normal(0, 0.1, centres.shape)
        sizes = rng.uniform(0.5, 3, shape[:-1] + (2,))
        corners = np.concatenate([centres - sizes / 2, centres + sizes / 2], axis=-1)
        flip = rng.random(shape[:-1]) < 0.3  # corners in either order
        corners[flip] = corners[flip][:, [2, 3, 0, 1]]
        return np.ascontiguousarray(corners[..., [1, 0, 3, 2]])  # [y1, x1, y2, x2]
    clustered = lambda rng, shape: boxes(rng, shape, clusters=3)  # noqa: E731
    tied = lambda rng, shape: rng.integers(0, 4, shape) / 4  # noqa: E731
    centred = lambda rng, shape: np.concatenate(  # noqa: E731
        [rng.uniform(0, 10, shape[:-1] + (2,)), rng.uniform(0.5, 3, shape[:-1] + (2,))], axis=-1)
    for name, b, sc, limit, iou, thr, attrs in [
            ("random", In((1, 60, 4), gen=boxes), In((1, 1, 60)), 10, 0.5, 0.2, {}),
            ("clustered_small_limit", In((2, 80, 4), gen=clustered), In((2, 3, 80)), 2, 0.3, 0.0, {}),
            ("tied_scores", In((1, 40, 4), gen=boxes), In((1, 2, 40), gen=tied), 40, 0.4, None, {}),
            ("centre_boxes", In((1, 30, 4), gen=centred), In((1, 2, 30)), 5, 0.5, 0.1, dict(center_point_box=1)),
            ("no_thresholds", In((1, 25, 4), gen=boxes), In((1, 1, 25)), 25, None, None, {}),
            ("no_limit_keeps_nothing", In((1, 5, 4), gen=boxes), In((1, 1, 5)), None, None, None, {})]:
        args = [b, sc] + [None if v is None else np.array([v], dtype)
                          for v, dtype in [(limit, I64), (iou, F32), (thr, F32)]]
        while args[-1] is None:
            args.pop()
        yield single(f"nms/{name}", "NonMaxSuppression", args, attrs, opset=11)
    # One tight cluster of high scores and two outliers scored last: the
    # class's heap holds 6 of the 52 candidates, so finding the outliers
    # takes nine rounds.
    def cluster_then_outliers(rng, shape):
        b = np.tile([4.0, 4.0, 6.0, 6.0], (52, 1)) + rng.normal(0, 0.05, (52, 4))
        b[50], b[51] = [0, 0, 1, 1], [8, 8, 9, 9]
        return b[None]
    yield single("nms/rounds_to_reach_the_outliers", "NonMaxSuppression",
                 [In((1, 52, 4), gen=cluster_then_outliers),
                  In((1, 1, 52), gen=lambda rng, shape: np.concatenate(
                      [rng.uniform(0.5, 1, 50), [0.1, 0.2]]).reshape(shape)),
                  np.array([3], I64), np.array([0.5], F32)], opset=11)
    yield single("nms/limit_from_data", "NonMaxSuppression",
                 [In((2, 50, 4), gen=clustered), In((2, 2, 50)),
                  In((1,), I64, gen=lambda rng, shape: np.array([3])), np.array([0.5], F32)], opset=11)
    # The detector tail exporters write: the kept box indices gather the boxes.
    yield graph("nms/gather_kept_boxes", [
        node("NonMaxSuppression", ["b", "s", "limit", "iou"], ["sel"]),
        node("Gather", ["sel", "two"], ["idx"], axis=1), node("Squeeze", ["b", "axis0"], ["b2"]),
        node("Gather", ["b2", "idx"], ["kept"], axis=0)],
        {"b": In((1, 40, 4), gen=boxes), "s": In((1, 1, 40))}, ["sel", "kept"],
        dict(limit=np.array([6], I64), iou=np.array([0.4], F32), two=scalar(2, I64), axis0=i64(0)), opset=13)
    yield graph("nonzero/of_a_constant_folds", [
        node("NonZero", ["c"], ["nz"]), node("Cast", ["nz"], ["f"], to=onnx.TensorProto.FLOAT),
        node("ReduceSum", ["f"], ["s"], keepdims=0), node("Add", ["x", "s"], ["y"])],
        {"x": In((2,))}, ["y", "nz"], dict(c=np.array([[0, 3], [1, 0]], dtype=I64)))


def value_range_cases():
    """Integer inputs that are shapes, axes or pads, compiled with --value (fixed) or
    --value-range (each ranged element a symbol, read from the input's data at run
    time, as TensorRT's profiles treat shape tensors); run at OPT (the static path)
    and at other values in range, each compared with ORT. infer.bin refuses data
    outside the range or unequal to a fixed value."""
    rng = np.random.default_rng(12)

    def ranged(name, nodes, inputs, outputs, compile_args, runs, inits=None, opset=17, output_types=None):
        model = make_model(nodes, inputs, outputs, inits, opset, output_types=output_types)
        feeds = []
        for values in runs:
            feed = {n: spec.sample(rng) for n, spec in inputs.items() if n not in values}
            feed.update({n: np.asarray(v, dtype=inputs[n].dtype) for n, v in values.items()})
            feeds.append(feed)
        return SymbolicCase(name, model, feeds, tuple(compile_args))

    shape = In((2,), I64)
    yield ranged("values/expand_ranged_rows", [node("Expand", ["x", "shape"], ["y"])],
                 {"x": In((1, 4)), "shape": shape}, ["y"], ["--value-range", "shape=1,4:3,4:8,4"],
                 [{"shape": [3, 4]}, {"shape": [1, 4]}, {"shape": [8, 4]}, {"shape": [5, 4]}])
    # An Expand whose result feeds a reduction and a binary op at the run's extent.
    yield ranged("values/expand_then_reduce", [
        node("Expand", ["x", "shape"], ["y"]), node("Mul", ["y", "y"], ["sq"]),
        node("ReduceSum", ["sq"], ["total"], axes=[0], keepdims=0)],
        {"x": In((3, 1)), "shape": shape}, ["total", "sq"], ["--value-range", "shape=3,1:3,6:3,17"],
        [{"shape": [3, 6]}, {"shape": [3, 1]}, {"shape": [3, 17]}, {"shape": [3, 11]}], opset=12)
    yield ranged("values/constantofshape_both_ranged",
                 [node("ConstantOfShape", ["shape"], ["y"],
                       value=numpy_helper.from_array(np.array([2.5], F32))),
                  node("Add", ["y", "bias"], ["z"])],
                 {"shape": shape}, ["z"], ["--value-range", "shape=0,1:2,3:5,6"],
                 [{"shape": [2, 3]}, {"shape": [0, 1]}, {"shape": [5, 6]}, {"shape": [4, 2]}],
                 inits=dict(bias=scalar(1.0)))
    yield ranged("values/slice_ranged_bounds", [node("Slice", ["x", "starts", "ends"], ["y"])],
                 {"x": In((10, 3)), "starts": In((1,), I32), "ends": In((1,), I32)}, ["y"],
                 ["--value-range", "starts=0:2:4", "--value-range", "ends=5:7:12"],
                 [{"starts": [2], "ends": [7]}, {"starts": [0], "ends": [12]}, {"starts": [4], "ends": [5]}])
    yield ranged("values/reshape_and_unsqueeze_fixed", [
        node("Reshape", ["x", "shape"], ["r"]), node("Unsqueeze", ["r", "axes"], ["y"])],
        {"x": In((2, 6)), "shape": shape, "axes": In((2,), I64)}, ["y"],
        ["--value", "shape=3,-1", "--value", "axes=0,-1"], [{"shape": [3, -1], "axes": [0, -1]}],
        output_types={"y": (F32, (1, 3, 4, 1))})
    yield ranged("values/topk_runtime_k", [node("TopK", ["x", "k"], ["v", "i"], axis=1)],
                 {"x": In((3, 10)), "k": In((1,), I64)}, ["v", "i"], ["--value-range", "k=0:4:10"],
                 [{"k": [4]}, {"k": [0]}, {"k": [10]}, {"k": [7]}], opset=11)
    yield ranged("values/tile_runtime_repeats", [node("Tile", ["x", "reps"], ["y"])],
                 {"x": In((2, 3)), "reps": In((2,), I64)}, ["y"], ["--value-range", "reps=0,1:2,3:4,5"],
                 [{"reps": [2, 3]}, {"reps": [0, 1]}, {"reps": [4, 5]}, {"reps": [1, 4]}])
    yield ranged("values/range_runtime_limit", [node("Range", ["start", "limit", "delta"], ["r"])],
                 {"start": In((), I64), "limit": In((), I64), "delta": In((), I64)}, ["r"],
                 ["--value", "start=2", "--value-range", "limit=2:9:30", "--value", "delta=3"],
                 [{"start": 2, "limit": 9, "delta": 3}, {"start": 2, "limit": 2, "delta": 3},
                  {"start": 2, "limit": 30, "delta": 3}, {"start": 2, "limit": 12, "delta": 3}], opset=11)
    yield ranged("values/empty_axes_reduce_all", [node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)],
                 {"x": In((3, 4)), "axes": In((0,), I64)}, ["y"], ["--value", "axes="], [{"axes": []}],
                 output_types={"y": (F32, ())})


def model_level_cases():
    """Graph-level features: odd tensor names, shared outputs, small real-world blocks."""
    rng = np.random.default_rng(10)
    yield graph("graph/odd_names_sanitised", [node("Relu", ["input:0"], ["out/relu:0"]),
                                               node("Tanh", ["out/relu:0"], ["out.tanh-1 [x]"])],
                {"input:0": In((2, 3))}, ["out/relu:0", "out.tanh-1 [x]"])
    yield graph("graph/intermediate_also_output", [node("Add", ["x", "y"], ["s"]), node("Tanh", ["s"], ["t"]),
                                                   node("Mul", ["s", "t"], ["z"])],
                {"x": In((3, 4)), "y": In((4,))}, ["z", "s", "t"])
    yield graph("graph/two_inputs_unused_one", [node("Relu", ["x"], ["y"])], {"x": In((3,)), "unused": In((2,))},
                ["y"])
    yield graph("graph/conv_bn_relu_pool_block", [
        node("Conv", ["x", "w1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
        node("BatchNormalization", ["c1", "g", "b", "m", "v"], ["bn"]), node("Relu", ["bn"], ["r"]),
        node("MaxPool", ["r"], ["p"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        node("Conv", ["p", "w2", "b2"], ["c2"], kernel_shape=[1, 1]), node("Add", ["c2", "p"], ["res"]),
        node("Relu", ["res"], ["r2"]), node("GlobalAveragePool", ["r2"], ["gap"]),
        node("Flatten", ["gap"], ["f"]), node("Gemm", ["f", "fc", "fcb"], ["logits"], transB=1),
        node("Softmax", ["logits"], ["probs"], axis=1)],
        {"x": In((1, 3, 32, 32))}, ["probs", "logits"],
        dict(w1=rng.standard_normal((8, 3, 3, 3)) / 5, g=rng.uniform(0.5, 1.5, 8), b=rng.standard_normal(8) * 0.1,
             m=rng.standard_normal(8) * 0.1, v=rng.uniform(0.5, 2, 8), w2=rng.standard_normal((8, 8, 1, 1)) / 3,
             b2=rng.standard_normal(8) * 0.1, fc=rng.standard_normal((10, 8)) / 3, fcb=rng.standard_normal(10)))
    h, heads, seq = 16, 2, 5
    yield graph("graph/attention_block", [
        node("MatMul", ["x", "wq"], ["q0"]), node("Reshape", ["q0", "split_heads"], ["q1"]),
        node("Transpose", ["q1"], ["q"], perm=[0, 2, 1, 3]),
        node("MatMul", ["x", "wk"], ["k0"]), node("Reshape", ["k0", "split_heads"], ["k1"]),
        node("Transpose", ["k1"], ["k"], perm=[0, 2, 3, 1]),
        node("MatMul", ["q", "k"], ["s0"]), node("Div", ["s0", "scale"], ["s1"]),
        node("Unsqueeze", ["mask", "axes12"], ["m0"]), node("Cast", ["m0"], ["m1"], to=onnx.TensorProto.FLOAT),
        node("Sub", ["one", "m1"], ["m2"]), node("Mul", ["m2", "big"], ["m3"]),
        node("Add", ["s1", "m3"], ["s2"]), node("Softmax", ["s2"], ["p"], axis=-1),
        node("MatMul", ["p", "q"], ["c0"]), node("Transpose", ["c0"], ["c1"], perm=[0, 2, 1, 3]),
        node("Reshape", ["c1", "merge_heads"], ["c2"]), node("Add", ["x", "c2"], ["r"]),
        node("LayerNormalization", ["r", "ln_g", "ln_b"], ["y"], epsilon=1e-12)],
        {"x": In((1, seq, h)), "mask": In((1, seq), I64, gen=lambda r, s: (np.arange(s[1]) < 3)[None].astype(I64))},
        ["y"],
        dict(wq=rng.standard_normal((h, h)) / 4, wk=rng.standard_normal((h, h)) / 4,
             split_heads=i64(1, seq, heads, h // heads), merge_heads=i64(1, seq, h), scale=scalar(np.sqrt(h // heads)),
             axes12=i64(1, 2), one=scalar(1.0), big=scalar(-10000.0), ln_g=rng.uniform(0.5, 1.5, h),
             ln_b=rng.standard_normal(h) * 0.1))


def negative_cases():
    """cuvil compile must reject unsupported ops; infer.bin must reject bad inputs."""
    model = make_model([node("Det", ["x"], ["d"], name="det_node"),
                        node("LpNormalization", ["x"], ["h"], name="lpnorm_node")],
                       {"x": In((3, 3))}, ["d", "h"])
    yield Case("unsupported/det_and_lpnormalization", model, {}, kind="compile_error",
               expect=("det_node", "Det", "lpnorm_node", "LpNormalization"))
    domain = "com.example.cuvil_test"
    model = make_model([node("Frobnicate", ["x"], ["a"], name="frob_first", domain=domain),
                        node("Relu", ["a"], ["b"]),
                        node("Defrobnicate", ["b"], ["y"], name="frob_second", domain=domain)],
                       {"x": In((2, 3))}, ["y"], opsets=[(domain, 1)], infer=False,
                       output_types={"y": (F32, (2, 3))})
    yield Case("unsupported/custom_domain_ops", model, {}, kind="compile_error",
               expect=("frob_first", "Frobnicate", "frob_second", "Defrobnicate"))

    pixels = In((1, 3, 4, 4))
    model = make_model([node("Relu", ["pixels"], ["y"])], {"pixels": pixels}, ["y"])
    rng = np.random.default_rng(11)
    good = rng.standard_normal((1, 3, 4, 4)).astype(F32)
    bad = [("wrong_shape", {"pixels": rng.standard_normal((1, 3, 5, 4)).astype(F32)}, (), ("pixels",)),
           ("wrong_rank", {"pixels": rng.standard_normal((3, 4, 4)).astype(F32)}, (), ("pixels",)),
           ("wrong_dtype", {"pixels": good.astype(np.float64)}, (), ("pixels",)),
           ("missing_input", {}, (), ("pixels",)),
           ("unknown_input_name", {"pixels": good, "bogus": good}, (), ("bogus",)),
           ("nonexistent_file", {}, ("--input", "pixels=/nonexistent/cuvil/pixels.npy"), ())]
    for name, feeds, extra, expect in bad:
        yield Case(f"bad_input/{name}", model, feeds, kind="bad_input", extra_args=extra, expect=expect)

    # Data the model checks while it runs: ORT refuses an index outside
    # [-n, n), and so must infer.bin, naming the node and the index.
    model = make_model([node("Gather", ["table", "ids"], ["rows"], name="lookup", axis=0)],
                       {"table": In((5, 3)), "ids": In((4,), I64)}, ["rows"])
    for name, ids in [("gather_index_too_large", [0, 5, 1, 2]), ("gather_index_too_negative", [0, -6, 1, 2])]:
        feeds = {"table": good.reshape(-1)[:15].reshape(5, 3), "ids": np.array(ids, I64)}
        yield Case(f"bad_input/{name}", model, feeds, kind="bad_input",
                   expect=("Gather node 'lookup'", f"index {ids[1]} is out of range"))
    model = make_model([node("GatherElements", ["table", "ids"], ["picked"], name="pick", axis=1)],
                       {"table": In((2, 3)), "ids": In((2, 2), I64)}, ["picked"])
    feeds = {"table": good.reshape(-1)[:6].reshape(2, 3), "ids": np.array([[0, 1], [-4, 2]], I64)}
    yield Case("bad_input/gatherelements_index_out_of_range", model, feeds, kind="bad_input",
               expect=("GatherElements node 'pick'", "index -4 is out of range"))

    # Shape tensors: values outside a --value-range or unequal to a --value.
    model = make_model([node("Expand", ["x", "shape"], ["y"])], {"x": In((1, 4)), "shape": In((2,), I64)},
                       ["y"])
    x = good.reshape(-1)[:4].reshape(1, 4)
    for name, values, args, expect in [
            ("value_outside_range", [9, 4], ("--value-range", "shape=1,4:3,4:8,4"),
             ("input 'shape' element 0 is 9", "outside the range [1, 8]", "shape_value0")),
            ("value_unlike_fixed", [3, 2], ("--value", "shape=3,4"),
             ("input 'shape' element 1 is 2", "compiled for 4"))]:
        yield Case(f"bad_input/{name}", model, {"x": x, "shape": np.array(values, I64)}, kind="bad_input",
                   compile_args=args, expect=expect)
    topk = make_model([node("TopK", ["x", "k"], ["v", "i"], name="best", axis=0)],
                      {"x": In((5,)), "k": In((1,), I64)}, ["v", "i"], opset=11)
    yield Case("bad_input/topk_k_beyond_axis", topk, {"x": good.reshape(-1)[:5], "k": np.array([7], I64)},
               kind="bad_input", compile_args=("--value-range", "k=1:2:8"),
               expect=("TopK node 'best'", "k is 7, but axis 0 has 5 elements"))
    yield Case("unsupported/shape_tensor_without_values", model, {}, kind="compile_error",
               expect=("Expand", "graph input 'shape'", "--value shape=", "--value-range shape="))
    for name, args, expect in [
            ("value_of_float_input", ("--value", "x=1,2,3,4"), ("--value x", "f32[1,4]")),
            ("value_of_unknown_input", ("--value-range", "shap=1,4:3,4:8,4"), ("'shap'", "not an input")),
            ("value_count_differs", ("--value", "shape=3"), ("gives 1 values", "i64[2]")),
            ("value_range_unordered", ("--value-range", "shape=5,4:3,4:8,4"), ("element 0", "MIN <= OPT"))]:
        yield Case(f"bad_option/{name}", model, {}, kind="compile_error", compile_args=args, expect=expect)


# Cases where onnx.reference (onnx 1.19) deviates from the ONNX spec; ORT was
# checked against hand-written numpy for each of them.
_SOFTMAX_OPSET11 = "applies opset-13 Softmax semantics (no coerce-to-2D) at opset 11"
REFERENCE_BUGS = {
    "hardmax/opset11_axis0": "applies opset-13 Hardmax to opset 11 (no flattening at the axis)",
    "hardmax/opset11_axis1": "applies opset-13 Hardmax to opset 11 (no flattening at the axis)",
    "nms/no_thresholds": "fails on NonMaxSuppression with its trailing optional inputs omitted",
    "nms/no_limit_keeps_nothing": "fails on NonMaxSuppression with its trailing optional inputs omitted",
    "unique/columns_axis1_unsorted": "gathers unsorted Unique results along axis 0 whatever the axis",
    "conv/same_upper_stride2": "mis-pads Conv auto_pad=SAME_UPPER with stride 2",
    "conv/valid": "ignores the kernel size in the output shape for Conv auto_pad=VALID",
    "conv/valid_stride2": "ignores the kernel size in the output shape for Conv auto_pad=VALID",
    "batchnorm/4d_opset9": "mixes batch statistics into opset-9 BatchNormalization (momentum read as training)",
    "softmax/opset11_3d_axis1_coerced": _SOFTMAX_OPSET11,
    "softmax/opset11_4d_axis1_coerced": _SOFTMAX_OPSET11,
    "softmax/opset11_4d_axis2_coerced": _SOFTMAX_OPSET11,
    "softmax/opset11_4d_axis0_coerced": _SOFTMAX_OPSET11,
    "softmax/opset11_default_axis_3d": _SOFTMAX_OPSET11,
    "reducemean/opset18_empty_axes_noop": "reduces over all axes for an empty axes tensor with noop_with_empty_axes=1",
    "pad/opset13_negative_crops": "rejects negative pads (numpy.pad cannot crop)",
    "gatherelements/axis1_i32_smaller": "requires indices dims equal to data's off the axis (the spec allows smaller)",
    "gatherelements/axis_minus1_3d": "requires indices dims equal to data's off the axis (the spec allows smaller)",
    "convtranspose/groups": "mishandles ConvTranspose with group > 1 (wrong channel slices)",
    "convtranspose/depthwise": "mishandles ConvTranspose with group > 1 (wrong channel slices)",
}

# --------------------------------------------------------------------------
# Symbolic dims: the static cases with dims of their runtime inputs made symbolic
# --------------------------------------------------------------------------

@dataclasses.dataclass
class SymbolicCase:
    """A comparison case whose model has symbolic input dims: compiled with
    `compile_args` (the --shape-range of each input), run on each of `feeds`."""
    name: str
    model: onnx.ModelProto
    feeds: list
    compile_args: tuple
    atol: float = e2e.DEFAULT_ATOL
    rtol: float = e2e.DEFAULT_RTOL
    kind: str = "symbolic"
    reference_bug: str = ""
    refused: str = ""  # from SYMBOLIC_UNSUPPORTED: compile must fail saying this


# Symbolic variants cuvil refuses at compile time (exit 1, this in the
# message): a convolution kernel whose size is known only at run time, and a
# Squeeze without axes of a dim that may be 1 (the rank would vary).
SYMBOLIC_UNSUPPORTED = {
    "conv/weights_as_input@last": "input channels, kernel and grouped output channels must be static",
    "convtranspose/weights_as_input@last": "must be a static [C, OC/group, kernel...] tensor",
    **{f"squeeze/{case}@{where}": "would be squeezed or kept depending on the input"
       for case in ("opset13_no_axes", "opset11_no_axes") for where in ("first", "last")},
}


def _resized(value, axis, size):
    """value with `size` entries along axis, taken cyclically from its own (so that
    indices, divisors and positive inputs stay what the case made them)."""
    return np.take(value, np.arange(size) % value.shape[axis], axis=axis)


def _symbolic_model(case, marks):
    """case.model with input dims marked {(input, axis): symbol} made symbolic, the
    other types left to shape inference."""
    model = copy.deepcopy(case.model)
    for graph_input in model.graph.input:
        for (name, axis), symbol in marks.items():
            if graph_input.name == name:
                dim = graph_input.type.tensor_type.shape.dim[axis]
                dim.Clear()
                dim.dim_param = symbol
    del model.graph.value_info[:]
    for output in model.graph.output:
        output.type.tensor_type.ClearField("shape")
    try:
        return onnx.shape_inference.infer_shapes(model)
    except Exception:  # noqa: BLE001 (ORT decides below whether the model is valid)
        return model


def symbolic_variants(case):
    """Symbolic versions of a comparison case: its runtime inputs' first dims, and
    separately their last dims, made symbols (one per distinct size, so that dims
    of one size stay equal), each in [1, size + 1] with OPT the case's size, run
    at OPT, MAX and a smaller size.
    A variant is kept when ONNX Runtime runs its model at every one of those
    sizes: the op must then accept any value of the dim."""
    if case.kind != "compare" or not case.feeds:
        return []
    variants = []
    for where in ("first", "last"):
        marks = {}
        for name, value in case.feeds.items():
            if value.ndim >= 1 and (where == "first" or value.ndim >= 2):
                axis = 0 if where == "first" else value.ndim - 1
                marks[(name, axis)] = f"d{value.shape[axis]}"
        if not marks or (where == "last" and all(a == 0 for _, a in marks)):
            continue
        sizes = sorted({int(symbol[1:]) for symbol in marks.values()})
        # Runs: every symbol at OPT (the static path), at MAX, and smaller: at
        # MIN for first dims, at half the size for last ones (a window larger
        # than a spatial dim is where ONNX Runtime departs from the spec: it
        # truncates the negative output size towards 1, the spec floors it).
        runs = [{s: s for s in sizes}, {s: s + 1 for s in sizes}]
        if any(s > 1 for s in sizes):
            runs.append({s: 1 if where == "first" else max(1, s // 2) for s in sizes})
        feeds = []
        for run in runs:
            feed = dict(case.feeds)
            for (name, axis), symbol in marks.items():
                feed[name] = _resized(feed[name], axis, run[int(symbol[1:])])
            feeds.append(feed)
        model = _symbolic_model(case, marks)
        try:
            quiet = ort.SessionOptions()
            quiet.log_severity_level = 4  # the probe's failures are expected, not news
            session = ort.InferenceSession(model.SerializeToString(), quiet,
                                           providers=["CPUExecutionProvider"])
            for feed in feeds:
                session.run(None, feed)
        except Exception:  # noqa: BLE001 (not polymorphic in these dims)
            continue
        args = []
        for name, value in case.feeds.items():
            if not any(marked == name for marked, _ in marks):
                continue  # its shape stays the model's
            bounds = [list(value.shape), list(value.shape), list(value.shape)]
            for (marked, axis), symbol in marks.items():
                if marked == name:
                    size = int(symbol[1:])
                    bounds[0][axis], bounds[2][axis] = 1, size + 1
            args += ["--shape-range", f"{name}=" + ":".join("x".join(map(str, b)) for b in bounds)]
        name = f"{case.name}@{where}"
        variants.append(SymbolicCase(name, model, feeds, tuple(args), case.atol, case.rtol,
                                     refused=SYMBOLIC_UNSUPPORTED.get(name, "")))
    return variants


FAMILIES = [conv_cases, conv_transpose_cases, elementwise_chain_cases, batchnorm_cases, relu_clip_cases, math_function_cases, function_cases,
            pool_cases, elementwise_cases, integer_binary_cases, index_reduction_cases, gemm_matmul_cases,
            softmax_layernorm_cases, gather_concat_cases, shape_manipulation_cases, shape_op_cases,
            slice_split_cases, pad_cases, cast_where_equal_cases, reduce_dropout_cases, constant_identity_cases,
            topk_cases, cumsum_cases, hardmax_cases, float_class_cases, range_tile_cases, data_dependent_cases, value_range_cases,
            model_level_cases, negative_cases]


def all_cases():
    """Every case, in a stable order; names are unique."""
    cases = [case for family in FAMILIES for case in family()]
    names = [c.name for c in cases]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise RuntimeError(f"duplicate case names: {sorted(duplicates)}")
    unknown = set(REFERENCE_BUGS) - set(names)
    if unknown:
        raise RuntimeError(f"REFERENCE_BUGS names unknown cases: {sorted(unknown)}")
    for case in cases:
        case.reference_bug = REFERENCE_BUGS.get(case.name, "")
    return cases


# --------------------------------------------------------------------------
# Running cases
# --------------------------------------------------------------------------

class CuvilBackend:
    """Runs models through `cuvil compile` and the produced executable."""
    self_check = False

    def __init__(self, cuvil, compile_args=()):
        self.cuvil = e2e.cuvil_path(cuvil)
        self.compile_args = list(compile_args)

    def outputs(self, model_path, feeds, workdir, reference_bug=""):
        """Compile and run; outputs keyed by graph output name."""
        exe = os.path.join(workdir, "infer.bin")
        e2e.compile(model_path, exe, self.compile_args, cuvil=self.cuvil)
        return e2e.cuvil_outputs(model_path, exe, feeds, workdir)


class ReferenceBackend:
    """Self-check stand-in for cuvil: the ONNX reference evaluator.

    For cases with a known onnx.reference bug it uses ONNX Runtime with graph
    optimisations disabled instead.
    """
    self_check = True

    def outputs(self, model_path, feeds, workdir, reference_bug=""):
        """Evaluate the model; outputs keyed by graph output name."""
        if reference_bug:
            opts = ort.SessionOptions()
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            session = ort.InferenceSession(model_path, opts, providers=["CPUExecutionProvider"])
            return dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
        model = onnx.load(model_path)
        values = ReferenceEvaluator(model).run(None, feeds)
        return {o.name: np.asarray(v) for o, v in zip(model.graph.output, values)}


def _expect_failure(what, proc, expect):
    """Check a process exited with status 1 and mentioned every expected string."""
    lines = [f"{what} exit status {proc.returncode}; stderr: {proc.stderr.strip()[:2000]!r}"]
    ok = proc.returncode == 1 and proc.stderr.strip() != ""
    missing = [s for s in expect if s not in proc.stderr]
    if missing:
        lines.append(f"stderr does not mention {missing}")
    if proc.returncode != 1:
        lines.append("expected exit status 1")
    return ok and not missing, lines


def run_case(case, backend, workdir):
    """Run one case in workdir; return (ok, report lines)."""
    model_path = os.path.join(workdir, "model.onnx")
    onnx.save(case.model, model_path)
    if case.kind == "compare":
        ref = e2e.run_ort(model_path, case.feeds)
        ours = backend.outputs(model_path, case.feeds, workdir, case.reference_bug)
        ok, lines = e2e.compare_all(ours, ref, case.atol, case.rtol)
        if backend.self_check and case.reference_bug:
            lines.insert(0, f"self-check against ORT without optimisations: onnx.reference {case.reference_bug}")
        return ok, lines
    if case.kind == "symbolic" and backend.self_check:
        ok, lines = True, []
        for feed in case.feeds:
            same, report = e2e.compare_all(backend.outputs(model_path, feed, workdir, case.reference_bug),
                                           e2e.run_ort(model_path, feed), case.atol, case.rtol)
            ok &= same
            lines += report
        return ok, lines
    if case.kind == "symbolic":
        exe = os.path.join(workdir, "infer.bin")
        if case.refused:
            proc = e2e.compile(model_path, exe, list(case.compile_args) + backend.compile_args,
                               cuvil=backend.cuvil, check=False)
            return _expect_failure("cuvil compile", proc, (case.refused,))
        e2e.compile(model_path, exe, list(case.compile_args) + backend.compile_args, cuvil=backend.cuvil)
        ok, lines = True, [" ".join(case.compile_args)]
        for feed in case.feeds:
            shapes = ", ".join(f"{n}={'x'.join(map(str, v.shape))}" for n, v in feed.items())
            ours = e2e.cuvil_outputs(model_path, exe, feed, workdir)
            same, report = e2e.compare_all(ours, e2e.run_ort(model_path, feed), case.atol, case.rtol)
            ok &= same
            lines += [f"at {shapes}:"] + ["  " + line for line in report]
        return ok, lines
    if backend.self_check:
        if all(op.domain in ("", "ai.onnx") for op in case.model.opset_import):
            e2e.ort_session(model_path)
        return True, ["self-check: model is valid (and loads in ORT if standard); the failure check needs cuvil"]
    exe = os.path.join(workdir, "infer.bin")
    if case.kind == "compile_error":
        proc = e2e.compile(model_path, exe, case.compile_args, cuvil=backend.cuvil, check=False)
        return _expect_failure("cuvil compile", proc, case.expect)
    e2e.compile(model_path, exe, case.compile_args, cuvil=backend.cuvil)
    args = e2e.write_inputs(case.feeds, os.path.join(workdir, "inputs"))
    proc = e2e.run_process([exe, *args, *case.extra_args, "--output-dir", os.path.join(workdir, "outputs")])
    return _expect_failure("infer.bin", proc, case.expect)


def run_case_safely(case, backend, workdir):
    """run_case, turning exceptions into a failed result."""
    os.makedirs(workdir, exist_ok=True)
    try:
        return run_case(case, backend, workdir)
    except Exception as exc:  # report, do not abort the whole run
        detail = str(exc) if isinstance(exc, e2e.CuvilError) else traceback.format_exc()
        return False, [f"error: {detail.strip()}"]


def covering_sample(variants):
    """The variants that each add an (op type, which dims) pair the earlier ones
    did not: every op with a shape rule checked with first and last dims
    symbolic, in a fraction of the full sweep's time."""
    seen, kept = set(), []
    for variant in variants:
        where = variant.name.rsplit("@", 1)[1]
        new = {(node.op_type, where) for node in variant.model.graph.node} - seen
        if new:
            seen |= new
            kept.append(variant)
    return kept


def select(cases, filters):
    """Cases whose name contains any of the comma-separated substrings (all if empty)."""
    keys = [f for f in (filters or "").split(",") if f]
    return [c for c in cases if not keys or any(k in c.name for k in keys)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", help="cuvil binary (default: $CUVIL_BIN)")
    parser.add_argument("--self-check", action="store_true",
                        help="validate the cases without cuvil: compare ORT with onnx.reference")
    parser.add_argument("-k", dest="filter", help="only cases whose name contains one of these comma-separated strings")
    parser.add_argument("--list", action="store_true", help="list case names and exit")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--workdir", help="keep per-case files under this directory (default: a temp dir, removed)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the report of passing cases too")
    parser.add_argument("--compile-arg", action="append", default=[],
                        help="extra `cuvil compile` argument for compared cases, e.g. --compile-arg=--cpu=x86-64-v3")
    parser.add_argument("--symbolic", action="store_true",
                        help="run the comparison cases with symbolic input dims instead (symbolic_variants)")
    parser.add_argument("--cover-ops", action="store_true",
                        help="with --symbolic: only the variants that cover an op not yet covered")
    args = parser.parse_args(argv)

    cases = select(all_cases(), args.filter)
    if args.symbolic:
        if args.self_check:
            parser.error("--symbolic needs cuvil")
        cases = [variant for case in cases for variant in symbolic_variants(case)]
        stale = set(SYMBOLIC_UNSUPPORTED) - {c.name for c in cases}
        if stale and not args.filter:
            raise RuntimeError(f"SYMBOLIC_UNSUPPORTED names unknown variants: {sorted(stale)}")
        if args.cover_ops:
            cases = covering_sample(cases)
    if args.list:
        for case in cases:
            print(case.name)
        print(f"{len(cases)} cases")
        return 0
    try:
        backend = make_backend(args.cuvil or os.environ.get("CUVIL_BIN"), args.self_check,
                               args.compile_arg)
    except RuntimeError as exc:
        parser.error(str(exc))
    if backend is None:
        parser.error("no cuvil binary: pass --cuvil PATH, set CUVIL_BIN, or use --self-check")
    root = args.workdir or tempfile.mkdtemp(prefix="cuvil_test_ops_")
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = [pool.submit(run_case_safely, c, backend, os.path.join(root, e2e.sanitise(c.name)))
                   for c in cases]
        for case, future in zip(cases, futures):
            ok, lines = future.result()
            print(f"{'PASS' if ok else 'FAIL'} {case.name}", flush=True)
            if not ok or args.verbose:
                for line in lines:
                    print("    " + line.replace("\n", "\n    "))
            if not ok:
                failed.append(case.name)
    if not args.workdir:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{len(cases) - len(failed)} passed, {len(failed)} failed")
    for name in failed:
        print(f"FAILED {name}")
    return 1 if failed else 0


def make_backend(cuvil, self_check, compile_args=()):
    """The backend for the options, or None when there is neither a cuvil binary nor --self-check."""
    if self_check:
        return ReferenceBackend()
    return CuvilBackend(cuvil, compile_args) if cuvil else None


def pytest_generate_tests(metafunc):
    """pytest hook: one test per case."""
    if "op_case" in metafunc.fixturenames:
        cases = all_cases()
        metafunc.parametrize("op_case", cases, ids=[c.name for c in cases])


def test_op_case(op_case, e2e_options, tmp_path):
    """pytest entry point (options and the e2e_options fixture come from conftest.py)."""
    backend = make_backend(*e2e_options)
    if backend is None:
        import pytest
        pytest.skip("no cuvil binary: pass --cuvil PATH, set CUVIL_BIN, or use --self-check")
    ok, lines = run_case(op_case, backend, str(tmp_path))
    assert ok, "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
