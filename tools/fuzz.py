#!/usr/bin/env python3
"""Mutation fuzzer for the compiler's and infer.bin's inputs.

`models`: seed models (small valid ones built here, plus any --seeds folder of
.onnx files) are mutated, field by field through the protobuf classes (dims,
element types, data sizes, attribute kinds and values, value names, opsets)
and byte by byte (flips, truncation, splices), and compiled; `cuvil compile`
must exit 0 or 1, and with 1 print "error: " first, never a signal or a
timeout. `inputs`: a seed model is compiled once and infer.bin is run on
mutated .npy and .pb input files; it must exit 0 or 1 likewise.

Every finding is saved under --out (the file and the command) for
reproduction. A fixed --seed makes the run repeatable; CI runs a small
sample (CTest fuzz_sample), long runs go from here:

    python tools/fuzz.py --cuvil build/tools/cuvil models --runs 5000 --out /tmp/fuzz
    python tools/fuzz.py --cuvil build/tools/cuvil inputs --runs 5000 --out /tmp/fuzz
"""

import argparse
import concurrent.futures
import copy
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

TIMEOUT_S = 60


def seed_models():
    """Small valid models that reach the importer's main paths: weights, Conv
    attributes, shape computations, integer indices, several opsets."""
    rng = np.random.default_rng(0)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal((4,)).astype(np.float32), "b")
    models = []
    g = helper.make_graph([helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2]),
                           helper.make_node("Relu", ["c"], ["r"]),
                           helper.make_node("MaxPool", ["r"], ["y"], kernel_shape=[2, 2])],
                          "conv", [x], [y], [w, b])
    models.append(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
    shape = numpy_helper.from_array(np.array([1, -1], np.int64), "shape")
    m = numpy_helper.from_array(rng.standard_normal((192, 5)).astype(np.float32), "m")
    g = helper.make_graph([helper.make_node("Reshape", ["x", "shape"], ["f"]),
                           helper.make_node("MatMul", ["f", "m"], ["p"]),
                           helper.make_node("Softmax", ["p"], ["y"], axis=-1)],
                          "mlp", [x], [y], [shape, m])
    models.append(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 3])
    table = numpy_helper.from_array(rng.standard_normal((10, 4)).astype(np.float32), "table")
    axes = numpy_helper.from_array(np.array([0], np.int64), "axes")
    g = helper.make_graph([helper.make_node("Gather", ["table", "ids"], ["e"], axis=0),
                           helper.make_node("Shape", ["e"], ["s"]),
                           helper.make_node("ReduceSum", ["e", "axes"], ["t"], keepdims=0),
                           helper.make_node("Concat", ["t", "t"], ["y"], axis=0)],
                          "gather", [ids], [y, helper.make_tensor_value_info("s", TensorProto.INT64, None)],
                          [table, axes])
    models.append(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))
    g = helper.make_graph([helper.make_node("Add", ["x", "b1"], ["a"], broadcast=1, axis=1),
                           helper.make_node("Pad", ["a"], ["y"], pads=[0, 0, 1, 1, 0, 0, 1, 1])],
                          "legacy", [x], [y], [numpy_helper.from_array(np.ones(3, np.float32), "b1")])
    models.append(helper.make_model(g, opset_imports=[helper.make_opsetid("", 6)]))
    return models


def mutate_tensor(rng, t):
    choice = rng.randrange(6)
    if choice == 0 and t.dims:
        t.dims[rng.randrange(len(t.dims))] = rng.choice([-1, 0, 1, 2, 1 << 31, 1 << 62, -(1 << 62)])
    elif choice == 1:
        t.data_type = rng.choice([0, 2, 7, 8, 10, 16, 17, 99, -3])
    elif choice == 2 and t.raw_data:
        t.raw_data = t.raw_data[:rng.randrange(len(t.raw_data) + 1)]
    elif choice == 3:
        t.dims.append(rng.choice([0, 3, 1 << 40]))
    elif choice == 4:
        t.data_location = TensorProto.EXTERNAL
        t.external_data.add(key="location", value=rng.choice(["../x", "/etc/passwd", "w.bin", ""]))
        t.external_data.add(key=rng.choice(["offset", "length"]), value=rng.choice(["-1", "abc", "99999999999"]))
    else:
        t.float_data.extend([1.0] * rng.randrange(5))


def mutate_attribute(rng, a):
    choice = rng.randrange(5)
    if choice == 0:
        a.type = rng.choice(list(onnx.AttributeProto.AttributeType.values()))
    elif choice == 1:
        a.i = rng.choice([-(1 << 63), -1, 0, 1 << 40, 7])
        a.type = onnx.AttributeProto.INT
    elif choice == 2:
        del a.ints[:]
        a.ints.extend(rng.choice([[], [0], [-1, -1], [1 << 40] * 4, [0, 0, 0, 0]]))
        a.type = onnx.AttributeProto.INTS
    elif choice == 3:
        a.f = rng.choice([float("nan"), float("inf"), -1e30])
        a.type = onnx.AttributeProto.FLOAT
    else:
        a.s = rng.choice([b"", b"SAME_UPPER", b"\xff\xfe", b"x" * 1000])
        a.type = onnx.AttributeProto.STRING


