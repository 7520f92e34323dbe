#!/usr/bin/env python3
"""Convolutions the benchmark models do not have, cuvil against ONNX Runtime at 1 thread.

    python tools/bench_conv_shapes.py --cuvil PATH [--runs 50] [--rounds 3]

1-D convolutions (an STFT written as a convolution: one input channel, a
400-tap kernel at stride 160; audio encoders), few input channels, odd group
counts, depthwise: single-Conv models with seeded random weights, checked
against ONNX Runtime (relative error printed), then timed in alternating
rounds (`infer.bin --bench N --json --threads 1`, and N ORT runs with
intra_op_num_threads=1 and subnormals flushed as infer.bin does); figures are
medians over rounds of each round's median. Prints a markdown table with the
kernel each convolution ran (from `infer.bin --profile`) for
docs/PERFORMANCE.md.
"""

import argparse
import os
import statistics
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
import cuvil_e2e as e2e  # noqa: E402
import peers  # noqa: E402
from bench_vs_peers import bench_cuvil  # noqa: E402

# name: (X shape, W shape, Conv attributes)
SHAPES = {
    "stft_c1_k400_s160": ([1, 1, 16000], [514, 1, 400], dict(strides=[160])),
    "conv1d_c64_k3": ([1, 64, 1000], [64, 64, 3], dict(pads=[1, 1])),
    "conv1d_c80_k5_s2": ([1, 80, 3000], [256, 80, 5], dict(strides=[2], pads=[2, 2])),
    "conv2d_c1_k5": ([1, 1, 128, 128], [16, 1, 5, 5], dict(pads=[2, 2, 2, 2])),
    "conv2d_c3_k7_s2": ([1, 3, 224, 224], [64, 3, 7, 7], dict(strides=[2, 2], pads=[3, 3, 3, 3])),
    "conv2d_groups3": ([1, 30, 56, 56], [30, 10, 3, 3], dict(group=3, pads=[1, 1, 1, 1])),
    "depthwise1d_k5": ([1, 64, 1000], [64, 1, 5], dict(group=64, pads=[2, 2])),
}


def conv_model(name, x_shape, w_shape, attrs, rng):
    w = (rng.standard_normal(w_shape) * 0.1).astype(np.float32)
    b = rng.standard_normal([w_shape[0]]).astype(np.float32)
    graph = helper.make_graph([helper.make_node("Conv", ["x", "w", "b"], ["y"], **attrs)], name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", required=True)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print("| convolution | kernel | cuvil ms | ORT ms | ratio | max rel. error |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory(prefix="cuvil_conv_shapes_") as root:
        for name, (x_shape, w_shape, attrs) in SHAPES.items():
            model_path, exe = os.path.join(root, f"{name}.onnx"), os.path.join(root, name)
            onnx.save(conv_model(name, x_shape, w_shape, attrs, rng), model_path)
            feeds = {"x": rng.standard_normal(x_shape).astype(np.float32)}
            session = peers.OnnxRuntimePeer(model_path, 1)
            reference = session.run(feeds)[0]
            e2e.compile(model_path, exe, [], cuvil=args.cuvil)
            ours = e2e.cuvil_outputs(model_path, exe, feeds, root)["y"]
            error = float(np.abs(ours - reference).max() / np.abs(reference).max())
            input_args = e2e.write_inputs(feeds, os.path.join(root, f"{name}_inputs"))
            session.run(feeds)  # warm-up
            cuvil_ms, ort_ms = [], []
            for _ in range(args.rounds):
                cuvil_ms.append(bench_cuvil(exe, input_args, str(args.runs), "1")["median_ms"])
                ort_ms.append(statistics.median(peers.time_runs(session, feeds, args.runs)))
            profile = e2e.run_process([exe, *input_args, "--bench", "3", "--threads", "1", "--profile"])
            kernels = [line.split()[-1] for line in profile.stdout.splitlines() if "cuvil_" in line]
            kernel = next((k for k in kernels if "conv" in k), "?")
            c, o = statistics.median(cuvil_ms), statistics.median(ort_ms)
            print(f"| {name} | `{kernel}` | {c:.3f} | {o:.3f} | {c / o:.2f} | {error:.1e} |", flush=True)


if __name__ == "__main__":
    main()
