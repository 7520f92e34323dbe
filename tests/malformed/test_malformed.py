#!/usr/bin/env python3
"""Malformed models: `cuvil compile` must refuse each with exit status 1 and a
one-line reason naming the file and the problem (never a signal, an assertion
or an uncaught exception), and must not write an output.

Every case builds its model with the onnx protobuf classes directly (not
onnx.helper's checked constructors), so that it can be broken in the one way
the case is about; the rest of the model is valid.

    python tests/malformed/test_malformed.py --cuvil PATH [-k FILTER] [-j JOBS] [--list]
"""

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
CASES = []


def case(name, *expect, args=()):
    """Register a case: `build(dir)` writes the model (model.onnx) and returns nothing;
    stderr must contain every string of `expect` (and the model's file name)."""
    def register(build):
        CASES.append((name, build, expect, args))
        return build
    return register


def tensor_info(name, dtype=F, shape=(1, 3, 8, 8)):
    return helper.make_tensor_value_info(name, dtype, shape)


def model_of(nodes, inputs=None, outputs=None, inits=(), opset=17, value_info=(), functions=()):
    graph = onnx.GraphProto(name="g")
    graph.node.extend(nodes)
    graph.input.extend(inputs if inputs is not None else [tensor_info("x")])
    graph.output.extend(outputs if outputs is not None else [helper.make_empty_tensor_value_info("y")])
    graph.initializer.extend(inits)
    graph.value_info.extend(value_info)
    model = onnx.ModelProto(ir_version=8, producer_name="cuvil-malformed", graph=graph)
    if opset is not None:
        model.opset_import.add(domain="", version=opset)
    model.functions.extend(functions)
    return model


