"""How the results of Mauger et al. (2020) vary with the order of ``C(T)``.

Pure functions over the runs of :mod:`~anonkit.study.mauger2020.orders`: per requested k,
the paper's table under every order (:func:`order_tables`), the spread of each cell
(:func:`cell_spread`), how often each optimization is at rank 1 (:func:`rank1_shares`),
every claim of the paper's text checked under every order (:func:`claims`), the ties
(:func:`tie_summary`) and the ablations (:func:`ablation_summary`).

Definitions used for the paper's words about Figure 9 (its text gives no thresholds): a
minimum k is "equal or very close" to the requested k when at most 10 % above it,
"relatively close" when at most 25 % above, "strongly above" when more than 25 % above.

The paper's full reference is in :mod:`anonkit.study.mauger2020`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray
from anonkit.metrics.cost_matrix import COST_FUNCTIONS
from anonkit.study.mauger2020.paper import LABELS, METRIC_ROWS, PAPER_TABLES
from anonkit.study.mauger2020.ranks import competition_ranks
from anonkit.study.mauger2020.results import Run

__all__ = [
    "CLOSE",
    "RELATIVELY_CLOSE",
    "Claim",
    "ablation_figures",
    "ablation_summary",
    "cell_spread",
    "claims",
    "order_tables",
    "rank1_shares",
    "tie_summary",
    "wilson",
]


#: "Equal or very close" to the requested k: a minimum k at most this factor above it.
CLOSE = 1.10
#: "Relatively close": at most this factor above; beyond it, "strongly above".
RELATIVELY_CLOSE = 1.25


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion (95 % by default).

    Examples
    --------
    >>> lo, hi = wilson(0, 30)
    >>> round(lo, 3), round(hi, 3)
    (0.0, 0.114)
    """
    if n == 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _by_seed(runs: Sequence[Run], variant: str, k: int) -> dict[int, dict[str, Run]]:
    """Random-order runs of ``variant`` at ``k``: seed -> cost -> run (complete seeds)."""
    out: dict[int, dict[str, Run]] = {}
    for r in runs:
        if r.variant == variant and r.k == k and r.seed >= 0:
            out.setdefault(r.seed, {})[r.cost] = r
    return {s: d for s, d in sorted(out.items()) if all(c in d for c in COST_FUNCTIONS)}


def _codes_order(runs: Sequence[Run], k: int) -> dict[str, Run] | None:
    d = {r.cost: r for r in runs if r.variant == "paper" and r.k == k and r.seed < 0}
    return d if all(c in d for c in COST_FUNCTIONS) else None


def _table(by_cost: dict[str, Run]) -> FloatArray:
    """8 x 7: percentage of alteration per metric row (and average) and optimization."""
    return np.array(
        [
            [
                by_cost[o].average_alteration if m == "average" else by_cost[o].alteration[m]
                for o in COST_FUNCTIONS
            ]
            for m in METRIC_ROWS
        ]
    )


def order_tables(runs: Sequence[Run], k: int, variant: str = "paper") -> FloatArray:
    """``(n_orders, 8, 7)``: the table of Figures 6-8 at ``k`` under every random order."""
    tables = [_table(d) for d in _by_seed(runs, variant, k).values()]
    return np.array(tables) if tables else np.zeros((0, len(METRIC_ROWS), len(COST_FUNCTIONS)))


def cell_spread(tables: FloatArray) -> dict[str, FloatArray]:
    """Per cell over the orders: ``min``, ``q1``, ``median``, ``q3``, ``max`` (8 x 7)."""
    qs = np.quantile(tables, [0.0, 0.25, 0.5, 0.75, 1.0], axis=0)
    return dict(zip(("min", "q1", "median", "q3", "max"), qs, strict=True))


def _ranks(table: FloatArray) -> npt.NDArray[np.int64]:
    return np.array([competition_ranks(row.tolist()) for row in table])


def rank1_shares(tables: FloatArray) -> FloatArray:
    """8 x 7: share of orders in which each optimization is at rank 1 of each row."""
    if tables.shape[0] == 0:
        return np.full(tables.shape[1:], math.nan)
    shares: FloatArray = np.mean([_ranks(t) == 1 for t in tables], axis=0)
    return shares


@dataclass(frozen=True)
class Claim:
    """One statement of the paper checked under every order.

    Attributes
    ----------
    source
        Where the paper makes it (figure or text).
    k
        The requested k it is checked at.
    statement
        The statement, as we test it.
    holds, orders
        In how many of the random orders it holds.
    codes_order
        Whether it holds in the group-by order of the codes (``None``: not run).
    detail
        What was seen instead, in a few words (a distribution or a range).
    """

    source: str
    k: int
    statement: str
    holds: int
    orders: int
    codes_order: bool | None
    detail: str

    @property
    def share(self) -> float:
        return self.holds / self.orders if self.orders else math.nan


