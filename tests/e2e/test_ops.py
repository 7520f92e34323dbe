#!/usr/bin/env python3
"""End-to-end op tests: small ONNX models compiled by cuvil, checked against ONNX Runtime.

Every case builds a model with onnx.helper, compiles it with
`cuvil compile --target x86_64-linux`, runs the executable on seeded random
inputs and compares each output with ONNX Runtime (ORT_ENABLE_ALL). Negative
cases check that unsupported ops make `cuvil compile` fail naming every
offending node, and that infer.bin rejects bad inputs.

    python tests/e2e/test_ops.py --cuvil PATH [-k FILTER] [-j JOBS] [--list] [--workdir DIR]
    python tests/e2e/test_ops.py --cuvil PATH --symbolic [--cover-ops] [-k FILTER]   # symbolic dims
    python tests/e2e/test_ops.py --cuvil PATH --cover-ops    # one case per op (the sanitized run)
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
import collections
import concurrent.futures
import dataclasses
import io
import os
import shutil
import sys
import tempfile
import time
import traceback
import warnings
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
    memory_limit: int = 0  # bad_input: infer.bin's address space in bytes (0: unlimited)
    reference_bug: str = ""  # filled in from REFERENCE_BUGS
    # An equivalent model ORT runs instead, where it lacks the case's form
    # (batch-major recurrences, opsets before ORT's first kernel).
    ort_model: Optional[onnx.ModelProto] = None
    # Why the case has no symbolic variants (a form that needs static shapes,
    # refused with a message when they are not), or "" to derive them.
    static_only: str = ""


def _seed(name):
    return zlib.crc32(name.encode())


def make_model(nodes, inputs, outputs, inits=None, opset=17, opsets=(), infer=True, output_types=None, check=True):
    """Build and check a ModelProto.

    inputs: {name: In}; outputs: list of names, typed by shape inference unless
    output_types ({name: (dtype, shape)}) is given; inits: {name: ndarray}
    (float64 arrays are stored as float32). Shapes are inferred even with
    output_types, which is for outputs that ONNX shape inference cannot type.
    check=False skips onnx.checker, for an op version newer ONNX deprecates
    but older exporters wrote.
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
    if check:
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
        # Run as a pointwise convolution of the subsampled input (narrow rows).
        ("1x1_stride_3x2_batch2", (2, 16, 11, 10), w(24, 16, 1, 1), b(24), dict(strides=[3, 2])),
        ("3x3_pad1_bias", (1, 3, 11, 13), w(4, 3, 3, 3), b(4), dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])),
        ("3x3_nopad_batch2", (2, 3, 10, 9), w(6, 3, 3, 3), b(6), {}),
        ("3x3_stride2_asym_pads", (1, 3, 12, 11), w(4, 3, 3, 3), b(4), dict(strides=[2, 2], pads=[1, 0, 0, 1])),
        ("3x3_stride_2x1", (1, 2, 9, 8), w(3, 2, 3, 3), b(3), dict(strides=[2, 1], pads=[1, 1, 1, 1])),
        ("5x5_pad2", (1, 4, 12, 12), w(8, 4, 5, 5), b(8), dict(pads=[2, 2, 2, 2])),
        ("7x7_stride2_pad3", (1, 3, 29, 31), w(8, 3, 7, 7), b(8), dict(strides=[2, 2], pads=[3, 3, 3, 3])),
        ("dilation2", (1, 3, 15, 15), w(4, 3, 3, 3), b(4), dict(dilations=[2, 2], pads=[2, 2, 2, 2])),
        ("dilation_2x3_stride_1x2", (1, 3, 14, 17), w(4, 3, 3, 3), None, dict(dilations=[2, 3], strides=[1, 2])),
        # Atrous convolutions whose outer taps read only padding
        # (crop-conv-taps): all of them (ASPP's dilation 24 on a small map), on
        # one axis, only at the begin of a strided axis, and grouped 1-D.
        ("atrous_centre_tap_only", (1, 32, 7, 7), w(24, 32, 3, 3), b(24), dict(dilations=[8, 8], pads=[8, 8, 8, 8])),
        ("atrous_rows_only", (1, 16, 5, 19), w(8, 16, 3, 3), b(8), dict(dilations=[6, 2], pads=[6, 2, 6, 2])),
        ("atrous_strided_begin", (1, 3, 6, 2), w(4, 3, 3, 3), None, dict(dilations=[2, 2], pads=[2, 3, 2, 3], strides=[1, 2])),
        ("atrous_5x5", (1, 8, 6, 6), w(8, 8, 5, 5), b(8), dict(dilations=[3, 3], pads=[6, 6, 6, 6])),
        # Windows wider than the row, whose taps read the input only in part
        # of it: not padded explicitly, the border pixels run in tiles of
        # equal tap ranges (DeepLab's ASPP).
        ("atrous_border_runs", (1, 32, 14, 14), w(40, 32, 3, 3), b(40), dict(dilations=[8, 8], pads=[8, 8, 8, 8])),
        ("atrous_border_runs_strided", (2, 24, 15, 29), w(16, 24, 3, 3), None,
         dict(dilations=[5, 7], pads=[5, 7, 4, 6], strides=[1, 2])),
        ("atrous_1d_grouped", (1, 4, 5), w(4, 2, 3), None, dict(group=2, dilations=[4], pads=[4, 4])),
        ("group2", (1, 4, 9, 9), w(6, 2, 3, 3), b(6), dict(group=2, pads=[1, 1, 1, 1])),
        ("group4_1x1", (1, 8, 5, 6), w(8, 2, 1, 1), None, dict(group=4)),
        # Grouped convolutions the blocked kernel runs over windows of input
        # blocks: ResNeXt's 4 channels per group; groups of 8 whose channels
        # end mid-block; groups of 24 in and 36 out, whose windows span 3
        # blocks and the last ones are moved back to stay inside the input.
        ("grouped_4_per_group", (1, 64, 9, 11), w(64, 4, 3, 3), b(64), dict(group=16, pads=[1, 1, 1, 1])),
        ("grouped_partial_block", (2, 40, 8, 8), w(40, 8, 3, 3), b(40),
         dict(group=5, strides=[2, 2], pads=[1, 1, 1, 1])),
        ("grouped_wide_window", (1, 48, 7, 7), w(72, 24, 3, 3), None, dict(group=2, pads=[1, 1, 1, 1])),
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
    # A residual Add and an activation with polynomials in the epilogue of
    # each blocked tile (Winograd, depthwise, direct 1x1), at sizes that leave
    # partial tiles: such activations run as a loop over the tile's results.
    costly = [node("Conv", ["x", "wino", "bw"], ["c1"], pads=[1, 1, 1, 1]),
              node("Add", ["c1", "x"], ["s1"]), node("Mish", ["s1"], ["m1"]),
              node("Conv", ["m1", "dw"], ["c2"], group=24, pads=[1, 1, 1, 1]),
              node("Add", ["c2", "m1"], ["s2"]), node("Softplus", ["s2"], ["p2"]),
              node("Conv", ["p2", "pw"], ["c3"]), node("Add", ["c3", "p2"], ["s3"]),
              node("Sigmoid", ["s3"], ["g3"]), node("Mul", ["s3", "g3"], ["y"])]
    yield graph("conv/residual_costly_activation_epilogues", costly, {"x": In((1, 24, 17, 19))}, ["y"],
                dict(wino=w(24, 24, 3, 3), bw=b(24), dw=w(24, 1, 3, 3), pw=w(24, 24, 1, 1)), opset=18)
    yield graph("conv/nchwc_region", nodes, {"x": In((1, 3, 40, 36))}, ["y", "c1"],
                dict(stem=stem, body=body, bb=b(24), dw=w(24, 1, 3, 3), wide=w(40, 24, 1, 1)))
    # Squeeze-and-excitation (EfficientNet, RegNetY) after a grouped 3x3 in
    # the blocked layout: the per-image channel scale multiplies the blocked
    # image; batch 2 so that each image gets its own scale, 40 channels so
    # that the last block is partly padding.
    se = [node("Conv", ["x", "gw", "gb"], ["c"], group=5, pads=[1, 1, 1, 1]),
          node("Relu", ["c"], ["r"]),
          node("GlobalAveragePool", ["r"], ["p"]),
          node("Conv", ["p", "f1", "b1"], ["h"]),
          node("Relu", ["h"], ["hr"]),
          node("Conv", ["hr", "f2", "b2"], ["e"]),
          node("Sigmoid", ["e"], ["s"]),
          node("Mul", ["s", "r"], ["m"]),
          node("Conv", ["m", "proj"], ["y"])]
    yield graph("conv/squeeze_excitation_grouped", se, {"x": In((2, 40, 11, 9))}, ["y"],
                dict(gw=w(40, 8, 3, 3), gb=b(40), f1=w(10, 40, 1, 1), b1=b(10), f2=w(40, 10, 1, 1),
                     b2=b(40), proj=w(24, 40, 1, 1)))
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


def conv3d_cases():
    """Conv and ConvTranspose over 3-D windows: every attribute (strides,
    dilations, pads, auto_pad, groups incl. depthwise, output_padding,
    output_shape), non-cubic kernels, batch 2, bias or none, weights as a
    run-time input, fused epilogues and a folded BatchNormalization; shapes
    whose vol2col panels cut output rows in many runs (narrow rows) or none
    (rows wider than a panel), and tap counts over several packed chunks."""
    rng = np.random.default_rng(31)

    def w(*shape):
        fan_in = int(np.prod(shape[1:]))
        return rng.standard_normal(shape) / np.sqrt(fan_in)

    def b(n):
        return rng.standard_normal(n) * 0.1

    specs = [
        ("3x3x3_pad1_bias", (1, 4, 6, 7, 8), w(8, 4, 3, 3, 3), b(8), dict(pads=[1] * 6)),
        ("3x3x3_nopad_batch2", (2, 3, 5, 6, 7), w(5, 3, 3, 3, 3), None, {}),
        ("1x1x1", (1, 8, 3, 4, 5), w(6, 8, 1, 1, 1), b(6), {}),
        ("stride_2x1x2_asym_pads", (1, 3, 7, 8, 9), w(4, 3, 3, 3, 3), b(4),
         dict(strides=[2, 1, 2], pads=[1, 0, 1, 0, 1, 2])),
        ("dilation_2x1x3", (1, 3, 8, 6, 11), w(4, 3, 3, 2, 3), b(4), dict(dilations=[2, 1, 3], pads=[2, 1, 0, 1, 0, 3])),
        ("kernel_1x3x2_nonsquare", (1, 3, 4, 9, 6), w(5, 3, 1, 3, 2), b(5), dict(pads=[0, 1, 1, 0, 1, 0])),
        ("kernel_3x1x1", (1, 4, 9, 5, 4), w(4, 4, 3, 1, 1), None, dict(pads=[1, 0, 0, 1, 0, 0])),
        ("group2", (1, 4, 5, 6, 6), w(6, 2, 3, 3, 3), b(6), dict(group=2, pads=[1] * 6)),
        ("depthwise", (1, 6, 5, 7, 6), w(6, 1, 3, 3, 3), b(6), dict(group=6, pads=[1] * 6)),
        ("depthwise_multiplier2_stride2", (2, 3, 6, 7, 8), w(6, 1, 3, 3, 3), None,
         dict(group=3, strides=[2, 2, 2], pads=[1] * 6)),
        ("same_upper_stride2", (1, 3, 6, 7, 9), w(4, 3, 3, 3, 3), b(4), dict(auto_pad="SAME_UPPER", strides=[2, 2, 2])),
        ("same_lower_k2", (1, 3, 5, 6, 7), w(4, 3, 2, 2, 2), b(4), dict(auto_pad="SAME_LOWER")),
        ("valid_stride_1x2x2", (1, 3, 6, 9, 9), w(4, 3, 3, 3, 3), b(4), dict(auto_pad="VALID", strides=[1, 2, 2])),
        # Rows of one pixel: a panel is 64 runs.
        ("narrow_rows", (1, 3, 5, 6, 1), w(4, 3, 3, 3, 1), b(4), dict(pads=[1, 1, 0, 1, 1, 0])),
        # Rows wider than a panel; 864 taps in several chunks; 70 channels in
        # row tiles with a ragged last one.
        ("wide_rows", (1, 2, 2, 3, 70), w(3, 2, 1, 3, 3), b(3), dict(pads=[0, 1, 1, 0, 1, 1])),
        ("many_taps_channels", (1, 32, 4, 9, 10), w(70, 32, 3, 3, 3), b(70), dict(pads=[1] * 6)),
    ]
    for name, x, weight, bias, attrs in specs:
        args = [In(x), weight] + ([bias] if bias is not None else [])
        yield single(f"conv3d/{name}", "Conv", args, attrs)
    yield single("conv3d/weights_as_input", "Conv", [In((1, 3, 4, 5, 5)), In((4, 3, 3, 3, 3)), In((4,))],
                 dict(pads=[1] * 6))
    yield single("conv3d/opset1", "Conv", [In((1, 2, 4, 5, 5)), w(3, 2, 3, 3, 3), b(3)],
                 dict(kernel_shape=[3, 3, 3], pads=[1] * 6), opset=1)
    epilogue = [node("Conv", ["x", "w", "b"], ["c"], pads=[1] * 6),
                node("Add", ["c", "r"], ["s"]),
                node("Relu", ["s"], ["y"])]
    yield graph("conv3d/residual_relu_epilogue", epilogue, {"x": In((1, 4, 4, 5, 6)), "r": In((1, 8, 4, 5, 6))},
                ["y"], dict(w=w(8, 4, 3, 3, 3), b=b(8)))
    batchnorm = [node("Conv", ["x", "w"], ["c"], pads=[1] * 6),
                 node("BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["n"]),
                 node("Clip", ["n", "lo", "hi"], ["y"])]
    yield graph("conv3d/batchnorm_clip", batchnorm, {"x": In((1, 3, 4, 6, 5))}, ["y"],
                dict(w=w(6, 3, 3, 3, 3), scale=rng.uniform(0.5, 1.5, 6), shift=b(6), mean=b(6),
                     var=rng.uniform(0.5, 1.5, 6), lo=np.float32(0), hi=np.float32(6)))

    def wt(*shape):
        return (rng.standard_normal(shape) * 0.3).astype(F32)

    for name, x, weights, bias, attrs in [
            ("basic", In((1, 3, 3, 4, 5)), wt(3, 4, 3, 3, 3), wt(4), {}),
            ("stride2_pads_batch2", In((2, 4, 3, 4, 4)), wt(4, 3, 3, 3, 3), wt(3),
             dict(strides=[2, 2, 2], pads=[1, 0, 1, 1, 1, 0])),
            ("output_padding", In((1, 2, 3, 3, 4)), wt(2, 3, 3, 3, 3), None,
             dict(strides=[2, 3, 2], pads=[1, 1, 1, 1, 1, 1], output_padding=[1, 2, 0])),
            ("dilated_nonsquare", In((1, 2, 3, 4, 5)), wt(2, 2, 2, 3, 1), wt(2), dict(dilations=[2, 1, 3])),
            ("groups", In((1, 6, 3, 4, 4)), wt(6, 2, 3, 3, 3), wt(6), dict(group=3, strides=[1, 2, 2])),
            ("depthwise", In((1, 4, 3, 3, 4)), wt(4, 1, 3, 3, 3), None, dict(group=4)),
            ("output_shape", In((1, 1, 2, 3, 3)), wt(1, 2, 3, 3, 3), None,
             dict(strides=[2, 3, 2], output_shape=[6, 10, 8])),
            ("same_upper", In((1, 2, 3, 4, 5)), wt(2, 3, 3, 3, 3), wt(3), dict(strides=[2, 2, 2], auto_pad="SAME_UPPER")),
            ("same_lower", In((1, 2, 3, 4, 3)), wt(2, 3, 2, 4, 4), wt(3), dict(strides=[2, 2, 2], auto_pad="SAME_LOWER")),
            ("weights_as_input", In((1, 3, 3, 3, 4)), In((3, 2, 3, 3, 3)), None, dict(strides=[2, 2, 2]))]:
        args = [x, weights] + ([bias] if bias is not None else [])
        yield single(f"convtranspose3d/{name}", "ConvTranspose", args, attrs)


def pool3d_cases():
    """MaxPool and AveragePool over 3-D windows (every attribute: kernel,
    strides, pads, dilations, ceil_mode, auto_pad, count_include_pad), and
    MaxPool's Indices (row- and column-major storage_order)."""
    negative = In((1, 2, 5, 6, 7), gen=lambda r, s: -np.abs(r.standard_normal(s)) - 1.0)
    maxpool = [
        ("k2_s2", (1, 3, 4, 6, 8), dict(kernel_shape=[2, 2, 2], strides=[2, 2, 2])),
        ("k3_s2_p1_batch2", (2, 2, 7, 8, 9), dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2], pads=[1] * 6)),
        ("k3_s1_p1", (1, 2, 4, 5, 6), dict(kernel_shape=[3, 3, 3], pads=[1] * 6)),
        ("asym_pads_nonsquare", (1, 2, 6, 7, 8), dict(kernel_shape=[2, 3, 1], strides=[1, 2, 3],
                                                      pads=[1, 0, 0, 0, 2, 0])),
        ("dilation_2x1x2", (1, 2, 7, 6, 9), dict(kernel_shape=[2, 3, 3], dilations=[2, 1, 2])),
        ("ceil_k3_s2_pads", (1, 2, 6, 7, 8), dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2], pads=[1, 1, 1, 1, 1, 1],
                                                  ceil_mode=1)),
        ("same_upper_s2", (1, 2, 5, 6, 7), dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2], auto_pad="SAME_UPPER")),
        ("same_lower_k2", (1, 2, 4, 5, 5), dict(kernel_shape=[2, 2, 2], auto_pad="SAME_LOWER")),
        ("valid_s2", (1, 2, 7, 7, 7), dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2], auto_pad="VALID")),
        ("wide_rows", (1, 1, 2, 2, 600), dict(kernel_shape=[1, 2, 3], strides=[1, 1, 2], pads=[0, 0, 1, 0, 1, 1])),
    ]
    for name, shape, attrs in maxpool:
        yield single(f"maxpool3d/{name}", "MaxPool", [In(shape)], attrs)
    yield single("maxpool3d/negative_inputs_pads", "MaxPool", [negative],
                 dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2], pads=[1] * 6))
    yield single("maxpool3d/opset8", "MaxPool", [In((1, 2, 5, 6, 6))], dict(kernel_shape=[2, 2, 2]), opset=8)

    avgpool = [
        ("k2_s2", (1, 3, 4, 6, 8), dict(kernel_shape=[2, 2, 2], strides=[2, 2, 2])),
        ("k3_p1_exclude_pad_batch2", (2, 2, 4, 5, 6), dict(kernel_shape=[3, 3, 3], pads=[1] * 6)),
        ("k3_p1_include_pad", (1, 2, 4, 5, 6), dict(kernel_shape=[3, 3, 3], pads=[1] * 6, count_include_pad=1)),
        ("asym_pads_include_pad", (1, 2, 5, 6, 7), dict(kernel_shape=[2, 3, 2], strides=[2, 1, 2],
                                                        pads=[0, 1, 1, 1, 0, 1], count_include_pad=1)),
        ("ceil_pads_exclude_pad", (1, 2, 6, 7, 8), dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2], pads=[1] * 6,
                                                        ceil_mode=1)),
        ("ceil_pads_include_pad", (1, 2, 6, 7, 8), dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2], pads=[1] * 6,
                                                        ceil_mode=1, count_include_pad=1)),
        ("same_upper_s2", (1, 2, 5, 6, 7), dict(kernel_shape=[3, 2, 3], strides=[2, 2, 2], auto_pad="SAME_UPPER")),
        ("valid", (1, 2, 5, 5, 5), dict(kernel_shape=[3, 3, 3], auto_pad="VALID")),
    ]
    for name, shape, attrs in avgpool:
        yield single(f"averagepool3d/{name}", "AveragePool", [In(shape)], attrs)
    yield single("averagepool3d/opset19_dilations", "AveragePool", [In((1, 2, 7, 6, 8))],
                 dict(kernel_shape=[2, 2, 3], dilations=[2, 1, 2], pads=[1, 0, 1, 1, 1, 0]), opset=19)
    yield single("averagepool3d/opset19_dilations_include_pad", "AveragePool", [In((1, 2, 7, 6, 8))],
                 dict(kernel_shape=[2, 2, 3], dilations=[2, 1, 2], pads=[1, 0, 1, 1, 1, 0], count_include_pad=1),
                 opset=19)
    yield single("averagepool3d/opset7_include_pad", "AveragePool", [In((1, 2, 4, 5, 5))],
                 dict(kernel_shape=[3, 3, 3], pads=[1] * 6, count_include_pad=1), opset=7)

    # Indices: coarse values so that ties occur (the first maximum wins).
    def coarse_in(shape):
        return In(shape, gen=coarse)

    for name, shape, attrs in [
            ("indices", (1, 2, 5, 6, 7), dict(kernel_shape=[2, 3, 3], strides=[2, 2, 2], pads=[1] * 6)),
            ("indices_column_major_dilated", (1, 2, 6, 5, 7), dict(kernel_shape=[2, 2, 2], dilations=[2, 1, 2],
                                                                   storage_order=1))]:
        yield single(f"maxpool3d/{name}", "MaxPool", [coarse_in(shape)], attrs, opset=12, outputs=2)


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
    """BatchNormalization at opsets 9, 14, 15 and ranks 2-4 (inference and training_mode), plus Conv+BN
    fusions."""
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
    # training_mode (opset 14/15): normalised by the batch's own statistics, the running mean
    # and variance as outputs (ONNX asks for all three); ranks 2 and 4, parameters from inputs
    # or constants.
    yield single("batchnorm/training_running_stats", "BatchNormalization", [In((2, 3, 4, 5))] + params(3),
                 dict(training_mode=1, momentum=0.8, epsilon=1e-3), opset=15, outputs=3)
    yield single("batchnorm/training_2d_inputs", "BatchNormalization",
                 [In((6, 4)), In((4,)), In((4,)), In((4,)), In((4,), gen=positive)],
                 dict(training_mode=1), opset=14, outputs=3)
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
    # Mish (opset 18, newer than Debian's ONNX: a native op), likewise.
    yield single("mish/default", "Mish", [In((3, 4, 5), gen=scaled(3))], opset=18)
    yield single("mish/large_magnitude", "Mish", [wide], opset=18)
    yield graph("mish/in_a_chain", [node("Mul", ["x", "two"], ["m"]), node("Mish", ["m"], ["a"]),
                                    node("Add", ["a", "x"], ["y"])],
                {"x": In((2, 16, 9), gen=scaled(2))}, ["y"], dict(two=scalar(2.0)), opset=18)
    yield graph("mish/conv_epilogue", [node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), node("Mish", ["c"], ["y"])],
                {"x": In((1, 16, 10, 10))}, ["y"],
                dict(w=np.random.default_rng(7).standard_normal((32, 16, 3, 3)) * 0.1), opset=18)

    # Swish (opset 24): alpha 1 (SiLU) and others, in a chain and as a
    # convolution's epilogue.
    yield single("swish/default", "Swish", [In((3, 4, 5), gen=scaled(3))], opset=24)
    yield single("swish/alpha_half", "Swish", [wide], dict(alpha=0.5), opset=24)
    yield single("swish/alpha_negative", "Swish", [In((2, 33), gen=scaled(4))], dict(alpha=-1.7), opset=24)
    yield graph("swish/in_a_chain", [node("Mul", ["x", "two"], ["m"]), node("Swish", ["m"], ["a"], alpha=1.702),
                                     node("Add", ["a", "x"], ["y"])],
                {"x": In((2, 16, 9), gen=scaled(2))}, ["y"], dict(two=scalar(2.0)), opset=24)
    yield graph("swish/conv_epilogue", [node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                                        node("Swish", ["c"], ["y"], alpha=0.8)],
                {"x": In((1, 16, 10, 10))}, ["y"],
                dict(w=np.random.default_rng(7).standard_normal((32, 16, 3, 3)) * 0.1), opset=24)


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
    # 8-bit MaxPool (opset 12: the tensors of quantized models), 1-D to 3-D,
    # padded windows, ceil_mode's overhang and the Indices output.
    eight_bit = [
        ("k3_s2_p1", (1, 4, 15, 15), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
        ("ceil_dilated", (2, 3, 10, 9), dict(kernel_shape=[2, 2], strides=[2, 2], dilations=[2, 2], ceil_mode=1)),
        ("1d_s2", (2, 3, 17), dict(kernel_shape=[3], strides=[2])),
        ("3d_p1", (1, 2, 5, 6, 7), dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2], pads=[1] * 6)),
    ]
    for dtype, lo, hi in ((np.uint8, 0, 255), (np.int8, -128, 127)):
        for name, shape, attrs in eight_bit:
            yield single(f"maxpool/{np.dtype(dtype).name}_{name}", "MaxPool", [In(shape, dtype, gen=_ints(lo, hi))],
                         attrs, opset=12)
        yield single(f"maxpool/{np.dtype(dtype).name}_indices", "MaxPool",
                     [In((2, 3, 7, 8), dtype, gen=_ints(lo, lo + 5))], dict(kernel_shape=[3, 3], strides=[2, 2],
                                                                            pads=[1, 1, 1, 1]), opset=12, outputs=2)

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
    # CenterCropPad (opset 18): crops and pads of even and odd differences.
    for name, shape, target, attrs in [("crop_both", (7, 8, 3), [4, 5, 3], {}),
                                       ("pad_both", (3, 4, 2), [6, 7, 2], {}),
                                       ("crop_and_pad", (5, 6, 3), [8, 3], dict(axes=[0, 1])),
                                       ("negative_axes_hwc", (10, 9, 3), [6, 12], dict(axes=[-3, -2]))]:
        yield single(f"centercroppad/{name}", "CenterCropPad", [In(shape), np.array(target, I64)], attrs, opset=18,
                     static_only="the extents of the axes it crops or pads must be known")
    model = make_model([node("CenterCropPad", ["x", "shape"], ["y"], name="crop")], {"x": In(("n", 6))}, ["y"],
                       dict(shape=np.array([4, 4], I64)), opset=18)
    yield Case("unsupported/centercroppad_symbolic_axis", model, {}, kind="compile_error",
               compile_args=("--shape-range", "x=1x6:4x6:8x6"),
               expect=("crop", "axis 0 must have an extent known at compile time"))
    # Col2Im (opset 18): 1-D to 3-D, strides, pads, dilations, an image the
    # blocks do not reach to its end.
    def col2im_case(name, n, channels, image, block, strides=None, pads=None, dilations=None):
        rank = len(image)
        s, d = strides or [1] * rank, dilations or [1] * rank
        p = pads or [0] * (2 * rank)
        counts = [(image[i] + p[i] + p[rank + i] - d[i] * (block[i] - 1) - 1) // s[i] + 1 for i in range(rank)]
        attrs = {k: v for k, v in dict(strides=strides, pads=pads, dilations=dilations).items() if v}
        return single(f"col2im/{name}", "Col2Im",
                      [In((n, channels * int(np.prod(block)), int(np.prod(counts)))), np.array(image, I64),
                       np.array(block, I64)], attrs, opset=18)
    yield col2im_case("2d_fold", 2, 3, [5, 5], [2, 2])
    yield col2im_case("2d_strides_pads_dilations", 1, 2, [7, 6], [3, 2], strides=[2, 1], pads=[1, 0, 1, 1],
                      dilations=[1, 2])
    yield col2im_case("2d_unreached_edge", 1, 4, [6, 7], [2, 2], strides=[3, 3])
    yield col2im_case("1d", 2, 3, [10], [3], strides=[2], pads=[1, 1])
    yield col2im_case("3d", 1, 2, [4, 5, 3], [2, 3, 2], strides=[1, 2, 1])
    # Constant columns: folded at compile time by the reference.
    yield single("col2im/folded_reference", "Col2Im",
                 [np.random.default_rng(5).standard_normal((1, 8, 6)).astype(F32), np.array([3, 5], I64),
                  np.array([2, 2], I64)], dict(strides=[1, 2], pads=[0, 1, 0, 1]), opset=18)
    # AffineGrid (opset 20), 2-D and 3-D, with and without align_corners, a
    # one-pixel axis.
    theta2 = In((2, 2, 3), gen=lambda r, s: np.array([[1, 0, 0], [0, 1, 0]]) + r.standard_normal(s) * 0.3)
    theta3 = In((2, 3, 4), gen=lambda r, s: np.concatenate([np.eye(3), np.zeros((3, 1))], 1) + r.standard_normal(s) * 0.3)
    for align in (0, 1):
        yield single(f"affinegrid/2d_align{align}", "AffineGrid", [theta2, np.array([2, 3, 5, 7], I64)],
                     dict(align_corners=align), opset=20)
        yield single(f"affinegrid/3d_align{align}", "AffineGrid", [theta3, np.array([2, 1, 3, 4, 5], I64)],
                     dict(align_corners=align), opset=20)
    # (One row with align_corners: ONNX's reference and PyTorch put it at -1,
    # as cuvil does; ONNX Runtime at +1. Without it all agree on 0.)
    yield single("affinegrid/2d_one_row_align0", "AffineGrid", [theta2, np.array([2, 1, 1, 6], I64)],
                 dict(align_corners=0), opset=20)
    # LpPool (opset 18: dilations, ceil_mode), GlobalLpPool and LpNormalization.
    lppool = [("p2_k3_s2", dict(kernel_shape=[3, 3], strides=[2, 2])),
              ("p1_pads", dict(kernel_shape=[2, 2], pads=[1, 1, 1, 1], p=1)),
              ("p3_dilated", dict(kernel_shape=[2, 2], dilations=[2, 2], p=3)),
              ("p2_ceil", dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
              ("p2_auto_pad", dict(kernel_shape=[3, 3], auto_pad="SAME_UPPER"))]
    for name, attrs in lppool:
        yield single(f"lppool/{name}", "LpPool", [In((1, 3, 9, 9))], attrs, opset=18,
                     static_only="ceil_mode pads the end for whole windows" if "ceil_mode" in attrs else "")
    model = make_model([node("LpPool", ["x"], ["y"], name="lppool_ceil", kernel_shape=[3], strides=[2], ceil_mode=1)],
                       {"x": In((1, 2, "w"))}, ["y"], opset=18)
    yield Case("unsupported/lppool_ceil_mode_symbolic", model, {}, kind="compile_error",
               compile_args=("--shape-range", "x=1x2x4:1x2x9:1x2x16"),
               expect=("lppool_ceil", "ceil_mode needs explicit pads and spatial extents known at compile time"))
    yield single("lppool/1d_opset11", "LpPool", [In((2, 3, 10))], dict(kernel_shape=[3], p=2), opset=11)
    for p in (1, 2, 3):
        yield single(f"globallppool/p{p}", "GlobalLpPool", [In((2, 4, 5, 6))], dict(p=p))
    for axis, p in [(-1, 2), (1, 1), (0, 2)]:
        yield single(f"lpnormalization/axis{axis}_p{p}", "LpNormalization", [In((3, 4, 5))], dict(axis=axis, p=p))
    yield single("lpnormalization/zero_rows", "LpNormalization",
                 [In((3, 6), gen=lambda r, s: np.where(np.arange(3)[:, None] == 1, 0.0, r.standard_normal(s)))])


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
    # Bitwise ops (opset 18, newer than Debian's ONNX): full-range values,
    # broadcast, a constant operand.
    for dtype in [np.int8, np.uint8, np.int16, np.int32, np.uint32, I64, np.uint64]:
        name, info = np.dtype(dtype).name, np.iinfo(dtype)
        full = In((3, 8), dtype, gen=lambda r, s, info=info, dtype=dtype: r.integers(info.min, info.max, s, dtype=dtype, endpoint=True))
        row = In((8,), dtype, gen=lambda r, s, info=info, dtype=dtype: r.integers(info.min, info.max, s, dtype=dtype, endpoint=True))
        for op in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]:
            yield single(f"bitwise/{op[7:].lower()}_{name}", op, [full, row], opset=18)
        yield single(f"bitwise/not_{name}", "BitwiseNot", [full], opset=18)
    yield single("bitwise/and_constant_mask", "BitwiseAnd", [In((4, 5), I32, gen=lambda r, s: r.integers(0, 1 << 20, s)),
                                                           np.array(0xFF0, np.int32)], opset=18)
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
    # GELU's tanh approximation as GPT-2 exports it (gelu_new: Pow, after a MatMul whose epilogue
    # takes it), and with x^3 as two Muls, standing alone.
    gelu_new = [node("Pow", ["x", "three"], ["p"]), node("Mul", ["p", "c"], ["q"]), node("Add", ["x", "q"], ["r"]),
                node("Mul", ["r", "k"], ["s"]), node("Tanh", ["s"], ["t"]), node("Add", ["t", "one"], ["u"]),
                node("Mul", ["x", "half"], ["h"]), node("Mul", ["h", "u"], ["y"])]
    constants = dict(three=scalar(3.0), c=scalar(0.044715), k=scalar(np.sqrt(2 / np.pi)), one=scalar(1.0),
                     half=scalar(0.5))
    yield graph("tanh/gelu_new_after_matmul", [node("MatMul", ["a", "w"], ["x"])] + gelu_new,
                {"a": In((2, 7, 24), gen=scaled(2))}, ["y"],
                dict(constants, w=np.random.default_rng(9).standard_normal((24, 40)) / 4))
    # GELU (erf, as exported) after MatMul + bias + residual, 37 columns and 26
    # rows: the GEMM tile's epilogue adds the residual, its loop applies GELU,
    # and the ragged right edge stores 5 of a vector's columns.
    rng = np.random.default_rng(10)
    yield graph("erf/gelu_after_matmul_bias_residual", [
        node("MatMul", ["a", "w"], ["mm"]), node("Add", ["mm", "bias"], ["x0"]), node("Add", ["x0", "r"], ["x"]),
        node("Div", ["x", "sqrt2"], ["d"]), node("Erf", ["d"], ["e"]), node("Add", ["e", "one"], ["u"]),
        node("Mul", ["x", "u"], ["m"]), node("Mul", ["m", "half"], ["y"])],
        {"a": In((2, 13, 40)), "r": In((2, 13, 37))}, ["y"],
        dict(w=rng.standard_normal((40, 37)) / 5, bias=rng.standard_normal(37), sqrt2=scalar(np.sqrt(2)),
             one=scalar(1.0), half=scalar(0.5)))
    yield graph("tanh/gelu_tanh_cube_as_muls", [
        node("Mul", ["x", "x"], ["x2"]), node("Mul", ["x", "x2"], ["x3"]), node("Mul", ["c", "x3"], ["q"]),
        node("Add", ["q", "x"], ["r"]), node("Mul", ["k", "r"], ["s"]), node("Tanh", ["s"], ["t"]),
        node("Add", ["one", "t"], ["u"]), node("Mul", ["x", "u"], ["m"]), node("Mul", ["half", "m"], ["y"])],
        {"x": In((3, 33), gen=scaled(4))}, ["y"], constants)


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
    # A batch only A has runs as rows of one GEMM (torch's [seq, batch, hidden] projections): with a
    # bias and a residual that fold along, and with one that varies by batch but not by row, which
    # keeps the batched form.
    w, bias = rng.standard_normal((16, 9)), rng.standard_normal(9)
    for name, residual in (("full", (5, 1, 3, 9)), ("per_batch", (5, 1, 1, 9))):
        yield graph(f"matmul/batch_as_rows_residual_{name}",
                    [node("MatMul", ["x", "w"], ["m"]), node("Add", ["m", "b"], ["a"]),
                     node("Add", ["a", "r"], ["y"])],
                    {"x": In((5, 1, 3, 16)), "r": In(residual)}, ["y"], inits={"w": w, "b": bias})
    # Rows of A that outgrow half of L2 (the default target counts on 1 MiB): the kernel runs each
    # K chunk over a group of panels before the next chunk (a partial last panel and chunk; two
    # threads split the one group), over two blocks of two groups each, and with B a run-time
    # operand; bias, residual and Relu in the first and last chunks' epilogues.
    grouped = [("grouped_panels", 70, 2100, 300, True), ("grouped_blocks", 400, 1500, 1000, True),
               ("grouped_runtime_b", 70, 2100, 130, False)]
    for name, m, k, n, constant in grouped:
        w = rng.standard_normal((k, n)) / np.sqrt(k)
        yield graph(f"matmul/{name}",
                    [node("MatMul", ["x", "w"], ["m"]), node("Add", ["m", "b"], ["a"]),
                     node("Add", ["a", "r"], ["s"]), node("Relu", ["s"], ["y"])],
                    {"x": In((m, k)), "r": In((m, n)), **({} if constant else {"w": In((k, n))})},
                    ["y"], inits={"b": rng.standard_normal(n), **({"w": w} if constant else {})})
    # One output column: a residual broadcast along it (a per-group bias of a
    # grouped 1-channel product) fuses with no column stride to follow.
    yield graph("matmul/one_column_residual_broadcast",
                [node("MatMul", ["x", "w"], ["m"]), node("Add", ["m", "r"], ["y"])],
                {"x": In((2, 4, 6, 9))}, ["y"], inits={"w": rng.standard_normal((4, 9, 1)),
                                                       "r": rng.standard_normal((4, 1, 1))})


def attention_mask(rng, shape):
    """An additive attention mask: 0 where attended, -10000 where masked (a third)."""
    return np.where(rng.random(shape) < 1 / 3, -10000.0, 0.0)


def attention_cases():
    """MatMul -> [scale, mask] -> Softmax -> MatMul, which fuse-attention runs as one
    cuvil.Attention node, against ORT running the ops one by one."""
    def attention(name, q, k, v, mask=None, divisor=None, transpose_k=True):
        nodes = [node("Transpose", ["k"], ["kt"], perm=list(range(len(k) - 2)) + [len(k) - 1, len(k) - 2])
                 ] if transpose_k else [node("Identity", ["k"], ["kt"])]
        nodes.append(node("MatMul", ["q", "kt"], ["s0"]))
        scores, inits = "s0", {}
        if divisor is not None:
            nodes.append(node("Div", ["s0", "d"], ["s1"]))
            scores, inits = "s1", {"d": np.array(divisor, dtype=F32)}
        inputs = {"q": In(q), "k": In(k), "v": In(v)}
        if mask is not None:
            nodes.append(node("Add", [scores, "mask"], ["s2"]))
            scores, inputs["mask"] = "s2", In(mask, gen=attention_mask)
        nodes += [node("Softmax", [scores], ["p"], axis=-1), node("MatMul", ["p", "v"], ["y"])]
        return graph(f"attention/{name}", nodes, inputs, ["y"], inits)

    # BERT's: 4-D heads, 1/sqrt(d) as a Div, a padding mask broadcast over heads and queries.
    yield attention("bert_padding_mask", (1, 2, 37, 16), (1, 2, 37, 16), (1, 2, 37, 16),
                    mask=(1, 1, 1, 37), divisor=4.0)
    # Whisper's: 3-D, no mask, the scale already in Q; keys past one panel, V narrower
    # than a vector.
    yield attention("plain_3d_ragged", (3, 70, 24), (3, 24, 70), (3, 70, 20), transpose_k=False)
    # A mask that varies by query (causal or per-pair) and by batch, over several score
    # blocks of 1100 keys (the block holds a quarter of L2 in rows).
    yield attention("full_mask_many_blocks", (2, 1, 300, 32), (2, 1, 1100, 32), (2, 1, 1100, 40),
                    mask=(2, 1, 300, 1100), divisor=5.6)
    # A single query (decoding) and a V wider than one 64-column panel.
    yield attention("one_query_wide_v", (4, 1, 8), (4, 9, 8), (4, 9, 130), mask=(4, 1, 9))
    # Heads split out of [B, S, H, D] and merged back by Transposes (K's straight to K^T),
    # which fuse-attention folds into the kernel's strides: keys past one panel, a head width
    # below a vector. The second result's Transpose moves the columns, so it stays a copy.
    heads = [node("Transpose", ["q"], ["qh"], perm=[0, 2, 1, 3]), node("Transpose", ["k"], ["kh"], perm=[0, 2, 3, 1]),
             node("Transpose", ["v"], ["vh"], perm=[0, 2, 1, 3]), node("MatMul", ["qh", "kh"], ["s0"]),
             node("Mul", ["s0", "scale"], ["s1"]), node("Add", ["s1", "mask"], ["s2"]),
             node("Softmax", ["s2"], ["p"], axis=-1), node("MatMul", ["p", "vh"], ["o"])]
    # K's panels are packed in 16 x 16 blocks transposed in registers: width 20 leaves ragged
    # blocks on both sides, width 32 with 96 keys none.
    for name, perm, bshd in (("merged", [0, 2, 1, 3], (2, 70, 3, 20)),
                             ("columns_moved", [0, 1, 3, 2], (2, 70, 3, 20)),
                             ("merged_whole_blocks", [0, 2, 1, 3], (1, 96, 2, 32))):
        yield graph(f"attention/heads_in_place_{name}", heads + [node("Transpose", ["o"], ["y"], perm=perm)],
                    {"q": In(bshd), "k": In(bshd), "v": In(bshd),
                     "mask": In((bshd[0], 1, 1, bshd[1]), gen=attention_mask)}, ["y"],
                    dict(scale=scalar(0.2)))
    # GPT-2's: the causal mask a Where of a constant lower triangle with the float minimum
    # (mirrored: -inf where the condition holds), then a run-time padding mask added; the masks
    # are summed into one. The padding mask hides the last keys of the second sequence.
    s = 70
    causal = np.tril(np.ones((1, 1, s, s), dtype=bool))
    for name, condition, where_inputs in (("float_min", causal, ["c", "s1", "fill"]),
                                          ("minus_inf_mirrored", ~causal, ["c", "fill", "s1"])):
        fill = np.finfo(F32).min if name == "float_min" else -np.inf
        padding = np.zeros((2, 1, 1, s), dtype=F32)
        padding[1, ..., 50:] = np.finfo(F32).min
        yield graph(f"attention/causal_where_padding_{name}", [
            node("MatMul", ["q", "kt"], ["s0"]), node("Mul", ["s0", "scale"], ["s1"]),
            node("Where", where_inputs, ["s2"]), node("Add", ["s2", "pad"], ["s3"]),
            node("Softmax", ["s3"], ["p"], axis=-1), node("MatMul", ["p", "v"], ["y"])],
            {"q": In((2, 3, s, 16)), "kt": In((2, 3, 16, s)), "v": In((2, 3, s, 16)),
             "pad": In((2, 1, 1, s), gen=lambda r, shape: padding)}, ["y"],
            dict(scale=scalar(0.25), c=condition, fill=scalar(fill)))


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

    # A NaN score makes its row NaN, and so does a row of -inf (max - max is NaN), as in ORT;
    # rows of 40 take the vector max. Exp keeps a NaN too.
    def nan_rows(rng, shape):
        x = rng.standard_normal(shape)
        x[1, 5], x[3, 39], x[2] = np.nan, np.nan, -np.inf
        return x
    yield single("softmax/nan_and_minus_inf_rows", "Softmax", [In((4, 40), gen=nan_rows)], opset=13)
    yield single("exp/nan_and_extremes", "Exp",
                 [In((7,), gen=lambda rng, shape: np.array([np.nan, -np.inf, -100, -1, 0, 1, 50]))])
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

    # GroupNormalization (opset 21) and RMSNormalization (opset 23), newer
    # than Debian's ONNX.
    yield single("groupnorm/opset21_4d", "GroupNormalization", [In((2, 8, 5, 6))] + affine(8), dict(num_groups=4),
                 opset=21, output_types={"out0": (F32, (2, 8, 5, 6))})
    yield single("groupnorm/opset21_3d_one_group", "GroupNormalization", [In((2, 6, 7))] + affine(6),
                 dict(num_groups=1, epsilon=1e-3), opset=21, output_types={"out0": (F32, (2, 6, 7))})
    yield single("groupnorm/opset21_groups_equal_channels", "GroupNormalization", [In((1, 4, 3, 3))] + affine(4),
                 dict(num_groups=4), opset=21, output_types={"out0": (F32, (1, 4, 3, 3))})
    yield single("groupnorm/opset21_runtime_params", "GroupNormalization",
                 [In((1, 6, 4, 4)), In((6,)), In((6,))], dict(num_groups=3), opset=21, output_types={"out0": (F32, (1, 6, 4, 4))})
    yield single("groupnorm/opset21_offset_inputs", "GroupNormalization",
                 [In((1, 32, 8, 8), gen=lambda r, s: r.standard_normal(s) * 3 + 50)] + affine(32),
                 dict(num_groups=8), opset=21, output_types={"out0": (F32, (1, 32, 8, 8))})
    # Opset 18: scale and bias per group, repeated over the group's channels
    # (ONNX 1.19's checker calls that version deprecated; exporters of its
    # time wrote it and ORT runs it).
    for name, x, params, attrs in [("opset18_per_group", In((2, 8, 5, 6)), affine(4), dict(num_groups=4)),
                                   ("opset18_runtime_params_3d", In((2, 6, 7)), [In((2,)), In((2,))],
                                    dict(num_groups=2, epsilon=1e-3))]:
        inputs = {"x": x, **{n: p for n, p in zip(("scale", "bias"), params) if isinstance(p, In)}}
        inits = {n: p for n, p in zip(("scale", "bias"), params) if not isinstance(p, In)}
        model = make_model([node("GroupNormalization", ["x", "scale", "bias"], ["y"], **attrs)], inputs, ["y"],
                           inits, opset=18, infer=False, check=False, output_types={"y": (F32, x.shape)})
        yield Case(f"groupnorm/{name}", model, feeds_for(f"groupnorm/{name}", inputs))
    yield single("rmsnorm/axis_last", "RMSNormalization", [In((2, 5, 16)), affine(16)[0]], opset=23, output_types={"out0": (F32, (2, 5, 16))})
    yield single("rmsnorm/axis1_eps", "RMSNormalization", [In((2, 3, 4)), affine(3, 4)[0]],
                 dict(axis=1, epsilon=1e-3), opset=23, output_types={"out0": (F32, (2, 3, 4))})
    yield single("rmsnorm/runtime_scale", "RMSNormalization", [In((3, 8)), In((8,))], opset=23, output_types={"out0": (F32, (3, 8))})
    yield single("rmsnorm/scalar_scale_axis_minus2", "RMSNormalization", [In((2, 4, 6)), np.array(1.5)],
                 dict(axis=-2), opset=23, output_types={"out0": (F32, (2, 4, 6))})
    # RotaryEmbedding (opset 23): 4-D and 3-D x, caches per position or per
    # (batch, position), halves or interleaved pairs, a partial rotary dim.
    angles = rng.uniform(0, 6.3, (16, 4))
    cos, sin = np.cos(angles), np.sin(angles)
    positions = In((2, 5), I64, gen=lambda r, s: r.integers(0, 16, s))
    rope = [("4d_positions", In((2, 3, 5, 8)), [cos, sin, positions], {}),
            ("4d_positions_interleaved", In((2, 3, 5, 8)), [cos, sin, positions], dict(interleaved=1)),
            ("3d_positions", In((2, 5, 24)), [cos, sin, positions], dict(num_heads=3)),
            ("3d_interleaved_partial", In((2, 5, 24)), [cos[:, :2], sin[:, :2], positions],
             dict(num_heads=2, interleaved=1, rotary_embedding_dim=4)),
            ("4d_partial", In((1, 2, 5, 12)),
             [cos[:, :3], sin[:, :3], In((1, 5), I64, gen=lambda r, s: r.integers(0, 16, s))],
             dict(rotary_embedding_dim=6)),
            ("4d_batch_caches", In((2, 3, 5, 8)), [In((2, 5, 4)), In((2, 5, 4))], {})]
    for name, x, caches, attrs in rope:
        yield single(f"rotary/{name}", "RotaryEmbedding", [x] + caches, attrs, opset=23,
                     output_types={"out0": (F32, x.shape)})
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
                  ("identity_perm", (2, 3, 4), [0, 1, 2]),
                  # the inner two dims swapped: copied in 16 x 16 blocks, ragged at both edges,
                  # a thread's rows starting and ending inside a block
                  ("blocks_ragged", (3, 37, 45), [0, 2, 1]), ("keys_transposed", (2, 19, 3, 20), [0, 2, 3, 1]),
                  ("blocks_large", (2, 200, 96), [0, 2, 1])]
    for name, shape, perm in transposes:
        yield single(f"transpose/{name}", "Transpose", [In(shape)], {} if perm is None else dict(perm=perm))
    yield single("transpose/int64", "Transpose", [In((2, 3, 4), I64)], dict(perm=[2, 0, 1]))
    yield single("transpose/int64_blocks", "Transpose", [In((40, 3, 33), I64)], dict(perm=[2, 1, 0]))

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
    # Constant pads whose inner dims are unpadded run as rows of the merged
    # dims: a blocked image padded over H and W (and cropped in H), a rank-7
    # tensor with a rank-6 view, and an outer pad over a whole 3-D block.
    yield single("pad/opset13_blocked_hw", "Pad", [In((2, 3, 5, 4, 16)), i64(0, 0, 1, 2, 0, 0, 0, -1, 1, 0)],
                 opset=13)
    yield single("pad/opset13_rank7_merged", "Pad",
                 [In((2, 1, 3, 1, 2, 2, 3)), i64(0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0), scalar(0.25)], opset=13)
    yield single("pad/opset13_outer_only", "Pad", [In((2, 3, 4, 5)), i64(1, 0, 0, 0, 2, 0, 0, 0)], opset=13)
    yield single("pad/opset13_int64", "Pad", [In((3, 4), I64), i64(1, 0, 0, 2), scalar(7, I64)], opset=13)
    yield single("pad/opset18_axes", "Pad", [x, i64(1, 2, 0, 1), scalar(0.5), i64(-1, 1)], opset=18)
    yield single("pad/opset18_axes_reflect", "Pad", [In((1, 2, 5, 6)), i64(2, 1, 2, 1), None, i64(2, 3)],
                 dict(mode="reflect"), opset=18)
    # constant_value given at run time (a graph input), with crops, with axes, and of ints.
    yield single("pad/runtime_constant_value", "Pad", [x, i64(0, -1, 1, 0, 0, 2), In((), gen=scaled(3))], opset=13)
    yield single("pad/runtime_constant_value_axes", "Pad", [In((2, 3, 5)), i64(1, 2, 0, 1), In((1,)), i64(0, -1)],
                 opset=18)
    yield single("pad/runtime_constant_value_int32", "Pad", [In((3, 4), I32), i64(1, 0, 0, 2), In((), I32)],
                 opset=13)


