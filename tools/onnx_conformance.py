#!/usr/bin/env python3
"""Run the ONNX backend test suite through cuvil and write the scoreboard.

    python tools/onnx_conformance.py --cuvil PATH [--data DIR] [--suites node,simple,...]
        [-k FILTER] [-j JOBS] [--out docs/ONNX_CONFORMANCE.md]
        [--expected tests/onnx_backend/expected_failures.txt] [--write-expected FILE]

Every case directory (DATA/SUITE/CASE with model.onnx and test_data_set_*/)
is compiled for this machine (`--cpu native`: one ISA variant), run with
infer.bin on every test data set, and every output is compared with the
expected output_*.pb: exactly for integer, bool and string outputs, within
the ONNX backend runner's tolerance (rtol 1e-3, atol 1e-7) for floating
point, widened only per case in TOLERANCES with a reason. Cases run in
parallel and a failure never stops the run.

Each case ends as one of: pass; compile error (cuvil said why, exit 1);
run error (infer.bin refused, exit 1); wrong result (the worst element);
crash (any other exit status or a signal: always a bug); timeout;
unsupported I/O (inputs or outputs of a kind infer.bin has no form for:
maps, sparse tensors, sequences of sequences).

Sequence and optional inputs and outputs take the forms `cuvil compile`
documents: a sequence input is compiled with `--sequence NAME=DIMS,...` (its
elements' shapes, from the data set) and fed one element per input NAME.K;
an empty optional input is compiled with `--absent NAME`; a sequence output
is written element by element as NAME.K, an empty optional output not at
all. Data sets whose sequences differ in shape are compiled again.

With --expected, the run fails (exit 1) when a case not listed there fails,
and when a listed case passes: the list of expected failures only shrinks
(but for cases whose reason says "random draws": unseeded draws can equal
the data's by chance).
--write-expected writes the current failures as that list.
"""

import argparse
import collections
import concurrent.futures
import dataclasses
import datetime
import os
import platform
import re
import shutil
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
import cuvil_e2e as e2e  # noqa: E402

DEFAULT_DATA = "/usr/share/libonnx-testdata/data"  # Debian's libonnx-testdata
DEFAULT_SUITES = ("node", "pytorch-converted", "pytorch-operator", "simple")
RTOL, ATOL = 1e-3, 1e-7
# Per-case tolerances (rtol, atol, reason), for cases whose expected outputs
# were computed in a precision or with an algorithm the spec leaves open.
TOLERANCES = {}
COMPILE_TIMEOUT_S, RUN_TIMEOUT_S = 300, 120


@dataclasses.dataclass
class Result:
    case: str    # "suite/name"
    outcome: str  # pass, compile error, run error, wrong result, crash, timeout, unsupported I/O
    detail: str = ""
    ops: tuple = ()


def find_cases(data, suites, filters):
    """(suite/name, directory) of every case, sorted."""
    keys = [f for f in (filters or "").split(",") if f]
    cases = []
    for suite in suites:
        root = os.path.join(data, suite)
        if not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            directory = os.path.join(root, name)
            case = f"{suite}/{name}"
            if os.path.isfile(os.path.join(directory, "model.onnx")) and (
                    not keys or any(k in case for k in keys)):
                cases.append((case, directory))
    return cases


