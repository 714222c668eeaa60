"""Hypothesis strategies shared by the test modules (tests/ is on ``sys.path``)."""

from __future__ import annotations

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
