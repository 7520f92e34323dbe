"""The Python package against ONNX Runtime: every way in (path, ModelProto, torch module), numpy and torch
in and out, symbolic shapes, save/load, the compile cache, refusals.

    CUVIL=build/tools/cuvil PYTHONPATH=python python -m pytest python/tests
"""

import os
import time

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

import cuvil

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXAMPLE = os.path.join(ROOT, "models", "example")
MODEL = os.path.join(EXAMPLE, "tiny_cnn.onnx")


@pytest.fixture(scope="module")
def image():
    return np.load(os.path.join(EXAMPLE, "image.npy"))


@pytest.fixture(scope="module")
def expected():
    return np.load(os.path.join(EXAMPLE, "expected_probs.npy"))


def test_compile_a_path_and_call_it_on_numpy(tmp_path, image, expected):
    model = cuvil.compile(MODEL, cache_dir=tmp_path)
    probs = model(image)
    assert isinstance(probs, np.ndarray) and probs.shape == (1, 10)
    np.testing.assert_allclose(probs, expected, atol=1e-5)
    assert [s.name for s in model.signature.inputs] == ["image"]
    assert model.signature.inputs[0].max_shape == (1, 3, 32, 32)
    assert model.signature.outputs[0].dtype == np.float32


def test_torch_in_torch_out_without_copying_the_input(tmp_path, image, expected):
    model = cuvil.compile(onnx.load(MODEL), cache_dir=tmp_path)
    tensor = torch.from_numpy(image.copy())
    probs = model(image=tensor)
    assert isinstance(probs, torch.Tensor)
    np.testing.assert_allclose(probs.numpy(), expected, atol=1e-5)


def test_a_torch_module_with_two_inputs_and_two_outputs(tmp_path):
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.fc = torch.nn.Linear(8, 4)

        def forward(self, x, bias):
            features = torch.relu(self.conv(x)).mean(dim=(2, 3))
            return self.fc(features) + bias, features.sum(dim=1)

    torch.manual_seed(0)
    net = Net()
    x, bias = torch.randn(2, 3, 16, 16), torch.randn(2, 4)
    model = cuvil.compile(net, input_signature=(x, bias), cache_dir=tmp_path)
    logits, total = model(x, bias)
    want_logits, want_total = net(x, bias)
    np.testing.assert_allclose(logits.numpy(), want_logits.detach().numpy(), atol=1e-5)
    np.testing.assert_allclose(total.numpy(), want_total.detach().numpy(), atol=1e-4)
    assert net.training  # compile restored the module's mode


def test_shape_ranges_take_any_batch_in_range(tmp_path):
    source = onnx.load(MODEL)
    for value in (source.graph.input[0], source.graph.output[0]):
        value.type.tensor_type.shape.dim[0].dim_param = "batch"
    model = cuvil.compile(source, shape_ranges={"image": ((1, 3, 32, 32), (2, 3, 32, 32), (4, 3, 32, 32))},
                          cache_dir=tmp_path)
    spec = model.signature.inputs[0]
    assert (spec.min_shape[0], spec.max_shape[0], spec.dim_names[0]) == (1, 4, "batch")
    session = ort.InferenceSession(source.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for batch in (1, 3, 4):
        x = rng.standard_normal((batch, 3, 32, 32)).astype(np.float32)
        probs = model(x)
        assert probs.shape == (batch, 10)
        np.testing.assert_allclose(probs, session.run(None, {"image": x})[0], atol=1e-5)
    with pytest.raises(cuvil.CuvilError, match=r"outside the range \[1, 4\]"):
        model(np.zeros((5, 3, 32, 32), np.float32))


def test_strings_in_and_out(tmp_path):
    """A string input cast to numbers and the StringNormalizer's strings out, against ONNX Runtime."""
    T = onnx.TensorProto
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Cast", ["text"], ["value"], to=T.FLOAT),
         onnx.helper.make_node("StringNormalizer", ["text"], ["words"], case_change_action="UPPER",
                               stopwords=["nan"], locale="C.UTF-8")],
        "strings", [onnx.helper.make_tensor_value_info("text", T.STRING, [5])],
        [onnx.helper.make_tensor_value_info("value", T.FLOAT, [5]),
         onnx.helper.make_tensor_value_info("words", T.STRING, [None])])
    source = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 18)])
    model = cuvil.compile(source, cache_dir=tmp_path)
    assert model.signature.inputs[0].dtype.kind == "U"
    text = np.array(["1.5", "-2e3", "NaN", "inf", "0.25"])
    session = ort.InferenceSession(source.SerializeToString(), providers=["CPUExecutionProvider"])
    for ours, reference in zip(model(text), session.run(None, {"text": text})):
        if reference.dtype.kind == "O":
            assert ours.tolist() == reference.tolist()
        else:
            np.testing.assert_array_equal(ours, reference)


def test_save_and_load(tmp_path, image):
    model = cuvil.compile(MODEL, cache_dir=tmp_path)
    path = tmp_path / "tiny.so"
    model.save(path)
    again = cuvil.load(path, threads=1)
    np.testing.assert_array_equal(again(image), model(image))


def test_a_second_compile_comes_from_the_cache(tmp_path, image):
    start = time.perf_counter()
    cuvil.compile(MODEL, cache_dir=tmp_path)
    first = time.perf_counter() - start
    start = time.perf_counter()
    model = cuvil.compile(MODEL, cache_dir=tmp_path)
    second = time.perf_counter() - start
    print(f"compile {first:.2f} s, from the cache {second * 1000:.0f} ms")
    assert len(os.listdir(tmp_path / "entries")) == 1
    assert model(image).shape == (1, 10)


def test_refusals_are_errors_not_crashes(tmp_path, image):
    model = cuvil.compile(MODEL, cache_dir=tmp_path)
    with pytest.raises(cuvil.CuvilError, match="dim 2 is 16, but the model was compiled for 32"):
        model(np.zeros((1, 3, 16, 32), np.float32))
    with pytest.raises(ValueError, match="rank 3"):
        model(np.zeros((3, 32, 32), np.float32))
    with pytest.raises(TypeError, match="takes 1 inputs"):
        model(image, image)
    with pytest.raises(TypeError, match="torch.nn.Module"):
        cuvil.compile(42)
    with pytest.raises(RuntimeError, match="cuvil compile failed"):
        cuvil.compile(os.path.join(EXAMPLE, "image.npy"), cache_dir=tmp_path)
