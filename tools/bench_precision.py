#!/usr/bin/env python3
"""INT8 and BF16 against FP32: accuracy (SQNR, top-1 agreement) and latency of cuvil's --precision int8, of ONNX
Runtime running the same model quantized by its own quantize_static, and of cuvil compiling that quantized file;
prints a markdown table.

    python tools/bench_precision.py --cuvil PATH --models-dir DIR --models resnet50,mobilenet_v2 \\
        [--samples 8] [--threads 1,2] [--runs 20] [--rounds 3] [--out docs/BENCHMARKS.md]

Both sides calibrate on the same samples (seeded random inputs shaped like the model's saved inputs, integer
inputs drawn within the saved ones' range): cuvil from a calibration folder, ORT through a data reader
(QDQ, per-channel i8 weights, u8 activations, MinMax, reduce_range as cuvil's 7-bit weights). Accuracy is
measured on --eval other random inputs against cuvil's FP32 run (SQNR over all of them, and how often the
top-1 class agrees). Latency: rounds of `infer.bin --bench`
alternate with rounds of timed ORT runs (subnormals flushed like infer.bin); each figure is the median of
the rounds' medians. With --out the report also replaces the INT8 section of that file (kept by
bench_vs_peers.py), its header naming the CPU and whether it has VNNI and AVX512_BF16.
"""

import argparse
import datetime
import os
import shlex
import statistics
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuvil_e2e as e2e  # noqa: E402
import peers  # noqa: E402
from bench_vs_peers import PRECISION_SECTION, bench_cuvil, cpu_model, write_section  # noqa: E402


def calibration_samples(inputs, count, seed=0):
    """`count` dicts of random inputs shaped and typed like `inputs`."""
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(count):
        sample = {}
        for name, value in inputs.items():
            if np.issubdtype(value.dtype, np.floating):
                sample[name] = rng.standard_normal(value.shape).astype(value.dtype)
            else:
                sample[name] = rng.integers(value.min(), value.max() + 1, value.shape).astype(value.dtype)
        samples.append(sample)
    return samples


def write_calibration_folder(samples, directory):
    for i, sample in enumerate(samples):
        os.makedirs(os.path.join(directory, f"sample{i:03d}"))
        for name, value in sample.items():
            np.save(os.path.join(directory, f"sample{i:03d}", f"{name}.npy"), value)


def ort_quantize(model_path, samples, out_path, workdir, preprocess=True):
    """ORT's quantize_static of model_path into out_path. preprocess=False skips quant_pre_process
    (ORT's symbolic shape inference, which gives up on some dynamic-shape models)."""
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.samples = iter(samples)

        def get_next(self):
            return next(self.samples, None)

    prepared = model_path
    if preprocess:
        prepared = os.path.join(workdir, "prepared.onnx")
        quant_pre_process(model_path, prepared)
    quantize_static(prepared, out_path, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    reduce_range=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)


def sqnr_db(reference, value):
    noise = np.sum((reference.astype(np.float64) - value) ** 2)
    return float("inf") if noise == 0 else 10 * np.log10(np.sum(reference.astype(np.float64) ** 2) / noise)


