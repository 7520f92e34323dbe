#!/usr/bin/env python3
"""--precision int8 with calibration: accuracy of a trained CNN against its FP32 run, both calibration set
layouts, the ranges kept next to the output, and the errors a user meets.

The CNN is trained here, in seconds, on scikit-learn's bundled digits (8x8 images, no download) and
exported with a fixed batch; its held-out split is the accuracy set, training images the calibration set.

    python tests/e2e/test_precision.py --cuvil PATH
"""

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cuvil_e2e as e2e  # noqa: E402

BATCH = 90
CALIBRATION_BATCHES = 4
# The bound: INT8 top-1 within 0.5 points of FP32 on the held-out split.
MAX_TOP1_LOSS = 0.5


def train_digits_cnn(path):
    """Trains the CNN on 80% of the digits and exports it; returns (train, test) as (images, labels)."""
    import torch
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]  # [n, 1, 8, 8] in [0, 1]
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(images))
    images, labels = images[order], labels[order]
    split = len(images) - 4 * BATCH  # 360 held out
    train = (images[:split], labels[:split])
    test = (images[split:], labels[split:])

    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(16, 32, 3, stride=2, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(32, 32, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Flatten(), torch.nn.Linear(32 * 4 * 4, 10))
    optimiser = torch.optim.Adam(net.parameters(), lr=3e-3)
    x, y = torch.from_numpy(train[0]), torch.from_numpy(train[1])
    for _ in range(12):
        for start in range(0, len(x), 64):
            optimiser.zero_grad()
            loss = torch.nn.functional.cross_entropy(net(x[start:start + 64]), y[start:start + 64])
            loss.backward()
            optimiser.step()
    net.eval()
    torch.onnx.export(net, torch.zeros(BATCH, 1, 8, 8), path, input_names=["image"],
                      output_names=["logits"], opset_version=17)
    return train, test


def write_npy_set(directory, batches):
    for i, batch in enumerate(batches):
        os.makedirs(os.path.join(directory, f"sample{i}"))
        np.save(os.path.join(directory, f"sample{i}", "image.npy"), batch)


def write_test_data_set(directory, batches):
    for i, batch in enumerate(batches):
        os.makedirs(os.path.join(directory, f"test_data_set_{i}"))
        with open(os.path.join(directory, f"test_data_set_{i}", "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(batch, "image").SerializeToString())


def top1(exe, images, work):
    """Predicted classes of `images`, batch by batch."""
    predictions = []
    for start in range(0, len(images), BATCH):
        logits = e2e.run_infer(exe, {"image": images[start:start + BATCH]}, work)["logits"]
        predictions.append(logits.argmax(axis=1))
    return np.concatenate(predictions)


def ranges_body(path):
    """The ranges a file holds, without its key line."""
    with open(path) as f:
        return f.read().split("\n", 1)[1]


def logits(exe, batches, work):
    return np.concatenate([e2e.run_infer(exe, {"image": batch}, work)["logits"] for batch in batches])


def relative_error(reference, value):
    return float(np.sqrt(np.sum((value.astype(np.float64) - reference) ** 2) / np.sum(reference.astype(np.float64) ** 2)))


def check_auto(checks, compile, path, batches, test_images, work):
    """--precision auto: a zero budget keeps FP32 bit for bit, a full one is int8,
    and in between the chosen prefix of the front is the longest within the budget,
    its error what the executable measures on the calibration samples."""
    auto = lambda exe, budget: compile(exe, "--precision", "auto", "--accuracy-budget", budget,  # noqa: E731
                                       "--calibration", path("calib_npy"), "--report", exe + ".json")
    fp32_logits = logits(path("fp32.bin"), batches, work)

    proc = auto(path("auto0.bin"), "0")
    checks.expect("0 of 4 Conv/MatMul on integer kernels" in proc.stdout, "auto, budget 0: no layer INT8")
    checks.expect(np.array_equal(logits(path("auto0.bin"), [test_images[:BATCH]], work),
                                 logits(path("fp32.bin"), [test_images[:BATCH]], work)),
                  "auto, budget 0: bit for bit the FP32 executable")

    proc = auto(path("auto100.bin"), "100%")
    checks.expect("4 of 4 Conv/MatMul on integer kernels" in proc.stdout, "auto, budget 100%: every layer INT8")
    checks.expect(np.array_equal(logits(path("auto100.bin"), [test_images[:BATCH]], work),
                                 logits(path("int8_minmax.bin"), [test_images[:BATCH]], work)),
                  "auto, budget 100%: the int8 executable's outputs")

    with open(path("auto100.bin.json")) as f:
        full = json.load(f)
    errors = [row["error"] for row in full["front"]]
    checks.expect(len(full["layers"]) == 4 and full["chosen"] == 4 and len(errors) == 5 and errors[0] == 0,
                  f"auto report: 4 layers ranked, the front from 0 to 4 INT8 layers ({errors})")
    sensitivities = [layer["sensitivity"] for layer in full["layers"]]
    checks.expect(sensitivities == sorted(sensitivities) and min(sensitivities) > 0,
                  f"auto report: layers from least to most sensitive ({sensitivities})")
    measured = relative_error(fp32_logits, logits(path("auto100.bin"), batches, work))
    checks.expect(abs(measured - errors[4]) <= 0.1 * errors[4],
                  f"auto: the front's error is the INT8 executable's ({errors[4]:.4g} vs {measured:.4g} measured)")

    # A budget between the front's errors: the longest prefix within it.
    budget = (errors[1] + errors[2]) / 2 if errors[2] > errors[1] else errors[1]
    proc = auto(path("auto_mid.bin"), f"{budget:.6g}")
    with open(path("auto_mid.bin.json")) as f:
        mid = json.load(f)
    chosen, front = mid["chosen"], mid["front"]
    within = front[chosen]["error"] <= budget and (chosen == len(front) - 1 or front[chosen + 1]["error"] > budget)
    checks.expect(within and f"{chosen} of 4 Conv/MatMul on integer kernels" in proc.stdout,
                  f"auto, budget {budget:.4g}: {chosen} layers INT8, the longest prefix within it "
                  f"({[row['error'] for row in front]})")
    measured = relative_error(fp32_logits, logits(path("auto_mid.bin"), batches, work))
    print(f"auto: budget {budget:.4g}, {chosen} of 4 layers INT8, error {front[chosen]['error']:.4g} "
          f"(measured {measured:.4g}); all INT8 {errors[4]:.4g}")
    checks.expect(abs(measured - front[chosen]["error"]) <= 0.1 * max(front[chosen]["error"], 1e-4),
                  f"auto: the chosen assignment's error is the executable's ({measured:.4g} measured)")


def check_fp16_weights(checks, cuvil, work):
    """--precision fp16-weights: MatMul weights packed in f16, arithmetic in f32. The outputs are
    ONNX Runtime's on the same model with its weights rounded to f16 (within f32 tolerance); a
    weight beyond f16's range keeps its MatMul f32."""
    from onnx import TensorProto, helper
    rng = np.random.default_rng(3)
    weights = {"w1": rng.normal(0, 0.05, (300, 517)), "w2": rng.normal(0, 0.05, (517, 70)),
               "w3": rng.normal(0, 0.05, (70, 10))}
    weights["w3"][3, 4] = 1e5  # beyond f16: that MatMul stays f32
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h1"]), helper.make_node("Relu", ["h1"], ["r1"]),
             helper.make_node("Gemm", ["r1", "w2", "b2"], ["h2"]), helper.make_node("Tanh", ["h2"], ["t2"]),
             helper.make_node("MatMul", ["t2", "w3"], ["y"])]

    bias = numpy_helper.from_array(rng.normal(0, 0.1, 70).astype(np.float32), "b2")

    def model(values, path):
        inits = [numpy_helper.from_array(v.astype(np.float32), k) for k, v in values.items()] + [bias]
        graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 300])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 10])], inits)
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)

    path = os.path.join(work, "mlp.onnx")
    model(weights, path)
    rounded = {k: v if k == "w3" else v.astype(np.float16).astype(np.float64) for k, v in weights.items()}
    model(rounded, os.path.join(work, "mlp_rounded.onnx"))
    # One row (the tile widens the weights as it loads them) and 37 (widened once per chunk).
    for rows in (1, 37):
        exe = os.path.join(work, f"mlp_fp16_{rows}.bin")
        proc = e2e.compile(path, exe, ("--no-cache", "--precision", "fp16-weights", "--shape", f"x={rows}x300"),
                           cuvil=cuvil)
        checks.expect("2 of 3 MatMul weights in f16" in proc.stdout,
                      f"fp16-weights: the two MatMuls within f16's range pack f16 ({proc.stdout.strip()})")
        x = rng.normal(0, 1, (rows, 300)).astype(np.float32)
        ours = e2e.run_infer(exe, {"x": x}, work)["y"]
        reference = e2e.run_ort(os.path.join(work, "mlp_rounded.onnx"), {"x": x})["y"]
        unrounded = e2e.run_ort(path, {"x": x})["y"]
        relative = lambda a, b: float(np.linalg.norm(a - b) / np.linalg.norm(b))  # noqa: E731
        to_rounded, to_f32 = relative(ours, reference), relative(ours, unrounded)
        difference = np.abs(ours - reference) - (1e-4 + 1e-3 * np.abs(reference))
        checks.expect(difference.max() <= 0 and to_rounded < 0.1 * to_f32,
                      f"fp16-weights, {rows} rows: ONNX Runtime's outputs with the weights rounded to f16 "
                      f"(relative error {to_rounded:.3g}, against the f32 weights' {to_f32:.3g})")