def save(directory, model):
    with open(os.path.join(directory, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString() if isinstance(model, onnx.ModelProto) else model)


def weight(name="w", shape=(4, 3, 3, 3), raw=None, dtype=F):
    t = TensorProto(name=name, data_type=dtype, dims=shape)
    count = int(np.prod(shape))
    t.raw_data = raw if raw is not None else np.full(count, 0.1, np.float32).tobytes()
    return t


def conv(**attrs):
    return helper.make_node("Conv", ["x", "w"], ["y"], name="conv", **attrs)


def simple(directory, nodes, **kwargs):
    save(directory, model_of(nodes, **kwargs))


# -- The file itself --------------------------------------------------------

@case("file/not_protobuf", "not a valid ONNX model")
def _(d):
    save(d, b"this is not a model\n")


@case("file/truncated", "not a valid ONNX model")
def _(d):
    save(d, model_of([conv()], inits=[weight()]).SerializeToString()[:90])


@case("file/empty", "holds no graph")
def _(d):
    save(d, b"")


@case("file/random_bytes", "not a valid ONNX model")
def _(d):
    save(d, np.random.default_rng(1).integers(0, 256, 4096, dtype=np.uint8).tobytes())


@case("file/is_a_directory", "model.onnx")
def _(d):
    os.mkdir(os.path.join(d, "model.onnx"))


@case("file/missing", "cannot open")
def _(d):
    pass


# -- Tensors ----------------------------------------------------------------

@case("tensor/raw_data_short", "'w'", "432")
def _(d):
    simple(d, [conv()], inits=[weight(raw=b"\0" * 10)])


@case("tensor/raw_data_long", "'w'", "432")
def _(d):
    simple(d, [conv()], inits=[weight(raw=b"\0" * 1000)])


@case("tensor/float_data_count", "'w'", "108")
def _(d):
    t = TensorProto(name="w", data_type=F, dims=(4, 3, 3, 3))
    t.float_data.extend([0.5] * 7)
    simple(d, [conv()], inits=[t])


@case("tensor/int64_data_count", "'shape'", "2")
def _(d):
    t = TensorProto(name="shape", data_type=TensorProto.INT64, dims=(2,))
    t.int64_data.extend([1, 2, 3])
    simple(d, [helper.make_node("Reshape", ["x", "shape"], ["y"])], inits=[t])


@case("tensor/negative_dim", "'w'", "-4")
def _(d):
    t = weight(shape=(4, 3, 3, 3))
    t.dims[0] = -4
    simple(d, [conv()], inits=[t])


@case("tensor/dims_overflow_64_bits", "'w'")
def _(d):
    t = TensorProto(name="w", data_type=F, dims=(1 << 40, 1 << 40, 1 << 40))
    simple(d, [conv()], inits=[t])


@case("tensor/too_large_for_memory", "'w'")
def _(d):
    t = TensorProto(name="w", data_type=F, dims=(1 << 20, 1 << 20, 4))
    simple(d, [conv()], inits=[t])


@case("tensor/unknown_dtype", "'w'", "99")
def _(d):
    t = weight()
    t.data_type = 99
    simple(d, [conv()], inits=[t])


@case("tensor/undefined_dtype", "'w'")
def _(d):
    t = weight()
    t.data_type = TensorProto.UNDEFINED
    simple(d, [conv()], inits=[t])


@case("tensor/string_weight_in_arithmetic", "Add node 'y'", "f32 and string")
def _(d):
    t = TensorProto(name="w", data_type=TensorProto.STRING, dims=(1,))
    t.string_data.append(b"hello")
    simple(d, [helper.make_node("Add", ["x", "w"], ["y"])], inits=[t])


@case("tensor/string_weight_count_mismatch", "'w'", "do not match its 1 strings")
def _(d):
    t = TensorProto(name="w", data_type=TensorProto.STRING, dims=(3,))
    t.string_data.append(b"hello")
    simple(d, [helper.make_node("Identity", ["w"], ["y"])], inits=[t])


@case("tensor/string_weight_huge_dims", "'w'", "do not match")
def _(d):
    t = TensorProto(name="w", data_type=TensorProto.STRING, dims=(1 << 40, 1 << 30))
    t.string_data.append(b"hello")
    simple(d, [helper.make_node("Identity", ["w"], ["y"])], inits=[t])


@case("tensor/external_and_raw", "'w'")
def _(d):
    t = weight()
    t.data_location = TensorProto.EXTERNAL
    t.external_data.add(key="location", value="w.bin")
    simple(d, [conv()], inits=[t])


# -- External data -----------------------------------------------------------

def external(d, location, offset=None, length=None, write=True, size=432):
    t = TensorProto(name="w", data_type=F, dims=(4, 3, 3, 3), data_location=TensorProto.EXTERNAL)
    t.external_data.add(key="location", value=location)
    if offset is not None:
        t.external_data.add(key="offset", value=str(offset))
    if length is not None:
        t.external_data.add(key="length", value=str(length))
    if write:
        with open(os.path.join(d, "w.bin"), "wb") as f:
            f.write(b"\0" * size)
    simple(d, [conv()], inits=[t])


@case("external/absolute_location", "'w'", "/etc/passwd")
def _(d):
    external(d, "/etc/passwd")


@case("external/parent_directory", "'w'", "..")
def _(d):
    external(d, "../w.bin")


@case("external/symlink_escapes", "'w'", "outside")
def _(d):
    os.symlink("/etc", os.path.join(d, "outside"))
    external(d, "outside/passwd")


@case("external/offset_past_end", "'w'", "w.bin")
def _(d):
    external(d, "w.bin", offset=4096)


@case("external/length_past_end", "'w'", "w.bin")
def _(d):
    external(d, "w.bin", offset=100, length=432)


@case("external/length_unlike_shape", "'w'", "w.bin")
def _(d):
    external(d, "w.bin", length=400)


@case("external/file_too_short", "'w'", "w.bin")
def _(d):
    external(d, "w.bin", size=100)


@case("external/missing_file", "'w'", "w.bin")
def _(d):
    external(d, "w.bin", write=False)


@case("external/no_location", "'w'", "location")
def _(d):
    t = TensorProto(name="w", data_type=F, dims=(4, 3, 3, 3), data_location=TensorProto.EXTERNAL)
    simple(d, [conv()], inits=[t])


@case("external/negative_offset", "'w'", "offset")
def _(d):
    external(d, "w.bin", offset=-8)


# -- Graph structure ---------------------------------------------------------

@case("graph/cycle", "'b'")
def _(d):
    simple(d, [helper.make_node("Relu", ["b"], ["a"]), helper.make_node("Relu", ["a"], ["b"])],
           outputs=[helper.make_empty_tensor_value_info("a")])


@case("graph/dangling_weight", "conv", "'nothing'")
def _(d):
    simple(d, [helper.make_node("Conv", ["x", "nothing"], ["y"], name="conv")])


@case("graph/value_defined_twice", "'y'", "twice")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Sigmoid", ["x"], ["y"])])


@case("graph/initializer_twice", "'w'")
def _(d):
    simple(d, [conv()], inits=[weight(), weight()])


@case("graph/input_twice", "'x'")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], inputs=[tensor_info("x"), tensor_info("x")])


