"""Hypothesis strategies shared by the test modules (tests/ is on ``sys.path``)."""

from __future__ import annotations

import polars as pl
from hypothesis import strategies as st

from anonkit.core.hierarchy import Hierarchy


@st.composite
def random_hierarchy(draw: st.DrawFn, name: str, max_leaves: int = 6) -> Hierarchy:
    """Random leaves ``<name>v<i>``, grouped level by level into random consecutive
    groups (0-2 inner levels), root ``*``."""
    n_leaves = draw(st.integers(1, max_leaves))
    levels = [[f"{name}v{i}" for i in range(n_leaves)]]
    for depth in range(draw(st.integers(0, 2))):
        distinct = list(dict.fromkeys(levels[-1]))
        cuts = draw(st.lists(st.booleans(), min_size=len(distinct), max_size=len(distinct)))
        group, mapping = 0, {}
        for i, lab in enumerate(distinct):
            if i and cuts[i]:
                group += 1
            mapping[lab] = f"{name}L{depth + 1}g{group}"
        levels.append([mapping[x] for x in levels[-1]])
    levels.append(["*"] * n_leaves)
    return Hierarchy(list(zip(*levels, strict=True)), name=name)


@st.composite
def random_table(
    draw: st.DrawFn, columns: tuple[int, int] = (2, 5), max_leaves: int = 7, rows: int = 70
) -> tuple[list[Hierarchy], pl.DataFrame]:
    """Random hierarchies ``q0``, ``q1``... (between ``columns`` of them) and a frame of
    1 to ``rows`` records drawn from their leaves."""
    hs = [
        draw(random_hierarchy(f"q{j}", max_leaves=max_leaves))
        for j in range(draw(st.integers(*columns)))
    ]
    n = draw(st.integers(1, rows))
    leaves = {h.name: draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs}
    return hs, pl.DataFrame(leaves)