def isa_features():
    """Whether this CPU has the instructions the INT8 and BF16 rows depend on."""
    try:
        flags = next(line for line in open("/proc/cpuinfo") if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return "ISA unknown"
    has = lambda *names: any(n in flags for n in names)  # noqa: E731
    return ", ".join([
        "AVX-512" if has("avx512f") else "AVX2, no AVX-512",
        "VNNI" if has("avx512_vnni", "avx_vnni") else "no VNNI",
        "AVX512_BF16" if has("avx512_bf16") else "no AVX512_BF16"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", help="cuvil binary (default: $CUVIL_BIN)")
    parser.add_argument("--models-dir", required=True)
    parser.add_argument("--models", default="resnet50,mobilenet_v2")
    parser.add_argument("--samples", type=int, default=8, help="calibration samples")
    parser.add_argument("--calibration-method", default="minmax", help="minmax, percentile or entropy")
    parser.add_argument("--eval", type=int, default=16, help="inputs accuracy is measured on")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", help="markdown file whose INT8 section to write, e.g. docs/BENCHMARKS.md")
    args = parser.parse_args()
    rows, accuracy = [], []
    with tempfile.TemporaryDirectory(prefix="cuvil-precision-bench-") as work:
        for name in args.models.split(","):
            model = e2e.ensure_model(args.models_dir, name)
            inputs = e2e.load_model_inputs(args.models_dir, name)
            samples = calibration_samples(inputs, args.samples)
            calib = os.path.join(work, f"{name}.calibration")
            write_calibration_folder(samples, calib)
            exes = {key: os.path.join(work, f"{name}.{key}.bin") for key in ("fp32", "int8", "bf16")}
            print(f"[{name}] compiling ...", file=sys.stderr, flush=True)
            e2e.compile(model, exes["fp32"], ["--no-cache"], cuvil=args.cuvil)
            proc = e2e.compile(model, exes["int8"], ["--no-cache", "--precision", "int8", "--calibration", calib,
                                                             "--calibration-method", args.calibration_method],
                               cuvil=args.cuvil)
            quantized = next(line.strip() for line in proc.stdout.splitlines() if "precision:" in line)
            e2e.compile(model, exes["bf16"], ["--no-cache", "--precision", "bf16"], cuvil=args.cuvil)
            qdq = os.path.join(work, f"{name}.qdq.onnx")
            ort_quantize(model, samples, qdq, work)
            # The pre-quantized path: cuvil compiling ORT's QDQ file as a user brings it.
            exes["qdq"] = os.path.join(work, f"{name}.qdq.bin")
            e2e.compile(qdq, exes["qdq"], ["--no-cache"], cuvil=args.cuvil)

            # Accuracy on inputs drawn apart from the calibration samples.
            ort_session = e2e.ort_session(qdq)
            results = {"fp32": [], "int8": [], "bf16": [], "ort8": []}
            for sample in calibration_samples(inputs, args.eval, seed=1):
                results["fp32"].append(e2e.cuvil_outputs(model, exes["fp32"], sample, work))
                results["int8"].append(e2e.cuvil_outputs(model, exes["int8"], sample, work))
                results["bf16"].append(e2e.cuvil_outputs(model, exes["bf16"], sample, work))
                names = [o.name for o in ort_session.get_outputs()]
                results["ort8"].append(dict(zip(names, ort_session.run(names, sample))))
            for output in results["fp32"][0]:
                stack = {key: np.stack([r[output] for r in runs]) for key, runs in results.items()}
                agree = lambda key: np.mean(stack["fp32"].argmax(-1) == stack[key].argmax(-1)) * 100  # noqa: E731
                accuracy.append(f"| {name} | {output} | {sqnr_db(stack['fp32'], stack['int8']):.1f} | "
                                f"{sqnr_db(stack['fp32'], stack['ort8']):.1f} | {agree('int8'):.0f}% / "
                                f"{agree('ort8'):.0f}% | {quantized.split(' (')[0]} | "
                                f"{sqnr_db(stack['fp32'], stack['bf16']):.1f} |")

            input_args = e2e.write_inputs(inputs, os.path.join(work, f"{name}.inputs"))
            for threads in [int(t) for t in args.threads.split(",")]:
                ort32 = peers.open_peer(peers.OnnxRuntimePeer, model, threads)
                ort8 = peers.open_peer(peers.OnnxRuntimePeer, qdq, threads)
                for runner in (ort32, ort8):
                    peers.time_runs(runner, inputs, 5)
                times = {key: [] for key in ("fp32", "int8", "bf16", "qdq", "ort32", "ort8")}
                for _ in range(args.rounds):
                    for key in ("fp32", "int8", "bf16", "qdq"):
                        times[key].append(float(bench_cuvil(exes[key], input_args, args.runs, threads)["median_ms"]))
                    times["ort32"].append(statistics.median(peers.time_runs(ort32, inputs, args.runs)))
                    times["ort8"].append(statistics.median(peers.time_runs(ort8, inputs, args.runs)))
                ms = {key: statistics.median(values) for key, values in times.items()}
                print(f"[{name}] threads={threads}: " + ", ".join(f"{k} {v:.2f} ms" for k, v in ms.items()),
                      file=sys.stderr, flush=True)
                rows.append(f"| {name} | {threads} | {ms['fp32']:.2f} | {ms['int8']:.2f} | "
                            f"{ms['fp32'] / ms['int8']:.2f}x | {ms['ort32']:.2f} | {ms['ort8']:.2f} | "
                            f"{ms['ort32'] / ms['ort8']:.2f}x | {ms['int8'] / ms['ort8']:.2f} | "
                            f"{ms['bf16']:.2f} | {ms['fp32'] / ms['bf16']:.2f}x | {ms['qdq']:.2f} | "
                            f"{ms['qdq'] / ms['ort8']:.2f} |")
    accuracy_table = ["| model | output | cuvil INT8 SQNR dB | ORT INT8 SQNR dB | same top-1 (cuvil / ORT) | cuvil | "
                      "cuvil BF16 SQNR dB |",
                      "| --- | --- | ---: | ---: | ---: | --- | ---: |", *accuracy]
    speed_table = ["| model | threads | cuvil FP32 ms | cuvil INT8 ms | INT8 speed-up | ORT FP32 ms | ORT INT8 ms | "
                   "ORT speed-up | cuvil INT8 / ORT INT8 | cuvil BF16 ms | BF16 speed-up | cuvil on ORT's QDQ ms | "
                   "/ ORT INT8 |",
                   "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |", *rows]
    header = (f"CPU: {cpu_model()} ({isa_features()}); {peers.OnnxRuntimePeer.version()}; {args.samples} "
              f"calibration samples ({args.calibration_method}), accuracy on {args.eval} other inputs")
    print(header + "\n")
    print("\n".join(accuracy_table) + "\n")
    print("\n".join(speed_table))
    if args.out:
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        command = "python tools/bench_precision.py " + shlex.join(sys.argv[1:])
        write_section(args.out, PRECISION_SECTION, "\n".join([
            PRECISION_SECTION[0], "## INT8 and BF16 (--precision int8, bf16) against FP32 and ONNX Runtime's INT8", "",
            "cuvil INT8: `--precision int8 --calibration` on the samples; ORT INT8: its quantize_static of the same "
            "model on the same samples (QDQ, per-channel i8 weights, u8 activations, reduce_range). SQNR against "
            "cuvil's FP32 run. cuvil BF16: `--precision bf16` (MatMul weights in bf16; convolutions stay FP32, so "
            "the CNNs change only in their classifier); ONNX Runtime's CPU provider has no BF16 path to compare. "
            "cuvil on ORT's QDQ: cuvil compiling ORT's quantized file itself (the pre-quantized path, fuse-qdq), "
            "timed against ORT running that file.", "",
            *accuracy_table, "", *speed_table, "",
            f"- {header}; {date}",
            f"- {args.rounds} rounds alternate `infer.bin --bench {args.runs}` with {args.runs} timed ORT runs "
            "(subnormals flushed like infer.bin); figures are medians of the rounds' medians.",
            f"- Command: `{command}`", PRECISION_SECTION[1], ""]))
        print(f"wrote the INT8 section of {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
