#!/usr/bin/env python3
"""Benchmark cuvil-compiled executables against ONNX Runtime and OpenVINO; write a markdown report.

    python tools/bench_vs_peers.py --cuvil PATH --models-dir DIR --models resnet50,bert_2layer \\
        --threads 1,2 --runs 50 [--rounds 5] --out docs/BENCHMARKS.md

Each model is exported if missing and compiled once. For every thread count
T, rounds of `infer.bin --bench N --json --threads T` alternate with rounds
of N timed runs of each peer (tools/peers.py: their fastest FP32 CPU path at
T threads, subnormals flushed like infer.bin, after warm-up) on the same
inputs. Every figure is the median over rounds of each round's median, so
slow phases of a noisy machine hit all sides alike.
"""

import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
import cuvil_e2e as e2e  # noqa: E402
import peers  # noqa: E402


def bench_cuvil(exe, input_args, runs, threads):
    """One round of infer.bin's own benchmark; return its JSON object."""
    proc = e2e.run_process([exe, *input_args, "--bench", runs, "--json", "--threads", threads])
    if proc.returncode != 0:
        raise e2e.CuvilError(os.path.basename(exe), proc)
    for line in reversed(proc.stdout.strip().splitlines()):
        if line.lstrip().startswith("{"):
            return json.loads(line)
    raise RuntimeError(f"no JSON object in the output of {exe} --bench:\n{proc.stdout}")


def cuvil_info(exe):
    """The compiler version and ISA variants `infer.bin --info` reports."""
    proc = e2e.run_process([exe, "--info"], timeout=60)
    if proc.returncode != 0:
        return f"unknown (--info exited {proc.returncode})"
    fields = dict(line.split(":", 1) for line in proc.stdout.splitlines() if ":" in line)
    return f"{fields.get('compiler', '?').strip()}; ISA variants {fields.get('isa variants', '?').strip()}"


