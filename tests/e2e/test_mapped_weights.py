#!/usr/bin/env python3
"""Weights kept in a section of infer.bin that is mapped at start-up (--map-weights, and always from 2 GiB on).

    python tests/e2e/test_mapped_weights.py --cuvil PATH [--large]

A convolution + MatMul model compiled with and without --map-weights: both
executables agree bit for bit and with ONNX Runtime; --info names the
section; the mapped one still runs after `strip` and from another
directory, and one whose section was removed is refused with a message
(exit 1). --large also compiles a MatMul with 2.2 GB of weights (beyond what
loaded data can reach) and checks it against numpy: minutes and ~7 GB of disk,
so it is run by hand, not by CTest.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuvil_e2e as e2e  # noqa: E402

SECTION = ".cuvil_weights"


def conv_matmul_model():
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.standard_normal((16, 3, 3, 3)).astype(np.float32) * 0.2, "w")
    b = numpy_helper.from_array(rng.standard_normal(16).astype(np.float32), "b")
    m = numpy_helper.from_array(rng.standard_normal((16 * 8 * 8, 300)).astype(np.float32) * 0.05, "m")
    shape = numpy_helper.from_array(np.array([1, -1], np.int64), "shape")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("Reshape", ["r", "shape"], ["f"]),
             helper.make_node("MatMul", ["f", "m"], ["y"], name="fc")]
    graph = helper.make_graph(nodes, "mapped", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 300])], [w, b, m, shape])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def check_small(cuvil, work, checks):
    path = os.path.join(work, "model.onnx")
    onnx.save(conv_matmul_model(), path)
    feeds = {"x": np.random.default_rng(4).standard_normal((1, 3, 8, 8)).astype(np.float32)}
    loaded, mapped = os.path.join(work, "loaded.bin"), os.path.join(work, "mapped.bin")
    e2e.compile(path, loaded, ["--no-cache"], cuvil=cuvil)
    e2e.compile(path, mapped, ["--no-cache", "--map-weights"], cuvil=cuvil)
    expected = e2e.cuvil_outputs(path, loaded, feeds, os.path.join(work, "run_loaded"))
    got = e2e.cuvil_outputs(path, mapped, feeds, os.path.join(work, "run_mapped"))
    checks.expect(np.array_equal(got["y"], expected["y"]), "--map-weights: outputs bit for bit the loaded build's")
    ok, report = e2e.compare_all(got, e2e.run_ort(path, feeds))
    checks.expect(ok, "--map-weights: outputs match ONNX Runtime " + "; ".join(report))
    sections = subprocess.run(["readelf", "-S", "-W", mapped], capture_output=True, text=True).stdout
    line = next((entry for entry in sections.splitlines() if f" {SECTION} " in entry), "")
    checks.expect(line and " A " not in line.split(SECTION)[1][:60],
                  f"the mapped build has a non-loaded section {SECTION}: {line.strip()}")
    info = e2e.run_process([mapped, "--info"]).stdout
    checks.expect(f"mapped from section {SECTION}" in info, "--info names the section")

    # Stripped, and run from elsewhere: the section is found through the mapping of the program.
    moved = os.path.join(work, "elsewhere", "stripped.bin")
    os.makedirs(os.path.dirname(moved))
    shutil.copy(mapped, moved)
    subprocess.run(["strip", moved], check=True)
    got = e2e.cuvil_outputs(path, moved, feeds, os.path.join(work, "run_stripped"))
    checks.expect(np.array_equal(got["y"], expected["y"]), "stripped and moved: outputs unchanged")

    # Without the section: refused at start-up, naming it.
    broken = os.path.join(work, "no_section.bin")
    subprocess.run(["objcopy", "--remove-section", SECTION, mapped, broken], check=True)
    args = e2e.write_inputs(feeds, os.path.join(work, "inputs"))
    proc = e2e.run_process([broken, *args, "--output-dir", os.path.join(work, "out_broken")])
    checks.expect(proc.returncode == 1 and f"has no section '{SECTION}'" in proc.stderr and broken in proc.stderr,
                  f"section removed: exit {proc.returncode}, {proc.stderr.strip()}")


def check_large(cuvil, work, checks):
    """y = x @ W with W of 23,500 x 23,500 floats (2.2 GB) in external data."""
    n = 23_500
    rng = np.random.default_rng(5)
    data = os.path.join(work, "large.data")
    # Written in slices to the external data file: a protobuf message cannot hold 2 GB.
    weights = np.memmap(data, mode="w+", dtype=np.float32, shape=(n, n))
    for row in range(0, n, 2000):
        weights[row:row + 2000] = rng.standard_normal((min(2000, n - row), n), dtype=np.float32)
    weights.flush()
    init = onnx.TensorProto(name="w", dims=[n, n], data_type=TensorProto.FLOAT,
                            data_location=onnx.TensorProto.EXTERNAL)
    for key, value in (("location", "large.data"), ("offset", "0"), ("length", str(n * n * 4))):
        init.external_data.add(key=key, value=value)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="fc")]
    graph = helper.make_graph(nodes, "large", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, n])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, n])], [init])
    path = os.path.join(work, "large.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    exe = os.path.join(work, "large.bin")
    proc = e2e.compile(path, exe, ["--no-cache"], cuvil=cuvil)
    print(proc.stdout.strip())
    checks.expect("mapped from the file" in proc.stdout, "2.2 GB of weights compile, mapped")
    x = rng.standard_normal((2, n), dtype=np.float32)
    got = e2e.cuvil_outputs(path, exe, {"x": x}, os.path.join(work, "run_large"))["y"]
    expected = x @ weights
    worst = float(np.max(np.abs(got - expected)) / np.max(np.abs(expected)))
    checks.expect(worst < 1e-5, f"2.2 GB MatMul matches numpy: worst error {worst:.2e} of the largest output")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", default=os.environ.get("CUVIL_BIN"))
    parser.add_argument("--large", action="store_true", help="also the 2.2 GB model (by hand)")
    args = parser.parse_args()
    cuvil = e2e.cuvil_path(args.cuvil)
    checks = e2e.Checks()
    with tempfile.TemporaryDirectory(prefix="cuvil-mapped-") as work:
        check_small(cuvil, work, checks)
        if args.large:
            check_large(cuvil, work, checks)
    print(f"{len(checks.failures)} failed" if checks.failures else "all passed")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
