"""Hardening of the runtime (issue 9, item 8 and the run-time minor items): resource limits estimated
before a kernel runs, bounded argument normalisation, and clean AclnnErrors for hostile arguments."""

from __future__ import annotations

import tracemalloc
import types
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import aclnn
from generator.kernels import (
    _accel,
    _common,
    convolution_backward,
    elu_backward,
    max_pool2d_with_mask_backward,
    max_pool3d_with_argmax_backward,
    multi_scale_deformable_attention_grad,
)
from generator.runtime import backend, examples
from generator.runtime import values as rv

KERNEL_MODULES = [
    convolution_backward,
    elu_backward,
    max_pool2d_with_mask_backward,
    max_pool3d_with_argmax_backward,
    multi_scale_deformable_attention_grad,
]


@pytest.fixture(autouse=True)
def default_limits(monkeypatch):
    monkeypatch.delenv(backend.ENV_MAX_BYTES, raising=False)
    monkeypatch.delenv(backend.ENV_MAX_OPS, raising=False)


def example(op: str) -> dict:
    spec = aclnn.spec(op)
    return examples.arguments(spec, spec.example)


def refused(call, code=561000) -> aclnn.AclnnError:
    with pytest.raises(aclnn.AclnnError) as info:
        call()
    assert info.value.code == code, info.value
    return info.value


# ---------------------------------------------------------------------------------------------
# Tiny inputs that imply huge work are refused before the kernel runs, naming the parameter.


@pytest.mark.parametrize("spatial", [[[0, 2**31 - 1]], [[0, 2**26]], [[2**31 - 1, 0]]])
@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_msda_huge_spatial_shape_is_refused(spatial, dtype):
    args = example("MultiScaleDeformableAttentionGrad")
    args["spatialShape"] = np.array(spatial, dtype)
    error = refused(lambda: aclnn.run("MultiScaleDeformableAttentionGrad", **args))
    assert "spatialShape" in error.message and "ACLNN_MAX_BYTES" in error.message


def conv_args(padding, dilation, kernel=3):
    x = np.ones((1, 2, 7, 7), np.float32)
    return dict(
        gradOutput=x,
        input=x,
        weight=np.ones((2, 2, kernel, kernel), np.float32),
        biasSizes=[2],
        stride=[1, 1],
        padding=padding,
        dilation=dilation,
        transposed=False,
        outputPadding=[0, 0],
        groups=1,
        outputMask=[True, True, True],
        cubeMathType=1,
    )


def test_convolution_huge_padding_and_dilation_is_refused():
    error = refused(lambda: aclnn.run("ConvolutionBackward", **conv_args([8000, 8000], [8000, 8000])))
    assert "dilation" in error.message or "padding" in error.message


def test_convolution_huge_padding_alone_is_refused_naming_padding():
    # a 1x1 kernel with padding p: the output grows with p, so the gradient must be that big too
    args = conv_args([3000, 3000], [1, 1], kernel=1)
    args["gradOutput"] = np.broadcast_to(np.float32(1), (1, 2, 6007, 6007))  # no memory behind it
    error = refused(lambda: aclnn.run("ConvolutionBackward", **args))
    assert "ACLNN_MAX" in error.message


def test_zero_stride_input_claiming_a_huge_size_is_refused():
    g = np.broadcast_to(np.float32(1), (1 << 20, 1 << 12))  # 4 G elements, no memory behind them
    error = refused(lambda: aclnn.elu_backward(g, 1.0, 1.0, 1.0, False, g))
    assert "gradOutput" in error.message


def test_accepted_calls_still_run():
    args = conv_args([1, 1], [1, 1])
    result = aclnn.run("ConvolutionBackward", **args)
    assert result["gradInput"].shape == (1, 2, 7, 7)


# ---------------------------------------------------------------------------------------------
# Limits: documented defaults, environment variables


def test_default_limits():
    assert backend.limits() == backend.Limits(512 * 2**20, 10**9)


@pytest.mark.parametrize(
    "text, expected",
    [("1024", 1024), ("2G", 2 * 2**30), ("512MiB", 512 * 2**20), ("1e9", 10**9), ("1_000", 1000), ("0", None),
     ("unlimited", None), ("none", None)],
)  # fmt: skip
def test_limit_environment_variables(monkeypatch, text, expected):
    monkeypatch.setenv(backend.ENV_MAX_BYTES, text)
    assert backend.limits().bytes == expected