def first_line(text, limit=300):
    """The error of a message on one line (an "error: ...:" line joined with the
    problems listed under it), shortened."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if line.startswith("error")), 0)
    picked = " ".join(lines[start:start + 3]) if lines and lines[start].endswith(":") else (
        lines[start] if lines else "")
    return picked if len(picked) <= limit else picked[:limit - 3] + "..."


def is_tensor(value_info):
    return value_info.type.HasField("tensor_type")


def has_io_form(type_proto):
    """Whether infer.bin can take or give a value of this type: a tensor, a
    sequence of tensors, or an optional of either."""
    if type_proto.HasField("optional_type"):
        type_proto = type_proto.optional_type.elem_type
    if type_proto.HasField("sequence_type"):
        type_proto = type_proto.sequence_type.elem_type
    return type_proto.HasField("tensor_type")


def read_value(path, type_proto):
    """A data set's value of this type: an ndarray, a list of them (a
    sequence), or None (an empty optional)."""
    with open(path, "rb") as f:
        data = f.read()
    if type_proto.HasField("optional_type"):
        optional = onnx.OptionalProto()
        optional.ParseFromString(data)
        if optional.HasField("tensor_value"):
            return numpy_helper.to_array(optional.tensor_value)
        if optional.HasField("sequence_value"):
            return [numpy_helper.to_array(t) for t in optional.sequence_value.tensor_values]
        return None
    if type_proto.HasField("sequence_type"):
        sequence = onnx.SequenceProto()
        sequence.ParseFromString(data)
        return [numpy_helper.to_array(t) for t in sequence.tensor_values]
    tensor = onnx.TensorProto()
    tensor.ParseFromString(data)
    return numpy_helper.to_array(tensor)


def composite_options(inputs, folder):
    """The compile options a data set's sequence and optional inputs need."""
    options = []
    for i, graph_input in enumerate(inputs):
        path = os.path.join(folder, f"input_{i}.pb")
        if is_tensor(graph_input) or not os.path.exists(path):
            continue
        value = read_value(path, graph_input.type)
        if value is None:
            options += ["--absent", graph_input.name]
        elif isinstance(value, list):
            dims = ["x".join(str(d) for d in element.shape) or "scalar" for element in value]
            options += ["--sequence", f"{graph_input.name}=" + ",".join(dims)]
    return options


def input_arguments(inputs, folder, workdir):
    """infer.bin's --input arguments for a data set: tensors as their files,
    sequence elements and optional values written out one file each."""
    args = []
    for i, graph_input in enumerate(inputs):
        path = os.path.join(folder, f"input_{i}.pb")
        if not os.path.exists(path):
            continue
        if is_tensor(graph_input):
            args += ["--input", f"{graph_input.name}={path}"]
            continue
        value = read_value(path, graph_input.type)
        elements = [] if value is None else value if isinstance(value, list) else [value]
        names = ([f"{graph_input.name}.{k}" for k in range(len(elements))] if isinstance(value, list)
                 else [graph_input.name] * len(elements))
        for name, element in zip(names, elements):
            file = os.path.join(workdir, e2e.sanitise(name) + ".input.npy")
            np.save(file, element)
            args += ["--input", f"{name}={file}"]
    return args


def check_output(output, expected_path, out_dir, rtol, atol):
    """(ok, detail) of one graph output against its expected .pb, in the
    output forms (a sequence element by element, an empty optional absent)."""
    expected = read_value(expected_path, output.type)
    base = os.path.join(out_dir, e2e.sanitise(output.name))
    if expected is None:
        present = [p for p in (base + ".npy", base + ".0.npy") if os.path.exists(p)]
        return (not present), f"an empty optional, but cuvil wrote {present}"
    if isinstance(expected, list):
        pairs = [(f"{base}.{k}.npy", e) for k, e in enumerate(expected)]
        if os.path.exists(f"{base}.{len(expected)}.npy"):
            return False, f"more than the {len(expected)} elements expected"
    else:
        pairs = [(base + ".npy", expected)]
    for path, value in pairs:
        if not os.path.exists(path):
            return False, f"no output {os.path.basename(path)}"
        ok, detail = compare(np.load(path, allow_pickle=False), value, rtol, atol)
        if not ok:
            return False, f"{os.path.basename(path)}: {detail}"
    return True, ""