@case("graph/output_never_produced", "'z'", "never produced")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], outputs=[helper.make_empty_tensor_value_info("z")])


@case("graph/no_outputs", "no outputs")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], outputs=[])


@case("graph/empty_output_name", "name")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], outputs=[helper.make_empty_tensor_value_info("")])


@case("graph/node_without_outputs", "Relu")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], [], name="r"), helper.make_node("Relu", ["x"], ["y"])])


@case("graph/legacy_node_with_empty_output", "Add", "no results")
def _(d):
    simple(d, [helper.make_node("Add", ["x", "b"], [""], broadcast=1, axis=1, name="add"),
               helper.make_node("Relu", ["x"], ["y"])], opset=6,
           inits=[numpy_helper.from_array(np.ones(3, np.float32), "b")])


@case("graph/constant_redefines_a_value", "'x'", "twice")
def _(d):
    simple(d, [helper.make_node("Constant", [], ["x"], value_float=1.0), helper.make_node("Relu", ["x"], ["y"])])


@case("graph/input_without_type", "'x'")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], inputs=[onnx.ValueInfoProto(name="x")])


@case("graph/input_sequence_type", "'x'")
def _(d):
    seq = helper.make_tensor_sequence_value_info("x", F, (2,))
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], inputs=[seq])


@case("graph/input_negative_dim", "'x'", "-3")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], inputs=[tensor_info("x", shape=(1, -3))])


@case("graph/input_too_large", "'x'")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], inputs=[tensor_info("x", shape=(1 << 40, 1 << 40))])


@case("graph/input_unknown_dtype", "'x'", "99")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], inputs=[tensor_info("x", dtype=99)])


@case("graph/too_few_inputs", "'c'", "Conv")
def _(d):
    simple(d, [helper.make_node("Conv", ["x"], ["y"], name="c")])


@case("graph/too_many_inputs", "'r'", "Relu")
def _(d):
    simple(d, [helper.make_node("Relu", ["x", "x"], ["y"], name="r")])


@case("graph/too_many_results", "'r'", "Relu")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y", "z"], name="r")])


# -- Declared types ------------------------------------------------------------

@case("declared/output_shape", "Relu", "f32[1,3,8,8]", "[1,3,4,4]")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], outputs=[tensor_info("y", shape=(1, 3, 4, 4))])


@case("declared/output_dtype", "Relu", "i64")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], outputs=[tensor_info("y", TensorProto.INT64)])


@case("declared/output_rank", "Relu", "[1,3,8]")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], outputs=[tensor_info("y", shape=(1, 3, 8))])


@case("declared/value_info", "Sigmoid", "'a'", "[2,2]")
def _(d):
    simple(d, [helper.make_node("Sigmoid", ["x"], ["a"], name="s"), helper.make_node("Relu", ["a"], ["y"])],
           value_info=[tensor_info("a", shape=(2, 2))])


# -- Attributes -----------------------------------------------------------------

@case("attribute/ints_as_floats", "'conv'", "'strides'", "ints", "floats")
def _(d):
    simple(d, [conv(strides=[1.0, 1.0])], inits=[weight()])


