"""The support matrix and ``aclnn.supports`` agree with ``aclnn.validate`` on every (op, product, tensor, dtype).

A listed cell comes with a witness call that ``aclnn.validate`` accepts (checked here, independently of the
search); an unlisted cell on a supported product has no accepted call among the witnesses' variations; a
product the op does not support lists nothing. The docs' matrix (built from validators rendered in memory)
equals ``aclnn.supports`` (the package's validators) cell by cell.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import aclnn
from generator.emit import matrix
from generator.generate import environment
from generator.loader import load_project
from generator.runtime import support
from generator.runtime.values import TensorDesc

REPO = Path(__file__).resolve().parents[1]
PROJECT = load_project(REPO / "specs")
DTYPES = [d.name for d in PROJECT.catalog.dtypes.dtypes]
PRODUCTS = PROJECT.catalog.product_tags


@pytest.fixture(scope="module")
def built():
    return matrix.build(PROJECT, environment())


@pytest.mark.parametrize("info", PROJECT.ops, ids=lambda info: info.spec.name)
def test_every_cell_agrees_with_validate(info):
    spec = info.spec
    module = aclnn._module(spec.name)
    cells = 0
    for product in PRODUCTS:
        for tensor in support.tensor_params(spec):
            for dtype in DTYPES:
                listed = aclnn.supports(spec.name, product, dtype, param=tensor)
                if product not in spec.products:
                    assert not listed, (product, tensor, dtype)
                    continue
                found = support.witness(spec, module, product, tensor, dtype, DTYPES)
                if listed:
                    assert found is not None
                    assert isinstance(found[tensor], TensorDesc) and found[tensor].dtype == dtype
                    aclnn.validate(spec.name, product=product, **found)  # raises if not accepted
                else:
                    assert found is None, (product, tensor, dtype)
                cells += 1
    assert cells > 0


def test_docs_matrix_equals_supports(built):
    for name, table in built.items():
        for product in PRODUCTS:
            assert table[product] == aclnn.supports(name, product), (name, product)


def test_per_tensor_not_merged():
    """MaxPool2dWithMaskBackward's INT8 is its mask's dtype, not its main input's."""
    assert aclnn.supports("MaxPool2dWithMaskBackward", "910b", "INT8") is False
    assert aclnn.supports("MaxPool2dWithMaskBackward", "910b", "INT8", param="indices") is True
    assert "INT8" not in aclnn.supports("MaxPool2dWithMaskBackward", "910b", param="self")


def test_rejected_dtype_not_listed():
    """ConvolutionBackward on 950 refuses FLOAT8_E4M3FN for the weight gradient (fp8-no-e4m3fn-grad-weight):
    the gradWeight cell omits it, while the inputs keep it (accepted when outputMask[1] is false)."""
    table = aclnn.supports("ConvolutionBackward", "950")
    assert "HIFLOAT8" in table["input"]
    assert "FLOAT8_E4M3FN" not in table["gradWeight"]
    assert "FLOAT8_E4M3FN" in table["input"]
    assert (
        aclnn.supports("ConvolutionBackward", "Ascend 950PR/Ascend 950DT", "FLOAT8_E4M3FN", param="gradWeight") is False
    )


def test_supports_contract():
    full = aclnn.supports("EluBackward", "910")
    assert list(full) == ["gradOutput", "selfOrResult", "gradInput"]
    assert full["gradOutput"] == ("FLOAT", "FLOAT16")
    assert aclnn.supports("aclnnEluBackward", "ascend910", param="gradOutput") == ("FLOAT", "FLOAT16")
    assert aclnn.supports("EluBackward", "910", "float16") is True
    assert aclnn.supports("EluBackward", "910", "BF16") is False
    assert aclnn.supports("EluBackward", "310b") == {}
    assert aclnn.supports("EluBackward", "310b", "FLOAT") is False
    for bad in (
        lambda: aclnn.supports("NoSuchOp", "910"),
        lambda: aclnn.supports("EluBackward", "999"),
        lambda: aclnn.supports("EluBackward", "910", "NOT_A_DTYPE"),
        lambda: aclnn.supports("EluBackward", "910", param="alpha"),
    ):
        with pytest.raises(aclnn.AclnnError) as info:
            bad()
        assert info.value.code == 161002


