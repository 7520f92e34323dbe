"""cuvil.compile: an ONNX path, an onnx.ModelProto or a torch.nn.Module to a loaded model."""

import os
import shutil
import subprocess
import tempfile

from ._library import API_NAME, CompiledModel


def cuvil_binary():
    """The cuvil compiler: $CUVIL, else `cuvil` on PATH."""
    path = os.environ.get("CUVIL") or shutil.which("cuvil")
    if not path:
        raise FileNotFoundError("cannot find the cuvil compiler: set CUVIL to its path or put "
                                "`cuvil` on PATH")
    return path


def _shape_text(value):
    shape = tuple(getattr(value, "shape", value))
    return "x".join(str(int(d)) for d in shape) if shape else "scalar"


def _export_torch(module, input_signature, path, opset):
    import torch
    if input_signature is None:
        raise ValueError("compiling a torch.nn.Module needs input_signature: example inputs "
                         "(tensors) to trace it with")
    names = [f"input{i}" for i in range(len(input_signature))]
    was_training = module.training
    module.eval()
    try:
        with torch.no_grad():
            torch.onnx.export(module, tuple(input_signature), path, opset_version=opset,
                              input_names=names, do_constant_folding=True)
    finally:
        module.train(was_training)
    return names


def _input_names(path):
    import onnx
    model = onnx.load(path, load_external_data=False)
    initializers = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in initializers]


def compile(model, input_signature=None, *, shape_ranges=None, cpu=None, threads=None,
            cache_dir=None, cache=True, opset=17, extra_args=()):
    """Compiles `model` with cuvil into a shared library and loads it.

    model: a path to an .onnx file, an onnx.ModelProto or a torch.nn.Module
      (exported with torch.onnx.export at `opset`).
    input_signature: example inputs or shapes, one per graph input in order
      (or a dict by input name): fixes the shape of every input (`--shape`);
      needed for a torch module (its trace inputs).
    shape_ranges: {input name: (min, opt, max)} shapes the input may take at
      run time (`--shape-range`).
    cpu: the CPU to optimise for (`--cpu`), default both x86-64 variants.
    threads: threads per call (default: all the process may use).
    cache_dir / cache: the compile cache (`--cache-dir`, `--no-cache`).
    extra_args: further `cuvil compile` arguments.
    """
    work = tempfile.TemporaryDirectory(prefix="cuvil-")
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        names = None
    elif type(model).__name__ == "ModelProto":
        import onnx
        path = os.path.join(work.name, "model.onnx")
        onnx.save(model, path)
        names = None
    elif hasattr(model, "forward") and hasattr(model, "state_dict"):
        path = os.path.join(work.name, "model.onnx")
        names = _export_torch(model, input_signature, path, opset)
    else:
        raise TypeError(f"cuvil.compile takes an ONNX path, an onnx.ModelProto or a "
                        f"torch.nn.Module, not {type(model).__name__}")

    args = [cuvil_binary(), "compile", "--input", path, "--emit", "shared",
            "--output", os.path.join(work.name, API_NAME), "--quiet"]
    if input_signature is not None:
        if isinstance(input_signature, dict):
            shapes = input_signature.items()
        else:
            shapes = zip(names or _input_names(path), input_signature)
        args += [f"--shape={name}={_shape_text(value)}" for name, value in shapes]
    for name, (low, opt, high) in (shape_ranges or {}).items():
        args.append(f"--shape-range={name}={_shape_text(low)}:{_shape_text(opt)}:{_shape_text(high)}")
    if cpu:
        args.append(f"--cpu={cpu}")
    if not cache:
        args.append("--no-cache")
    elif cache_dir:
        args.append(f"--cache-dir={os.fspath(cache_dir)}")
    args += list(extra_args)
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"cuvil compile failed:\n{proc.stderr.strip()}")
    return CompiledModel(os.path.join(work.name, f"lib{API_NAME}.so"), threads=threads,
                         _owned_dir=work)
