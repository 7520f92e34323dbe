"""The runtimes cuvil is measured against: ONNX Runtime and OpenVINO.

Each peer opens a model for a thread count and runs it on a dict of numpy
inputs. Both are given the numerics mode infer.bin runs in (subnormals
flushed to zero) and their fastest FP32 CPU path:
- ONNX Runtime: CPUExecutionProvider, ORT_ENABLE_ALL, intra_op_num_threads=T,
  sequential execution, session.set_denormal_as_zero;
- OpenVINO: CPU plugin, PERFORMANCE_HINT LATENCY, INFERENCE_PRECISION_HINT f32,
  INFERENCE_NUM_THREADS T, CPU_DENORMALS_OPTIMIZATION on, inputs shared with
  the infer request (no copy).

Timing from Python includes each binding's per-call overhead; neither wheel
ships its C++ benchmark tool, so `binding_overhead_ms` measures that overhead
on a one-element Identity model and the reports quote it.
"""

import os
import statistics
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
import cuvil_e2e as e2e  # noqa: E402


class OnnxRuntimePeer:
    name = "ORT"

    def __init__(self, model_path, threads):
        self.session = e2e.ort_session(model_path, threads, denormals_as_zero=True)

    def run(self, inputs):
        return self.session.run(None, inputs)

    @staticmethod
    def version():
        import onnxruntime
        return f"ONNX Runtime {onnxruntime.__version__}"


class OpenVinoPeer:
    name = "OpenVINO"

    def __init__(self, model_path, threads):
        import openvino as ov
        compiled = ov.Core().compile_model(model_path, "CPU", {
            "PERFORMANCE_HINT": "LATENCY",
            "INFERENCE_PRECISION_HINT": "f32",
            "INFERENCE_NUM_THREADS": str(threads),
            "CPU_DENORMALS_OPTIMIZATION": "YES",
        })
        self.request = compiled.create_infer_request()

    def run(self, inputs):
        return self.request.infer(inputs, share_inputs=True)

    @staticmethod
    def version():
        import openvino
        return f"OpenVINO {openvino.__version__.split('-')[0]}"


def available():
    """The peers whose Python package imports here (ORT always: the tests need it)."""
    peers = [OnnxRuntimePeer]
    try:
        import openvino  # noqa: F401
        peers.append(OpenVinoPeer)
    except ImportError:
        print("openvino is not installed (scripts/install-deps.sh zoo): ORT is the only peer",
              file=sys.stderr)
    return peers


def open_peer(peer, model_path, threads):
    """The peer's runner for the model, or None (with the reason printed) when
    the peer cannot load or compile it: a model a peer cannot run is reported,
    not fatal."""
    try:
        return peer(model_path, threads)
    except Exception as exc:  # each runtime raises its own exception types
        print(f"{peer.name} cannot run {os.path.basename(model_path)}: {str(exc).splitlines()[0][:200]}",
              file=sys.stderr)
        return None


def time_runs(runner, inputs, runs):
    """Time `runs` calls individually; return the times in ms."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        runner.run(inputs)
        times.append((time.perf_counter() - start) * 1e3)
    return times


def binding_overhead_ms(peer, runs=2000):
    """Median time of one call on a one-element Identity model: the part of
    every timed call that is the Python binding, not the model."""
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "identity",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    with tempfile.TemporaryDirectory(prefix="cuvil_peer_") as scratch:
        path = os.path.join(scratch, "identity.onnx")
        onnx.save(model, path)
        runner = open_peer(peer, path, 1)
        if runner is None:
            return None
        inputs = {"x": np.ones(1, np.float32)}
        time_runs(runner, inputs, 100)
        return statistics.median(time_runs(runner, inputs, runs))