def resize(name, x, scales=None, sizes=None, roi=None, opset=19, **attrs):
    """A Resize case: x a runtime input; roi, scales and sizes constants (None: omitted).
    Opset 10 takes (x, scales); 11 and 12 require roi and scales: omitted ones are empty."""
    if opset == 10:
        return single(f"resize/{name}", "Resize", [x, f32(*scales)], attrs, opset=opset)
    args = [x, None if roi is None else f32(*roi), None if scales is None else f32(*scales),
            None if sizes is None else i64(*sizes)]
    if opset < 13:
        args[1] = f32() if args[1] is None else args[1]
        args[2] = f32() if args[2] is None else args[2]
    return single(f"resize/{name}", "Resize", args, attrs, opset=opset)


def upsample(name, x, scales, opset, **attrs):
    """An Upsample case: scales an input from opset 9, an attribute before."""
    if opset >= 9:
        return single(f"upsample/{name}", "Upsample", [x, f32(*scales)], attrs, opset=opset)
    return single(f"upsample/{name}", "Upsample", [x], dict(attrs, scales=[float(s) for s in scales]), opset=opset)


def resize_cases():
    """Resize at opsets 10, 11, 13, 18 and 19 and Upsample at 7, 8 and 9: every mode x
    coordinate transform, up- and downsampling by scales (integer and not) or sizes, the
    opset-18 axes and keep_aspect_ratio_policy, antialias, nearest modes, cubic_coeff_a,
    exclude_outside, extrapolation, 1- to 5-D, NHWC (resized axes before kept ones),
    integer and f16 nearest, sizes from a shape computation or given at run time.
    Scales and roi are binary fractions, so that no coordinate lands within float
    rounding of a nearest tie (ORT computes coordinates in float, onnx.reference in
    double); align_corners and tf_crop_and_resize see the output's length (as ORT and
    the spec; onnx.reference the fraction scale * in), so the self-checked scales make
    it an integer."""
    x = In((1, 2, 6, 8))
    crop = (0, 0, 0.125, 0.25, 1, 1, 0.875, 1.25)
    transforms = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                  "asymmetric", "tf_crop_and_resize")
    for mode in ("nearest", "linear", "cubic"):
        for transform in transforms:
            roi = crop if transform == "tf_crop_and_resize" else None
            attrs = dict(mode=mode, coordinate_transformation_mode=transform)
            yield resize(f"{mode}_{transform}_up", x, (1, 1, 2, 1.5), roi=roi, **attrs)
            yield resize(f"{mode}_{transform}_down", x, (1, 1, 0.5, 0.75), roi=roi, **attrs)
            yield resize(f"{mode}_{transform}_sizes", x, sizes=(1, 2, 9, 5), roi=roi, **attrs)
    for transform in ("half_pixel", "pytorch_half_pixel", "asymmetric"):
        for mode in ("nearest", "linear", "cubic"):
            yield resize(f"{mode}_{transform}_fractional_scales", x, (1, 1, 1.7, 0.65),
                         mode=mode, coordinate_transformation_mode=transform)
    for rounding in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
        for transform in ("half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"):
            opset = 11 if transform == "tf_half_pixel_for_nn" else 19
            yield resize(f"nearest_{rounding}_{transform}", In((1, 2, 4, 6)), (1, 1, 2.5, 1.5),
                         opset=opset, mode="nearest", nearest_mode=rounding,
                         coordinate_transformation_mode=transform)
            yield resize(f"nearest_{rounding}_{transform}_sizes", In((1, 2, 4, 6)), sizes=(1, 2, 3, 11),
                         opset=opset, mode="nearest", nearest_mode=rounding,
                         coordinate_transformation_mode=transform)
    # tf_crop_and_resize: roi reaching outside the input gives the extrapolation value.
    # The sizes keep every axis resized under --symbolic (ORT ignores the roi of an axis
    # whose size it keeps).
    outside = (0, 0, -0.25, 0.5, 1, 1, 1.5, 1.25)
    for mode in ("nearest", "linear", "cubic"):
        yield resize(f"{mode}_crop_extrapolation", x, sizes=(1, 2, 7, 10), roi=outside, mode=mode,
                     coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-2.5)
    yield resize("nearest_crop_extrapolation_i32", In((1, 2, 6, 8), I32), sizes=(1, 2, 7, 10), roi=outside,
                 mode="nearest", coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=7.0)
    # Cubic: the coefficient and exclude_outside.
    for kind, scales in (("up", (1, 1, 2, 1.5)), ("down", (1, 1, 0.5, 0.75))):
        yield resize(f"cubic_a_half_{kind}", x, scales, mode="cubic", cubic_coeff_a=-0.5)
        yield resize(f"cubic_exclude_outside_{kind}", x, scales, mode="cubic", exclude_outside=1)
        yield resize(f"cubic_exclude_outside_align_corners_{kind}", x, scales, mode="cubic", exclude_outside=1,
                     cubic_coeff_a=-0.5, coordinate_transformation_mode="align_corners")
    # The opset-18 axes, and the aspect-ratio policies.
    yield resize("axes_scales", x, (2, 0.5), opset=18, axes=[2, 3], mode="linear")
    yield resize("axes_last_sizes", x, sizes=(11,), opset=18, axes=[3], mode="cubic")
    yield resize("axes_height_only", x, sizes=(9,), opset=18, axes=[2], mode="linear")
    yield resize("axes_reversed", x, sizes=(5, 9), opset=18, axes=[3, 2], mode="linear")
    yield resize("axes_negative", x, (1.5, 2), opset=18, axes=[-1, -2], mode="nearest")
    yield resize("axes_channels", In((1, 4, 5, 3)), (2,), opset=18, axes=[1], mode="linear")
    for policy in ("not_larger", "not_smaller"):
        for mode in ("nearest", "linear"):
            yield resize(f"{policy}_{mode}", x, sizes=(7, 7), opset=18, axes=[2, 3], mode=mode,
                         keep_aspect_ratio_policy=policy)
        yield resize(f"{policy}_all_axes", x, sizes=(1, 2, 9, 10), opset=19, mode="nearest",
                     keep_aspect_ratio_policy=policy)
    # Antialias (downsampling widens the filter).
    big = In((1, 2, 16, 16))
    for mode in ("linear", "cubic"):
        for scales in ((1, 1, 0.5, 0.75), (1, 1, 0.25, 0.375), (1, 1, 2, 0.5)):
            tag = "_".join(str(s).replace(".", "p") for s in scales[2:])
            yield resize(f"antialias_{mode}_{tag}", big, scales, opset=18, mode=mode, antialias=1)
        yield resize(f"antialias_{mode}_exclude_outside", big, (1, 1, 0.25, 0.375), opset=18, mode=mode,
                     antialias=1, exclude_outside=1)
        yield resize(f"antialias_{mode}_sizes", big, sizes=(1, 2, 5, 7), opset=18, mode=mode, antialias=1)
        yield resize(f"antialias_{mode}_align_corners", big, (1, 1, 0.5, 0.25), opset=18, mode=mode, antialias=1,
                     coordinate_transformation_mode="align_corners")
        yield resize(f"antialias_{mode}_nhwc", In((1, 16, 12, 3)), (1, 0.5, 0.25, 1), opset=18, mode=mode,
                     antialias=1)
    yield resize("antialias_cubic_a_half", big, (1, 1, 0.5, 0.375), opset=18, mode="cubic", antialias=1,
                 cubic_coeff_a=-0.5)
    yield resize("antialias_linear_3d", In((2, 16, 12)), (1, 0.5, 0.25), opset=18, mode="linear", antialias=1)
    yield resize("antialias_linear_crop", big, (1, 1, 0.5, 0.25), roi=(0, 0, 0.25, 0.25, 1, 1, 0.75, 1.25),
                 opset=18, mode="linear", antialias=1, coordinate_transformation_mode="tf_crop_and_resize")
    # Ranks 1 to 5, every axis, and kept axes after the resized ones (NHWC).
    yield resize("nearest_1d", In((5,)), (1.5,), mode="nearest")
    yield resize("linear_2d", In((5, 6)), (2, 1.5), mode="linear")
    yield resize("cubic_2d", In((5, 6)), (0.5, 1.5), mode="cubic")
    yield resize("nearest_2d_sizes", In((5, 6)), sizes=(3, 13), mode="nearest")
    yield resize("linear_3d_last_two", In((2, 5, 6)), (1, 2, 1.5), mode="linear")
    yield resize("linear_3d_every_axis", In((2, 5, 6)), (2, 2, 1.5), mode="linear")
    yield resize("linear_5d_trilinear", In((1, 2, 3, 4, 5)), (1, 1, 2, 1.5, 0.5), mode="linear")
    yield resize("linear_5d_sizes", In((1, 2, 3, 4, 5)), sizes=(1, 2, 5, 3, 7), mode="linear",
                 coordinate_transformation_mode="align_corners")
    yield resize("nearest_5d", In((1, 2, 3, 4, 5)), (1, 1, 2, 0.5, 1.5), mode="nearest")
    yield resize("nearest_every_axis", In((2, 3, 4, 5)), (2, 0.5, 1.5, 2), mode="nearest")
    yield resize("nearest_batch_and_width", In((2, 3, 4, 5)), (1.5, 1, 1, 2), mode="nearest")
    for mode in ("nearest", "linear", "cubic"):
        yield resize(f"{mode}_nhwc", In((1, 4, 5, 3)), (1, 2, 1.5, 1), mode=mode)
    for mode in ("nearest", "linear"):  # ORT's cubic takes NHWC upsampling only
        yield resize(f"{mode}_nhwc_down", In((1, 6, 8, 3)), (1, 0.5, 0.75, 1), mode=mode,
                     coordinate_transformation_mode="align_corners")
    # The YOLO upsampling, and rows longer than a chunk of the kernel's column taps.
    yield resize("nearest_2x_asymmetric_floor", In((1, 8, 10, 10)), (1, 1, 2, 2), mode="nearest",
                 coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    yield resize("nearest_2x_half_pixel", In((1, 8, 10, 10)), (1, 1, 2, 2), mode="nearest")
    yield resize("linear_2x_align_corners", In((1, 8, 10, 10)), (1, 1, 2, 2), mode="linear",
                 coordinate_transformation_mode="align_corners")
    yield resize("nearest_long_rows", In((1, 1, 2, 1100)), (1, 1, 1, 2), mode="nearest")
    yield resize("linear_long_rows", In((1, 1, 2, 1100)), (1, 1, 2, 2), mode="linear")
    yield resize("cubic_long_rows", In((1, 1, 2, 700)), (1, 1, 1, 3), mode="cubic")
    # Integer and f16 nearest: a gather of 1-, 2- and 4-byte elements.
    for dtype, tag in ((np.int8, "i8"), (np.uint8, "u8"), (I32, "i32"), (np.float16, "f16")):
        yield resize(f"nearest_{tag}", In((1, 2, 6, 8), dtype), (1, 1, 1.5, 0.75), mode="nearest")
        yield resize(f"nearest_{tag}_sizes", In((1, 2, 6, 8), dtype), sizes=(1, 2, 3, 13), mode="nearest",
                     coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    # Output extents of 1 and 0.
    for transform in ("align_corners", "pytorch_half_pixel", "half_pixel"):
        yield resize(f"cubic_to_one_{transform}", x, sizes=(1, 2, 1, 1), mode="cubic",
                     coordinate_transformation_mode=transform)
    yield resize("linear_to_empty", x, (1, 1, 0.125, 1), mode="linear")
    yield resize("identity_scales", x, (1, 1, 1, 1), mode="cubic")
    # Opsets: 10 (asymmetric; nearest truncates up, rounds up down), 11 (roi and scales
    # required, empty), 13, and Upsample.
    yield resize("opset10_nearest_up", x, (1, 1, 2, 1.5), opset=10, mode="nearest")
    yield resize("opset10_nearest_down", x, (1, 1, 0.5, 0.625), opset=10, mode="nearest")
    yield resize("opset10_linear", x, (1, 1, 2, 0.75), opset=10, mode="linear")
    yield resize("opset11_sizes", x, sizes=(1, 2, 9, 5), opset=11, mode="linear")
    yield resize("opset11_cubic_scales", x, (1, 1, 2, 1.5), opset=11, mode="cubic",
                 coordinate_transformation_mode="align_corners")
    yield resize("opset13_sizes_no_roi", x, sizes=(1, 2, 9, 5), opset=13, mode="cubic")
    yield resize("opset13_crop", x, sizes=(1, 2, 4, 5), roi=crop, opset=13, mode="linear",
                 coordinate_transformation_mode="tf_crop_and_resize")
    for opset in (7, 8, 9):
        yield upsample(f"opset{opset}_nearest", x, (1, 1, 2, 3), opset, mode="nearest")
        yield upsample(f"opset{opset}_linear", x, (1, 1, 2, 1.5), opset, mode="linear")
    yield upsample("opset9_nearest_fractional", In((2, 3, 5)), (2, 1, 1.5), 9, mode="nearest")
    # Sizes from a shape computation: the batch from Shape(x) (a symbol under --symbolic),
    # and a whole shape from another input.
    yield graph("resize/sizes_from_shape", [
        node("Shape", ["x"], ["shape"]),
        node("Slice", ["shape", "zero", "two"], ["batch_channels"]),
        node("Concat", ["batch_channels", "spatial"], ["sizes"], axis=0),
        node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear")],
        {"x": In((2, 3, 6, 8))}, ["y"], dict(zero=i64(0), two=i64(2), spatial=i64(9, 12)), opset=13)
    yield graph("resize/sizes_like_other_input", [
        node("Shape", ["like"], ["sizes"]),
        node("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest")],
        {"x": In((2, 3, 6, 8)), "like": In((2, 3, 9, 5))}, ["y"], opset=13)

    # Between convolutions: the blocked NCHWc layout (12 channels: a padded block).
    rng = np.random.default_rng(_seed("resize/blocked"))
    weights = {name: (rng.standard_normal((12, 12, 3, 3)) * 0.2).astype(F32) for name in ("w1", "w2")}
    for name, inputs, attrs, opset in (
            ("nearest_2x", ["", "scales"], dict(mode="nearest"), 13),
            ("linear_sizes", ["", "", "sizes"], dict(mode="linear"), 13),
            ("cubic_axes_crop", ["roi", "hw_scales"], dict(mode="cubic", axes=[3, 2], extrapolation_value=0.5,
                                                           coordinate_transformation_mode="tf_crop_and_resize"), 18)):
        consts = dict(weights, scales=f32(1, 1, 2, 2), sizes=i64(2, 12, 9, 13), hw_scales=f32(0.75, 1.5),
                      roi=f32(0.25, -0.125, 1.125, 0.75))
        used = {k: v for k, v in consts.items() if k in inputs or k in weights}
        yield graph(f"resize/blocked_{name}", [
            node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
            node("Resize", ["c1", *inputs], ["r"], **attrs),
            node("Conv", ["r", "w2"], ["y"], pads=[1, 1, 1, 1])],
            {"x": In((2, 12, 6, 8))}, ["y"], used, opset=opset)

    # Sizes given at run time, in a range: symbolic output dims, the scale computed by the run.
    model = make_model([node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear")],
                       {"x": In((1, 2, 6, 8)), "sizes": In((4,), I64)}, ["y"], opset=13)
    rng = np.random.default_rng(_seed("resize/runtime_sizes"))
    feeds = [{"x": rng.standard_normal((1, 2, 6, 8)).astype(F32), "sizes": np.array(s, I64)}
             for s in ([1, 2, 9, 12], [1, 2, 3, 3], [1, 2, 16, 20], [1, 2, 5, 17])]
    yield SymbolicCase("resize/runtime_sizes", model, feeds,
                       ("--value-range", "sizes=1,2,3,3:1,2,9,12:1,2,16,20"))

    # Refused at compile time, naming the reason.
    scales_input = make_model([node("Resize", ["x", "", "scales"], ["y"], name="runtime_scales")],
                              {"x": In((1, 2, 6, 8)), "scales": In((4,))}, ["y"], opset=13)
    yield Case("resize/scales_at_run_time", scales_input, {}, kind="compile_error",
               expect=("runtime_scales", "scales (input 2) must be known at compile time",
                       "--value scales="))
    # ... unless --value fixes them: infer.bin checks each run's scales.
    rng = np.random.default_rng(_seed("resize/scales_fixed_by_value"))
    feeds = [{"x": rng.standard_normal((1, 2, 6, 8)).astype(F32), "scales": f32(1, 1, 2, 0.5)} for _ in range(2)]
    yield SymbolicCase("resize/scales_fixed_by_value", scales_input, feeds, ("--value", "scales=1,1,2,0.5"))
    yield Case("bad_input/resize_scales_unlike_fixed", scales_input, {**feeds[0], "scales": f32(1, 1, 2, 0.25)},
               kind="bad_input", compile_args=("--value", "scales=1,1,2,0.5"),
               expect=("input 'scales' element 3 is 0.25", "compiled for 0.5 (--value)"))
    linear_i32 = make_model([node("Resize", ["x", "", "scales"], ["y"], name="linear_ints", mode="linear")],
                            {"x": In((1, 2, 6, 8), I32)}, ["y"], dict(scales=f32(1, 1, 2, 2)), opset=13)
    yield Case("resize/linear_of_integers", linear_i32, {}, kind="compile_error",
               expect=("linear_ints", "linear interpolation of i32 is not supported"))
    symbolic = make_model([node("Resize", ["x", "", "scales"], ["y"], name="odd_scale")],
                          {"x": In((1, 2, 6, "w"))}, ["y"], dict(scales=f32(1, 1, 1, 0.7)), opset=13)
    yield Case("resize/inexact_scale_of_symbolic_dim", symbolic, {}, kind="compile_error",
               compile_args=("--shape-range", "x=1x2x6x1:1x2x6x8:1x2x6x20"),
               expect=("odd_scale", "scale 0.7 of symbolic dim", "at dim = 10"))
    policy = make_model([node("Resize", ["x", "", "", "sizes"], ["y"], name="aspect", axes=[2, 3],
                              keep_aspect_ratio_policy="not_larger")],
                        {"x": In((1, 2, "h", 8))}, ["y"], dict(sizes=i64(7, 7)), opset=18)
    yield Case("resize/aspect_policy_of_symbolic_dims", policy, {}, kind="compile_error",
               compile_args=("--shape-range", "x=1x2x1x8:1x2x6x8:1x2x9x8"),
               expect=("aspect", "keep_aspect_ratio_policy not_larger needs static input dims"))


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


def string_cases():
    """String tensors: Cast to and from numbers, StringNormalizer, and the data movement
    ops that carry strings. Numbers cast to text are ones whose shortest digits are the
    ones ONNX Runtime's %.8g writes (cuvil writes the shortest that read back)."""
    T = onnx.TensorProto
    eighths = lambda r, s: r.integers(-40000, 40000, s) / 8
    specials = lambda r, s: np.resize(np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e20, 0.25, 0.001, 16777216.0,
                                                123456.5, -7.75, 1e-30]), s)
    texts = lambda *values: (lambda r, s: np.resize(np.array(values), s))
    for name, x in [("f32", In((3, 5), gen=eighths)), ("f32_special", In((12,), gen=specials)),
                    ("f64", In((2, 6), np.float64, gen=eighths)), ("f16", In((9,), np.float16, gen=eighths)),
                    ("i64", In((2, 3), I64, gen=lambda r, s: r.integers(-2**62, 2**62, s))),
                    ("i32", In((7,), I32)), ("u8", In((6,), np.uint8, gen=lambda r, s: r.integers(0, 256, s))),
                    ("bool", In((2, 4), BOOL))]:
        yield single(f"string/cast_{name}_to_string", "Cast", [x], dict(to=T.STRING))
    numbers = texts("3.5", "-1e-5", "INF", "-inf", "NaN", "+INF", " 7", "0.1", "1e39", "12abc", "0x10", "1E8")
    for name, x, to in [("f32", In((12,), np.str_, gen=numbers), T.FLOAT),
                        ("f64", In((2, 3), np.str_, gen=texts("0.1", "1e300", "-3.25", "-0.0", "inf", "7")), T.DOUBLE),
                        ("f16", In((4,), np.str_, gen=texts("0.1", "70000", "1e-9", "-2.5")), T.FLOAT16),
                        ("i64", In((5,), np.str_, gen=texts("100", "-7", "9223372036854775807", "100.5", "  42")), T.INT64),
                        ("u8", In((3,), np.str_, gen=texts("300", "-1", "12")), T.UINT8),
                        ("bool", In((4,), np.str_, gen=texts("0", "1", "2", "10")), T.BOOL)]:
        yield single(f"string/cast_string_to_{name}", "Cast", [x], dict(to=to))
    yield single("string/castlike_f32_like_string", "CastLike", [In((2, 3), gen=eighths), In((1,), np.str_, gen=texts("a"))],
                 opset=15)
    yield graph("string/f32_round_trip", [node("Cast", ["x"], ["s"], to=T.STRING), node("Cast", ["s"], ["y"], to=T.FLOAT)],
                {"x": In((4, 6), gen=eighths)}, ["y", "s"])

    # StringNormalizer at the C.UTF-8 locale (the one every Debian has; ONNX Runtime
    # refuses the default en_US where it is not installed) and at C (ASCII letters only).
    words = texts("Monday", "tuesday", "ÄRGER straße", "ΑΒΓ σς", "Привет ЁЖ", "MONDAY", "Ŀŀ Źź ÿ", "日本", "", "monday!")
    for name, attrs, shape in [
            ("lower_stopwords_any_case", dict(case_change_action="LOWER", stopwords=["monday", "ärger straße"]), (10,)),
            ("upper_stopwords_case_sensitive", dict(case_change_action="UPPER", stopwords=["Monday", "日本"],
                                                    is_case_sensitive=1), (10,)),
            ("none_two_dim", dict(stopwords=["tuesday", "привет ёж"]), (1, 10)),
            ("upper_no_stopwords", dict(case_change_action="UPPER"), (1, 10)),
            ("lower_c_locale", dict(case_change_action="LOWER", stopwords=["MONDAY"], is_case_sensitive=1, locale="C"), (10,)),
            ("all_stopwords", dict(case_change_action="LOWER", stopwords=["Monday", "tuesday", "ärger straße", "αβγ σς",
                                                                           "привет ёж", "ŀŀ źź ÿ", "日本", "", "monday!"]),
             (10,))]:
        attrs.setdefault("locale", "C.UTF-8")
        yield single(f"string/normalizer_{name}", "StringNormalizer", [In(shape, np.str_, gen=words)], attrs, opset=10)

    # RegexFullMatch (opset 20) against ONNX Runtime's RE2: classes, counts, anchors,
    # word boundaries, flags and case folding beyond ASCII, on texts with several
    # UTF-8 lengths, newlines and empty strings.
    tokens_for_concat = texts("", "x", "ÄÖÜ", " ", "日本", "😀")
    lines = texts("john.doe@example.com", "x@y", "Monday", "monday 12", "ΣΑΣ σας", "", "a\nb", "日本語",
                  "555-1234", "😀!", "ab_c d", "K\u212ak", "Straße", "aaaa", "-", "foo bar")
    for name, pattern in [("email", r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"),
                          ("caseless_unicode", r"(?i)(σας|monday|k+|straße)( \d+)?"),
                          ("counts_and_anchors", r"^\d{3}-\d{4}$|a{2,3}|(a{2}){2}"),
                          ("perl_classes", r"\w+\s\W*|\S+"),
                          ("word_boundaries", r"\bfoo\b.*|.*\Bay.*"),
                          ("multiline_and_dot", r"(?m)a$\n^b|(?s:.)+語"),
                          ("negated_posix_class", r"[^[:alnum:]\s]+|[[:upper:]][[:lower:]]+"),
                          ("escapes", r"\x{1F600}\Q!\E|\Qa.b\E|-"),
                          ("empty_pattern", r"")]:
        yield single(f"string/regex_{name}", "RegexFullMatch", [In((4, 4), np.str_, gen=lines)],
                     dict(pattern=pattern), opset=20)
    # StringConcat (opset 20): numpy broadcasting, texts of several UTF-8 lengths, empty ones.
    yield single("string/concat_same_shape", "StringConcat", [In((4, 4), np.str_, gen=lines),
                                                              In((4, 4), np.str_, gen=tokens_for_concat)], opset=20)
    yield single("string/concat_broadcast", "StringConcat", [In((3, 1, 4), np.str_, gen=lines),
                                                             In((2, 1), np.str_, gen=texts("-suffix", ""))], opset=20)
    yield single("string/concat_empty", "StringConcat", [In((0, 3), np.str_, gen=lines),
                                                         In((1, 3), np.str_, gen=lines)], opset=20)
    yield single("string/regex_empty", "RegexFullMatch", [In((2, 0), np.str_, gen=lines)],
                 dict(pattern="a+"), opset=20)
    yield single("string/concat_scalar_prefix", "StringConcat", [In((), np.str_, gen=texts("pre:")),
                                                                 In((5,), np.str_, gen=lines)], opset=20)
    model = make_model([node("RegexFullMatch", ["words"], ["a"], name="unclosed", pattern="(ab|c"),
                        node("RegexFullMatch", ["words"], ["b"], name="unicode_class", pattern=r"\pL+"),
                        node("RegexFullMatch", ["words"], ["c"], name="huge", pattern="(abc){1000}")],
                       {"words": In((3,), np.object_)}, ["a", "b", "c"], opset=20,
                       output_types={"a": (BOOL, (3,)), "b": (BOOL, (3,)), "c": (BOOL, (3,))})
    yield Case("string/regex_bad_patterns", model, {}, kind="compile_error",
               expect=("3 nodes fail", "unclosed", "missing ) at offset 0", "unicode_class",
                       r"Unicode character classes (\p, \P) are not supported", "huge",
                       "the pattern needs more than 2048 automaton states"))

    # Data movement carries strings as they are.
    tokens = texts("apple", "Banana", "ÄÖÜ", "ΑΒΓ", "", "a b", "x", "yz", "日本", "long token here", "q", "é")
    x = In((3, 4), np.str_, gen=tokens)
    yield single("string/reshape", "Reshape", [x, i64(2, 6)])
    yield single("string/transpose", "Transpose", [x], dict(perm=[1, 0]))
    yield single("string/concat", "Concat", [x, In((2, 4), np.str_, gen=tokens)], dict(axis=0))
    yield single("string/gather", "Gather", [x, i64(3, 0, 0, 2)], dict(axis=1))
    yield single("string/slice", "Slice", [x, i64(1), i64(3), i64(1)])
    yield single("string/split", "Split", [x], dict(axis=1, num_outputs=2), opset=18, outputs=2)
    yield single("string/unsqueeze", "Unsqueeze", [x, i64(0)])
    yield single("string/expand", "Expand", [In((1, 4), np.str_, gen=tokens), i64(3, 4)])
    yield single("string/tile", "Tile", [x, i64(2, 1)])
    yield single("string/where", "Where", [In((3, 4), BOOL), x, In((4,), np.str_, gen=tokens)])
    yield single("string/identity", "Identity", [x])
    yield single("string/equal_broadcast", "Equal", [x, In((4,), np.str_, gen=texts("apple", "x", "ÄÖÜ", ""))],
                 opset=19)
    # String constants: an initializer, a Constant's tensor and its value_strings, made
    # at run time (IR constants hold no strings); Where picks from them, Equal against one.
    labels = np.array([["yes", "no", "ça", ""]])
    yield single("string/where_initializer_branch", "Where", [In((3, 4), BOOL), labels, x])
    yield graph("string/equal_constant_and_value_strings",
                [node("Constant", [], ["pad"], value=numpy_helper.from_array(np.array("x", dtype=object))),
                 node("Equal", ["x", "pad"], ["is_pad"]),
                 node("Constant", [], ["names"], value_strings=["alpha", "βeta", "", "delta"]),
                 node("Where", ["is_pad", "names", "x"], ["y"])],
                {"x": x}, ["is_pad", "y"], opset=19)


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
    # Integer Max, Min, Sum and Prod (ONNX Runtime's int32/int64 kernels). Max and Min of values
    # past 2^53 stay exact; sums stay below 2^53, where ONNX Runtime's int64 sum rounds.
    ints64 = lambda r, s: r.integers(-2**62, 2**62, s)
    sums64 = lambda r, s: r.integers(-2**40, 2**40, s)
    small = lambda r, s: r.integers(-3, 4, s)
    for op in ("ReduceMax", "ReduceMin", "ReduceSum", "ReduceProd"):
        for dtype, name in ((I64, "i64"), (I32, "i32")):
            gen = (small if op == "ReduceProd" else None if dtype == I32
                   else sums64 if op == "ReduceSum" else ints64)
            yield single(f"{op.lower()}/opset18_{name}_axes_1", op, [In((3, 5, 4), dtype, gen=gen), i64(1)],
                         opset=18)
            yield single(f"{op.lower()}/opset18_{name}_all_nokeep", op, [In((2, 7), dtype, gen=gen)],
                         dict(keepdims=0), opset=18)

    d = In((3, 4, 5))
    yield single("dropout/opset7_ratio_attr", "Dropout", [d], dict(ratio=0.5), opset=7)
    yield single("dropout/opset10", "Dropout", [d], dict(ratio=0.2), opset=10)
    yield single("dropout/opset12_no_ratio", "Dropout", [d], opset=12)
    yield single("dropout/opset12_ratio_input", "Dropout", [d, scalar(0.3)], opset=12)
    yield single("dropout/opset13_ratio_training_false", "Dropout", [d, scalar(0.1), scalar(False, BOOL)], opset=13)
    # Training with ratio 0 (as torch exports a module left in train mode) is the identity; the mask all true.
    yield single("dropout/training_zero_ratio_mask", "Dropout", [d, scalar(0.0), scalar(True, BOOL)], outputs=2,
                 opset=13)
    # Training-mode draws are tests/e2e/test_random.py's; whether to draw must be known.
    model = make_model([node("Dropout", ["x", "ratio", "training"], ["y"], name="drop")],
                       {"x": In((2, 3)), "training": In((), BOOL)}, ["y"], dict(ratio=scalar(0.25)), opset=13)
    yield Case("unsupported/dropout_training_mode_at_run_time", model, {}, kind="compile_error",
               expect=("drop", "training_mode"))
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
                              # A detector's per-class top 300 of a few thousand.
                              ("f32_long_axis_k300", In((1, 3000)), 300, {}),
                              ("f32_long_axis_k300_smallest_ties", In((2, 3000), gen=ties), 300,
                               dict(largest=0)),
                              ("f32_signed_zeros_tie", In((3, 10), gen=lambda rng, shape: rng.choice(
                                  np.array([-0.0, 0.0, 1.0, -1.0], np.float32), shape)), 5, {}),
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


def _ints(lo, hi):
    return lambda r, shape: r.integers(lo, hi + 1, shape)


def _quantized(shape, dtype=np.uint8):
    """Data filling a quantized type's range."""
    info = np.iinfo(dtype)
    return In(shape, dtype, gen=_ints(info.min, info.max))


def _full_u8(shape):
    """u8 data at its largest value, 255."""
    return In(shape, np.uint8, gen=lambda r, s: np.full(s, 255))


def paired_byte_sets(rng, shape, line_axis, full=False):
    """i8 weights in [-127, 127] whose sets of four (K positions {0, 1, 4, 5}
    and {2, 3, 6, 7} of each 8 along a line: a convolution's output channel
    [M, K...], a GEMM column [K, N]) sum to at most 128 in |w|: each set
    scaled down to fit, or, with `full`, to exactly 128 where it can."""
    w = np.moveaxis(rng.integers(-127, 128, shape), line_axis, 0).reshape(shape[line_axis], -1).astype(np.int64)
    lines, K = w.shape
    for line in range(lines):
        for group in range(0, K, 8):
            for first in (0, 2):
                ks = [k for k in (group + first + o for o in (0, 1, 4, 5)) if k < K]
                total = np.abs(w[line, ks]).sum()
                if total > 128 or (full and total > 0):
                    w[line, ks] = np.trunc(w[line, ks] * 128 / total)
                    if full:  # the remainder onto the set's largest weight, within i8
                        big = ks[int(np.argmax(np.abs(w[line, ks])))]
                        room = 128 - np.abs(w[line, ks]).sum()
                        w[line, big] = np.sign(w[line, big]) * min(127, abs(w[line, big]) + room)
    moved = [shape[line_axis]] + [d for i, d in enumerate(shape) if i != line_axis]
    return np.moveaxis(w.reshape(moved), 0, line_axis).astype(np.int8)


def exact_integer_reference(case):
    """`case` (one QLinearMatMul or QLinearConv node, every input but the
    first constant) with an ort_model that computes its integer products in
    float on integer values: exact while every partial sum stays below 2^24.
    ONNX Runtime's own u8 x i8 kernels on x86 CPUs without VNNI multiply with
    vpmaddubsw, whose i16 pair sums saturate on full-range weights (off by up
    to 4 here), so its answer there depends on the CPU."""
    (n,) = case.model.graph.node
    consts = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in case.model.graph.initializer}
    x_scale, x_zero, w, w_scale, w_zero, y_scale = (consts[name] for name in n.input[1:7])
    y_zero = numpy_helper.to_array(next(i for i in case.model.graph.initializer if i.name == n.input[7]))
    conv = n.op_type == "QLinearConv"
    columns = w.shape[0] if conv else w.shape[-1]
    # The requantisation multiplier as cuvil and ONNX Runtime form it, in float32.
    multiplier = (np.float32(x_scale) * np.broadcast_to(w_scale.astype(F32).reshape(-1), (columns,))
                  / np.float32(y_scale)).astype(F32)
    weights = (w - (w_zero.reshape(-1, *[1] * (w.ndim - 1)) if conv else w_zero)).astype(F32)
    inits = {"x_zero": x_zero.astype(F32), "weights": weights, "multiplier":
             multiplier.reshape(-1, *[1] * (len(case.feeds[n.input[0]].shape) - 2)) if conv else multiplier,
             "one": scalar(1.0), "y_zero": y_zero}
    nodes = [node("Cast", [n.input[0]], ["xf"], to=onnx.TensorProto.FLOAT),
             node("Sub", ["xf", "x_zero"], ["xs"])]
    if conv:
        bias = [] if len(n.input) < 9 else ["bias"]
        if bias:
            inits["bias"] = consts[n.input[8]].astype(F32)
        nodes.append(helper.make_node("Conv", ["xs", "weights", *bias], ["acc"], **{
            a.name: helper.get_attribute_value(a) for a in n.attribute}))
    else:
        nodes.append(node("MatMul", ["xs", "weights"], ["acc"]))
    nodes += [node("Mul", ["acc", "multiplier"], ["scaled"]),
              node("QuantizeLinear", ["scaled", "one", "y_zero"], [n.output[0]])]
    x = case.feeds[n.input[0]]
    ort_model = make_model(nodes, {n.input[0]: In(x.shape, x.dtype)}, [n.output[0]], inits, 13)
    return dataclasses.replace(case, ort_model=ort_model)


def quantize_cases():
    """QuantizeLinear, DequantizeLinear (per tensor, per axis, blocked; every opset form; u8, i8,
    u16, i16, i32; omitted zero points; ties rounding to even; saturation), DynamicQuantizeLinear,
    and a QDQ chain around a Conv as ORT's quantize_static writes it."""
    rng = np.random.default_rng(23)
    U8, I8, U16, I16 = np.uint8, np.int8, np.uint16, np.int16

    def array(values, dtype):
        return np.array(values, dtype=dtype)

    ties = lambda r, shape: (r.integers(-300, 300, shape) + 0.5) * 0.25  # noqa: E731 (x / 0.25 = n + 0.5)
    large = [-1e6, -300.0, -3.0, 0.0, 2.5, 400.0, 1e6]
    huge = lambda r, shape: r.choice(large + [np.inf, -np.inf], shape)  # noqa: E731
    x = In((3, 4, 5), gen=scaled(3))

    # QuantizeLinear.
    quantize = [
        ("opset10_u8", [x, scalar(0.05), scalar(128, U8)], {}, 10),
        ("opset13_i8", [x, scalar(0.05), scalar(-3, I8)], {}, 13),
        ("no_zero_point", [x, scalar(0.02)], {}, 13),
        ("one_element_1d_scale", [x, array([0.05], F32), array([7], U8)], {}, 13),
        ("ties_to_even_u8", [In((6, 50), gen=ties), scalar(0.25), scalar(100, U8)], {}, 13),
        ("ties_to_even_i8", [In((6, 50), gen=ties), scalar(0.25), scalar(0, I8)], {}, 13),
        ("saturate_u8", [In((4, 9), gen=huge), scalar(0.5), scalar(10, U8)], {}, 13),
        ("saturate_i8", [In((4, 9), gen=huge), scalar(0.5), scalar(-10, I8)], {}, 13),
        ("per_axis1_i8", [x, rng.uniform(0.02, 0.1, 4), array([-5, 0, 3, 9], I8)], dict(axis=1), 13),
        ("per_axis0_u8", [x, rng.uniform(0.02, 0.1, 3), array([0, 128, 255], U8)], dict(axis=0), 13),
        ("per_axis_last_no_zero_point", [x, rng.uniform(0.02, 0.1, 5)], dict(axis=-1), 13),
        ("per_axis_default_axis", [x, rng.uniform(0.02, 0.1, 4), array([1, 2, 3, 4], U8)], {}, 13),
        ("runtime_scale_zero_point", [x, In((), gen=uniform(0.02, 0.1)), In((), U8, gen=_ints(0, 255))], {}, 13),
        ("opset19_saturate", [x, scalar(0.05), scalar(5, I8)], dict(saturate=1), 19),
        ("opset21_u16", [x, scalar(0.001), scalar(30000, U16)], {}, 21),
        ("opset21_i16", [In((4, 9), gen=lambda r, shape: r.choice(large, shape)), scalar(0.01), scalar(-300, I16)], {},
         21),
        ("opset21_output_dtype_i8", [x, scalar(0.05)], dict(output_dtype=3), 21),
        ("opset21_blocked_axis1", [In((2, 6, 3), gen=scaled(3)), rng.uniform(0.02, 0.1, (2, 3, 3)),
                                   rng.integers(-5, 5, (2, 3, 3)).astype(I8)], dict(axis=1, block_size=2), 21),
        ("opset21_blocked_last_uneven", [In((3, 7), gen=scaled(3)), rng.uniform(0.02, 0.1, (3, 3)),
                                         rng.integers(100, 150, (3, 3)).astype(U8)], dict(axis=-1, block_size=3),
         21),
        ("opset21_blocked_axis0", [In((5, 4), gen=scaled(3)), rng.uniform(0.02, 0.1, (3, 4))],
         dict(axis=0, block_size=2), 21),
        ("opset23", [x, rng.uniform(0.02, 0.1, 4), array([1, 2, 3, 4], I8)], dict(axis=1), 23),
        ("empty", [In((0, 4)), scalar(0.1), scalar(1, U8)], {}, 13),
        ("long_rows", [In((3, 20000), gen=scaled(3)), rng.uniform(0.02, 0.1, 3), array([1, 2, 3], U8)],
         dict(axis=0), 13),
    ]
    for name, args, attrs, opset in quantize:
        yield single(f"quantizelinear/{name}", "QuantizeLinear", args, attrs, opset=opset)

    # DequantizeLinear.
    dequantize = [
        ("opset10_u8", [_quantized((3, 4, 5)), scalar(0.05), scalar(128, U8)], {}, 10),
        ("opset13_i8", [_quantized((3, 4, 5), I8), scalar(0.05), scalar(-3, I8)], {}, 13),
        ("opset13_i32_bias", [In((7,), I32, gen=_ints(-100000, 100000)), scalar(0.001)], {}, 13),
        ("no_zero_point", [_quantized((3, 4, 5)), scalar(0.02)], {}, 19),
        # ORT's quantize_static writes a LayerNorm bias's scale as [1], its zero point as []:
        # one element each is per tensor (the axis beyond a 1-D x's rank unused).
        ("scale_1_zero_point_scalar", [_quantized((7,)), array([0.02], F32), scalar(128, U8)], {}, 13),
        ("per_axis1_i8", [_quantized((3, 4, 5), I8), rng.uniform(0.02, 0.1, 4), array([-5, 0, 3, 9], I8)],
         dict(axis=1), 19),
        ("per_axis0_u8", [_quantized((3, 4, 5)), rng.uniform(0.02, 0.1, 3), array([0, 128, 255], U8)],
         dict(axis=0), 19),
        ("per_axis_last_no_zero_point", [_quantized((3, 4, 5), I8), rng.uniform(0.02, 0.1, 5)], dict(axis=-1), 19),
        ("runtime_scale_zero_point", [_quantized((3, 4, 5)), In((), gen=uniform(0.02, 0.1)),
                                      In((), U8, gen=_ints(0, 255))], {}, 19),
        ("opset21_u16", [_quantized((4, 9), U16), scalar(0.001), scalar(30000, U16)], {}, 21),
        ("opset21_i16", [_quantized((4, 9), I16), scalar(0.01), scalar(-300, I16)], {}, 21),
        ("opset21_i32_per_axis", [In((3, 5), I32, gen=_ints(-100000, 100000)), rng.uniform(0.001, 0.01, 5)],
         dict(axis=1), 21),
        ("opset21_blocked_axis1", [_quantized((2, 6, 3), I8), rng.uniform(0.02, 0.1, (2, 3, 3)),
                                   rng.integers(-5, 5, (2, 3, 3)).astype(I8)], dict(axis=1, block_size=2), 21),
        ("opset21_blocked_last_uneven", [_quantized((3, 7)), rng.uniform(0.02, 0.1, (3, 3)),
                                         rng.integers(100, 150, (3, 3)).astype(U8)], dict(axis=-1, block_size=3),
         21),
        ("opset23_output_dtype", [_quantized((3, 4)), scalar(0.05), scalar(9, U8)], dict(output_dtype=1), 23),
        ("empty", [_quantized((0, 4)), scalar(0.1), scalar(1, U8)], {}, 19),
    ]
    for name, args, attrs, opset in dequantize:
        yield single(f"dequantizelinear/{name}", "DequantizeLinear", args, attrs, opset=opset)
    # Weights stored as int8 dequantize at compile time, and feed the Conv as constants.
    weights = rng.integers(-127, 128, (6, 3, 3, 3)).astype(I8)
    yield graph("dequantizelinear/constant_weights_fold",
                [node("DequantizeLinear", ["wq", "ws", "wz"], ["w"], axis=0), node("Conv", ["x", "w"], ["y"])],
                {"x": In((1, 3, 8, 8))}, ["y"],
                dict(wq=weights, ws=rng.uniform(0.005, 0.02, 6).astype(F32), wz=np.zeros(6, I8)), opset=19)

    # DynamicQuantizeLinear.
    dynamic = [
        ("mixed", In((3, 4), gen=scaled(2))),
        ("positive", In((5, 7), gen=uniform(0.5, 4))),
        ("negative", In((5, 7), gen=uniform(-4, -0.5))),
        ("all_zeros", In((2, 3), gen=lambda r, shape: np.zeros(shape))),
        ("long_ragged", In((7, 333), gen=scaled(5))),
    ]
    for name, arg in dynamic:
        yield single(f"dynamicquantizelinear/{name}", "DynamicQuantizeLinear", [arg], opset=11, outputs=3)

    # A QDQ Conv as ORT's quantize_static writes it: activations quantized to u8
    # and back around the float Conv, int8 weights per channel and an int32 bias
    # dequantized from constants. ORT fuses it into a QLinearConv, which may round
    # a tie the other way than the float Conv: one output quantum of tolerance.
    m, x_scale, y_scale = 6, 0.02, 0.05
    w_scale = rng.uniform(0.002, 0.01, m).astype(F32)
    inits = dict(xs=scalar(x_scale), xz=scalar(128, U8), wq=rng.integers(-127, 128, (m, 3, 3, 3)).astype(I8),
                 ws=w_scale, wz=np.zeros(m, I8), bq=rng.integers(-500, 500, m).astype(I32),
                 bs=(w_scale * np.float32(x_scale)).astype(F32), bz=np.zeros(m, I32), ys=scalar(y_scale),
                 yz=scalar(120, U8))
    chain = [node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]), node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
             node("DequantizeLinear", ["wq", "ws", "wz"], ["w"], axis=0),
             node("DequantizeLinear", ["bq", "bs", "bz"], ["b"], axis=0),
             node("Conv", ["xd", "w", "b"], ["c"], pads=[1, 1, 1, 1]), node("Relu", ["c"], ["r"]),
             node("QuantizeLinear", ["r", "ys", "yz"], ["yq"]), node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])]
    yield graph("qdq/conv_chain", chain, {"x": In((1, 3, 10, 10), gen=uniform(-2, 2))}, ["y"], inits, opset=19,
                atol=y_scale * 1.01)

    # ORT's QDQ inverted-residual block (expand 1x1, depthwise 3x3, project 1x1, residual
    # Add): fuse-qdq keeps all three convolutions f32 and each QuantizeLinear ->
    # DequantizeLinear pair becomes a cuvil.FakeQuantize in the producer's epilogue. ORT runs
    # them on its integer kernels, which may round a tie the other way (a quantum of the
    # final scale of tolerance); 7-bit weights, which its AVX2 kernels multiply exactly.
    c, e = 8, 32
    ws_e, ws_d, ws_p = (rng.uniform(0.002, 0.01, k).astype(F32) for k in (e, e, c))
    block_inits = dict(xs=scalar(0.03), xz=scalar(128, U8), es=scalar(0.02), ez=scalar(0, U8), ds=scalar(0.03),
                       dz=scalar(0, U8), ps=scalar(0.04), pz=scalar(120, U8), ys=scalar(0.05), yz=scalar(128, U8))
    block = [node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]), node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"])]
    for stage, (wshape, ws, inp, out, attrs) in enumerate([
            ((e, c, 1, 1), ws_e, "xd", "e", {}),
            ((e, 1, 3, 3), ws_d, "ed", "d", dict(group=e, pads=[1, 1, 1, 1])),
            ((c, e, 1, 1), ws_p, "dd", "p", {})]):
        in_scale = {"xd": 0.03, "ed": 0.02, "dd": 0.03}[inp]
        block_inits.update({f"w{out}q": rng.integers(-64, 65, wshape).astype(I8), f"w{out}s": ws,
                            f"w{out}z": np.zeros(wshape[0], I8),
                            f"b{out}q": rng.integers(-2000, 2000, wshape[0]).astype(I32),
                            f"b{out}s": (ws * np.float32(in_scale)).astype(F32), f"b{out}z": np.zeros(wshape[0], I32)})
        block += [node("DequantizeLinear", [f"w{out}q", f"w{out}s", f"w{out}z"], [f"w{out}"], axis=0),
                  node("DequantizeLinear", [f"b{out}q", f"b{out}s", f"b{out}z"], [f"b{out}"], axis=0),
                  node("Conv", [inp, f"w{out}", f"b{out}"], [out], **attrs),
                  node("QuantizeLinear", [out, f"{out}s", f"{out}z"], [f"{out}q"]),
                  node("DequantizeLinear", [f"{out}q", f"{out}s", f"{out}z"], [f"{out}d"])]
    block += [node("Add", ["pd", "xd"], ["a"]), node("QuantizeLinear", ["a", "ys", "yz"], ["aq"]),
              node("DequantizeLinear", ["aq", "ys", "yz"], ["y"])]
    yield graph("qdq/inverted_residual_fake_quantize", block, {"x": In((1, c, 14, 14), gen=uniform(-3, 3))}, ["y"],
                block_inits, opset=19, atol=0.05 * 1.01)

    # ORT's QDQ Gemm (transB, per-column weights, an i32 bias at x_scale * w_scale): the
    # integer GEMM adds the bias in its f32 epilogue and the model's QuantizeLinear follows.
    n_out, k_in = 24, 40
    gws = rng.uniform(0.002, 0.01, n_out).astype(F32)
    gemm_inits = dict(xs=scalar(0.03), xz=scalar(128, U8), wq=rng.integers(-64, 65, (n_out, k_in)).astype(I8),
                      ws=gws, wz=np.zeros(n_out, I8), bq=rng.integers(-3000, 3000, n_out).astype(I32),
                      bs=(gws * np.float32(0.03)).astype(F32), bz=np.zeros(n_out, I32), ys=scalar(0.05),
                      yz=scalar(120, U8))
    gemm = [node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]), node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
            node("DequantizeLinear", ["wq", "ws", "wz"], ["w"], axis=0),
            node("DequantizeLinear", ["bq", "bs", "bz"], ["b"], axis=0),
            node("Gemm", ["xd", "w", "b"], ["g"], transB=1), node("QuantizeLinear", ["g", "ys", "yz"], ["gq"]),
            node("DequantizeLinear", ["gq", "ys", "yz"], ["y"])]
    yield graph("qdq/gemm_bias", gemm, {"x": In((16, k_in), gen=uniform(-3, 3))}, ["y"], gemm_inits, opset=19,
                atol=0.05 * 1.01)

    # The same with the Relu's floor as the output's zero point (u8 0) and 7-bit weights
    # (ORT exact on AVX2): fuse-qdq runs both convolutions, the second reading the first's
    # u8 result, as QLinearConv; and a QDQ MatMul of i8 activations by weights per column
    # as QLinearMatMul.
    wq2 = rng.integers(-64, 65, (m, m, 1, 1)).astype(I8)
    inits = dict(inits, yz0=scalar(0, U8), wq2=wq2, ws2=w_scale, wz2=np.zeros(m, I8), y2s=scalar(0.04),
                 y2z=scalar(100, U8), wq=rng.integers(-64, 65, (m, 3, 3, 3)).astype(I8))
    fused = chain[:6] + [node("QuantizeLinear", ["r", "ys", "yz0"], ["yq"]),
                         node("DequantizeLinear", ["yq", "ys", "yz0"], ["yd"]),
                         node("DequantizeLinear", ["wq2", "ws2", "wz2"], ["w2"], axis=0),
                         node("Conv", ["yd", "w2"], ["c2"], strides=[2, 2]),
                         node("QuantizeLinear", ["c2", "y2s", "y2z"], ["q2"]),
                         node("DequantizeLinear", ["q2", "y2s", "y2z"], ["y"])]
    yield graph("qdq/conv_relu_conv_fused", fused, {"x": In((1, 3, 11, 12), gen=uniform(-2, 2))}, ["y"], inits,
                opset=19, atol=0.04 * 1.01)
    # A QLinearConv read only by its DequantizeLinear, then a residual Add and a Relu: one
    # cuvil.FusedQLinearConv writing f32 (the value rounded to u8 and dequantized, exactly).
    res = dict(xs=scalar(0.03), xz=scalar(110, U8), wq=rng.integers(-64, 65, (8, 8, 3, 3)).astype(I8),
               ws=rng.uniform(0.002, 0.01, 8).astype(F32), wz=np.zeros(8, I8), ys=scalar(0.05), yz=scalar(90, U8),
               bq=rng.integers(-3000, 3000, 8).astype(I32))
    residual = [node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
                node("QLinearConv", ["xq", "xs", "xz", "wq", "ws", "wz", "ys", "yz", "bq"], ["q"], pads=[1, 1, 1, 1]),
                node("DequantizeLinear", ["q", "ys", "yz"], ["d"]), node("Add", ["d", "x"], ["s"]),
                node("Relu", ["s"], ["y"])]
    yield graph("qdq/qlinearconv_dequantized_residual_relu", residual, {"x": In((2, 8, 9, 7), gen=uniform(-3, 3))},
                ["y"], res, opset=13)
    # A MatMul as ORT's quantize_dynamic writes it (per-column i8 weights, 7-bit so that ORT's
    # own AVX2 kernel does not saturate): one cuvil.MatMulIntegerToFloat with the bias; 37 rows,
    # 130 columns (partial tiles and panel), a batch of 2.
    dyn = dict(wq=rng.integers(-64, 65, (96, 130)).astype(I8), ws=rng.uniform(0.002, 0.01, 130).astype(F32),
               wz=np.zeros(130, I8), b=rng.normal(0, 0.5, 130).astype(F32))
    dynamic = [node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
               node("MatMulInteger", ["xq", "wq", "xz", "wz"], ["acc"]),
               node("Cast", ["acc"], ["accf"], to=onnx.TensorProto.FLOAT), node("Mul", ["xs", "ws"], ["s"]),
               node("Mul", ["accf", "s"], ["m"]), node("Add", ["b", "m"], ["y"])]
    yield graph("qdq/dynamic_matmul_integer_to_float", dynamic, {"x": In((2, 37, 96), gen=uniform(-3, 3))}, ["y"],
                dyn, opset=13)
    # Two residual blocks with the stream between them quantized (as ResNet's after
    # quantize_static): each block's input is read by its QLinearConv and, dequantized, by
    # its residual Add; the Relu's result is quantized again. Each block is one
    # cuvil.FusedQLinearConv reading and writing u8, which multiplies by 1 / scale where
    # QuantizeLinear divides: a value within an ulp of a tie may round one step apart, and
    # the second block may add the first's step: two steps of tolerance.
    stream = dict(res, zs=scalar(0.06), zz=scalar(0, U8), wq2=rng.integers(-64, 65, (8, 8, 1, 1)).astype(I8),
                  ys2=scalar(0.04), yz2=scalar(120, U8), z2s=scalar(0.07), z2z=scalar(0, U8))
    blocks = [node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
              node("QLinearConv", ["xq", "xs", "xz", "wq", "ws", "wz", "ys", "yz", "bq"], ["q"], pads=[1, 1, 1, 1]),
              node("DequantizeLinear", ["q", "ys", "yz"], ["d"]), node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
              node("Add", ["d", "xd"], ["s"]), node("Relu", ["s"], ["r"]),
              node("QuantizeLinear", ["r", "zs", "zz"], ["rq"]),
              node("QLinearConv", ["rq", "zs", "zz", "wq2", "ws", "wz", "ys2", "yz2"], ["q2"]),
              node("DequantizeLinear", ["q2", "ys2", "yz2"], ["d2"]), node("DequantizeLinear", ["rq", "zs", "zz"], ["rd"]),
              node("Add", ["rd", "d2"], ["s2"]), node("Relu", ["s2"], ["r2"]),
              node("QuantizeLinear", ["r2", "z2s", "z2z"], ["yq"]), node("DequantizeLinear", ["yq", "z2s", "z2z"], ["y"])]
    yield graph("qdq/qlinearconv_quantized_residual_stream", blocks, {"x": In((2, 8, 9, 7), gen=uniform(-3, 3))},
                ["y"], stream, opset=13, atol=0.07 * 2.01)
    k, n = 24, 10
    mm = dict(as_=scalar(0.03), az=scalar(-5, I8), bq=rng.integers(-64, 65, (k, n)).astype(I8),
              bs=rng.uniform(0.01, 0.02, n).astype(F32), bz=np.zeros(n, I8), ys=scalar(0.2), yz=scalar(7, I8))
    mm["as"] = mm.pop("as_")
    matmul = [node("QuantizeLinear", ["a", "as", "az"], ["aq"]), node("DequantizeLinear", ["aq", "as", "az"], ["ad"]),
              node("DequantizeLinear", ["bq", "bs", "bz"], ["b"], axis=1), node("MatMul", ["ad", "b"], ["p"]),
              node("QuantizeLinear", ["p", "ys", "yz"], ["pq"]), node("DequantizeLinear", ["pq", "ys", "yz"], ["y"])]
    yield graph("qdq/matmul_per_column_fused", matmul, {"a": In((2, 20, k), gen=uniform(-3, 3))}, ["y"], mm,
                opset=19, atol=0.2 * 1.01)

    # A QDQ MaxPool and Transpose (same scale and zero point on both sides) between QDQ
    # convolutions: fuse-qdq runs them on the u8 values, as ORT drops the pairs.
    sel = dict(xs=scalar(0.02), xz=scalar(128, U8), ys=scalar(0.05), yz=scalar(0, U8),
               wq=rng.integers(-64, 65, (8, 3, 1, 1)).astype(I8), ws=rng.uniform(0.002, 0.01, 8).astype(F32),
               wz=np.zeros(8, I8), wq2=rng.integers(-64, 65, (4, 8, 1, 1)).astype(I8), ws2=scalar(0.01),
               y2s=scalar(0.03), y2z=scalar(120, U8))
    selection = [node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]), node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
                 node("DequantizeLinear", ["wq", "ws", "wz"], ["w"], axis=0), node("Conv", ["xd", "w"], ["c"]),
                 node("Relu", ["c"], ["r"]), node("QuantizeLinear", ["r", "ys", "yz"], ["rq"]),
                 node("DequantizeLinear", ["rq", "ys", "yz"], ["rd"]),
                 node("MaxPool", ["rd"], ["p"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
                 node("QuantizeLinear", ["p", "ys", "yz"], ["pq"]), node("DequantizeLinear", ["pq", "ys", "yz"], ["pd"]),
                 node("Transpose", ["pd"], ["t"], perm=[0, 1, 3, 2]),
                 node("QuantizeLinear", ["t", "ys", "yz"], ["tq"]), node("DequantizeLinear", ["tq", "ys", "yz"], ["td"]),
                 node("DequantizeLinear", ["wq2", "ws2"], ["w2"]), node("Conv", ["td", "w2"], ["c2"]),
                 node("QuantizeLinear", ["c2", "y2s", "y2z"], ["q2"]),
                 node("DequantizeLinear", ["q2", "y2s", "y2z"], ["y"])]
    yield graph("qdq/conv_maxpool_transpose_conv", selection, {"x": In((1, 3, 12, 10), gen=uniform(-2, 2))}, ["y"],
                sel, opset=19, atol=0.03 * 1.01)

    # What cannot compile says why.
    yield single("unsupported/quantizelinear_scale_length", "QuantizeLinear",
                 [In((2, 3)), In((4,), gen=uniform(0.1, 1)), In((4,), U8, gen=_ints(0, 9))], dict(axis=1), opset=13,
                 kind="compile_error", expect=("QuantizeLinear", "y_scale has 4 elements", "axis 1"))


def microsoft_quantized_cases():
    """ONNX Runtime's com.microsoft quantized ops (QOperator format: the ONNX model zoo's INT8 models):
    QLinearAdd, QLinearMul, QLinearConcat, QLinearGlobalAveragePool, QLinearAveragePool, QLinearSigmoid,
    QLinearLeakyRelu, between a QuantizeLinear of float inputs and a DequantizeLinear of the result;
    QGemm; and DynamicQuantizeMatMul and MatMulIntegerToFloat (f32 results).
    ORT computes them in float too; a tie may round a quantum apart (atol: one output quantum)."""
    U8, I8 = np.uint8, np.int8
    ms = dict(domain="com.microsoft")

    def case(name, op, operands, out_shape, attrs=None, dtype=U8, concat=False):
        # operands: [(shape, scale, zero)]
        inits, nodes, inputs, quantized = {}, [], {}, []
        for i, (shape, scale, zero) in enumerate(operands):
            x = f"x{i}"
            inputs[x] = In(shape, gen=uniform(-3, 3))
            inits[f"s{i}"], inits[f"z{i}"] = scalar(scale), scalar(zero, dtype)
            nodes.append(node("QuantizeLinear", [x, f"s{i}", f"z{i}"], [f"q{i}"]))
            quantized.append([f"q{i}", f"s{i}", f"z{i}"])
        inits["ys"], inits["yz"] = scalar(0.04), scalar(10 if dtype == U8 else -3, dtype)
        args = ["ys", "yz"] + sum(quantized, []) if concat else sum(quantized, []) + ["ys", "yz"]
        nodes += [node(op, args, ["q"], **ms, **(attrs or {})), node("DequantizeLinear", ["q", "ys", "yz"], ["y"])]
        model = make_model(nodes, inputs, ["y"], inits, opset=17, opsets=[("com.microsoft", 1)], infer=False,
                           output_types={"y": (F32, out_shape)})
        return Case(f"com_microsoft/{name}", model, feeds_for(f"com_microsoft/{name}", inputs), atol=0.04 * 1.01)

    yield case("qlinearadd", "QLinearAdd", [((2, 3, 4, 5), 0.03, 120), ((2, 3, 4, 5), 0.02, 130)], (2, 3, 4, 5))
    yield case("qlinearadd_broadcast_i8", "QLinearAdd", [((2, 3, 4, 5), 0.03, 4), ((5,), 0.025, -6)], (2, 3, 4, 5),
               dtype=I8)
    yield case("qlinearmul", "QLinearMul", [((3, 7), 0.03, 128), ((3, 7), 0.02, 100)], (3, 7))
    yield case("qlinearconcat_axis1", "QLinearConcat",
               [((1, 2, 3, 3), 0.03, 128), ((1, 5, 3, 3), 0.02, 110), ((1, 1, 3, 3), 0.05, 140)], (1, 8, 3, 3),
               dict(axis=1), concat=True)
    yield case("qlinearglobalaveragepool", "QLinearGlobalAveragePool", [((2, 8, 7, 6), 0.03, 128)], (2, 8, 1, 1),
               dict(channels_last=0))
    yield case("qlinearaveragepool_k3_s2_p1", "QLinearAveragePool", [((1, 4, 9, 10), 0.03, 128)], (1, 4, 5, 5),
               dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=0))
    yield case("qlinearsigmoid", "QLinearSigmoid", [((4, 9), 0.03, 128)], (4, 9))
    yield case("qlinearleakyrelu", "QLinearLeakyRelu", [((4, 9), 0.03, 128)], (4, 9), dict(alpha=0.1))

    # QGemm (quantize_static's Gemm in the QOperator format): B transposed with per-column
    # i8 weights and an i32 bias, quantized to u8 (atol one output quantum); A transposed with
    # alpha and per-tensor u8 weights, an f32 result, a bias of one row broadcast.
    rng = np.random.default_rng(37)
    xq = [node("QuantizeLinear", ["x", "xs", "xz"], ["xq"])]
    qgemms = [
        ("transb_bias_u8", {"x": In((3, 40), gen=uniform(-3, 3))},
         dict(xs=scalar(0.03), xz=scalar(128, U8), w=rng.integers(-64, 65, (24, 40)).astype(I8),
              ws=rng.uniform(0.002, 0.01, 24).astype(F32), wz=np.zeros(24, I8),
              c=rng.integers(-3000, 3000, 24).astype(np.int32), ys=scalar(0.05), yz=scalar(120, U8)),
         ["xq", "xs", "xz", "w", "ws", "wz", "c", "ys", "yz"], dict(transB=1), True),
        ("transa_alpha_f32", {"x": In((40, 5), gen=uniform(-3, 3))},
         dict(xs=scalar(0.03), xz=scalar(128, U8), w=rng.integers(0, 256, (40, 24)).astype(U8),
              ws=scalar(0.004), wz=scalar(120, U8), c=rng.integers(-3000, 3000, (1, 24)).astype(np.int32)),
         ["xq", "xs", "xz", "w", "ws", "wz", "c"], dict(transA=1, alpha=0.5), False),
    ]
    for name, x, inits, operands, attrs, quantized in qgemms:
        nodes = xq + [node("QGemm", operands, ["q" if quantized else "y"], **ms, **attrs)]
        if quantized:
            nodes.append(node("DequantizeLinear", ["q", "ys", "yz"], ["y"]))
        rows = x["x"].shape[1] if attrs.get("transA") else x["x"].shape[0]
        model = make_model(nodes, x, ["y"], inits, opset=17, opsets=[("com.microsoft", 1)], infer=False,
                           output_types={"y": (F32, (rows, 24))})
        yield Case(f"com_microsoft/qgemm_{name}", model, feeds_for(f"com_microsoft/qgemm_{name}", x),
                   atol=0.05 * 1.01 if quantized else 1e-3)

    # The integer matmuls with f32 results ORT's transformer optimizer writes: one
    # cuvil.MatMulIntegerToFloat (7-bit weights: ORT's AVX2 kernel exact too).
    rng = np.random.default_rng(31)
    w = dict(w=rng.integers(-64, 65, (40, 70)).astype(I8), ws=rng.uniform(0.002, 0.01, 70).astype(F32),
             wz=np.zeros(70, I8), b=rng.normal(0, 0.5, 70).astype(F32))
    x = {"x": In((2, 9, 40), gen=uniform(-3, 3))}
    nodes = [node("DynamicQuantizeMatMul", ["x", "w", "ws", "wz", "b"], ["y"], **ms)]
    model = make_model(nodes, x, ["y"], w, opset=17, opsets=[("com.microsoft", 1)], infer=False,
                       output_types={"y": (F32, (2, 9, 70))})
    yield Case("com_microsoft/dynamicquantizematmul", model, feeds_for("com_microsoft/dynamicquantizematmul", x))
    nodes = [node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
             node("MatMulIntegerToFloat", ["xq", "w", "xs", "ws", "xz", "wz", "b"], ["y"], **ms)]
    model = make_model(nodes, x, ["y"], w, opset=17, opsets=[("com.microsoft", 1)], infer=False,
                       output_types={"y": (F32, (2, 9, 70))})
    yield Case("com_microsoft/matmulintegertofloat", model, feeds_for("com_microsoft/matmulintegertofloat", x))


