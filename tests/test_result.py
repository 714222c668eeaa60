"""The result's docstring documents exactly the fields it has."""

from __future__ import annotations

import dataclasses
import re

from anonkit.result import AnonymizationResult


def test_the_attributes_documented_are_the_fields() -> None:
    """It documented a ``labels`` field that did not exist (issue 16's review)."""
    doc = AnonymizationResult.__doc__ or ""
    section = doc.split("Attributes\n    ----------\n", 1)[1]
    documented = {
        name.strip()
        for line in section.splitlines()
        if re.match(r"    [a-z_]", line)
        for name in line.split(",")
    }
    assert documented == {f.name for f in dataclasses.fields(AnonymizationResult)}