def run_variant(exe, inputs, work, isa):
    """exe's outputs with the ISA variant forced by CUVIL_ISA (None: the one the CPU picks)."""
    if isa:
        os.environ["CUVIL_ISA"] = isa
    try:
        return e2e.run_infer(exe, inputs, work)
    finally:
        os.environ.pop("CUVIL_ISA", None)


def integer_weights(rng, K, N):
    """Weights k * s[n] that --precision int8 quantizes back to exactly k on x86-64 (with VNNI or
    the paired byte tile): k within [-30, 30] (any set of four sums within 128), each column's
    largest 127 (so its scale is s[n] and L 127) at K position 0, the rest of that set zero."""
    k = rng.integers(-30, 31, (K, N))
    k[[1, 4, 5], :] = 0
    k[0, :] = 127 * rng.choice([-1, 1], N)
    return k, rng.uniform(0.002, 0.01, N).astype(np.float32)


def quantize_rows(x):
    """cuvil.DynamicQuantizeRows in float32, row by row (the last axis): u8 values, scales, zero
    points."""
    x = x.astype(np.float32)
    lo = np.minimum(x.min(axis=-1, keepdims=True), np.float32(0))
    hi = np.maximum(x.max(axis=-1, keepdims=True), np.float32(0))
    scale = np.where(hi == lo, np.float32(1), (hi - lo) / np.float32(255)).astype(np.float32)
    zero = np.round(np.clip(np.float32(0) - lo / scale, 0, 255)).astype(np.float32)
    q = np.clip(np.round(x * (np.float32(1) / scale)) + zero, 0, 255)
    return q.astype(np.int64), scale, zero.astype(np.int64)


