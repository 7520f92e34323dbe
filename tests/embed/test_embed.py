#!/usr/bin/env python3
"""Model libraries: the examples and the API checks build against them and agree with ONNX Runtime.

    python tests/embed/test_embed.py --cuvil PATH --cc CC --cxx CXX

Compiles the bundled example model (models/example/tiny_cnn.onnx) with
--emit lib and --emit shared, and with a batch range into a second library,
then builds and runs, each compared with ONNX Runtime's output:
  - examples/c/classify.c against libtiny_cnn.a (a C program: the library
    must need no C++ runtime library);
  - examples/cpp/classify_concurrently.cpp against libtiny_cnn.so (two
    instances on two threads; weights mapped from the .so, --map-weights);
  - tests/embed/api_checks.c against both static libraries at once (two
    models in one program, tiny_dyn's weights mapped from the program's
    file; signature, errors, unaligned buffers, a caller's pool, a batch of 3);
  - tests/embed/data_checks.c: an out-of-range Gather index refused with
    CUVIL_BAD_DATA and the node's message, the instance usable after.
The shared library must depend on libc, libm and libpthread only and export
nothing but the model's API. For another target (CUVIL_E2E_TARGET, run under
CUVIL_E2E_RUNNER) give its cross compilers and --static-only: the static
libraries' programs, linked statically, run under the emulator.
"""

import argparse
import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import cuvil_e2e as e2e  # noqa: E402

EXAMPLE = os.path.join(ROOT, "models", "example")
MODEL = os.path.join(EXAMPLE, "tiny_cnn.onnx")
ALLOWED_NEEDED = {"libc.so.6", "libm.so.6", "libpthread.so.0", "ld-linux-x86-64.so.2"}


def run(args, **kwargs):
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} exited {proc.returncode}:\n"
                           f"{proc.stdout}{proc.stderr}")
    return proc.stdout


def compile_library(cuvil, model, out, emit, extra=()):
    run([e2e.cuvil_path(cuvil), "compile", "--target", e2e.TARGET, "--input", model,
         "--emit", emit, "--output", out, "--quiet", *extra])


def with_symbolic_batch(path):
    """The example model with dim 0 of its input and output named 'batch'."""
    model = onnx.load(MODEL)
    for value in (model.graph.input[0], model.graph.output[0]):
        value.type.tensor_type.shape.dim[0].dim_param = "batch"
    onnx.save(model, path)
    return path


def check_close(name, got, expected, failures):
    worst = float(np.max(np.abs(got - expected)))
    ok = got.shape == expected.shape and worst <= 1e-5
    print(f"{'PASS' if ok else 'FAIL'} {name}: max |diff| {worst:.3g} against ONNX Runtime")
    if not ok:
        failures.append(name)


