"""Bindings for the less common C parameter types: aclTensorList, const char* and aclFloatArray reach the
validator normalised (rt.as_tensor_list / as_text / as_float_array) and the kernel as plain values."""

from __future__ import annotations

import numpy as np
import pytest

import aclnn  # noqa: F401  (installs the catalogue in the runtime)
from generator.deep import render_module
from generator.loader import load_project
from tests.hostile.trees import spec_tree


def _mutate(data):
    data["params"].insert(
        5,
        {
            "name": "extras",
            "ctype": "const aclTensorList*",
            "role": "input",
            "nullable": True,
            "description": {"zh": "张量列表", "en": "Tensors."},
        },
    )
    data["params"].insert(
        6, {"name": "mode", "ctype": "const char*", "role": "attribute", "description": {"zh": "模式", "en": "A mode."}}
    )
    data["params"].insert(
        7,
        {
            "name": "weights",
            "ctype": "const aclFloatArray*",
            "role": "attribute",
            "nullable": True,
            "array": {"element": "FLOAT"},
            "description": {"zh": "权重", "en": "Weights."},
        },
    )
    data["example"]["inputs"]["extras"] = [{"shape": [2], "dtype": "FLOAT", "data": [1, 2]}]
    data["example"]["inputs"]["mode"] = "fast"
    data["example"]["inputs"]["weights"] = [0.5, 1.5]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    project = load_project(spec_tree(tmp_path_factory.mktemp("kinds"), "elu_backward", _mutate))
    return render_module(project.ops[0], project)


def _args(extras, mode, weights):
    g = np.ones((2, 2), np.float32)
    return (g, 1.0, 1.0, 1.0, True, extras, mode, weights, g)


def test_valid_values_pass(module):
    module.validate(*_args([np.zeros(2, np.float32), None], "fast", (0.5, 2)))
    module.validate(*_args(None, "", None))


@pytest.mark.parametrize(
    ("extras", "mode", "weights", "names"),
    [
        (np.zeros(2, np.float32), "fast", None, "extras"),  # a single array is not a list of tensors
        ([object()], "fast", None, "extras[0]"),
        ((t for t in [np.zeros(2)] * 10_000), "fast", None, "extras"),  # bounded, never materialised whole
        (None, 7, None, "mode"),
        (None, "a\0b", None, "mode"),
        (None, "x" * 100_000, None, "mode"),
        (None, "fast", ["1.5"], "weights"),
        (None, "fast", range(10**18), "weights"),
    ],
    ids=["single-array", "junk-entry", "endless", "not-text", "nul", "too-long", "text-number", "huge-range"],
)
def test_bad_values_are_clean_errors(module, extras, mode, weights, names):
    with pytest.raises(aclnn.AclnnError) as info:
        module.validate(*_args(extras, mode, weights))
    assert info.value.code == 161002
    assert names in info.value.message
