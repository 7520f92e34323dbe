#!/usr/bin/env python3
"""RegexFullMatch against RE2 (ONNX Runtime's) on seeded random patterns.

    python tests/e2e/test_regex.py --cuvil PATH [--patterns 300] [--seed 0]

Patterns are strings of regex pieces drawn at random (literals in one to
four UTF-8 bytes, classes, escapes, anchors, flags, groups, repetitions and
stray metacharacters), so that many are malformed. Those ONNX Runtime
accepts go into one model, a node each, whose outputs on a set of texts
must equal ONNX Runtime's; those it refuses into another, which cuvil must
refuse naming every node (but the Unicode classes \\p and \\P and the byte
class \\C, which cuvil refuses where RE2 accepts them).
"""

import argparse
import os
import random
import re
import sys
import tempfile

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuvil_e2e as e2e  # noqa: E402

PIECES = ["a", "b", "ab", "K", " ", "é", "Σ", "σ", "語", "😀", ".", "\\d", "\\w", "\\s", "\\W", "\\S", "\\D",
          "[a-c]", "[^b]", "[[:alpha:]]", "[[:^digit:]]", "[[:^alpha:]]", "[\\d\\s]", "[\\W]", "[^\\W]", "(?i)",
          "(?i)A", "(?-i)", "(?m)", "(?s)", "(?U)", "(?i:", "(?:", "(?P<g>", "(", ")", "|", "^", "$", "\\A",
          "\\z", "\\b", "\\B", "\\n", "\\x41", "\\x{3a3}", "\\101", "\\Q.*\\E", "*", "+", "?", "*?", "+?",
          "{2}", "{1,3}", "{0,}", "{2,1}", "{,2}", "[", "]", "-", "\\", "{", "}", "\\.", "\\1", "\\pL", "\\C",
          "[z-a]", "[[:foo:]]"]
TEXTS = ["", "a", "ab", "aab", "abab", "A", "AB", "b", "K", "k", "\u212a", "s", "\u017f", "Σσ", "ς", "é", "É",
         "a\nb", "\n", "ab ab", "1", "a1_", " ", "KaK", "aaaaaa", "{2}", ".*", "語語", "😀", "A*", "-]"]
# \p, \P or \C after an even run of backslashes: refused by cuvil, accepted by RE2.
UNSUPPORTED = re.compile(r"(?<!\\)(\\\\)*\\[pPC]")


def regex_model(patterns):
    nodes = [helper.make_node("RegexFullMatch", ["x"], [f"y{i}"], name=f"re{i}", pattern=p)
             for i, p in enumerate(patterns)]
    outputs = [helper.make_tensor_value_info(f"y{i}", TensorProto.BOOL, [len(TEXTS)])
               for i in range(len(patterns))]
    graph = helper.make_graph(nodes, "regex", [helper.make_tensor_value_info("x", TensorProto.STRING,
                                                                             [len(TEXTS)])], outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    model.ir_version = 9
    return model


def re2_accepts(pattern):
    ort.set_default_logger_severity(4)
    try:
        ort.InferenceSession(regex_model([pattern]).SerializeToString())
        return True
    except Exception:  # noqa: BLE001 (ONNX Runtime's refusal is the answer)
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", default=os.environ.get("CUVIL_BIN"))
    parser.add_argument("--patterns", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    patterns = sorted({"".join(rng.choice(PIECES) for _ in range(rng.randint(1, 7))) for _ in range(args.patterns)})
    valid = [p for p in patterns if re2_accepts(p)]
    refused = [p for p in patterns if p not in valid or UNSUPPORTED.search(p)]
    valid = [p for p in valid if p not in refused]
    checks = e2e.Checks()
    texts = np.array(TEXTS, dtype=np.str_)
    with tempfile.TemporaryDirectory(prefix="cuvil-regex-") as work:
        path, exe = os.path.join(work, "valid.onnx"), os.path.join(work, "valid")
        model = regex_model(valid)
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        theirs = ort.InferenceSession(path).run(None, {"x": texts.astype(object)})
        e2e.compile(path, exe, cuvil=args.cuvil)
        ours = e2e.cuvil_outputs(path, exe, {"x": texts}, work)
        for i, pattern in enumerate(valid):
            wrong = [f"{t!r}: RE2 {bool(r)}" for t, r, o in zip(TEXTS, theirs[i], ours[f"y{i}"]) if r != o]
            checks.expect(not wrong, f"{pattern!r} matches as RE2 does" + (f" (not on {', '.join(wrong)})"
                                                                            if wrong else ""))
        path = os.path.join(work, "refused.onnx")
        with open(path, "wb") as f:
            f.write(regex_model(refused).SerializeToString())
        proc = e2e.compile(path, os.path.join(work, "refused"), cuvil=args.cuvil, check=False)
        checks.expect(proc.returncode == 1, f"the {len(refused)} patterns RE2 refuses (or cuvil does not support) "
                                            f"are a compile error (exit status {proc.returncode})")
        for i, pattern in enumerate(refused):
            checks.expect(f"node 're{i}': pattern '{pattern}'" in proc.stderr, f"{pattern!r} is refused by name")
    print(f"{len(valid)} patterns matched, {len(refused)} refused; "
          + (f"{len(checks.failures)} failed" if checks.failures else "all passed"))
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
