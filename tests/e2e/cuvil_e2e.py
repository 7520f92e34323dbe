"""Helpers for end-to-end tests: compile with cuvil, run infer.bin, compare with ONNX Runtime.

The cuvil binary is taken from an explicit argument or the CUVIL_BIN
environment variable. A compiled executable is driven through its CLI:

    infer.bin --input NAME=FILE.npy ... --output-dir DIR

which writes DIR/<sanitise(output name)>.npy for every graph output.

CUVIL_E2E_TARGET names the --target (default x86_64-linux) and
CUVIL_E2E_RUNNER the emulator that runs the executables when the target is
not this machine's, e.g. "qemu-aarch64-static -cpu max,sve=off".
"""

import dataclasses
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models")
TARGET = os.environ.get("CUVIL_E2E_TARGET") or "x86_64-linux"
RUNNER = shlex.split(os.environ.get("CUVIL_E2E_RUNNER", ""))
DEFAULT_ATOL = 1e-4
DEFAULT_RTOL = 1e-3


class CuvilError(RuntimeError):
    """A cuvil or infer.bin invocation failed; carries the completed process."""

    def __init__(self, what, proc):
        super().__init__(f"{what} exited with status {proc.returncode}\n"
                         f"command: {' '.join(proc.args)}\n--- stderr ---\n{proc.stderr.strip()}")
        self.proc = proc


def cuvil_path(cuvil=None):
    """Resolve the cuvil binary: explicit path, else $CUVIL_BIN."""
    path = cuvil or os.environ.get("CUVIL_BIN")
    if not path:
        raise RuntimeError("no cuvil binary: pass --cuvil PATH or set CUVIL_BIN")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"cuvil binary {path!r} is not an executable file")
    return os.path.abspath(path)