_Check = Callable[[dict[str, Run]], bool]


def _idx(o: str) -> int:
    return COST_FUNCTIONS.index(o)


def _row(m: str) -> int:
    return METRIC_ROWS.index(m)


def _extremes(values: dict[str, float], n: int, *, largest: bool) -> set[str]:
    ordered = sorted(values, key=lambda o: values[o], reverse=largest)
    return set(ordered[:n])


def _measure(d: dict[str, Run], name: str) -> dict[str, float]:
    if name == "average":
        return {o: d[o].average_alteration for o in COST_FUNCTIONS}
    return {o: float(getattr(d[o], name)) for o in COST_FUNCTIONS}


def _names(opts: set[str] | Sequence[str]) -> str:
    return ", ".join(LABELS[o] for o in COST_FUNCTIONS if o in opts)


def _extreme(
    source: str, statement: str, measure: str, n: int, *, largest: bool, expected: set[str]
) -> tuple[str, str, _Check, Callable[[dict[str, Run]], object]]:
    """The claim that the ``n`` optimizations of largest (``largest``) or smallest
    ``measure`` are ``expected``, and the tally of which ones are."""

    def chosen(d: dict[str, Run]) -> set[str]:
        return _extremes(_measure(d, measure), n, largest=largest)

    return (source, statement, lambda d: chosen(d) == expected, lambda d: _names(chosen(d)))


def _count(values: Sequence[object]) -> str:
    """``value: count`` pairs, most frequent first."""
    tally: dict[object, int] = {}
    for v in values:
        tally[v] = tally.get(v, 0) + 1
    return "; ".join(f"{v}: {n}" for v, n in sorted(tally.items(), key=lambda t: -t[1]))


def _range(values: Sequence[float]) -> str:
    a = np.asarray(values, dtype=np.float64)
    return f"median {np.median(a):,.0f}, range {a.min():,.0f}-{a.max():,.0f}"


def _table_checks(k: int) -> list[tuple[str, str, _Check, Callable[[dict[str, Run]], object]]]:
    """(source, statement, predicate, what to tally) for the paper's tables at ``k``."""

    def ranks(d: dict[str, Run]) -> npt.NDArray[np.int64]:
        return _ranks(_table(d))

    def avg_best(d: dict[str, Run]) -> str:
        return _names(
            {o for o in COST_FUNCTIONS if ranks(d)[_row("average"), _idx(o)] == 1}
        )  # whole percents

    def own_metric(d: dict[str, Run]) -> bool:
        r = ranks(d)
        return bool(r[_row("llm"), _idx("llm")] == 1 and r[_row("wllm"), _idx("wllm")] == 1)

    out: list[tuple[str, str, _Check, Callable[[dict[str, Run]], object]]] = []
    fig = {2: "Figure 6", 100: "Figure 7", 1500: "Figure 8"}[k]
    if k == 2:
        out.append(
            (
                fig,
                "LLM is a little worse than the others (highest average)",
                lambda d: max(_measure(d, "average").items(), key=lambda t: t[1])[0] == "llm",
                lambda d: LABELS[max(_measure(d, "average").items(), key=lambda t: t[1])[0]],
            )
        )
    if k == 100:
        out += [
            (
                fig,
                "under the metric ncp, NLLM is at rank 1",
                lambda d: bool(ranks(d)[_row("ncp"), _idx("nllm")] == 1),
                lambda d: f"rank {ranks(d)[_row('ncp'), _idx('nllm')]}",
            ),
            (
                fig,
                "under the metric ncp, NCP is at rank 4",
                lambda d: bool(ranks(d)[_row("ncp"), _idx("ncp")] == 4),
                lambda d: f"rank {ranks(d)[_row('ncp'), _idx('ncp')]}",
            ),
            _extreme(
                fig,
                "LLM and WLLM have the two highest averages",
                "average",
                2,
                largest=True,
                expected={"llm", "wllm"},
            ),
            _extreme(
                fig,
                "Distortion and NLLM have the two best averages",
                "average",
                2,
                largest=False,
                expected={"distortion", "nllm"},
            ),
            (
                fig,
                "Distortion has the best average (printed rank 1)",
                lambda d: bool(ranks(d)[_row("average"), _idx("distortion")] == 1),
                avg_best,
            ),
        ]
    if k == 1500:
        out += [
            (
                fig,
                "NLLM is at rank 1 for 5 of the 7 metrics",
                lambda d: int((ranks(d)[:7, _idx("nllm")] == 1).sum()) == 5,
                lambda d: f"{int((ranks(d)[:7, _idx('nllm')] == 1).sum())} of 7",
            ),
            (
                fig,
                "NLLM is at rank 1 for at least 5 of the 7 metrics",
                lambda d: int((ranks(d)[:7, _idx("nllm")] == 1).sum()) >= 5,
                lambda d: f"{int((ranks(d)[:7, _idx('nllm')] == 1).sum())} of 7",
            ),
            (
                fig,
                "NLLM has the best average (rank 1, whole percents)",
                lambda d: bool(ranks(d)[_row("average"), _idx("nllm")] == 1),
                avg_best,
            ),
        ]
    if k in (100, 1500):
        out.append(
            (
                fig,
                "LLM is at rank 1 under llm and WLLM under wllm",
                own_metric,
                lambda d: "yes" if own_metric(d) else "no",
            )
        )
    return out


