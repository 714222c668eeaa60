"""Bundled datasets.

``adult``: the UCI Adult census extract (30,162 records, 9 columns, records with missing
values removed) with its generalization hierarchies, as distributed with the ARX
anonymization tool (Apache-2.0, see ``adult/LICENSE-ARX-Apache-2.0.txt``). The data is the
UCI Machine Learning Repository "Adult" data set (Becker & Kohavi 1996, CC BY 4.0).

``synthetic``: a generated census-like table with a documented generative model (see
:mod:`anonkit.datasets.synthetic`), the second dataset of the utility studies.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import polars as pl

from anonkit.datasets.synthetic import (
    SYNTHETIC_COLUMNS,
    SYNTHETIC_NUMERIC,
    SYNTHETIC_QUASI_IDENTIFIERS,
    SYNTHETIC_TARGET,
    load_synthetic,
    synthetic_hierarchies,
    synthetic_probability,
)
from anonkit.io.tables import read_table

__all__ = [
    "ADULT_COLUMNS",
    "SYNTHETIC_COLUMNS",
    "SYNTHETIC_NUMERIC",
    "SYNTHETIC_QUASI_IDENTIFIERS",
    "SYNTHETIC_TARGET",
    "adult_path",
    "load_adult",
    "load_synthetic",
    "synthetic_hierarchies",
    "synthetic_probability",
]

ADULT_COLUMNS = (
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
)


def adult_path() -> Path:
    """Folder holding ``adult.csv`` and ``adult_hierarchy_<column>.csv``."""
    return Path(str(resources.files("anonkit.datasets") / "adult"))


def load_adult() -> tuple[pl.DataFrame, dict[str, Path]]:
    """The Adult table (all columns as text) and the path of each column's hierarchy."""
    folder = adult_path()
    frame = read_table(folder / "adult.csv")
    return frame, {c: folder / f"adult_hierarchy_{c}.csv" for c in ADULT_COLUMNS}