def check_dynamic_rows(checks, cuvil, work):
    """--precision int8 on MatMuls: activations quantized per row at run time
    (cuvil.DynamicQuantizeRows), products dequantized to f32 with the bias and activation in the
    epilogue (cuvil.MatMulIntegerToFloat), against that arithmetic in numpy: a 3-D input of 37
    rows (partial register tiles), 130 columns (a partial panel), K 96 (packed byte panels) and
    130 (widened i16 pairs), at the OPT shape and at another within the range (generic path)."""
    from onnx import TensorProto, helper
    rng = np.random.default_rng(5)
    k1, s1 = integer_weights(rng, 96, 130)
    k2, s2 = integer_weights(rng, 130, 20)
    b1 = rng.normal(0, 0.5, 130).astype(np.float32)
    inits = [numpy_helper.from_array((k1 * s1).astype(np.float32), "w1"), numpy_helper.from_array(b1, "b1"),
             numpy_helper.from_array((k2 * s2).astype(np.float32), "w2")]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Add", ["h", "b1"], ["hb"]),
             helper.make_node("Relu", ["hb"], ["r"]), helper.make_node("MatMul", ["r", "w2"], ["y"])]
    graph = helper.make_graph(nodes, "rows", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "m", 96])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", "m", 20])], inits)
    path = os.path.join(work, "rows.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    calibration = os.path.join(work, "calib_rows", "s0")
    os.makedirs(calibration)
    np.save(os.path.join(calibration, "x.npy"), rng.normal(0, 1, (2, 37, 96)).astype(np.float32))
    exe = os.path.join(work, "rows.bin")
    proc = e2e.compile(path, exe, ("--no-cache", "--precision", "int8", "--calibration", os.path.dirname(calibration),
                                   "--shape-range", "x=1x1x96:2x37x96:3x64x96"), cuvil=cuvil)
    checks.expect("2 of 2 Conv/MatMul on integer kernels" in proc.stdout,
                  f"dynamic rows: both MatMuls on integer kernels ({proc.stdout.strip()})")

    def reference(x):
        q, scale, zero = quantize_rows(x)
        h = ((q - zero) @ k1).astype(np.float32) * (scale * s1).astype(np.float32) + b1
        q, scale, zero = quantize_rows(np.maximum(h, 0))
        return ((q - zero) @ k2).astype(np.float32) * (scale * s2).astype(np.float32)

    # The variant this CPU picks, and AVX2's where that is another.
    info = subprocess.run([exe, "--info"], capture_output=True, text=True).stdout
    isas = [None] + ([] if "runs avx2" in info else ["avx2"])
    for shape, isa in itertools.product(((2, 37, 96), (3, 50, 96)), isas):
        # Transformer-like activations: a few large channels.
        x = rng.normal(0, 1, shape).astype(np.float32)
        x[..., [3, 40]] *= 20
        ours = run_variant(exe, {"x": x}, work, isa)["y"]
        expected = reference(x)
        fp32 = e2e.run_ort(path, {"x": x})["y"]
        error = float(np.abs(ours - expected).max() / np.abs(expected).max())
        quantization = float(np.abs(fp32 - expected).max() / np.abs(expected).max())
        checks.expect(error < 1e-4 < quantization,
                      f"dynamic rows {shape}, CUVIL_ISA={isa}: the per-row arithmetic (max error "
                      f"{error:.2g} of the largest output; FP32 is {quantization:.2g} off it)")


def bf16_round(values):
    """Each value rounded to bf16 (to nearest even), as float64."""
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32)
    return rounded.view(np.float32).astype(np.float64)