@case("attribute/int_as_string", "'axis'", "string")
def _(d):
    simple(d, [helper.make_node("Softmax", ["x"], ["y"], axis="one")])


@case("attribute/legacy_int_as_float", "'k'", "float")
def _(d):
    simple(d, [helper.make_node("TopK", ["x"], ["y", "i"], k=2.0)], opset=9,
           outputs=[helper.make_empty_tensor_value_info("y")])


@case("attribute/adapted_attribute_of_wrong_kind", "TfIdfVectorizer", "'ngram_indexes'", "ints", "string")
def _(d):
    # An attribute the importer turns into an input is checked before it is read.
    tfidf = helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode="TF", min_gram_length=1,
                             max_gram_length=1, max_skip_count=0, pool_int64s=[1, 2],
                             ngram_counts=[0], ngram_indexes="zero")
    simple(d, [tfidf], inputs=[helper.make_tensor_value_info("x", onnx.TensorProto.INT64, [4])])


@case("attribute/cast_missing_to", "Cast", "'to'")
def _(d):
    simple(d, [helper.make_node("Cast", ["x"], ["y"])])


@case("attribute/cast_unknown_to", "Cast", "99")
def _(d):
    simple(d, [helper.make_node("Cast", ["x"], ["y"], to=99)])


@case("attribute/concat_missing_axis", "Concat", "'axis'")
def _(d):
    simple(d, [helper.make_node("Concat", ["x", "x"], ["y"])])


@case("attribute/zero_stride", "'conv'", "stride")
def _(d):
    simple(d, [conv(strides=[0, 1])], inits=[weight()])


@case("attribute/zero_dilation", "'conv'", "dilation")
def _(d):
    simple(d, [conv(dilations=[1, 0])], inits=[weight()])


@case("attribute/negative_pad", "'conv'", "pad")
def _(d):
    simple(d, [conv(pads=[-1, 0, 0, 0])], inits=[weight()])


@case("attribute/pool_kernel_larger_than_input", "MaxPool", "kernel")
def _(d):
    simple(d, [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[20, 20])])


@case("attribute/conv_kernel_larger_than_input", "'conv'")
def _(d):
    simple(d, [conv()], inits=[weight(shape=(4, 3, 9, 9))])


@case("attribute/group_does_not_divide", "'conv'", "group")
def _(d):
    simple(d, [conv(group=2)], inits=[weight(shape=(4, 3, 3, 3))])


@case("attribute/conv_channels_differ", "'conv'", "channels")
def _(d):
    simple(d, [conv()], inits=[weight(shape=(4, 5, 3, 3))])


@case("attribute/softmax_axis_out_of_range", "Softmax", "axis")
def _(d):
    simple(d, [helper.make_node("Softmax", ["x"], ["y"], axis=7)])


@case("attribute/concat_axis_out_of_range", "Concat", "axis")
def _(d):
    simple(d, [helper.make_node("Concat", ["x", "x"], ["y"], axis=-9)])


@case("attribute/gather_axis_out_of_range", "Gather", "axis")
def _(d):
    simple(d, [helper.make_node("Gather", ["x", "i"], ["y"], axis=4)],
           inits=[numpy_helper.from_array(np.array([0], np.int64), "i")])


@case("attribute/transpose_not_a_permutation", "Transpose", "perm")
def _(d):
    simple(d, [helper.make_node("Transpose", ["x"], ["y"], perm=[0, 1, 1, 2])])


@case("attribute/transpose_perm_rank", "Transpose", "perm")
def _(d):
    simple(d, [helper.make_node("Transpose", ["x"], ["y"], perm=[0, 1])])


@case("attribute/reshape_count", "Reshape", "192")
def _(d):
    simple(d, [helper.make_node("Reshape", ["x", "s"], ["y"])],
           inits=[numpy_helper.from_array(np.array([5, 5], np.int64), "s")])


