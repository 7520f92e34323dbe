"""pytest options for the end-to-end tests: --cuvil PATH (or $CUVIL_BIN) and --self-check."""

import os

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("cuvil end-to-end")
    group.addoption("--cuvil", default=None, help="cuvil binary (default: $CUVIL_BIN)")
    group.addoption("--self-check", action="store_true",
                    help="run the op cases against onnx.reference instead of cuvil (validates the cases)")


@pytest.fixture(scope="session")
def e2e_options(request):
    """(cuvil path or None, self-check flag)."""
    return (request.config.getoption("--cuvil") or os.environ.get("CUVIL_BIN"),
            request.config.getoption("--self-check"))
