"""Predictive tagging writes the up- or down-set box of the level grid (issue 19)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.algorithms.lattice.search import ANONYMOUS, NOT_ANONYMOUS, tag
from anonkit.core.lattice import Lattice


@pytest.mark.parametrize("contiguous", [True, False])
@pytest.mark.parametrize("anonymous", [True, False])
def test_tag_marks_the_same_nodes_as_the_masks(contiguous: bool, anonymous: bool) -> None:
    lat = Lattice((3, 2, 4))
    node = lat.index((1, 0, 2))
    status = np.zeros(lat.size, dtype=np.int8)
    if not contiguous:  # a strided view: written through, not into a copy
        status = np.zeros(2 * lat.size, dtype=np.int8)[::2]
    result = NodeResult(node, lat.node(node), anonymous, 0, 1, 0.0, 0.0)
    tag(status, SimpleNamespace(lattice=lat), result)  # type: ignore[arg-type]
    mask = lat.upset(node) if anonymous else lat.downset(node)
    value = ANONYMOUS if anonymous else NOT_ANONYMOUS
    assert np.array_equal(status == value, mask)
    assert mask.sum() == (2 * 2 * 2 if anonymous else 2 * 1 * 3)
