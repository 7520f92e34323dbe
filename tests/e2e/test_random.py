#!/usr/bin/env python3
"""Random ops: RandomUniform, RandomNormal, their Like forms, Bernoulli, Multinomial, training-mode Dropout.

    python tests/e2e/test_random.py --cuvil PATH

No peer draws the same numbers, so the reference is a naive Philox4x32-10
written here (checked against Random123's known answers), which a seeded
node's numbers must reproduce (uniform to the last bit, normal to 1e-4;
the kernel's log and cos are polynomials); the distributions are checked
by their moments and frequencies on large draws; unseeded draws must differ
between processes and seeded ones must not; `--bench` must accept outputs
that change from run to run.
"""

import argparse
import os
import struct
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuvil_e2e as e2e  # noqa: E402

MASK = np.uint64(0xFFFFFFFF)
RUN = 1  # infer.bin writes its first run's outputs; cuvil_run numbers runs from 1


def philox_words(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 on uint64 arrays holding 32-bit words."""
    c0, c1, c2, c3 = (np.asarray(c, np.uint64) for c in (c0, c1, c2, c3))
    k0, k1 = np.uint64(k0), np.uint64(k1)
    for round_ in range(10):
        if round_:
            k0, k1 = (k0 + np.uint64(0x9E3779B9)) & MASK, (k1 + np.uint64(0xBB67AE85)) & MASK
        p0, p1 = np.uint64(0xD2511F53) * c0, np.uint64(0xCD9E8D57) * c2
        c0, c1, c2, c3 = (p1 >> np.uint64(32)) ^ c1 ^ k0, p1 & MASK, (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & MASK
    return c0, c1, c2, c3


KNOWN_ANSWERS = [  # Random123's kat_vectors for philox4x32_10
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


def stream_of(name):
    """FNV-1a of the node's first output name, as RandomCommon.cpp derives it."""
    h = 0xCBF29CE484222325
    for byte in name.encode():
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def words(seed, name, count):
    key = struct.unpack("<I", struct.pack("<f", seed))[0]
    stream = stream_of(name)
    index = np.arange(count, dtype=np.uint64)
    return philox_words(index & MASK, index >> np.uint64(32), np.uint64((stream ^ (stream >> 32)) & 0xFFFFFFFF),
                        np.uint64(RUN), key & 0xFFFFFFFF, key >> 32)


def unit(word):
    return (word >> np.uint64(8)).astype(np.float64) * 2.0 ** -24


def reference_uniform(seed, name, count, low, high):
    return (low + (high - low) * unit(words(seed, name, count)[0])).astype(np.float32)


def reference_normal(seed, name, count, mean, scale):
    w = words(seed, name, count)
    u1, u2 = 1.0 - unit(w[0]), unit(w[1])
    return mean + scale * np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


def model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "random", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def tensor(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


class Runner:
    def __init__(self, cuvil, work):
        self.cuvil, self.work, self.count = cuvil, work, 0

    def compile(self, onnx_model, args=()):
        self.count += 1
        path = os.path.join(self.work, f"m{self.count}.onnx")
        onnx.save(onnx_model, path)
        exe = os.path.join(self.work, f"m{self.count}.bin")
        e2e.compile(path, exe, list(args), cuvil=self.cuvil)
        return path, exe

    def run(self, path, exe, feeds=None):
        self.count += 1
        return e2e.cuvil_outputs(path, exe, feeds or {}, os.path.join(self.work, f"run{self.count}"))


def check_known_answers(checks):
    for counter, key, expected in KNOWN_ANSWERS:
        got = tuple(int(w) for w in philox_words(*counter, *key))
        checks.expect(got == expected, f"reference Philox4x32-10 matches Random123 for counter {counter[0]:#x}")


def check_seeded(runner, checks):
    n = 4099
    nodes = [helper.make_node("RandomUniform", [], ["u"], shape=[n], low=-2.0, high=3.0, seed=7.0),
             helper.make_node("RandomNormal", [], ["z"], shape=[n], mean=1.0, scale=2.0, seed=7.0),
             helper.make_node("RandomNormal", [], ["d"], shape=[n], dtype=TensorProto.DOUBLE, seed=3.5),
             helper.make_node("RandomUniform", [], ["h"], shape=[n], dtype=TensorProto.FLOAT16, seed=1.0)]
    path, exe = runner.compile(model(nodes, [], [tensor("u", TensorProto.FLOAT, [n]),
                                                  tensor("z", TensorProto.FLOAT, [n]),
                                                  tensor("d", TensorProto.DOUBLE, [n]),
                                                  tensor("h", TensorProto.FLOAT16, [n])]))
    first, second = runner.run(path, exe), runner.run(path, exe)
    expected_u = reference_uniform(7.0, "u", n, -2.0, 3.0)
    ulps = np.abs(first["u"].view(np.int32).astype(np.int64) - expected_u.view(np.int32).astype(np.int64))
    checks.expect(first["u"].dtype == np.float32 and int(ulps.max()) <= 1,
                  f"seeded RandomUniform: the reference's numbers within {int(ulps.max())} ulp")
    checks.expect(float(first["u"].min()) >= -2.0 and float(first["u"].max()) < 3.0,
                  f"RandomUniform in [low, high): {first['u'].min():.4f} .. {first['u'].max():.4f}")
    worst = float(np.max(np.abs(first["z"] - reference_normal(7.0, "z", n, 1.0, 2.0))))
    checks.expect(worst < 1e-4, f"seeded RandomNormal: the reference's numbers within {worst:.2e}")
    worst = float(np.max(np.abs(first["d"] - reference_normal(3.5, "d", n, 0.0, 1.0))))
    checks.expect(first["d"].dtype == np.float64 and worst < 1e-4,
                  f"RandomNormal dtype double: within {worst:.2e}")
    expected_h = reference_uniform(1.0, "h", n, 0.0, 1.0).astype(np.float16)
    checks.expect(first["h"].dtype == np.float16 and np.array_equal(first["h"], expected_h),
                  "RandomUniform dtype float16: the reference's numbers rounded to f16")
    checks.expect(all(np.array_equal(first[k], second[k]) for k in first),
                  "seeded draws: the same numbers in another process")


def check_unseeded(runner, checks):
    n = 200_000
    nodes = [helper.make_node("RandomNormal", [], ["z"], shape=[n], mean=-1.0, scale=3.0),
             helper.make_node("RandomUniform", [], ["u"], shape=[n], low=2.0, high=6.0)]
    path, exe = runner.compile(model(nodes, [], [tensor("z", TensorProto.FLOAT, [n]),
                                                  tensor("u", TensorProto.FLOAT, [n])]))
    first, second = runner.run(path, exe), runner.run(path, exe)
    z, u = first["z"].astype(np.float64), first["u"].astype(np.float64)
    checks.expect(abs(z.mean() + 1.0) < 0.03 and abs(z.std() / 3.0 - 1) < 0.01,
                  f"RandomNormal(-1, 3): mean {z.mean():.4f}, std {z.std():.4f}")
    within = [np.mean(np.abs(z + 1.0) < 3.0 * k) for k in (1, 2)]
    checks.expect(abs(within[0] - 0.6827) < 0.005 and abs(within[1] - 0.9545) < 0.003,
                  f"RandomNormal: {within[0]:.4f} within 1 sd, {within[1]:.4f} within 2")
    counts = np.histogram(u, bins=20, range=(2.0, 6.0))[0]
    chi2 = float(((counts - n / 20) ** 2 / (n / 20)).sum())
    checks.expect(u.min() >= 2.0 and u.max() < 6.0 and chi2 < 45.0,
                  f"RandomUniform(2, 6): 20-bin chi-square {chi2:.1f} (19 degrees of freedom)")
    checks.expect(not np.array_equal(first["z"], second["z"]), "unseeded draws differ between processes")
    proc = e2e.run_process([exe, "--bench", "3"])
    checks.expect(proc.returncode == 0, f"--bench accepts outputs that change from run to run: "
                                        f"exit {proc.returncode} {proc.stderr.strip()[:200]}")


def check_like_symbolic(runner, checks):
    nodes = [helper.make_node("RandomUniformLike", ["x"], ["u"], seed=11.0)]
    path, exe = runner.compile(model(nodes, [tensor("x", TensorProto.FLOAT, ["n", 64])],
                                     [tensor("u", TensorProto.FLOAT, ["n", 64])]),
                               ["--shape-range", "x=1x64:4x64:16x64"])
    got = runner.run(path, exe, {"x": np.zeros((10, 64), np.float32)})["u"]
    expected = reference_uniform(11.0, "u", 640, 0.0, 1.0).reshape(10, 64)
    checks.expect(got.shape == (10, 64) and np.max(np.abs(got - expected)) <= 6e-8,
                  f"RandomUniformLike of a run-time shape 10x64: the reference's numbers ({got.shape})")


def check_bernoulli(runner, checks):
    n = 40_000
    p = np.full(n, 0.3, np.float32)
    p[: n // 2] = 0.8
    nodes = [helper.make_node("Bernoulli", ["p"], ["y"], seed=5.0)]
    path, exe = runner.compile(model(nodes, [tensor("p", TensorProto.FLOAT, [n])],
                                     [tensor("y", TensorProto.FLOAT, [n])], opset=15))
    y = runner.run(path, exe, {"p": p})["y"]
    low, high = float(y[n // 2:].mean()), float(y[: n // 2].mean())
    checks.expect(set(np.unique(y).tolist()) <= {0.0, 1.0} and abs(low - 0.3) < 0.015 and abs(high - 0.8) < 0.015,
                  f"Bernoulli: frequencies {high:.4f} (p 0.8) and {low:.4f} (p 0.3)")


def check_multinomial(runner, checks):
    samples = 20_000
    logits = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]], np.float32))
    nodes = [helper.make_node("Multinomial", ["x"], ["y"], sample_size=samples, seed=2.0,
                              dtype=TensorProto.INT64)]
    path, exe = runner.compile(model(nodes, [tensor("x", TensorProto.FLOAT, [2, 4])],
                                     [tensor("y", TensorProto.INT64, [2, samples])]))
    y = runner.run(path, exe, {"x": logits})["y"]
    freq = np.stack([np.bincount(row, minlength=4) / samples for row in y])
    worst = float(np.max(np.abs(freq - np.exp(logits))))
    checks.expect(y.dtype == np.int64 and worst < 0.015,
                  f"Multinomial: frequencies within {worst:.4f} of softmax {np.round(freq, 3).tolist()}")
    u = unit(words(2.0, "y", 2 * samples)[0]).reshape(2, samples)
    cdf = np.cumsum(np.exp(logits.astype(np.float64) - logits.max(1, keepdims=True)), axis=1)
    expected = np.stack([np.minimum(np.searchsorted(cdf[b], u[b] * cdf[b, -1], side="right"), 3)
                         for b in range(2)])
    differ = int(np.sum(expected != y))
    checks.expect(differ <= 4, f"seeded Multinomial: {differ} of {2 * samples} samples unlike the reference's")


def check_dropout(runner, checks):
    n = 50_000
    ratio = numpy_helper.from_array(np.array(0.25, np.float32), "ratio")
    training = numpy_helper.from_array(np.array(True), "training")
    nodes = [helper.make_node("Dropout", ["x", "ratio", "training"], ["y", "mask"], seed=4),
             helper.make_node("Dropout", ["x", "r", "training"], ["y2"])]
    path, exe = runner.compile(model(nodes, [tensor("x", TensorProto.FLOAT, [n]), tensor("r", TensorProto.FLOAT, [])],
                                     [tensor("y", TensorProto.FLOAT, [n]), tensor("mask", TensorProto.BOOL, [n]),
                                      tensor("y2", TensorProto.FLOAT, [n])], [ratio, training], opset=13))
    x = np.random.default_rng(1).uniform(1.0, 2.0, n).astype(np.float32)
    out = runner.run(path, exe, {"x": x, "r": np.array(0.5, np.float32)})
    y, mask, y2 = out["y"], out["mask"], out["y2"]
    scale = np.float32(1) / (np.float32(1) - np.float32(0.25))  # as ONNX Runtime scales
    consistent = np.array_equal(y[mask], (x * scale)[mask]) and not np.any(y[~mask])
    checks.expect(consistent and abs(mask.mean() - 0.75) < 0.01,
                  f"training Dropout (ratio 0.25): kept {mask.mean():.4f}, kept ones scaled by 1/0.75")
    kept = y2 != 0
    checks.expect(abs(kept.mean() - 0.5) < 0.01 and np.array_equal(y2[kept], 2 * x[kept]),
                  f"training Dropout, ratio 0.5 given at run time: kept {kept.mean():.4f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", default=os.environ.get("CUVIL_BIN"))
    args = parser.parse_args()
    checks = e2e.Checks()
    check_known_answers(checks)
    with tempfile.TemporaryDirectory(prefix="cuvil-random-") as work:
        runner = Runner(e2e.cuvil_path(args.cuvil), work)
        for check in (check_seeded, check_unseeded, check_like_symbolic, check_bernoulli, check_multinomial,
                      check_dropout):
            check(runner, checks)
    print(f"{len(checks.failures)} failed" if checks.failures else "all passed")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
