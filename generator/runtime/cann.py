"""The CANN backend: runs an aclnn operator through the real library with ctypes.

It needs an installed CANN toolkit (``ASCEND_TOOLKIT_HOME``) and an Ascend device; on machines
without them every call raises AclnnError(361001) saying so.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

from generator.runtime.errors import AclnnError


def _libraries() -> tuple[ctypes.CDLL, ctypes.CDLL]:
    home = os.environ.get("ASCEND_TOOLKIT_HOME", "").strip()
    if not home:
        raise AclnnError(
            361001,
            "ACLNN_ERR_RUNTIME_ERROR",
            "backend 'cann' needs a CANN toolkit: set ASCEND_TOOLKIT_HOME (none is installed here)",
        )
    lib = Path(home) / "lib64"
    try:
        return ctypes.CDLL(str(lib / "libascendcl.so")), ctypes.CDLL(str(lib / "libopapi.so"))
    except OSError as exc:
        raise AclnnError(361001, "ACLNN_ERR_RUNTIME_ERROR", f"cannot load CANN libraries from {lib}: {exc}") from None


def run(op: str, kwargs: dict, outputs: tuple):
    """Execute ``aclnn<op>`` on the device (not available without a CANN install)."""
    _libraries()
    raise AclnnError(
        561003,
        "ACLNN_ERR_INNER_FIND_KERNEL_ERROR",
        f"aclnn{op}: the ctypes CANN backend is not implemented for this operator yet",
    )