def integer_product_cases():
    """MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv: operand types, zero points (and
    scales) per tensor, row, column or output channel, batches, the Conv attributes, blocks of rows,
    K chunks and column panels, saturation.
    ORT's kernels for a u8 operand by an i8 one add pairs of products in 16 bits, saturating (AVX2
    vpmaddubsw): as ORT's own quantizer does for them (reduce_range), the i8 side of a mixed pair
    holds 7-bit values, which keeps ORT exact."""
    rng = np.random.default_rng(29)
    U8, I8 = np.uint8, np.int8

    def seven_bit(shape):
        return In(shape, I8, gen=_ints(-64, 63))

    def operand(shape, dtype, other):
        return seven_bit(shape) if (dtype, other) == (I8, U8) else _quantized(shape, dtype)

    # MatMulInteger.
    for a_type, b_type in [(U8, U8), (U8, I8), (I8, I8), (I8, U8)]:
        tag = f"{np.dtype(a_type).name[0]}8_{np.dtype(b_type).name[0]}8"
        yield single(f"matmulinteger/{tag}", "MatMulInteger",
                     [operand((4, 9), a_type, b_type), operand((9, 5), b_type, a_type), In((), a_type, gen=_ints(-5, 20)),
                      In((), b_type, gen=_ints(-5, 20))], opset=10)
    matmul_integer = [
        ("no_zero_points", [_quantized((4, 9), U8), seven_bit((9, 5))]),
        ("a_zero_point_only", [_quantized((4, 9), U8), _quantized((9, 5), U8), scalar(128, U8)]),
        ("b_zero_point_per_column", [_quantized((4, 9), U8), _quantized((9, 5), U8), scalar(3, U8),
                                     rng.integers(0, 255, 5).astype(U8)]),
        ("batched_3d_2d", [_quantized((2, 4, 9), U8), seven_bit((9, 5)), scalar(7, U8), scalar(-2, I8)]),
        ("batched_3d_3d", [_quantized((3, 4, 9), I8), _quantized((3, 9, 5), I8), scalar(1, I8), scalar(-1, I8)]),
        ("batch_broadcast_4d", [_quantized((2, 1, 3, 6), U8), _quantized((1, 4, 6, 2), U8)]),
        ("vector_matrix", [_quantized((9,), U8), _quantized((9, 5), U8), scalar(100, U8)]),
        ("matrix_vector", [_quantized((4, 9), U8), seven_bit((9,))]),
        ("blocks_chunks_panels", [_quantized((70, 300), U8), seven_bit((300, 130)), scalar(128, U8),
                                  scalar(0, I8)]),
        ("extremes", [In((3, 600), U8, gen=lambda r, s: np.full(s, 255)), In((600, 4), U8, gen=lambda r, s: np.full(s, 255))]),
        ("constant_b", [_quantized((5, 16), I8), rng.integers(-128, 128, (16, 24)).astype(I8), scalar(4, I8),
                        rng.integers(-3, 3, 24).astype(I8)]),
        # u8 A by constant 7-bit i8 B, K a multiple of 4: the byte path, A's rows read in place;
        # a batch, K chunks, row tiles and column panels (ORT takes A's zero point per tensor only).
        ("byte_path_batched", [_quantized((2, 20, 264), U8), rng.integers(-64, 65, (264, 70)).astype(I8),
                               scalar(131, U8), np.zeros(70, I8)]),
    ]
    for name, args in matmul_integer:
        yield single(f"matmulinteger/{name}", "MatMulInteger", args, opset=10)

    # ConvInteger: operand types, then the Conv attributes.
    for x_type, w_type in [(U8, U8), (U8, I8), (I8, I8), (I8, U8)]:
        tag = f"{np.dtype(x_type).name[0]}8_{np.dtype(w_type).name[0]}8"
        low, high = (-64, 63) if (w_type, x_type) == (I8, U8) else (np.iinfo(w_type).min, np.iinfo(w_type).max)
        yield single(f"convinteger/{tag}", "ConvInteger",
                     [operand((1, 3, 7, 8), x_type, w_type), rng.integers(low, high + 1, (4, 3, 3, 3)).astype(w_type),
                      In((), x_type, gen=_ints(0, 20)), In((), w_type, gen=_ints(0, 20))], opset=10)
    yield single("convinteger/weights_as_input", "ConvInteger",
                 [_quantized((1, 3, 7, 8)), seven_bit((4, 3, 3, 3)), scalar(3, U8), scalar(-1, I8)],
                 dict(pads=[1, 1, 1, 1]), opset=10)
    conv_integer = [
        ("no_zero_points", (1, 3, 7, 8), (4, 3, 3, 3), False, {}),
        ("pads", (1, 3, 7, 8), (4, 3, 3, 3), True, dict(pads=[1, 1, 1, 1])),
        ("asym_pads_stride2", (1, 3, 12, 11), (4, 3, 3, 3), True, dict(strides=[2, 2], pads=[1, 0, 0, 1])),
        ("dilation2", (1, 3, 15, 15), (4, 3, 3, 3), True, dict(dilations=[2, 2], pads=[2, 2, 2, 2])),
        ("group2", (1, 4, 9, 9), (6, 2, 3, 3), True, dict(group=2, pads=[1, 1, 1, 1])),
        ("depthwise", (1, 6, 10, 10), (6, 1, 3, 3), True, dict(group=6, pads=[1, 1, 1, 1])),
        ("same_upper", (1, 3, 9, 9), (4, 3, 2, 2), True, dict(auto_pad="SAME_UPPER")),
        ("same_lower_stride2", (1, 3, 10, 12), (4, 3, 3, 3), True, dict(auto_pad="SAME_LOWER", strides=[2, 2])),
        ("valid", (1, 3, 8, 9), (4, 3, 3, 3), True, dict(auto_pad="VALID")),
        ("1x1_batch2", (2, 8, 5, 6), (5, 8, 1, 1), True, {}),
        ("1d", (2, 3, 17), (4, 3, 5), True, dict(pads=[2, 1])),
        ("blocks_chunks_panels", (1, 32, 12, 13), (70, 32, 3, 3), True, dict(pads=[1, 1, 1, 1])),
    ]
    for name, x_shape, w_shape, zero_points, attrs in conv_integer:
        args = [_quantized(x_shape), rng.integers(0, 256, w_shape).astype(U8)]
        if zero_points:
            args += [scalar(120, U8), scalar(130, U8)]
        yield single(f"convinteger/{name}", "ConvInteger", args, attrs, opset=10)

    # QLinearMatMul (the type combinations ORT has).
    def qmatmul(a, a_type, b, b_scale, b_zero, y_type, y_scale=1.0):
        return [a, scalar(0.02), scalar(10 if a_type == U8 else -3, a_type), b, b_scale, b_zero,
                scalar(y_scale), scalar(120 if y_type == U8 else 5, y_type)]

    for a_type, b_type in [(U8, U8), (U8, I8), (I8, I8)]:
        tag = f"{np.dtype(a_type).name[0]}8_{np.dtype(b_type).name[0]}8"
        yield single(f"qlinearmatmul/{tag}", "QLinearMatMul",
                     qmatmul(operand((4, 9), a_type, b_type), a_type, operand((9, 5), b_type, a_type), scalar(0.03),
                             scalar(2, b_type), a_type), opset=10)
    qlinear_matmuls = [
        ("per_column_b", qmatmul(_quantized((4, 9)), U8, rng.integers(-64, 64, (9, 6)).astype(I8),
                                 rng.uniform(0.01, 0.05, 6), rng.integers(-2, 3, 6).astype(I8), U8), 10),
        ("batched_3d", qmatmul(_quantized((3, 4, 9), I8), I8, _quantized((3, 9, 5), I8), scalar(0.03),
                               scalar(1, I8), I8), 10),
        ("batch_broadcast", qmatmul(_quantized((2, 4, 9)), U8, _quantized((9, 5)), scalar(0.03), scalar(100, U8),
                                    U8), 10),
        ("saturates", qmatmul(_quantized((4, 9)), U8, _quantized((9, 5)), scalar(0.03), scalar(100, U8), U8,
                              y_scale=0.001), 10),
        ("blocks_chunks_panels", qmatmul(_quantized((70, 300)), U8, seven_bit((300, 130)), scalar(0.001),
                                         scalar(0, I8), U8, y_scale=0.5), 10),
        ("opset21", qmatmul(_quantized((4, 9), I8), I8, _quantized((9, 5), I8), scalar(0.03), scalar(1, I8), I8),
         21),
        # The byte path (u8 by constant 7-bit i8, K % 4 == 0), as assign-precision writes it.
        ("byte_path_blocks_chunks_panels",
         qmatmul(_quantized((70, 300)), U8, rng.integers(-64, 65, (300, 130)).astype(I8),
                 rng.uniform(0.0005, 0.002, (1, 130)).astype(F32), np.zeros((1, 130), I8), U8, y_scale=0.3), 10),
        # Full-range i8 weights with zero point 0: vpdpbusd where the CPU has
        # VNNI (exact), i16 pairs elsewhere.
        ("full_range_weights",
         qmatmul(_quantized((70, 300)), U8, rng.integers(-128, 128, (300, 130)).astype(I8),
                 rng.uniform(0.0005, 0.002, (1, 130)).astype(F32), np.zeros((1, 130), I8), U8, y_scale=0.6), 10),
    ]
    qlinear_matmuls += [
        # Weights up to 127 in sets of four within 128 (see qlinearconv/paired_byte_sets).
        ("paired_byte_sets",
         qmatmul(_quantized((70, 300)), U8, paired_byte_sets(rng, (300, 130), line_axis=1),
                 rng.uniform(0.0005, 0.002, (1, 130)).astype(F32), np.zeros((1, 130), I8), U8, y_scale=0.6), 10),
        ("paired_byte_sets_bound",
         qmatmul(_full_u8((9, 36)), U8, paired_byte_sets(rng, (36, 20), line_axis=1, full=True),
                 rng.uniform(0.0005, 0.002, (1, 20)).astype(F32), np.zeros((1, 20), I8), U8, y_scale=0.03), 10),
    ]
    for name, args, opset in qlinear_matmuls:
        case = single(f"qlinearmatmul/{name}", "QLinearMatMul", args, opset=opset)
        exact = name == "full_range_weights" or name.startswith("paired_byte_sets")
        yield exact_integer_reference(case) if exact else case

    # QLinearConv.
    def qconv(x, x_type, w, w_scale, w_zero, y_type, bias=None, y_scale=0.2):
        args = [x, scalar(0.05), scalar(10 if x_type == U8 else -4, x_type), w, w_scale, w_zero,
                scalar(y_scale), scalar(128 if y_type == U8 else 3, y_type)]
        return args + ([bias] if bias is not None else [])

    def weights(shape, dtype=I8):
        return rng.integers(-64, 64, shape).astype(dtype) if dtype == I8 else \
            rng.integers(0, 256, shape).astype(dtype)

    for x_type, w_type in [(U8, U8), (U8, I8), (I8, I8)]:
        tag = f"{np.dtype(x_type).name[0]}8_{np.dtype(w_type).name[0]}8"
        yield single(f"qlinearconv/{tag}", "QLinearConv",
                     qconv(_quantized((1, 3, 7, 8), x_type), x_type, weights((4, 3, 3, 3), w_type), scalar(0.01),
                           scalar(0 if w_type == I8 else 128, w_type), x_type), opset=10)
    qlinear_convs = [
        ("per_channel_bias", (1, 3, 9, 9), (5, 3, 3, 3), True, True, dict(pads=[1, 1, 1, 1])),
        ("per_channel_no_bias", (1, 3, 9, 9), (5, 3, 3, 3), True, False, {}),
        ("bias_stride2", (1, 3, 12, 11), (4, 3, 3, 3), False, True, dict(strides=[2, 2], pads=[1, 0, 0, 1])),
        ("dilation2", (1, 3, 15, 15), (4, 3, 3, 3), True, True, dict(dilations=[2, 2], pads=[2, 2, 2, 2])),
        ("group2", (1, 4, 9, 9), (6, 2, 3, 3), True, True, dict(group=2, pads=[1, 1, 1, 1])),
        ("depthwise", (1, 6, 10, 10), (6, 1, 3, 3), True, True, dict(group=6, pads=[1, 1, 1, 1])),
        ("same_upper", (1, 3, 9, 9), (4, 3, 2, 2), False, True, dict(auto_pad="SAME_UPPER")),
        ("valid_batch2", (2, 3, 8, 9), (4, 3, 3, 3), True, False, dict(auto_pad="VALID")),
        ("1d", (2, 3, 17), (4, 3, 5), True, True, dict(pads=[2, 1])),
        ("blocks_chunks_panels", (1, 32, 12, 13), (70, 32, 3, 3), True, True, dict(pads=[1, 1, 1, 1])),
        # Stride-2 patch rows copied 16 and 8 pixels a vector, the last vector
        # overlapping: output rows of 35 (3x3) and 11 pixels (1x1), 3 padded.
        ("stride2_runs", (1, 8, 23, 70), (6, 8, 3, 3), True, True, dict(strides=[2, 2], pads=[1, 1, 1, 1])),
        ("pointwise_stride2_runs", (1, 4, 15, 22), (5, 4, 1, 1), True, False, dict(strides=[2, 2])),
        # Stride 1, output rows as wide as the input's: patch rows are the planes shifted by each
        # tap, padding selected in (IntegerConv.cpp's shiftedPlane); the first and last channels'
        # shifts reach outside the image and take the run walk. A last panel of 12 pixels; 5x5
        # taps on a 7 x 7 image, a panel spanning its rows.
        ("shifted_planes", (1, 16, 20, 23), (24, 16, 3, 3), True, True, dict(pads=[1, 1, 1, 1])),
        ("shifted_planes_5x5", (1, 8, 7, 7), (12, 8, 5, 5), True, False, dict(pads=[2, 2, 2, 2])),
        # A 1x1 window's panel of fewer than 64 pixels (a 7 x 7 image's 49) as one shifted plane.
        ("pointwise_small_image", (2, 16, 7, 7), (20, 16, 1, 1), True, True, {}),
    ]
    for name, x_shape, w_shape, per_channel, bias, attrs in qlinear_convs:
        m = w_shape[0]
        w_scale = rng.uniform(0.005, 0.02, m) if per_channel else scalar(0.01)
        w_zero = np.zeros(m, I8) if per_channel else scalar(0, I8)
        b = rng.integers(-2000, 2000, m).astype(I32) if bias else None
        yield single(f"qlinearconv/{name}", "QLinearConv",
                     qconv(_quantized(x_shape), U8, weights(w_shape), w_scale, w_zero, U8, b), attrs, opset=10)
    # Depthwise (one input channel per group: IntegerDepthwiseTask.h's f32 taps): rows longer
    # than a 64-pixel panel at stride 1 and 2, 7-wide rows (a panel spans several output rows),
    # dilations, a channel multiplier of 2, 5x5 taps at stride 3 (the generic phase widening)
    # with uneven pads, 1-D; u8 weights with zero point 128, i8 images, and full-range weights
    # against the exact reference.
    depthwise_convs = [
        ("wide_rows", (1, 4, 9, 70), (4, 1, 3, 3), U8, I8, dict(group=4, pads=[1, 1, 1, 1])),
        ("stride2", (1, 5, 15, 150), (5, 1, 3, 3), U8, I8, dict(group=5, strides=[2, 2], pads=[1, 1, 1, 1])),
        ("narrow_rows_batch2", (2, 6, 7, 7), (6, 1, 3, 3), U8, I8, dict(group=6, pads=[1, 1, 1, 1])),
        ("dilation", (1, 3, 12, 13), (3, 1, 3, 3), U8, I8, dict(group=3, dilations=[2, 3], pads=[2, 3, 2, 3])),
        ("multiplier2", (1, 3, 10, 11), (6, 1, 3, 3), U8, I8, dict(group=3, pads=[1, 1, 1, 1])),
        ("5x5_stride3", (1, 4, 17, 19), (4, 1, 5, 5), U8, I8, dict(group=4, strides=[3, 3], pads=[2, 1, 0, 2])),
        ("u8_weights", (1, 4, 9, 20), (4, 1, 3, 3), U8, U8, dict(group=4, pads=[1, 1, 1, 1])),
        ("i8_image", (1, 4, 9, 20), (4, 1, 3, 3), I8, I8, dict(group=4, strides=[2, 1], pads=[0, 1, 1, 0])),
    ]
    for name, x_shape, w_shape, x_type, w_type, attrs in depthwise_convs:
        m = w_shape[0]
        w_zero = np.full(m, 128, U8) if w_type == U8 else np.zeros(m, I8)
        yield single(f"qlinearconv/depthwise_{name}", "QLinearConv",
                     qconv(_quantized(x_shape, x_type), x_type, weights(w_shape, w_type),
                           rng.uniform(0.005, 0.02, m), w_zero, x_type, rng.integers(-2000, 2000, m).astype(I32)),
                     attrs, opset=13)
    yield single("qlinearconv/depthwise_1d", "QLinearConv",
                 qconv(_quantized((1, 4, 40)), U8, weights((4, 1, 7)), scalar(0.01), scalar(0, I8), U8),
                 dict(group=4, pads=[3, 3]), opset=10)
    yield exact_integer_reference(single(
        "qlinearconv/depthwise_full_range_weights", "QLinearConv",
        qconv(_quantized((1, 8, 14, 14)), U8, rng.integers(-128, 128, (8, 1, 3, 3)).astype(I8),
              rng.uniform(0.002, 0.01, 8), np.zeros(8, I8), U8, rng.integers(-2000, 2000, 8).astype(I32),
              y_scale=0.5),
        dict(group=8, strides=[2, 2], pads=[1, 1, 1, 1]), opset=10))
    # Full-range i8 weights with zero point 0 (vpdpbusd on VNNI CPUs), K a
    # multiple of 4 (weights read in place) and not (packed per chunk).
    # A pointwise window copies whole panel rows (156 pixels: two full panels and a ragged one);
    # its 7-bit weights take vpmaddubsw without VNNI.
    padded = dict(pads=[1, 1, 1, 1])
    for name, x_shape, w_shape, attrs, low in [
            ("full_range_weights", (1, 32, 12, 13), (70, 32, 3, 3), padded, -128),
            ("full_range_weights_odd_k", (1, 3, 12, 13), (9, 3, 3, 3), padded, -128),
            ("pointwise_panels", (1, 32, 12, 13), (70, 32, 1, 1), {}, -64)]:
        m = w_shape[0]
        case = single(f"qlinearconv/{name}", "QLinearConv",
                      qconv(_quantized(x_shape), U8, rng.integers(low, -low, w_shape).astype(I8),
                            rng.uniform(0.002, 0.01, m), np.zeros(m, I8), U8,
                            rng.integers(-2000, 2000, m).astype(I32), y_scale=0.5),
                      attrs, opset=10)
        yield exact_integer_reference(case) if low == -128 else case
    # Weights up to 127 whose sets of four paired weights (K positions
    # {0, 1, 4, 5} and {2, 3, 6, 7} of each 8) stay within 128 in |w|, what
    # assign-precision writes on x86-64: vpmaddubsw sums added in i16 before
    # widening, exact up to the bound (255 * 128 < 2^15), which the 255
    # images reach. K in place (32 x 9, and 4 x 9: an odd count of quads)
    # and packed per chunk (3 x 9); the GEMM's panels packed at compile time.
    for name, x_shape, w_shape, image in [
            ("paired_byte_sets", (1, 32, 12, 13), (70, 32, 3, 3), _quantized),
            ("paired_byte_sets_odd_quads", (1, 4, 9, 10), (9, 4, 3, 3), _quantized),
            ("paired_byte_sets_odd_k", (1, 3, 9, 10), (9, 3, 3, 3), _quantized),
            ("paired_byte_sets_bound", (1, 32, 6, 7), (16, 32, 3, 3), _full_u8)]:
        m = w_shape[0]
        w = paired_byte_sets(rng, w_shape, line_axis=0, full=image is _full_u8)
        case = single(f"qlinearconv/{name}", "QLinearConv",
                      qconv(image(x_shape), U8, w, rng.uniform(0.002, 0.01, m), np.zeros(m, I8), U8,
                            rng.integers(-2000, 2000, m).astype(I32), y_scale=0.5 if image is _quantized else 1.0),
                      padded, opset=10)
        yield exact_integer_reference(case)
    yield single("qlinearconv/saturates", "QLinearConv",
                 qconv(_quantized((1, 3, 7, 8), I8), I8, weights((4, 3, 3, 3)), scalar(0.01), scalar(0, I8), I8,
                       y_scale=0.002), opset=10)


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


