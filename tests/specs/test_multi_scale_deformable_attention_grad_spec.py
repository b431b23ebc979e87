"""Content tests for specs/multi_scale_deformable_attention_grad.yaml (facts 5.4)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from generator import expr as ex
from generator.loader import load_project

SPECS = Path(__file__).resolve().parents[2] / "specs"
NAME = "aclnnMultiScaleDeformableAttentionGrad"

FLOATS = ["FLOAT", "FLOAT16", "BFLOAT16"]
INTS = ["INT32", "INT64"]
INPUTS = ["value", "spatialShape", "levelStartIndex", "location", "attnWeight", "gradOutput"]
OUTPUTS = ["gradValue", "gradLocation", "gradAttnWeight"]

# The code order of facts 5.4 (e): nulls, dtypes, formats, ranks (+ fixed dims), the doc constraints,
# the cross-tensor consistency checks, the output shapes; the unverified product rule last.
CODE_ORDER = [
    "null-pointers",
    "dtype-supported",
    "dtype-same",
    "format-not-nz",
    "value-rank",
    "spatial-shape-rank",
    "spatial-shape-last-dim",
    "level-start-index-rank",
    "location-rank",
    "location-last-dim",
    "attn-weight-rank",
    "grad-output-rank",
    "channels-multiple-of-8",
    "channels-max",
    "num-queries-max",
    "num-levels-max",
    "num-heads-max",
    "num-points-max",
    "batch-same",
    "heads-same",
    "levels-same",
    "queries-same",
    "points-same",
    "grad-output-channels",
    "grad-value-shape",
    "grad-location-shape",
    "grad-attn-weight-shape",
    "product-supported",
]


@pytest.fixture(scope="module")
def info():
    return load_project(SPECS).op(NAME)


@pytest.fixture(scope="module")
def spec(info):
    return info.spec


@pytest.fixture(scope="module")
def project():
    return load_project(SPECS)


def check(spec, check_id):
    return next(c for c in spec.checks if c.id == check_id)


def code(project, ref):
    return project.catalog.status(ref)[0]


# ---------------------------------------------------------------------------------------------
# Signature, products, parameter tables


def test_signature_order_and_ctypes(spec):
    assert [p.name for p in spec.params] == INPUTS + OUTPUTS
    assert all(spec.param(n).ctype == "const aclTensor*" and spec.param(n).role == "input" for n in INPUTS)
    assert all(spec.param(n).ctype == "aclTensor*" and spec.param(n).role == "output" for n in OUTPUTS)
    assert spec.header == "aclnnop/aclnn_multi_scale_deformable_attention_grad.h"


def test_products_are_the_current_docs(spec):
    assert spec.products == ["950", "910_93", "910b"]
    assert any(i.id == "seed-products" and i.source == "seed" for i in spec.doc_issues)


@pytest.mark.parametrize(
    "name, dtypes",
    [(n, INTS if n in ("spatialShape", "levelStartIndex") else FLOATS) for n in INPUTS + OUTPUTS],
)
def test_dtype_tables_same_on_every_product(spec, name, dtypes):
    rules = spec.param(name).tensor.dtypes
    assert len(rules) == 1 and rules[0].products == "all"
    assert rules[0].dtypes == dtypes


@pytest.mark.parametrize(
    "name, rank",
    [
        ("value", 4),
        ("spatialShape", 2),
        ("levelStartIndex", 1),
        ("location", 6),
        ("attnWeight", 5),
        ("gradOutput", 3),
        ("gradValue", 4),
        ("gradLocation", 6),
        ("gradAttnWeight", 5),
    ],
)
def test_ranks(spec, name, rank):
    t = spec.param(name).tensor
    assert (t.rank.min, t.rank.max) == (rank, rank)
    assert t.formats == ["ND"] and t.non_contiguous


def test_grad_output_is_3d_not_seed_4d(spec):
    assert "num_heads*channels" in spec.param("gradOutput").tensor.shape.zh
    assert check(spec, "grad-output-rank").rank.min == 3
    assert any(i.id == "seed-grad-output-4d" for i in spec.doc_issues)


def test_outputs_infer_from_their_inputs(spec):
    for out, src in zip(OUTPUTS, ("value", "location", "attnWeight"), strict=True):
        infer = spec.param(out).infer
        assert (infer.shape, infer.dtype) == (f"{src}.shape", f"{src}.dtype")


# ---------------------------------------------------------------------------------------------
# Checks: order, codes, doc-vs-code deviations


def test_check_order_matches_code(spec):
    assert [c.id for c in spec.checks] == CODE_ORDER


def test_codes(spec, project):
    assert code(project, check(spec, "null-pointers").code) == 161001
    assert set(check(spec, "null-pointers").params) == set(INPUTS + OUTPUTS)
    for c in spec.checks:
        if c.id not in ("null-pointers", "product-supported"):
            assert code(project, c.code) == 161002, c.id
    # the op_api turns the failed l0 launch into ACLNN_ERR_INNER_NULLPTR (issue 11: note and code agree)
    assert code(project, check(spec, "product-supported").code) == 561103


def test_seed_dtype_consistency_not_enforced(spec):
    c = check(spec, "dtype-same")
    assert c.kind == "dtype_same" and c.enforced is False and c.documented
    assert sum(not c.enforced for c in spec.checks) == 1


def test_format_check_only_rejects_nz_and_is_undocumented(spec):
    c = check(spec, "format-not-nz")
    assert c.documented is False
    for name in INPUTS:
        assert f"{name}.format != FRACTAL_NZ" in c.expr
    for name in OUTPUTS:
        assert name not in c.expr


def test_product_check_last_skips_empty_inputs(spec):
    c = spec.checks[-1]
    assert c.kind == "product_supported" and c.documented is False
    assert "unverified" in c.note.en
    for name in INPUTS:
        assert f"{name}.empty" in c.when


@pytest.mark.parametrize(
    "check_id, expr",
    [
        ("channels-multiple-of-8", "value.shape[3] % 8 == 0"),
        ("channels-max", "value.shape[3] <= 256"),
        ("num-queries-max", "location.shape[1] < 500000"),
        ("num-levels-max", "spatialShape.shape[0] <= 16"),
        ("num-heads-max", "value.shape[2] <= 16"),
        ("num-points-max", "location.shape[4] <= 16"),
        ("grad-output-channels", "gradOutput.shape[2] == value.shape[2] * value.shape[3]"),
    ],
)
def test_constraint_exprs(spec, check_id, expr):
    assert check(spec, check_id).expr == expr


def test_location_order_recorded(spec):
    issue = next(i for i in spec.doc_issues if i.id == "location-yx-order")
    assert "(x, y)" in issue.resolution.en
    constraint = next(c for c in spec.constraints if "y, x" in c.text.en)
    assert "(x, y)" in constraint.text.en and "W" in constraint.text.en


def test_sample_defect_recorded(spec):
    assert any(i.id == "sample-int-from-float" and i.source == "sample" for i in spec.doc_issues)


# ---------------------------------------------------------------------------------------------
# A tiny first-failing-check evaluator over the parsed rules (no generated code involved)


def tensor(shape, dtype="FLOAT", fmt="ND"):
    shape = tuple(shape)
    numel = 1
    for d in shape:
        numel *= d
    return SimpleNamespace(shape=shape, rank=len(shape), dtype=dtype, format=fmt, numel=numel, empty=numel == 0)


def sample_args(**overrides):
    args = {
        "value": tensor([1, 1, 1, 8]),
        "spatialShape": tensor([1, 2], "INT32"),
        "levelStartIndex": tensor([1], "INT32"),
        "location": tensor([1, 32, 1, 1, 1, 2]),
        "attnWeight": tensor([1, 32, 1, 1, 1]),
        "gradOutput": tensor([1, 32, 8]),
        "gradValue": tensor([1, 1, 1, 8]),
        "gradLocation": tensor([1, 32, 1, 1, 1, 2]),
        "gradAttnWeight": tensor([1, 32, 1, 1, 1]),
    }
    args.update(overrides)
    return args


def first_failure(info, args, product="910b"):
    spec = info.spec
    renderer = ex.PythonRenderer({p.name: p.name for p in spec.params})

    def holds(path, env):
        try:
            return bool(eval(renderer.render(info.exprs[path]), {}, env))  # noqa: S307 - our own rendering
        except (IndexError, TypeError):
            return False

    env = {**args, "product": product}
    for i, c in enumerate(spec.checks):
        if not c.enforced or (c.products and product not in c.products):
            continue
        if c.when and not holds(("checks", i, "when"), env):
            continue
        params = [args[n] for n in c.params or []]
        if c.kind == "not_null":
            ok = all(p is not None for p in params)
        elif c.kind == "dtype_supported":
            ok = all(
                args[n].dtype
                in next(r.dtypes for r in spec.param(n).tensor.dtypes if r.products == "all" or product in r.products)
                for n in c.params
            )
        elif c.kind == "rank_in":
            ok = all(c.rank.min <= p.rank <= c.rank.max for p in params)
        elif c.kind == "shape_same":
            ok = all(p.shape == params[0].shape for p in params)
        elif c.kind == "expr":
            ok = holds(("checks", i, "expr"), env)
        elif c.kind == "product_supported":
            ok = product in spec.products
        else:
            raise AssertionError(f"unexpected kind {c.kind}")
        if not ok:
            return c.id
    return None


def test_doc_sample_passes(info):
    assert first_failure(info, sample_args()) is None


def test_mixed_dtypes_pass(info):
    args = sample_args(
        value=tensor([1, 1, 1, 8], "FLOAT16"),
        gradLocation=tensor([1, 32, 1, 1, 1, 2], "BFLOAT16"),
        spatialShape=tensor([1, 2], "INT64"),
    )
    assert first_failure(info, args) is None


@pytest.mark.parametrize(
    "overrides, expected",
    [
        ({"attnWeight": None}, "null-pointers"),
        ({"spatialShape": tensor([1, 2], "FLOAT")}, "dtype-supported"),
        ({"gradValue": tensor([1, 1, 1, 8], "DOUBLE")}, "dtype-supported"),
        ({"location": tensor([1, 32, 1, 1, 1, 2], fmt="FRACTAL_NZ")}, "format-not-nz"),
        ({"gradOutput": tensor([1, 32, 1, 8])}, "grad-output-rank"),  # the seed's 4-D reading
        ({"spatialShape": tensor([1, 3], "INT32")}, "spatial-shape-last-dim"),
        ({"location": tensor([1, 32, 1, 1, 1, 3])}, "location-last-dim"),
        ({"value": tensor([1, 1, 1, 12]), "gradValue": tensor([1, 1, 1, 12])}, "channels-multiple-of-8"),
        ({"value": tensor([1, 1, 1, 264])}, "channels-max"),
        ({"value": tensor([1, 1, 17, 8])}, "num-heads-max"),
        ({"location": tensor([1, 32, 1, 1, 17, 2])}, "num-points-max"),
        ({"location": tensor([1, 500000, 1, 1, 1, 2])}, "num-queries-max"),
        ({"spatialShape": tensor([17, 2], "INT32")}, "num-levels-max"),
        ({"levelStartIndex": tensor([2], "INT32")}, "levels-same"),
        ({"gradOutput": tensor([2, 32, 8])}, "batch-same"),
        ({"gradOutput": tensor([1, 32, 16])}, "grad-output-channels"),
        ({"gradLocation": tensor([1, 32, 1, 1, 1, 1])}, "grad-location-shape"),
    ],
)
def test_first_failing_check(info, overrides, expected):
    assert first_failure(info, sample_args(**overrides)) == expected


def test_unsupported_product_fails_last_but_empty_input_succeeds(info):
    assert first_failure(info, sample_args(), product="310p") == "product-supported"
    assert first_failure(info, sample_args(value=tensor([1, 1, 1, 12])), product="310p") == "channels-multiple-of-8"
    empty = sample_args(value=tensor([1, 0, 1, 8]), gradValue=tensor([1, 0, 1, 8]))
    assert first_failure(info, empty, product="310p") is None


def test_generated_validator_returns_the_note_s_code_on_unsupported_products(info):
    """Issue 11: the note and the validator agree (561103 last, after the 161002 checks; empty passes)."""
    import aclnn
    from generator.model import ExampleTensor as T
    from generator.runtime.examples import arguments

    spec = info.spec
    for product in ("310p", "910", "310b"):
        with pytest.raises(aclnn.AclnnError) as err:
            aclnn.validate(spec.op, product=product, **arguments(spec, spec.example, with_data=False))
        assert (err.value.check, err.value.code) == ("product-supported", 561103)
        bad = arguments(spec, spec.example, {"spatialShape": T(shape=[1, 2], dtype="FLOAT")}, with_data=False)
        with pytest.raises(aclnn.AclnnError) as err:
            aclnn.validate(spec.op, product=product, **bad)
        assert (err.value.check, err.value.code) == ("dtype-supported", 161002)
        empty = arguments(spec, spec.example, {"value": T(shape=[1, 0, 1, 8], dtype="FLOAT")}, with_data=False)
        aclnn.validate(spec.op, product=product, **empty)
    note = check(spec, "product-supported").note
    assert "561103" in note.en and "161002 first" in note.en


# ---------------------------------------------------------------------------------------------
# Example


def test_example(spec):
    example = spec.example
    assert example.product == "910b"
    assert example.inputs["spatialShape"].dtype == "INT32" and example.inputs["spatialShape"].data == [1, 1]
    assert all(isinstance(v, int) for v in example.inputs["spatialShape"].data)
    assert example.inputs["levelStartIndex"].data == [0]
    assert example.inputs["gradOutput"].shape == [1, 32, 8]
    assert example.expected["gradValue"].data == [8.0] * 8
    assert example.expected["gradLocation"].fill == 4.0
    assert example.expected["gradAttnWeight"].fill == 2.0
    assert spec.kernel.module == spec.kernel.function == "multi_scale_deformable_attention_grad"


def _materialise(t):
    import numpy as np

    dtype = {"FLOAT": np.float32, "INT32": np.int32, "INT64": np.int64}[t.dtype]
    if t.data is not None:
        return np.array(t.data, dtype=dtype).reshape(t.shape)
    return np.full(t.shape, t.fill, dtype=dtype)


def test_example_expected_matches_reference_kernel(spec):
    import numpy as np

    module = pytest.importorskip(f"generator.kernels.{spec.kernel.module}")
    kernel = getattr(module, spec.kernel.function)
    inputs = [_materialise(spec.example.inputs[name]) for name in INPUTS]
    results = kernel(*inputs)
    for name, got in zip(OUTPUTS, results, strict=True):
        want = spec.example.expected[name]
        assert list(got.shape) == want.shape
        np.testing.assert_allclose(got, _materialise(want), rtol=1e-6, atol=1e-6)
