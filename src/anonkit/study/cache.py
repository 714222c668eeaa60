"""The finished cells of a study, one small JSON file each, so a study resumes.

A cell's outcome (its rows of the tidy table, timings and status) is written atomically
to ``<cache>/<key>.json`` as soon as it is finished, before it is counted; a later run
with the same key reads it instead of computing it. Files are plain, strict JSON (NaN and
infinities written as strings) and hold figures only, never records.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anonkit._atomic import atomic_write_text

__all__ = ["CellCache", "CellOutcome", "decode_value", "encode_value"]

_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _encode(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, str) and value in _SPECIAL:
        return _SPECIAL[value]
    return value


def encode_value(value: Any) -> Any:
    """A value for strict JSON: non-finite floats as ``"NaN"``, ``"Infinity"``..."""
    return _encode(value)


def decode_value(value: Any) -> Any:
    """The inverse of :func:`encode_value`."""
    return _decode(value)


@dataclass(frozen=True)
class CellOutcome:
    """What one cell produced.

    Attributes
    ----------
    rows
        Its rows of the tidy table, as ``column -> value`` mappings (without the
        baseline columns, which the runner fills in once every fold's baselines are known).
    seconds
        Seconds spent per stage: ``anonymize``, ``metrics``, ``utility``.
    status
        ``"ok"`` or ``"error: <one sentence>"``.
    cacheable
        Whether the outcome may be reused: failures of the inputs (a k larger than the
        training split, ...) are; unexpected errors are not, so a rerun retries them.
    """

    rows: tuple[Mapping[str, Any], ...]
    seconds: Mapping[str, float]
    status: str = "ok"
    cacheable: bool = True

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> str:
        """Strict JSON of the outcome (non-finite floats as ``"NaN"``, ``"Infinity"``)."""
        payload = {
            "status": self.status,
            "seconds": {k: _encode(float(v)) for k, v in self.seconds.items()},
            "rows": [{k: _encode(v) for k, v in row.items()} for row in self.rows],
        }
        return json.dumps(payload, allow_nan=False, indent=1)

    @classmethod
    def from_json(cls, text: str) -> CellOutcome:
        """Read :meth:`to_json` output.

        Examples
        --------
        >>> out = CellOutcome(({"k": 2, "loss_ncp": float("nan")},), {"anonymize": 0.5})
        >>> back = CellOutcome.from_json(out.to_json())
        >>> back.rows[0]["k"], math.isnan(back.rows[0]["loss_ncp"]), back.status
        (2, True, 'ok')
        """
        payload = json.loads(text)
        return cls(
            rows=tuple({k: _decode(v) for k, v in row.items()} for row in payload["rows"]),
            seconds={k: float(_decode(v)) for k, v in payload["seconds"].items()},
            status=str(payload["status"]),
        )


class CellCache:
    """A folder of finished cells, keyed by :func:`anonkit.study.grid.cell_key`.

    ``CellCache(None)`` caches nothing. Unreadable or corrupt entries count as missing.

    Examples
    --------
    >>> import tempfile
    >>> cache = CellCache(Path(tempfile.mkdtemp()))
    >>> cache.read("abc") is None
    True
    >>> cache.write("abc", CellOutcome(({"k": 2},), {"anonymize": 1.0}))
    >>> cache.read("abc").rows
    ({'k': 2},)
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = Path(folder) if folder is not None else None

    def path(self, key: str) -> Path | None:
        """The file of ``key`` (``None`` without a folder)."""
        return self.folder / f"{key}.json" if self.folder is not None else None

    def read(self, key: str) -> CellOutcome | None:
        """The cached outcome of ``key``, or ``None``."""
        path = self.path(key)
        if path is None or not path.is_file():
            return None
        try:
            return CellOutcome.from_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def write(self, key: str, outcome: CellOutcome) -> None:
        """Store ``outcome`` under ``key`` atomically (nothing without a folder, or when
        the outcome is not cacheable)."""
        path = self.path(key)
        if path is None or not outcome.cacheable:
            return
        atomic_write_text(path, outcome.to_json() + "\n")
