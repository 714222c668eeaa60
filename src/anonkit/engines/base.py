"""The counting-engine contract and registry.

An engine turns rows into an :class:`~anonkit.core.encoding.EncodedTable`: it encodes each
quasi-identifier against its hierarchy and counts the distinct combinations. Algorithms
only ever see the result, never the engine. Optional engines (spark) are imported lazily.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any, Protocol

from anonkit.core.encoding import EncodedTable
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import UnknownNameError


class CountingEngine(Protocol):
    """Encode quasi-identifiers and count their distinct combinations."""

    name: str

    def encode(
        self, frame: Any, columns: Sequence[str], hierarchies: Sequence[Hierarchy]
    ) -> EncodedTable:
        """Encode ``columns`` of ``frame`` against ``hierarchies`` and count them.

        Raises
        ------
        MissingValuesError
            If a quasi-identifier holds nulls.
        ValuesNotInHierarchyError
            If a value is not a leaf of its column's hierarchy.
        """
        ...


_ENGINES: dict[str, str] = {
    "polars": "anonkit.engines.polars_engine:PolarsEngine",
    "numpy": "anonkit.engines.numpy_engine:NumpyEngine",
}


def available_engines() -> list[str]:
    """Names of the registered engines."""
    return sorted(_ENGINES)


def get_engine(name: str = "polars") -> CountingEngine:
    """Instantiate the engine registered under ``name``."""
    try:
        target = _ENGINES[name]
    except KeyError:
        raise UnknownNameError("engine", name, list(_ENGINES)) from None
    module_name, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    engine: CountingEngine = cls()
    return engine