def test_opgen_matrix_cli(built):
    run = [sys.executable, "-m", "generator.cli", "matrix", "--specs", str(REPO / "specs")]
    data = json.loads(subprocess.run([*run, "--format", "json"], check=True, capture_output=True, text=True).stdout)
    assert set(data) == set(built)
    for name, entry in data.items():
        assert entry["main_input"] == support.main_input(PROJECT.op(name).spec)
        assert {p: {t: tuple(d) for t, d in row.items()} for p, row in entry["products"].items()} == built[name]
    md = subprocess.run([*run, "--format", "md"], check=True, capture_output=True, text=True).stdout
    assert md == matrix.markdown(PROJECT, built)


@pytest.mark.parametrize("info", PROJECT.ops, ids=lambda info: info.spec.name)
def test_pruned_search_equals_the_exhaustive_one(info):
    """Skipping the calls an earlier dtype-check rejection already rules out changes no cell: the
    search with every pruning (the loader's parsed ``when`` rules) equals the search that runs the
    validator on every call, on every product."""
    spec = info.spec
    module = aclnn._module(spec.name)
    pruned = _Counting(spec, module, DTYPES, info.exprs)
    exhaustive = _Counting(spec, module, DTYPES, info.exprs)
    exhaustive._check_keys = {}  # nothing is ever recorded as rejected: every call runs
    assert pruned.table(PRODUCTS) == exhaustive.table(PRODUCTS)
    assert pruned.calls <= exhaustive.calls
    if spec.op == "BatchNormBackward":  # dtype checks under a `when`: the pruning must take effect
        assert pruned.calls < exhaustive.calls / 10  # about 500 validator calls instead of 30,000


def test_runtime_parses_the_rules_as_the_loader():
    """aclnn.supports parses the checks' rules itself (the package has no loader output): the same trees."""
    for info in PROJECT.ops:
        mine = support._rules(aclnn.spec(info.spec.name))
        loaders = {k: v for k, v in info.exprs.items() if k[0] == "checks" and k[2] in ("when", "expr")}
        assert mine == loaders, info.spec.name


class _Counting(support._Search):
    calls = 0

    def _accepts(self, product, args):
        self.calls += 1
        return super()._accepts(product, args)


def test_a_rejection_rules_out_only_calls_with_the_same_dtypes_and_condition():
    """The rejection key holds what decides a dtype check: the dtypes it tests and what its ``when``
    reads (a tensor read only by layout enters by shape and format, one whose dtype is read in full)."""
    bn = next(info for info in PROJECT.ops if info.spec.op == "BatchNormBackward")
    checks = support._check_keys(bn.spec, bn.exprs)
    check = checks["dtype-supported"]
    assert check.names == ("gradOut", "input")
    assert dict(check.reads) == {"gradOut": "layout", "input": "layout"}
    a = TensorDesc((2, 3, 4, 4), "FLOAT")
    args = {"gradOut": a, "input": a}
    retyped = check.template(args, ("input",)).fill("INT8")
    assert retyped == check.key({"gradOut": a, "input": TensorDesc((2, 3, 4, 4), "INT8")})
    assert retyped != check.key({"gradOut": a, "input": TensorDesc((2, 3, 4, 5), "INT8")})
    assert check.key({"gradOut": a}) is None  # input unknown (an inferred output would be): no key
    assert support._check_keys(bn.spec, None).keys() <= {c.id for c in bn.spec.checks if c.when is None}
    # an expr check enters by what its rule reads: GeluBackward's promotion rule by dtypes only
    gelu = next(info for info in PROJECT.ops if info.spec.op == "GeluBackward")
    promotable = support._check_keys(gelu.spec, gelu.exprs)["dtype-promotable"]
    assert promotable.names == () and dict(promotable.reads) == {"gradOutput": "dtype", "self": "dtype"}
    shapes = support._check_keys(gelu.spec, gelu.exprs)["out-shape"]
    assert dict(shapes.reads) == {"gradInput": "layout", "gradOutput": "layout", "self": "layout"}
    b = TensorDesc((2, 3, 4, 4), "FLOAT16")
    assert promotable.key({"gradOutput": a, "self": b}) == promotable.key(
        {"gradOutput": a, "self": b.__class__((9,), "FLOAT16")}
    )
    assert promotable.key({"gradOutput": a, "self": b}) != promotable.key({"gradOutput": a, "self": a})