def check_bf16(checks, cuvil, work):
    """--precision bf16: MatMul weights packed in bf16 (a MatMul whose K is odd keeps f32). Where
    the CPU has AVX512_BF16 (the avx512bf16 variant) the activations entering those MatMuls are
    rounded to bf16 too and the products summed in f32: the outputs are numpy's on the rounded
    operands. Every other variant (forced with CUVIL_ISA) widens the weights: ONNX Runtime's
    outputs on the model with its weights rounded."""
    from onnx import TensorProto, helper
    rng = np.random.default_rng(4)
    w1, w2, w3 = rng.normal(0, 0.05, (300, 517)), rng.normal(0, 0.05, (517, 70)), rng.normal(0, 0.2, (70, 10))
    b2 = rng.normal(0, 0.1, 70)
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h1"]), helper.make_node("Relu", ["h1"], ["r1"]),
             helper.make_node("Gemm", ["r1", "w2", "b2"], ["h2"]), helper.make_node("Tanh", ["h2"], ["t2"]),
             helper.make_node("MatMul", ["t2", "w3"], ["y"])]

    def model(weights, path):
        inits = [numpy_helper.from_array(np.asarray(v, np.float32), k)
                 for k, v in zip(("w1", "w2", "w3", "b2"), weights)]
        graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 300])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 10])], inits)
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)

    path, widened_model = os.path.join(work, "mlp_bf16.onnx"), os.path.join(work, "mlp_bf16_rounded.onnx")
    model((w1, w2, w3, b2), path)
    model((bf16_round(w1), w2, bf16_round(w3), b2), widened_model)
    relative = lambda a, b: float(np.linalg.norm(a - b) / np.linalg.norm(b))  # noqa: E731
    rows = 37
    exe = os.path.join(work, "mlp_bf16.bin")
    proc = e2e.compile(path, exe, ("--no-cache", "--precision", "bf16", "--shape", f"x={rows}x300"), cuvil=cuvil)
    checks.expect("2 of 3 MatMul weights in bf16" in proc.stdout,
                  f"bf16: the two MatMuls of even K pack bf16 ({proc.stdout.strip()})")
    x = rng.normal(0, 1, (rows, 300)).astype(np.float32)
    unrounded = e2e.run_ort(path, {"x": x})["y"]
    widened = e2e.run_ort(widened_model, {"x": x})["y"]
    # The vdpbf16ps path: the MatMuls' activations rounded as well, sums in f32.
    h = np.maximum(bf16_round(x) @ bf16_round(w1), 0) @ w2 + b2
    dot = bf16_round(np.tanh(h).astype(np.float32)) @ bf16_round(w3)
    info = subprocess.run([exe, "--info"], capture_output=True, text=True).stdout
    has_bf16 = "runs avx512bf16" in info
    isas = [None] + (["avx512"] if has_bf16 or "runs avx512" in info else []) + ["avx2"]
    for isa in isas:
        ours = run_variant(exe, {"x": x}, work, isa)["y"]
        products = isa is None and has_bf16
        reference = dot if products else widened
        what = "bf16 products (vdpbf16ps)" if products else "bf16 weights widened to f32"
        error, to_f32 = relative(ours, reference), relative(ours, unrounded)
        difference = np.abs(ours - reference) - (1e-4 + 1e-3 * np.abs(reference))
        print(f"bf16, CUVIL_ISA={isa}: {what}, relative error {error:.3g} (to the f32 model's {to_f32:.3g})")
        checks.expect(difference.max() <= 0 and error < 0.1 * to_f32,
                      f"bf16, CUVIL_ISA={isa}: {what} match their reference (relative error {error:.3g}, "
                      f"against the f32 model's {to_f32:.3g})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", help="cuvil binary (default: $CUVIL_BIN)")
    args = parser.parse_args()
    checks = e2e.Checks()
    with tempfile.TemporaryDirectory(prefix="cuvil-precision-") as work:
        path = lambda *names: os.path.join(work, *names)  # noqa: E731
        model = path("digits.onnx")
        train, test = train_digits_cnn(model)
        batches = [train[0][i * BATCH:(i + 1) * BATCH] for i in range(CALIBRATION_BATCHES)]
        write_npy_set(path("calib_npy"), batches)
        write_test_data_set(path("calib_pb"), batches)
        # Without the compile cache: every compile below calibrates or reads the kept ranges.
        compile = lambda out, *extra: e2e.compile(model, out, ("--no-cache",) + extra,  # noqa: E731
                                                  cuvil=args.cuvil)

        compile(path("fp32.bin"))
        fp32 = top1(path("fp32.bin"), test[0], work)
        reference = e2e.run_ort(model, {"image": test[0][:BATCH]})["logits"].argmax(axis=1)
        checks.expect(np.array_equal(fp32[:BATCH], reference), "FP32 predictions equal ONNX Runtime's")
        fp32_accuracy = 100.0 * np.mean(fp32 == test[1])
        checks.expect(fp32_accuracy > 90, f"the trained CNN is a classifier (FP32 top-1 {fp32_accuracy:.1f}%)")

        for method in ("minmax", "percentile", "entropy"):
            exe = path(f"int8_{method}.bin")
            proc = compile(exe, "--precision", "int8", "--calibration", path("calib_npy"),
                           "--calibration-method", method)
            checks.expect("4 of 4 Conv/MatMul on integer kernels" in proc.stdout,
                          f"{method}: every Conv and the MatMul run on integer kernels")
            int8 = top1(exe, test[0], work)
            accuracy = 100.0 * np.mean(int8 == test[1])
            agreement = 100.0 * np.mean(int8 == fp32)
            print(f"{method}: INT8 top-1 {accuracy:.2f}% vs FP32 {fp32_accuracy:.2f}% "
                  f"({agreement:.1f}% same prediction)")
            checks.expect(accuracy >= fp32_accuracy - MAX_TOP1_LOSS,
                          f"{method}: INT8 top-1 within {MAX_TOP1_LOSS} points of FP32")

        # The ranges are kept next to the output and reused while nothing they depend on changes.
        exe = path("int8_minmax.bin")
        again = compile(exe, "--precision", "int8", "--calibration", path("calib_npy"))
        checks.expect(f"ranges from {exe}.ranges" in again.stdout, "a recompile reuses the kept ranges")
        # The ONNX test data layout gives the same ranges.
        exe_pb = path("int8_pb.bin")
        compile(exe_pb, "--precision", "int8", "--calibration", path("calib_pb"))
        checks.expect(ranges_body(exe + ".ranges") == ranges_body(exe_pb + ".ranges"),
                      "test_data_set_N/input_K.pb calibrates as NAME.npy folders do")
        check_auto(checks, compile, path, batches, test[0], work)
        check_fp16_weights(checks, args.cuvil, work)
        check_bf16(checks, args.cuvil, work)
        check_dynamic_rows(checks, args.cuvil, work)
        np.save(path("calib_npy", "sample0", "image.npy"), batches[0] * 2)
        changed = compile(exe, "--precision", "int8", "--calibration", path("calib_npy"))
        checks.expect("calibrated on 4 samples" in changed.stdout, "a changed sample recalibrates")

        # Errors name what is wrong; none crashes.
        def fails(what, expected, *extra):
            proc = e2e.compile(model, path("bad.bin"), extra, cuvil=args.cuvil, check=False)
            checks.expect(proc.returncode == 1 and expected in proc.stderr,
                          f"{what}: exit 1, '{expected}' ({proc.returncode}: {proc.stderr.strip()})")
        fails("int8 without a calibration set", "needs --calibration", "--precision", "int8")
        fails("an unknown policy", "is not one of", "--precision", "int3")
        fails("auto without a budget", "needs --accuracy-budget", "--precision", "auto",
              "--calibration", path("calib_npy"))
        fails("a budget without auto", "is --precision auto's", "--accuracy-budget", "1%")
        fails("a budget that is not a number", "is not a number", "--precision", "auto",
              "--calibration", path("calib_npy"), "--accuracy-budget", "one")
        os.makedirs(path("calib_missing", "s0"))
        fails("a sample without the input", "has no file for input 'image'", "--precision", "int8",
              "--calibration", path("calib_missing"))
        os.makedirs(path("calib_int", "s0"))
        np.save(path("calib_int", "s0", "image.npy"), np.zeros((BATCH, 1, 8, 8), np.int64))
        fails("a sample of the wrong type", "input 'image' is i64, the model takes f32",
              "--precision", "int8", "--calibration", path("calib_int"))
        os.makedirs(path("calib_shape", "s0"))
        np.save(path("calib_shape", "s0", "image.npy"), np.zeros((BATCH, 1, 9, 8), np.float32))
        fails("a sample of the wrong shape", "calibration sample", "--precision", "int8",
              "--calibration", path("calib_shape"))
    if checks.failures:
        print(f"{len(checks.failures)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
