#!/usr/bin/env python3
"""Benchmark executables compiled with --shape-range against static compiles and ONNX Runtime.

    python tools/bench_dynamic.py --cuvil PATH --models-dir DIR [--models bert_base,resnet50] \\
        [--threads 1] [--runs 20] [--rounds 3] [--out docs/BENCHMARKS.md]

Each model is exported with symbolic dims (NAME_dynamic.onnx) and compiled
once with the --shape-range of RANGES. At every shape of SHAPES it is also
compiled statically (--shape at that shape), and rounds alternate three
timings on the same inputs: the dynamic executable (its static path at OPT,
its generic path elsewhere), the static one, and ONNX Runtime on the dynamic
model. Figures are medians over rounds of each round's median; the ratios
are checked against the goals of issue 11 (GOALS). With --out the report
replaces the "dynamic shapes" section of that file and keeps the rest.
"""

import argparse
import datetime
import os
import platform
import shlex
import statistics
import sys
import tempfile

import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
import bench_vs_peers as bench  # noqa: E402
import peers  # noqa: E402
import cuvil_e2e as e2e  # noqa: E402
import test_dynamic_models as dynamic  # noqa: E402

BERT_INPUTS = ("input_ids", "attention_mask")
# Per model: each input's MIN:OPT:MAX, and the shapes to run (as full dims of
# every input; the first one is OPT).
RANGES = {
    "bert_base": {name: ((1, 8), (1, 128), (1, 512)) for name in BERT_INPUTS},
    "resnet50": {"input": ((1, 3, 224, 224), (1, 3, 224, 224), (8, 3, 224, 224))},
}
SHAPES = {
    "bert_base": [(1, 128), (1, 32), (1, 64), (1, 256), (1, 384)],
    "resnet50": [(1, 3, 224, 224), (4, 3, 224, 224), (8, 3, 224, 224)],
}
# Issue 11's goals: (dynamic / static at OPT, dynamic / static elsewhere,
# dynamic / ORT elsewhere); None where the issue sets none.
GOALS = {"bert_base": (1.03, 1.25, 0.90), "resnet50": (1.03, 1.20, None)}

SECTION_BEGIN, SECTION_END = bench.DYNAMIC_SECTION


def inputs_at(model, shape, seed):
    if model.startswith("bert"):
        inputs = dynamic.bert_inputs(*shape, seed=seed)
        inputs["attention_mask"][:] = 1  # served requests are unpadded
        return inputs
    return dynamic.cnn_inputs(shape[0], seed=seed)


def shape_args(inputs):
    """--shape arguments fixing every input at its array's shape."""
    args = []
    for name, value in inputs.items():
        args += ["--shape", f"{name}=" + "x".join(map(str, value.shape))]
    return args


def benchmark_model(model, args, workdir):
    """Rows (model, shape, dynamic ms, static ms, ORT ms) for every shape and thread count."""
    path = e2e.ensure_model(args.models_dir, f"{model}_dynamic")
    dyn_exe = os.path.join(workdir, f"{model}_dynamic.bin")
    print(f"[{model}] compiling with --shape-range ...", file=sys.stderr, flush=True)
    e2e.compile(path, dyn_exe, dynamic.range_args(RANGES[model]), cuvil=args.cuvil)
    rows = []
    for i, shape in enumerate(SHAPES[model]):
        label = "x".join(map(str, shape))
        inputs = inputs_at(model, shape, seed=i)
        input_args = e2e.write_inputs(inputs, os.path.join(workdir, f"{model}.{label}.inputs"))
        static_exe = os.path.join(workdir, f"{model}.{label}.bin")
        print(f"[{model}] compiling static at {label} ...", file=sys.stderr, flush=True)
        e2e.compile(path, static_exe, shape_args(inputs), cuvil=args.cuvil)
        for threads in args.threads:
            session = peers.OnnxRuntimePeer(path, threads)
            peers.time_runs(session, inputs, args.warmup)
            times = {"dynamic": [], "static": [], "ort": []}
            for r in range(args.rounds):
                times["dynamic"].append(
                    float(bench.bench_cuvil(dyn_exe, input_args, args.runs, threads)["median_ms"]))
                times["static"].append(
                    float(bench.bench_cuvil(static_exe, input_args, args.runs, threads)["median_ms"]))
                times["ort"].append(statistics.median(peers.time_runs(session, inputs, args.runs)))
                print(f"[{model}] {label} threads={threads} round {r + 1}/{args.rounds}: " +
                      ", ".join(f"{k} {v[-1]:.3f} ms" for k, v in times.items()),
                      file=sys.stderr, flush=True)
            rows.append((model, label, i == 0, threads,
                         *(statistics.median(times[k]) for k in ("dynamic", "static", "ort"))))
    return rows


