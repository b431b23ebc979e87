"""What a first-phase call decides, for the spec and review tests: the failing check and status code."""

from __future__ import annotations

import aclnn


def verdict(op: str, product: str, **arguments) -> tuple[str | None, int] | None:
    """``(check id, status code)`` of the first check ``aclnn.validate`` fails, or None when it passes."""
    try:
        aclnn.validate(op, product=product, **arguments)
    except aclnn.AclnnError as err:
        return err.check, err.code
    return None


def status(op: str, product: str, **arguments) -> int:
    """The status code of ``aclnn.validate`` on these arguments (0: it passes)."""
    found = verdict(op, product, **arguments)
    return 0 if found is None else found[1]


def T(shape, dtype: str = "FLOAT", fmt: str = "ND") -> aclnn.TensorDesc:
    """A data-less tensor argument."""
    return aclnn.TensorDesc(tuple(shape), dtype, fmt)
