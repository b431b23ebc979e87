"""Independent review of specs/multi_scale_deformable_attention_grad.yaml against CANN's op_api.

Each case is one small call and the status ``aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize``
returns, read from aclnn_multi_scale_deformable_attention_grad.cpp (function names cited). CANN's
decision procedure (the same on every product; there is no arch switch in the op_api):

1. ``CheckNotNull``: the six inputs then the three outputs (161001).
2. ``CheckDtypeValid``: each tensor on its own, in signature order: value, location, attnWeight,
   gradOutput and the three outputs in {FLOAT, FLOAT16, BF16}; spatialShape, levelStartIndex in
   {INT32, INT64}; no cross-tensor dtype equality (161002).
3. ``CheckFormat``: FRACTAL_NZ rejected on the six inputs only (161002).
4. ``CheckShape``: value 4-D, spatialShape 2-D with dim 1 == 2, levelStartIndex 1-D, location 6-D with
   dim 5 == 2, attnWeight 5-D, gradOutput 3-D; then C % 8 == 0, C <= 256, nq < 500000, L <= 16,
   nh <= 16, P <= 16 (C, nh from value; L from spatialShape; nq, P from location) (161002).
5. ``CheckInputShapeConsistency``: bs, nh, L, nq, P across tensors, gradOutput dim 2 == nh * C (161002).
6. ``CheckOutputShapeConsistency``: each output's shape equals its input's (161002).
7. Any of the six inputs empty: success before any kernel (outputs' emptiness is not looked at).
8. Otherwise the l0 kernel is added; kernels exist for A2/A3/950 only, so elsewhere the launch fails and
   the op_api returns 561103 (read from the code, unverified on a device).
"""

from __future__ import annotations

import pytest

import aclnn
from tests.specs.verdicts import verdict

T = aclnn.TensorDesc
OK = None
NULL = 161001
INVALID = 161002


def call(bs=1, keys=4, nh=1, c=8, levels=1, nq=32, points=1, fdt="FLOAT", idt="INT32", **over):
    values = dict(
        value=T((bs, keys, nh, c), fdt),
        spatialShape=T((levels, 2), idt),
        levelStartIndex=T((levels,), idt),
        location=T((bs, nq, nh, levels, points, 2), fdt),
        attnWeight=T((bs, nq, nh, levels, points), fdt),
        gradOutput=T((bs, nq, nh * c), fdt),
    )
    values.update(over)
    return values


def outcome(product, args):
    found = verdict("MultiScaleDeformableAttentionGrad", product, **args)
    return None if found is None else (found[1], found[0])


