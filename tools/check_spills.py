#!/usr/bin/env python3
"""Fail if a microkernel's innermost loop spills vector registers.

    python tools/check_spills.py FILE.s [FILE.s ...]

Reads assembly written by `cuvil compile --emit asm` (LLVM's verbose asm
marks loop nests and spill code) and reports, for every specialised kernel
(`<kernel>.spec*`), each vector spill or reload inside an innermost loop:
the register tiles of the convolution, GEMM and Winograd kernels must fit
the register file. Reloads right after a call, which restore what the call
clobbered, are not counted. x86-64 (xmm/ymm/zmm, `#` comments) and aarch64
(q/z registers, `//` comments) assembly are both read. Exits 1 when it finds one, 2 when a file holds no kernel.
Pure standard library, so it runs wherever the compiler does.
"""

import re
import sys

# A symbol with characters outside [\w.$] (a variant named after its CPU,
# "x86-64-v3") is quoted.
FUNCTION = re.compile(r"^(?:([\w.$]+)|\"([^\"]+)\"):\s*((#|//).*)?$")
# Labelled blocks, and fall-through blocks LLVM names in a comment.
BLOCK = re.compile(r"^(\.LBB[\w]+:|(#|//) %bb\.\d+:)\s*((#|//).*)?$")
INNER_HEADER = re.compile(r"This Inner Loop Header")
IN_LOOP = re.compile(r"in Loop: Header=(BB[\w]+)")
VECTOR_SPILL = re.compile(r"(%[xyz]mm\d+|\b[qz]\d+\b).*(#|//)\s*\d+-byte (Folded )?(Spill|Reload)")
# An instruction on vector registers: x86-64 xmm/ymm/zmm, aarch64 v/q/z.
VECTOR_REGISTER = re.compile(r"%[xyz]mm\d+|\b[vqz]\d+\b")
# Calls: x86-64 `call`, aarch64 `bl`/`blr`.
CALL = re.compile(r"^(call\w*|blr?)\b")


def hot_loop_spills(lines):
    """(function, block, instruction) for vector spill code in innermost loops."""
    lines = list(lines)
    # aarch64 assembly comments with `//` (its `#` marks immediates).
    comment = "//" if any(line.startswith("//") for line in lines) else "#"
    findings = []
    function, block, block_lines = None, None, []
    blocks = []  # (function, label, comment lines, instruction lines)

    def flush():
        if function and block is not None:
            blocks.append((function, block, block_lines))

    for line in lines:
        stripped = line.rstrip("\n")
        match = FUNCTION.match(stripped)
        if match and not stripped.startswith(".") and not stripped.startswith("#"):
            flush()
            function, block, block_lines = match.group(1) or match.group(2), "entry", []
            continue
        if BLOCK.match(stripped):
            flush()
            block, block_lines = stripped.split(":")[0].lstrip("# "), [stripped]
            continue
        if function:
            block_lines.append(stripped)
    flush()

    inner_headers = set()
    for function, label, body in blocks:
        comments = "\n".join(l for l in body if comment in l)
        if INNER_HEADER.search(comments):
            inner_headers.add((function, label.lstrip(".L")))
    for function, label, body in blocks:
        if ".spec" not in function:
            continue
        header = label.lstrip(".L")
        loop = next((m.group(1) for l in body for m in [IN_LOOP.search(l)] if m), None)
        hot = (function, header) in inner_headers or (function, loop) in inner_headers
        if not hot:
            continue
        after_call = False
        for instruction in body:
            code = instruction.split(comment)[0].strip()
            if VECTOR_SPILL.search(instruction):
                # Reloads right after a call restore what it clobbered (no
                # vector register survives a call whole, in the SysV or the
                # AAPCS64 ABI): a loop that calls (a memset of a padded run)
                # is no register tile. "Right after": before the next
                # instruction on vector registers (aarch64 interleaves the
                # reloads with their address arithmetic).
                if not (after_call and "Reload" in instruction):
                    findings.append((function, label, instruction.strip()))
            elif code and CALL.match(code):
                after_call = True
            elif code and VECTOR_REGISTER.search(code):
                after_call = False
    kernels = {f for f, _, _ in blocks if ".spec" in f}
    return findings, kernels


def main(paths):
    status = 0
    for path in paths:
        with open(path) as f:
            findings, kernels = hot_loop_spills(f)
        if not kernels:
            print(f"{path}: no specialised kernels found")
            status = max(status, 2)
            continue
        for function, block, instruction in findings:
            print(f"{path}: {function} {block}: {instruction}")
        print(f"{path}: {len(kernels)} kernels, {len(findings)} vector spills/reloads in innermost loops")
        if findings:
            status = 1
    return status


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