_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def recurrent(name, op, S=5, B=3, I=4, H=6, direction="forward", layout=0, opset=14, dtype=F32, bias=True,
              lengths=None, initial=None, peepholes=False, outputs=None, weights="constant", constant_x=False,
              attrs=None, **case_args):
    """A recurrence case: X [S, B, I] ([B, S, I] with layout 1) a runtime input, W, R and B constants
    (runtime inputs with weights="input"), sequence_lens `lengths` (a runtime i32 input), initial states
    ("constant" or "input"), LSTM peepholes; outputs names Y, Y_h (and Y_c), "" for an omitted one.
    ONNX Runtime has no batch-major recurrences and no kernels before opset 7: those cases compare with
    an equivalent model it runs (Transposes around layout 0; opset 7)."""
    rng = np.random.default_rng(_seed(name))
    D, G = 2 if direction == "bidirectional" else 1, _GATES[op]
    state = (B, D, H) if layout else (D, B, H)
    x_shape = (B, S, I) if layout else (S, B, I)
    values = {"W": rng.standard_normal((D, G * H, I)) * 0.6, "R": rng.standard_normal((D, G * H, H)) * 0.6}
    slots = {"W": 1, "R": 2}
    if bias:
        values["B"], slots["B"] = rng.standard_normal((D, 2 * G * H)) * 0.5, 3
    if initial:
        for state_name, slot in [("h0", 5), ("c0", 6)][:2 if op == "LSTM" else 1]:
            values[state_name], slots[state_name] = rng.standard_normal(state), slot
    if peepholes:
        values["P"], slots["P"] = rng.standard_normal((D, 3 * H)) * 0.5, 7
    values = {k: v.astype(dtype) for k, v in values.items()}
    runtime = {} if constant_x else {"X": In(x_shape, dtype)}
    inits = {"X": rng.standard_normal(x_shape).astype(dtype)} if constant_x else {}
    for k, v in values.items():
        if (k in ("h0", "c0") and initial == "input") or (k in ("W", "R", "B") and weights == "input"):
            runtime[k] = In(v.shape, dtype, gen=lambda rng, shape, v=v: v)
        else:
            inits[k] = v
    names = ["X", "", "", "", "", "", "", ""]
    for k, slot in slots.items():
        names[slot] = k
    if lengths is not None:
        runtime["L"], names[4] = In((B,), I32, gen=lambda rng, shape: np.array(lengths)), "L"
    while names[-1] == "":
        names.pop()
    outputs = outputs or (["Y", "Y_h", "Y_c"] if op == "LSTM" else ["Y", "Y_h"])
    attrs = dict(attrs or {}, hidden_size=H)
    if direction != "forward":
        attrs["direction"] = direction
    if layout:
        attrs["layout"] = layout
    graph_outputs = [o for o in outputs if o]
    nodes = [node(op, names, outputs, **attrs)]
    if constant_x:  # every input of the recurrence a constant: a runtime input after it
        runtime["Z"] = In(state, dtype)
        nodes.append(node("Add", [graph_outputs[-1], "Z"], ["sum"]))
        graph_outputs[-1] = "sum"
    # Typed here: ONNX has no shape inference for the opset-1 forms.
    y_shape = (B, S, D, H) if layout else (S, D, B, H)
    types = {o: (dtype, y_shape if o == "Y" else state) for o in graph_outputs}
    model = make_model(nodes, runtime, graph_outputs, inits, opset, output_types=types)
    ort_model = None
    if layout or opset < 7 or dtype != F32:
        # The same recurrence as ONNX Runtime runs it: f32 (ORT computes no f64 recurrence; ours
        # computes in f32 too), layout 0 with Transposes around it, opset 7 or later.
        nodes, ort_names, ort_outputs = [], list(names), list(outputs)
        attrs.pop("layout", None)
        attrs.pop("output_sequence", None)

        def convert(value, op_type, suffix, **convert_attrs):
            nodes.append(node(op_type, [value], [value + suffix], **convert_attrs))
            return value + suffix
        for slot, value in enumerate(names):
            if value and slot != 4 and dtype != F32:
                ort_names[slot] = convert(ort_names[slot], "Cast", "_f32", to=onnx.TensorProto.FLOAT)
            if value and slot in (0, 5, 6) and layout:
                ort_names[slot] = convert(ort_names[slot], "Transpose", "_sbi", perm=[1, 0, 2])
        ort_outputs = [o and o + "_ort" for o in outputs]
        nodes.append(node(op, ort_names, ort_outputs, **attrs))
        for o in graph_outputs:
            value = o + "_ort"
            if layout:
                value = convert(value, "Transpose", "_t", perm=[2, 0, 1, 3] if o == "Y" else [1, 0, 2])
            if dtype != F32:
                value = convert(value, "Cast", "_back", to=helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))
            nodes.append(node("Identity", [value], [o]))
        ort_model = make_model(nodes, runtime, graph_outputs, inits, max(opset, 7), output_types=types)
    bug = _recurrent_reference_bug(op, direction, layout, opset, lengths, outputs, attrs)
    return Case(name, model, feeds_for(name, runtime), ort_model=ort_model, reference_bug=bug, **case_args)


