#!/usr/bin/env python3
"""Build the bundled example model (a tiny CNN classifier) with onnx.helper.

Usage:
    python models/make_example.py [--out models/example]

Writes tiny_cnn.onnx, a seeded input image.npy (float32 1x3x32x32) and the
ONNX Runtime reference output expected_probs.npy (float32 1x10). The files are
committed, so trying the compiler needs no Python.

Graph (opset 17):
    image -> Conv(8, 3x3, pad 1) -> BatchNormalization -> Relu -> MaxPool 2x2
          -> Conv(16, 3x3, pad 1) -> Relu -> GlobalAveragePool -> Flatten
          -> Gemm(10) -> Softmax -> probs
"""

import argparse
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

SEED = 42
OPSET = 17


def _he(rng, shape, fan_in):
    """He-normal float32 weights."""
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


def build_model(rng):
    """Return the tiny CNN ModelProto with seeded weights."""
    weights = {
        "conv1.w": _he(rng, (8, 3, 3, 3), 27),
        "conv1.b": (rng.standard_normal(8) * 0.1).astype(np.float32),
        "bn1.scale": rng.uniform(0.5, 1.5, 8).astype(np.float32),
        "bn1.bias": (rng.standard_normal(8) * 0.1).astype(np.float32),
        "bn1.mean": (rng.standard_normal(8) * 0.1).astype(np.float32),
        "bn1.var": rng.uniform(0.5, 2.0, 8).astype(np.float32),
        "conv2.w": _he(rng, (16, 8, 3, 3), 72),
        "conv2.b": (rng.standard_normal(16) * 0.1).astype(np.float32),
        "fc.w": _he(rng, (10, 16), 16),
        "fc.b": (rng.standard_normal(10) * 0.1).astype(np.float32),
    }
    nodes = [
        helper.make_node("Conv", ["image", "conv1.w", "conv1.b"], ["conv1"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["conv1", "bn1.scale", "bn1.bias", "bn1.mean", "bn1.var"],
                         ["bn1"], name="bn1", epsilon=1e-5),
        helper.make_node("Relu", ["bn1"], ["relu1"], name="relu1"),
        helper.make_node("MaxPool", ["relu1"], ["pool1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["pool1", "conv2.w", "conv2.b"], ["conv2"], name="conv2",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv2"], ["relu2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["relu2"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])],
        initializer=[numpy_helper.from_array(v, k) for k, v in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="cuvil-make_example")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "example"))
    args = parser.parse_args(argv)
    rng = np.random.default_rng(SEED)
    model = build_model(rng)
    image = rng.standard_normal((1, 3, 32, 32), dtype=np.float32)

    os.makedirs(args.out, exist_ok=True)
    model_path = os.path.join(args.out, "tiny_cnn.onnx")
    onnx.save(model, model_path)
    np.save(os.path.join(args.out, "image.npy"), image)
    session = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    (probs,) = session.run(None, {"image": image})
    np.save(os.path.join(args.out, "expected_probs.npy"), probs)
    print(f"wrote {model_path}, image.npy, expected_probs.npy in {args.out}")
    print("probs:", np.array2string(probs[0], precision=4), "argmax:", int(probs.argmax()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
