"""AclnnError and check-failure reporting."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


class AclnnError(Exception):
    """A first-phase failure, with CANN's status code.

    ``code`` is the aclnnStatus value (e.g. 161002), ``name`` its symbolic name
    (``ACLNN_ERR_PARAM_INVALID``) and ``message`` names the parameter, the rule and the values seen.
    ``check`` is the spec's check id when a spec check failed (None for argument-type errors).
    """

    def __init__(self, code: int, name: str, message: str | Callable[[], str], check: str | None = None):
        # ``message`` may be a function that builds the text: validators fail often (a support
        # search tries thousands of calls) and most failures are never printed.
        super().__init__()
        self.code, self.name, self.check = code, name, check
        self._message = message

    @property
    def message(self) -> str:
        text = self._message
        if not isinstance(text, str):
            text = self._message = str(text())
        return text

    @property
    def args(self) -> tuple[str]:  # what Exception would hold: the full text
        return (str(self),)

    def __str__(self) -> str:
        return f"{self.name} ({self.code}): {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def __reduce__(self):
        return (AclnnError, (self.code, self.name, self.message, self.check))


@dataclass(frozen=True)
class CheckInfo:
    """What a generated validator knows about one of its checks."""

    op: str
    id: str
    code: int
    name: str
    text: str  # the doc's wording (English when available)
    rule: str  # the rule in the expression language's doc rendering


_REPR_LIMIT = 120


def show(value: object, limit: int = _REPR_LIMIT) -> str:
    """``repr(value)`` for an error message, never raising and never long.

    Hostile arguments must not turn an error message into a new failure: a 5,000-digit integer's
    ``repr`` raises ValueError, a user object's ``__repr__`` may raise anything, and a huge list would
    flood the message.
    """
    if type(value) is int and value.bit_length() > 256:
        return f"<{'negative ' if value < 0 else ''}integer of {value.bit_length()} bits>"
    if isinstance(value, (list, tuple)) and len(value) > 16:
        head = ", ".join(show(v, 24) for v in value[:8])
        return f"[{head}, ... ({len(value)} values)]"
    try:
        text = repr(value)
    except Exception:  # any user-defined __repr__ failure
        return f"<{type(value).__name__} object>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(value: object) -> str:
    """Compact text of an argument for error messages."""
    from generator.runtime.values import Scalar, TensorDesc

    if isinstance(value, TensorDesc):
        return f"shape={list(value.shape)}, dtype={value.dtype}, format={value.format}"
    if isinstance(value, Scalar):
        return f"{show(value.value)} ({value.dtype})"
    if isinstance(value, tuple):
        return show(list(value))
    return show(value)


def fail(info: CheckInfo, seen: dict[str, object], detail: str = "") -> AclnnError:
    """Build the AclnnError for a failed check; the caller raises it. The message is written when
    first read (the values seen are the validator's normalised, immutable arguments)."""
    return AclnnError(info.code, info.name, lambda: _message(info, seen, detail), info.id)


def _message(info: CheckInfo, seen: dict[str, object], detail: str) -> str:
    values = "; ".join(f"{name}: {describe(value)}" for name, value in seen.items())
    message = f"aclnn{info.op}: check '{info.id}' failed: {info.text}"
    if detail:
        message += f" ({detail})"
    message += f" Rule: {info.rule}."
    if values:
        message += f" Seen: {values}."
    return message


# What evaluating a rule on hostile arguments can raise (generated validators catch these).
EVALUATION_ERRORS = (IndexError, TypeError, ValueError, ZeroDivisionError, OverflowError, KeyError, AttributeError)
