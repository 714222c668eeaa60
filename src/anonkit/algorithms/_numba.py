"""Loading an algorithm's numba kernels on first use, or falling back to numpy.

numba takes a while to import and compiles each kernel on its first call (caching the
machine code on disk), so an algorithm imports its kernels module only when it first runs
it. :func:`load_kernels` returns that module (:func:`load_kernel` one kernel of it), or
``None`` where the compiled path cannot run well: numba is not importable, its JIT is
disabled (``NUMBA_DISABLE_JIT=1``, which would run the kernels as slow Python) or it
cannot set up its cache (a :class:`RuntimeWarning` says why). The caller then runs its
numpy implementation, which gives the same results (its tests compare both).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any


def load_kernels(module: str, what: str, fallback: str) -> ModuleType | None:
    """The kernels module ``module`` (imported, compiling nothing yet), or ``None``.

    ``what`` names the compiled path and ``fallback`` what runs instead, for the warning
    given when numba cannot set up its cache: "{what} is unavailable (...); using
    {fallback}."
    """
    try:
        import numba  # noqa: PLC0415 (imported on first use: it takes a while)
    except ImportError:  # pragma: no cover - numba is a dependency
        return None
    if getattr(numba.config, "DISABLE_JIT", False):
        return None
    try:
        return importlib.import_module(module)
    except RuntimeError as exc:  # pragma: no cover - e.g. no writable cache directory
        warnings.warn(
            f"{what} is unavailable ({exc}); using {fallback}.", RuntimeWarning, stacklevel=3
        )
        return None


def load_kernel(module: str, name: str, what: str, fallback: str) -> Callable[..., Any] | None:
    """The kernel ``name`` of the kernels module ``module`` (:func:`load_kernels`), or
    ``None`` where the compiled path cannot run."""
    kernels = load_kernels(module, what, fallback)
    if kernels is None:
        return None
    kernel: Callable[..., Any] = getattr(kernels, name)
    return kernel
