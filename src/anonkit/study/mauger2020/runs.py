"""Run the grid of Mauger et al. (2020): greedy merging for every requested k and cost.

:func:`reproduce` encodes the table once (the bundled Adult with the paper's nine
quasi-identifiers by default) and runs :class:`~anonkit.algorithms.greedy_merge.
GreedyMerge` for every (requested k, optimization) cell, each from the original table as
in the paper, in the study's one process pool (:func:`anonkit.study.runner.
run_in_processes`: spawn, workers ignore Ctrl-C and end with any error) or in this process
with one worker. The result is a :class:`~anonkit.study.mauger2020.results.Reproduction`.

The paper's full reference is in :mod:`anonkit.study.mauger2020`.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import polars as pl

from anonkit._arrays import IntArray
from anonkit._frozen import FrozenDict
from anonkit._validation import check_bool, check_choice, check_int
from anonkit.algorithms.greedy_merge import (
    ORDER_CHOICES,
    PAPER_ADULT_COLUMNS,
    PAPER_K_VALUES,
    SMALL_CLASS_CHOICES,
    GreedyMerge,
)
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.values import encode_records
from anonkit.datasets import load_adult
from anonkit.exceptions import DataError, ParameterError, UnknownColumnError
from anonkit.metrics.cost_matrix import COST_FUNCTIONS, check_cost
from anonkit.study.mauger2020.results import Reproduction, Run
from anonkit.study.pool import run_in_processes

__all__ = ["LEAVES_CHOICES", "reproduce"]


#: Which leaves the hierarchies keep: all rows of the hierarchy files; only the values
#: that occur in the data (closer to the "number of values" of the paper's Figure 5); or,
#: for integer-valued attributes only, the leaves between the smallest and the largest
#: value of the data (Adult's age: 17 to 90, the paper's 74 values), every leaf of the
#: others.
LEAVES_CHOICES: tuple[str, ...] = ("hierarchy", "data", "range")

_WORKER: tuple[IntArray, tuple[Hierarchy, ...]] | None = None


def _init_worker(codes: Path, hierarchies: tuple[Hierarchy, ...]) -> None:
    """Process-pool initializer: load the encoded table (a ``.npy`` file) once per worker.

    A file, not the array itself: the arguments are written to each new process through
    a pipe it reads only after its imports, and a Ctrl-C waits while that is done.
    """
    global _WORKER
    _WORKER = (np.load(codes), hierarchies)


def _fit(
    codes: IntArray,
    hs: tuple[Hierarchy, ...],
    k: int,
    cost: str,
    small: str,
    *,
    seed: int = -1,
    fuse: bool = True,
    variant: str = "paper",
) -> Run:
    """One run; ``seed >= 0`` lists ``C(T)`` in that seed's random order."""
    start, cpu = time.perf_counter(), time.process_time()
    order = "random" if seed >= 0 else "codes"
    r = GreedyMerge(
        k=k, cost=cost, small_class=small, order=order, seed=max(seed, 0), fuse=fuse
    ).fit(codes, hs)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    tied = r.tie_counts[r.tie_counts > 1]
    return Run(
        k=k,
        cost=cost,
        effective_k=r.effective_k,
        n_classes=r.n_classes,
        n_merges=r.n_merges,
        n_fused=r.n_fused,
        alteration=FrozenDict({m: float(r.alteration[m]) for m in COST_FUNCTIONS}),
        modified_percentage=float(r.modified_percentage),
        deleted_percentage=float(r.deleted_percentage),
        deleted_of_modified_percentage=float(r.deleted_of_modified_percentage),
        seconds=seconds,
        variant=variant,
        seed=seed,
        tied_share=float(tied.shape[0] / max(r.n_merges, 1)),
        tied_median=float(np.median(tied)) if tied.shape[0] else 0.0,
        tied_max=int(tied.max()) if tied.shape[0] else 0,
        cpu_seconds=cpu,
    )


def _run_cell(cell: tuple[int, str, str, int, bool]) -> Run:
    """Worker task: one (k, cost, small_class, seed, fuse) cell on the initializer's table."""
    if _WORKER is None:  # pragma: no cover - only if the initializer did not run
        raise RuntimeError("the worker was started without its table")
    k, cost, small, seed, fuse = cell
    return _fit(_WORKER[0], _WORKER[1], k, cost, small, seed=seed, fuse=fuse)


