"""Fixtures of the app tests: a small table with a leak (``education-num`` determines
``education``); the app server and Chromium of the browser tests (session-wide)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from . import browser

EDUCATION = {"HS": "9", "BA": "13", "MA": "14", "PhD": "16"}


def leaky_frame(n: int = 80) -> pl.DataFrame:
    """Ages, sexes, an education and the number that determines it, an income."""
    edu = [list(EDUCATION)[i % 4] for i in range(n)]
    return pl.DataFrame(
        {
            "age": [str(20 + (i * 7) % 50) for i in range(n)],
            "sex": ["F" if i % 3 else "M" for i in range(n)],
            "education": edu,
            "education-num": [EDUCATION[e] for e in edu],
            "income": [">50K" if i % 5 == 0 else "<=50K" for i in range(n)],
        }
    )


@pytest.fixture
def leaky_csv(tmp_path: Path) -> Path:
    path = tmp_path / "people.csv"
    leaky_frame().write_csv(path)
    return path


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """One ``anonkit app`` server for every browser test (each page is its own session)."""
    browser.sync_api()
    yield from browser.serve_app()


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    yield from browser.launch(browser.sync_api())