def dynamic_info(path):
    """NEEDED libraries and the defined dynamic symbols of a shared object."""
    needed = [line.split("[")[1].split("]")[0]
              for line in run(["readelf", "-d", path]).splitlines() if "(NEEDED)" in line]
    exported = [line.split()[-1] for line in run(["nm", "-D", "--defined-only", path]).splitlines()]
    return needed, exported


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", help="cuvil binary (default: $CUVIL_BIN)")
    parser.add_argument("--cc", default="cc")
    parser.add_argument("--cxx", default="c++")
    parser.add_argument("--static-only", action="store_true",
                        help="only the static libraries (a cross target: --cc links statically)")
    args = parser.parse_args()
    cc = shlex.split(args.cc)
    rng = np.random.default_rng(7)
    image = np.load(os.path.join(EXAMPLE, "image.npy")).astype(np.float32)
    batch = np.concatenate([image, rng.standard_normal((2, 3, 32, 32)).astype(np.float32)])
    expected = e2e.run_ort(MODEL, {"image": image})["probs"]
    failures = []
    with tempfile.TemporaryDirectory(prefix="cuvil-embed-") as work:
        lib = os.path.join(work, "lib")
        os.makedirs(lib)
        dynamic = with_symbolic_batch(os.path.join(work, "tiny_dyn.onnx"))
        compile_library(args.cuvil, MODEL, os.path.join(lib, "tiny_cnn"), "lib")
        # The shared library and tiny_dyn keep their weights in a section the
        # runtime maps from the library's (the program's) file, as above 2 GiB.
        if not args.static_only:
            compile_library(args.cuvil, MODEL, os.path.join(lib, "tiny_cnn"), "shared", ["--map-weights"])
        compile_library(args.cuvil, dynamic, os.path.join(lib, "tiny_dyn"), "lib",
                        ["--shape-range", "image=1x3x32x32:2x3x32x32:4x3x32x32", "--map-weights"])
        image_file, probs_file = os.path.join(work, "image.f32"), os.path.join(work, "probs.f32")
        image.tofile(image_file)

        # The C example against the static library, with the C compiler alone.
        exe = os.path.join(work, "classify")
        run([*cc, os.path.join(ROOT, "examples", "c", "classify.c"), "-I", lib,
             os.path.join(lib, "libtiny_cnn.a"), "-lpthread", "-lm", "-o", exe])
        print(run([*e2e.executable(exe), image_file, probs_file]).strip())
        check_close("examples/c/classify.c (libtiny_cnn.a)",
                    np.fromfile(probs_file, np.float32).reshape(1, 10), expected, failures)

        if not args.static_only:
            # The C++ example against the shared library: two instances at once.
            exe = os.path.join(work, "classify_concurrently")
            run([args.cxx, "-std=c++17", os.path.join(ROOT, "examples", "cpp", "classify_concurrently.cpp"),
                 "-I", lib, "-L", lib, "-ltiny_cnn", f"-Wl,-rpath,{lib}", "-pthread", "-o", exe])
            print(run([exe, image_file, probs_file]).strip())
            check_close("examples/cpp/classify_concurrently.cpp (libtiny_cnn.so)",
                        np.fromfile(probs_file, np.float32).reshape(1, 10), expected, failures)

            needed, exported = dynamic_info(os.path.join(lib, "libtiny_cnn.so"))
            foreign = [n for n in needed if n not in ALLOWED_NEEDED]
            stray = [s for s in exported if not s.startswith("tiny_cnn_")]
            ok = not foreign and not stray and len(exported) >= 9
            print(f"{'PASS' if ok else 'FAIL'} libtiny_cnn.so needs {needed}, exports {len(exported)} "
                  f"symbols{'' if not stray else ', stray: ' + ', '.join(stray[:10])}")
            if not ok:
                failures.append("shared library dependencies and exports")

        # Both static libraries in one C program, and the API's promises.
        exe = os.path.join(work, "api_checks")
        run([*cc, os.path.join(HERE, "api_checks.c"), "-I", lib, os.path.join(lib, "libtiny_dyn.a"),
             os.path.join(lib, "libtiny_cnn.a"), "-lpthread", "-lm", "-o", exe])
        batch_file = os.path.join(work, "batch.f32")
        batch.tofile(batch_file)
        proc = subprocess.run([*e2e.executable(exe), batch_file, probs_file], capture_output=True,
                              text=True)
        print(f"{'PASS' if proc.returncode == 0 else 'FAIL'} tests/embed/api_checks.c"
              f"{proc.stderr and chr(10) + proc.stderr.rstrip()}")
        if proc.returncode != 0:
            failures.append("api_checks")
        else:
            check_close("api_checks batch of 3 (libtiny_dyn.a)",
                        np.fromfile(probs_file, np.float32).reshape(3, 10),
                        e2e.run_ort(dynamic, {"image": batch})["probs"], failures)
        # Data the model checks (a Gather index) is refused through the API.
        gather = helper.make_model(
            helper.make_graph([helper.make_node("Gather", ["data", "idx"], ["y"], name="pick")], "gather",
                              [helper.make_tensor_value_info("data", TensorProto.FLOAT, [5]),
                               helper.make_tensor_value_info("idx", TensorProto.INT64, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])]),
            opset_imports=[helper.make_opsetid("", 17)])
        gather_path = os.path.join(work, "gather.onnx")
        onnx.save(gather, gather_path)
        compile_library(args.cuvil, gather_path, os.path.join(lib, "gather_lib"), "lib")
        exe = os.path.join(work, "data_checks")
        run([*cc, os.path.join(HERE, "data_checks.c"), "-I", lib, os.path.join(lib, "libgather_lib.a"),
             "-lpthread", "-lm", "-o", exe])
        proc = subprocess.run(e2e.executable(exe), capture_output=True, text=True)
        print(f"{'PASS' if proc.returncode == 0 else 'FAIL'} tests/embed/data_checks.c: "
              f"{(proc.stdout + proc.stderr).strip()}")
        if proc.returncode != 0:
            failures.append("data_checks")

        # Library names are C identifiers, in a directory that exists.
        for output, expect in ((os.path.join(lib, "tiny-cnn"), "NAME a C identifier"),
                               (os.path.join(work, "absent", "tiny"), "no directory")):
            proc = subprocess.run([e2e.cuvil_path(args.cuvil), "compile", "--input", MODEL, "--emit", "lib",
                                   "--output", output], capture_output=True, text=True)
            ok = proc.returncode == 1 and expect in proc.stderr
            print(f"{'PASS' if ok else 'FAIL'} --output {os.path.basename(output)} refused: "
                  f"{proc.stderr.strip()}")
            if not ok:
                failures.append(f"--output {output}")
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
