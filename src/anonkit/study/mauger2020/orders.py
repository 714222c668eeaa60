"""Mauger et al. (2020) under many orders of ``C(T)``: the design and the runs.

Algorithm 1 "chooses arbitrarily" its small class and breaks ties of the merge cost by the
order of ``C(T)``, which the paper does not give. On Adult most merges are decided by that
order (ties), so one run per cell shows one draw of an arbitrary choice. :func:`run_study`
runs every cell of a :class:`Design` under many seeded random orders
(``GreedyMerge(order="random", seed=s)``), plus the group-by order of the codes over the
paper's 21 requested k (the curves of Figures 9-13), plus ablations of the settings the
paper leaves open (:data:`VARIANTS`). Every finished run is kept in the study's cell cache
(:class:`anonkit.study.cache.CellCache`), so an interrupted or repeated study only runs
what is missing. The result is a :class:`~anonkit.study.mauger2020.study.MaugerStudy`.

The paper's full reference is in :mod:`anonkit.study.mauger2020`.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from anonkit._arrays import IntArray
from anonkit._frozen import FrozenDict
from anonkit._validation import check_int
from anonkit.algorithms.greedy_merge import PAPER_K_VALUES
from anonkit.core.hierarchy import Hierarchy
from anonkit.metrics.cost_matrix import COST_FUNCTIONS
from anonkit.study.cache import CellCache, CellOutcome
from anonkit.study.mauger2020.results import Run
from anonkit.study.mauger2020.runs import _fit, _prepare
from anonkit.study.pool import run_in_processes

__all__ = ["FULL", "QUICK", "VARIANTS", "Cell", "Design", "Variant", "run_cells"]

#: Bump when a change of GreedyMerge or of the measures makes cached runs stale.
CACHE_VERSION = 1


@dataclass(frozen=True)
class Variant:
    """One setting of what the paper leaves open.

    Attributes
    ----------
    small_class
        How ``C_small`` is chosen (``"first"``: the paper's text).
    fuse
        Whether a merge that yields another class's values joins that class.
    leaves
        Which hierarchy leaves are kept (:data:`~anonkit.study.mauger2020.runs.
        LEAVES_CHOICES`).
    description
        What the variant changes, for the page.
    """

    small_class: str
    fuse: bool
    leaves: str
    description: str


#: The settings compared: ``paper`` is our reading of the paper, each other one changes
#: one thing.
VARIANTS: Mapping[str, Variant] = FrozenDict(
    {
        "paper": Variant("first", True, "hierarchy", "C_small first, fusion, ARX hierarchies"),
        "smallest": Variant("smallest", True, "hierarchy", "C_small a smallest small class"),
        "queue": Variant(
            "queue", True, "hierarchy", "C(T) a queue: C_small to its end after each merge"
        ),
        "no-fusion": Variant("first", False, "hierarchy", "classes with equal values not fused"),
        "age-74": Variant("first", True, "range", "age hierarchy cut to 17-90 (74 leaves)"),
        "data-leaves": Variant("first", True, "data", "only values in the data (age 72 leaves)"),
    }
)


@dataclass(frozen=True)
class Design:
    """What a study runs.

    Attributes
    ----------
    curve_k
        Requested k run once in the group-by order of the codes (the curves of Figures
        9-13 and the tables beside the paper's).
    table_k, collapse_k
        Requested k run under ``orders`` random orders: the k of the paper's tables, and
        the k where the paper's Figure 9 says the minimum k leaves the requested k.
    orders
        Random orders (seeds ``0 .. orders - 1``) per cell of ``table_k`` and
        ``collapse_k``.
    ablation_k, ablation_orders, ablations
        The variants of :data:`VARIANTS` other than ``paper`` run at ``ablation_k`` under
        ``ablation_orders`` random orders.
    """

    curve_k: tuple[int, ...]
    table_k: tuple[int, ...]
    collapse_k: tuple[int, ...]
    orders: int
    ablation_k: tuple[int, ...]
    ablation_orders: int
    ablations: tuple[str, ...]

    def cells(self, costs: Sequence[str] = COST_FUNCTIONS) -> list[Cell]:
        """Every run of the design, each once, in an order that leaves an interrupted study
        with whole, usable parts: the first two thirds of the random orders seed by seed,
        the first three orders of every ablation, the codes order, then the rest."""
        ordered = (*self.table_k, *self.collapse_k)

        def seeds(lo: int, hi: int) -> list[Cell]:
            return [
                Cell("paper", k, c, s)
                for s in range(lo, min(hi, self.orders))
                for k in ordered
                for c in costs
            ]

        def ablations(lo: int, hi: int) -> list[Cell]:
            return [
                Cell(v, k, c, s)
                for s in range(lo, min(hi, self.ablation_orders))
                for v in self.ablations
                for k in self.ablation_k
                for c in costs
            ]

        first = (2 * self.orders + 2) // 3
        out = seeds(0, first) + ablations(0, 3)
        out += [Cell("paper", k, c, -1) for k in self.curve_k for c in costs]
        out += seeds(first, self.orders) + ablations(3, self.ablation_orders)
        return list(dict.fromkeys(out))


@dataclass(frozen=True)
class Cell:
    """One run: a variant, a requested k, an optimization and a seed (-1: codes order)."""

    variant: str
    k: int
    cost: str
    seed: int

    def key(self, table: str = "") -> str:
        """The run's name in the cell cache (``table``: a fingerprint of a table other
        than the bundled Adult)."""
        name = f"{self.variant}-k{self.k}-{self.cost}-s{self.seed}"
        return f"mauger2020-v{CACHE_VERSION}-{table + '-' if table else ''}{name}"


#: The full study: 30 orders per cell of the tables and of Figure 9's collapse points and
#: of every ablation at k = 100 and 1500, and the 21 requested k in the codes order.
FULL = Design(
    curve_k=PAPER_K_VALUES,
    table_k=(2, 100, 1500),
    collapse_k=(5000, 7500, 10000, 15000),
    orders=30,
    ablation_k=(100, 1500),
    ablation_orders=30,
    ablations=("smallest", "queue", "no-fusion", "age-74", "data-leaves"),
)
#: A check that the pipeline works, in a few minutes: same claims, far fewer orders.
QUICK = Design(
    curve_k=(2, 100, 1500, 7500, 15000),
    table_k=(100, 1500),
    collapse_k=(),
    orders=3,
    ablation_k=(1500,),
    ablation_orders=1,
    ablations=("smallest", "queue", "no-fusion", "age-74", "data-leaves"),
)

_TABLES: dict[str, tuple[IntArray, tuple[Hierarchy, ...]]] = {}


def _init_worker(tables: Mapping[str, tuple[Path, tuple[Hierarchy, ...]]]) -> None:
    """Pool initializer: load each encoded table (``.npy``) once per worker."""
    for leaves, (path, hs) in tables.items():
        _TABLES[leaves] = (np.load(path), hs)


def _run(cell: Cell) -> Run:
    variant = VARIANTS[cell.variant]
    codes, hs = _TABLES[variant.leaves]
    return _fit(
        codes,
        hs,
        cell.k,
        cell.cost,
        variant.small_class,
        seed=cell.seed,
        fuse=variant.fuse,
        variant=cell.variant,
    )


def run_cells(
    cells: Sequence[Cell],
    *,
    workers: int | None = None,
    cache: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    data: pl.DataFrame | None = None,
    hierarchies: Mapping[str, Hierarchy | str | os.PathLike[str]] | None = None,
) -> tuple[tuple[Run, ...], dict[str, object]]:
    """Run ``cells`` on the bundled Adult (the paper's nine quasi-identifiers), or on
    ``data`` with ``hierarchies`` (as :func:`~anonkit.study.mauger2020.runs.reproduce`
    takes them; their cache entries carry a fingerprint of the encoded table).

    Runs found in ``cache`` (a folder for :class:`~anonkit.study.cache.CellCache`) are
    read, the others computed (in the study's process pool when ``workers > 1``) and
    written there as soon as each finishes. Returns the runs in the order of ``cells``
    and facts of the run: ``seconds`` (wall), ``computed``, ``cached``, ``workers``, and
    per leaves choice the hierarchy shapes and counts of the table (``tables``).
    """
    if workers is not None:
        check_int(workers, "workers", "run_cells", low=1)
    store = CellCache(cache)
    leaves_needed = sorted({VARIANTS[c.variant].leaves for c in cells} | {"hierarchy"})
    prepared = {leaves: _prepare(data, hierarchies, leaves) for leaves in leaves_needed}
    table = ""
    if data is not None or hierarchies is not None:
        digest = hashlib.sha1(prepared["hierarchy"][0].tobytes(), usedforsecurity=False)
        table = digest.hexdigest()[:12]
    found: dict[Cell, Run] = {}
    for cell in cells:
        hit = store.read(cell.key(table))
        if hit is not None and hit.ok and hit.rows:
            found[cell] = Run.from_dict(hit.rows[0])
    todo = [c for c in cells if c not in found]
    done = len(found)
    total = len(cells)
    if progress is not None:
        progress(done, total)

    def finished(_: int, run: Run) -> None:
        nonlocal done
        cell = Cell(run.variant, run.k, run.cost, run.seed)
        store.write(cell.key(table), CellOutcome((run.to_dict(),), {"anonymize": run.seconds}))
        found[cell] = run
        done += 1
        if progress is not None:
            progress(done, total)

    start = time.perf_counter()
    n_workers = max(1, min(workers or os.cpu_count() or 1, len(todo)))
    if todo and n_workers == 1:
        for leaves, (codes, hs, _) in prepared.items():
            _TABLES[leaves] = (codes, hs)
        for cell in todo:
            finished(0, _run(cell))
    elif todo:
        with tempfile.TemporaryDirectory(prefix="anonkit-") as folder:
            tables = {}
            for leaves, (codes, hs, _) in prepared.items():
                path = Path(folder) / f"codes-{leaves}.npy"
                np.save(path, codes)
                tables[leaves] = (path, hs)
            run_in_processes(
                _run, todo, finished, workers=n_workers, initializer=_init_worker,
                initargs=(tables,),
            )  # fmt: skip
    facts: dict[str, object] = {
        "seconds": time.perf_counter() - start,
        "computed": len(todo),
        "cached": len(cells) - len(todo),
        "workers": n_workers,
        "tables": {
            leaves: {
                "shapes": shapes,
                "n_records": int(codes.shape[1]),
                "n_initial_classes": int(np.unique(codes, axis=1).shape[1]),
                "columns": tuple(h.name or "" for h in hs),
            }
            for leaves, (codes, hs, shapes) in prepared.items()
        },
    }
    return tuple(found[c] for c in cells), facts
