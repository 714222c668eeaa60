"""The published numbers of Mauger, Le Mahec & Dequen (2020), as data.

The paper's Figures 6, 7 and 8 (percentage of alteration with ranks at requested k = 2,
100 and 1500: :data:`PAPER_TABLES`, parsed from the printed cells by
:func:`parse_paper_table`), its Figure 5 (values and hierarchy heights per attribute:
:data:`PAPER_FIGURE5`), the Adult counts it reports, and what its text states about
Figure 9 (:data:`PAPER_MINIMUM_K`, :func:`paper_minimum_k`). The *best* optimizations of a
row are recomputed from the printed values, since a few printed ranks contradict their
own values (:meth:`PaperTable.rank_inconsistencies`).

The paper's full reference is in :mod:`anonkit.study.mauger2020`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources

from anonkit._frozen import FrozenDict
from anonkit.exceptions import DataError
from anonkit.metrics.cost_matrix import COST_FUNCTIONS, check_cost
from anonkit.study.mauger2020.ranks import competition_ranks

__all__ = [
    "FIGURE_K",
    "LABELS",
    "METRIC_ROWS",
    "PAPER_FIGURE5",
    "PAPER_INITIAL_CLASSES",
    "PAPER_MINIMUM_K",
    "PAPER_RECORDS",
    "PAPER_TABLES",
    "PaperMinimumK",
    "PaperTable",
    "paper_minimum_k",
    "parse_paper_table",
    "range_statement",
]

#: The requested k of the paper's three tables.
FIGURE_K: Mapping[int, str] = FrozenDict({2: "Figure 6", 100: "Figure 7", 1500: "Figure 8"})
#: The paper's names of the seven optimizations.
LABELS: Mapping[str, str] = FrozenDict(
    {
        "distortion": "Distortion",
        "ncp": "NCP",
        "total": "Total",
        "llm": "LLM",
        "nllm": "NLLM",
        "wllm": "WLLM",
        "wnllm": "WNLLM",
    }
)
#: Rows of the paper's tables: the seven metrics, then their average.
METRIC_ROWS: tuple[str, ...] = (*COST_FUNCTIONS, "average")
#: The paper's Figure 5: number of values and hierarchy height (levels) per attribute.
PAPER_FIGURE5: Mapping[str, tuple[int, int]] = FrozenDict(
    {
        "age": (74, 5),
        "sex": (2, 2),
        "race": (5, 2),
        "marital-status": (7, 3),
        "education": (16, 4),
        "native-country": (41, 3),
        "workclass": (7, 3),
        "occupation": (14, 3),
        "salary-class": (2, 2),
    }
)
#: Records and initial equivalence classes the paper reports for Adult.
PAPER_RECORDS = 30162
PAPER_INITIAL_CLASSES = 19502

#: The file holding the tables of Figures 6-8 as printed (data, not code).
_PAPER_FILE = "paper_tables.txt"


def _paper_text() -> dict[int, str]:
    """The printed tables of :data:`_PAPER_FILE` by requested k, one text per table."""
    text = (
        resources.files("anonkit.study.mauger2020")
        .joinpath(_PAPER_FILE)
        .read_text(encoding="utf-8")
    )
    tables: dict[int, list[str]] = {}
    rows: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("k "):
            rows = tables.setdefault(int(line[2:]), [])
        elif line and not line.startswith("#"):
            rows.append(line)
    return {k: "\n".join(rows) for k, rows in tables.items()}


_CELL = re.compile(r"(-?\d+(?:\.\d+)?)\s*\(\s*(\d+)\s*\)")


@dataclass(frozen=True)
class PaperTable:
    """One of the paper's Figures 6-8: percentage of alteration with ranks.

    Attributes
    ----------
    figure, k
        The figure's name and its requested k.
    metrics
        Row names: the seven metrics of :data:`~anonkit.metrics.cost_matrix.COST_FUNCTIONS`
        and ``"average"``.
    optimizations
        Column names: the seven optimizations, in the paper's order.
    values, ranks
        ``8 x 7``: the printed whole percentages and the printed ranks.

    Examples
    --------
    >>> t = PAPER_TABLES[100]
    >>> t.value("distortion", "nllm"), t.rank("ncp", "ncp")
    (27, 4)
    """

    figure: str
    k: int
    metrics: tuple[str, ...]
    optimizations: tuple[str, ...]
    values: tuple[tuple[int, ...], ...]
    ranks: tuple[tuple[int, ...], ...]

    def value(self, metric: str, optimization: str) -> int:
        """The printed percentage of ``optimization`` under ``metric``."""
        return self.values[self.metrics.index(metric)][self.optimizations.index(optimization)]

    def rank(self, metric: str, optimization: str) -> int:
        """The printed rank of ``optimization`` under ``metric``."""
        return self.ranks[self.metrics.index(metric)][self.optimizations.index(optimization)]

    def best(self, metric: str, optimizations: Sequence[str] | None = None) -> tuple[str, ...]:
        """Optimizations with the lowest printed value in a row (among ``optimizations``)."""
        cols = tuple(self.optimizations if optimizations is None else optimizations)
        vals = [self.value(metric, o) for o in cols]
        return tuple(o for o, r in zip(cols, competition_ranks(vals), strict=True) if r == 1)

    def rank_inconsistencies(self) -> tuple[tuple[str, str, int, int], ...]:
        """Cells whose printed rank differs from the rank of the printed values.

        Returns ``(metric, optimization, printed rank, recomputed rank)`` tuples.
        """
        out = []
        for metric, vals, printed in zip(self.metrics, self.values, self.ranks, strict=True):
            recomputed = competition_ranks(vals)
            for o, p, r in zip(self.optimizations, printed, recomputed, strict=True):
                if p != r:
                    out.append((metric, o, p, r))
        return tuple(out)


def parse_paper_table(text: str, *, figure: str, k: int) -> PaperTable:
    """Read a table of the paper written as one line per metric of ``value (rank)`` cells.

    Each non-blank line is a row name (one of ``distortion`` ... ``wnllm``, ``average``)
    followed by seven ``value (rank)`` cells; the rows must come in the paper's order.

    Raises
    ------
    DataError
        If a row is missing, unknown, out of order or does not hold seven cells.

    Examples
    --------
    >>> rows = [f"{m} " + " ".join(f"{i} ({i})" for i in range(1, 8)) for m in METRIC_ROWS]
    >>> parse_paper_table("\\n".join(rows), figure="Figure X", k=3).ranks[0]
    (1, 2, 3, 4, 5, 6, 7)
    """
    names: list[str] = []
    values: list[tuple[int, ...]] = []
    ranks: list[tuple[int, ...]] = []
    for line in text.strip().splitlines():
        line = line.strip()
        if not line:
            continue
        name, _, rest = line.partition(" ")
        cells = _CELL.findall(rest)
        if len(cells) != len(COST_FUNCTIONS):
            raise DataError(
                f"row {name!r} of {figure} holds {len(cells)} 'value (rank)' cells, "
                f"not {len(COST_FUNCTIONS)}."
            )
        names.append(name.lower())
        values.append(tuple(int(round(float(v))) for v, _ in cells))
        ranks.append(tuple(int(r) for _, r in cells))
    if tuple(names) != METRIC_ROWS:
        raise DataError(f"the rows of {figure} must be {list(METRIC_ROWS)}; got {names}.")
    return PaperTable(
        figure=figure,
        k=k,
        metrics=METRIC_ROWS,
        optimizations=COST_FUNCTIONS,
        values=tuple(values),
        ranks=tuple(ranks),
    )


#: The paper's Figures 6, 7 and 8 by requested k.
PAPER_TABLES: Mapping[int, PaperTable] = FrozenDict(
    {k: parse_paper_table(text, figure=FIGURE_K[k], k=k) for k, text in _paper_text().items()}
)

#: Minimum k values the paper's text states for Figure 9 (the plot's other points are not
#: given in the text).
PAPER_MINIMUM_K: Mapping[tuple[int, str], int] = FrozenDict(
    {
        **{(2, o): 2 for o in COST_FUNCTIONS},
        (7500, "llm"): 12307,
        (10000, "distortion"): PAPER_RECORDS,
        (10000, "total"): PAPER_RECORDS,
        **{(15000, o): PAPER_RECORDS for o in COST_FUNCTIONS},
    }
)


@dataclass(frozen=True)
class PaperMinimumK:
    """What the paper's text says about the minimum k of one point of Figure 9.

    Attributes
    ----------
    value
        The number the text states, or ``None`` when it gives none for this point.
    statement
        The text's statement that covers this requested k (paraphrased closely).
    """

    value: int | None
    statement: str


def paper_minimum_k(k: int, optimization: str) -> PaperMinimumK:
    """The paper's Figure 9 at requested ``k`` for ``optimization``, as far as its text says.

    Examples
    --------
    >>> paper_minimum_k(7500, "llm").value
    12307
    >>> paper_minimum_k(500, "ncp")
    PaperMinimumK(value=None, statement='equal or very close to the requested k (k <= 1000)')
    """
    check_cost(optimization)
    value = PAPER_MINIMUM_K.get((k, optimization))
    statement = range_statement(k)
    if (k, optimization) == (7500, "llm"):
        statement = "T_LLM,7500 has minimum k 12307"
    elif k == 10000 and optimization in ("distortion", "total"):
        statement = "a single class (minimum k 30162)"
    return PaperMinimumK(value=value, statement=statement)


def range_statement(k: int) -> str:
    """What the paper's text says about Figure 9 for every optimization at requested k."""
    if k == 2:
        return "the smallest class of every T_o,2 has size 2"
    if k <= 1000:
        return "equal or very close to the requested k (k <= 1000)"
    if k <= 4000:
        return "relatively close to the requested k, same for all (1500 <= k <= 4000)"
    if k < 15000:
        return "strongly above the requested k (from k = 5000)"
    return "every optimization gives minimum k 30162"