def _prepare(
    data: pl.DataFrame | None,
    hierarchies: Mapping[str, Hierarchy | str | os.PathLike[str]] | None,
    leaves: str,
) -> tuple[IntArray, tuple[Hierarchy, ...], tuple[tuple[int, int, int], ...]]:
    """Level-0 codes ``(n_qi, n)`` and hierarchies of the quasi-identifiers."""
    if data is None or hierarchies is None:
        frame, paths = load_adult()
        if data is None:
            data = frame
        if hierarchies is None:
            hierarchies = {c: paths[c] for c in PAPER_ADULT_COLUMNS}
    columns = list(hierarchies)
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise UnknownColumnError(missing, data.columns)
    data = data.select(columns).drop_nulls()
    if data.height == 0:
        raise DataError("the data has no record without missing quasi-identifier values.")
    hs = [
        spec.with_name(c) if isinstance(spec, Hierarchy) else Hierarchy.from_csv(Path(spec), name=c)
        for c, spec in hierarchies.items()
    ]
    present = [set(data[c].cast(pl.String).unique().to_list()) for c in columns]
    shapes = tuple((h.height, len(h.leaves), len(p)) for h, p in zip(hs, present, strict=True))
    if leaves == "data":
        hs = [
            Hierarchy([r for r in h.rows if r[0] in p], name=c)
            for h, p, c in zip(hs, present, columns, strict=True)
        ]
    elif leaves == "range":
        hs = [_integer_range(h, p, c) for h, p, c in zip(hs, present, columns, strict=True)]
    codes = np.ascontiguousarray(encode_records(data, columns, hs).codes, dtype=np.int64)
    return codes, tuple(hs), shapes


def _integer_range(h: Hierarchy, present: set[str], name: str) -> Hierarchy:
    """``h`` with only the leaves between the data's smallest and largest value, when
    every leaf is an integer; ``h`` unchanged otherwise."""
    try:
        leaves = [int(r[0]) for r in h.rows]
        values = [int(v) for v in present]
    except ValueError:
        return h
    lo, hi = min(values), max(values)
    return Hierarchy([r for r, v in zip(h.rows, leaves, strict=True) if lo <= v <= hi], name=name)