def cpu_model():
    """CPU model name from /proc/cpuinfo (platform.processor() as fallback)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def fma_state(fma_peak):
    """`fma_peak --json` as one line: one core's FMA peak and the per-core rate
    with every core busy (lower when the cores share FMA units right now)."""
    if not fma_peak:
        return "not measured (pass --fma-peak build/tools/fma_peak)"
    proc = e2e.run_process([fma_peak, "--json"], timeout=120)
    if proc.returncode != 0:
        return f"not measured ({os.path.basename(fma_peak)} exited {proc.returncode})"
    peak = json.loads(proc.stdout)
    return (f"{peak['one_core_gflops']:.0f} GFLOP/s on one core, {peak['per_core_all_busy_gflops']:.0f} "
            f"per core with all {peak['cores']} busy")


def benchmark_model(name, args, workdir):
    """Benchmark one model for every thread count; return (rows, cuvil info line)."""
    model_path = e2e.ensure_model(args.models_dir, name)
    inputs = e2e.load_model_inputs(args.models_dir, name)
    exe = os.path.join(workdir, f"{name}.bin")
    print(f"[{name}] compiling ...", file=sys.stderr, flush=True)
    e2e.compile(model_path, exe, args.compile_arg, cuvil=args.cuvil)
    input_args = e2e.write_inputs(inputs, os.path.join(workdir, f"{name}.inputs"))
    rows = []
    for threads in args.threads:
        runners = {p.name: peers.open_peer(p, model_path, threads) for p in args.peers}
        runners = {n: r for n, r in runners.items() if r is not None}
        for runner in runners.values():
            peers.time_runs(runner, inputs, args.warmup)
        ours, theirs = [], {n: [] for n in runners}
        for r in range(args.rounds):
            ours.append(float(bench_cuvil(exe, input_args, args.runs, threads)["median_ms"]))
            for n, runner in runners.items():
                theirs[n].append(statistics.median(peers.time_runs(runner, inputs, args.runs)))
            print(f"[{name}] threads={threads} round {r + 1}/{args.rounds}: cuvil {ours[-1]:.3f} ms, " +
                  ", ".join(f"{n} {t[-1]:.3f} ms" for n, t in theirs.items()), file=sys.stderr, flush=True)
        rows.append(Row(name, threads, statistics.median(ours),
                        {n: statistics.median(t) for n, t in theirs.items()}))
    return rows, cuvil_info(exe)


class Row:
    """One model at one thread count: cuvil's median and each peer's."""

    def __init__(self, model, threads, cuvil_ms, peer_ms):
        self.model, self.threads, self.cuvil_ms, self.peer_ms = model, threads, cuvil_ms, peer_ms

    def best_peer(self):
        """(name, ms) of the fastest peer, or None when no peer ran the model."""
        return min(self.peer_ms.items(), key=lambda item: item[1], default=None)


# The project's goals for the ratio cuvil / best peer, at 1 and 2 threads:
# BERT-base's GEMMs already run at ~85% of the FMA peak in both peers.
GOALS = {"resnet50": 0.85, "mobilenet_v2": 0.85, "squeezenet1_1": 0.85, "bert_base": 0.92}


def markdown_table(rows, goals, peer_names):
    """The result table as markdown lines."""
    lines = ["| model | threads | cuvil median ms | " + " | ".join(f"{n} median ms" for n in peer_names) +
             " | " + " | ".join(f"cuvil/{n}" for n in peer_names) + " | cuvil/best peer | goal |",
             "| --- | ---: | ---: | " + "---: | " * (2 * len(peer_names)) + "---: | --- |"]
    for row in rows:
        ms = [f"{row.peer_ms[n]:.3f}" if n in row.peer_ms else "cannot run" for n in peer_names]
        ratios = [f"{row.cuvil_ms / row.peer_ms[n]:.2f}" if n in row.peer_ms else "" for n in peer_names]
        best = row.best_peer()
        ratio = row.cuvil_ms / best[1] if best else None
        goal = goals.get(row.model)
        verdict = "" if goal is None or ratio is None else f"<= {goal:.2f} {'met' if ratio <= goal else 'NOT met'}"
        best_cell = f"{ratio:.2f} ({best[0]})" if best else "no peer runs it"
        lines.append(f"| {row.model} | {row.threads} | {row.cuvil_ms:.3f} | " + " | ".join(ms + ratios) +
                     f" | {best_cell} | {verdict} |")
    return lines


def cuvil_variant(args):
    """How the executables were built and which variant they ran."""
    built = f"compiled with `{shlex.join(args.compile_arg)}`" if args.compile_arg else "default target"
    ran = f"run with CUVIL_ISA={args.isa}" if args.isa else "the best variant for this CPU"
    return f"{built}, {ran}"


def peer_method(args):
    """The method lines naming each peer, its settings and its binding overhead."""
    settings = {
        "ORT": "CPUExecutionProvider, ORT_ENABLE_ALL, intra_op_num_threads=T, inter_op_num_threads=1, "
               "sequential execution, session.set_denormal_as_zero",
        "OpenVINO": "CPU plugin, PERFORMANCE_HINT LATENCY, INFERENCE_PRECISION_HINT f32, "
                    "INFERENCE_NUM_THREADS T, CPU_DENORMALS_OPTIMIZATION YES, share_inputs=True",
    }
    lines = []
    for peer in args.peers:
        overhead = peers.binding_overhead_ms(peer)
        cost = "not measured" if overhead is None else f"{overhead * 1e3:.0f} us"
        lines.append(f"- {peer.version()}: {settings[peer.name]}; {args.warmup} warm-up runs per thread "
                     f"count. Its Python binding costs {cost} per call (median of a one-element Identity "
                     "model), included in its times.")
    return lines


def goals_for(args):
    """The goals apply to the default executable on its best variant only."""
    return {} if args.isa or args.compile_arg else GOALS


def report(rows, info, fma, args, command):
    """The full markdown document."""
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    variant_note = [] if goals_for(args) else [
        f"cuvil's executables: {cuvil_variant(args)}; ONNX Runtime runs its best path for this CPU. "
        "The project's goals are for the default executable and do not apply here.", ""]
    return "\n".join([
        "# Benchmarks: cuvil vs ONNX Runtime and OpenVINO", "",
        "Lower is better; a ratio below 1 means the cuvil executable is faster. The goals are on the "
        "ratio to the best peer (the faster of the two for that model and thread count).", "",
        *variant_note,
        *markdown_table(rows, goals_for(args), [p.name for p in args.peers]), "",
        "## Method", "",
        f"- Each model is compiled once; per thread count, {args.rounds} rounds alternate "
        f"`infer.bin --bench {args.runs} --json --threads T` with {args.runs} timed runs of each peer "
        "(time.perf_counter around each call) on the same inputs.",
        "- Each figure is the median over rounds of the round's median latency "
        "(`median_ms` from infer.bin; the median of the timed calls for a peer).",
        "- The peers run in infer.bin's numerics mode (subnormals flushed to zero), in FP32:",
        *peer_method(args),
        f"- cuvil variant: {cuvil_variant(args)}", "",
        "## Machine", "",
        f"- CPU: {cpu_model()}",
        f"- Logical cores: {os.cpu_count()}",
        f"- FP32 FMA peak (`fma_peak`) before / after the benchmark: {fma[0]}; {fma[1]}",
        f"- OS: {platform.platform()}, Python {platform.python_version()}",
        f"- cuvil: {info}",
        f"- Date: {date}",
        f"- Command: `{command}`", "",
    ])


# The markers around the sections other tools maintain in the same file
# (bench_dynamic.py, bench_precision.py): this report keeps them.
DYNAMIC_SECTION = ("<!-- bench_dynamic.py: begin -->", "<!-- bench_dynamic.py: end -->")
PRECISION_SECTION = ("<!-- bench_precision.py: begin -->", "<!-- bench_precision.py: end -->")


def kept_sections(path):
    """The sections other tools maintain in path, kept when this report
    replaces the rest."""
    try:
        text = open(path).read()
    except OSError:
        return ""
    kept = ""
    for begin, end in (DYNAMIC_SECTION, PRECISION_SECTION):
        if begin in text and end in text:
            kept += "\n" + begin + text.split(begin, 1)[1].split(end, 1)[0] + end + "\n"
    return kept


def write_section(path, markers, text):
    """Replace the section between markers in path with text (which starts
    and ends with them), or append it when absent."""
    begin, end = markers
    old = open(path).read() if os.path.exists(path) else ""
    if begin in old and end in old:
        head, rest = old.split(begin, 1)
        new = head + text + rest.split(end, 1)[1].lstrip("\n")
    else:
        new = old + ("\n" if old and not old.endswith("\n\n") else "") + text
    with open(path, "w") as f:
        f.write(new)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", help="cuvil binary (default: $CUVIL_BIN)")
    parser.add_argument("--models-dir", required=True, help="directory with NAME.onnx and NAME.inputs/")
    parser.add_argument("--models", required=True, help="comma-separated model names")
    parser.add_argument("--threads", default="1", help="comma-separated thread counts (default 1)")
    parser.add_argument("--runs", type=int, default=50, help="timed runs per round (default 50)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--warmup", type=int, default=5, help="warm-up runs per peer and thread count (default 5)")
    parser.add_argument("--out", help="markdown file to write, e.g. docs/BENCHMARKS.md")
    parser.add_argument("--workdir", help="where executables go (default: a temp dir)")
    parser.add_argument("--fma-peak", help="tools/fma_peak binary, run before and after to record "
                        "the machine's state in the report")
    parser.add_argument("--compile-arg", action="append", default=[],
                        help="extra `cuvil compile` argument, e.g. --compile-arg=--cpu=x86-64-v3 (repeatable)")
    parser.add_argument("--isa", choices=["avx512", "avx2"],
                        help="run infer.bin with CUVIL_ISA set: the best variant up to this level")
    args = parser.parse_args(argv)
    if args.isa:
        os.environ["CUVIL_ISA"] = args.isa  # read by infer.bin only
    try:
        args.cuvil = e2e.cuvil_path(args.cuvil)
    except RuntimeError as exc:
        parser.error(str(exc))
    args.threads = [int(t) for t in args.threads.split(",") if t]
    command = shlex.join([os.path.basename(sys.executable)] + sys.argv)

    args.peers = peers.available()
    rows, infos = [], []
    fma = [fma_state(args.fma_peak)]
    with tempfile.TemporaryDirectory(prefix="cuvil_bench_") as scratch:
        workdir = args.workdir or scratch
        os.makedirs(workdir, exist_ok=True)
        for name in filter(None, args.models.split(",")):
            model_rows, info = benchmark_model(name, args, workdir)
            rows += model_rows
            infos.append(info)
    fma.append(fma_state(args.fma_peak))
    info = "; ".join(sorted(set(infos)))
    print("\n".join(markdown_table(rows, goals_for(args), [p.name for p in args.peers])))
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        kept = kept_sections(args.out)  # before opening for writing empties the file
        with open(args.out, "w") as f:
            f.write(report(rows, info, fma, args, command) + kept)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
