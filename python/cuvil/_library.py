"""A compiled model library (`cuvil compile --emit shared`) loaded with ctypes."""

import ctypes
import dataclasses
import os
import shutil
import threading
from typing import Optional, Tuple

import numpy as np

# The prefix the package compiles every model's API under: each library is
# loaded on its own (RTLD_LOCAL), so they never clash.
API_NAME = "model"

# cuvil_element_type (ONNX TensorProto codes) -> numpy; bf16 travels as its bits.
_NUMPY_TYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32,
                7: np.int64, 9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32,
                13: np.uint64, 16: np.uint16}
_ALIGNMENT = 64
# A string element (cuvil_string_element): its UTF-8 bytes' address and length.
_STRING = 8
_STRING_ELEMENT = np.dtype([("data", np.uintp), ("size", np.int64)])


class CuvilError(RuntimeError):
    """A model library refused a call; the message says why."""


class _TensorDesc(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("element_type", ctypes.c_int32),
                ("rank", ctypes.c_int32), ("min_dims", ctypes.POINTER(ctypes.c_int64)),
                ("max_dims", ctypes.POINTER(ctypes.c_int64)),
                ("dim_names", ctypes.POINTER(ctypes.c_char_p))]


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """One input or output: a dim is fixed where min_shape and max_shape agree."""
    name: str
    dtype: np.dtype
    min_shape: Tuple[int, ...]
    max_shape: Tuple[int, ...]
    dim_names: Tuple[Optional[str], ...]


@dataclasses.dataclass(frozen=True)
class Signature:
    inputs: Tuple[TensorSpec, ...]
    outputs: Tuple[TensorSpec, ...]