def sanitise(name):
    """File stem infer.bin uses for a graph output: chars outside [A-Za-z0-9._-] become '_'."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


class Checks:
    """Named pass/fail checks of a test script: each printed, failures kept for the exit status."""

    def __init__(self):
        self.failures = []

    def expect(self, ok, what):
        print(f"{'PASS' if ok else 'FAIL'} {what}")
        if not ok:
            self.failures.append(what)


def run_process(args, timeout=600, memory_limit=0):
    """Run a command, capturing text stdout/stderr; never raises on exit status.

    memory_limit: the child's address space in bytes (RLIMIT_AS), 0 for no limit.
    """
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout,
                          preexec_fn=limit if memory_limit else None)


def executable(exe):
    """The command that runs a compiled executable here (under RUNNER when set)."""
    return [*RUNNER, os.path.abspath(exe)]


def compile(model_path, out_exe, extra_args=(), cuvil=None, check=True, timeout=1800, target=None):
    """`cuvil compile --target TARGET --input MODEL --output EXE [extra_args]`.

    Returns the CompletedProcess; raises CuvilError on failure when check is set.
    """
    proc = run_process([cuvil_path(cuvil), "compile", "--target", target or TARGET, "--input", model_path,
                        "--output", out_exe, *extra_args], timeout=timeout)
    if check and proc.returncode != 0:
        raise CuvilError("cuvil compile", proc)
    return proc


def write_inputs(inputs, directory):
    """Save inputs (name -> ndarray) as .npy files; return the --input arguments."""
    os.makedirs(directory, exist_ok=True)
    args = []
    for i, (name, value) in enumerate(inputs.items()):
        path = os.path.join(directory, f"{i}_{sanitise(name)}.npy")
        np.save(path, value)
        args += ["--input", f"{name}={path}"]
    return args


def run_infer(exe, inputs, workdir, extra_args=(), timeout=600):
    """Run a compiled executable on inputs; return {file stem: ndarray} of its outputs."""
    out_dir = os.path.join(workdir, "outputs")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    input_args = write_inputs(inputs, os.path.join(workdir, "inputs"))
    proc = run_process([*executable(exe), *input_args, "--output-dir", out_dir, *extra_args],
                       timeout=timeout)
    if proc.returncode != 0:
        raise CuvilError(os.path.basename(exe), proc)
    return {f[:-4]: np.load(os.path.join(out_dir, f))
            for f in sorted(os.listdir(out_dir)) if f.endswith(".npy")}


def graph_output_names(model_path):
    """Names of the graph outputs, in order."""
    model = onnx.load(model_path, load_external_data=False)
    return [o.name for o in model.graph.output]


def cuvil_outputs(model_path, exe, inputs, workdir, extra_args=()):
    """Run exe and key its outputs by graph output name (missing ones are absent)."""
    files = run_infer(exe, inputs, workdir, extra_args)
    return {name: files[sanitise(name)] for name in graph_output_names(model_path)
            if sanitise(name) in files}


def ensure_model(models_dir, name):
    """Return DIR/NAME.onnx, exporting it and its inputs with models/export_models.py if missing."""
    path = os.path.join(models_dir, f"{name}.onnx")
    if not os.path.exists(path) or not os.path.isdir(os.path.join(models_dir, f"{name}.inputs")):
        sys.path.insert(0, os.path.abspath(MODELS_DIR))
        import export_models  # torch is only needed when exporting
        print(f"exporting {name} to {models_dir} ...", flush=True)
        export_models.export_model(name, models_dir)
    return path


def load_model_inputs(models_dir, name):
    """The saved inputs DIR/NAME.inputs/<input>.npy of DIR/NAME.onnx, in graph input order."""
    model = onnx.load(os.path.join(models_dir, f"{name}.onnx"), load_external_data=False)
    initializers = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    return {n: np.load(os.path.join(models_dir, f"{name}.inputs", f"{n}.npy")) for n in names}


def ort_session(model_path, threads=0, denormals_as_zero=False):
    """CPU ONNX Runtime session with all graph optimisations (threads=0: ORT default).
    Benchmarks set denormals_as_zero: infer.bin flushes subnormals, and the
    peers are timed in the same numerics mode."""
    opts = ort.SessionOptions()
    if denormals_as_zero:
        opts.add_session_config_entry("session.set_denormal_as_zero", "1")
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    if threads:
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(model_path, opts, providers=["CPUExecutionProvider"])


def run_ort(model_path, inputs):
    """Reference outputs {graph output name: ndarray} from ONNX Runtime."""
    session = ort_session(model_path)
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, inputs)))


@dataclasses.dataclass
class Comparison:
    """Result of comparing one output: ok flag, error statistics and a report line."""
    ok: bool
    report: str
    max_abs: float = 0.0
    max_rel: float = 0.0


def compare(ours, ref, atol=DEFAULT_ATOL, rtol=DEFAULT_RTOL):
    """Compare an output against the reference.

    Shapes and dtypes must be equal. Integer, bool and string outputs must match
    exactly; floating outputs need |ours - ref| <= atol + rtol * |ref|
    elementwise (NaN matches NaN, inf matches the same inf). The report gives
    the worst element relative to that bound; max_rel is taken over the
    elements whose reference is non-zero.
    """
    ours, ref = np.asarray(ours), np.asarray(ref)
    if ref.dtype.kind in "OU":  # strings: ONNX Runtime gives objects, infer.bin numpy's <U<width>
        ours, ref = ours.astype(str).astype(object), ref.astype(str).astype(object)
    head = f"{ref.dtype}{list(ref.shape)}"
    if ours.shape != ref.shape or ours.dtype != ref.dtype:
        return Comparison(False, f"{head}: got {ours.dtype}{list(ours.shape)}")
    if ref.size == 0:
        return Comparison(True, f"{head}: empty")
    if not np.issubdtype(ref.dtype, np.floating):
        bad = np.argwhere(ours != ref)
        if len(bad) == 0:
            return Comparison(True, f"{head}: exact match")
        idx = tuple(int(i) for i in bad[0])
        return Comparison(False, f"{head}: {len(bad)} of {ref.size} elements differ, first at "
                                 f"{idx}: ours={ours[idx]!s} ref={ref[idx]!s}")
    a, b = ours.astype(np.float64), ref.astype(np.float64)
    with np.errstate(invalid="ignore"):
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        diff = np.where(same, 0.0, np.abs(a - b))
        diff = np.where(np.isnan(diff), np.inf, diff)
        nonzero = np.abs(b) > 0
        rel = np.where(nonzero, diff / np.where(nonzero, np.abs(b), 1.0), 0.0)
        excess = diff / (atol + rtol * np.abs(np.where(np.isfinite(b), b, 0.0)))
    idx = np.unravel_index(int(np.argmax(excess)), ref.shape)
    ok = bool(np.all(excess <= 1.0))
    bad = int(np.count_nonzero(excess > 1.0))
    max_abs, max_rel = float(diff.max()), float(rel.max())
    report = (f"{head}: max_abs={max_abs:.3g} max_rel={max_rel:.3g} worst at {tuple(map(int, idx))}: "
              f"ours={ours[idx]!s} ref={ref[idx]!s}"
              + ("" if ok else f" -- {bad} of {ref.size} elements outside atol={atol:g} rtol={rtol:g}"))
    return Comparison(ok, report, max_abs, max_rel)


def compare_all(ours, ref, atol=DEFAULT_ATOL, rtol=DEFAULT_RTOL):
    """Compare every reference output; return (all_ok, [report lines])."""
    lines, ok = [], True
    for name, value in ref.items():
        if name not in ours:
            ok = False
            lines.append(f"{name}: missing from our outputs (expected file {sanitise(name)}.npy)")
            continue
        result = compare(ours[name], value, atol, rtol)
        ok &= result.ok
        lines.append(f"{name}: {'ok' if result.ok else 'MISMATCH'} {result.report}")
    return ok, lines