@pytest.mark.parametrize("text", ["lots", "-1", "1e", "1.5.2", "12 apples"])
def test_bad_limit_environment_variable_is_an_aclnn_error(monkeypatch, text):
    monkeypatch.setenv(backend.ENV_MAX_OPS, text)
    g = np.ones((2, 2), np.float32)
    error = refused(lambda: aclnn.elu_backward(g, 1.0, 1.0, 1.0, False, g), code=161002)
    assert backend.ENV_MAX_OPS in error.message


def test_low_limits_refuse_and_zero_switches_them_off(monkeypatch):
    g = np.ones((64, 64), np.float32)
    monkeypatch.setenv(backend.ENV_MAX_BYTES, "1K")
    assert "gradOutput" in refused(lambda: aclnn.elu_backward(g, 1.0, 1.0, 1.0, False, g)).message
    monkeypatch.setenv(backend.ENV_MAX_BYTES, "0")
    monkeypatch.setenv(backend.ENV_MAX_OPS, "100")
    assert "ACLNN_MAX_OPS" in refused(lambda: aclnn.elu_backward(g, 1.0, 1.0, 1.0, False, g)).message
    monkeypatch.setenv(backend.ENV_MAX_OPS, "off")
    assert aclnn.elu_backward(g, 1.0, 1.0, 1.0, False, g).shape == (64, 64)


# ---------------------------------------------------------------------------------------------
# The enforcement works for any kernel module: with ``cost``, and without it (generic estimate).


def fake_kernel(monkeypatch, with_cost: bool, result_shape=(2, 2), cost=None):
    module = types.ModuleType("generator.kernels.fake_op")

    def kernel(grad_output, alpha_value):
        if alpha_value < 0:
            raise ValueError(f"grad_output must be finite when alpha_value={alpha_value}")
        if alpha_value == 1:
            raise TypeError("unsupported grad_output")
        return np.zeros(result_shape, np.float32)

    module.kernel = kernel
    if with_cost:
        module.cost = cost
    monkeypatch.setitem(backend._MODULES, "fake_op", module)


def execute(outputs, kwargs=None):
    out = outputs[0]
    kwargs = kwargs or {"grad_output": np.ones((2, 2), np.float32), "alpha_value": 0}
    signature = (("gradOutput", "const aclTensor*", None), ("alphaValue", "double", 0.0), ("out", "aclTensor*", out))
    return backend.execute("Fake", "numpy", "fake_op:kernel", kwargs, outputs, signature)


def test_generic_estimate_refuses_huge_outputs(monkeypatch):
    fake_kernel(monkeypatch, with_cost=False)
    huge = backend.output_desc((2**20, 2**20), "FLOAT")
    error = refused(lambda: execute((huge,)))
    assert "out " in error.message
    assert execute((backend.output_desc((2, 2), "FLOAT"),))[0].shape == (2, 2)


def test_kernel_cost_is_enforced_and_names_its_parameter(monkeypatch):
    fake_kernel(monkeypatch, True, cost=lambda grad_output, alpha_value: _common.Cost(10**12, 1, "alpha_value"))
    error = refused(lambda: execute((backend.output_desc((2, 2), "FLOAT"),)))
    assert "alphaValue implies" in error.message  # a snake_case name is mapped back to the doc name
    fake_kernel(monkeypatch, True, cost=lambda grad_output, alpha_value: _common.Cost(1, float("inf"), "gradOutput"))
    assert "gradOutput implies" in refused(lambda: execute((backend.output_desc((2, 2), "FLOAT"),))).message


def test_a_failing_cost_function_refuses_instead_of_escaping(monkeypatch):
    def broken(grad_output, alpha_value):
        raise KeyError("oops")

    fake_kernel(monkeypatch, True, cost=broken)
    assert "could not be estimated" in refused(lambda: execute((backend.output_desc((2, 2), "FLOAT"),))).message


def test_kernel_refusals_name_the_users_parameters(monkeypatch):
    fake_kernel(monkeypatch, with_cost=False)
    out = (backend.output_desc((2, 2), "FLOAT"),)
    error = refused(lambda: execute(out, {"grad_output": np.ones((2, 2), np.float32), "alpha_value": -1}))
    assert "gradOutput must be finite when alphaValue=-1" in error.message
    assert "grad_output" not in error.message and "alpha_value" not in error.message
    error = refused(lambda: execute(out, {"grad_output": np.ones((2, 2), np.float32), "alpha_value": 1}))
    assert "TypeError: unsupported gradOutput" in error.message