def verdict(value, goal):
    if goal is None:
        return ""
    return f"<= {goal:.2f} {'met' if value <= goal else 'NOT met'}"


def markdown_table(rows):
    lines = ["| model | shape | path | threads | dynamic ms | static ms | ORT ms | dynamic/static | goal | "
             "dynamic/ORT | goal |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |"]
    for model, label, is_opt, threads, dyn, static, theirs in rows:
        opt_goal, other_goal, ort_goal = GOALS.get(model, (None, None, None))
        static_goal, vs_ort_goal = (opt_goal, None) if is_opt else (other_goal, ort_goal)
        lines.append(f"| {model} | {label} | {'static (OPT)' if is_opt else 'generic'} | {threads} | "
                     f"{dyn:.3f} | {static:.3f} | {theirs:.3f} | {dyn / static:.3f} | "
                     f"{verdict(dyn / static, static_goal)} | {dyn / theirs:.2f} | "
                     f"{verdict(dyn / theirs, vs_ort_goal)} |")
    return lines


def ranges_text(model):
    return ", ".join(f"`{name}={':'.join('x'.join(map(str, d)) for d in bounds)}`"
                     for name, bounds in RANGES[model].items())


def section(rows, args, command, fma):
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return "\n".join([
        SECTION_BEGIN,
        "## Dynamic shapes: one executable for a range of shapes", "",
        "`dynamic` is one executable per model compiled with --shape-range "
        f"({'; '.join(f'{m}: {ranges_text(m)}' for m in args.models)}); `static` is a compile with "
        "--shape at the row's shape; ORT runs the dynamic model. At OPT the dynamic executable "
        "takes its static path, elsewhere its generic one.", "",
        *markdown_table(rows), "",
        f"- {args.rounds} rounds per shape alternate `infer.bin --bench {args.runs} --json --threads T` "
        f"of both executables with {args.runs} timed ORT runs; figures are medians over rounds of each "
        "round's median.",
        f"- ONNX Runtime {ort.__version__}: ORT_ENABLE_ALL, intra_op_num_threads=T, sequential, "
        "session.set_denormal_as_zero (infer.bin flushes subnormals).",
        f"- CPU: {bench.cpu_model()}, {os.cpu_count()} logical cores; {platform.platform()}; {date}",
        f"- FP32 FMA peak (`fma_peak`) before / after: {fma[0]}; {fma[1]}",
        f"- Command: `{command}`",
        SECTION_END, ""])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", help="cuvil binary (default: $CUVIL_BIN)")
    parser.add_argument("--models-dir", required=True, help="where NAME_dynamic.onnx is (or is exported to)")
    parser.add_argument("--models", default="bert_base,resnet50", help=f"comma-separated, of {', '.join(RANGES)}")
    parser.add_argument("--threads", default="1", help="comma-separated thread counts (default 1)")
    parser.add_argument("--runs", type=int, default=20, help="timed runs per round (default 20)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--warmup", type=int, default=3, help="ORT warm-up runs per session (default 3)")
    parser.add_argument("--out", help="markdown file whose dynamic-shapes section to write, e.g. docs/BENCHMARKS.md")
    parser.add_argument("--workdir", help="where executables go (default: a temp dir)")
    parser.add_argument("--fma-peak", help="tools/fma_peak binary, run before and after to record "
                        "the machine's state in the report")
    args = parser.parse_args(argv)
    try:
        args.cuvil = e2e.cuvil_path(args.cuvil)
    except RuntimeError as exc:
        parser.error(str(exc))
    args.models = [m for m in args.models.split(",") if m]
    unknown = [m for m in args.models if m not in RANGES]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(RANGES)}")
    args.threads = [int(t) for t in args.threads.split(",") if t]
    command = shlex.join([os.path.basename(sys.executable)] + sys.argv)
    rows, fma = [], [bench.fma_state(args.fma_peak)]
    with tempfile.TemporaryDirectory(prefix="cuvil_bench_dynamic_") as scratch:
        workdir = args.workdir or scratch
        os.makedirs(workdir, exist_ok=True)
        for model in args.models:
            rows += benchmark_model(model, args, workdir)
    fma.append(bench.fma_state(args.fma_peak))
    print("\n".join(markdown_table(rows)))
    if args.out:
        bench.write_section(args.out, bench.DYNAMIC_SECTION, section(rows, args, command, fma))
        print(f"wrote the dynamic-shapes section of {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
