"""Shared fixtures and hypothesis profiles.

Select a hypothesis profile with ``HYPOTHESIS_PROFILE=ci`` (more examples); the default
profile keeps the default test run fast.
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "ci",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

#: Reference data shared by the project (see /work/shared/data/README.md).
#: CI clones the repository with a copy of shared/ beside it; the development machine has
#: it at /work/shared.
_BESIDE = Path(__file__).resolve().parents[2] / "shared" / "data"
SHARED_DATA = Path(
    os.environ.get("ANONKIT_SHARED_DATA", str(_BESIDE if _BESIDE.is_dir() else "/work/shared/data"))
)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Folder of the shared reference data; tests using it are skipped if it is missing."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared reference data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def toy_dir(shared_data: Path) -> Path:
    folder = shared_data / "toy"
    if not folder.is_dir():
        pytest.skip(f"toy data not found at {folder}")
    return folder


@pytest.fixture(scope="session")
def adult() -> tuple[pl.DataFrame, dict[str, Path]]:
    """The bundled Adult table (all columns as text) and each column's hierarchy path."""
    from anonkit.datasets import load_adult

    return load_adult()


@pytest.fixture(scope="session")
def adult_frame(adult: tuple[pl.DataFrame, dict[str, Path]]) -> pl.DataFrame:
    return adult[0]


@pytest.fixture(scope="session")
def adult_hierarchies(adult: tuple[pl.DataFrame, dict[str, Path]]) -> dict[str, Path]:
    return adult[1]