CASES = [
    # --- CheckNotNull: inputs and outputs, before anything else
    ("value null", "910b", call(value=None), NULL, "null-pointers"),
    ("spatialShape null", "910b", call(spatialShape=None), NULL, "null-pointers"),
    ("levelStartIndex null", "950", call(levelStartIndex=None), NULL, "null-pointers"),
    ("location null", "910_93", call(location=None), NULL, "null-pointers"),
    ("attnWeight null", "910b", call(attnWeight=None), NULL, "null-pointers"),
    ("gradOutput null", "910b", call(gradOutput=None), NULL, "null-pointers"),
    ("gradValue null", "910b", call(gradValue=None), NULL, "null-pointers"),
    ("gradLocation null", "910b", call(gradLocation=None), NULL, "null-pointers"),
    ("gradAttnWeight null", "910b", call(gradAttnWeight=None), NULL, "null-pointers"),
    ("null before bad dtype", "910b", call(value=T((1, 4, 1, 8), "INT32"), gradAttnWeight=None), NULL, "null-pointers"),
    ("null before empty success", "910b", call(bs=0, gradLocation=None), NULL, "null-pointers"),
    ("null on an unsupported product", "910", call(gradOutput=None), NULL, "null-pointers"),
    # --- CheckDtypeValid: per tensor, any mix of float types is fine
    ("value DOUBLE", "910b", call(value=T((1, 4, 1, 8), "DOUBLE")), INVALID, "dtype-supported"),
    ("spatialShape FLOAT", "910b", call(spatialShape=T((1, 2), "FLOAT")), INVALID, "dtype-supported"),
    ("spatialShape INT16", "910b", call(spatialShape=T((1, 2), "INT16")), INVALID, "dtype-supported"),
    ("levelStartIndex UINT32", "910b", call(levelStartIndex=T((1,), "UINT32")), INVALID, "dtype-supported"),
    ("location INT32", "910b", call(location=T((1, 32, 1, 1, 1, 2), "INT32")), INVALID, "dtype-supported"),
    ("attnWeight DOUBLE", "950", call(attnWeight=T((1, 32, 1, 1, 1), "DOUBLE")), INVALID, "dtype-supported"),
    ("gradOutput HIFLOAT8", "950", call(gradOutput=T((1, 32, 8), "HIFLOAT8")), INVALID, "dtype-supported"),
    ("gradValue INT32", "910b", call(gradValue=T((1, 4, 1, 8), "INT32")), INVALID, "dtype-supported"),
    ("gradLocation DOUBLE", "910b", call(gradLocation=T((1, 32, 1, 1, 1, 2), "DOUBLE")), INVALID, "dtype-supported"),
    ("gradAttnWeight INT64", "910b", call(gradAttnWeight=T((1, 32, 1, 1, 1), "INT64")), INVALID, "dtype-supported"),
    (
        "mixed float dtypes, no equality check",
        "910b",
        call(
            value=T((1, 4, 1, 8), "BFLOAT16"),
            location=T((1, 32, 1, 1, 1, 2), "FLOAT16"),
            gradValue=T((1, 4, 1, 8), "FLOAT"),
            gradAttnWeight=T((1, 32, 1, 1, 1), "BFLOAT16"),
        ),
        OK,
        None,
    ),
    ("mixed index dtypes", "910b", call(spatialShape=T((1, 2), "INT64")), OK, None),
    ("BF16 everywhere on A3", "910_93", call(fdt="BFLOAT16", idt="INT64"), OK, None),
    ("dtype before format", "910b", call(value=T((1, 4, 1, 8), "DOUBLE", "FRACTAL_NZ")), INVALID, "dtype-supported"),
    ("dtype before rank", "910b", call(gradOutput=T((1, 32), "INT8")), INVALID, "dtype-supported"),
    (
        "dtypes checked on an unsupported product too",
        "310p",
        call(value=T((1, 4, 1, 8), "DOUBLE")),
        INVALID,
        "dtype-supported",
    ),
    # --- CheckFormat: NZ on the six inputs only
    ("value NZ", "910b", call(value=T((1, 4, 1, 8), "FLOAT", "FRACTAL_NZ")), INVALID, "format-not-nz"),
    ("spatialShape NZ", "910b", call(spatialShape=T((1, 2), "INT32", "FRACTAL_NZ")), INVALID, "format-not-nz"),
    ("levelStartIndex NZ", "910b", call(levelStartIndex=T((1,), "INT32", "FRACTAL_NZ")), INVALID, "format-not-nz"),
    ("gradOutput NZ", "910b", call(gradOutput=T((1, 32, 8), "FLOAT", "FRACTAL_NZ")), INVALID, "format-not-nz"),
    ("attnWeight NZ", "950", call(attnWeight=T((1, 32, 1, 1, 1), "FLOAT", "FRACTAL_NZ")), INVALID, "format-not-nz"),
    (
        "outputs NZ are not checked",
        "910b",
        call(
            gradValue=T((1, 4, 1, 8), "FLOAT", "FRACTAL_NZ"), gradAttnWeight=T((1, 32, 1, 1, 1), "FLOAT", "FRACTAL_NZ")
        ),
        OK,
        None,
    ),
    ("other private format accepted", "910b", call(value=T((1, 4, 1, 8), "FLOAT", "NC1HWC0")), OK, None),
    (
        "public non-ND formats accepted",
        "910b",
        call(value=T((1, 4, 1, 8), "FLOAT", "NCHW"), gradOutput=T((1, 32, 8), "FLOAT", "NCL")),
        OK,
        None,
    ),
    ("format before rank", "910b", call(gradOutput=T((1, 32, 8, 1), "FLOAT", "FRACTAL_NZ")), INVALID, "format-not-nz"),
    # --- CheckShape: ranks and fixed dims in the code's order
    ("value 3-D", "910b", call(value=T((1, 4, 8), "FLOAT")), INVALID, "value-rank"),
    ("value 5-D", "910b", call(value=T((1, 4, 1, 8, 1), "FLOAT")), INVALID, "value-rank"),
    ("spatialShape 1-D", "910b", call(spatialShape=T((2,), "INT32")), INVALID, "spatial-shape-rank"),
    ("spatialShape 3-D", "910b", call(spatialShape=T((1, 2, 1), "INT32")), INVALID, "spatial-shape-rank"),
    ("spatialShape (1, 3)", "910b", call(spatialShape=T((1, 3), "INT32")), INVALID, "spatial-shape-last-dim"),
    ("spatialShape (2, 1)", "910b", call(spatialShape=T((2, 1), "INT32")), INVALID, "spatial-shape-last-dim"),
    (
        "spatialShape (1, 0) is not empty-success",
        "910b",
        call(spatialShape=T((1, 0), "INT32")),
        INVALID,
        "spatial-shape-last-dim",
    ),
    ("levelStartIndex 0-D", "910b", call(levelStartIndex=T((), "INT32")), INVALID, "level-start-index-rank"),
    ("levelStartIndex 2-D", "910b", call(levelStartIndex=T((1, 1), "INT32")), INVALID, "level-start-index-rank"),
    ("location 5-D", "910b", call(location=T((1, 32, 1, 1, 2), "FLOAT")), INVALID, "location-rank"),
    ("location last dim 1", "910b", call(location=T((1, 32, 1, 1, 1, 1), "FLOAT")), INVALID, "location-last-dim"),
    ("location last dim 0", "910b", call(location=T((1, 32, 1, 1, 1, 0), "FLOAT")), INVALID, "location-last-dim"),
    ("attnWeight 6-D", "910b", call(attnWeight=T((1, 32, 1, 1, 1, 1), "FLOAT")), INVALID, "attn-weight-rank"),
    (
        "gradOutput 4-D (the seed's shape)",
        "910b",
        call(gradOutput=T((1, 32, 1, 8), "FLOAT")),
        INVALID,
        "grad-output-rank",
    ),
    ("gradOutput 2-D", "910b", call(gradOutput=T((1, 32), "FLOAT")), INVALID, "grad-output-rank"),
    ("ranks before constraints", "910b", call(c=12, gradOutput=T((1, 32), "FLOAT")), INVALID, "grad-output-rank"),
    (
        "value rank before spatialShape rank",
        "910b",
        call(value=T((1, 8), "FLOAT"), spatialShape=T((2,), "INT32")),
        INVALID,
        "value-rank",
    ),
    # --- CheckShape: the doc constraints (one combined check in the code)
    ("C = 12", "910b", call(c=12), INVALID, "channels-multiple-of-8"),
    ("C = 4", "910b", call(c=4), INVALID, "channels-multiple-of-8"),
    ("C = 264", "910b", call(c=264), INVALID, "channels-max"),
    ("C = 256", "910b", call(c=256), OK, None),
    ("C = 0 passes the constraints and is empty", "910b", call(c=0), OK, None),
    ("nq = 500000", "910b", call(nq=500000), INVALID, "num-queries-max"),
    ("nq = 499999", "910b", call(nq=499999), OK, None),
    ("L = 17", "910b", call(levels=17), INVALID, "num-levels-max"),
    ("L = 16", "910b", call(levels=16), OK, None),
    ("nh = 17", "910b", call(nh=17), INVALID, "num-heads-max"),
    ("nh = 16", "910b", call(nh=16), OK, None),
    ("P = 17", "910b", call(points=17), INVALID, "num-points-max"),
    ("P = 16", "910b", call(points=16), OK, None),
    (
        "L is read from spatialShape, not location",
        "910b",
        call(levels=17, spatialShape=T((1, 2), "INT32")),
        INVALID,
        "levels-same",
    ),
    (
        "nh is read from value: location's 17 heads fail as a mismatch",
        "910b",
        call(location=T((1, 32, 17, 1, 1, 2), "FLOAT")),
        INVALID,
        "heads-same",
    ),
    (
        "constraints before consistency",
        "910b",
        call(c=12, gradOutput=T((2, 32, 8), "FLOAT")),
        INVALID,
        "channels-multiple-of-8",
    ),
    ("constraint on empty input still fails", "910b", call(bs=0, c=12), INVALID, "channels-multiple-of-8"),
    # --- CheckInputShapeConsistency
    ("bs of location", "910b", call(location=T((2, 32, 1, 1, 1, 2), "FLOAT")), INVALID, "batch-same"),
    ("bs of attnWeight", "910b", call(attnWeight=T((2, 32, 1, 1, 1), "FLOAT")), INVALID, "batch-same"),
    ("bs of gradOutput", "910b", call(gradOutput=T((2, 32, 8), "FLOAT")), INVALID, "batch-same"),
    ("nh of attnWeight", "910b", call(attnWeight=T((1, 32, 2, 1, 1), "FLOAT")), INVALID, "heads-same"),
    ("L of levelStartIndex", "910b", call(levelStartIndex=T((2,), "INT32")), INVALID, "levels-same"),
    ("L of location", "910b", call(location=T((1, 32, 1, 2, 1, 2), "FLOAT")), INVALID, "levels-same"),
    ("L of attnWeight", "910b", call(attnWeight=T((1, 32, 1, 2, 1), "FLOAT")), INVALID, "levels-same"),
    ("nq of attnWeight", "910b", call(attnWeight=T((1, 31, 1, 1, 1), "FLOAT")), INVALID, "queries-same"),
    ("nq of gradOutput", "910b", call(gradOutput=T((1, 31, 8), "FLOAT")), INVALID, "queries-same"),
    ("P of attnWeight", "910b", call(attnWeight=T((1, 32, 1, 1, 2), "FLOAT")), INVALID, "points-same"),
    (
        "gradOutput last dim C instead of nh*C",
        "910b",
        call(nh=2, gradOutput=T((1, 32, 8), "FLOAT")),
        INVALID,
        "grad-output-channels",
    ),
    ("gradOutput last dim nh*C", "910b", call(nh=2), OK, None),
    ("bs before heads", "910b", call(location=T((2, 32, 2, 1, 1, 2), "FLOAT")), INVALID, "batch-same"),
    ("K (num_keys) is never checked", "910b", call(keys=1000), OK, None),
    (
        "consistency on empty input still fails",
        "910b",
        call(bs=0, gradOutput=T((0, 31, 8), "FLOAT")),
        INVALID,
        "queries-same",
    ),
    # --- CheckOutputShapeConsistency
    ("gradValue transposed", "910b", call(gradValue=T((1, 4, 8, 1), "FLOAT")), INVALID, "grad-value-shape"),
    ("gradValue rank 3", "910b", call(gradValue=T((1, 4, 8), "FLOAT")), INVALID, "grad-value-shape"),
    ("gradLocation", "910b", call(gradLocation=T((1, 32, 1, 1, 2, 1), "FLOAT")), INVALID, "grad-location-shape"),
    ("gradAttnWeight", "910b", call(gradAttnWeight=T((1, 1, 32, 1, 1), "FLOAT")), INVALID, "grad-attn-weight-shape"),
    (
        "output shape on empty input still fails",
        "910b",
        call(bs=0, gradValue=T((1, 4, 1, 8), "FLOAT")),
        INVALID,
        "grad-value-shape",
    ),
    (
        "gradValue checked before gradLocation",
        "910b",
        call(gradValue=T((1,), "FLOAT"), gradLocation=T((1,), "FLOAT")),
        INVALID,
        "grad-value-shape",
    ),
    # --- empty inputs: success after every check, on any product
    ("bs 0", "910b", call(bs=0), OK, None),
    ("keys 0", "910b", call(keys=0), OK, None),
    ("nq 0", "950", call(nq=0), OK, None),
    ("L 0", "910b", call(levels=0), OK, None),
    ("P 0", "910b", call(points=0), OK, None),
    ("empty on 910 (no kernel needed)", "910", call(keys=0), OK, None),
    ("empty on 310b", "310b", call(bs=0), OK, None),
    # --- unsupported products: every check runs; a valid non-empty call fails at the kernel launch
    ("310p valid non-empty", "310p", call(), 561103, "product-supported"),
    ("910 valid non-empty", "910", call(), 561103, "product-supported"),
    ("310b valid non-empty", "310b", call(), 561103, "product-supported"),
    ("310p shape error first", "310p", call(c=12), INVALID, "channels-multiple-of-8"),
    ("910 format error first", "910", call(value=T((1, 4, 1, 8), "FLOAT", "FRACTAL_NZ")), INVALID, "format-not-nz"),
    ("950 valid", "950", call(fdt="FLOAT16"), OK, None),
    ("A3 valid", "910_93", call(), OK, None),
]


@pytest.mark.parametrize(("why", "product", "args", "code", "check"), CASES, ids=[c[0] for c in CASES])
def test_case(why, product, args, code, check):
    expected = None if code is None else (code, check)
    assert outcome(product, args) == expected, why