# Dims whose product overflows 64 bits: refused, never wrapped into a size
# that looks plausible (the Reshape's count check or the size check).
@case("attribute/reshape_dims_overflow", "Reshape", "1099511627776")
def _(d):
    simple(d, [helper.make_node("Reshape", ["x", "s"], ["y"])],
           inits=[numpy_helper.from_array(np.array([2**40, 2**40, 2**40, -1], np.int64), "s")])


@case("attribute/expand_dims_overflow", "Expand", "larger than any tensor")
def _(d):
    simple(d, [helper.make_node("Expand", ["x", "s"], ["y"])],
           inits=[numpy_helper.from_array(np.array([2**40, 2**40, 1, 1, 1, 1], np.int64), "s")])


@case("attribute/gather_constant_index_out_of_range", "Gather", "9")
def _(d):
    simple(d, [helper.make_node("Gather", ["t", "i"], ["y"], axis=0)], inputs=[],
           inits=[numpy_helper.from_array(np.ones((3, 2), np.float32), "t"),
                  numpy_helper.from_array(np.array([9], np.int64), "i")])


@case("attribute/broadcast_mismatch", "Add", "broadcast")
def _(d):
    simple(d, [helper.make_node("Add", ["x", "b"], ["y"])],
           inits=[numpy_helper.from_array(np.ones((5,), np.float32), "b")])


@case("attribute/split_sizes_do_not_add_up", "Split", "split")
def _(d):
    simple(d, [helper.make_node("Split", ["x", "s"], ["y", "z"], axis=1)],
           inits=[numpy_helper.from_array(np.array([1, 1], np.int64), "s")])


@case("attribute/constant_without_value", "Constant")
def _(d):
    simple(d, [helper.make_node("Constant", [], ["c"]), helper.make_node("Add", ["x", "c"], ["y"])])


# -- Opsets and ops -------------------------------------------------------------------

@case("opset/absent", "imports no version")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], opset=None)


@case("opset/too_new", "opset 99")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], opset=99)


@case("opset/zero", "opset 0")
def _(d):
    simple(d, [helper.make_node("Relu", ["x"], ["y"])], opset=0)


@case("op/all_unsupported_listed", "'first'", "'second'", "'third'", "3 nodes")
def _(d):
    simple(d, [helper.make_node("Frobnicate", ["x"], ["a"], name="first"),
               helper.make_node("ImageDecoder", ["a"], ["b"], name="second"),
               helper.make_node("Relu", ["b"], ["c"]),
               helper.make_node("Hardmax", ["c"], ["y"], name="third", domain="com.example")])


def microsoft_quantized(d, node):
    s = numpy_helper.from_array(np.array(0.1, np.float32), "s")
    z = numpy_helper.from_array(np.array(0, np.uint8), "z")
    m = model_of([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]), node,
                  helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])], inits=[s, z])
    m.opset_import.add(domain="com.microsoft", version=1)
    save(d, m)


@case("op/com_microsoft_qlinearadd_without_result", "QLinearAdd has one result")
def _(d):
    microsoft_quantized(d, helper.make_node("QLinearAdd", ["q", "s", "z", "q", "s", "z", "s", "z"], [],
                                            domain="com.microsoft"))


@case("op/com_microsoft_qlinearconcat_broken_triple", "QLinearConcat takes Y_scale")
def _(d):
    microsoft_quantized(d, helper.make_node("QLinearConcat", ["s", "z", "q", "s"], ["c"], domain="com.microsoft"))


def branch(name, nodes, outputs):
    return helper.make_graph(nodes, name, [], outputs)


def loop_body(nodes, outputs, carried=(("v", (3,)),)):
    inputs = [helper.make_tensor_value_info("i", TensorProto.INT64, ()),
              helper.make_tensor_value_info("cond", TensorProto.BOOL, ())]
    inputs += [helper.make_tensor_value_info(n, F, s) for n, s in carried]
    return helper.make_graph(nodes, "body", inputs, outputs)