def test_result_that_does_not_fit_the_given_output_is_an_aclnn_error(monkeypatch):
    fake_kernel(monkeypatch, with_cost=False, result_shape=(3,))
    error = refused(lambda: execute((backend.output_desc((2, 2), "FLOAT"),)), code=161002)
    assert "out has shape [2, 2]" in error.message


def test_generated_kernel_refusal_uses_doc_names():
    args = example("ConvolutionBackward")
    args["biasSizes"] = [6]
    error = refused(lambda: aclnn.run("ConvolutionBackward", **args))
    assert "biasSizes" in error.message and "bias_sizes" not in error.message


@pytest.mark.parametrize("module", KERNEL_MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_cost_never_raises_on_odd_arguments(module):
    import inspect

    params = [p for p in inspect.signature(module.cost).parameters.values() if p.default is inspect.Parameter.empty]
    junk = [None, [], [0], [-5, 7], [2**62] * 3, np.zeros((0,), np.float32), np.zeros((2, 3, 0, 1), np.int64), 0, True]
    for i in range(len(junk) ** 2):
        kwargs = {p.name: junk[(i * (k + 1) + k) % len(junk)] for k, p in enumerate(params)}
        result = module.cost(**kwargs)
        assert isinstance(result, _common.Cost) and result.bytes >= 0 and result.ops >= 0


# ---------------------------------------------------------------------------------------------
# The estimates are upper bounds of what the kernels allocate (NumPy reports to tracemalloc).


def peak_bytes(call) -> int:
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def cost_cases():
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float16, ml_dtypes.bfloat16):
        g = rng.standard_normal((64, 1000)).astype(dtype)
        yield (
            elu_backward,
            dict(grad_output=g, alpha=1.0, scale=1.0, input_scale=1.0, is_result=False, self_or_result=g),
        )
        x = rng.standard_normal((4, 8, 33, 31)).astype(dtype)
        for transposed, groups, stride, pad, dil, k in [
            (False, 1, [1, 1], [1, 1], [1, 1], 3),
            (False, 8, [2, 2], [1, 1], [1, 1], 3),
            (False, 1, [1, 1], [4, 4], [4, 4], 3),
            (True, 2, [2, 2], [1, 1], [1, 1], 3),
        ]:
            w = rng.standard_normal((8, 8 // groups, k, k)).astype(dtype)
            if transposed:
                out = [(s - 1) * st - 2 * p + d * (k - 1) + 1 for s, st, p, d in zip(x.shape[2:], stride, pad, dil)]
            else:
                out = [(s + 2 * p - d * (k - 1) - 1) // st + 1 for s, st, p, d in zip(x.shape[2:], stride, pad, dil)]
            go = rng.standard_normal((4, 8, *out)).astype(dtype)
            yield convolution_backward, dict(
                grad_output=go, input=x, weight=w, bias_sizes=[8], stride=stride, padding=pad, dilation=dil,
                transposed=transposed, output_padding=[0, 0], groups=groups, output_mask=[True, True, True],
            )  # fmt: skip
        self = rng.standard_normal((2, 20, 31, 33)).astype(dtype)
        pooled = max_pool2d_with_mask_backward.max_pool2d_with_mask
        for product in ("910b", "910"):
            _, mask = pooled(self, [3, 3], [2, 2], [1, 1], [1, 1], True, product=product)
            grad = rng.standard_normal((2, 20, 16, 17)).astype(dtype)
            yield max_pool2d_with_mask_backward, dict(
                grad_output=grad, self=self, indices=mask, kernel_size=[3, 3], stride=[2, 2], padding=[1, 1],
                dilation=[1, 1], ceil_mode=True, product=product,
            )  # fmt: skip
        self3 = rng.standard_normal((2, 4, 9, 17, 15)).astype(dtype)
        _, idx = max_pool3d_with_argmax_backward.max_pool3d_with_argmax(self3, [3], [2], [1], [1], False)
        grad3 = rng.standard_normal(idx.shape).astype(dtype)
        yield max_pool3d_with_argmax_backward, dict(
            grad_output=grad3, self=self3, indices=idx, kernel_size=[3], stride=[2], padding=[1], dilation=[1],
            ceil_mode=False,
        )  # fmt: skip
        shapes = np.array([[16, 20], [8, 10], [4, 5]], np.int64)
        keys = int((shapes[:, 0] * shapes[:, 1]).sum())
        yield (
            multi_scale_deformable_attention_grad,
            dict(
                value=rng.standard_normal((2, keys, 4, 16)).astype(dtype),
                spatial_shape=shapes,
                level_start_index=np.array([0, 320, 400], np.int64),
                location=rng.uniform(-0.1, 1.1, (2, 300, 4, 3, 4, 2)).astype(dtype),
                attn_weight=rng.uniform(0, 1, (2, 300, 4, 3, 4)).astype(dtype),
                grad_output=rng.standard_normal((2, 300, 64)).astype(dtype),
            ),
        )


@pytest.mark.parametrize("mode", ["numpy", "compiled"])
@pytest.mark.parametrize("index", range(len(list(cost_cases()))))
def test_cost_bytes_bound_the_measured_peak(index, mode):
    pytest.importorskip("numba") if mode == "compiled" else None
    module, kwargs = list(cost_cases())[index]
    function = getattr(module, module.__name__.rsplit(".", 1)[-1])
    estimate = module.cost(**kwargs)
    with _accel.forced(mode):
        function(**kwargs)  # first call: imports and JIT compilation allocate Python objects too
        measured = peak_bytes(lambda: function(**kwargs))
    assert measured <= estimate.bytes, (module.__name__, measured, estimate)


# ---------------------------------------------------------------------------------------------
# Bounded normalisation of sequence arguments


def endless():
    while True:
        yield 1


@pytest.mark.parametrize("value", [range(10**18), range(10**19), range(2**63 + 5), endless(), list(range(5000))])
@pytest.mark.parametrize("entry", ["validate", "run"])
def test_huge_or_endless_int_arrays_are_refused_without_materialising(value, entry):
    args = example("MaxPool3dWithArgmaxBackward")
    args["padding"] = value
    error = refused(lambda: getattr(aclnn, entry)("MaxPool3dWithArgmaxBackward", **args), code=161002)
    assert "padding" in error.message and str(rv.MAX_ARRAY_LENGTH) in error.message


def test_bool_arrays_are_bounded_too():
    args = example("ConvolutionBackward")
    args["outputMask"] = endless()
    assert "outputMask" in refused(lambda: aclnn.validate("ConvolutionBackward", **args), code=161002).message


def test_a_generator_shape_is_read_once():
    desc = aclnn.TensorDesc((d for d in (2, 3)), "FLOAT")
    assert desc.shape == (2, 3)
    args = example("EluBackward")
    args["gradOutput"] = aclnn.TensorDesc((d for d in (2, 2)), "FLOAT")
    aclnn.validate("EluBackward", **args)  # the shape matches selfOrResult: accepted
    args = example("MaxPool3dWithArgmaxBackward")
    args["kernelSize"] = (k for k in args["kernelSize"])
    aclnn.run("MaxPool3dWithArgmaxBackward", **args)


def test_tensor_desc_bounds_and_consistency():
    assert refused(lambda: aclnn.TensorDesc([1] * 65, "FLOAT"), 161002)
    assert refused(lambda: aclnn.TensorDesc(endless(), "FLOAT"), 161002)
    assert refused(lambda: aclnn.TensorDesc((2, 2), "FLOAT", data=np.zeros(10**3, np.float32)), 161002)
    assert refused(lambda: aclnn.TensorDesc((2, 2), "FLOAT", data=[[0, 0], [0, 0]]), 161002)
    assert aclnn.TensorDesc((2,), "FLOAT", data=np.zeros(2, np.float32)).data is not None


def test_a_failing_user_iterable_is_an_aclnn_error():
    class Bad:
        def __iter__(self):
            raise RuntimeError("boom")

    assert "could not be read" in refused(lambda: aclnn.TensorDesc(Bad(), "FLOAT"), 161002).message


# ---------------------------------------------------------------------------------------------
# Numbers that do not fit


@pytest.mark.parametrize("value", [Fraction(10**400), Fraction(-(10**400), 3), 10**400, 2**63])
def test_scalars_that_do_not_fit_are_aclnn_errors(value):
    g = np.array([[-2, -1], [0, 1]], np.float32)
    error = refused(lambda: aclnn.elu_backward(g, value, 1.0, 1.0, True, g), code=161002)
    assert "alpha" in error.message


def test_fraction_that_fits_is_a_float_scalar():
    assert aclnn.Scalar(Fraction(1, 2), "FLOAT").value == 0.5
    assert rv.as_scalar("alpha", Fraction(1, 4)) == aclnn.Scalar(0.25, "FLOAT")


@pytest.mark.parametrize(
    "make",
    [lambda: aclnn.Scalar(10**400, "INT64"), lambda: aclnn.Scalar(1j, "FLOAT"), lambda: aclnn.Scalar("1", "FLOAT"),
     lambda: rv.as_float("x", Fraction(10**400)), lambda: rv.as_float("x", 10**400), lambda: rv.as_int("x", 10**5000),
     lambda: rv.as_float_array("x", endless()), lambda: rv.as_text("x", "a\0b"), lambda: rv.as_tensor_list("x", endless())],
)  # fmt: skip
def test_values_that_do_not_fit_their_c_type(make):
    refused(make, code=161002)


def test_huge_integers_in_messages_do_not_fail():
    error = refused(lambda: aclnn.validate("EluBackward", product=10**5000), code=161002)
    assert "integer of" in error.message
    error = refused(lambda: rv.as_int("groups", 10**5000), code=161002)
    assert "groups" in error.message


def test_other_sequence_normalisers():
    assert rv.as_float_array("x", (1, 2.5)) == (1.0, 2.5)
    assert rv.as_tensor_list("x", [None, np.zeros(2, np.float32)])[1].shape == (2,)
    assert rv.as_text("x", "mode") == "mode"


# ---------------------------------------------------------------------------------------------
# Outputs


def test_read_only_output_is_an_aclnn_error_and_stays_untouched():
    g = np.array([[-2, -1], [0, 1]], np.float32)
    out = np.full((2, 2), 7, np.float32)
    out.flags.writeable = False
    error = refused(lambda: aclnn.elu_backward(g, 1.0, 1.0, 1.0, True, g, out), code=161002)
    assert "gradInput" in error.message and "read-only" in error.message
    assert (out == 7).all()


def test_non_contiguous_output_is_filled_in_place():
    g = np.array([[-2, -1], [0, 1]], np.float32)
    buf = np.zeros((2, 4), np.float32)
    out = buf[:, ::2]
    result = aclnn.elu_backward(g, 1.0, 1.0, 1.0, True, g, out)
    assert result is out and np.array_equal(out, aclnn.elu_backward(g, 1.0, 1.0, 1.0, True, g))


def test_scalar_values_are_held_as_their_dtype_holds_them():
    """aclnn.Scalar stores what C's aclCreateScalar would read: floats rounded in their dtype (as NumPy /
    ml_dtypes round them), integers whole and in range, BOOL the truth value."""
    import math
    import random

    rng = random.Random(5)
    values = [rng.uniform(-1, 1) * 10 ** rng.randint(-50, 50) for _ in range(3000)]
    values += [0.1, 1e-46, -1e-8, 65519.9, 65520.0, 3.5e38, -0.0, math.inf, math.nan]
    kinds = {"FLOAT": np.float32, "FLOAT16": np.float16, "BFLOAT16": ml_dtypes.bfloat16}
    for value in values:
        for dtype, kind in kinds.items():
            with np.errstate(all="ignore"):
                # bfloat16 converts through float32, as ml_dtypes and CANN's bfloat16 type do
                source = np.float32(value) if dtype == "BFLOAT16" else np.float64(value)
                expected = float(np.asarray(source).astype(kind))
            got = aclnn.Scalar(value, dtype).value
            assert got == expected or (math.isnan(got) and math.isnan(expected)), (dtype, value, got, expected)
            assert math.copysign(1, got) == math.copysign(1, expected), (dtype, value)
    assert aclnn.Scalar(2**24 + 1, "FLOAT").value == 2**24  # an integer rounds once, to nearest even
    assert aclnn.Scalar(2.0, "INT32").value == 2 and aclnn.Scalar(3, "BOOL").value is True
    assert aclnn.Scalar(1 + 1e-10j, "COMPLEX64").value == complex(1, np.float32(1e-10))
    for value, dtype in [(2.5, "INT32"), (2**31, "INT32"), (-1, "UINT8"), (math.inf, "INT64")]:
        with pytest.raises(aclnn.AclnnError, match="Scalar.value"):
            aclnn.Scalar(value, dtype)