def _recurrent_reference_bug(op, direction, layout, opset, lengths, outputs, attrs):
    """Where onnx.reference (onnx 1.19) departs from the spec for this recurrence, or ""."""
    bugs = []
    if opset < 7:
        bugs.append("has no forms before opset 7")
    if direction != "forward":
        bugs.append("runs only forward recurrences (reverse ones forward, bidirectional ones not at all)")
    if layout:
        bugs.append("mixes up the axes of batch-major (layout 1) inputs")
    if lengths is not None:
        bugs.append("cannot take sequence_lens")
    if "clip" in attrs or "input_forget" in attrs:
        bugs.append("ignores clip and input_forget")
    if "activations" in attrs:
        bugs.append("knows only Tanh and Affine for RNN" if op == "RNN" else "ignores activations")
    if op == "LSTM" and "Y_c" in outputs:
        bugs.append("returns no Y_c")
    return "; ".join(bugs)


def recurrent_cases():
    """RNN, GRU and LSTM against ONNX Runtime: every direction in either layout, per-batch sequence
    lengths (steps past a sequence's end are zeros and its state stops), initial states as constants or
    inputs, LSTM peepholes and input_forget, GRU linear_before_reset, clip, every activation function
    with its alpha and beta, omitted outputs, batches larger than a register tile, hidden sizes around
    the 64-unit panels, weights given at run time (packed by a kernel), opsets 1, 3, 7, 14 and 22, f16 and f64, a
    recurrence of constants folded by the reference, and sequence lengths out of range refused."""
    for op in _GATES:
        tag = op.lower()
        for direction in ("forward", "reverse", "bidirectional"):
            for layout in (0, 1):
                yield recurrent(f"{tag}/{direction}_layout{layout}", op, direction=direction, layout=layout)
            # Unequal lengths, the longest the whole sequence (ORT reads past the end of an empty
            # RNN sequence: only GRU and LSTM get one).
            lengths = [5, 2, 3] if op == "RNN" else [5, 0, 3]
            yield recurrent(f"{tag}/lengths_{direction}", op, direction=direction, lengths=lengths)
            yield recurrent(f"{tag}/lengths_{direction}_layout1", op, direction=direction, layout=1,
                            lengths=[2, 5, 4], initial="input")
            yield recurrent(f"{tag}/initial_{direction}", op, direction=direction, initial="constant")
        yield recurrent(f"{tag}/initial_input", op, direction="bidirectional", initial="input", B=2)
        yield recurrent(f"{tag}/no_bias", op, bias=False, initial="constant")
        yield recurrent(f"{tag}/batch1", op, B=1, S=9)
        yield recurrent(f"{tag}/batch7_h20", op, B=7, H=20, direction="bidirectional", lengths=[1, 2, 3, 4, 5, 6, 7],
                        S=7)
        yield recurrent(f"{tag}/h70_two_panels", op, H=70, I=33, B=2)
        yield recurrent(f"{tag}/h16", op, H=16, B=4, direction="reverse")
        yield recurrent(f"{tag}/clip", op, attrs=dict(clip=0.4), direction="bidirectional")
        yield recurrent(f"{tag}/weights_as_inputs", op, weights="input", direction="bidirectional", lengths=[3, 5, 1])
        yield recurrent(f"{tag}/only_y", op, outputs=["Y"])
        yield recurrent(f"{tag}/only_y_h", op, outputs=["", "Y_h"], lengths=[4, 1, 5])
        yield recurrent(f"{tag}/opset7", op, opset=7, direction="bidirectional", lengths=[2, 5, 4])
        yield recurrent(f"{tag}/opset1", op, opset=1, direction="reverse", attrs=dict(output_sequence=1))
        yield recurrent(f"{tag}/opset22", op, opset=22, direction="reverse", lengths=[4, 5, 2])
        # f16 in and out, computed in f32 as ORT's model casts it: an ulp of f16 apart at most.
        yield recurrent(f"{tag}/f16", op, dtype=np.float16, direction="bidirectional", lengths=[5, 3, 4],
                        initial="input", atol=2e-3, rtol=2e-3)
        yield recurrent(f"{tag}/constant_folds", op, constant_x=True, direction="bidirectional", S=3, B=2, H=4,
                        initial="constant", attrs=dict(clip=0.9), outputs=["Y", "Y_h"])
        if op != "RNN":  # ORT has no f64 RNN; make_model stores f64 constants as f32, so inputs
            yield recurrent(f"{tag}/f64", op, dtype=np.float64, direction="bidirectional", lengths=[5, 3, 4],
                            weights="input")
    # Activation functions with their alpha and beta, consumed in order by the functions that take
    # them (ORT's defaults differ from ONNX's for ThresholdedRelu, Affine and ScaledTanh: given here).
    for op, direction, functions, alpha, beta in [
            ("RNN", "forward", ["Relu"], None, None),
            ("RNN", "forward", ["Sigmoid"], None, None),
            ("RNN", "reverse", ["Affine"], [0.5], [0.1]),
            ("RNN", "forward", ["ScaledTanh"], [1.5], [0.5]),
            ("RNN", "forward", ["Elu"], [0.8], None),
            ("RNN", "forward", ["Softsign"], None, None),
            ("RNN", "bidirectional", ["LeakyRelu", "ThresholdedRelu"], [0.2, 0.1], None),
            ("RNN", "forward", ["HardSigmoid"], [0.3], [0.45]),
            ("GRU", "forward", ["HardSigmoid", "ScaledTanh"], [0.3, 1.2], [0.4, 0.8]),
            ("GRU", "bidirectional", ["Sigmoid", "Tanh", "HardSigmoid", "Elu"], [0.25, 0.9], [0.55]),
            ("GRU", "reverse", ["Softsign", "Softplus"], None, None),
            ("GRU", "forward", ["Sigmoid", "LeakyRelu"], None, None),
            ("LSTM", "forward", ["HardSigmoid", "Affine", "Softsign"], [0.3, 0.7], [0.4, 0.1]),
            ("LSTM", "forward", ["Sigmoid", "Softplus", "Relu"], None, None),
            ("LSTM", "bidirectional", ["Sigmoid", "ThresholdedRelu", "LeakyRelu", "HardSigmoid", "Tanh", "Elu"],
             [0.1, 0.05, 0.25, 1.1], [0.5]),
            ("LSTM", "reverse", ["sigmoid", "tanh", "tanh"], None, None)]:
        attrs = dict(activations=functions)
        if alpha:
            attrs["activation_alpha"] = alpha
        if beta:
            attrs["activation_beta"] = beta
        yield recurrent(f"{op.lower()}/activations_{'_'.join(functions).lower()}", op, direction=direction,
                        attrs=attrs, lengths=[5, 3, 4])
    for direction in ("forward", "reverse", "bidirectional"):
        yield recurrent(f"gru/linear_before_reset_{direction}", "GRU", direction=direction,
                        attrs=dict(linear_before_reset=1), lengths=[5, 1, 4], initial="constant")
        yield recurrent(f"lstm/peepholes_{direction}", "LSTM", direction=direction, peepholes=True,
                        initial="constant", lengths=[3, 5, 2])
    yield recurrent("gru/linear_before_reset_layout1_clip", "GRU", layout=1,
                    attrs=dict(linear_before_reset=1, clip=0.5))
    yield recurrent("gru/opset3_linear_before_reset", "GRU", opset=3, attrs=dict(linear_before_reset=1))
    yield recurrent("lstm/peepholes_clip_layout1", "LSTM", layout=1, peepholes=True, attrs=dict(clip=0.6),
                    initial="input", direction="bidirectional")
    yield recurrent("lstm/input_forget", "LSTM", attrs=dict(input_forget=1), peepholes=True, lengths=[2, 5, 3])
    yield recurrent("lstm/input_forget_bidirectional_clip", "LSTM", direction="bidirectional",
                    attrs=dict(input_forget=1, clip=0.5))
    yield recurrent("lstm/only_y_c", "LSTM", outputs=["", "", "Y_c"], initial="constant", lengths=[1, 5, 0])
    yield recurrent("lstm/y_and_y_c", "LSTM", outputs=["Y", "", "Y_c"], direction="reverse", layout=1)
    yield recurrent("gru/only_y_h_bidirectional_layout1", "GRU", outputs=["", "Y_h"], direction="bidirectional",
                    layout=1, lengths=[4, 5, 1])
    # A run-time sequence length outside [0, seq_length] is refused, as ORT refuses it.
    yield recurrent("bad_input/lstm_sequence_length_too_long", "LSTM", lengths=[5, 6, 1], kind="bad_input",
                    expect=("n0_LSTM", "a sequence length is 6, outside [0, seq_length]"))
    yield from torch_recurrent_cases()


def torch_recurrent_cases():
    """Two-layer bidirectional batch-first LSTM and GRU as torch.onnx exports them (Transposes and Reshapes
    between the layers, zero initial states, GRU with linear_before_reset), when torch is in the venv."""
    try:
        import torch
    except ImportError:
        return
    for name, module in [("lstm", torch.nn.LSTM), ("gru", torch.nn.GRU)]:
        torch.manual_seed(_seed(name))
        model = module(input_size=8, hidden_size=12, num_layers=2, batch_first=True, bidirectional=True)
        x = torch.randn(3, 5, 8)
        exported = io.BytesIO()
        with warnings.catch_warnings():  # the exporter's advice on batch sizes and shape inference
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (x,), exported, input_names=["x"], output_names=["y", "h"],
                              opset_version=14)
        yield Case(f"{name}/torch_two_layers_bidirectional", onnx.load_from_string(exported.getvalue()),
                   {"x": x.numpy()}, reference_bug=_recurrent_reference_bug(name.upper(), "bidirectional", 0, 14,
                                                                            None, ["Y", "Y_h"], {}))
def index_tuples(*dims, distinct=False):
    """Index tuples into data dims `dims` (the indices' last axis holds one index per dim), a
    third of them negative; with `distinct`, no two tuples name the same position (for
    ScatterND without a reduction, where ONNX Runtime's order among duplicates is open)."""
    def gen(rng, shape):
        count = int(np.prod(shape[:-1]))
        if distinct:
            flat = rng.choice(int(np.prod(dims)), count, replace=False)
            coords = np.stack(np.unravel_index(flat, dims), axis=-1)
        else:
            coords = np.stack([rng.integers(0, n, count) for n in dims], axis=-1)
        coords = coords - np.array(dims) * (rng.random(coords.shape) < 1 / 3)
        return coords.reshape(shape)
    return gen


def wide(dtype):
    """Integers over the whole range of dtype, so that add and mul wrap."""
    info = np.iinfo(dtype)
    return lambda rng, shape: rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def scatter_gather_nd_cases():
    """ScatterElements (and the deprecated Scatter), ScatterND and GatherND: every reduction,
    opset form and element type ORT takes, axes (negative too), indices smaller than data off
    the axis, duplicate indices (the last wins without a reduction), negative indices, index
    tuples naming slices of rank 0 to 3, batch_dims, slices longer than a kernel task, empty
    indices, constant inputs that fold, and an index out of range refused by the run."""
    specials = lambda rng, shape: rng.choice(np.array([np.nan, -1.0, 0.5, 2.0, np.inf]), shape)  # noqa: E731
    opset_of = {"none": 11, "add": 16, "mul": 16, "max": 18, "min": 18}
    for name, data, idx, attrs in [
            ("none_axis0", In((4, 5)), In((3, 5), I64, gen=indices(4)), {}),
            ("none_axis1_i32_smaller", In((4, 6)), In((3, 4), I32, gen=indices(6)), dict(axis=1)),
            ("add_axis_minus1_longer_than_axis", In((2, 3, 5)), In((2, 2, 7), I64, gen=indices(5)),
             dict(axis=-1, reduction="add")),
            ("mul_axis_minus2", In((3, 4, 2)), In((3, 6, 2), I64, gen=indices(4)), dict(axis=-2, reduction="mul")),
            ("max_axis0", In((5, 3)), In((4, 3), I64, gen=indices(5)), dict(reduction="max")),
            ("min_axis1_smaller", In((3, 5)), In((2, 4), I64, gen=indices(5)), dict(axis=1, reduction="min")),
            ("max_nan", In((2, 6), gen=specials), In((2, 6), I64, gen=indices(6)), dict(axis=1, reduction="max")),
            ("min_nan", In((2, 6), gen=specials), In((2, 6), I64, gen=indices(6)), dict(axis=1, reduction="min")),
            ("none_rank7_merged", In((2, 4, 2, 3, 1, 2, 3)), In((2, 1, 2, 3, 1, 2, 3), I64, gen=indices(4)),
             dict(axis=1)),
            ("add_empty_indices", In((3, 4)), In((0, 4), I64), dict(reduction="add"))]:
        updates = In(idx.shape, data.dtype, gen=data.gen)
        opset = opset_of[attrs.get("reduction", "none")]
        yield single(f"scatterelements/{name}", "ScatterElements", [data, idx, updates], attrs, opset=opset)
    for name, dtype, reduction, gen in [
            ("f64_add", np.float64, "add", None), ("f16_none", np.float16, "none", None),
            ("f16_max", np.float16, "max", None), ("f16_min", np.float16, "min", None),
            ("i8_add_wraps", np.int8, "add", wide(np.int8)), ("u8_mul_wraps", np.uint8, "mul", wide(np.uint8)),
            ("i16_max", np.int16, "max", None), ("u16_min", np.uint16, "min", wide(np.uint16)),
            ("i32_mul_wraps", I32, "mul", wide(I32)), ("u32_max", np.uint32, "max", wide(np.uint32)),
            ("i64_add", I64, "add", None), ("u64_min", np.uint64, "min", None),
            ("bool_none", BOOL, "none", None), ("bool_add", BOOL, "add", None), ("bool_mul", BOOL, "mul", None)]:
        yield single(f"scatterelements/{name}", "ScatterElements",
                     [In((3, 4), dtype, gen), In((5, 4), I64, gen=indices(3)), In((5, 4), dtype, gen)],
                     {} if reduction == "none" else dict(reduction=reduction), opset=opset_of[reduction])
    yield single("scatterelements/none_duplicates_last_wins", "ScatterElements",
                 [In((4,)), i64(1, -3, 2, 1, 1), In((5,))], opset=13)
    yield single("scatterelements/constant_indices_and_updates", "ScatterElements",
                 [In((3, 3)), np.array([[2, 0, -1]], I64), np.array([[7, 8, 9]], F32)], dict(axis=0), opset=13)
    yield graph("scatterelements/of_constants_folds", [
        node("ScatterElements", ["d", "i", "u"], ["s"], axis=1, reduction="mul"), node("Add", ["x", "s"], ["y"])],
        {"x": In((2, 3))}, ["y"], dict(d=np.arange(6, dtype=F32).reshape(2, 3), i=np.array([[2, 2], [0, -1]], I64),
                                       u=np.array([[2, 3], [4, 5]], F32)), opset=16)
    for name, attrs, opset in [("opset9_axis1", dict(axis=1), 9), ("opset10_default_axis", {}, 10)]:
        yield single(f"scatter/{name}", "Scatter", [In((3, 4)), In((2, 3), I64, gen=indices(3)), In((2, 3))],
                     attrs, opset=opset)

    # ScatterND: tuples of 1, 2 and 3 indices into data [4, 5, 6] name slices of rank 2, 1 and 0.
    for name, data, idx, reduction in [
            ("none_slice_rank2", In((4, 5, 6)), In((2, 1), I64, gen=index_tuples(4, distinct=True)), "none"),
            ("none_slice_rank1", In((4, 5, 6)), In((3, 2), I64, gen=index_tuples(4, 5, distinct=True)), "none"),
            ("none_slice_rank0", In((4, 5, 6)), In((2, 3, 3), I64, gen=index_tuples(4, 5, 6, distinct=True)), "none"),
            ("add_duplicates", In((3, 4)), In((5, 1), I64, gen=index_tuples(3)), "add"),
            ("mul_slice_rank0", In((4, 3)), In((3, 2), I64, gen=index_tuples(4, 3)), "mul"),
            ("max_batched_tuples", In((2, 3, 4)), In((2, 2, 2), I64, gen=index_tuples(2, 3)), "max"),
            ("min_1d", In((5,)), In((6, 1), I64, gen=index_tuples(5)), "min"),
            ("none_long_rows", In((3, 2500)), In((2, 1), I64, gen=index_tuples(3, distinct=True)), "none"),
            ("add_long_rows", In((3, 2500)), In((4, 1), I64, gen=index_tuples(3)), "add"),
            ("max_nan", In((3, 4), gen=specials), In((4, 1), I64, gen=index_tuples(3)), "max"),
            ("none_empty_indices", In((3, 4)), In((0, 1), I64), "none")]:
        depth = idx.shape[-1]
        updates = In(idx.shape[:-1] + data.shape[depth:], data.dtype, gen=data.gen)
        attrs = {} if reduction == "none" else dict(reduction=reduction)
        yield single(f"scatternd/{name}", "ScatterND", [data, idx, updates], attrs, opset=opset_of[reduction])
    yield single("scatternd/none_whole_data_k0", "ScatterND", [In((2, 3)), np.zeros((1, 0), I64), In((1, 2, 3))],
                 opset=11)
    yield single("scatternd/none_duplicates_last_wins", "ScatterND",
                 [In((4,)), np.array([[1], [1], [-3], [2], [1]], I64), In((5,))], opset=13)
    for name, dtype, reduction, gen in [
            ("f64_none", np.float64, "none", None), ("f16_none", np.float16, "none", None),
            ("i8_min", np.int8, "min", None), ("u8_max", np.uint8, "max", wide(np.uint8)),
            ("i16_add_wraps", np.int16, "add", wide(np.int16)), ("u16_none", np.uint16, "none", None),
            ("i32_add", I32, "add", None), ("u32_mul_wraps", np.uint32, "mul", wide(np.uint32)),
            ("i64_mul", I64, "mul", None), ("u64_max", np.uint64, "max", None),
            ("bool_none", BOOL, "none", None), ("bool_add", BOOL, "add", None), ("bool_mul", BOOL, "mul", None)]:
        distinct = reduction == "none"
        yield single(f"scatternd/{name}", "ScatterND",
                     [In((4, 3), dtype, gen), In((3, 1), I64, gen=index_tuples(4, distinct=distinct)),
                      In((3, 3), dtype, gen)],
                     {} if distinct else dict(reduction=reduction), opset=opset_of[reduction])
    yield single("scatternd/constant_indices_opset13", "ScatterND",
                 [In((3, 4)), np.array([[2, -4], [0, 1]], I64), In((2,))], opset=13)

    # GatherND
    for name, data, idx, attrs, opset in [
            ("slice_rank2", In((4, 5, 6)), In((3, 1), I64, gen=index_tuples(4)), {}, 13),
            ("slice_rank1_batched_tuples", In((4, 5, 6)), In((2, 2, 2), I64, gen=index_tuples(4, 5)), {}, 13),
            ("slice_rank0", In((4, 5, 6)), In((3, 3), I64, gen=index_tuples(4, 5, 6)), {}, 13),
            ("opset11", In((3, 4)), In((2, 2), I64, gen=index_tuples(3, 4)), {}, 11),
            ("batch_dims1", In((2, 5, 3)), In((2, 4, 1), I64, gen=index_tuples(5)), dict(batch_dims=1), 12),
            ("batch_dims1_slice_rank0", In((3, 4, 5)), In((3, 2, 2), I64, gen=index_tuples(4, 5)),
             dict(batch_dims=1), 13),
            ("batch_dims2", In((2, 3, 4, 5)), In((2, 3, 2, 1), I64, gen=index_tuples(4)), dict(batch_dims=2), 13),
            ("long_rows", In((6, 1000)), In((4, 1), I64, gen=index_tuples(6)), {}, 13),
            ("empty_indices", In((3, 4)), In((0, 1), I64), {}, 13)]:
        yield single(f"gathernd/{name}", "GatherND", [data, idx], attrs, opset=opset)
    yield single("gathernd/whole_batches_k0", "GatherND", [In((2, 3, 4)), np.zeros((2, 0), I64)],
                 dict(batch_dims=1), opset=13)
    for name, dtype in [("i32", I32), ("i64", I64), ("f64", np.float64), ("f16", np.float16), ("i8", np.int8),
                        ("u8", np.uint8), ("bool", BOOL)]:
        yield single(f"gathernd/{name}", "GatherND", [In((3, 4, 2), dtype), In((2, 2), I64, gen=index_tuples(3, 4))],
                     opset=13)
    yield single("gathernd/constant_indices", "GatherND", [In((3, 4)), np.array([[1, -1], [0, 2]], I64)], opset=13)
    yield single("gathernd/embedding_rows", "GatherND",
                 [np.random.default_rng(7).standard_normal((50, 8)), In((2, 7, 1), I64, gen=index_tuples(50))],
                 opset=13)

    # Data the run refuses, as ORT does: an index outside [-n, n).
    rng = np.random.default_rng(13)
    for name, op, nodes_name, inputs, feeds, attrs, opset, bad in [
            ("scatterelements", "ScatterElements", "put", {"d": In((2, 3)), "i": In((1, 2), I64), "u": In((1, 2))},
             {"i": np.array([[0, 3]], I64)}, dict(axis=1), 13, 3),
            ("scatter_opset10", "Scatter", "old_put", {"d": In((2, 3)), "i": In((1, 2), I64), "u": In((1, 2))},
             {"i": np.array([[1, -3]], I64)}, {}, 10, -3),
            ("scatternd", "ScatterND", "put_nd", {"d": In((4, 3)), "i": In((2, 1), I64), "u": In((2, 3))},
             {"i": np.array([[1], [-5]], I64)}, dict(reduction="add"), 16, -5),
            ("gathernd", "GatherND", "take_nd", {"d": In((3, 4)), "i": In((2, 2), I64)},
             {"i": np.array([[0, 1], [2, 4]], I64)}, {}, 13, 4)]:
        model = make_model([node(op, list(inputs), ["y"], name=nodes_name, **attrs)], inputs, ["y"], opset=opset)
        feed = {n: spec.sample(rng) for n, spec in inputs.items()}
        feed.update(feeds)
        expect = (f"node '{nodes_name}'", f"index {bad} is out of range")
        yield Case(f"bad_input/{name}_index_out_of_range", model, feed, kind="bad_input", expect=expect)
    model = make_model([node("ScatterElements", ["d", "i", "u"], ["y"], name="too_wide", axis=0)],
                       {"d": In((3, 2)), "i": In((1, 3), I64), "u": In((1, 3))}, ["y"], opset=13, infer=False,
                       output_types={"y": (F32, (3, 2))})
    yield Case("unsupported/scatterelements_indices_wider_than_data", model, {}, kind="compile_error",
               expect=("too_wide", "ScatterElements", "indices dim 1 (3) exceeds data dim 1 (2)"))


def onehot_cases():
    """OneHot: every axis, negative indices counting from depth and out-of-range ones giving
    a row of off values (at opsets 9 and 10 too, as ORT), whole and fractional float
    indices, a float depth truncated, the index/depth/value type pairs ORT takes, values
    given at run time, and depth from a shape computation or a --value-range input."""
    ints = lambda rng, shape: rng.integers(-7, 7, shape)  # noqa: E731
    floats = lambda rng, shape: rng.choice(np.array([-4.0, -3.0, -2.5, -1.0, 0.0, 0.5, 1.0, 3.0, 4.0, 9.0]), shape)  # noqa: E731
    for axis in (-1, 0, 1, -2, -3):
        yield single(f"onehot/axis{axis}", "OneHot", [In((3, 4), I64, gen=ints), scalar(5, I64), f32(2, 7)],
                     dict(axis=axis), opset=11)
    for name, idx, depth, values in [
            ("i32_indices_f32_depth", In((2, 5), I32, gen=ints), np.array([6.0], F32), f32(0, 1)),
            ("f32_indices_whole_and_fractional", In((3, 5), F32, gen=floats), scalar(4.0), f32(-1, 1)),
            ("f32_depth_truncated", In((2, 4), I64, gen=ints), scalar(4.7), f32(0, 3)),
            ("i64_values", In((4, 3), I64, gen=ints), scalar(5, I64), i64(-3, 9)),
            ("i32_values", In((4, 3), I64, gen=ints), scalar(5.0), np.array([4, -2], I32)),
            ("f16_values", In((4, 3), I64, gen=ints), scalar(6, I64), np.array([0.5, 1.5], np.float16)),
            ("f16_everything", In((3, 3), np.float16, gen=floats), np.array(5, np.float16),
             np.array([0, 1], np.float16)),
            ("i32_depth", In((2, 3), I64, gen=ints), np.array([3], I32), f32(0, 1)),
            ("f32_indices_i64_values", In((2, 6), F32, gen=floats), scalar(5, I64), i64(0, 1)),
            ("runtime_values", In((3, 4), I64, gen=ints), scalar(6, I64), In((2,)))]:
        yield single(f"onehot/{name}", "OneHot", [idx, depth, values], opset=11)
    for opset in (9, 10):
        yield single(f"onehot/opset{opset}_negative_indices", "OneHot",
                     [In((3, 4), I64, gen=ints), scalar(5, I64), f32(0, 1)], dict(axis=1), opset=opset)
    yield graph("onehot/depth_from_shape", [
        node("Shape", ["x"], ["s"]), node("Gather", ["s", "one"], ["depth"], axis=0),
        node("OneHot", ["labels", "depth", "values"], ["hot"]), node("Mul", ["hot", "x"], ["y"])],
        {"x": In((4, 6)), "labels": In((4,), I64, gen=lambda rng, shape: rng.integers(-6, 6, shape))}, ["y"],
        dict(one=scalar(1, I64), values=f32(0, 1)), opset=13)
    yield graph("onehot/of_constants_folds", [
        node("OneHot", ["labels", "depth", "values"], ["hot"], axis=0), node("Add", ["x", "hot"], ["y"])],
        {"x": In((3, 2))}, ["y"], dict(labels=i64(2, -1), depth=scalar(3, I64), values=f32(0, 1)), opset=11)
    model = make_model([node("OneHot", ["labels", "depth", "values"], ["hot"], name="encode")],
                       {"labels": In((5,), I64), "depth": In((1,), I64)}, ["hot"], dict(values=f32(0, 1)),
                       opset=11, infer=False, output_types={"hot": (F32, (5, None))})
    yield Case("unsupported/onehot_depth_from_data", model, {}, kind="compile_error",
               expect=("encode", "OneHot", "depth", "--value depth=", "--value-range depth="))
    feeds = []
    for depth in (5, 2, 9, 7):
        feeds.append({"labels": np.array([1, -1, 4, 8, -9], I64), "depth": np.array([depth], I64)})
    yield SymbolicCase("values/onehot_ranged_depth", model, feeds, ("--value-range", "depth=2:5:9"))
    # A float depth (the backend suite's form), fixed by --value.
    model = make_model([node("OneHot", ["labels", "depth", "values"], ["hot"], axis=0)],
                       {"labels": In((4,), I64), "depth": In((1,), F32), "values": In((2,), F32)}, ["hot"],
                       opset=11, infer=False, output_types={"hot": (F32, (None, 4))})
    feeds = [{"labels": np.array(labels, I64), "depth": f32(6), "values": f32(-1, 3)}
             for labels in ([0, 5, 2, -1], [3, 3, -6, 1])]
    yield SymbolicCase("values/onehot_float_depth_fixed", model, feeds, ("--value", "depth=6"))


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
    spread = lambda rng, shape: boxes(rng, shape) * 4  # noqa: E731  (most boxes kept)
    tied = lambda rng, shape: rng.integers(0, 4, shape) / 4  # noqa: E731

    # A detector's batched NMS: each box offset by 20 x its class (of 30),
    # so a box overlaps only boxes of its class and the next ones.
    def offset_per_class(rng, shape):
        return boxes(rng, shape) * 2 + 20.0 * rng.integers(0, 30, shape[:-1] + (1,))

    # Spread boxes, a few spanning the whole range in x (the widest box
    # bounds how far back a candidate looks) and some of no width.
    def wide_and_degenerate(rng, shape):
        b = boxes(rng, shape) * 8
        wide, flat = rng.random(shape[:-1]) < 0.03, rng.random(shape[:-1]) < 0.1
        b[wide, 1], b[wide, 3] = -5.0, 90.0
        b[flat, 3] = b[flat, 1]
        return b
    centred = lambda rng, shape: np.concatenate(  # noqa: E731
        [rng.uniform(0, 10, shape[:-1] + (2,)), rng.uniform(0.5, 3, shape[:-1] + (2,))], axis=-1)
    for name, b, sc, limit, iou, thr, attrs in [
            ("random", In((1, 60, 4), gen=boxes), In((1, 1, 60)), 10, 0.5, 0.2, {}),
            ("clustered_small_limit", In((2, 80, 4), gen=clustered), In((2, 3, 80)), 2, 0.3, 0.0, {}),
            ("tied_scores", In((1, 40, 4), gen=boxes), In((1, 2, 40), gen=tied), 40, 0.4, None, {}),
            ("centre_boxes", In((1, 30, 4), gen=centred), In((1, 2, 30)), 5, 0.5, 0.1, dict(center_point_box=1)),
            ("no_thresholds", In((1, 25, 4), gen=boxes), In((1, 1, 25)), 25, None, None, {}),
            ("no_limit_keeps_nothing", In((1, 5, 4), gen=boxes), In((1, 1, 5)), None, None, None, {}),
            # Hundreds kept: each candidate is tested against 8 kept boxes a
            # step, then a tail.
            ("many_kept", In((1, 700, 4), gen=spread), In((1, 2, 700)), 650, 0.3, 0.05, {}),
            ("many_kept_centre_boxes", In((1, 500, 4), gen=lambda rng, shape: centred(rng, shape) * 4),
             In((1, 1, 500)), 500, 0.2, None, dict(center_point_box=1)),
            # Thousands kept: the kept boxes sorted by x0 in batches of 256.
            ("many_kept_offset_per_class", In((1, 3000, 4), gen=offset_per_class), In((1, 1, 3000)),
             3000, 0.5, 0.02, {}),
            ("many_kept_wide_and_degenerate", In((2, 1500, 4), gen=wide_and_degenerate),
             In((2, 2, 1500)), 1400, 0.1, None, {})]:
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


