"""Compile ONNX models and torch modules with cuvil and call them from Python.

    import cuvil, torch, torchvision
    m = cuvil.compile(torchvision.models.resnet18(), input_signature=(torch.randn(1, 3, 224, 224),))
    y = m(torch.randn(1, 3, 224, 224))

The model is compiled by the `cuvil` binary (the CUVIL environment variable,
else `cuvil` on PATH) into a shared library with its weights inside, which
this package loads with ctypes: no compiler toolchain beyond cuvil's, no
Python extension to build.
"""

from ._compile import compile
from ._library import CompiledModel, CuvilError, Signature, TensorSpec, load

__all__ = ["compile", "load", "CompiledModel", "CuvilError", "Signature", "TensorSpec"]