@case("subgraph/undefined_value", "'branch'", "'nowhere' is not defined")
def _(d):
    then = branch("then", [helper.make_node("Relu", ["nowhere"], ["r"])], [helper.make_empty_tensor_value_info("r")])
    other = branch("else", [helper.make_node("Relu", ["x"], ["s"])], [helper.make_empty_tensor_value_info("s")])
    simple(d, [helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then, else_branch=other)],
           inputs=[tensor_info("x"), tensor_info("c", TensorProto.BOOL, ())])


@case("subgraph/if_without_else", "'branch'", "'else_branch' is missing")
def _(d):
    then = branch("then", [helper.make_node("Relu", ["x"], ["r"])], [helper.make_empty_tensor_value_info("r")])
    simple(d, [helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then)],
           inputs=[tensor_info("x"), tensor_info("c", TensorProto.BOOL, ())])


@case("subgraph/branches_disagree", "'branch'", "then_branch", "else_branch", "agree")
def _(d):
    then = branch("then", [helper.make_node("Relu", ["x"], ["r"])], [helper.make_empty_tensor_value_info("r")])
    other = branch("else", [helper.make_node("Flatten", ["x"], ["s"])], [helper.make_empty_tensor_value_info("s")])
    simple(d, [helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then, else_branch=other)],
           inputs=[tensor_info("x"), tensor_info("c", TensorProto.BOOL, ())])


@case("subgraph/unsupported_op_in_body", "'loop'", "body", "'inner'", "Frobnicate", "not supported")
def _(d):
    body = loop_body([helper.make_node("Frobnicate", ["v"], ["w"], name="inner"),
                      helper.make_node("Identity", ["cond"], ["go"])],
                     [helper.make_empty_tensor_value_info("go"), helper.make_empty_tensor_value_info("w")])
    simple(d, [helper.make_node("Loop", ["m", "", "x"], ["y"], name="loop", body=body)],
           inputs=[tensor_info("x", shape=(3,))], inits=[numpy_helper.from_array(np.array(2, np.int64), "m")])


@case("subgraph/loop_carried_type_changes", "'loop'", "loop-carried value 0", "f32[3]", "f32[1,3]")
def _(d):
    body = loop_body([helper.make_node("Unsqueeze", ["v", "zero"], ["w"]),
                      helper.make_node("Identity", ["cond"], ["go"])],
                     [helper.make_empty_tensor_value_info("go"), helper.make_empty_tensor_value_info("w")])
    body.initializer.extend([numpy_helper.from_array(np.array([0], np.int64), "zero")])
    simple(d, [helper.make_node("Loop", ["m", "", "x"], ["y"], name="loop", body=body)],
           inputs=[tensor_info("x", shape=(3,))], inits=[numpy_helper.from_array(np.array(2, np.int64), "m")])


@case("subgraph/unbounded_loop_with_scan_output", "'loop'", "without a trip count", "scan outputs")
def _(d):
    body = loop_body([helper.make_node("Neg", ["v"], ["w"]), helper.make_node("Identity", ["cond"], ["go"]),
                      helper.make_node("Identity", ["w"], ["trace"])],
                     [helper.make_empty_tensor_value_info(n) for n in ("go", "w", "trace")])
    simple(d, [helper.make_node("Loop", ["", "c", "x"], ["y", "t"], name="loop", body=body)],
           inputs=[tensor_info("x", shape=(3,)), tensor_info("c", TensorProto.BOOL, ())],
           outputs=[helper.make_empty_tensor_value_info("y"), helper.make_empty_tensor_value_info("t")])


@case("subgraph/graph_attribute_on_plain_op", "'relu'", "subgraph attribute 'g'")
def _(d):
    g = branch("g", [helper.make_node("Relu", ["x"], ["r"])], [helper.make_empty_tensor_value_info("r")])
    simple(d, [helper.make_node("Relu", ["x"], ["y"], name="relu", g=g)])


# -- Functions -------------------------------------------------------------------