def _figure_checks(
    k: int, n_records: int
) -> list[tuple[str, str, _Check, Callable[[dict[str, Run]], object]]]:
    """(source, statement, predicate, tally) for Figures 9-13 at requested ``k``."""

    def eff(d: dict[str, Run]) -> dict[str, float]:
        return {o: float(d[o].effective_k) for o in COST_FUNCTIONS}

    def ratio_max(d: dict[str, Run]) -> str:
        return f"{max(eff(d).values()) / k:.2f}"

    out: list[tuple[str, str, _Check, Callable[[dict[str, Run]], object]]] = []
    if k <= 4000:  # the text's words up to 1000, then from 1500 to 4000
        words, factor = (
            ("equal or very close to k (<= 10 % above)", CLOSE)
            if k <= 1000
            else ("relatively close to k (<= 25 % above)", RELATIVELY_CLOSE)
        )
        out.append(
            (
                "Figure 9",
                f"every minimum k is {words}",
                lambda d: max(eff(d).values()) <= factor * k,
                lambda d: f"largest {ratio_max(d)} k",
            )
        )
    elif k < 15000:
        out.append(
            (
                "Figure 9",
                "the minimum k is strongly above k (> 25 %) for some optimization",
                lambda d: max(eff(d).values()) > RELATIVELY_CLOSE * k,
                lambda d: sum(v > RELATIVELY_CLOSE * k for v in eff(d).values()),
            )
        )
    if k == 7500:
        out.append(
            (
                "Figure 9",
                "LLM's minimum k is about 12,307 (within 10 %)",
                lambda d: abs(d["llm"].effective_k - 12307) <= 0.1 * 12307,
                lambda d: d["llm"].effective_k,
            )
        )
    if k == 10000:
        out.append(
            (
                "Figure 9",
                "Distortion and Total give a single class",
                lambda d: d["distortion"].n_classes == 1 and d["total"].n_classes == 1,
                lambda d: sum(d[o].n_classes == 1 for o in ("distortion", "total")),
            )
        )
    if k == 15000:
        out.append(
            (
                "Figure 9",
                f"every optimization gives a single class ({n_records:,} records)",
                lambda d: all(d[o].n_classes == 1 for o in COST_FUNCTIONS),
                lambda d: sum(d[o].n_classes == 1 for o in COST_FUNCTIONS),
            )
        )
    if k <= 750:
        out += [
            _extreme(
                "Figure 10",
                "Distortion and NLLM have the lowest average alteration",
                "average",
                2,
                largest=False,
                expected={"distortion", "nllm"},
            ),
            _extreme(
                "Figure 11",
                "LLM and WLLM modify the most values",
                "modified_percentage",
                2,
                largest=True,
                expected={"llm", "wllm"},
            ),
        ]
    if 1000 <= k <= 7500:
        out += [
            _extreme(
                "Figure 10",
                "NLLM has the lowest average alteration",
                "average",
                1,
                largest=False,
                expected={"nllm"},
            ),
            _extreme(
                "Figure 11",
                "NLLM modifies the fewest values",
                "modified_percentage",
                1,
                largest=False,
                expected={"nllm"},
            ),
        ]
    if k <= 7500:
        out += [
            _extreme(
                "Figure 12",
                "LLM and WLLM delete the most values",
                "deleted_percentage",
                2,
                largest=True,
                expected={"llm", "wllm"},
            ),
            _extreme(
                "Figure 12",
                "NLLM and WNLLM delete the fewest values",
                "deleted_percentage",
                2,
                largest=False,
                expected={"nllm", "wnllm"},
            ),
        ]
    dm = "deleted_of_modified_percentage"
    if k <= 50:
        out.append(
            _extreme(
                "Figure 13",
                "NCP, NLLM and Total delete the least among modified values",
                dm,
                3,
                largest=False,
                expected={"ncp", "nllm", "total"},
            )
        )
    elif k <= 750:
        out.append(
            _extreme(
                "Figure 13",
                "Distortion deletes the least among modified values",
                dm,
                1,
                largest=False,
                expected={"distortion"},
            )
        )
    elif k <= 7500:
        out.append(
            _extreme(
                "Figure 13",
                "LLM and WLLM delete the least among modified values",
                dm,
                2,
                largest=False,
                expected={"llm", "wllm"},
            )
        )
    return out


