#!/usr/bin/env python3
"""The compile cache: hits are byte-identical to fresh compiles, any change to what decides the output misses,
concurrent builders compile once, and the cache stays within its bound.

    python tests/e2e/test_cache.py --cuvil PATH
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cuvil_e2e as e2e  # noqa: E402

EXAMPLE = os.path.join(HERE, "..", "..", "models", "example")
MODEL = os.path.join(EXAMPLE, "tiny_cnn.onnx")
HIT = "(from the cache"


def compile_model(cuvil, model, output, cache, *extra):
    """(hit?, seconds) of one compile; raises on failure."""
    start = time.perf_counter()
    proc = subprocess.run([e2e.cuvil_path(cuvil), "compile", "--input", model, "--output", output,
                           "--cache-dir", cache, *extra], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"compile failed: {proc.stderr}")
    return HIT in proc.stdout, seconds


def same_bytes(*paths):
    contents = [open(p, "rb").read() for p in paths]
    return all(c == contents[0] for c in contents)


def probs(exe, work, image):
    return e2e.run_infer(exe, {"image": image}, work)["probs"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", help="cuvil binary (default: $CUVIL_BIN)")
    args = parser.parse_args()
    image = np.load(os.path.join(EXAMPLE, "image.npy"))
    expected = np.load(os.path.join(EXAMPLE, "expected_probs.npy"))
    checks = e2e.Checks()
    with tempfile.TemporaryDirectory(prefix="cuvil-cache-") as work:
        cache = os.path.join(work, "cache")
        out = lambda name: os.path.join(work, name)  # noqa: E731

        hit, miss_s = compile_model(args.cuvil, MODEL, out("a.bin"), cache)
        checks.expect(not hit, f"first compile misses ({miss_s:.2f} s)")
        hit, hit_s = compile_model(args.cuvil, MODEL, out("b.bin"), cache)
        checks.expect(hit, f"second compile hits ({hit_s * 1000:.0f} ms)")
        subprocess.run([e2e.cuvil_path(args.cuvil), "compile", "--input", MODEL, "--output", out("c.bin"),
                        "--no-cache", "-q"], check=True)
        checks.expect(same_bytes(out("a.bin"), out("b.bin"), out("c.bin")),
                      "the hit is byte-identical to the fresh compiles")
        checks.expect(np.abs(probs(out("b.bin"), work, image) - expected).max() < 1e-5,
                      "the restored executable computes ONNX Runtime's output")

        hit, _ = compile_model(args.cuvil, MODEL, out("v3.bin"), cache, "--cpu", "x86-64-v3")
        checks.expect(not hit, "another --cpu misses")
        os.makedirs(out("lib"))
        for emit in ("lib", "lib", "shared"):
            hit, _ = compile_model(args.cuvil, MODEL, out("lib/tiny"), cache, "--emit", emit)
        checks.expect(hit is False, "--emit shared misses after --emit lib")
        hit, _ = compile_model(args.cuvil, MODEL, out("lib/other"), cache, "--emit", "lib")
        checks.expect(not hit, "a library of another name misses")

        # The model's bytes and its external data's decide the key.
        model = onnx.load(MODEL)
        data_dir = out("external")
        os.makedirs(data_dir)
        external = os.path.join(data_dir, "model.onnx")
        onnx.save(model, external, save_as_external_data=True, all_tensors_to_one_file=True,
                  location="weights.bin", size_threshold=0)
        hit, _ = compile_model(args.cuvil, external, out("e1.bin"), cache)
        checks.expect(not hit, "a model with external data misses")
        hit, _ = compile_model(args.cuvil, external, out("e2.bin"), cache)
        checks.expect(hit, "it hits unchanged")
        model = onnx.load(MODEL)  # saving moved the first copy's data out
        weight = model.graph.initializer[0]
        changed = numpy_helper.to_array(weight) * -1.0
        weight.CopyFrom(numpy_helper.from_array(changed.astype(np.float32), weight.name))
        onnx.save(model, external, save_as_external_data=True, all_tensors_to_one_file=True,
                  location="weights.bin", size_threshold=0)
        hit, _ = compile_model(args.cuvil, external, out("e3.bin"), cache)
        checks.expect(not hit, "changed external data misses")
        ort = e2e.run_ort(external, {"image": image})["probs"]
        checks.expect(np.abs(probs(out("e3.bin"), work, image) - ort).max() < 1e-5,
                      "and computes the changed model's output")

        # Eight builders at once on a fresh cache: one compiles, all get it.
        fresh = os.path.join(work, "fresh")
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            results = list(pool.map(lambda i: compile_model(args.cuvil, MODEL, out(f"p{i}.bin"), fresh),
                                    range(8)))
        compiled = sum(not hit for hit, _ in results)
        checks.expect(compiled == 1, f"8 concurrent compiles: {compiled} compiled, {8 - compiled} hit")
        checks.expect(same_bytes(*(out(f"p{i}.bin") for i in range(8))) and same_bytes(out("p0.bin"), out("a.bin")),
                      "their 8 outputs are identical")
        leftovers = os.listdir(os.path.join(fresh, "tmp"))
        checks.expect(not leftovers, f"no temporaries left ({leftovers})")

        stats = subprocess.run([e2e.cuvil_path(args.cuvil), "cache", "stats", "--cache-dir", cache],
                               capture_output=True, text=True, check=True).stdout
        checks.expect(" 7 entries" in stats, f"stats: {stats.strip()}")
        pruned = subprocess.run([e2e.cuvil_path(args.cuvil), "cache", "prune", "--max-size", "1",
                                 "--cache-dir", cache], capture_output=True, text=True, check=True).stdout
        checks.expect(" 0 entries" in pruned, f"prune to 1 byte: {pruned.strip()}")
        compile_model(args.cuvil, MODEL, out("d.bin"), cache)
        hit, _ = compile_model(args.cuvil, MODEL, out("d3.bin"), cache, "--cpu", "x86-64-v3",
                               "--cache-max-size", "1")
        entries = os.listdir(os.path.join(cache, "entries"))
        checks.expect(not hit and len(entries) == 1,
                      f"beyond --cache-max-size, older entries are evicted ({len(entries)} left: the new one)")
        for command in (["compile", "--input", MODEL, "--output", out("x.bin"), "--cache-max-size", "5X"],
                        ["cache", "prune", "--max-size", "-1", "--cache-dir", cache],
                        ["cache", "frob", "--cache-dir", cache]):
            proc = subprocess.run([e2e.cuvil_path(args.cuvil), *command], capture_output=True, text=True)
            checks.expect(proc.returncode == 1 and "error:" in proc.stderr,
                          f"cuvil {' '.join(command[:2])} ... refused: {proc.stderr.strip()}")
    print(f"{len(checks.failures)} failed" if checks.failures else "all passed")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