def control_flow_cases():
    """If, Loop and Scan with their subgraphs compiled as regions: captured outer
    values, loop-carried state, scan outputs, the iteration number as a dim,
    conditions known only at run time (each compiled once and run on several
    feeds) and at compile time (the branch is inlined; the other need not type)."""
    rng = np.random.default_rng(21)
    f32_info = lambda name, shape: helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, shape)
    i64_info = lambda name, shape=(): helper.make_tensor_value_info(name, onnx.TensorProto.INT64, shape)
    bool_info = lambda name: helper.make_tensor_value_info(name, onnx.TensorProto.BOOL, ())

    def body(name, nodes, inputs, outputs, inits=None):
        return helper.make_graph(nodes, name, inputs, outputs,
                                 initializer=[numpy_helper.from_array(v, k) for k, v in (inits or {}).items()])

    def runs(name, nodes, inputs, outputs, feeds, inits=None, opset=17, compile_args=(), output_types=None):
        model = make_model(nodes, inputs, outputs, inits, opset, output_types=output_types)
        full = []
        for values in feeds:
            feed = {n: spec.sample(rng) for n, spec in inputs.items() if n not in values}
            feed.update({n: np.asarray(v, dtype=inputs[n].dtype) for n, v in values.items()})
            full.append(feed)
        return SymbolicCase(name, model, full, tuple(compile_args))

    # If on a run-time condition; both branches read outer values.
    then_b = body("then", [node("Add", ["x", "one"], ["t"]), node("Relu", ["t"], ["yt"])], [], [f32_info("yt", (2, 3))],
                  {"one": scalar(1.0)})
    else_b = body("else", [node("Mul", ["x", "w"], ["yt2"])], [], [f32_info("yt2", (2, 3))])
    yield runs("if/runtime_condition", [node("If", ["c"], ["y"], then_branch=then_b, else_branch=else_b),
                                        node("Sigmoid", ["y"], ["z"])],
               {"c": In((), BOOL), "x": In((2, 3)), "w": In((2, 3))}, ["z", "y"],
               [{"c": True}, {"c": False}])
    # Several results, a condition computed from data, and a branch with a
    # reduction and a MatMul on captured weights.
    then_b = body("then", [node("MatMul", ["x", "wm"], ["m"]), node("ReduceSum", ["m", "ax1"], ["s"], keepdims=1)],
                  [], [f32_info("m", (4, 5)), f32_info("s", (4, 1))],
                  {"wm": rng.standard_normal((3, 5)).astype(F32), "ax1": i64(1)})
    else_b = body("else", [node("Slice", ["x2", "st", "en", "ax"], ["m2"]), node("ReduceMax", ["m2"], ["s2"], axes=[1], keepdims=1)],
                  [], [f32_info("m2", (4, 5)), f32_info("s2", (4, 1))], {"st": i64(0), "en": i64(5), "ax": i64(1)})
    yield runs("if/computed_condition_two_results", [
        node("ReduceSum", ["x"], ["total"], keepdims=0), node("Greater", ["total", "zero"], ["c"]),
        node("If", ["c"], ["m", "s"], then_branch=then_b, else_branch=else_b), node("Add", ["m", "s"], ["y"])],
        {"x": In((4, 3)), "x2": In((4, 8))}, ["y", "s"],
        [{"x": np.ones((4, 3))}, {"x": -np.ones((4, 3))}, {}], inits={"zero": scalar(0.0)})
    # Nested If: the inner one captures a value of the outermost graph.
    inner_then = body("inner_then", [node("Neg", ["x"], ["a"])], [], [f32_info("a", (3,))])
    inner_else = body("inner_else", [node("Abs", ["x"], ["b"])], [], [f32_info("b", (3,))])
    outer_then = body("outer_then", [node("If", ["c2"], ["r"], then_branch=inner_then, else_branch=inner_else)],
                      [], [f32_info("r", (3,))])
    outer_else = body("outer_else", [node("Exp", ["x"], ["e"])], [], [f32_info("e", (3,))])
    yield runs("if/nested", [node("If", ["c1"], ["y"], then_branch=outer_then, else_branch=outer_else)],
               {"c1": In((), BOOL), "c2": In((), BOOL), "x": In((3,))}, ["y"],
               [{"c1": True, "c2": True}, {"c1": True, "c2": False}, {"c1": False, "c2": True}])
    # A constant condition picks its branch at compile time; the other
    # branch reshapes to a shape that does not fit, as exporters leave them.
    then_b = body("then", [node("Reshape", ["x", "bad"], ["r"])], [], [f32_info("r", (7, 7))], {"bad": i64(7, 7)})
    else_b = body("else", [node("Transpose", ["x"], ["r2"], perm=[1, 0])], [], [f32_info("r2", (3, 2))])
    yield graph("if/constant_condition_inlined", [node("If", ["c"], ["y"], then_branch=then_b, else_branch=else_b)],
                {"x": In((2, 3))}, ["y"], inits={"c": np.array(False)}, output_types={"y": (F32, (3, 2))})
    # A condition from shapes (Shape -> Gather -> Equal) folds as well.
    then_b = body("then", [node("Mul", ["x", "x"], ["sq"])], [], [f32_info("sq", (2, 3))])
    else_b = body("else", [node("Reshape", ["x", "flat"], ["fl"])], [], [f32_info("fl", (6,))], {"flat": i64(6)})
    yield graph("if/shape_condition_inlined", [
        node("Shape", ["x"], ["sh"]), node("Gather", ["sh", "zero"], ["d0"], axis=0),
        node("Equal", ["d0", "two"], ["c"]),
        node("If", ["c"], ["y"], then_branch=then_b, else_branch=else_b)],
        {"x": In((2, 3))}, ["y"], inits={"zero": scalar(0, I64), "two": scalar(2, I64)},
        output_types={"y": (F32, (2, 3))})

    # Extents that data decides, as torchvision's detectors compute them: TopK
    # keeps k = min(limit, count) of the positive elements, and an If gives
    # nothing or those negated (a result whose extent the branch sets).
    then_b = body("then", [node("Constant", [], ["none"], value=numpy_helper.from_array(np.zeros(0, F32)))],
                  [], [f32_info("none", (0,))])
    else_b = body("else", [node("Neg", ["v"], ["e"])], [], [f32_info("e", None)])
    yield runs("if/extent_from_branch_and_topk_of_count", [
        node("Greater", ["x", "zero"], ["pos"]), node("NonZero", ["pos"], ["nz"]),
        node("Shape", ["nz"], ["sh"]), node("Gather", ["sh", "one"], ["n"], axis=0),
        node("Unsqueeze", ["n", "ax0"], ["n1"]), node("Concat", ["limit", "n1"], ["both"], axis=0),
        node("ReduceMin", ["both"], ["k0"], keepdims=0), node("Reshape", ["k0", "single"], ["k"]),
        node("Reshape", ["nz", "flat"], ["idx"]), node("Gather", ["x", "idx"], ["picked"], axis=0),
        node("TopK", ["picked", "k"], ["v", "i"], axis=0),
        node("If", ["c"], ["y"], then_branch=then_b, else_branch=else_b)],
        {"c": In((), BOOL), "x": In((10,))}, ["v", "i", "y"],
        [{"c": False}, {"c": True}, {"c": False, "x": -np.ones(10)},
         {"c": False, "x": [1, -1, 2, -2, 0, 3, -3, 0, 0, 0]}],
        inits={"zero": scalar(0.0), "one": scalar(1, I64), "ax0": i64(0), "limit": i64(4),
               "single": i64(1), "flat": i64(-1)})

    # Loop with a constant trip count: a carried sum and a scan output of it.
    lb = body("body", [node("Add", ["s_in", "x"], ["s_out"]), node("Identity", ["cond_in"], ["cond_out"]),
                       node("Mul", ["s_out", "two"], ["scan"])],
              [i64_info("i"), bool_info("cond_in"), f32_info("s_in", (2, 3))],
              [bool_info("cond_out"), f32_info("s_out", (2, 3)), f32_info("scan", (2, 3))], {"two": scalar(2.0)})
    yield graph("loop/fixed_trips_carried_and_scan",
                [node("Loop", ["M", "", "s0"], ["s_final", "scans"], body=lb)],
                {"x": In((2, 3)), "s0": In((2, 3))}, ["s_final", "scans"], inits={"M": scalar(5, I64)},
                output_types={"s_final": (F32, (2, 3)), "scans": (F32, (5, 2, 3))})
    # The iteration number indexes a captured tensor (Gather) and scales a value.
    lb = body("body", [node("Gather", ["table", "i"], ["row"], axis=0), node("Cast", ["i"], ["fi"], to=1),
                       node("Mul", ["row", "fi"], ["scaled"]), node("Add", ["acc_in", "scaled"], ["acc_out"]),
                       node("Identity", ["cond_in"], ["cond_out"])],
              [i64_info("i"), bool_info("cond_in"), f32_info("acc_in", (4,))],
              [bool_info("cond_out"), f32_info("acc_out", (4,)), f32_info("row", (4,))])
    yield graph("loop/iteration_number_as_index", [node("Loop", ["M", "cond", "acc0"], ["acc", "rows"], body=lb)],
                {"table": In((6, 4)), "acc0": In((4,))}, ["acc", "rows"],
                inits={"M": scalar(6, I64), "cond": np.array(True)},
                output_types={"acc": (F32, (4,)), "rows": (F32, (6, 4))})
    # The body's condition stops the loop early: the scan output's rows are
    # counted at run time (in [0, M]).
    lb = body("body", [node("Mul", ["v_in", "factor"], ["v_out"]), node("ReduceSum", ["v_out"], ["total"], keepdims=0),
                       node("Less", ["total", "limit"], ["cond_out"])],
              [i64_info("i"), bool_info("cond_in"), f32_info("v_in", (3,))],
              [bool_info("cond_out"), f32_info("v_out", (3,)), f32_info("v_out_scan", (3,))])
    lb.node.append(node("Identity", ["v_out"], ["v_out_scan"]))
    yield runs("loop/condition_stops_early", [node("Loop", ["M", "cond", "v0"], ["v", "trace"], body=lb),
                                             node("Shape", ["trace"], ["rows"])],
               {"v0": In((3,), gen=positive), "factor": In((), gen=lambda r, s: r.uniform(1.5, 2.5, s)),
                "limit": In(()), "cond": In((), BOOL)}, ["v", "trace", "rows"],
               [{"limit": 40.0, "cond": True}, {"limit": 1e9, "cond": True}, {"limit": 0.0, "cond": True},
                {"limit": 40.0, "cond": False}], inits={"M": scalar(10, I64)},
               output_types={"v": (F32, (3,)), "trace": (F32, ("count", 3)), "rows": (I64, (2,))})
    # A trip count from a graph input fixed with --value; no scan outputs.
    lb = body("body", [node("Add", ["a_in", "one"], ["a_out"]), node("Identity", ["cond_in"], ["cond_out"])],
              [i64_info("i"), bool_info("cond_in"), f32_info("a_in", (2,))],
              [bool_info("cond_out"), f32_info("a_out", (2,))], {"one": scalar(1.0)})
    yield runs("loop/trip_count_from_value", [node("Loop", ["M", "", "a0"], ["a"], body=lb)],
               {"M": In((), I64), "a0": In((2,))}, ["a"], [{"M": 3}], compile_args=["--value", "M=3"],
               output_types={"a": (F32, (2,))})
    # Nested loops: the inner body reads the outer iteration number.
    inner = body("inner", [node("Add", ["t_in", "oi_f"], ["t_out"]), node("Identity", ["c_in"], ["c_out"])],
                 [i64_info("j"), bool_info("c_in"), f32_info("t_in", (2,))], [bool_info("c_out"), f32_info("t_out", (2,))])
    outer = body("outer", [node("Cast", ["oi"], ["oi_f"], to=1),
                           node("Loop", ["three", "", "u_in"], ["u_out"], body=inner),
                           node("Identity", ["oc_in"], ["oc_out"])],
                 [i64_info("oi"), bool_info("oc_in"), f32_info("u_in", (2,))],
                 [bool_info("oc_out"), f32_info("u_out", (2,))], {"three": scalar(3, I64)})
    yield graph("loop/nested_loops", [node("Loop", ["M", "", "u0"], ["u"], body=outer)],
                {"u0": In((2,))}, ["u"], inits={"M": scalar(4, I64)}, output_types={"u": (F32, (2,))})

    # Scan: a running sum over axis 0 with the sums as a scan output.
    sb = body("body", [node("Add", ["sum_in", "x_t"], ["sum_out"]), node("Identity", ["sum_out"], ["y_t"])],
              [f32_info("sum_in", (3,)), f32_info("x_t", (3,))], [f32_info("sum_out", (3,)), f32_info("y_t", (3,))])
    yield graph("scan/running_sum", [node("Scan", ["s0", "xs"], ["s", "ys"], body=sb, num_scan_inputs=1)],
                {"s0": In((3,)), "xs": In((5, 3))}, ["s", "ys"], opset=11,
                output_types={"s": (F32, (3,)), "ys": (F32, (5, 3))})
    # Opset 8's Scan: a batch axis first on every operand and result, each
    # batch entry scanned on its own (here backwards).
    sb = body("body", [node("Add", ["acc_in", "x_t"], ["acc_out"]), node("Mul", ["acc_out", "x_t"], ["y_t"])],
              [f32_info("acc_in", (3,)), f32_info("x_t", (3,))], [f32_info("acc_out", (3,)), f32_info("y_t", (3,))])
    yield graph("scan/opset8_batched_reversed", [node("Scan", ["", "acc0", "xs"], ["acc", "ys"], body=sb,
                                                      num_scan_inputs=1, directions=[1])],
                {"acc0": In((2, 3)), "xs": In((2, 4, 3))}, ["acc", "ys"], opset=8,
                output_types={"acc": (F32, (2, 3)), "ys": (F32, (2, 4, 3))})
    # Scan over axis 1 backwards, two scan inputs, output stacked on axis 1
    # forwards and a second one backwards; a captured bias.
    sb = body("body", [node("Mul", ["a_t", "b_t"], ["p"]), node("Add", ["p", "bias"], ["q"]),
                       node("Add", ["h_in", "q"], ["h_out"]), node("Tanh", ["h_out"], ["o1"]),
                       node("Neg", ["q"], ["o2"])],
              [f32_info("h_in", (2, 4)), f32_info("a_t", (2, 4)), f32_info("b_t", (2, 4))],
              [f32_info("h_out", (2, 4)), f32_info("o1", (2, 4)), f32_info("o2", (2, 4))])
    yield graph("scan/axes_and_directions", [node("Scan", ["h0", "a", "b"], ["h", "y1", "y2"], body=sb,
                                                   num_scan_inputs=2, scan_input_axes=[1, 1],
                                                   scan_input_directions=[1, 0], scan_output_axes=[1, -1],
                                                   scan_output_directions=[0, 1])],
                {"h0": In((2, 4)), "a": In((2, 6, 4)), "b": In((2, 6, 4)), "bias": In((2, 4))}, ["h", "y1", "y2"],
                opset=16, output_types={"h": (F32, (2, 4)), "y1": (F32, (2, 6, 4)), "y2": (F32, (2, 4, 6))})


def sequence_cases():
    """Sequences and optionals, resolved at compile time into their tensors: built,
    changed and read with constant positions, split and concatenated, mapped with
    SequenceMap, carried through an unrolled Loop; tensors in and out (the
    sequence and optional I/O forms are checked by the backend suite)."""
    seq_f32 = helper.make_sequence_type_proto(helper.make_tensor_type_proto(onnx.TensorProto.FLOAT, None))
    yield graph("sequence/construct_insert_erase_at", [
        node("SequenceConstruct", ["a", "b"], ["s1"]), node("SequenceInsert", ["s1", "c", "one"], ["s2"]),
        node("SequenceErase", ["s2", "minus_one"], ["s3"]), node("SequenceAt", ["s3", "one"], ["y"]),
        node("SequenceLength", ["s3"], ["n"])],
        {"a": In((2, 3)), "b": In((4, 3)), "c": In((1, 3))}, ["y", "n"],
        inits={"one": scalar(1, I64), "minus_one": scalar(-1, I64)}, opset=12)
    for new_axis, axis in ((0, 0), (0, 1), (1, 0), (1, -1)):
        yield graph(f"sequence/concat_from_sequence_new_axis{new_axis}_axis{axis}", [
            node("SequenceConstruct", ["a", "b", "c"], ["s"]),
            node("ConcatFromSequence", ["s"], ["y"], axis=axis, new_axis=new_axis)],
            {"a": In((2, 3)), "b": In((2, 3)), "c": In((2, 3))}, ["y"], opset=12)
    yield graph("sequence/split_sizes_then_concat", [
        node("SplitToSequence", ["x", "sizes"], ["s"], axis=1), node("SequenceAt", ["s", "two"], ["last"]),
        node("ConcatFromSequence", ["s"], ["back"], axis=1)],
        {"x": In((2, 7))}, ["last", "back"], inits={"sizes": i64(2, 1, 4), "two": scalar(2, I64)}, opset=12)
    yield graph("sequence/split_scalar_chunks", [
        node("SplitToSequence", ["x", "chunk"], ["s"], axis=0), node("SequenceAt", ["s", "minus_one"], ["tail"]),
        node("SequenceLength", ["s"], ["n"])],
        {"x": In((7, 2))}, ["tail", "n"], inits={"chunk": scalar(3, I64), "minus_one": scalar(-1, I64)}, opset=12)
    yield graph("sequence/split_unit_no_keepdims", [
        node("SplitToSequence", ["x"], ["s"], axis=-1, keepdims=0), node("SequenceAt", ["s", "one"], ["col"]),
        node("ConcatFromSequence", ["s"], ["restacked"], axis=0, new_axis=1)],
        {"x": In((3, 4))}, ["col", "restacked"], inits={"one": scalar(1, I64)}, opset=12)
    # SplitToSequence of a tensor a node computes: its extent along the axis comes from
    # ONNX's shape inference while importing (the IR types it only later).
    yield graph("sequence/split_computed_tensor", [
        node("Relu", ["x"], ["r"]), node("SplitToSequence", ["r", "three"], ["s"], axis=1),
        node("SequenceLength", ["s"], ["n"]), node("SequenceAt", ["s", "minus_one"], ["tail"]),
        node("SplitToSequence", ["r"], ["rows"], axis=0, keepdims=0),
        node("ConcatFromSequence", ["rows"], ["restacked"], axis=1, new_axis=1)],
        {"x": In((3, 7))}, ["n", "tail", "restacked"], inits={"three": scalar(3, I64), "minus_one": scalar(-1, I64)},
        opset=12, static_only="the split axes' extents must be known at compile time")
    # Strings through sequences: built, split, read and concatenated like numbers.
    words = lambda r, s: np.resize(np.array(["ab", "", "ÄÖ", "日本", "x y", "😀"]), s)
    yield graph("sequence/strings_construct_split_concat", [
        node("SequenceConstruct", ["a", "b"], ["s1"]), node("SequenceInsert", ["s1", "c", "one"], ["s2"]),
        node("SequenceAt", ["s2", "one"], ["middle"]), node("ConcatFromSequence", ["s2"], ["rows"], axis=0),
        node("SplitToSequence", ["rows", "sizes"], ["parts"], axis=1),
        node("SequenceAt", ["parts", "one"], ["right"]), node("ConcatFromSequence", ["parts"], ["back"], axis=1)],
        {"a": In((2, 4), np.str_, gen=words), "b": In((1, 4), np.str_, gen=words),
         "c": In((3, 4), np.str_, gen=words)}, ["middle", "rows", "right", "back"],
        inits={"one": scalar(1, I64), "sizes": i64(1, 3)}, opset=12)
    body = helper.make_graph([node("Mul", ["e", "w"], ["m"]), node("ReduceSum", ["m"], ["r"], keepdims=0)], "map",
                             [helper.make_tensor_value_info("e", onnx.TensorProto.FLOAT, None),
                              helper.make_tensor_value_info("w", onnx.TensorProto.FLOAT, None)],
                             [helper.make_tensor_value_info("r", onnx.TensorProto.FLOAT, None)])
    yield graph("sequence/sequence_map_with_tensor", [
        node("SequenceConstruct", ["a", "b"], ["s"]), node("SequenceMap", ["s", "w"], ["sums"], body=body),
        node("ConcatFromSequence", ["sums"], ["y"], axis=0, new_axis=1)],
        {"a": In((3,)), "b": In((3,)), "w": In((3,))}, ["y"], opset=17)
    yield graph("sequence/optional_present_and_empty", [
        node("Optional", ["x"], ["o"]), node("OptionalHasElement", ["o"], ["has"]),
        node("OptionalGetElement", ["o"], ["got"]), node("Optional", [], ["none"], type=helper.make_tensor_type_proto(1, None)),
        node("OptionalHasElement", ["none"], ["has_none"])],
        {"x": In((2, 2))}, ["has", "got", "has_none"], opset=18)
    # A Loop carrying a sequence: unrolled (constant trip count and condition).
    body = helper.make_graph([node("Identity", ["c_in"], ["c_out"]), node("Cast", ["i"], ["fi"], to=1),
                              node("Mul", ["x", "fi"], ["row"]), node("SequenceInsert", ["s_in", "row"], ["s_out"])],
                             "body", [helper.make_tensor_value_info("i", onnx.TensorProto.INT64, ()),
                                      helper.make_tensor_value_info("c_in", onnx.TensorProto.BOOL, ()),
                                      helper.make_value_info("s_in", seq_f32)],
                             [helper.make_tensor_value_info("c_out", onnx.TensorProto.BOOL, ()),
                              helper.make_value_info("s_out", seq_f32)])
    yield graph("sequence/loop_carries_sequence", [
        node("SequenceEmpty", [], ["empty"], dtype=1), node("Loop", ["m", "", "empty"], ["s"], body=body),
        node("ConcatFromSequence", ["s"], ["y"], axis=0, new_axis=1)],
        {"x": In((3,))}, ["y"], inits={"m": scalar(4, I64)}, opset=13, output_types={"y": (F32, (4, 3))})


def half_precision_cases():
    """f16 models (exported with .half()): every op computes in f32 and rounds
    each result to f16, as ONNX Runtime's CPU provider does."""
    F16 = np.float16
    tol = dict(atol=2e-2, rtol=1e-2)
    rng = np.random.default_rng(16)
    half = lambda *shape: (rng.standard_normal(shape) * 0.5).astype(F16)
    for op in ("Max", "Min"):
        yield single(f"half/{op.lower()}", op, [In((2, 3, 4), F16), In((3, 4), F16)], **tol)
    yield single("half/mod_fmod", "Mod", [In((2, 5), F16), In((2, 5), F16, gen=lambda r, s: r.uniform(0.5, 3, s))],
                 {"fmod": 1}, **tol)
    yield graph("half/conv_relu", [node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), node("Relu", ["c"], ["y"])],
                {"x": In((1, 3, 8, 8), F16)}, ["y"], inits={"w": half(8, 3, 3, 3), "b": half(8)}, **tol)
    yield graph("half/matmul_add_softmax", [node("MatMul", ["x", "w"], ["m"]), node("Add", ["m", "b"], ["a"]),
                                            node("Softmax", ["a"], ["y"], axis=-1)],
                {"x": In((2, 4, 16), F16)}, ["y"], inits={"w": half(16, 8), "b": half(8)}, **tol)
    yield graph("half/layernorm_reduce_argmax", [
        node("LayerNormalization", ["x", "g", "b"], ["n"], axis=-1), node("ReduceMean", ["n"], ["r"], keepdims=0),
        node("ArgMax", ["n"], ["i"], axis=1)],
        {"x": In((3, 5, 6), F16)}, ["r", "i"], inits={"g": half(6), "b": half(6)}, **tol)
    yield graph("half/transpose_concat_reshape", [
        node("Transpose", ["x"], ["t"], perm=[1, 0]), node("Concat", ["t", "t"], ["c"], axis=0),
        node("Reshape", ["c", "shape"], ["y"])],
        {"x": In((3, 4), F16)}, ["y"], inits={"shape": np.array([2, 12], np.int64)}, **tol)
    yield graph("half/equal_where_gather", [
        node("Greater", ["x", "z"], ["g"]), node("Where", ["g", "x", "z"], ["w"]),
        node("Gather", ["w", "idx"], ["y"], axis=1)],
        {"x": In((2, 6), F16), "z": In((2, 6), F16)}, ["g", "y"], inits={"idx": np.array([5, 0, 2], np.int64)}, **tol)


def tfidf_cases():
    """TfIdfVectorizer over int64/int32 tokens: n-gram lengths, skips, TF/IDF/TFIDF
    with and without weights, rows of a batch."""
    tokens = lambda rng, shape: rng.integers(1, 7, shape)
    pool = dict(pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 6, 7], ngram_counts=[0, 4],
                ngram_indexes=[0, 1, 2, 3, 4, 5, 6])
    for name, attrs, shape, dtype in (
            ("tf_unigrams_bigrams", dict(mode="TF", min_gram_length=1, max_gram_length=2, max_skip_count=0),
             (12,), I64),
            ("tf_batch_bigrams_skip3", dict(mode="TF", min_gram_length=2, max_gram_length=2, max_skip_count=3),
             (3, 9), I64),
            ("idf_weighted", dict(mode="IDF", min_gram_length=1, max_gram_length=2, max_skip_count=2,
                                  weights=[0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5]), (2, 10), I32),
            ("tfidf_weighted_int32", dict(mode="TFIDF", min_gram_length=1, max_gram_length=2, max_skip_count=5,
                                          weights=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]), (2, 12), I32),
            ("tfidf_unweighted", dict(mode="TFIDF", min_gram_length=1, max_gram_length=1, max_skip_count=1),
             (16,), I64)):
        yield single(f"tfidf/{name}", "TfIdfVectorizer", [In(shape, dtype, gen=tokens)], {**pool, **attrs}, opset=9)
    # A string pool (unsorted, with repeats across n-gram lengths) and string tokens,
    # some in no n-gram ("zebra", the empty string, a prefix of a pool word).
    words = ["the", "cat", "sat", "on", "mat", "ça", "a", "th"]
    string_tokens = lambda rng, shape: np.array(words + ["zebra", ""])[rng.integers(0, 10, shape)]
    string_pool = dict(pool_strings=["sat", "the", "ça", "cat", "the", "cat", "cat", "sat", "on", "ça"],
                       ngram_counts=[0, 4], ngram_indexes=[0, 1, 2, 3, 4, 5, 6])
    for name, attrs, shape in (
            ("strings_tf_unigrams_bigrams", dict(mode="TF", min_gram_length=1, max_gram_length=2, max_skip_count=0),
             (14,)),
            ("strings_tfidf_batch_skip2", dict(mode="TFIDF", min_gram_length=1, max_gram_length=2, max_skip_count=2,
                                               weights=[0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5]), (3, 11))):
        yield single(f"tfidf/{name}", "TfIdfVectorizer", [In(shape, np.str_, gen=string_tokens)],
                     {**string_pool, **attrs}, opset=9)


