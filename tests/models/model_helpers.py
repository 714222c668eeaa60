"""Shared fixtures-as-functions for the privacy-model tests.

``summary_from_frame`` builds a :class:`ClassSummary` straight from a pandas frame with
numpy (independent of anonkit's engines), so tests can compare models and measures against
pandas ``groupby`` computations and pycanon on the same frame.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from anonkit.core.hierarchy import Hierarchy
from anonkit.models.base import ClassSummary, SensitiveColumn

SEP = "\x1f"

#: Seed 001 hospital table (Zip, Age, Nationality, Disease) in its 4-anonymous release.
HOSPITAL_RELEASE = [
    ("130**", "<30", "*", "Heart"),
    ("130**", "<30", "*", "Heart"),
    ("130**", "<30", "*", "Viral"),
    ("130**", "<30", "*", "Viral"),
    ("1485*", ">40", "*", "Cancer"),
    ("1485*", ">40", "*", "Heart"),
    ("1485*", ">40", "*", "Viral"),
    ("1485*", ">40", "*", "Viral"),
    ("130**", "[30,40)", "*", "Cancer"),
    ("130**", "[30,40)", "*", "Cancer"),
    ("130**", "[30,40)", "*", "Cancer"),
    ("130**", "[30,40)", "*", "Cancer"),
    ("130**", "[30,40)", "*", "Cancer"),
]
HOSPITAL_QI = ["Zip", "Age", "Nationality"]


def hospital_frame() -> pd.DataFrame:
    return pd.DataFrame(HOSPITAL_RELEASE, columns=[*HOSPITAL_QI, "Disease"])


def keys_of(frame: pd.DataFrame, qi: Sequence[str]) -> pd.Series:
    """One string key per record: its quasi-identifier values joined."""
    if not len(frame):
        return pd.Series([], dtype=object)
    return frame[list(qi)].astype(str).agg(SEP.join, axis=1)


def summary_from_frame(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: Sequence[str] = (),
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    population: pd.DataFrame | None = None,
) -> tuple[ClassSummary, list[str]]:
    """The classes of ``frame`` over ``qi`` (sorted by key) and their keys.

    Sensitive labels are the distinct values of each column as text, sorted.
    """
    keys = keys_of(frame, qi).to_numpy(dtype=object)
    uniq, inverse = np.unique(keys.astype(str), return_inverse=True)
    sizes = np.bincount(inverse, minlength=len(uniq)).astype(np.int64)
    columns: dict[str, SensitiveColumn] = {}
    for name in sensitive:
        values = frame[name].astype(str).to_numpy()
        labels, codes = np.unique(values, return_inverse=True)
        hist = np.zeros((len(uniq), len(labels)), dtype=np.int64)
        np.add.at(hist, (inverse, codes), 1)
        columns[name] = SensitiveColumn(
            name,
            tuple(str(x) for x in labels),
            hist,
            hist.sum(axis=0),
            (hierarchies or {}).get(name),
        )
    pop = None
    pop_size = None
    if population is not None:
        counts = keys_of(population, qi).value_counts()
        pop = np.array([int(counts.get(k, 0)) for k in uniq], dtype=np.int64)
        pop_size = len(population)
    summary = ClassSummary(sizes, len(frame), columns, pop, pop_size)
    return summary, [str(k) for k in uniq]


def single_column_summary(
    histogram: np.ndarray,
    totals: np.ndarray | None = None,
    *,
    labels: Sequence[str] | None = None,
    hierarchy: Hierarchy | None = None,
    name: str = "s",
) -> ClassSummary:
    """A summary of classes given directly as a histogram of one sensitive attribute."""
    hist = np.asarray(histogram, dtype=np.int64)
    tot = hist.sum(axis=0) if totals is None else np.asarray(totals, dtype=np.int64)
    labs = tuple(labels) if labels is not None else tuple(f"v{i}" for i in range(hist.shape[1]))
    column = SensitiveColumn(name, labs, hist, tot, hierarchy)
    return ClassSummary(hist.sum(axis=1), int(hist.sum()), {name: column})


def generalize(frame: pd.DataFrame, hierarchies: Mapping[str, Path], levels: Mapping[str, int]):
    """``frame`` with each column of ``levels`` replaced by its ancestor at that level."""
    out = frame.copy()
    for column, level in levels.items():
        h = Hierarchy.from_csv(hierarchies[column])
        mapping = {row[0]: row[level] for row in h.rows}
        out[column] = out[column].astype(str).map(mapping)
        assert not out[column].isna().any(), column
    return out
