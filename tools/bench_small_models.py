#!/usr/bin/env python3
"""Small models at 1 and 2 threads, cuvil against ONNX Runtime: do threads pay?

    python tools/bench_small_models.py --cuvil PATH [--runs 2000] [--rounds 5]

Models whose kernel calls last a few microseconds, where splitting a call
across threads costs more than it saves: an MLP head (64 -> 128 -> 128 -> 10,
GELU, Softmax) and a small CNN classifier (six 3x3 convolutions on 32x32,
16-128 channels). Built with seeded random weights and exported by torch,
checked against ONNX Runtime (relative error printed), then timed in
alternating rounds at each thread count (`infer.bin --bench N --json`, and N
ORT runs with intra_op_num_threads set and subnormals flushed as infer.bin
does); figures are medians over rounds of each round's median, in
microseconds. Prints a markdown table for docs/PERFORMANCE.md.
"""

import argparse
import os
import statistics
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
import cuvil_e2e as e2e  # noqa: E402
import peers  # noqa: E402
from bench_vs_peers import bench_cuvil  # noqa: E402


def mlp_head():
    return torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 128),
                               torch.nn.GELU(), torch.nn.Linear(128, 10), torch.nn.Softmax(-1)), (1, 64)


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        layers, channels = [], 3
        for width in (16, 32, 32, 64, 64, 128):
            layers += [torch.nn.Conv2d(channels, width, 3, padding=1), torch.nn.BatchNorm2d(width),
                       torch.nn.ReLU()]
            if width in (32, 64):
                layers.append(torch.nn.MaxPool2d(2))
            channels = width
        self.features = torch.nn.Sequential(*layers)
        self.head = torch.nn.Linear(channels, 10)

    def forward(self, x):
        return self.head(torch.nn.functional.adaptive_avg_pool2d(self.features(x), 1).flatten(1))


MODELS = {"mlp_head": mlp_head, "small_cnn": lambda: (SmallCnn(), (1, 3, 32, 32))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", required=True)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    torch.manual_seed(0)
    print("| model | cuvil 1 thread us | cuvil 2 threads us | ORT 1 thread us | ORT 2 threads us "
          "| max rel. error |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory(prefix="cuvil_small_models_") as root:
        for name, build in MODELS.items():
            module, shape = build()
            module.eval()
            x = torch.randn(*shape)
            model_path, exe = os.path.join(root, f"{name}.onnx"), os.path.join(root, name)
            torch.onnx.export(module, (x,), model_path, input_names=["x"], opset_version=17)
            feeds = {"x": x.numpy()}
            sessions = {t: peers.OnnxRuntimePeer(model_path, t) for t in (1, 2)}
            reference = sessions[1].run(feeds)[0]
            e2e.compile(model_path, exe, [], cuvil=args.cuvil)
            ours = next(iter(e2e.cuvil_outputs(model_path, exe, feeds, root).values()))
            error = float(np.abs(ours - reference).max() / np.abs(reference).max())
            input_args = e2e.write_inputs(feeds, os.path.join(root, f"{name}_inputs"))
            times = {(who, t): [] for who in ("cuvil", "ort") for t in (1, 2)}
            for session in sessions.values():
                peers.time_runs(session, feeds, 10)  # warm-up
            for _ in range(args.rounds):
                for t in (1, 2):
                    result = bench_cuvil(exe, input_args, str(args.runs), str(t))
                    times[("cuvil", t)].append(result["median_ms"] * 1000)
                    times[("ort", t)].append(statistics.median(peers.time_runs(sessions[t], feeds, args.runs)) * 1000)
            m = {key: statistics.median(values) for key, values in times.items()}
            print(f"| {name} | {m['cuvil', 1]:.1f} | {m['cuvil', 2]:.1f} | {m['ort', 1]:.1f} | "
                  f"{m['ort', 2]:.1f} | {error:.1e} |", flush=True)


if __name__ == "__main__":
    main()
