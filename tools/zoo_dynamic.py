#!/usr/bin/env python3
"""The zoo with shapes known at run time: models exported with dynamic axes, compiled once with
--shape-range, run at several shapes within the range and compared with ONNX Runtime.

    python tools/zoo_dynamic.py [--models a,b,...] [--out docs/ZOO.md]

(about 14 minutes on the 2-core development machine: a sweep for tools/, not CI)

Text models (integer inputs: token ids, masks) get a dynamic batch and sequence, range
1x4 : (the export's shape) : 4x128; the others a dynamic batch, 1 : 1 : 4. Each is compared with
ORT at the OPT shape (the executable's static path), at MIN and MAX, and at one shape between
(the generic path), at atol 1e-4 + rtol 1e-3 |ref| (WIDER_ATOL where tools/zoo.py widens it).
Attention masks hide the second half of the first sequence. With --out, the results replace
their section of that file (tools/zoo.py keeps it when it rewrites the rest).
"""

import argparse
import datetime
import os
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
import cuvil_e2e as e2e  # noqa: E402
import zoo  # noqa: E402
from bench_vs_peers import cpu_model, write_section  # noqa: E402

SECTION = ("<!-- zoo_dynamic.py: begin -->", "<!-- zoo_dynamic.py: end -->")
TEXT_MODELS = ["hf_bert", "hf_distilbert", "hf_roberta", "hf_gpt2", "hf_t5_encoder", "hf_llama_small"]
BATCH_MODELS = ["resnet50", "mobilenet_v2", "efficientnet_b0", "convnext_tiny", "vit_b_16", "hf_vit",
                "swin_t"]


def shapes_of(inputs, text):
    """(range per input for --shape-range, the shapes to run at): OPT is the export's shape."""
    first = next(iter(inputs.values())).shape
    if text:
        batch, sequence = first[:2]
        runs = [(batch, sequence), (1, 4), (4, 128), (2, 23)]
        ranges = {name: f"1x4:{batch}x{sequence}:4x128" for name in inputs}
        return ranges, [{name: run for name in inputs} for run in runs]
    dims = lambda batch, shape: "x".join(map(str, (batch, *shape[1:])))  # noqa: E731
    ranges = {name: f"{dims(1, v.shape)}:{dims(v.shape[0], v.shape)}:{dims(4, v.shape)}"
              for name, v in inputs.items()}
    runs = [{name: (batch, *v.shape[1:]) for name, v in inputs.items()} for batch in (1, 4, 3)]
    return ranges, runs


def feeds_for(inputs, shapes, rng):
    feeds = {}
    for name, value in inputs.items():
        shape = shapes[name]
        if name == "attention_mask":
            mask = np.ones(shape, value.dtype)
            mask[0, max(1, shape[1] // 2):] = 0
            feeds[name] = mask
        elif np.issubdtype(value.dtype, np.integer):
            feeds[name] = rng.integers(0, 1000, shape).astype(value.dtype)
        else:
            feeds[name] = rng.standard_normal(shape).astype(value.dtype)
    return feeds


def check(name, args, work):
    """The row for one model: status, the shapes checked, detail."""
    model, inputs = zoo.ZOO[name]()
    text = all(np.issubdtype(v.numpy().dtype, np.integer) for v in inputs.values())
    axes = {k: {0: "batch", 1: "sequence"} if text else {0: "batch"} for k in inputs}
    path = os.path.join(work, f"{name}.onnx")
    torch.onnx.export(model, tuple(inputs.values()), path, opset_version=args.opset, input_names=list(inputs),
                      dynamic_axes=axes, do_constant_folding=True)
    inputs = {k: v.numpy() for k, v in inputs.items()}
    ranges, runs = shapes_of(inputs, text)
    range_args = [arg for k, r in ranges.items() for arg in ("--shape-range", f"{k}={r}")]
    row = {"model": name, "ranges": ", ".join(f"{k}={r}" for k, r in ranges.items())}
    exe = os.path.join(work, f"{name}.bin")
    proc = e2e.compile(path, exe, ["--no-cache", *range_args], cuvil=args.cuvil, check=False)
    if proc.returncode != 0:
        return {**row, "status": "compile error", "detail": zoo.first_line(proc.stderr)}
    atol = zoo.WIDER_ATOL.get(name, (e2e.DEFAULT_ATOL, ""))[0]
    rng = np.random.default_rng(0)
    checked, worst = [], 0.0
    for shapes in runs:
        feeds = feeds_for(inputs, shapes, rng)
        shape = "x".join(map(str, next(iter(shapes.values()))))
        try:
            ours = e2e.cuvil_outputs(path, exe, feeds, os.path.join(work, name))
        except e2e.CuvilError as exc:
            return {**row, "status": "run error", "detail": f"at {shape}: {zoo.first_line(exc)}"}
        theirs = e2e.run_ort(path, feeds)
        ok, lines = e2e.compare_all(ours, theirs, atol=atol)
        if not ok:
            return {**row, "status": "mismatch", "detail": f"at {shape}: " + "; ".join(lines)[:200]}
        checked.append(shape)
        worst = max(worst, max(float(np.abs(ours[k] - theirs[k]).max()) for k in theirs))
    return {**row, "status": "pass", "shapes": ", ".join(checked), "detail": f"max abs error {worst:.2g}"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", default=None, help="cuvil binary (default: $CUVIL_BIN or build/tools/cuvil)")
    parser.add_argument("--models", default=",".join(TEXT_MODELS + BATCH_MODELS))
    parser.add_argument("--opset", type=int, default=17)
    parser.add_argument("--out", default=None, help="markdown file whose section to replace, e.g. docs/ZOO.md")
    args = parser.parse_args(argv)
    args.cuvil = args.cuvil or os.environ.get("CUVIL_BIN") or os.path.join(HERE, "..", "build", "tools", "cuvil")
    rows = []
    with tempfile.TemporaryDirectory(prefix="cuvil_zoo_dynamic_") as work:
        for name in args.models.split(","):
            row = check(name, args, work)
            print(f"{row['status'].upper():14} {name} {row.get('shapes', '')} {row.get('detail', '')}", flush=True)
            rows.append(row)
    passing = sum(row["status"] == "pass" for row in rows)
    lines = [SECTION[0], "## Shapes known at run time", "",
             f"{passing} of {len(rows)} models pass: each exported with dynamic axes (opset {args.opset}), compiled "
             "once with --shape-range, run at the shapes listed (the first is OPT, the executable's static "
             "path) and compared with ONNX Runtime at the zoo's tolerance. Written by `python tools/zoo_dynamic.py "
             f"--out {args.out}` on {datetime.date.today().isoformat()} ({cpu_model()}; 14 minutes on its 2 "
             "cores).", "",
             "| model | status | --shape-range | shapes run | detail |", "| --- | --- | --- | --- | --- |"]
    for row in rows:
        lines.append(f"| {row['model']} | {row['status']} | {row['ranges']} | {row.get('shapes', '')} | "
                     f"{row.get('detail', '').replace('|', '/')} |")
    text = "\n".join(lines + [SECTION[1], "", ""])
    print(text)
    if args.out:
        write_section(args.out, SECTION, text)
    return 0 if passing == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