def signal_cases():
    """DFT (opsets 17 and 20), STFT, the Hann, Hamming and Blackman windows and
    MelWeightMatrix: FFT lengths of every radix the kernel has (4, 2, 3, 5), primes
    summed directly, 1, and more or fewer transforms than vector lanes; forward,
    inverse, onesided, real and complex, every axis form, dft_length padding and
    truncating; STFT with and without a window, frame steps shorter and longer than
    the frame; windows periodic and symmetric of several sizes and output types, at
    compile time and (--value-range) at run time; mel matrices folded and computed at
    run time, and edges outside the spectrogram refused."""
    rng = np.random.default_rng(17)

    def tol(n):
        """ONNX Runtime's f32 transforms of n points are off by up to ~1e-5 n (a
        real signal's Nyquist bin gets an imaginary part of 7e-4 at n = 400)."""
        return dict(atol=2e-5 * n)

    for n in (1, 2, 7, 16, 60, 256, 400):
        yield single(f"dft/real_{n}", "DFT", [In((2, n, 1))], dict(axis=1), opset=17, **tol(n))
        yield single(f"dft/complex_{n}", "DFT", [In((2, n, 2))], dict(axis=1), opset=17, **tol(n))
        yield single(f"dft/inverse_{n}", "DFT", [In((2, n, 2))], dict(axis=1, inverse=1), opset=17)
        yield single(f"dft/onesided_{n}", "DFT", [In((2, n, 1))], dict(axis=1, onesided=1), opset=17, **tol(n))
    for n in (9, 25, 30, 49, 101, 512):
        yield single(f"dft/complex_{n}", "DFT", [In((1, n, 2))], dict(axis=1), opset=17, **tol(n))
    # 15 transforms: a group of 8 lanes and a partial one.
    yield single("dft/lanes_partial_group", "DFT", [In((3, 60, 5, 2))], dict(axis=1), opset=17, **tol(60))
    yield single("dft/real_inverse", "DFT", [In((2, 12, 1))], dict(axis=1, inverse=1), opset=17)
    for axis in (0, 2, -2, -3):
        yield single(f"dft/opset17_axis{axis}", "DFT", [In((4, 6, 5, 2))], dict(axis=axis), opset=17)
    yield single("dft/opset17_default_axis", "DFT", [In((3, 10, 1))], opset=17)
    yield single("dft/opset20_default_axis", "DFT", [In((2, 3, 10, 2))], opset=20)
    for axis in (0, 1, -3):
        yield single(f"dft/opset20_axis{axis}", "DFT", [In((4, 6, 5, 2)), None, np.array(axis, I64)], opset=20)
    yield single("dft/opset20_inverse_axis1", "DFT", [In((3, 8, 4, 2)), None, np.array(1, I64)], dict(inverse=1),
                 opset=20)
    for name, n, length, attrs in [("padded", 6, 9, {}), ("truncated", 10, 4, {}),
                                   ("padded_onesided", 6, 11, dict(onesided=1)),
                                   ("truncated_inverse", 12, 7, dict(inverse=1))]:
        yield single(f"dft/length_{name}", "DFT", [In((2, n, 1 if attrs.get("onesided") else 2)),
                                                   np.array(length, I64)], dict(axis=1, **attrs), opset=17)
    yield single("dft/length_i32_opset20", "DFT", [In((2, 5, 6, 1)), np.array(8, I32), np.array(2, I64)],
                 dict(onesided=1), opset=20)
    yield single("dft/f64_real", "DFT", [In((2, 60, 1), np.float64)], dict(axis=1), opset=17)
    yield single("dft/f64_inverse", "DFT", [In((3, 16, 2), np.float64)], dict(axis=1, inverse=1), opset=17)
    yield single("dft/f16", "DFT", [In((2, 16, 2), np.float16, gen=uniform(-1, 1))], dict(axis=1), opset=17,
                 atol=2e-2, rtol=1e-2)

    # ONNX's shape inference takes onesided as 0 when absent (the schema's
    # default is 1, which ORT follows): the cases set it, but for one.
    x, one = In((2, 128, 1)), dict(onesided=1)
    yield Case("stft/onesided_by_default", make_model(
        [node("STFT", ["x", "step", "", "length"], ["y"])], {"x": x}, ["y"],
        dict(step=np.array(8, I64), length=np.array(16, I64)), infer=False,
        output_types={"y": (F32, (2, 15, 9, 2))}), feeds_for("stft/onesided_by_default", {"x": x}))
    yield single("stft/frame16_step8", "STFT", [x, np.array(8, I64), None, np.array(16, I64)], one)
    yield single("stft/frame16_step8_twosided", "STFT", [x, np.array(8, I64), None, np.array(16, I64)],
                 dict(onesided=0))
    hann16 = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(16) / 16)).astype(F32)
    yield single("stft/window", "STFT", [x, np.array(8, I64), hann16], one)
    yield single("stft/window_and_frame_length", "STFT", [x, np.array(4, I64), hann16, np.array(16, I64)], one)
    yield single("stft/window_input", "STFT", [x, np.array(8, I64), In((16,))], one)
    yield single("stft/complex_twosided", "STFT", [In((2, 64, 2)), np.array(8, I64), None, np.array(16, I64)],
                 dict(onesided=0))
    yield single("stft/complex_onesided", "STFT", [In((2, 64, 2)), np.array(8, I64), None, np.array(16, I64)],
                 one)
    yield single("stft/step_beyond_frame", "STFT", [In((3, 100, 1)), np.array(20, I64), None, np.array(16, I64)],
                 one)
    yield single("stft/one_frame", "STFT", [In((1, 64, 1)), np.array(5, I64), None, np.array(64, I64)], one)
    yield single("stft/odd_frame_i32", "STFT", [In((2, 50, 1)), np.array(3, I32), None, np.array(7, I32)], one)
    yield single("stft/signal_without_channels", "STFT", [In((2, 64)), np.array(8, I64), None, np.array(16, I64)],
                 one)
    yield single("stft/f64", "STFT", [In((2, 60, 1), np.float64), np.array(6, I64), None, np.array(12, I64)], one)
    # An audio front end: Hann window, 25 ms frames every 10 ms at 16 kHz, power
    # spectrum, mel filter bank and log.
    yield graph("stft/log_mel_front_end", [
        node("HannWindow", ["frame"], ["window"]),
        node("STFT", ["audio", "step", "window"], ["spectrum"], onesided=1),
        node("ReduceSumSquare", ["spectrum", "last"], ["power"], keepdims=0),
        node("MelWeightMatrix", ["bands", "dft", "rate", "low", "high"], ["mel"]),
        node("MatMul", ["power", "mel"], ["mel_power"]), node("Add", ["mel_power", "floor"], ["safe"]),
        node("Log", ["safe"], ["log_mel"])],
        {"audio": In((1, 1600, 1), gen=uniform(-1, 1))}, ["log_mel", "spectrum"],
        dict(frame=np.array(400, I64), step=np.array(160, I64), last=i64(-1), bands=np.array(40, I64),
             dft=np.array(400, I64), rate=np.array(16000, I64), low=scalar(20.0), high=scalar(8000.0),
             floor=scalar(1e-6)), opset=18, **tol(400))

    windows = ("HannWindow", "HammingWindow", "BlackmanWindow")
    for op in windows:
        for size, periodic in [(1, 1), (2, 0), (2, 1), (10, 0), (10, 1), (400, 1), (401, 0)]:
            name = f"window/{op[:-6].lower()}_{size}_{'periodic' if periodic else 'symmetric'}"
            yield graph(name, [node(op, ["size"], ["w"], periodic=periodic), node("Mul", ["x", "w"], ["y"])],
                        {"x": In((size,))}, ["y", "w"], dict(size=np.array(size, I64)))
    for dtype, tag in [(onnx.TensorProto.DOUBLE, "f64"), (onnx.TensorProto.FLOAT16, "f16"),
                       (onnx.TensorProto.INT32, "i32"), (onnx.TensorProto.UINT8, "u8"),
                       (onnx.TensorProto.INT64, "i64")]:
        yield graph(f"window/hann_{tag}", [node("HannWindow", ["size"], ["w"], periodic=0, output_datatype=dtype),
                                           node("Shape", ["x"], ["s"])],
                    {"x": In((2,))}, ["w", "s"], dict(size=np.array(9, I32)))
    yield graph("window/size_i32", [node("BlackmanWindow", ["size"], ["w"]), node("Mul", ["x", "w"], ["y"])],
                {"x": In((12,))}, ["y"], dict(size=np.array(12, I32)))

    for tag, args in [("conformance", (8, 16, 8192, 0.0, 4096.0)), ("speech_40", (40, 400, 16000, 0.0, 8000.0)),
                      ("low_edge", (10, 64, 16000, 20.0, 8000.0)), ("narrow_band", (5, 32, 8000, 100.0, 3000.0)),
                      ("whisper_like", (80, 512, 16000, 125.0, 7600.0)), ("coinciding_edges", (4, 20, 1000, 300.0, 310.0))]:
        bands, dft, rate, low, high = args
        yield graph(f"mel/{tag}", [node("MelWeightMatrix", ["bands", "dft", "rate", "low", "high"], ["mel"]),
                                   node("MatMul", ["spectrum", "mel"], ["y"])],
                    {"spectrum": In((3, dft // 2 + 1), gen=uniform(0, 2))}, ["y", "mel"],
                    dict(bands=np.array(bands, I64), dft=np.array(dft, I64), rate=np.array(rate, I64),
                         low=scalar(low), high=scalar(high)))
    for dtype, tag in [(onnx.TensorProto.DOUBLE, "f64"), (onnx.TensorProto.INT32, "i32")]:
        yield graph(f"mel/output_{tag}", [node("MelWeightMatrix", ["bands", "dft", "rate", "low", "high"], ["mel"],
                                               output_datatype=dtype), node("Shape", ["x"], ["s"])],
                    {"x": In((2,))}, ["mel", "s"],
                    dict(bands=np.array(6, I32), dft=np.array(32, I32), rate=np.array(8000, I32), low=scalar(0.0),
                         high=scalar(4000.0)))
    # Computed at run time: the sample rate and edges are inputs.
    for tag, rate_type, out in [("runtime_f32", I64, onnx.TensorProto.FLOAT), ("runtime_i32_rate_f64", I32,
                                                                               onnx.TensorProto.DOUBLE)]:
        yield graph(f"mel/{tag}", [node("MelWeightMatrix", ["bands", "dft", "rate", "low", "high"], ["mel"],
                                        output_datatype=out)],
                    {"rate": In((), rate_type, gen=lambda r, s: 16000), "low": In((), gen=lambda r, s: 30.0),
                     "high": In((), gen=lambda r, s: 7000.0)}, ["mel"],
                    dict(bands=np.array(20, rate_type), dft=np.array(256, rate_type)))

    yield from signal_ranged_cases()
    yield from signal_refused_cases()


def signal_ranged_cases():
    """Signal ops at extents known only at run time: DFT and STFT over a signal of
    symbolic length, windows and mel matrices of sizes given by --value-range (the
    kernels, not folded), and a window's expanded function with a float Range over a
    size cast to float."""
    rng = np.random.default_rng(18)

    def ranged(name, nodes, inputs, outputs, compile_args, runs, inits=None, opset=17, output_types=None,
               atol=e2e.DEFAULT_ATOL):
        model = make_model(nodes, inputs, outputs, inits, opset, output_types=output_types)
        feeds = []
        for values in runs:
            feed = {}
            for n, spec in inputs.items():
                if n in values and isinstance(values[n], tuple):  # a shape to draw at
                    feed[n] = In(values[n], spec.dtype, spec.gen).sample(rng)
                elif n in values:
                    feed[n] = np.asarray(values[n], dtype=spec.dtype)
                else:
                    feed[n] = spec.sample(rng)
            feeds.append(feed)
        return SymbolicCase(name, model, feeds, tuple(compile_args), atol=atol)

    yield ranged("dft/ranged_signal_dft_length", [node("DFT", ["x", "length"], ["y"], axis=1)],
                 {"x": In((2, "n", 2))}, ["y"], ["--shape-range", "x=2x16x2:2x64x2:2x200x2"],
                 [{"x": (2, 64, 2)}, {"x": (2, 16, 2)}, {"x": (2, 200, 2)}, {"x": (2, 100, 2)}],
                 dict(length=np.array(64, I64)), output_types={"y": (F32, (2, 64, 2))})
    yield ranged("stft/ranged_signal", [node("STFT", ["x", "step", "window"], ["y"], onesided=1)],
                 {"x": In(("batch", "n", 1))}, ["y"], ["--shape-range", "x=1x400x1:1x1600x1:3x4000x1"],
                 [{"x": (1, 1600, 1)}, {"x": (1, 400, 1)}, {"x": (3, 4000, 1)}, {"x": (2, 2345, 1)}],
                 dict(step=np.array(160, I64),
                      window=(0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 400)).astype(F32)),
                 output_types={"y": (F32, ("batch", "frames", 201, 2))}, atol=8e-3)
    for op in ("HannWindow", "HammingWindow", "BlackmanWindow"):
        for periodic in (0, 1):
            yield ranged(f"window/{op[:-6].lower()}_ranged_{'periodic' if periodic else 'symmetric'}",
                         [node(op, ["size"], ["w"], periodic=periodic)], {"size": In((), I64)}, ["w"],
                         ["--value-range", "size=1:400:2048"],
                         [{"size": 400}, {"size": 2}, {"size": 2048}, {"size": 1025}],
                         output_types={"w": (F32, ("n",))})
    yield ranged("window/hann_ranged_f64", [node("HannWindow", ["size"], ["w"], output_datatype=onnx.TensorProto.DOUBLE)],
                 {"size": In((), I32)}, ["w"], ["--value-range", "size=0:16:100"],
                 [{"size": 16}, {"size": 0}, {"size": 100}, {"size": 7}],
                 output_types={"w": (np.float64, ("n",))})
    yield ranged("window/hann_fixed_size_input", [node("HannWindow", ["size"], ["w"])], {"size": In((), I64)},
                 ["w"], ["--value", "size=10"], [{"size": 10}], output_types={"w": (F32, (10,))})
    # HannWindow's function body: a float Range up to the size cast to float.
    expanded = [node("Cast", ["size"], ["size_f"], to=onnx.TensorProto.FLOAT),
                node("Range", ["zero", "size_f", "one"], ["n"]), node("Div", ["tau", "size_f"], ["step"]),
                node("Mul", ["n", "step"], ["angle"]), node("Cos", ["angle"], ["c"]), node("Mul", ["c", "half"], ["hc"]),
                node("Sub", ["half", "hc"], ["w"])]
    consts = dict(zero=scalar(0.0), one=scalar(1.0), tau=scalar(2 * np.pi), half=scalar(0.5))
    yield ranged("window/expanded_float_range_fixed", expanded, {"size": In((), I64)}, ["w"],
                 ["--value", "size=12"], [{"size": 12}], consts, output_types={"w": (F32, (12,))})
    yield ranged("window/expanded_float_range_ranged", expanded, {"size": In((), I64)}, ["w"],
                 ["--value-range", "size=1:12:64"], [{"size": 12}, {"size": 1}, {"size": 64}, {"size": 33}], consts,
                 output_types={"w": (F32, ("n",))})
    yield ranged("mel/ranged_bins_and_length", [node("MelWeightMatrix", ["bands", "dft", "rate", "low", "high"],
                                                     ["mel"])],
                 {"bands": In((), I64), "dft": In((), I64)}, ["mel"],
                 ["--value-range", "bands=1:20:40", "--value-range", "dft=64:256:512"],
                 [{"bands": 20, "dft": 256}, {"bands": 1, "dft": 64}, {"bands": 40, "dft": 512},
                  {"bands": 33, "dft": 300}],
                 dict(rate=np.array(16000, I64), low=scalar(50.0), high=scalar(7000.0)),
                 output_types={"mel": (F32, ("spectrum", "bands"))})


def signal_refused_cases():
    """What ONNX Runtime refuses, cuvil refuses: at compile time when it is known then,
    else with exit 1 from infer.bin."""
    def refused(name, nodes, inputs, outputs, expect, inits=None, opset=17):
        model = make_model(nodes, inputs, outputs, inits, opset, infer=False,
                           output_types={o: (F32, ("any",)) for o in outputs})
        return Case(name, model, {}, kind="compile_error", expect=expect)

    yield refused("dft/refused_onesided_inverse", [node("DFT", ["x"], ["y"], name="dft", onesided=1, inverse=1)],
                  {"x": In((1, 8, 2))}, ["y"], ("DFT node 'dft'", "onesided and inverse cannot both be set"))
    yield refused("dft/refused_onesided_complex", [node("DFT", ["x"], ["y"], name="dft", onesided=1)],
                  {"x": In((1, 8, 2))}, ["y"], ("DFT node 'dft'", "onesided needs a real signal"))
    yield refused("dft/refused_last_axis", [node("DFT", ["x", "", "axis"], ["y"], name="dft")],
                  {"x": In((1, 8, 2))}, ["y"], ("axis -1 is not a signal axis",),
                  dict(axis=np.array(-1, I64)), opset=20)
    yield refused("dft/refused_zero_length", [node("DFT", ["x", "length"], ["y"], name="dft")],
                  {"x": In((1, 8, 2))}, ["y"], ("transform length must be positive, is 0",),
                  dict(length=np.array(0, I64)))
    yield refused("dft/refused_three_channels", [node("DFT", ["x"], ["y"], name="dft")],
                  {"x": In((1, 8, 3))}, ["y"], ("must be 1 (real) or 2 (complex), is 3",))
    yield refused("stft/refused_window_length", [node("STFT", ["x", "step", "w", "length"], ["y"], name="stft")],
                  {"x": In((1, 64, 1))}, ["y"], ("the window has 12 elements, frame_length is 16",),
                  dict(step=np.array(8, I64), w=np.ones(12, F32), length=np.array(16, I64)))
    yield refused("stft/refused_frame_beyond_signal", [node("STFT", ["x", "step", "", "length"], ["y"], name="stft")],
                  {"x": In((1, 64, 1))}, ["y"], ("the signal has 64 samples, fewer than the frame length 65",),
                  dict(step=np.array(8, I64), length=np.array(65, I64)))
    yield refused("stft/refused_zero_step", [node("STFT", ["x", "step", "", "length"], ["y"], name="stft")],
                  {"x": In((1, 64, 1))}, ["y"], ("frame_step must be positive, is 0",),
                  dict(step=np.array(0, I64), length=np.array(16, I64)))
    yield refused("stft/refused_no_frame_length", [node("STFT", ["x", "step"], ["y"], name="stft")],
                  {"x": In((1, 64, 1))}, ["y"], ("give frame_length or a window",), dict(step=np.array(8, I64)))
    yield refused("window/refused_negative_size", [node("HannWindow", ["size"], ["w"], name="hann")],
                  {"x": In((2,))}, ["w"], ("size must not be negative, is -3",), dict(size=np.array(-3, I64)))
    yield refused("mel/refused_edges_beyond_spectrum",
                  [node("MelWeightMatrix", ["bands", "dft", "rate", "low", "high"], ["mel"], name="mel")],
                  {"x": In((2,))}, ["mel"], ("mel band edge", "outside the 9 bins"),
                  dict(bands=np.array(3, I64), dft=np.array(16, I64), rate=np.array(100, I64), low=scalar(0.0),
                       high=scalar(100.0)))
    model = make_model([node("MelWeightMatrix", ["bands", "dft", "rate", "low", "high"], ["mel"], name="mel")],
                       {"rate": In((), I64), "low": In(()), "high": In(())}, ["mel"],
                       dict(bands=np.array(3, I64), dft=np.array(16, I64)))
    yield Case("bad_input/mel_edges_beyond_spectrum", model,
               {"rate": np.array(100, I64), "low": scalar(0.0), "high": scalar(100.0)}, kind="bad_input",
               expect=("MelWeightMatrix node 'mel'", "falls on spectrogram bin", "outside the spectrogram"))


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


def einsum_cases():
    """Einsum (opset 12): matrix and batch products (the GEMM path), transposes, sums,
    diagonals, ellipses, implicit outputs, three operands, and f64/int types (the
    general kernel)."""
    f32 = [
        ("matmul", "ij,jk->ik", [(3, 4), (4, 5)]),
        ("batch_matmul", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
        ("attention_scores", "bhqd,bhkd->bhqk", [(2, 2, 5, 4), (2, 2, 6, 4)]),
        ("attention_context", "bhqk,bkhd->bqhd", [(2, 2, 5, 6), (2, 6, 2, 4)]),
        ("merged_groups", "abc,cde->abde", [(2, 3, 4), (4, 2, 3)]),
        ("transpose", "ij->ji", [(3, 5)]),
        ("transpose_3d", "abc->cab", [(2, 3, 4)]),
        ("implicit_transpose", "ba", [(3, 5)]),
        ("implicit_matmul", "ij,jk", [(3, 4), (4, 2)]),
        ("sum_all", "ij->", [(3, 4)]),
        ("sum_rows", "ij->i", [(3, 4)]),
        ("sum_middle", "abc->ac", [(2, 3, 4)]),
        ("inner_product", "i,i", [(7,), (7,)]),
        ("outer_product", "i,j->ij", [(3,), (4,)]),
        ("hadamard", "ij,ij->ij", [(3, 4), (3, 4)]),
        ("diagonal", "ii->i", [(4, 4)]),
        ("trace", "ii", [(4, 4)]),
        ("batch_diagonal", "...ii->...i", [(2, 3, 3)]),
        ("diagonal_then_product", "ii,ij->j", [(3, 3), (3, 4)]),
        ("summed_before_product", "ij,jk->k", [(3, 4), (4, 5)]),
        ("ellipsis_matmul", "...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
        ("ellipsis_broadcast", "...ij,...jk->...ik", [(2, 1, 3, 4), (1, 5, 4, 2)]),
        ("ellipsis_middle", "a...c,c->a...", [(2, 3, 4, 5), (5,)]),
        ("vector_matrix", "j,bjk->bk", [(4,), (3, 4, 5)]),
        ("three_operands", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
        ("three_operands_shared_batch", "bij,bjk,bkl->bil", [(2, 2, 3), (2, 3, 4), (2, 4, 2)]),
        ("four_operands_to_scalar", "i,ij,j,j->", [(3,), (3, 4), (4,), (4,)]),
        ("uppercase_labels", "Ab,bC->AC", [(3, 4), (4, 2)]),
        ("spaces", " ij , jk -> ik ", [(3, 4), (4, 5)]),
        ("contracted_broadcast", "ij,jk->ik", [(2, 1), (3, 4)]),
    ]
    for name, equation, shapes in f32:
        yield single(f"einsum/{name}", "Einsum", [In(s) for s in shapes], dict(equation=equation), opset=12)
    yield single("einsum/weights_constant", "Einsum", [In((2, 5, 4)), np.random.default_rng(3).standard_normal((4, 6))],
                 dict(equation="bnd,dh->bnh"), opset=12)
    for dtype in (np.float64, I32, I64):
        suffix = np.dtype(dtype).name
        yield single(f"einsum/{suffix}_batch_matmul", "Einsum", [In((2, 3, 4), dtype), In((2, 4, 5), dtype)],
                     dict(equation="bij,bjk->bik"), opset=12)
        yield single(f"einsum/{suffix}_diagonal_sum", "Einsum", [In((2, 3, 3), dtype)], dict(equation="bii->b"),
                     opset=12)
        yield single(f"einsum/{suffix}_three_operands", "Einsum", [In((2, 3), dtype), In((3, 4), dtype),
                                                                   In((4,), dtype)],
                     dict(equation="ij,jk,k->i"), opset=12)


def _grid(low, high):
    """Grid coordinates uniform in [low, high]: beyond [-1, 1] reaches the padding."""
    return lambda rng, shape: rng.uniform(low, high, shape)


def gridsample_cases():
    """GridSample: every mode, padding mode and align_corners, at opset 16 (bilinear,
    bicubic) and 20 (linear, cubic, volumetric 5-D), grids reaching past [-1, 1]."""
    x, grid = In((2, 3, 5, 6)), In((2, 4, 7, 2), gen=_grid(-1.3, 1.3))
    for mode in ("bilinear", "nearest", "bicubic"):
        for padding in ("zeros", "border", "reflection"):
            for align in (0, 1):
                yield single(f"gridsample/opset16_{mode}_{padding}_align{align}", "GridSample", [x, grid],
                             dict(mode=mode, padding_mode=padding, align_corners=align), opset=16)
    yield single("gridsample/opset16_defaults", "GridSample", [x, grid], opset=16)
    for mode in ("linear", "nearest", "cubic"):
        yield single(f"gridsample/opset20_{mode}", "GridSample", [x, grid], dict(mode=mode), opset=20)
    far = In((1, 2, 3, 2), gen=_grid(-7.0, 7.0))
    for padding in ("border", "reflection"):
        for align in (0, 1):
            yield single(f"gridsample/opset20_far_{padding}_align{align}", "GridSample", [In((1, 2, 4, 3)), far],
                         dict(mode="linear", padding_mode=padding, align_corners=align), opset=20)
    volume, points = In((2, 2, 3, 4, 5)), In((2, 2, 3, 4, 3), gen=_grid(-1.2, 1.2))
    for mode in ("linear", "nearest"):
        for padding in ("zeros", "border", "reflection"):
            yield single(f"gridsample/opset20_5d_{mode}_{padding}", "GridSample", [volume, points],
                         dict(mode=mode, padding_mode=padding, align_corners=int(padding == "border")), opset=20)
    yield single("gridsample/large_image", "GridSample", [In((1, 4, 20, 24)), In((1, 16, 19, 2), gen=_grid(-1, 1))],
                 dict(mode="bilinear"), opset=16)


def _rois(rng, shape):
    """[x1, y1, x2, y2] boxes within and across the border of a 10 x 12 map."""
    corners = rng.uniform(-3, 13, (shape[0], 2, 2))
    return np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1)


def roialign_cases():
    """RoiAlign: opset 10 (output_half_pixel) and 16 (half_pixel and output_half_pixel),
    avg and max, adaptive and fixed sampling, spatial_scale, rois crossing the border,
    batch indices picking images; an index outside the batch is refused."""
    x, rois = In((2, 3, 10, 12)), In((5, 4), gen=_rois)
    batch = In((5,), I64, gen=lambda rng, shape: rng.integers(0, 2, shape))
    variants = [
        ("avg_adaptive", dict()),
        ("avg_ratio2", dict(sampling_ratio=2, output_height=3, output_width=4)),
        ("max_ratio2", dict(mode="max", sampling_ratio=2, output_height=2, output_width=3)),
        ("max_adaptive", dict(mode="max", output_height=3, output_width=3)),
        ("scale_half", dict(spatial_scale=0.5, output_height=4, output_width=2)),
    ]
    for name, attrs in variants:
        yield single(f"roialign/opset10_{name}", "RoiAlign", [x, rois, batch], attrs, opset=10)
        for ctm in ("half_pixel", "output_half_pixel"):
            yield single(f"roialign/opset16_{ctm}_{name}", "RoiAlign", [x, rois, batch],
                         dict(attrs, coordinate_transformation_mode=ctm), opset=16)
    tiny = In((2, 4), gen=lambda rng, shape: np.array([[2.0, 2.0, 2.2, 2.1], [5.0, 1.0, 4.0, 3.0]]))
    yield single("roialign/opset16_degenerate_rois", "RoiAlign", [x, tiny, np.array([0, 1], I64)],
                 dict(output_height=2, output_width=2), opset=16)
    model = make_model([node("RoiAlign", ["x", "rois", "batch"], ["y"], name="pool_rois")],
                       {"x": x, "rois": rois, "batch": batch}, ["y"], opset=16)
    feeds = feeds_for("roialign/bad_batch", {"x": x, "rois": rois})
    feeds["batch"] = np.array([0, 1, 2, 0, 1], I64)
    yield Case("bad_input/roialign_batch_index_out_of_range", model, feeds, kind="bad_input",
               expect=("RoiAlign node 'pool_rois'", "batch index 2 is outside [0, 2)"))


def _pool_rois(scale):
    """[batch, x1, y1, x2, y2] rois over a 2-image batch whose map is 10 x 12 after
    spatial_scale `scale`: within it, across its border, reversed (x2 < x1) and
    on exact halves (rounding away from zero)."""
    def gen(rng, shape):
        corners = rng.uniform(-3, 13, (shape[0] - 2, 2, 2)) / scale
        boxes = np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1)
        boxes = np.concatenate([boxes, [[5.0, 4.0, 2.0, 1.0], [0.5, 1.5, 6.5, 2.5]]])
        batch = rng.integers(0, 2, (shape[0], 1)).astype(np.float32)
        return np.concatenate([batch, boxes], axis=1)
    return gen


def maxroipool_cases():
    """MaxRoiPool: pooled shapes coarser and finer than the rois, spatial_scale,
    rois outside the map (empty bins: 0), batch indices picking images; an
    index outside the batch is refused."""
    x = In((2, 3, 10, 12))
    for name, pooled, scale in [("p2x2", [2, 2], 1.0), ("p3x4_scale_half", [3, 4], 0.5),
                                ("p7x7_scale_sixteenth", [7, 7], 0.0625), ("p1x5", [1, 5], 1.0)]:
        rois = In((6, 5), gen=_pool_rois(scale))
        yield single(f"maxroipool/{name}", "MaxRoiPool", [x, rois],
                     dict(pooled_shape=pooled, spatial_scale=scale), opset=13)
    model = make_model([node("MaxRoiPool", ["x", "rois"], ["y"], name="pool_rois", pooled_shape=[2, 2])],
                       {"x": x, "rois": In((2, 5))}, ["y"], opset=13)
    feeds = feeds_for("maxroipool/bad_batch", {"x": x})
    feeds["rois"] = np.array([[0, 1, 1, 4, 4], [2, 1, 1, 4, 4]], np.float32)
    yield Case("bad_input/maxroipool_batch_index_out_of_range", model, feeds, kind="bad_input",
               expect=("MaxRoiPool node 'pool_rois'", "batch index 2 is outside [0, 2)"))


def deform_conv_cases():
    """DeformConv (opset 19, torchvision's deform_conv2d): DCNv1 (no mask) and
    DCNv2 (mask), groups and offset groups, strides, dilations, pads, a
    rectangular kernel, offsets that move taps off the map (zeros) and onto
    whole pixels, run-time weights, and all-constant inputs (the reference)."""
    rng = np.random.default_rng(19)
    def weights(shape):
        return (rng.standard_normal(shape) * 0.3).astype(F32)
    def taps_case(name, n, c, hw, oc, kernel, group=1, offset_group=1, mask=True, bias=True,
                  offsets=scaled(1.5), strides=(1, 1), pads=(1, 1, 1, 1), dilations=(1, 1)):
        kh, kw = kernel
        oh = (hw[0] + pads[0] + pads[2] - dilations[0] * (kh - 1) - 1) // strides[0] + 1
        ow = (hw[1] + pads[1] + pads[3] - dilations[1] * (kw - 1) - 1) // strides[1] + 1
        args = [In((n, c, *hw)), weights((oc, c // group, kh, kw)),
                In((n, offset_group * 2 * kh * kw, oh, ow), gen=offsets),
                weights((oc,)) if bias else None,
                In((n, offset_group * kh * kw, oh, ow), gen=lambda r, s: r.uniform(0, 1, s)) if mask else None]
        attrs = dict(group=group, offset_group=offset_group, strides=list(strides), pads=list(pads),
                     dilations=list(dilations))
        return single(f"deformconv/{name}", "DeformConv", args, attrs, opset=19, atol=1e-5)
    yield taps_case("dcn_v1", 1, 4, (7, 7), 6, (3, 3), mask=False)
    yield taps_case("dcn_v2", 2, 4, (6, 7), 5, (3, 3))
    yield taps_case("groups_and_offset_groups", 1, 8, (6, 6), 6, (3, 3), group=2, offset_group=4)
    yield taps_case("depthwise_offset_group_per_channel", 1, 4, (5, 6), 4, (3, 3), group=4, offset_group=4)
    yield taps_case("stride2_dilation2_no_bias", 1, 3, (9, 8), 4, (3, 3), strides=(2, 2), dilations=(2, 2),
                    pads=(2, 2, 2, 2), bias=False)
    yield taps_case("rect_kernel_no_pads", 2, 3, (5, 7), 4, (2, 3), pads=(0, 0, 0, 0))
    yield taps_case("offsets_off_the_map", 1, 3, (5, 5), 2, (3, 3), offsets=scaled(6.0))
    yield taps_case("whole_and_half_pixel_offsets", 1, 3, (5, 6), 4, (3, 3),
                    offsets=lambda r, s: r.integers(-4, 5, s) / 2.0)
    yield taps_case("1x1_kernel", 1, 16, (4, 5), 8, (1, 1), pads=(0, 0, 0, 0))
    # A DCNv2 block as detectors build it: the offsets and the mask are
    # convolutions of the same input (strided, so the offsets' extent is the
    # window's expression of X's), the result activated.
    nodes = [node("Conv", ["x", "w_offset", "b_offset"], ["offset"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                  strides=[2, 2]),
             node("Conv", ["x", "w_mask", "b_mask"], ["mask_logits"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                  strides=[2, 2]),
             node("Sigmoid", ["mask_logits"], ["mask"]),
             node("DeformConv", ["x", "w", "offset", "b", "mask"], ["deformed"], pads=[1, 1, 1, 1], strides=[2, 2]),
             node("Relu", ["deformed"], ["y"])]
    yield graph("deformconv/dcn_v2_block", nodes, {"x": In((1, 8, 12, 11))}, ["y"],
                dict(w_offset=weights((18, 8, 3, 3)), b_offset=weights((18,)), w_mask=weights((9, 8, 3, 3)),
                     b_mask=weights((9,)), w=weights((16, 8, 3, 3)), b=weights((16,))), opset=19, atol=1e-5)
    # Run-time weights and bias (the GEMM's weights are not constants).
    yield single("deformconv/runtime_weights", "DeformConv",
                 [In((1, 4, 6, 6)), In((4, 2, 3, 3)), In((1, 18, 6, 6)), In((4,)), None],
                 dict(pads=[1, 1, 1, 1], group=2), opset=19, atol=1e-5)
    # Every input constant: folded at compile time by the reference.
    yield single("deformconv/folded_reference", "DeformConv",
                 [rng.standard_normal((1, 2, 4, 5)).astype(F32), weights((3, 2, 2, 2)),
                  (rng.standard_normal((1, 8, 3, 4)) * 1.5).astype(F32), weights((3,)),
                  rng.uniform(0, 1, (1, 4, 3, 4)).astype(F32)], {}, opset=19, atol=1e-5)
    model = make_model([node("DeformConv", ["x", "w", "offset"], ["y"], name="deform_mismatch", kernel_shape=[3, 3])],
                       {"x": In((1, 2, 5, 5)), "offset": In((1, 18, 4, 4))}, ["y"],
                       dict(w=weights((2, 2, 2, 2))), opset=19, infer=False,
                       output_types={"y": (F32, (1, 2, 4, 4))})
    yield Case("unsupported/deformconv_kernel_shape_mismatch", model, {}, kind="compile_error",
               expect=("deform_mismatch", "kernel_shape [3, 3] is not W's [2, 2]"))


def onnx_attention_cases():
    """ONNX's Attention (opset 23): 4-D and 3-D inputs, cross attention with
    another value size, grouped-query and multi-query heads, a boolean and
    an additive mask (one shorter than the keys: padded as masked),
    is_causal with and without a K/V cache (present_key, present_value),
    scale and softcap, and the scores at every qk_matmul_output_mode (with a
    softcap and a mask: ORT's order, the softcap first)."""
    def attention(name, q, k, v, mask=None, past=None, outputs=1, **attrs):
        args = [In(q), In(k), In(v), mask, *(past or [])]
        return single(f"onnx_attention/{name}", "Attention", args, attrs, opset=23, outputs=outputs, atol=1e-5)
    def visible(rng, shape):
        keep = rng.random(shape) < 0.7
        keep[..., 0] = True  # every query sees a key
        return keep
    yield attention("4d_cross_value_size", (2, 4, 5, 8), (2, 4, 7, 8), (2, 4, 7, 6))
    yield attention("3d_grouped_query", (2, 5, 32), (2, 5, 16), (2, 5, 16), q_num_heads=4, kv_num_heads=2)
    yield attention("3d_multi_query", (1, 6, 24), (1, 9, 6), (1, 9, 10), q_num_heads=4, kv_num_heads=1)
    yield attention("causal_self", (2, 3, 6, 8), (2, 3, 6, 8), (2, 3, 6, 8), is_causal=1)
    yield attention("causal_with_cache", (2, 2, 3, 8), (2, 2, 3, 8), (2, 2, 3, 8),
                    past=[In((2, 2, 4, 8)), In((2, 2, 4, 8))], outputs=3, is_causal=1)
    yield attention("grouped_decode_with_cache", (1, 8, 1, 16), (1, 2, 1, 16), (1, 2, 1, 16),
                    past=[In((1, 2, 5, 16)), In((1, 2, 5, 16))], outputs=3)
    yield attention("bool_mask", (2, 4, 5, 8), (2, 4, 7, 8), (2, 4, 7, 8),
                    mask=In((2, 1, 5, 7), BOOL, gen=visible))
    def one_row_blind(rng, shape):
        keep = visible(rng, shape)
        keep[..., 1, :] = False  # query 1 sees no key: its output is 0, as ORT's
        return keep
    yield attention("bool_mask_query_sees_nothing", (1, 2, 4, 8), (1, 2, 6, 8), (1, 2, 6, 8),
                    mask=In((1, 1, 4, 6), BOOL, gen=one_row_blind))
    yield attention("additive_mask_broadcast", (2, 4, 5, 8), (2, 4, 7, 8), (2, 4, 7, 8), mask=In((5, 7)))
    # A mask shorter than the keys is padded as masked (ONNX's reference);
    # ORT refuses it, so it checks the model with the padding written out.
    inputs = {"q": In((1, 2, 4, 8)), "k": In((1, 2, 6, 8)), "v": In((1, 2, 6, 8)), "mask": In((4, 4))}
    padded = make_model([node("Pad", ["mask", "pads", "minus_inf"], ["full_mask"]),
                         node("Attention", ["q", "k", "v", "full_mask"], ["y"])], inputs, ["y"],
                        dict(pads=np.array([0, 0, 0, 2], I64), minus_inf=np.array(-np.inf, F32)), opset=23)
    case = graph("onnx_attention/mask_shorter_than_keys", [node("Attention", ["q", "k", "v", "mask"], ["y"])],
                 inputs, ["y"], opset=23, atol=1e-5)
    yield dataclasses.replace(case, ort_model=padded)
    yield attention("causal_and_mask", (1, 2, 5, 8), (1, 2, 5, 8), (1, 2, 5, 8), mask=In((1, 1, 5, 5)), is_causal=1)
    yield attention("scale_and_softcap", (2, 2, 4, 8), (2, 2, 6, 8), (2, 2, 6, 8), scale=0.9, softcap=3.0)
    # Opset 24's nonpad_kv_seqlen: each batch's keys from that count on are
    # padding (batch 0 keeps 3 of 7, batch 1 all), with a causal mask too.
    lengths = In((2,), I64, gen=lambda r, s: np.array([3, 7]))
    for name, attrs in [("nonpad_kv_seqlen", {}), ("nonpad_kv_seqlen_causal", dict(is_causal=1))]:
        yield single(f"onnx_attention/{name}", "Attention",
                     [In((2, 2, 7, 8)), In((2, 2, 7, 8)), In((2, 2, 7, 8)), None, None, None, lengths], attrs,
                     opset=24, atol=1e-5, reference_bug="broadcasts its padding mask into a bias of the wrong shape")
    # A decoder's step as served: sequence and cache lengths symbolic (one
    # symbol each, shared by Q, K, V and the mask), grouped heads, causal.
    rng = np.random.default_rng(23)
    inputs = {"q": In((1, "s", 32)), "k": In((1, "s", 16)), "v": In((1, "s", 16)),
              "past_k": In((1, 2, "p", 8)), "past_v": In((1, 2, "p", 8))}
    model = make_model([node("Attention", ["q", "k", "v", "", "past_k", "past_v"], ["y", "present_k", "present_v"],
                             q_num_heads=4, kv_num_heads=2, is_causal=1)],
                       inputs, ["y", "present_k", "present_v"], opset=23, infer=False,
                       output_types={"y": (F32, (1, "s", 32)), "present_k": (F32, (1, 2, "t", 8)),
                                     "present_v": (F32, (1, 2, "t", 8))})
    feeds = [{"q": rng.standard_normal((1, s, 32)).astype(F32), "k": rng.standard_normal((1, s, 16)).astype(F32),
              "v": rng.standard_normal((1, s, 16)).astype(F32),
              "past_k": rng.standard_normal((1, 2, p, 8)).astype(F32),
              "past_v": rng.standard_normal((1, 2, p, 8)).astype(F32)} for s, p in [(4, 6), (1, 9), (7, 0), (16, 16)]]
    yield SymbolicCase("onnx_attention/symbolic_sequence_and_cache", model, feeds,
                       ("--shape-range", "q=1x1x32:1x4x32:1x16x32", "--shape-range", "k=1x1x16:1x4x16:1x16x16",
                        "--shape-range", "v=1x1x16:1x4x16:1x16x16", "--shape-range", "past_k=1x2x0x8:1x2x6x8:1x2x16x8",
                        "--shape-range", "past_v=1x2x0x8:1x2x6x8:1x2x16x8"), atol=1e-5)
    for mode in range(4):
        yield graph(f"onnx_attention/qk_output_mode{mode}",
                    [node("Attention", ["q", "k", "v", "mask"], ["y", "", "", "qk"], softcap=4.0,
                          qk_matmul_output_mode=mode)],
                    {"q": In((1, 2, 4, 8)), "k": In((1, 2, 6, 8)), "v": In((1, 2, 6, 8)), "mask": In((1, 2, 4, 6))},
                    ["y", "qk"], opset=23, atol=1e-5,
                    reference_bug="adds the mask before the softcap (the spec's diagram, which makes a -inf mask "
                                  "-softcap); ONNX Runtime softcaps first, and numbers the modes in that order")


def tensor_scatter_cases():
    """TensorScatter (opset 24, a KV cache's update): prefill without write
    indices, decode steps at per-batch positions, circular wrap-around (an
    index past twice the cache too), another sequence axis, 16-bit and
    integer caches, constant inputs (the reference); a linear write past the
    cache and a negative write index are refused at run time."""
    def positions(values):
        return In((len(values),), I64, gen=lambda r, s: np.array(values))
    cache, kv = (2, 3, 8, 4), (2, 3, 3, 4)
    yield single("tensorscatter/prefill", "TensorScatter", [In(cache), In(kv)], opset=24)
    yield single("tensorscatter/decode_step", "TensorScatter", [In(cache), In((2, 3, 1, 4)), positions([5, 7])],
                 opset=24)
    yield single("tensorscatter/linear_per_batch", "TensorScatter", [In(cache), In(kv), positions([0, 5])], opset=24)
    yield single("tensorscatter/circular_wraps", "TensorScatter", [In(cache), In(kv), positions([6, 7])],
                 dict(mode="circular"), opset=24)
    yield single("tensorscatter/circular_past_twice_the_cache", "TensorScatter",
                 [In(cache), In(kv), positions([3, 21])], dict(mode="circular"), opset=24)
    yield single("tensorscatter/axis_1", "TensorScatter", [In((2, 6, 3, 5)), In((2, 2, 3, 5)), positions([1, 4])],
                 dict(axis=1), opset=24)
    yield single("tensorscatter/last_axis_f16", "TensorScatter",
                 [In((2, 4, 7), np.float16), In((2, 4, 3), np.float16), positions([2, 0])], dict(axis=-1), opset=24)
    yield single("tensorscatter/i32_cache", "TensorScatter", [In((3, 5, 2), I32), In((3, 2, 2), I32),
                                                              positions([0, 3, 1])], dict(axis=1), opset=24)
    rng = np.random.default_rng(24)
    yield single("tensorscatter/folded_reference", "TensorScatter",
                 [rng.standard_normal((2, 6, 3)).astype(F32), rng.standard_normal((2, 2, 3)).astype(F32),
                  np.array([4, 5], I64)], dict(axis=1, mode="circular"), opset=24)
    model = make_model([node("TensorScatter", ["past", "update", "write"], ["present"], name="kv_update")],
                       {"past": In(cache), "update": In(kv), "write": In((2,), I64)}, ["present"], opset=24)
    feeds = feeds_for("tensorscatter/past_the_cache", {"past": In(cache), "update": In(kv)})
    feeds["write"] = np.array([0, 6], I64)
    yield Case("bad_input/tensorscatter_write_past_the_cache", model, feeds, kind="bad_input",
               expect=("TensorScatter node 'kv_update'", "write position 8 is outside the cache's 8 positions"))
    circular = make_model([node("TensorScatter", ["past", "update", "write"], ["present"], name="ring_update",
                                mode="circular")],
                          {"past": In(cache), "update": In(kv), "write": In((2,), I64)}, ["present"], opset=24)
    feeds = dict(feeds, write=np.array([3, -2], I64))
    yield Case("bad_input/tensorscatter_negative_write_index", circular, feeds, kind="bad_input",
               expect=("TensorScatter node 'ring_update'", "write position -2 is outside the cache's 8 positions"))


def opset24_cases():
    """A model of opset 24 whose ops did not change meaning there (Cast's
    round_mode concerns float8e8m0 only) compiles like its opset-23 twin."""
    nodes = [node("Reshape", ["x", "shape"], ["r"]), node("Transpose", ["r"], ["t"], perm=[1, 0]),
             node("Cast", ["t"], ["h"], to=onnx.TensorProto.FLOAT16, round_mode="up"),
             node("Cast", ["h"], ["c"], to=onnx.TensorProto.FLOAT), node("Flatten", ["c"], ["f"]),
             node("Unsqueeze", ["f", "axes"], ["u"]), node("Squeeze", ["u", "axes"], ["s"]),
             node("Pad", ["s", "pads"], ["y"])]
    yield graph("opset24/unchanged_ops", nodes, {"x": In((4, 6))}, ["y"],
                dict(shape=np.array([3, 8], I64), axes=np.array([0], I64), pads=np.array([1, 0, 0, 2], I64)),
                opset=24)


def lrn_cases():
    """LRN at opsets 1 and 13: window sizes, alpha, beta, bias."""
    for opset in (1, 13):
        yield single(f"lrn/opset{opset}_size3", "LRN", [In((2, 5, 4, 3))], dict(size=3), opset=opset)
    yield single("lrn/size5_attributes", "LRN", [In((2, 7, 5, 5), gen=scaled(3))],
                 dict(size=5, alpha=0.02, beta=0.6, bias=2.0), opset=13)
    yield single("lrn/size1", "LRN", [In((1, 3, 4, 4))], dict(size=1, alpha=0.5), opset=13)
    yield single("lrn/window_wider_than_channels", "LRN", [In((1, 2, 3, 17))], dict(size=7, alpha=0.3), opset=13)


def maxpool_indices_cases():
    """MaxPool's Indices (opsets 8, 10, 12) in both storage orders, and MaxUnpool
    (opsets 9, 11) of them with and without output_shape; an index outside the
    output is refused."""
    x = In((2, 3, 7, 8), gen=coarse)  # ties: the first largest wins
    windows = [
        ("k2_s2", dict(kernel_shape=[2, 2], strides=[2, 2])),
        ("k3_s2_pads", dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
        ("k3_s1_same", dict(kernel_shape=[3, 3], auto_pad="SAME_UPPER")),
        ("ceil_dilated", dict(kernel_shape=[2, 2], strides=[2, 2], dilations=[2, 2], ceil_mode=1)),
    ]
    for name, attrs in windows:
        for order in (0, 1):
            yield single(f"maxpool_indices/{name}_order{order}", "MaxPool", [x], dict(attrs, storage_order=order),
                         opset=12, outputs=2)
    yield single("maxpool_indices/opset8", "MaxPool", [In((1, 2, 6, 6))], dict(kernel_shape=[2, 2], strides=[2, 2]),
                 opset=8, outputs=2)
    yield single("maxpool_indices/opset10_1d", "MaxPool", [In((2, 3, 9))], dict(kernel_shape=[3], strides=[2]),
                 opset=10, outputs=2)
    for opset in (9, 11):
        yield graph(f"maxunpool/opset{opset}_of_maxpool", [
            node("MaxPool", ["x"], ["p", "i"], kernel_shape=[2, 2], strides=[2, 2]),
            node("MaxUnpool", ["p", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
            {"x": In((2, 3, 6, 8))}, ["y"], opset=opset)
    yield graph("maxunpool/output_shape_odd", [
        node("MaxPool", ["x"], ["p", "i"], kernel_shape=[2, 2], strides=[2, 2]),
        node("MaxUnpool", ["p", "i", "shape"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
        {"x": In((1, 2, 7, 9))}, ["y"], dict(shape=i64(1, 2, 7, 9)), opset=11,
        output_types={"y": (F32, (1, 2, 7, 9))})
    yield graph("maxunpool/pads_3x3", [
        node("MaxPool", ["x"], ["p", "i"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        node("MaxUnpool", ["p", "i"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
        {"x": In((2, 2, 7, 7))}, ["y"], opset=11)
    yield single("maxunpool/indices_input", "MaxUnpool",
                 [In((1, 2, 2, 2)), In((1, 2, 2, 2), I64, gen=lambda rng, shape: rng.integers(0, 32, shape))],
                 dict(kernel_shape=[2, 2], strides=[2, 2]), opset=11)
    model = make_model([node("MaxUnpool", ["x", "i"], ["y"], name="unpool", kernel_shape=[2, 2], strides=[2, 2])],
                       {"x": In((1, 1, 2, 2)), "i": In((1, 1, 2, 2), I64)}, ["y"], opset=11)
    feeds = {"x": np.ones((1, 1, 2, 2), F32), "i": np.array([0, 3, 16, 5], I64).reshape(1, 1, 2, 2)}
    yield Case("bad_input/maxunpool_index_out_of_range", model, feeds, kind="bad_input",
               expect=("MaxUnpool node 'unpool'", "index 16 is outside the 16 output elements"))


def reversesequence_cases():
    """ReverseSequence: time- and batch-major, ranks 2 to 4, several element types,
    lengths 0 and full; a length beyond the time axis is refused."""
    def lengths(values):
        return lambda rng, shape: np.array(values)
    yield single("reversesequence/time_major", "ReverseSequence", [In((5, 4, 3)), In((4,), I64, gen=lengths([5, 1, 0, 3]))],
                 dict(time_axis=0, batch_axis=1), opset=10)
    yield single("reversesequence/batch_major", "ReverseSequence", [In((3, 6)), In((3,), I64, gen=lengths([6, 2, 4]))],
                 dict(time_axis=1, batch_axis=0), opset=10)
    yield single("reversesequence/defaults_4d", "ReverseSequence",
                 [In((4, 2, 3, 2)), In((2,), I64, gen=lengths([3, 4]))], opset=10)
    for dtype in (I64, I32, np.int8, BOOL, np.float16):
        yield single(f"reversesequence/{np.dtype(dtype).name}", "ReverseSequence",
                     [In((4, 3, 2), dtype), In((3,), I64, gen=lengths([2, 4, 1]))], opset=10)
    model = make_model([node("ReverseSequence", ["x", "lens"], ["y"], name="reverse")],
                       {"x": In((3, 2)), "lens": In((2,), I64)}, ["y"], opset=10)
    yield Case("bad_input/reversesequence_length_beyond_time", model,
               {"x": np.ones((3, 2), F32), "lens": np.array([2, 4], I64)}, kind="bad_input",
               expect=("ReverseSequence node 'reverse'", "sequence length 4 is outside [0, 3]"))


def det_cases():
    """Det (opset 11): single and batched matrices, 1 x 1 to 12 x 12, singular ones."""
    def singular(rng, shape):
        m = rng.standard_normal(shape)
        m[..., -1, :] = m[..., 0, :] * 2.0  # two proportional rows
        return m
    def permutation(rng, shape):
        return np.eye(shape[-1])[rng.permutation(shape[-1])] * 2.0
    yield single("det/2d", "Det", [In((3, 3))], opset=11)
    yield single("det/batched", "Det", [In((2, 3, 4, 4))], opset=11)
    yield single("det/1x1", "Det", [In((5, 1, 1))], opset=11)
    yield single("det/12x12", "Det", [In((2, 12, 12), gen=scaled(0.7))], opset=11)
    yield single("det/singular", "Det", [In((3, 4, 4), gen=singular)], opset=11, atol=1e-5)
    yield single("det/zeros", "Det", [In((2, 3, 3), gen=lambda rng, shape: np.zeros(shape))], opset=11)
    yield single("det/pivoting", "Det", [In((6, 6), gen=permutation)], opset=11)


def negative_cases():
    """cuvil compile must reject unsupported ops; infer.bin must reject bad inputs."""
    model = make_model([node("ImageDecoder", ["encoded"], ["d"], name="decoder_node"),
                        node("StringSplit", ["words"], ["h", "n"], name="splitter_node", maxsplit=2)],
                       {"encoded": In((64,), np.uint8), "words": In((3,), np.object_)},
                       ["d", "h", "n"], opset=20,
                       output_types={"d": (np.uint8, (2, 2, 3)), "h": (np.object_, (3, 3)), "n": (I64, (3,))})
    yield Case("unsupported/imagedecoder_and_stringsplit", model, {}, kind="compile_error",
               expect=("decoder_node", "ImageDecoder", "splitter_node", "StringSplit"))
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
    # An arena past 2 GiB (a 24000x24000 tile): it compiles (the arena is
    # allocated at run time, not linked in) and a process that cannot map it
    # is told so.
    big = make_model([node("Tile", ["x", "r"], ["t"]), node("ReduceSum", ["t"], ["y"], keepdims=0)],
                     {"x": In((1, 1))}, ["y"], inits={"r": np.array([24000, 24000], I64)})
    yield Case("bad_input/arena_beyond_the_address_space_limit", big, {"x": np.ones((1, 1), F32)},
               kind="bad_input", memory_limit=1 << 30,
               expect=("cannot allocate the model's working memory (arena of 2304000000 bytes)",))
    yield Case("unsupported/shape_tensor_without_values", model, {}, kind="compile_error",
               expect=("Expand", "graph input 'shape'", "--value shape=", "--value-range shape="))
    for name, args, expect in [
            ("value_not_a_number", ("--value", "shape=3,four"), ("'four' is not a number",)),
            ("real_value_of_integer_input", ("--value", "shape=3,4.5"), ("i64[2]", "must be integers")),
            ("range_of_float_input", ("--value-range", "x=1,2,3,4:1,2,3,4:1,2,3,5"),
             ("f32[1,4]", "only integer inputs take a range")),
            ("value_of_unknown_input", ("--value-range", "shap=1,4:3,4:8,4"), ("'shap'", "not an input")),
            ("value_count_differs", ("--value", "shape=3"), ("gives 1 values", "i64[2]")),
            ("value_range_unordered", ("--value-range", "shape=5,4:3,4:8,4"), ("element 0", "MIN <= OPT"))]:
        yield Case(f"bad_option/{name}", model, {}, kind="compile_error", compile_args=args, expect=expect)


# Cases where onnx.reference (onnx 1.19) deviates from the ONNX spec; ORT was
# checked against hand-written numpy for each of them. Families whose cases
# depart in many ways give each its reason themselves (recurrent_cases:
# _recurrent_reference_bug).
_SOFTMAX_OPSET11 = "applies opset-13 Softmax semantics (no coerce-to-2D) at opset 11"
REFERENCE_BUGS = {
    **{f"string/cast_{case}": "onnx.reference casts to text with numpy's str ('526.0', 'nan', 'False') where "
                                "ONNX Runtime writes '526', 'NaN', '0', and parses with Python's float and int "
                                "where it reads the longest numeric prefix"
       for case in ("f32_to_string", "f32_special_to_string", "f64_to_string", "f16_to_string", "bool_to_string",
                    "string_to_f32", "string_to_i64")},
    "string/castlike_f32_like_string": "onnx.reference casts to text with numpy's str ('526.0')",
    "string/f32_round_trip": "onnx.reference casts to text with numpy's str ('526.0')",
    **{f"string/normalizer_{case}": "onnx.reference's StringNormalizer strips accents, and treats case and "
                                    "stopwords unlike ONNX Runtime"
       for case in ("lower_stopwords_any_case", "upper_stopwords_case_sensitive", "none_two_dim",
                    "upper_no_stopwords", "lower_c_locale", "all_stopwords")},
    "string/expand": "onnx.reference's Expand multiplies by ones, which strings do not",
    **{f"string/{case}": "onnx.reference's Equal refuses numpy strings of two widths ('<U15 != <U5')"
       for case in ("equal_broadcast", "equal_constant_and_value_strings")},
    **{case: "onnx.reference's Loop runs no iteration when cond is omitted (ONNX: it is true)"
       for case in ("loop/fixed_trips_carried_and_scan", "loop/trip_count_from_value", "loop/nested_loops",
                    "sequence/loop_carries_sequence")},
    "sequence/optional_present_and_empty": "onnx.reference's Optional wraps its tensor in a list and "
                                           "calls an Optional() without input non-empty",
    "loop/condition_stops_early": "onnx.reference's Loop fails on a scan output of no iterations "
                                  "(np.concatenate of nothing)",
    "scan/axes_and_directions": "onnx.reference's Scan implements only forward directions",
    "scan/opset8_batched_reversed": "onnx.reference has no opset-8 Scan (batch axis, sequence_lens)",
    "tfidf/tfidf_unweighted": "onnx.reference's TfIdfVectorizer fails without weights (len(None))",
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
    **{f"scatterelements/{case}": "has no ScatterElements reduction mul (it replaces instead)"
       for case in ("mul_axis_minus2", "u8_mul_wraps", "i32_mul_wraps", "bool_mul", "of_constants_folds")},
    **{f"scatterelements/{case}": "takes ScatterElements max/min with Python's max/min, whose NaN result "
                                  "depends on the argument order"
       for case in ("max_nan", "min_nan")},
    "scatterelements/none_rank7_merged": "implements ScatterElements up to rank 4 only",
    **{f"scatter/{case}": "has no Scatter (opsets 9-10)" for case in ("opset9_axis1", "opset10_default_axis")},
    "scatternd/max_batched_tuples": "indexes ScatterND max/min with the tuple as an array (not a position)",
    "scatternd/max_nan": "propagates NaN through ScatterND max (np.maximum); ORT keeps the element unless "
                         "the update compares greater",
    "gathernd/whole_batches_k0": "cannot reshape empty index tuples (reshape with -1 over no elements)",
    **{f"onehot/{case}": "takes indices modulo depth (the spec gives a row of off values outside [-depth, depth))"
       for case in ("axis-1", "axis0", "axis1", "axis-2", "axis-3", "f32_indices_whole_and_fractional",
                    "f32_depth_truncated", "i64_values", "i32_values", "f16_values", "f16_everything", "i32_depth",
                    "f32_indices_i64_values", "runtime_values", "opset9_negative_indices",
                    "opset10_negative_indices")},
    "values/onehot_ranged_depth": "takes indices modulo depth (the spec gives a row of off values outside "
                                  "[-depth, depth))",
    "convtranspose/groups": "mishandles ConvTranspose with group > 1 (wrong channel slices)",
    "convtranspose/depthwise": "mishandles ConvTranspose with group > 1 (wrong channel slices)",
    **{f"quantizelinear/{case}": "casts an infinite x / scale to int32 before saturating it"
       for case in ("saturate_u8", "saturate_i8")},
    **{f"dequantizelinear/{case}": "has no DequantizeLinear before opset 19"
       for case in ("opset10_u8", "opset13_i8", "opset13_i32_bias")},
    "dequantizelinear/opset23_output_dtype": "runs opset 23 with its DequantizeLinear-21, which has no output_dtype",
    "dynamicquantizelinear/all_zeros": "gives an all-zero input the scale 1/255, ORT 1 (the spec divides by 0)",
    "convinteger/valid": "ignores the kernel size in the output shape for ConvInteger auto_pad=VALID",
    "qlinearconv/valid_batch2": "ignores the kernel size in the output shape for QLinearConv auto_pad=VALID",
    "qlinearconv/1d": "broadcasts a per-channel w_scale as 2-D spatial dims, failing on a 1-D QLinearConv",
    "qlinearmatmul/saturates": "casts QLinearMatMul's result to the output type without saturating it",
    **{f"resize/nearest_{rounding}_tf_half_pixel_for_nn{sizes}": "rejects coordinate_transformation_mode "
       "tf_half_pixel_for_nn (opset 11)"
       for rounding in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil") for sizes in ("", "_sizes")},
    "resize/axes_negative": "fails on negative axes",
    "resize/cubic_to_one_pytorch_half_pixel": "maps pytorch_half_pixel's length-1 output to -0.5, not the spec's 0",
    "resize/linear_to_empty": "fails on an empty output",
    **{f"resize/opset10_{name}": "reads Resize-10's scales (input 1) as opset 11's roi"
       for name in ("nearest_up", "nearest_down", "linear")},
    **{f"resize/opset11_{name}": "fails on the empty roi that opset 11 requires"
       for name in ("sizes", "cubic_scales")},
    **{f"upsample/opset{opset}_{mode}": "fails on Upsample's scales attribute (opsets 7 and 8)"
       for opset in (7, 8) for mode in ("nearest", "linear")},
    "upsample/opset9_linear": "implements Upsample only for nearest with integer scales",
    "upsample/opset9_nearest_fractional": "implements Upsample only for nearest with integer scales",
    "conv3d/same_upper_stride2": "mis-pads Conv auto_pad=SAME_UPPER with stride 2",
    "conv3d/valid_stride_1x2x2": "ignores the kernel size in the output shape for Conv auto_pad=VALID",
    "convtranspose3d/groups": "mishandles ConvTranspose with group > 1 (wrong channel slices)",
    "maxpool3d/k3_s1_p1": "indexes past the padded input in 3-D MaxPool with pads at stride 1",
    "maxpool3d/same_lower_k2": "fails on 3-D MaxPool auto_pad=SAME_LOWER (pads of the wrong rank)",
    "stft/signal_without_channels": "fails on a [batch, samples] STFT signal (takes the samples for the channels)",
    "window/hann_f16": "computes an f16 window in f16 arithmetic (ORT computes it in f32 and rounds once)",
}

# compile_error cases whose models ONNX Runtime refuses to load too (the
# self-check then expects that refusal), with ORT's reason.
ORT_REFUSES = {
    "dft/refused_onesided_complex": "onesided DFT of a complex signal",
    "dft/refused_last_axis": "DFT along the real/imaginary axis",
    "stft/refused_window_length": "a window whose length is not frame_length",
    "window/refused_negative_size": "a negative window size",
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
    ort_model: Optional[onnx.ModelProto] = None  # as Case.ort_model, with the same symbols


# Symbolic variants cuvil refuses at compile time (exit 1, this in the
# message): a convolution kernel whose size is known only at run time, a
# Squeeze without axes of a dim that may be 1 (the rank would vary), and a
# sequence whose length would follow a symbolic dim.
SYMBOLIC_UNSUPPORTED = {
    # A head's size (the last dim of 4-D Q, K, V) is a model's constant.
    **{f"onnx_attention/{case}@last": "head size must be known at compile time"
       for case in ("4d_cross_value_size", "causal_self", "causal_with_cache", "grouped_decode_with_cache",
                    "scale_and_softcap", "nonpad_kv_seqlen", "nonpad_kv_seqlen_causal")},
    # The offset's width is a symbol of its own, not the strided window's
    # expression of X's width (a model computes it from X: one expression).
    "deformconv/stride2_dilation2_no_bias@last": "the window and offset_group 1 need [1,18,5,floordiv(d8 + 1, 2)]",
    "conv/weights_as_input@last": "input channels, kernel and grouped output channels must be static",
    # A signal's last dim says whether it is real or complex; a transform's length
    # must be known.
    **{f"{case.name}@last": "holds its real and imaginary parts: it must be 1 (real) or 2 (complex)"
       for case in signal_cases() if case.kind == "compare" and case.name.startswith(("dft/", "stft/"))
       and next(iter(case.feeds.values())).shape[-1] == 1},
    "stft/signal_without_channels@last": "fewer than the frame length 16",
    **{f"dft/{case}@first": "the transform length must be known at compile time"
       for case in ("opset17_axis0", "opset20_axis0")},
    # An STFT's frame length must be known; ONNX's shape inference takes an
    # absent onesided as 0 (the schema says 1), so the symbolic variant's model
    # declares 16 bins where STFT computes 9.
    "stft/window_input@first": "the window must be a static 1-D tensor",
    "stft/onesided_by_default@first": "the model declares types its nodes do not compute",
    "convtranspose/weights_as_input@last": "must be a static [C, OC/group, kernel...] tensor",
    "convinteger/weights_as_input@last": "input channels, kernel and grouped output channels must be static",
    "conv3d/weights_as_input@last": "input channels, kernel and grouped output channels must be static",
    "convtranspose3d/weights_as_input@last": "must be a static [C, OC/group, kernel...] tensor",
    **{f"squeeze/{case}@{where}": "would be squeezed or kept depending on the input"
       for case in ("opset13_no_axes", "opset11_no_axes") for where in ("first", "last")},
    # GatherND's index tuple length sizes its output's rank.
    **{f"gathernd/{case}@last": "must be known at compile time: it is the length of each index tuple"
       for case in ("slice_rank2", "slice_rank1_batched_tuples", "batch_dims2", "long_rows", "empty_indices",
                    "i32", "i64", "f64", "f16", "i8", "u8", "bool")},
    # A sequence's length is fixed at compile time; splitting a symbolic axis
    # into chunks would make it depend on the input.
    "sequence/split_scalar_chunks@first": "a scalar split needs the input's extent along the axis",
    **{f"resize/{policy}_{kind}@{where}": "keep_aspect_ratio_policy " + policy + " needs static input dims"
       for policy in ("not_larger", "not_smaller")
       for kind, where in (("nearest", "last"), ("linear", "last"), ("all_axes", "first"), ("all_axes", "last"))},
    "sequence/split_unit_no_keepdims@last": "splitting without sizes needs the input's extent",
}


def _resized(value, axis, size):
    """value with `size` entries along axis, taken cyclically from its own (so that
    indices, divisors and positive inputs stay what the case made them)."""
    return np.take(value, np.arange(size) % value.shape[axis], axis=axis)


def _symbolic_model(model, marks):
    """model with input dims marked {(input, axis): symbol} made symbolic, the
    other types left to shape inference."""
    model = copy.deepcopy(model)
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
    if case.kind != "compare" or not case.feeds or case.static_only:
        return []
    variants = []
    for where in ("first", "last"):
        marks = {}
        for name, value in case.feeds.items():
            if value.ndim >= 1 and (where == "first" or value.ndim >= 2):
                axis = 0 if where == "first" else value.ndim - 1
                if value.shape[axis] == 0:
                    continue  # an empty axis stays empty: symbols start at 1
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
        model = _symbolic_model(case.model, marks)
        ort_model = _symbolic_model(case.ort_model, marks) if case.ort_model else None
        try:
            quiet = ort.SessionOptions()
            quiet.log_severity_level = 4  # the probe's failures are expected, not news
            session = ort.InferenceSession((ort_model or model).SerializeToString(), quiet,
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
                                     refused=SYMBOLIC_UNSUPPORTED.get(name, ""), ort_model=ort_model))
    return variants


FAMILIES = [conv_cases, conv_transpose_cases, conv3d_cases, pool3d_cases, elementwise_chain_cases, batchnorm_cases, relu_clip_cases, math_function_cases, function_cases,
            pool_cases, elementwise_cases, integer_binary_cases, index_reduction_cases, gemm_matmul_cases, attention_cases,
            softmax_layernorm_cases, gather_concat_cases, shape_manipulation_cases, shape_op_cases,
            slice_split_cases, pad_cases, resize_cases, cast_where_equal_cases, string_cases, reduce_dropout_cases, constant_identity_cases,
            topk_cases, cumsum_cases, hardmax_cases, float_class_cases, range_tile_cases, recurrent_cases, quantize_cases, integer_product_cases,
            data_dependent_cases, value_range_cases, control_flow_cases, sequence_cases, tfidf_cases,
            half_precision_cases, scatter_gather_nd_cases, onehot_cases, einsum_cases, gridsample_cases, roialign_cases, maxroipool_cases, deform_conv_cases, onnx_attention_cases, tensor_scatter_cases, opset24_cases, lrn_cases,
            maxpool_indices_cases, reversesequence_cases, det_cases, signal_cases, microsoft_quantized_cases,
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
    for case in cases:  # a family may know the bugs of its cases (recurrent_cases)
        case.reference_bug = REFERENCE_BUGS.get(case.name, case.reference_bug)
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

    def outputs(self, model_path, feeds, workdir, reference_bug="", ort_model_path=None):
        """Compile and run; outputs keyed by graph output name."""
        exe = os.path.join(workdir, "infer.bin")
        e2e.compile(model_path, exe, self.compile_args, cuvil=self.cuvil)
        return e2e.cuvil_outputs(model_path, exe, feeds, workdir)


class ReferenceBackend:
    """Self-check stand-in for cuvil: the ONNX reference evaluator.

    For cases with a known onnx.reference bug it uses ONNX Runtime with graph
    optimisations disabled instead (on the case's ort_model, if it has one).
    """
    self_check = True

    def outputs(self, model_path, feeds, workdir, reference_bug="", ort_model_path=None):
        """Evaluate the model; outputs keyed by graph output name."""
        if reference_bug:
            opts = ort.SessionOptions()
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            session = ort.InferenceSession(ort_model_path or model_path, opts,
                                           providers=["CPUExecutionProvider"])
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
    ort_path = None  # the model ORT runs, when not model_path
    if case.ort_model is not None:
        ort_path = os.path.join(workdir, "ort_model.onnx")
        onnx.save(case.ort_model, ort_path)
    if case.kind == "compare":
        ref = e2e.run_ort(ort_path or model_path, case.feeds)
        ours = backend.outputs(model_path, case.feeds, workdir, case.reference_bug, ort_path)
        ok, lines = e2e.compare_all(ours, ref, case.atol, case.rtol)
        if backend.self_check and case.reference_bug:
            lines.insert(0, f"self-check against ORT without optimisations: onnx.reference {case.reference_bug}")
        return ok, lines
    if case.kind == "symbolic" and backend.self_check:
        ok, lines = True, []
        for feed in case.feeds:
            same, report = e2e.compare_all(backend.outputs(model_path, feed, workdir, case.reference_bug, ort_path),
                                           e2e.run_ort(ort_path or model_path, feed), case.atol, case.rtol)
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
            same, report = e2e.compare_all(ours, e2e.run_ort(ort_path or model_path, feed), case.atol, case.rtol)
            ok &= same
            lines += [f"at {shapes}:"] + ["  " + line for line in report]
        return ok, lines
    if backend.self_check and case.name in ORT_REFUSES:
        try:
            e2e.ort_session(model_path)
        except Exception:  # noqa: BLE001 (any load failure is the refusal)
            return True, [f"self-check: ORT refuses {ORT_REFUSES[case.name]} too"]
        return False, [f"ORT loads the model, though ORT_REFUSES says it refuses {ORT_REFUSES[case.name]}"]
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
    proc = e2e.run_process([*e2e.executable(exe), *args, *case.extra_args, "--output-dir", os.path.join(workdir, "outputs")],
                           memory_limit=case.memory_limit)
    return _expect_failure("infer.bin", proc, case.expect)


def run_case_safely(case, backend, workdir):
    """run_case, turning exceptions into a failed result; also its wall seconds."""
    os.makedirs(workdir, exist_ok=True)
    start = time.monotonic()
    try:
        ok, lines = run_case(case, backend, workdir)
    except Exception as exc:  # report, do not abort the whole run
        detail = str(exc) if isinstance(exc, e2e.CuvilError) else traceback.format_exc()
        ok, lines = False, [f"error: {detail.strip()}"]
    return ok, lines, time.monotonic() - start


def covering_sample(cases):
    """The cases that each add an (op type, kind, which dims) triple the earlier
    ones did not: every op compiled and checked once (with --symbolic, once
    with first and once with last dims symbolic), in a fraction of the full
    sweep's time."""
    seen, kept = set(), []
    for case in cases:
        where = case.name.rsplit("@", 1)[1] if "@" in case.name else ""
        new = {(node.op_type, case.kind, where) for node in case.model.graph.node} - seen
        if new:
            seen |= new
            kept.append(case)
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
    parser.add_argument("--durations", type=int, default=0, metavar="N",
                        help="print the N slowest cases and each family's total seconds")
    parser.add_argument("--cover-ops", action="store_true",
                        help="only the cases (with --symbolic: variants) that cover an op not yet covered")
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
    failed, seconds = [], {}
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = [pool.submit(run_case_safely, c, backend, os.path.join(root, e2e.sanitise(c.name)))
                   for c in cases]
        for case, future in zip(cases, futures):
            ok, lines, seconds[case.name] = future.result()
            print(f"{'PASS' if ok else 'FAIL'} {case.name}", flush=True)
            if not ok or args.verbose:
                for line in lines:
                    print("    " + line.replace("\n", "\n    "))
            if not ok:
                failed.append(case.name)
    if not args.workdir:
        shutil.rmtree(root, ignore_errors=True)
    if args.durations:
        print_durations(seconds, args.durations)
    print(f"{len(cases) - len(failed)} passed, {len(failed)} failed")
    for name in failed:
        print(f"FAILED {name}")
    return 1 if failed else 0


def print_durations(seconds, count):
    """The slowest cases and the families (name up to the first '/') by total time."""
    families = collections.Counter()
    for name, took in seconds.items():
        families[name.split("/", 1)[0]] += took
    print(f"slowest {count} cases (wall seconds):")
    for name, took in sorted(seconds.items(), key=lambda item: -item[1])[:count]:
        print(f"  {took:7.2f}  {name}")
    print(f"slowest {count} families of {sum(seconds.values()):.0f} s in all:")
    for family, took in families.most_common(count):
        print(f"  {took:7.2f}  {family}")


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
