"""A spec's validator built in memory: load the spec data like ``opgen lint`` does, render the
``aclnn`` op module from the same template as ``opgen generate`` and import it under a private
name. Used to prove an imported example passes its own enforced checks, and by the agreement
script to compare an uncurated import with a curated spec.
"""

from __future__ import annotations

import json
import os
import tempfile
import types
from functools import cache
from pathlib import Path

from generator.diagnostics import SpecError
from generator.docimport.yamlout import SCHEMA_LINE


@cache
def _template():
    from generator.generate import environment

    return environment().get_template("python/op.py.j2")


def load_spec(data: dict, catalog, snake: str | None = None):
    """The :class:`OpInfo` of spec ``data`` (raises SpecError exactly as ``opgen lint`` would)."""
    from generator.loader import load_op

    snake = snake or str(data.get("snake", "op"))
    path = _scratch() / f"{snake}.yaml"
    # JSON is YAML (flow style): as strict a read as the house-style text, and much faster to write.
    path.write_text(SCHEMA_LINE + "\n" + json.dumps(data, ensure_ascii=True), encoding="utf-8")
    saved = os.environ.get("OPGEN_NO_CACHE")
    os.environ["OPGEN_NO_CACHE"] = "1"  # a throw-away file: keep it out of the parse cache
    try:
        return load_op(path, catalog)
    finally:
        if saved is None:
            os.environ.pop("OPGEN_NO_CACHE", None)
        else:
            os.environ["OPGEN_NO_CACHE"] = saved
        path.unlink(missing_ok=True)


@cache
def _scratch() -> Path:
    """A private scratch folder for the spec files being checked (removed at exit)."""
    import atexit
    import shutil

    folder = Path(tempfile.mkdtemp(prefix="opgen-import-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


_COUNTER = [0]


def module_for(info, catalog) -> types.ModuleType:
    """The generated ``aclnn.ops.<snake>`` module of ``info``, imported privately (not registered)."""
    from generator.emit import python as py

    code = _template().render(**py.op_context(info, catalog))
    _COUNTER[0] += 1
    module = types.ModuleType(f"_opgen_import_{info.spec.snake}_{_COUNTER[0]}")
    exec(compile(code, f"<generated {info.spec.snake}>", "exec"), module.__dict__)  # our own generated code
    return module


# Fields that hold prose (never rules): blanked in the spec a validator is built from.
_PROSE = {"summary", "description", "formula", "deterministic", "usage", "shape", "text", "note", "resolution"}
_DROPPED = {"constraints", "precision", "doc_issues", "review", "sources"}


def rules_only(data):
    """``data`` with every prose field replaced by a placeholder and commentary dropped.

    The validator of an imported spec is built from this copy: it behaves the same (rules do not
    read prose), and no doc sentence reaches the Python source that gets executed, however the
    generator escapes it.
    """
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            if key in _DROPPED:
                continue
            if key in _PROSE and not (key == "shape" and isinstance(value, (list, str))):
                out[key] = {"zh": "-"} if isinstance(value, dict) else "-"
            else:
                out[key] = rules_only(value)
        return out
    if isinstance(data, list):
        return [rules_only(v) for v in data]
    return data


def validator_module(data: dict, catalog) -> types.ModuleType:
    """The validator module of spec ``data`` (built from its rules only, see :func:`rules_only`)."""
    return module_for(load_spec(rules_only(data), catalog), catalog)


def validate(module, product: str, arguments: dict) -> None:
    """Run ``module.validate`` with keyword arguments by doc name (outputs left out are inferred)."""
    args = [arguments.get(name, module.MISSING if name in module.OUTPUTS else None) for name in module.PARAMS]
    module.validate(*args, product=product)


__all__ = ["SpecError", "load_spec", "module_for", "rules_only", "validate", "validator_module"]