def read_tensor(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return tensor


def compare(ours, expected, rtol, atol):
    """(ok, detail) for one output: strings here, everything else as the e2e tests
    compare (shape and dtype equal, integers and bool exact, floats within tolerance)."""
    if expected.dtype.kind in "OSU":
        same = ours.shape == expected.shape and bool((ours.astype(str) == expected.astype(str)).all())
        return same, "" if same else "strings differ"
    comparison = e2e.compare(ours, expected, atol, rtol)
    return comparison.ok, "" if comparison.ok else comparison.report


def compile_case(model_path, exe, cuvil, directory, inputs, args):
    """Compile, adding the --value options the compiler asks for (as a user
    would); (process, value options) or a timeout Result's detail."""
    value_args = []
    while True:
        proc = e2e.run_process([cuvil, "compile", "-q", "--input", model_path, "--output", exe,
                                *args, *value_args], timeout=COMPILE_TIMEOUT_S)
        fixed = value_option(proc, directory, inputs, value_args) or shape_option(
            proc, directory, inputs, value_args)
        if not fixed:
            return proc, value_args
        value_args += fixed


def run_case(case, directory, cuvil, workdir, compile_args):
    """Compile and run one case; return its Result."""
    model_path = os.path.join(directory, "model.onnx")
    try:
        model = onnx.load(model_path)
    except Exception as exc:  # noqa: BLE001 (a suite file our onnx cannot read)
        return Result(case, "compile error", f"onnx cannot load the model: {exc}")
    ops = tuple(sorted({n.op_type for n in model.graph.node}))
    initializers = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in initializers]
    if not all(has_io_form(v.type) for v in [*inputs, *model.graph.output]):
        return Result(case, "unsupported I/O", "maps, sparse tensors or nested sequences", ops)
    os.makedirs(workdir, exist_ok=True)
    exe = os.path.join(workdir, "case.bin")
    rtol, atol, _ = TOLERANCES.get(case, (RTOL, ATOL, ""))
    compiled_for = None
    options = []
    data_sets = sorted(d for d in os.listdir(directory) if d.startswith("test_data_set_"))
    # A case without data sets is compiled only.
    for data_set in data_sets or [None]:
        folder = os.path.join(directory, data_set or "")
        composite_args = composite_options(inputs, folder) if data_set else []
        if composite_args != compiled_for:
            try:
                proc, value_args = compile_case(model_path, exe, cuvil, directory, inputs,
                                                [*compile_args, *composite_args])
            except Exception:  # noqa: BLE001 (subprocess.TimeoutExpired)
                return Result(case, "timeout", f"cuvil compile ran past {COMPILE_TIMEOUT_S} s", ops)
            if proc.returncode == 1:
                return Result(case, "compile error",
                              first_line(proc.stderr).replace(f"error: {model_path}: ", ""), ops)
            if proc.returncode != 0:
                return Result(case, "crash", f"cuvil compile exited {proc.returncode}: "
                                             f"{first_line(proc.stderr)}", ops)
            compiled_for = composite_args
            options = [*composite_args, *value_args]
        if data_set is None:
            break
        out_dir = os.path.join(workdir, data_set)
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        args = input_arguments(inputs, folder, out_dir)
        try:
            proc = e2e.run_process([exe, *args, "--output-dir", out_dir, "--threads", "1"],
                                   timeout=RUN_TIMEOUT_S)
        except Exception:  # noqa: BLE001
            return Result(case, "timeout", f"infer.bin ran past {RUN_TIMEOUT_S} s on {data_set}", ops)
        if proc.returncode == 1:
            return Result(case, "run error", f"{data_set}: {first_line(proc.stderr)}", ops)
        if proc.returncode != 0:
            return Result(case, "crash", f"infer.bin exited {proc.returncode} on {data_set}: "
                                         f"{first_line(proc.stderr)}", ops)
        for i, output in enumerate(model.graph.output):
            expected_path = os.path.join(folder, f"output_{i}.pb")
            if not os.path.exists(expected_path):
                continue
            ok, detail = check_output(output, expected_path, out_dir, rtol, atol)
            if not ok:
                return Result(case, "wrong result", f"{data_set} output '{output.name}': {detail}", ops)
    return Result(case, "pass", " ".join(options), ops)


def value_option(proc, directory, inputs, given):
    """Where the compiler asks for the values of a graph input (a shape, axes,
    pads or Resize scales the case feeds as data where exporters write a constant), the
    `--value NAME=...` a user would add: the first data set's values (as
    ONNX-MLIR's runner makes such inputs constants). infer.bin then checks every
    data set against them. [] when the compile needs nothing of the kind."""
    match = re.search(r"fix the values of graph input '([^']*)' with --value", proc.stderr or "")
    if proc.returncode != 1 or not match:
        return []
    name = match.group(1)
    index = next((i for i, v in enumerate(inputs) if v.name == name), None)
    path = os.path.join(directory, "test_data_set_0", f"input_{index}.pb")
    if index is None or not os.path.exists(path) or any(a.startswith(f"{name}=") for a in given):
        return []
    values = numpy_helper.to_array(read_tensor(path)).ravel()
    # repr of a float64 round-trips, so the compiler rounds back to the same value.
    text = (repr(float(v)) if np.issubdtype(values.dtype, np.floating) else str(int(v)) for v in values)
    return ["--value", f"{name}=" + ",".join(text)]


