#!/usr/bin/env python3
"""infer.bin --profile names each call right when control flow skips or repeats calls.

A model with an If (a MatMul in one branch, a Neg in the other) and a Loop
(an Exp run five times) is profiled with the condition false, then true: the
calls of the branch not taken must never have been recorded (no bound: "-"),
those of the branch taken and of the loop body must have been, and the
profiled run must still match ONNX Runtime. (The profiler once numbered calls in the order they
ran, which shifted every name after a skipped branch.)

    python tests/e2e/test_profile.py --cuvil PATH
"""

import argparse
import os
import re
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuvil_e2e as e2e  # noqa: E402


def model():
    f32 = lambda name, shape: helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)  # noqa: E731
    then_branch = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["product"])], "then", [],
                                    [f32("product", (64, 64))])
    else_branch = helper.make_graph([helper.make_node("Neg", ["x"], ["negated"])], "else", [],
                                    [f32("negated", (64, 64))])
    body = helper.make_graph(
        [helper.make_node("Exp", ["v_in"], ["v_out"]), helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, ()),
                 helper.make_tensor_value_info("cond_in", TensorProto.BOOL, ()), f32("v_in", (64, 64))],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, ()), f32("v_out", (64, 64))])
    nodes = [helper.make_node("If", ["c"], ["y"], name="choose", then_branch=then_branch,
                              else_branch=else_branch),
             helper.make_node("Mul", ["y", "tiny"], ["small"]),
             helper.make_node("Loop", ["trips", "", "small"], ["z"], name="repeat", body=body)]
    rng = np.random.default_rng(5)
    inits = [numpy_helper.from_array((rng.standard_normal((64, 64)) * 0.1).astype(np.float32), "w"),
             numpy_helper.from_array(np.array(0.01, np.float32), "tiny"),
             numpy_helper.from_array(np.array(5, np.int64), "trips")]
    graph = helper.make_graph(nodes, "profiled", [helper.make_tensor_value_info("c", TensorProto.BOOL, ()),
                                                  f32("x", (64, 64))], [f32("z", (64, 64))], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


ROW = re.compile(r"^\s*[\d.]+\s+[\d.]+%\s+(\S+)\s+\S+\s+\d+\s+\S+ node '([^']*)'")


def recorded_nodes(text):
    """{node: whether each of its calls was recorded} from a --profile table
    (a call never made has no bound)."""
    recorded = {}
    for m in filter(None, map(ROW.match, text.splitlines())):
        recorded[m.group(2)] = recorded.get(m.group(2), True) and m.group(1) != "-"
    return recorded


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", default=None)
    args = parser.parse_args(argv)
    failures = []
    with tempfile.TemporaryDirectory(prefix="cuvil_profile_") as workdir:
        path = os.path.join(workdir, "profiled.onnx")
        onnx.save(model(), path)
        exe = os.path.join(workdir, "profiled.bin")
        e2e.compile(path, exe, cuvil=args.cuvil)
        x = np.random.default_rng(6).standard_normal((64, 64)).astype(np.float32)
        for condition, taken, skipped in [(False, "negated", "product"), (True, "product", "negated")]:
            inputs = {"c": np.array(condition), "x": x}
            input_args = e2e.write_inputs(inputs, os.path.join(workdir, f"in_{condition}"))
            proc = e2e.run_process([*e2e.executable(exe), *input_args, "--bench", "3", "--threads", "1",
                                    "--profile"])
            if proc.returncode != 0:
                raise e2e.CuvilError("profiled.bin", proc)
            recorded = recorded_nodes(proc.stdout)
            def node(prefix):  # the call(s) of the node whose name starts so
                return [ok for name, ok in recorded.items() if name.startswith(prefix)]
            checks = {f"'{taken}' of the branch taken is recorded": node(taken) and all(node(taken)),
                      f"'{skipped}' of the branch skipped is not": node(skipped) and not any(node(skipped)),
                      "the loop body's 'v_out' is recorded": node("v_out") and all(node("v_out"))}
            for what, ok in checks.items():
                if not ok:
                    failures.append(f"c={condition}: {what}:\n{proc.stdout}")
            ours = e2e.run_infer(exe, inputs, os.path.join(workdir, f"run_{condition}"))
            ref = e2e.run_ort(path, inputs)
            for name, value in ref.items():
                if not e2e.compare(ours[e2e.sanitise(name)], value).ok:
                    failures.append(f"c={condition}: output {name} differs from ONNX Runtime")
    for failure in failures:
        print("FAIL", failure)
    print(f"{'PASS' if not failures else 'FAIL'}: profile attribution under If and Loop")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