def reproduce(
    *,
    k_values: Sequence[int] = PAPER_K_VALUES,
    costs: Sequence[str] = COST_FUNCTIONS,
    small_class: str = "first",
    leaves: str = "hierarchy",
    order: str = "codes",
    seed: int = 0,
    fuse: bool = True,
    data: pl.DataFrame | None = None,
    hierarchies: Mapping[str, Hierarchy | str | os.PathLike[str]] | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Reproduction:
    """Run the paper's grid: greedy merging for every requested k and optimization.

    Every run starts from the original table (as in the paper). With ``workers > 1`` the
    runs go to the study's process pool (:func:`anonkit.study.pool.run_in_processes`),
    started with the *spawn* method (forking a process whose polars/numpy thread pools
    are running can deadlock the child); its workers ignore Ctrl-C and end with any
    error here, and each loads the encoded table once, from a temporary ``.npy`` file, in
    the pool's initializer. As
    always with spawn, a script that calls this with ``workers > 1`` must do so under
    ``if __name__ == "__main__":``.

    Parameters
    ----------
    k_values
        Requested k (default: :data:`~anonkit.algorithms.greedy_merge.PAPER_K_VALUES`).
    costs
        Optimizations (default: all seven, in the paper's order).
    small_class
        How Algorithm 1 chooses ``C_small``: ``"first"`` (the paper) or ``"smallest"``.
    leaves
        ``"hierarchy"`` keeps every row of the hierarchy files; ``"data"`` keeps only the
        values that occur in the data; ``"range"`` keeps, for integer-valued attributes,
        the leaves between the data's smallest and largest value (Adult's age: 74
        leaves, as in the paper). Leaf counts enter NCP and the LLM family.
    order, seed, fuse
        How ``C(T)`` is listed (``"codes"`` or ``"random"`` with ``seed``) and whether
        classes that come to share their values are fused
        (:class:`~anonkit.algorithms.greedy_merge.GreedyMerge`).
    data, hierarchies
        The table and an ordered mapping from quasi-identifier to hierarchy (or hierarchy
        file); the order of the mapping is the column order of ``C(T)``. Default: the
        bundled Adult with the paper's nine quasi-identifiers in its order
        (:data:`~anonkit.algorithms.greedy_merge.PAPER_ADULT_COLUMNS`). Records with a
        missing quasi-identifier are dropped.
    workers
        Processes (default ``os.cpu_count()``, at most the number of runs); 1 runs in this
        process.
    progress
        Called as ``progress(done, total)`` after each finished run.

    Raises
    ------
    ParameterError
        For empty ``k_values``, a k outside 1..n, bad ``workers``, ``small_class``,
        ``leaves``, ``order``, ``seed`` or ``fuse``.
    UnknownNameError
        For an unknown cost.

    Examples
    --------
    >>> rows = [["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"], ["d", "C", "*"]]
    >>> frame = pl.DataFrame({"q": ["a", "b", "c", "d", "d"]})
    >>> rep = reproduce(k_values=[2], costs=["ncp"], data=frame,
    ...                 hierarchies={"q": Hierarchy(rows)}, workers=1)
    >>> rep.run(2, "ncp").effective_k, rep.n_initial_classes
    (2, 4)
    """
    owner = "reproduce"
    ks = tuple(k_values)
    if not ks:
        raise ParameterError("k_values", owner, "a non-empty sequence of ints", ks)
    for k in ks:
        check_int(k, "k_values", owner, low=1)
    cost_list = tuple(check_cost(c) for c in costs)
    if not cost_list:
        raise ParameterError("costs", owner, "at least one cost function", cost_list)
    if small_class not in SMALL_CLASS_CHOICES:
        raise ParameterError(
            "small_class", owner, f"one of {list(SMALL_CLASS_CHOICES)}", small_class
        )
    if leaves not in LEAVES_CHOICES:
        raise ParameterError("leaves", owner, f"one of {list(LEAVES_CHOICES)}", leaves)
    check_choice(order, "order", owner, ORDER_CHOICES)
    check_int(seed, "seed", owner, low=0)
    check_bool(fuse, "fuse", owner)
    run_seed = int(seed) if order == "random" else -1
    if workers is not None:
        check_int(workers, "workers", owner, low=1)

    codes, hs, shapes = _prepare(data, hierarchies, leaves)
    n = int(codes.shape[1])
    if max(ks) > n:
        raise ParameterError("k_values", owner, f"at most the number of records ({n})", max(ks))
    n_initial = int(np.unique(codes, axis=1).shape[1])
    cells = [(int(k), c, small_class, run_seed, bool(fuse)) for k in ks for c in cost_list]
    n_workers = min(workers or os.cpu_count() or 1, len(cells))

    start = time.perf_counter()
    results: dict[tuple[int, str], Run] = {}
    if n_workers == 1:
        for k, c, small, cell_seed, cell_fuse in cells:
            results[(k, c)] = _fit(codes, hs, k, c, small, seed=cell_seed, fuse=cell_fuse)
            if progress is not None:
                progress(len(results), len(cells))
    else:

        def finished(_: int, run: Run) -> None:
            results[(run.k, run.cost)] = run
            if progress is not None:
                progress(len(results), len(cells))

        # spawn, workers ignore Ctrl-C, and any exception (a failed run, Ctrl-C) ends them
        with tempfile.TemporaryDirectory(prefix="anonkit-") as folder:
            table = Path(folder) / "codes.npy"
            np.save(table, codes)
            run_in_processes(
                _run_cell,
                cells,
                finished,
                workers=n_workers,
                initializer=_init_worker,
                initargs=(table, hs),
            )
    seconds = time.perf_counter() - start
    return Reproduction(
        k_values=tuple(int(k) for k in ks),
        costs=cost_list,
        small_class=small_class,
        leaves=leaves,
        columns=tuple(h.name or f"q{i}" for i, h in enumerate(hs)),
        hierarchy_shapes=shapes,
        n_records=n,
        n_initial_classes=n_initial,
        runs=tuple(results[(k, c)] for k, c, *_ in cells),
        workers=n_workers,
        seconds=seconds,
    )