def claims(runs: Sequence[Run], k_values: Sequence[int], n_records: int) -> list[Claim]:
    """Every checkable statement of the paper at each of ``k_values``, under every order.

    ``detail`` tallies what the orders gave (e.g. ``"3 of 7: 12; 2 of 7: 9"``), or the
    median and range of a number.
    """
    out = []
    for k in k_values:
        seeds = _by_seed(runs, "paper", k)
        if not seeds:
            continue
        codes = _codes_order(runs, k)
        checks = (_table_checks(k) if k in PAPER_TABLES else []) + _figure_checks(k, n_records)
        for source, statement, check, tally in checks:
            seen = [tally(d) for d in seeds.values()]
            numeric = all(isinstance(v, int) and not isinstance(v, bool) for v in seen)
            detail = (
                _range([float(v) for v in seen])  # type: ignore[arg-type]
                if numeric and len(set(seen)) > 8
                else _count(seen)
            )
            out.append(
                Claim(
                    source=source,
                    k=k,
                    statement=statement,
                    holds=sum(check(d) for d in seeds.values()),
                    orders=len(seeds),
                    codes_order=None if codes is None else bool(check(codes)),
                    detail=detail,
                )
            )
    return out


def tie_summary(runs: Sequence[Run], k: int, variant: str = "paper") -> list[list[object]]:
    """Per optimization at ``k``: share of merges decided by a tie and tied candidates.

    Rows: optimization, share of merges with a tie in the codes order, the median share
    and its range over the random orders, the median number of tied candidates per tied
    merge (median over orders), the largest number seen.
    """
    rows: list[list[object]] = []
    seeds = _by_seed(runs, variant, k)
    codes = _codes_order(runs, k) if variant == "paper" else None
    for o in COST_FUNCTIONS:
        shares = [d[o].tied_share for d in seeds.values()]
        med = [d[o].tied_median for d in seeds.values()]
        top = [d[o].tied_max for d in seeds.values()]
        rows.append(
            [
                LABELS[o],
                "-" if codes is None else f"{100 * codes[o].tied_share:.1f} %",
                f"{100 * np.median(shares):.1f} % ({100 * min(shares):.1f}-{100 * max(shares):.1f})"
                if shares
                else "-",
                f"{np.median(med):,.0f}" if med else "-",
                f"{max(top):,}" if top else "-",
            ]
        )
    return rows


def ablation_figures(runs: Sequence[Run], variant: str, k: int) -> dict[str, float] | None:
    """The figures of ``variant`` at ``k`` over its random orders (``None`` without runs or
    a paper table at ``k``): ``orders``; ``gap``, the mean over orders of ours minus the
    paper's over the 49 metric cells; ``abs_gap``, the mean absolute difference;
    ``nllm_average``, NLLM's median average alteration; ``nllm_best``, in how many orders
    NLLM has the best average; ``nllm_rank1``, the median number of the 7 metrics with
    NLLM at rank 1."""
    tables = order_tables(runs, k, variant)
    if tables.shape[0] == 0 or k not in PAPER_TABLES:
        return None
    paper = np.array(PAPER_TABLES[k].values, dtype=np.float64)
    diff = tables[:, :7, :] - paper[None, :7, :]
    ranks = np.array([_ranks(t) for t in tables])
    nllm = _idx("nllm")
    return {
        "orders": float(tables.shape[0]),
        "gap": float(diff.mean()),
        "abs_gap": float(np.abs(diff).mean(axis=(1, 2)).mean()),
        "nllm_average": float(np.median(tables[:, _row("average"), nllm])),
        "nllm_best": float((ranks[:, _row("average"), nllm] == 1).sum()),
        "nllm_rank1": float(np.median((ranks[:, :7, nllm] == 1).sum(axis=1))),
    }


def ablation_summary(
    runs: Sequence[Run], variants: Sequence[str], k_values: Sequence[int]
) -> list[list[object]]:
    """Per variant and k, the :func:`ablation_figures` as table cells (the share of orders
    where NLLM has the best average with its 95 % Wilson interval)."""
    rows: list[list[object]] = []
    for v in variants:
        for k in k_values:
            f = ablation_figures(runs, v, k)
            if f is None:
                continue
            n, best = int(f["orders"]), int(f["nllm_best"])
            lo, hi = wilson(best, n)
            rows.append(
                [
                    v,
                    k,
                    n,
                    f"{f['gap']:+.1f}",
                    f"{f['abs_gap']:.1f}",
                    f"{f['nllm_average']:.1f}",
                    f"{best} of {n} ({100 * lo:.0f}-{100 * hi:.0f} %)",
                    f"{f['nllm_rank1']:.0f}",
                ]
            )
    return rows