def shape_option(proc, directory, inputs, given):
    """Where the compiler asks for the shape of an input with symbolic dims,
    the `--shape NAME=...` a user would add: the first data set's."""
    match = re.search(r"has symbolic dimension .*fix it with --shape ([^=\s]+)=", proc.stderr or "")
    if proc.returncode != 1 or not match:
        return []
    name = match.group(1)
    index = next((i for i, v in enumerate(inputs) if v.name == name), None)
    path = os.path.join(directory, "test_data_set_0", f"input_{index}.pb")
    if index is None or not os.path.exists(path) or any(a.startswith(f"{name}=") for a in given):
        return []
    dims = numpy_helper.to_array(read_tensor(path)).shape
    return ["--shape", f"{name}=" + "x".join(str(d) for d in dims)]


def run_case_safely(case, directory, cuvil, workdir, compile_args, keep):
    try:
        return run_case(case, directory, cuvil, workdir, compile_args)
    except Exception as exc:  # noqa: BLE001 (a harness problem is reported, not fatal)
        return Result(case, "harness error", f"{type(exc).__name__}: {exc}")
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


# The reason that marks an expected failure as random output, which may
# pass by chance without the run failing.
RANDOM_DRAWS = "random draws"


def read_expected(path):
    """{case: reason} from an expected-failures file (`case  # reason` lines)."""
    expected = {}
    with open(path) as f:
        for line in f:
            text = line.split("#", 1)
            case = text[0].strip()
            if case:
                expected[case] = text[1].strip() if len(text) > 1 else ""
    return expected


def write_expected(path, results):
    with open(path, "w") as f:
        f.write("# ONNX backend cases expected to fail (tools/onnx_conformance.py --expected).\n"
                "# One case per line, then '# outcome: reason'. Remove a line when its case passes.\n")
        for r in results:
            if r.outcome != "pass":
                f.write(f"{r.case}  # {r.outcome}: {r.detail.replace(chr(10), ' ')}\n")