def _aligned_empty(shape, dtype):
    """An uninitialised array whose data is 64-byte aligned: the kernels' vector stores then do not
    straddle cache lines."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + _ALIGNMENT, np.uint8)
    offset = (-raw.ctypes.data) % _ALIGNMENT
    return raw[offset:offset + nbytes].view(dtype).reshape(shape)


def _string_elements(strings, keep):
    """A string array as cuvil_string_element pairs, the UTF-8 bytes held in `keep`."""
    elements = np.empty(strings.shape, _STRING_ELEMENT)
    flat = elements.reshape(-1)
    for i, text in enumerate(strings.reshape(-1)):
        data = ctypes.create_string_buffer(str(text).encode("utf-8"))
        keep.append(data)
        flat[i] = (ctypes.addressof(data), len(data) - 1)
    return elements


def _is_torch_tensor(value):
    return type(value).__module__.startswith("torch") and hasattr(value, "data_ptr")


class CompiledModel:
    """A model library loaded into this process, callable on numpy arrays and torch tensors.

    `model(x, ...)` or `model(name=x, ...)` runs one inference: numpy in, numpy
    out; torch tensors in, torch tensors out (CPU tensors and C-contiguous
    arrays of the model's dtype are passed without copying, outputs are
    wrapped without copying). One instance per object: calls are serialised.
    """

    def __init__(self, library_path, threads=None, _owned_dir=None):
        self._owned_dir = _owned_dir  # the TemporaryDirectory holding the library, if ours
        self.path = os.fspath(library_path)
        self._lib = ctypes.CDLL(os.path.abspath(self.path))
        self._lock = threading.Lock()
        self._instance = ctypes.c_void_p()
        api = self._function
        api("num_inputs", ctypes.c_int32, [])
        api("num_outputs", ctypes.c_int32, [])
        for kind in ("input", "output"):
            api(kind, ctypes.c_int32, [ctypes.c_int32, ctypes.POINTER(_TensorDesc)])
        api("create", ctypes.c_int32, [ctypes.POINTER(ctypes.c_void_p)])
        api("destroy", None, [ctypes.c_void_p])
        api("set_threads", ctypes.c_int32, [ctypes.c_void_p, ctypes.c_int32])
        api("run", ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                                    ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)),
                                    ctypes.POINTER(ctypes.c_void_p),
                                    ctypes.POINTER(ctypes.POINTER(ctypes.c_int64))])
        api("last_error", ctypes.c_char_p, [ctypes.c_void_p])
        self.signature = Signature(
            tuple(self._describe("input", i) for i in range(self._api["num_inputs"]())),
            tuple(self._describe("output", i) for i in range(self._api["num_outputs"]())))
        if self._api["create"](ctypes.byref(self._instance)) != 0:
            raise CuvilError(self._api["last_error"](None).decode())
        if threads is not None:
            self._check(self._api["set_threads"](self._instance, int(threads)))

    def _function(self, name, restype, argtypes):
        if not hasattr(self, "_api"):
            self._api = {}
        function = getattr(self._lib, f"{API_NAME}_{name}")
        function.restype = restype
        function.argtypes = argtypes
        self._api[name] = function

    def _describe(self, kind, index):
        desc = _TensorDesc()
        if self._api[kind](index, ctypes.byref(desc)) != 0:
            raise CuvilError(f"cannot describe {kind} {index}")
        rank, names = desc.rank, desc.dim_names
        dtype = np.dtype(np.str_) if desc.element_type == _STRING else np.dtype(
            _NUMPY_TYPES.get(desc.element_type, np.uint8))
        return TensorSpec(desc.name.decode(), dtype,
                          tuple(desc.min_dims[d] for d in range(rank)),
                          tuple(desc.max_dims[d] for d in range(rank)),
                          tuple(names[d].decode() if names and names[d] else None for d in range(rank)))

    def _check(self, status):
        if status != 0:
            raise CuvilError(self._api["last_error"](self._instance).decode())

    def __call__(self, *args, **kwargs):
        specs = self.signature.inputs
        if len(args) + len(kwargs) != len(specs):
            raise TypeError(f"the model takes {len(specs)} inputs "
                            f"({', '.join(s.name for s in specs)}), got {len(args) + len(kwargs)}")
        by_name = dict(zip((s.name for s in specs), args))
        for name, value in kwargs.items():
            if name not in {s.name for s in specs} or name in by_name:
                raise TypeError(f"unexpected or repeated input '{name}'")
            by_name[name] = value
        as_torch = any(_is_torch_tensor(v) for v in by_name.values())
        arrays, keep = [], []  # keep: the UTF-8 bytes string elements point to
        for spec in specs:
            value = by_name[spec.name]
            if _is_torch_tensor(value):
                value = value.detach().cpu().numpy()  # shares the tensor's memory
            if spec.dtype.kind == "U":
                array = _string_elements(np.asarray(value, dtype=np.str_), keep)
            else:
                array = np.ascontiguousarray(value, dtype=spec.dtype)  # no copy when it fits
            if array.ndim != len(spec.max_shape):
                raise ValueError(f"input '{spec.name}' has rank {array.ndim}, the model's is "
                                 f"{len(spec.max_shape)}")
            arrays.append(array)
        outputs = [_aligned_empty(spec.max_shape, _STRING_ELEMENT if spec.dtype.kind == "U" else spec.dtype)
                   for spec in self.signature.outputs]
        in_dims = [(ctypes.c_int64 * max(a.ndim, 1))(*a.shape) for a in arrays]
        out_dims = [(ctypes.c_int64 * max(len(s.max_shape), 1))() for s in self.signature.outputs]
        pointers = lambda values: (ctypes.c_void_p * max(len(values), 1))(*values)
        dims = lambda values: (ctypes.POINTER(ctypes.c_int64) * max(len(values), 1))(
            *[ctypes.cast(v, ctypes.POINTER(ctypes.c_int64)) for v in values])
        results = []
        with self._lock:
            self._check(self._api["run"](self._instance, pointers([a.ctypes.data for a in arrays]),
                                         dims(in_dims), pointers([o.ctypes.data for o in outputs]),
                                         dims(out_dims)))
            for spec, out, shape in zip(self.signature.outputs, outputs, out_dims):
                shape = tuple(shape[d] for d in range(len(spec.max_shape)))
                count = int(np.prod(shape, dtype=np.int64))
                result = out.reshape(-1)[:count].reshape(shape)
                if spec.dtype.kind == "U":  # the strings last until the next run: read them now
                    result = np.array([ctypes.string_at(int(e["data"]), int(e["size"])).decode("utf-8", "replace")
                                       for e in result.reshape(-1)], dtype=np.str_).reshape(shape)
                results.append(result)
        for i, result in enumerate(results):
            if as_torch and result.dtype.kind != "U":
                import torch
                results[i] = torch.from_numpy(result)
        return results[0] if len(results) == 1 else tuple(results)

    def save(self, path):
        """Copies the library to `path`; `cuvil.load(path)` loads it again."""
        shutil.copyfile(self.path, os.fspath(path))

    def __del__(self):
        instance = getattr(self, "_instance", None)
        if instance and instance.value and hasattr(self, "_api"):
            self._api["destroy"](instance)
            self._instance = ctypes.c_void_p()

    def __repr__(self):
        def show(spec):
            dims = [str(lo) if lo == hi else f"{name or '?'}[{lo}..{hi}]"
                    for lo, hi, name in zip(spec.min_shape, spec.max_shape, spec.dim_names)]
            return f"{spec.name}: {spec.dtype}[{', '.join(dims)}]"
        return (f"CompiledModel({', '.join(map(show, self.signature.inputs))} -> "
                f"{', '.join(map(show, self.signature.outputs))})")


def load(path, threads=None):
    """Loads a library saved by CompiledModel.save (or compiled with
    `cuvil compile --emit shared --output DIR/model`)."""
    return CompiledModel(path, threads=threads)
