"""Every parameter name, dtype, product and error code a seed doc mentions is in its spec.

The seed texts are scanned independently of the specs (patterns from cann-facts.md 6.2), so a
spec that drops something the seed says fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.loader import load_project

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO.parent / "shared" / "seeds"
if not SEEDS.is_dir():  # CI runs in a fresh clone with shared/ beside it
    SEEDS = Path("/work/shared/seeds")

PROJECT = load_project(REPO / "specs")
SEED_OPS = {info.spec.sources.seed: info for info in PROJECT.ops if info.spec.sources.seed}
PLUMBING = {"workspace", "workspaceSize", "executor", "stream"}
PARAM_LINE = re.compile(
    r"^\s*(?:[-•]\s*)?([A-Za-z_]\w*)\s*[(（]\s*(?:const\s+)?(?:acl\w+|bool|int\w*|uint\w*|void|double|float)\b"
)
CODE = re.compile(r"\b(161\d{3}|361\d{3}|561\d{3})\b")


def _seed_text(name: str) -> str:
    path = SEEDS / name
    if not path.is_file():
        pytest.skip(f"seed {name} not available")
    return path.read_text(encoding="utf-8")


def _section(text: str, start: str, stop: str) -> str:
    """The text between the first line containing ``start`` and the next containing ``stop``."""
    lines = text.splitlines()
    begin = next(i for i, line in enumerate(lines) if start in line)
    end = next((i for i in range(begin + 1, len(lines)) if stop in lines[i]), len(lines))
    return "\n".join(lines[begin:end])


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text.replace("[object Object]", "").replace("<term>", "").replace("</term>", "")).lower()


def _seed_products(text: str) -> set[str]:
    """Product tags named anywhere in the seed (aliases from the catalogue, cann-facts.md 1.2)."""
    flat = _norm(text)
    found = set()
    for product in PROJECT.catalog.products.products:
        spellings = [product.zh, product.en, *product.aliases]
        if any(len(_norm(s)) > 6 and _norm(s) in flat for s in spellings):
            found.add(product.tag)
    # 'Atlas 推理系列产品' / 'Atlas 训练系列产品' are prefixes of nothing else once A2/A3 are removed.
    rest = flat
    for product in PROJECT.catalog.products.products:
        for s in [product.zh, *product.aliases]:
            if len(_norm(s)) > len("atlas推理系列产品"):
                rest = rest.replace(_norm(s), "")
    if "atlas推理系列产品" in rest:
        found.add("310p")
    if "atlas训练系列产品" in rest:
        found.add("910")
    return found


def _seed_dtypes(text: str) -> set[str]:
    spelled = {}
    for d in PROJECT.catalog.dtypes.dtypes:
        for s in (d.name, *d.aliases):
            if len(s) > 3:
                spelled[s.upper()] = d.name
    words = set(re.findall(r"[A-Z][A-Z0-9_]{2,}", text))
    return {spelled[w] for w in words if w in spelled}


def _spec_dtypes(info) -> set[str]:
    spec = info.spec
    names = set()
    for p in spec.params:
        if p.tensor:
            for rule in p.tensor.dtypes:
                names |= set(rule.dtypes)
        if p.scalar and p.scalar.castable_to:
            names.add(p.scalar.castable_to)
        if p.array:
            names.add(p.array.element)
        plain = {"bool": "BOOL", "int8_t": "INT8", "int": "INT32", "int32_t": "INT32", "int64_t": "INT64"}
        if p.ctype in plain:  # the docs name a plain C value's type by its dtype spelling
            names.add(plain[p.ctype])
    for c in spec.checks:
        names |= set(c.dtypes or [])
    return names


def _spec_codes(info) -> set[int]:
    codes = set()
    for c in info.spec.checks:
        codes.add(PROJECT.catalog.status(c.code)[0])
        if c.doc_code is not None:
            codes.add(PROJECT.catalog.status(c.doc_code)[0])
    return codes


SEED_NAMES = sorted(SEED_OPS)


def test_all_five_seeds_have_specs():
    assert len(SEED_NAMES) == 5, SEED_NAMES


@pytest.mark.parametrize("seed", SEED_NAMES)
def test_seed_parameters_in_spec(seed):
    text = _seed_text(seed)
    info = SEED_OPS[seed]
    names = {m.group(1) for line in text.splitlines() if (m := PARAM_LINE.match(line))}
    names -= PLUMBING | {"aclnnStatus", "int", "if", "for", "return", "main", "Init", "CreateAclTensor"}
    names = {n for n in names if not n.startswith("aclnn") and not n[0].isupper()}
    spec_names = {p.name for p in info.spec.params}
    assert names, "no parameters found in the seed"
    assert names <= spec_names, f"missing from the spec: {sorted(names - spec_names)}"
    # and the prototype's parameter order is the spec's
    proto = next(line for line in text.splitlines() if "GetWorkspaceSize(" in line and "aclnnStatus" in line)
    order = re.findall(r"\*?\s*(\w+)\s*[,)]", proto.split("(", 1)[1])
    order = [n for n in order if n not in PLUMBING]
    assert order == [p.name for p in info.spec.params]


@pytest.mark.parametrize("seed", SEED_NAMES)
def test_seed_dtypes_in_spec(seed):
    text = _seed_text(seed)
    start = "参数说明"
    section = _section(text, start, "返回值")
    found = _seed_dtypes(section)
    missing = found - _spec_dtypes(SEED_OPS[seed])
    assert not missing, f"dtypes the seed names but the spec lacks: {sorted(missing)}"


@pytest.mark.parametrize("seed", SEED_NAMES)
def test_seed_products_in_spec(seed):
    """Products the seed supports are supported by the spec (or the difference is a recorded doc
    issue); products the seed marks unsupported (×) are not supported unless a doc issue says why."""
    text = _seed_text(seed)
    head = text.split("调用示例")[0]
    found = _seed_products(head)
    assert found, "no product found in the seed"
    unsupported = set()
    for line in head.splitlines():
        if line.rstrip().endswith("×"):
            unsupported |= _seed_products(line)
    spec = SEED_OPS[seed].spec
    issues = " ".join(i.text.zh + (i.text.en or "") for i in spec.doc_issues if "product" in i.id)
    noted = bool(issues)
    for tag in found - unsupported:
        assert tag in spec.products, f"the seed supports {tag}; the spec does not"
    for tag in unsupported & set(spec.products):
        assert noted, f"the seed marks {tag} unsupported; the spec supports it without a doc issue"


@pytest.mark.parametrize("seed", SEED_NAMES)
def test_seed_error_codes_in_spec(seed):
    text = _seed_text(seed).split("调用示例")[0]
    codes = {int(c) for c in CODE.findall(text)}
    missing = codes - _spec_codes(SEED_OPS[seed])
    assert not missing, f"status codes the seed names but the spec lacks: {sorted(missing)}"


@pytest.mark.parametrize("seed", SEED_NAMES)
def test_seed_error_items_count(seed):
    """Each numbered 161002 item of the seed's error paragraph has a documented check (at least as many)."""
    text = _seed_text(seed)
    errors = next((line for line in text.splitlines() if "161002" in line and "ACLNN_ERR_PARAM_INVALID" in line), "")
    items = re.findall(r"(?:^|\s)(\d{1,2})\.\s", errors.split("161002", 1)[-1]) if errors else []
    documented = [c for c in SEED_OPS[seed].spec.checks if c.documented and PROJECT.catalog.status(c.code)[0] == 161002]
    assert len(documented) >= len(items)


def test_round_trip_every_spec():
    """load -> dump -> load gives an equal model, for every spec."""
    from generator.model import OpSpec
    from generator.yamlio import dump_yaml, load_yaml

    for info in PROJECT.ops:
        dumped = dump_yaml(info.spec.model_dump(mode="json", exclude_defaults=False))
        again = OpSpec.model_validate(load_yaml(dumped).data)
        assert again == info.spec, info.spec.name
