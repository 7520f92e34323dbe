#!/usr/bin/env python3
"""Build systems compile models: a CMake project (find_package(Cuvil), cuvil_add_model, an INT8 build
from a calibration set) and a Make project (pattern rules with depfiles) against the installed compiler,
each rebuilding exactly when the model, its external data or a calibration sample changes.

    python tests/e2e/test_build_integration.py --build-dir BUILD
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cuvil_e2e as e2e  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
EXAMPLE = os.path.join(ROOT, "models", "example")


def run(args, cwd=None):
    proc = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}")
    return proc.stdout + proc.stderr


def classify(exe, image_file, work):
    out = os.path.join(work, "probs.f32")
    run([exe, image_file, out])
    return np.fromfile(out, np.float32).reshape(1, 10)


def save_model(path, scale, external):
    """The example model with its first weight scaled; its data in weights.bin when external."""
    model = onnx.load(os.path.join(EXAMPLE, "tiny_cnn.onnx"))
    weight = model.graph.initializer[0]
    weight.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(weight) * np.float32(scale), weight.name))
    if external:
        onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                  location="weights.bin", size_threshold=0)
    else:
        onnx.save(model, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", required=True, help="the compiler's build tree, installed from")
    args = parser.parse_args()
    image = np.load(os.path.join(EXAMPLE, "image.npy"))
    checks = e2e.Checks()
    with tempfile.TemporaryDirectory(prefix="cuvil-build-") as work:
        prefix = os.path.join(work, "prefix")
        run(["cmake", "--install", args.build_dir, "--prefix", prefix])
        cuvil = os.path.join(prefix, "bin", "cuvil")
        image_file = os.path.join(work, "image.f32")
        image.tofile(image_file)

        # CMake: configure, build, run; rebuild only after the model changes.
        source = os.path.join(work, "models")
        os.makedirs(source)
        model = os.path.join(source, "tiny_cnn.onnx")
        save_model(model, 1.0, external=False)
        calibration = os.path.join(work, "calibration")
        rng = np.random.default_rng(0)
        for i in range(2):
            os.makedirs(os.path.join(calibration, f"sample{i}"))
            np.save(os.path.join(calibration, f"sample{i}", "image.npy"),
                    np.clip(image + rng.normal(0, 0.1, image.shape), 0, 1).astype(np.float32))
        build = os.path.join(work, "cmake-build")
        run(["cmake", "-S", os.path.join(ROOT, "examples", "cmake"), "-B", build,
             f"-DCMAKE_PREFIX_PATH={prefix}", f"-DCUVIL_EXAMPLE_MODEL={model}",
             f"-DCUVIL_EXAMPLE_CALIBRATION={calibration}"])
        log = run(["cmake", "--build", build])
        checks.expect(log.count("cuvil: compiling") == 3,
                      "cmake --build compiles the library, the executable and the INT8 executable")
        checks.expect(os.path.exists(os.path.join(build, "tiny_cnn_int8.bin.ranges")),
                      "PRECISION int8 CALIBRATION calibrates the INT8 build (ranges kept beside it)")
        reference = e2e.run_ort(model, {"image": image})["probs"]
        checks.expect(np.abs(classify(os.path.join(build, "classify"), image_file, work) - reference).max() < 1e-5,
                      "classify (linked with cuvil_add_model's library) computes ONNX Runtime's output")
        ours = e2e.run_infer(os.path.join(build, "tiny_cnn_infer.bin"), {"image": image}, work)["probs"]
        checks.expect(np.abs(ours - reference).max() < 1e-5, "the EXECUTABLE model does too")
        # The INT8 build is what the same compile by hand gives (its accuracy: precision_int8).
        int8 = e2e.run_infer(os.path.join(build, "tiny_cnn_int8.bin"), {"image": image}, work)["probs"]
        by_hand = os.path.join(work, "by_hand_int8.bin")
        compiled = run([cuvil, "compile", "--input", model, "--output", by_hand, "--no-cache", "--precision", "int8",
                        "--calibration", calibration, "--no-winograd"])
        checks.expect("2 of 2 Conv/MatMul on integer kernels" in compiled and np.array_equal(
                      int8, e2e.run_infer(by_hand, {"image": image}, work)["probs"]),
                      "the INT8 model is the by-hand --precision int8 compile, both convolutions integer")
        log = run(["cmake", "--build", build])
        checks.expect("cuvil: compiling" not in log, "an unchanged model is not compiled again")
        np.save(os.path.join(calibration, "sample1", "image.npy"), image)
        log = run(["cmake", "--build", build])
        checks.expect(log.count("cuvil: compiling") == 1 and "tiny_cnn_int8" in log,
                      "a changed calibration sample compiles the INT8 model again, and only it")
        save_model(model, -1.0, external=False)
        log = run(["cmake", "--build", build])
        reference = e2e.run_ort(model, {"image": image})["probs"]
        checks.expect(log.count("cuvil: compiling") == 3 and
                      np.abs(classify(os.path.join(build, "classify"), image_file, work) - reference).max() < 1e-5,
                      "a changed model is compiled again and the program relinked")

        # Make: pattern rules; external data tracked through the depfiles.
        make_dir = os.path.join(work, "make")
        os.makedirs(make_dir)
        shutil.copy(os.path.join(ROOT, "examples", "make", "Makefile"), make_dir)
        save_model(os.path.join(make_dir, "tiny_cnn.onnx"), 1.0, external=True)
        make = ["make", "-C", make_dir, f"CUVIL={cuvil}", f"EXAMPLES={os.path.join(ROOT, 'examples')}"]
        log = run(make)
        checks.expect(log.count(f"{cuvil} compile") == 2, "make compiles tiny_cnn.bin and libtiny_cnn.a")
        reference = e2e.run_ort(os.path.join(make_dir, "tiny_cnn.onnx"), {"image": image})["probs"]
        checks.expect(np.abs(classify(os.path.join(make_dir, "classify"), image_file, work) - reference).max() < 1e-5,
                      "make's classify computes ONNX Runtime's output")
        log = run(make)
        checks.expect(f"{cuvil} compile" not in log, "a second make compiles nothing")
        save_model(os.path.join(make_dir, "tiny_cnn.onnx"), 0.5, external=True)  # same .onnx bytes
        log = run(make)
        reference = e2e.run_ort(os.path.join(make_dir, "tiny_cnn.onnx"), {"image": image})["probs"]
        ours = e2e.run_infer(os.path.join(make_dir, "tiny_cnn.bin"), {"image": image}, work)["probs"]
        checks.expect(log.count(f"{cuvil} compile") == 2 and np.abs(ours - reference).max() < 1e-5,
                      "changed external data (weights.bin) is compiled again")
    print(f"{len(checks.failures)} failed" if checks.failures else "all passed")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