def markdown(results, args, command):
    """docs/ONNX_CONFORMANCE.md."""
    counts = collections.Counter(r.outcome for r in results)
    passed = counts.get("pass", 0)
    by_suite = collections.defaultdict(collections.Counter)
    by_op = collections.defaultdict(collections.Counter)
    for r in results:
        by_suite[r.case.split("/", 1)[0]][r.outcome] += 1
        for op in r.ops:
            by_op[op][r.outcome] += 1
    outcomes = ["pass", "compile error", "run error", "wrong result", "crash", "timeout", "unsupported I/O",
                "harness error"]
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# ONNX backend test suite", "",
             f"**{passed} of {len(results)} cases pass** "
             f"({', '.join(f'{counts[o]} {o}' for o in outcomes if counts.get(o))}).", "",
             f"Data: `{args.data}` (Debian's libonnx-testdata); cases compiled with "
             f"`cuvil compile {' '.join(args.compile_arg)}`, run on every test data set, outputs compared "
             f"exactly (integers, bool, strings) or within rtol {RTOL:g}, atol {ATOL:g}. A pass whose "
             "detail gives `--value NAME=...`: the case feeds a shape, axes, pads or scales as a graph input, "
             "and the compile error asked for its values; the case was compiled again with those of its "
             "first data set, and infer.bin checked every data set against them.", "",
             f"- Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; {date}",
             f"- Command: `{command}`", "",
             "## By suite", "", "| suite | cases | " + " | ".join(outcomes) + " |",
             "| --- | ---: | " + " | ".join("---:" for _ in outcomes) + " |"]
    for suite, c in sorted(by_suite.items()):
        lines.append(f"| {suite} | {sum(c.values())} | " + " | ".join(str(c.get(o, 0)) for o in outcomes) + " |")
    lines += ["", "## By operator (a case counts for every op in its graph)", "",
              "| op | cases | pass | failing |", "| --- | ---: | ---: | ---: |"]
    for op, c in sorted(by_op.items()):
        total = sum(c.values())
        lines.append(f"| {op} | {total} | {c.get('pass', 0)} | {total - c.get('pass', 0)} |")
    lines += ["", "## Every case", "", "| case | outcome | detail |", "| --- | --- | --- |"]
    for r in results:
        detail = r.detail.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {r.case} | {r.outcome} | {detail} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", help="cuvil binary (default: $CUVIL_BIN)")
    parser.add_argument("--data", default=DEFAULT_DATA, help=f"the suite's data folder (default {DEFAULT_DATA})")
    parser.add_argument("--suites", default=",".join(DEFAULT_SUITES))
    parser.add_argument("-k", dest="filter", help="only cases whose suite/name contains one of these")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", help="markdown scoreboard to write, e.g. docs/ONNX_CONFORMANCE.md")
    parser.add_argument("--expected", help="expected-failures file: fail on any difference from it")
    parser.add_argument("--write-expected", help="write the current failures as an expected-failures file")
    parser.add_argument("--workdir", help="keep each case's files under this folder")
    parser.add_argument("--compile-arg", action="append", default=None,
                        help="`cuvil compile` argument (default: --cpu native)")
    args = parser.parse_args(argv)
    args.compile_arg = args.compile_arg or ["--cpu", "native"]
    try:
        cuvil = e2e.cuvil_path(args.cuvil)
    except RuntimeError as exc:
        parser.error(str(exc))
    if not os.path.isdir(args.data):
        parser.error(f"no suite data at {args.data} (apt-get install libonnx-testdata)")
    cases = find_cases(args.data, [s for s in args.suites.split(",") if s], args.filter)
    root = args.workdir or tempfile.mkdtemp(prefix="cuvil_conformance_")
    results = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = [pool.submit(run_case_safely, case, directory, cuvil,
                               os.path.join(root, re.sub(r"[^A-Za-z0-9._-]", "_", case)), args.compile_arg,
                               bool(args.workdir))
                   for case, directory in cases]
        for future in futures:
            result = future.result()
            results.append(result)
            print(f"{result.outcome.upper():16} {result.case}" + (f"  {result.detail}" if result.detail else ""),
                  flush=True)
    if not args.workdir:
        shutil.rmtree(root, ignore_errors=True)
    passed = sum(r.outcome == "pass" for r in results)
    print(f"{passed} of {len(results)} cases pass")
    command = " ".join([os.path.basename(sys.executable), *sys.argv])
    if args.out:
        with open(args.out, "w") as f:
            f.write(markdown(results, args, command))
    if args.write_expected:
        write_expected(args.write_expected, results)
    if not args.expected:
        return 0
    expected = read_expected(args.expected)
    ran = {r.case for r in results}
    unexpected = [r for r in results if r.outcome != "pass" and r.case not in expected]
    passed = [r for r in results if r.outcome == "pass" and r.case in expected]
    # An unseeded draw can equal the data's by chance (Bernoulli's ten 0/1
    # draws, about 1 in 160 runs): such a case passing is no fix.
    fixed = [r for r in passed if RANDOM_DRAWS not in expected[r.case]]
    for r in unexpected:
        print(f"UNEXPECTED {r.outcome}: {r.case}  {r.detail}")
    for r in fixed:
        print(f"NOW PASSES (remove it from {args.expected}): {r.case}")
    for r in passed:
        if r not in fixed:
            print(f"PASSED BY CHANCE (random draws): {r.case}")
    suites = set(args.suites.split(","))
    missing = sorted(c for c in expected
                     if c.split("/", 1)[0] in suites and c not in ran and not args.filter)
    for case in missing:
        print(f"NOT FOUND (remove it from {args.expected}): {case}")
    return 1 if unexpected or fixed or missing else 0


if __name__ == "__main__":
    sys.exit(main())
