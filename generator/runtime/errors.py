"""AclnnError and check-failure reporting."""

from __future__ import annotations

from dataclasses import dataclass


class AclnnError(Exception):
    """A first-phase failure, with CANN's status code.

    ``code`` is the aclnnStatus value (e.g. 161002), ``name`` its symbolic name
    (``ACLNN_ERR_PARAM_INVALID``) and ``message`` names the parameter, the rule and the values seen.
    ``check`` is the spec's check id when a spec check failed (None for argument-type errors).
    """

    def __init__(self, code: int, name: str, message: str, check: str | None = None):
        super().__init__(f"{name} ({code}): {message}")
        self.code, self.name, self.message, self.check = code, name, message, check


@dataclass(frozen=True)
class CheckInfo:
    """What a generated validator knows about one of its checks."""

    op: str
    id: str
    code: int
    name: str
    text: str  # the doc's wording (English when available)
    rule: str  # the rule in the expression language's doc rendering


def describe(value: object) -> str:
    """Compact text of an argument for error messages."""
    from generator.runtime.values import Scalar, TensorDesc

    if isinstance(value, TensorDesc):
        return f"shape={list(value.shape)}, dtype={value.dtype}, format={value.format}"
    if isinstance(value, Scalar):
        return f"{value.value!r} ({value.dtype})"
    if isinstance(value, tuple):
        return repr(list(value))
    return repr(value)


def fail(info: CheckInfo, seen: dict[str, object], detail: str = "") -> AclnnError:
    """Build the AclnnError for a failed check; the caller raises it."""
    values = "; ".join(f"{name}: {describe(value)}" for name, value in seen.items())
    message = f"aclnn{info.op}: check '{info.id}' failed: {info.text}"
    if detail:
        message += f" ({detail})"
    message += f" Rule: {info.rule}."
    if values:
        message += f" Seen: {values}."
    return AclnnError(info.code, info.name, message, info.id)


# What evaluating a rule on hostile arguments can raise (generated validators catch these).
EVALUATION_ERRORS = (IndexError, TypeError, ValueError, ZeroDivisionError, OverflowError, KeyError, AttributeError)
