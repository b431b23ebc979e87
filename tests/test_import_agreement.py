"""Uncurated imports already behave like CANN on most calls.

For each seed op, the validator of the *uncurated* import of its current doc and of its seed agrees
with the curated spec's validator (``specs/<op>.yaml``) on the curated spec's own check cases for at
least the share recorded below (set at what the importer achieves; ``python -m
benchmarks.import_agreement -v`` prints the shares and every disagreement).
"""

from __future__ import annotations

import pytest

from benchmarks.import_agreement import corpus_docs, measure

# (doc kind, op) -> cases the import agrees on, out of the curated spec's cases
FLOORS = {
    ("current", "ConvolutionBackward"): 78,
    ("current", "EluBackward"): 16,
    ("current", "MaxPool2dWithMaskBackward"): 35,
    ("current", "MaxPool3dWithArgmaxBackward"): 34,
    ("current", "MultiScaleDeformableAttentionGrad"): 52,
    ("seed", "ConvolutionBackward"): 64,
    ("seed", "EluBackward"): 16,
    ("seed", "MaxPool2dWithMaskBackward"): 36,
    ("seed", "MaxPool3dWithArgmaxBackward"): 31,
    ("seed", "MultiScaleDeformableAttentionGrad"): 49,
}


@pytest.fixture(scope="module")
def project():
    from generator.loader import load_project
    from tests.importing import REPO

    return load_project(REPO / "specs")


@pytest.mark.parametrize("kind", ["current", "seed"])
def test_agreement_with_curated_validators(project, kind, capsys):
    docs = corpus_docs(project, kind)
    if not docs:
        pytest.skip("the doc corpus is not available")
    results = measure(project, docs)
    with capsys.disabled():
        for r in results:
            print(f"\n{kind:7} {r.op:36} {r.agreed:3}/{r.cases:<3} {r.share:6.1%}", end="")
        print()
    for r in results:
        assert r.cases > 0
        floor = FLOORS.get((kind, r.op))
        if floor is not None:
            assert r.agreed >= floor, (r.op, r.disagreements)
        assert not [d for d in r.disagreements if d[2] in (-1, -2, -3)], r.disagreements  # no crash, no missing param
