#!/usr/bin/env python3
"""Every kernel call of the zoo's models against its bound: where time is lost.

    python tools/roofline.py --cuvil PATH [--models resnet50,densenet121,...]
                             [--runs 20] [--threads 1] [--top 25]

For each model (tools/zoo.py's builders, exported at opset 17), compiles it,
runs `infer.bin --bench N --profile` and reads, per kernel call, its time and
its bound: the compiler's estimate of the call's time at its bottleneck's
speed (its buffers at a vector per cycle from cache, or the flops its
lowering declares at the FMA peak, from the target's CPU model), over the
threads that ran it. Prints markdown for docs/PERFORMANCE.md: per model the
share of its bound reached; per kernel the same over all models; and the
calls that lose the most time (time - bound), worst first. A bound is
optimistic on purpose (data from DRAM is counted at cache speed), so low
shares on large memory-bound calls are expected; calls far from a compute
bound are the ones to look at.
"""

import argparse
import collections
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
import cuvil_e2e as e2e  # noqa: E402
import zoo  # noqa: E402

# "   0.123   4.5%    0.100    81.3%     12  <op> node '<name>' <kernel>"
PROFILE_LINE = re.compile(r"^\s*([\d.]+)\s+[\d.]+%\s+([\d.]+)\s+[\d.]+%\s+(\d+)\s+(.*\S)\s*$")

DEFAULT_MODELS = ("resnet50,mobilenet_v2,squeezenet1_1,densenet121,convnext_tiny,efficientnet_b0,"
                  "deeplabv3_mobilenet_v3_large,vit_b_16")


def profile_calls(exe, input_args, runs, threads):
    """[(ms, bound ms, call index, description)] of one --profile run."""
    proc = e2e.run_process([exe, *input_args, "--bench", str(runs), "--threads", str(threads), "--profile"])
    if proc.returncode != 0:
        raise e2e.CuvilError(os.path.basename(exe), proc)
    calls = []
    for line in proc.stdout.splitlines():
        match = PROFILE_LINE.match(line)
        if match:
            calls.append((float(match[1]), float(match[2]), int(match[3]), match[4]))
    return calls


def share(bound, ms):
    return f"{100 * bound / ms:.0f}%" if ms > 0 else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", required=True)
    parser.add_argument("--models", default=DEFAULT_MODELS)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    per_model, per_kernel, worst = [], collections.defaultdict(lambda: [0.0, 0.0, 0]), []
    with tempfile.TemporaryDirectory(prefix="cuvil_roofline_") as root:
        for name in args.models.split(","):
            path, exe = os.path.join(root, f"{name}.onnx"), os.path.join(root, name)
            inputs = zoo.export(name, 17, path)
            e2e.compile(path, exe, [], cuvil=args.cuvil)
            input_args = e2e.write_inputs(inputs, os.path.join(root, f"{name}_inputs"))
            calls = profile_calls(exe, input_args, args.runs, args.threads)
            total, bound = sum(c[0] for c in calls), sum(c[1] for c in calls)
            per_model.append((name, len(calls), total, bound))
            for ms, b, index, what in calls:
                kernel = what.split()[-1]
                per_kernel[kernel][0] += ms
                per_kernel[kernel][1] += b
                per_kernel[kernel][2] += 1
                worst.append((ms - b, ms, b, name, index, what))
            print(f"{name}: {total:.3f} ms in kernels, bound {bound:.3f} ms", file=sys.stderr, flush=True)
    print(f"Kernel time against the bound, {args.threads} thread(s), `--bench {args.runs}`:\n")
    print("| model | kernel calls | ms in kernels | bound ms | of bound |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, count, total, bound in per_model:
        print(f"| {name} | {count} | {total:.2f} | {bound:.2f} | {share(bound, total)} |")
    print("\n| kernel | calls | ms | bound ms | of bound |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for kernel, (ms, bound, count) in sorted(per_kernel.items(), key=lambda kv: -kv[1][0]):
        print(f"| `{kernel}` | {count} | {ms:.2f} | {bound:.2f} | {share(bound, ms)} |")
    print(f"\nThe {args.top} calls that lose the most time (ms - bound):\n")
    print("| model | call | what | ms | bound ms | of bound |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    for lost, ms, bound, name, index, what in sorted(worst, reverse=True)[:args.top]:
        print(f"| {name} | {index} | {what.replace('|', '/')} | {ms:.3f} | {bound:.3f} | {share(bound, ms)} |")


if __name__ == "__main__":
    main()