@case("function/body_uses_undefined_value", "F.0", "undefined", "not defined")
def _(d):
    body = onnx.FunctionProto(name="F", domain="local", input=["a"], output=["b"])
    body.node.extend([helper.make_node("Add", ["a", "undefined"], ["b"])])
    body.opset_import.add(domain="", version=17)
    m = model_of([helper.make_node("F", ["x"], ["y"], domain="local")], functions=[body])
    m.opset_import.add(domain="local", version=1)
    save(d, m)


@case("function/recursive", "F")
def _(d):
    body = onnx.FunctionProto(name="F", domain="local", input=["a"], output=["b"])
    body.node.extend([helper.make_node("F", ["a"], ["b"], domain="local")])
    body.opset_import.add(domain="", version=17)
    body.opset_import.add(domain="local", version=1)
    m = model_of([helper.make_node("F", ["x"], ["y"], domain="local")], functions=[body])
    m.opset_import.add(domain="local", version=1)
    save(d, m)


@case("function/wrong_attribute_kind", "'alpha'", "float")
def _(d):
    body = onnx.FunctionProto(name="F", domain="local", input=["a"], output=["b"], attribute=["alpha"])
    node = helper.make_node("LeakyRelu", ["a"], ["b"])
    ref = onnx.AttributeProto(name="alpha", ref_attr_name="alpha", type=onnx.AttributeProto.FLOAT)
    node.attribute.append(ref)
    body.node.extend([node])
    body.opset_import.add(domain="", version=17)
    m = model_of([helper.make_node("F", ["x"], ["y"], domain="local", alpha="high")], functions=[body])
    m.opset_import.add(domain="local", version=1)
    save(d, m)


# -- Crashers the fuzzers found (tests/fuzz/corpus): each refused cleanly ------

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus", "fuzz_import")
for _name in sorted(os.listdir(CORPUS)) if os.path.isdir(CORPUS) else []:
    def _copy(d, source=os.path.join(CORPUS, _name)):
        shutil.copy(source, os.path.join(d, "model.onnx"))
    CASES.append((f"fuzz_crasher/{_name[:-5]}", _copy, (), ()))


# --------------------------------------------------------------------------

def run_case(cuvil, name, build, expect, args, root):
    directory = os.path.join(root, name.replace("/", "_"))
    os.makedirs(directory)
    build(directory)
    model = os.path.join(directory, "model.onnx")
    output = os.path.join(directory, "infer.bin")
    try:
        proc = subprocess.run([cuvil, "compile", "-q", "--input", model, "--output", output, *args],
                              capture_output=True, text=True, errors="replace", timeout=120)
    except subprocess.TimeoutExpired:
        return False, ["cuvil compile ran past 120 s"]
    problems = []
    if proc.returncode != 1:
        problems.append(f"exit status {proc.returncode}, expected 1")
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    if not lines or not lines[0].startswith("error: ") or model not in lines[0]:
        problems.append("the first line is not 'error: <file>: ...'")
    missing = [s for s in expect if s not in proc.stderr]
    if missing:
        problems.append(f"stderr does not mention {missing}")
    if os.path.exists(output) and not os.path.isdir(model):
        problems.append("an output was written")
    return not problems, problems + [f"stderr: {proc.stderr.strip()[:600]!r}"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuvil", default=os.environ.get("CUVIL_BIN"))
    parser.add_argument("-k", dest="filter", default="")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args(argv)
    keys = [k for k in args.filter.split(",") if k]
    cases = [c for c in CASES if not keys or any(k in c[0] for k in keys)]
    if args.list:
        print("\n".join(c[0] for c in cases))
        return 0
    if not args.cuvil:
        parser.error("--cuvil (or CUVIL_BIN) is required")
    root = tempfile.mkdtemp(prefix="cuvil_malformed_")
    failed = 0
    try:
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futures = [pool.submit(run_case, args.cuvil, *c, root) for c in cases]
            for (name, *_), future in zip(cases, futures):
                ok, lines = future.result()
                print(f"{'PASS' if ok else 'FAIL'} {name}")
                if not ok:
                    failed += 1
                    print("\n".join("    " + line for line in lines))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