def mutate_model(rng, model):
    """One to three field mutations of a copy of the model."""
    model = copy.deepcopy(model)
    g = model.graph
    for _ in range(rng.randrange(1, 4)):
        choice = rng.randrange(9)
        if choice == 0 and g.initializer:
            mutate_tensor(rng, rng.choice(g.initializer))
        elif choice == 1 and g.node and any(n.attribute for n in g.node):
            node = rng.choice([n for n in g.node if n.attribute])
            mutate_attribute(rng, rng.choice(node.attribute))
        elif choice == 2 and g.node:
            node = rng.choice(g.node)
            names = [v for n in g.node for v in (*n.input, *n.output)] + ["", "nothing"]
            field = node.input if node.input and rng.random() < 0.7 else node.output
            if field:
                field[rng.randrange(len(field))] = rng.choice(names)
        elif choice == 3 and g.node:
            node = rng.choice(g.node)
            node.op_type = rng.choice(["Conv", "Relu", "Gather", "Reshape", "If", "Loop", "Nope", "Concat", "TopK"])
        elif choice == 4:
            model.opset_import[0].version = rng.choice([0, 1, 5, 7, 11, 23, 24, 1 << 40])
        elif choice == 5 and g.input:
            dims = g.input[0].type.tensor_type.shape.dim
            if dims:
                d = dims[rng.randrange(len(dims))]
                if rng.random() < 0.5:
                    d.dim_value = rng.choice([0, -5, 1 << 50])
                else:
                    d.dim_param = "n"
        elif choice == 6 and g.node:
            g.node.insert(rng.randrange(len(g.node) + 1), copy.deepcopy(rng.choice(g.node)))
        elif choice == 7 and g.node:
            del g.node[rng.randrange(len(g.node))]
        elif g.output:
            g.output[0].type.tensor_type.elem_type = rng.choice([1, 7, 0, 99])
    return model.SerializeToString()


def mutate_bytes(rng, data):
    data = bytearray(data)
    choice = rng.randrange(4)
    if choice == 0 and data:
        for _ in range(rng.randrange(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif choice == 1:
        data = data[:rng.randrange(len(data) + 1)]
    elif choice == 2 and data:
        i = rng.randrange(len(data))
        data[i:i] = data[rng.randrange(len(data)):][:rng.randrange(64)]
    elif data:
        i = rng.randrange(len(data))
        data[i:i + 8] = rng.choice([b"\xff" * 8, b"\0" * 8, b"\x7f\xff\xff\xff\xff\xff\xff\xff"])
    return bytes(data)


def check(proc_or_none, what):
    """None when the process ended as it must (0, or 1 with an error line)."""
    if proc_or_none is None:
        return f"{what} ran past {TIMEOUT_S} s"
    proc = proc_or_none
    if proc.returncode == 0:
        return None
    if proc.returncode == 1 and proc.stderr.lstrip().startswith("error"):
        return None
    return f"{what} exited {proc.returncode}: {proc.stderr.strip()[-500:]!r}"


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None


def fuzz_model(cuvil, data, workdir):
    path = os.path.join(workdir, "model.onnx")
    with open(path, "wb") as f:
        f.write(data)
    exe = os.path.join(workdir, "infer.bin")
    return check(run([cuvil, "compile", "-q", "--input", path, "--output", exe]), "cuvil compile"), [path]


def npy_bytes(array):
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def fuzz_input(exe, name, data, workdir):
    path = os.path.join(workdir, "input.bin")
    with open(path, "wb") as f:
        f.write(data)
    out = os.path.join(workdir, "out")
    return check(run([exe, "--input", f"{name}={path}", "--output-dir", out]), "infer.bin"), [path]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", default=os.environ.get("CUVIL_BIN"), required=False)
    parser.add_argument("mode", choices=["models", "inputs"])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seeds", help="folder of further .onnx seed models")
    parser.add_argument("--out", help="save findings here")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    if not args.cuvil:
        parser.error("--cuvil (or CUVIL_BIN) is required")
    rng = random.Random(args.seed)
    root = tempfile.mkdtemp(prefix="cuvil_fuzz_")
    seeds = seed_models()
    for name in sorted(os.listdir(args.seeds)) if args.seeds else []:
        if name.endswith(".onnx"):
            seeds.append(onnx.load(os.path.join(args.seeds, name)))

    jobs = []
    if args.mode == "models":
        for i in range(args.runs):
            seed = rng.choice(seeds)
            data = mutate_model(rng, seed) if rng.random() < 0.7 else mutate_bytes(rng, seed.SerializeToString())
            jobs.append((fuzz_model, (args.cuvil, data)))
    else:
        model = os.path.join(root, "seed.onnx")
        onnx.save(seeds[2], model)  # integer and float paths: Gather by ids
        exe = os.path.join(root, "seed.bin")
        subprocess.run([args.cuvil, "compile", "-q", "--input", model, "--output", exe], check=True)
        good = np.array([[1, 2, 3], [4, 5, 6]], np.int64)
        templates = [npy_bytes(good), numpy_helper.from_array(good).SerializeToString()]
        for i in range(args.runs):
            data = mutate_bytes(rng, rng.choice(templates))
            jobs.append((fuzz_input, (exe, "ids", data)))

    findings = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = []
        for i, (function, function_args) in enumerate(jobs):
            workdir = os.path.join(root, f"run{i}")
            os.makedirs(workdir)
            futures.append(pool.submit(function, *function_args, workdir))
        for i, future in enumerate(futures):
            problem, files = future.result()
            if problem:
                findings += 1
                print(f"FINDING run {i}: {problem}")
                if args.out:
                    target = os.path.join(args.out, f"{args.mode}-{args.seed}-{i}")
                    os.makedirs(target, exist_ok=True)
                    for path in files:
                        shutil.copy(path, target)
    shutil.rmtree(root, ignore_errors=True)
    print(f"{args.runs} {args.mode} runs, {findings} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
