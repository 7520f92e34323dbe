#!/usr/bin/env python3
"""The bundled example compiles and reproduces its committed reference output.

    python tests/e2e/test_example.py --cuvil PATH

models/example/expected_probs.npy holds ONNX Runtime's output for
models/example/image.npy (written by models/make_example.py). The executable
must also be standalone: statically linked, no program interpreter.
"""

import argparse
import os
import struct
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cuvil_e2e as e2e  # noqa: E402

EXAMPLE = os.path.join(HERE, "..", "..", "models", "example")

PT_DYNAMIC, PT_INTERP = 2, 3


def dynamic_segments(path):
    """Names of the ELF64 program headers that would need a dynamic loader."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return ["not an ELF64 file"]
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    found = []
    for i in range(phnum):
        kind, = struct.unpack_from("<I", data, phoff + i * phentsize)
        if kind in (PT_DYNAMIC, PT_INTERP):
            found.append({PT_DYNAMIC: "PT_DYNAMIC", PT_INTERP: "PT_INTERP"}[kind])
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", help="cuvil binary (default: $CUVIL_BIN)")
    args = parser.parse_args()
    model = os.path.join(EXAMPLE, "tiny_cnn.onnx")
    image = np.load(os.path.join(EXAMPLE, "image.npy"))
    expected = np.load(os.path.join(EXAMPLE, "expected_probs.npy"))
    with tempfile.TemporaryDirectory(prefix="cuvil_example_") as workdir:
        exe = os.path.join(workdir, "infer.bin")
        e2e.compile(model, exe, cuvil=e2e.cuvil_path(args.cuvil))
        ours = e2e.run_infer(exe, {"image": image}, workdir)
        dynamic = dynamic_segments(exe)
    ok, lines = e2e.compare_all(ours, {"probs": expected}, e2e.DEFAULT_ATOL, e2e.DEFAULT_RTOL)
    if dynamic:
        ok = False
        lines.append("infer.bin is not standalone, it has: " + ", ".join(dynamic))
    else:
        lines.append("infer.bin is statically linked (no PT_INTERP, no PT_DYNAMIC)")
    print("\n".join(lines))
    print("PASS example" if ok else "FAIL example")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
